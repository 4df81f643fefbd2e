// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * ctc_below.c — CTC with OCR1A written below the count: Timer1 mode 4 at
 * clk/8 starts towards OCR1A = 1000; at a count of 600 or so OCR1A = 100
 * is written (immediate in CTC), so the count runs on to 0xFFFF, wraps
 * with TOV1, and only then matches 100.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_COMPA_vect);

int main(void)
{
	OCR1A = 1000;
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1A);
	TCCR1B = _BV(WGM12) | _BV(CS11);
	while (TCNT1 < 600)
		;
	OCR1A = 100;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
