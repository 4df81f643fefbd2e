// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_warn.c — what the USART model does not simulate, or takes one way,
 * each once: USART0 at UBRR0 16 (2,720 cycles a frame), then
 *  - UDR0 written with the transmitter off (the byte waits), then TXEN0;
 *  - UDR0 written twice more while UDRE0 is clear (the third is ignored);
 *  - UBRR0L changed while a frame is under way;
 *  - MPCM0 set, a reserved character size (UCSZ0 4: UCSZ02 with UCSR0C
 *    0), then, last, synchronous mode;
 *  - UDR0 read after the next frame's start bit while a frame waited in
 *    the shift register (the test sends "ABCD" at cycle 20,000: C waits
 *    from 25,440, D's start bit comes at 25,576; the read is at about
 *    27,000).
 */
#include <avr/io.h>

int main(void)
{
	UBRR0H = 0;
	UBRR0L = 16;
	UDR0 = 'a';
	UCSR0B = _BV(TXEN0) | _BV(RXEN0);
	UDR0 = 'b';
	UDR0 = 'c';
	UBRR0L = 8;
	UCSR0A = _BV(MPCM0);
	UCSR0A = 0;
	UCSR0C = 0;
	UCSR0B = _BV(TXEN0) | _BV(RXEN0) | _BV(UCSZ02);
	UCSR0B = _BV(TXEN0) | _BV(RXEN0);
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
	UBRR0L = 16;
	while (!(UCSR0A & _BV(RXC0)))
		;
	__builtin_avr_delay_cycles(7000);
	GPIOR0 = UDR0;
	UCSR0C = _BV(UMSEL00) | _BV(UCSZ01) | _BV(UCSZ00);
	for (;;)
		;
}
