// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * ctc_icr.c — Timer1 CTC with TOP in ICR1 (mode 12): ICR1 = 499 at clk/8,
 * ICF1 raised as the count leaves TOP; OC1A (PB1) toggles as it leaves
 * OCR1A = 100, once a period.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_CAPT_vect);

int main(void)
{
	DDRB = _BV(PB1);
	ICR1 = 499;
	OCR1A = 100;
	TCCR1A = _BV(COM1A0);
	TIMSK1 = _BV(ICIE1);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
