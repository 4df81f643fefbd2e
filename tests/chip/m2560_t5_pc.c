// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_t5_pc.c — the ATmega2560's Timer5 in phase-correct PWM with TOP in
 * OCR5A (mode 11): OCR5A = 1000 at clk/8; OC5C (PL5) non-inverting at
 * OCR5C = 250, high around BOTTOM; OCF5A at TOP, TOV5 at BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER5_OVF_vect);
EMPTY_INTERRUPT(TIMER5_COMPA_vect);

int main(void)
{
	DDRL = _BV(PL5);
	OCR5A = 1000;
	OCR5C = 250;
	TCCR5A = _BV(COM5C1) | _BV(WGM51) | _BV(WGM50);
	TIMSK5 = _BV(TOIE5) | _BV(OCIE5A);
	TCCR5B = _BV(WGM53) | _BV(CS51);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
