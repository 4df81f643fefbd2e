// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * foc_t0.c — FOC0A in CTC: Timer0 OCR0A = 199 at clk/64 toggles OC0A
 * (PD6) at each match.  In the second compare handler, at counts of about
 * 50 and 100, FOC0A is strobed: OC0A toggles as at a match, but no OCF0A
 * is set and the count is not cleared.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#define CLK64 (_BV(CS01) | _BV(CS00))

ISR(TIMER0_COMPA_vect)
{
	static unsigned char n;
	if (++n != 2)
		return;
	while (TCNT0 < 50)
		;
	TCCR0B = CLK64 | _BV(FOC0A);
	while (TCNT0 < 100)
		;
	TCCR0B = CLK64 | _BV(FOC0A);
}

int main(void)
{
	DDRD = _BV(PD6);
	OCR0A = 199;
	TCCR0A = _BV(COM0A0) | _BV(WGM01);
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = CLK64;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
