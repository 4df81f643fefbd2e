// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_t4_fpwm.c — the ATmega2560's Timer4 in fast PWM with TOP in ICR4
 * (mode 14): ICR4 = 1999 at clk/8; OC4C (PH5) non-inverting at OCR4C =
 * 499, OC4B (PH4) inverting at OCR4B = 999; TOV4 and ICF4 at TOP -> BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER4_OVF_vect);
EMPTY_INTERRUPT(TIMER4_CAPT_vect);

int main(void)
{
	DDRH = _BV(PH4) | _BV(PH5);
	ICR4 = 1999;
	OCR4B = 999;
	OCR4C = 499;
	TCCR4A = _BV(COM4B1) | _BV(COM4B0) | _BV(COM4C1) | _BV(WGM41);
	TIMSK4 = _BV(TOIE4) | _BV(ICIE4);
	TCCR4B = _BV(WGM43) | _BV(WGM42) | _BV(CS41);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
