// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pc_icr_t1.c — Timer1 phase-correct PWM with TOP in ICR1 (mode 10): ICR1
 * = 1000 at clk/8, OC1A (PB1) non-inverting at OCR1A = 250; ICF1 at TOP,
 * TOV1 at BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_CAPT_vect);

int main(void)
{
	DDRB = _BV(PB1);
	ICR1 = 1000;
	OCR1A = 250;
	TCCR1A = _BV(COM1A1) | _BV(WGM11);
	TIMSK1 = _BV(TOIE1) | _BV(ICIE1);
	TCCR1B = _BV(WGM13) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
