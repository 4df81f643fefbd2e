// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_foc.c — FOC0, in TCCR0 itself on the ATmega16: Timer0 CTC with OCR0
 * = 199 at clk/64 toggles OC0 (PB3); the second compare handler strobes
 * FOC0 at counts of about 50 and 100.  OC0 toggles at each strobe, no
 * OCF0 is set and the count is not cleared.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#define CTC_TOGGLE_64 (_BV(WGM01) | _BV(COM00) | _BV(CS01) | _BV(CS00))

ISR(TIMER0_COMP_vect)
{
	static unsigned char n;
	if (++n != 2)
		return;
	while (TCNT0 < 50)
		;
	TCCR0 = CTC_TOGGLE_64 | _BV(FOC0);
	while (TCNT0 < 100)
		;
	TCCR0 = CTC_TOGGLE_64 | _BV(FOC0);
}

int main(void)
{
	DDRB = _BV(PB3);
	OCR0 = 199;
	TIMSK = _BV(OCIE0);
	TCCR0 = CTC_TOGGLE_64;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
