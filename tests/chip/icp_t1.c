// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * icp_t1.c — input capture on ICP1 (PB0, an input driven by the test's
 * stimuli): Timer1 normal mode at clk/64 captures TCNT1 into ICR1 on
 * rising edges (ICES1) — twice — then, with ICES1 cleared and ICF1
 * cleared after the change as the datasheet asks, on falling edges.
 * Each capture's ICR1 goes out through GPIOR0 (low) and GPIOR1 (high).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER1_CAPT_vect)
{
	static unsigned char n;
	unsigned v = ICR1;
	GPIOR0 = v;
	GPIOR1 = v >> 8;
	if (++n == 2) {
		TCCR1B &= ~_BV(ICES1);
		TIFR1 = _BV(ICF1);
	}
}

int main(void)
{
	TIMSK1 = _BV(ICIE1);
	TCCR1B = _BV(ICES1) | _BV(CS11) | _BV(CS10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
