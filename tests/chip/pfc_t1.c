// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pfc_t1.c — Timer1 phase-and-frequency-correct PWM with TOP in ICR1
 * (mode 8): ICR1 = 1000 at clk/8; OC1A (PB1) non-inverting at OCR1A =
 * 250, high around BOTTOM; OC1B (PB2) inverting at OCR1B = 900, high
 * around TOP; ICF1 at TOP, TOV1 at BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_CAPT_vect);

int main(void)
{
	DDRB = _BV(PB1) | _BV(PB2);
	ICR1 = 1000;
	OCR1A = 250;
	OCR1B = 900;
	TCCR1A = _BV(COM1A1) | _BV(COM1B1) | _BV(COM1B0);
	TIMSK1 = _BV(TOIE1) | _BV(ICIE1);
	TCCR1B = _BV(WGM13) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
