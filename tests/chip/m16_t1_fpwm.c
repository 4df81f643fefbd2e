// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_t1_fpwm.c — the ATmega16's Timer1 (TCCR1A/TCCR1B, shared TIMSK) in
 * fast PWM with TOP in ICR1 (mode 14): ICR1 = 999 at clk/8, OC1A (PD5)
 * non-inverting at OCR1A = 249; TOV1 and ICF1 at TOP -> BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_CAPT_vect);

int main(void)
{
	DDRD = _BV(PD5);
	ICR1 = 999;
	OCR1A = 249;
	TCCR1A = _BV(COM1A1) | _BV(WGM11);
	TIMSK = _BV(TOIE1) | _BV(TICIE1);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
