// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * int_m2560.c — the ATmega2560's INT7:0 (INT3:0 on PD3:0 by EICRA,
 * INT7:4 on PE7:4 by EICRB), each in a sense mode of its own: INT0
 * falling, INT1 rising, INT2 any change, INT3 falling, INT4 rising, INT5
 * any change, INT6 falling, INT7 rising.  The outside world pulses each
 * pin; the program spins between the handlers (it never sleeps,
 * so that the clocks test_conformance_pins sets are the only ones).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { }
ISR(INT1_vect) { }
ISR(INT2_vect) { }
ISR(INT3_vect) { }
ISR(INT4_vect) { }
ISR(INT5_vect) { }
ISR(INT6_vect) { }
ISR(INT7_vect) { }

int main(void)
{
	EICRA = _BV(ISC01) | _BV(ISC11) | _BV(ISC10) | _BV(ISC20) | _BV(ISC31);
	EICRB = _BV(ISC41) | _BV(ISC40) | _BV(ISC50) | _BV(ISC61) | _BV(ISC71) | _BV(ISC70);
	EIMSK = 0xff;
	sei();
	for (;;)
		;
}
