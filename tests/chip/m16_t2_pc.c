// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_t2_pc.c — the ATmega16's Timer2 in phase-correct PWM: OCR2 = 100 at
 * clk/32 (TCCR2's own prescaler setting), OC2 (PD7) non-inverting, high
 * around BOTTOM; TOV2 at BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER2_OVF_vect);

int main(void)
{
	DDRD = _BV(PD7);
	OCR2 = 100;
	TIMSK = _BV(TOIE2);
	TCCR2 = _BV(WGM20) | _BV(COM21) | _BV(CS21) | _BV(CS20);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
