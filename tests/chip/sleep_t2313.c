// build: -mmcu=attiny2313 -DF_CPU=16000000UL
/*
 * sleep_t2313.c — SLEEP on a part whose sleep bits avrr has no table for
 * (the ATtiny2313's SM1:0 sit apart in MCUCR): Timer0's overflow at clk/1
 * wakes the CPU from each sleep.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	TIMSK = _BV(TOIE0);
	TCCR0B = _BV(CS00);
	MCUCR = _BV(SE) | _BV(SM0);   /* power-down on the chip */
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
