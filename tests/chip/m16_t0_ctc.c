// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_t0_ctc.c — the ATmega16's Timer0, one compare unit and one control
 * register (TCCR0): CTC with OCR0 = 99 at clk/8 toggles OC0 (PB3) and
 * sets OCF0 as the count leaves 99; TOIE0 is enabled too, and CTC below
 * MAX never overflows.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER0_COMP_vect);
EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	DDRB = _BV(PB3);
	OCR0 = 99;
	TIMSK = _BV(OCIE0) | _BV(TOIE0);
	TCCR0 = _BV(WGM01) | _BV(COM00) | _BV(CS01);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
