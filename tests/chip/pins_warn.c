// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pins_warn.c — what the pins and the external interrupts do not model,
 * each said once at record time: DIDR0 disabling ADC0's digital input;
 * INT0 in its low-level mode on PD2, an input nothing drives (no pull-up;
 * the test gives it no stimulus), taken once (the handler disables it);
 * PB1 an output driven high, which the outside world drives low.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { EIMSK = 0; }

int main(void)
{
	DIDR0 = _BV(ADC0D);
	DDRB = _BV(DDB1);
	PORTB = _BV(PORTB1);
	EICRA = 0;
	EIMSK = _BV(INT0);
	sei();
	for (;;)
		;
}
