// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * t1_normal.c — Timer1 in normal mode at clk/1 (a timer clock edge every
 * cycle), OCR1B = 40000: TOV1 as the count goes 0xFFFF -> 0, OCF1B as it
 * leaves 40000.  The CPU sleeps between the empty handlers so each raise
 * lands on its edge.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_COMPB_vect);

int main(void)
{
	OCR1B = 40000;
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1B);
	TCCR1B = _BV(CS10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
