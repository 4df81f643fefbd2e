// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pins_pud.c — PUD in MCUCR disables every pull-up.  PB0 and PB1 inputs
 * with PORTB0 and PORTB1 set, PCINT0 on PB0: with PUD set nothing pulls
 * them high; PUD cleared, both go high (a pin change on PB0); the outside
 * world pulls PB1 low, which the pull-up does not change; PUD set again.
 * PINB goes out through GPIOR0 after each step; the pin change handler
 * counts its entries in GPIOR2.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(PCINT0_vect) { GPIOR2++; }

int main(void)
{
	MCUCR = _BV(PUD);
	PORTB = _BV(PORTB0) | _BV(PORTB1);
	PCMSK0 = _BV(PCINT0);
	PCICR = _BV(PCIE0);
	sei();
	GPIOR0 = PINB;
	MCUCR = 0;
	GPIOR0 = PINB;
	while (PINB & _BV(PINB1))
		;
	GPIOR0 = PINB;
	MCUCR = _BV(PUD);
	GPIOR0 = PINB;
	for (;;)
		;
}
