// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * tcnt_block.c — a TCNT1 write blocks the compare match at the next timer
 * clock: Timer1 normal mode at clk/8 with OCR1A = 0 matches as it first
 * leaves 0; at a count of about 10, TCNT1 = 0 is written, and the next
 * OCF1A comes only after the count has wrapped, 65536 timer clocks later.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_COMPA_vect);

int main(void)
{
	OCR1A = 0;
	TCCR1B = _BV(CS11);
	while (TCNT1 < 10)
		;
	TCNT1 = 0;
	TIFR1 = _BV(OCF1A);  /* the first match's flag */
	TIMSK1 = _BV(OCIE1A);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
