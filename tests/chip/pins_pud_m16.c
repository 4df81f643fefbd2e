// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * pins_pud_m16.c — the ATmega16's PUD, bit 2 of SFIOR: PB0 and PB1
 * inputs with PORTB0 and PORTB1 set; with PUD set nothing pulls them
 * high, PUD cleared both go high, the outside world pulls PB1 low.  PINB
 * goes out through PORTC after each step.
 */
#include <avr/io.h>

int main(void)
{
	SFIOR = _BV(PUD);
	PORTB = _BV(PB0) | _BV(PB1);
	PORTC = PINB;
	SFIOR = 0;
	PORTC = PINB;
	while (PINB & _BV(PB1))
		;
	PORTC = PINB;
	for (;;)
		;
}
