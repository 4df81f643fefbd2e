// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * fpwm_ocra_t1.c — Timer1 fast PWM with TOP in OCR1A (mode 15): OCR1A =
 * 249 at clk/64; OC1A (PB1) toggles at each TOP (COM1A = 1, allowed only
 * here), OC1B (PB2) non-inverting at OCR1B = 99; TOV1 and OCF1A both at
 * TOP -> BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_COMPA_vect);

int main(void)
{
	DDRB = _BV(PB1) | _BV(PB2);
	OCR1A = 249;
	OCR1B = 99;
	TCCR1A = _BV(COM1A0) | _BV(COM1B1) | _BV(WGM11) | _BV(WGM10);
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1A);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11) | _BV(CS10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
