// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * fpwm_t2.c — Timer2 fast PWM with TOP in OCR2A (mode 7): OCR2A = 99 at
 * clk/32, OC2B (PD3) non-inverting at OCR2B = 24; TOV2 and OCF2A both at
 * TOP -> BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER2_OVF_vect);
EMPTY_INTERRUPT(TIMER2_COMPA_vect);

int main(void)
{
	DDRD = _BV(PD3);
	OCR2A = 99;
	OCR2B = 24;
	TCCR2A = _BV(COM2B1) | _BV(WGM21) | _BV(WGM20);
	TIMSK2 = _BV(TOIE2) | _BV(OCIE2A);
	TCCR2B = _BV(WGM22) | _BV(CS21) | _BV(CS20);  /* clk/32 */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
