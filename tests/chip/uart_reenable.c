// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_reenable.c — the transmitter turned off and on again while a byte
 * is under way (UBRR0 103, 8N1: 16,640 cycles a frame).  'A' goes out;
 * TXEN0 is cleared (not effective until the pending transmissions are
 * out) and set again; 'B' follows 'A' back to back (GPIOR0 01 at its
 * UDRE0, 02 at TXC0).  Then with the transmitter off and idle, 'C' is
 * written: it waits in UDR0 (GPIOR1 40: TXC0 still set, UDRE0 clear)
 * until TXEN0 is set, when it moves into the shift register (20 after
 * TXC0 is cleared) and goes out (GPIOR0 03 at its TXC0).
 */
#include <avr/io.h>

int main(void)
{
	UBRR0H = 0;
	UBRR0L = 103;
	UCSR0B = _BV(TXEN0);
	UDR0 = 'A';
	while (!(UCSR0A & _BV(UDRE0)))
		;
	UCSR0B = 0;
	UCSR0B = _BV(TXEN0);
	UDR0 = 'B';
	while (!(UCSR0A & _BV(UDRE0)))
		;
	GPIOR0 = 1;
	while (!(UCSR0A & _BV(TXC0)))
		;
	GPIOR0 = 2;
	UCSR0B = 0;
	UDR0 = 'C';
	GPIOR1 = UCSR0A;
	UCSR0A = _BV(TXC0);
	UCSR0B = _BV(TXEN0);
	GPIOR1 = UCSR0A;
	while (!(UCSR0A & _BV(TXC0)))
		;
	GPIOR0 = 3;
	for (;;)
		;
}
