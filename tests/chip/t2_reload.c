// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * t2_reload.c — a TCNT2 write does not touch the prescaler's phase: Timer2
 * normal mode at clk/64, the overflow handler reloads TCNT2 = 6 before the
 * next timer clock, so each period is (256 - 6) * 64 = 16000 cycles, 1 ms.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER2_OVF_vect)
{
	TCNT2 = 6;
}

int main(void)
{
	TIMSK2 = _BV(TOIE2);
	TCCR2B = _BV(CS22);  /* clk/64 */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
