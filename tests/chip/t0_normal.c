// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * t0_normal.c — Timer0 in normal mode at clk/8, OCR0A = 100: TOV0 as the
 * count goes 0xFF -> 0x00, OCF0A as it leaves 100.  The CPU sleeps in
 * idle mode between the (empty) handlers, so each raise lands on its
 * timer clock edge.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);
EMPTY_INTERRUPT(TIMER0_COMPA_vect);

int main(void)
{
	OCR0A = 100;
	TIMSK0 = _BV(TOIE0) | _BV(OCIE0A);
	TCCR0B = _BV(CS01);  /* the count starts at the write's cycle */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
