// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * fpwm_t0.c — Timer0 fast PWM (mode 3, TOP 0xFF) at clk/8 at its
 * extremes: OC0A (PD6) non-inverting with OCR0A = 0 is a spike of one
 * timer clock each period, OC0B (PD5) non-inverting with OCR0B = 0xFF
 * (= TOP) is high for good once set at the first BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	DDRD = _BV(PD6) | _BV(PD5);
	OCR0A = 0;
	OCR0B = 0xff;
	TCCR0A = _BV(COM0A1) | _BV(COM0B1) | _BV(WGM01) | _BV(WGM00);
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS01);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
