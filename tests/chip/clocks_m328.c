// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * clocks_m328.c — which external interrupts see the pins while clk_IO is
 * stopped (test_conformance_pins stops it for a while, as power-down
 * does): INT0 on falling edges (PD2), INT1 on the low level (PD3), PCINT0
 * on PB0, all pulled up.  The INT1 handler disables INT1 (the level would
 * interrupt again and again).  The program spins: it never sleeps, so
 * that the test's clocks are the only ones.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { }
ISR(INT1_vect) { EIMSK &= (uint8_t)~_BV(INT1); }
ISR(PCINT0_vect) { }

int main(void)
{
	PORTB = _BV(PORTB0);
	PORTD = _BV(PORTD2) | _BV(PORTD3);
	EICRA = _BV(ISC01);
	EIMSK = _BV(INT0) | _BV(INT1);
	PCMSK0 = _BV(PCINT0);
	PCICR = _BV(PCIE0);
	sei();
	for (;;)
		;
}
