// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pc_t0.c — Timer0 phase-correct PWM (mode 1, TOP 0xFF) at clk/8: OC0A
 * (PD6) non-inverting at OCR0A = 100, high around BOTTOM; OC0B (PD5)
 * inverting at OCR0B = 200, high around TOP; TOV0 at BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	DDRD = _BV(PD6) | _BV(PD5);
	OCR0A = 100;
	OCR0B = 200;
	TCCR0A = _BV(COM0A1) | _BV(COM0B1) | _BV(COM0B0) | _BV(WGM00);
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS01);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
