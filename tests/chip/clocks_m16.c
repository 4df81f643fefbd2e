// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * clocks_m16.c — the ATmega16's external interrupts while clk_IO is
 * stopped (test_conformance_pins stops it for a while, as power-down
 * does): INT0 on falling edges (MCUCR ISC01, PD2), INT2 on falling edges
 * (ISC2 0, PB2, asynchronous), both pulled up.  The INT2 handler then
 * switches INT2 to rising edges with INT2 still enabled, which the
 * datasheet warns can raise INT2.  The program spins.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { }
ISR(INT2_vect) { MCUCSR |= _BV(ISC2); }

int main(void)
{
	PORTB = _BV(PB2);
	PORTD = _BV(PD2);
	MCUCR = _BV(ISC01);
	GICR = _BV(INT0) | _BV(INT2);
	sei();
	for (;;)
		;
}
