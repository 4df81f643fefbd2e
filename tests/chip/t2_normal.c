// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * t2_normal.c — Timer2 in normal mode at clk/32, a prescaler setting only
 * Timer2's own prescaler has, OCR2A = 200: TOV2 every 256 * 32 cycles,
 * OCF2A as the count leaves 200.  The CPU sleeps between the handlers.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER2_OVF_vect);
EMPTY_INTERRUPT(TIMER2_COMPA_vect);

int main(void)
{
	OCR2A = 200;
	TIMSK2 = _BV(TOIE2) | _BV(OCIE2A);
	TCCR2B = _BV(CS21) | _BV(CS20);  /* clk/32 */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
