// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * icr_unbuffered.c — ICR1 as TOP is not double-buffered: Timer1 fast PWM
 * mode 14, ICR1 = 999 at clk/8; the third overflow handler writes ICR1 =
 * 499 early in a period, and that very period ends at the new TOP.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER1_OVF_vect)
{
	static unsigned char n;
	if (++n == 3)
		ICR1 = 499;
}

int main(void)
{
	ICR1 = 999;
	TCCR1A = _BV(WGM11);
	TIMSK1 = _BV(TOIE1);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
