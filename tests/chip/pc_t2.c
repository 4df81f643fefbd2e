// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pc_t2.c — Timer2 phase-correct PWM with TOP in OCR2A (mode 5): OCR2A =
 * 200 at clk/32, OC2B (PD3) non-inverting at OCR2B = 50; OCF2A at TOP,
 * TOV2 at BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER2_OVF_vect);
EMPTY_INTERRUPT(TIMER2_COMPA_vect);

int main(void)
{
	DDRD = _BV(PD3);
	OCR2A = 200;
	OCR2B = 50;
	TCCR2A = _BV(COM2B1) | _BV(WGM20);
	TIMSK2 = _BV(TOIE2) | _BV(OCIE2A);
	TCCR2B = _BV(WGM22) | _BV(CS21) | _BV(CS20);  /* clk/32 */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
