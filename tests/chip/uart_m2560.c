// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * uart_m2560.c — the ATmega2560's USART1, USART2 and USART3, each with a
 * rate and format of its own: USART1 UBRR 16 (272 cycles a bit), 8N1 (10
 * bits); USART2 UBRR 8 with U2X2 (72 cycles a bit), 7E1 (10 bits);
 * USART3 UBRR 25 (416 cycles a bit), 8N2 (11 bits).  Each sends two bytes
 * back to back (polled: the second waits for UDREn), then receives the
 * test's byte and sends it through GPIOR0, and TXCn through GPIOR1.
 */
#include <avr/io.h>

#define SEND2(n, a, b)                              \
	do {                                        \
		UDR##n = (a);                       \
		while (!(UCSR##n##A & _BV(UDRE##n))) \
			;                           \
		UDR##n = (b);                       \
	} while (0)

int main(void)
{
	UBRR1 = 16;
	UCSR1C = _BV(UCSZ11) | _BV(UCSZ10);
	UCSR1B = _BV(TXEN1) | _BV(RXEN1);
	UBRR2 = 8;
	UCSR2A = _BV(U2X2);
	UCSR2C = _BV(UPM21) | _BV(UCSZ21);
	UCSR2B = _BV(TXEN2) | _BV(RXEN2);
	UBRR3 = 25;
	UCSR3C = _BV(USBS3) | _BV(UCSZ31) | _BV(UCSZ30);
	UCSR3B = _BV(TXEN3) | _BV(RXEN3);
	SEND2(1, 0x11, 0x12);
	SEND2(2, 0x21, 0x22);
	SEND2(3, 0x31, 0x32);
	while (!(UCSR1A & _BV(RXC1)))
		;
	GPIOR0 = UDR1;
	while (!(UCSR2A & _BV(RXC2)))
		;
	GPIOR0 = UDR2;
	while (!(UCSR3A & _BV(RXC3)))
		;
	GPIOR0 = UDR3;
	GPIOR1 = UCSR1A;
	GPIOR1 = UCSR2A;
	GPIOR1 = UCSR3A;
	for (;;)
		;
}
