// build: -mmcu=atmega644 -DF_CPU=16000000UL
/*
 * int2_m644.c — the ATmega644's INT2, on PB2 (its datasheet's pin
 * table), on falling edges (EICRA ISC21), enabled in EIMSK.  The outside
 * world pulses PB2, and PB3 (no external interrupt there); the program
 * sleeps (idle) between the handlers, which send EIFR (INTF2 cleared by
 * the entry) through GPIOR0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(INT2_vect) { GPIOR0 = EIFR; }

int main(void)
{
	EICRA = _BV(ISC21);
	EIMSK = _BV(INT2);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	for (;;)
		sleep_mode();
}
