// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * ctc_999.c — the headline CTC shape: Timer1 mode 4 at clk/1 starts with
 * OCR1A = 0 (a match every cycle); the first compare interrupt sets
 * OCR1A = 999, a match every 1000 cycles from then on.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER1_COMPA_vect)
{
	static unsigned char once;
	if (!once) {
		once = 1;
		OCR1A = 999;
	}
}

int main(void)
{
	OCR1A = 0;
	TIMSK1 = _BV(OCIE1A);
	TCCR1B = _BV(WGM12) | _BV(CS10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
