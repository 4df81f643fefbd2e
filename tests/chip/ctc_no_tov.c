// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * ctc_no_tov.c — CTC below MAX never overflows: Timer0 (OCR0A = 200,
 * clk/8) and Timer1 (mode 4, OCR1A = 5000, clk/1) with their overflow and
 * compare interrupts all enabled; only the compare ones may come.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);
EMPTY_INTERRUPT(TIMER0_COMPA_vect);
EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_COMPA_vect);

int main(void)
{
	OCR0A = 200;
	TCCR0A = _BV(WGM01);
	OCR1A = 5000;
	TIMSK0 = _BV(TOIE0) | _BV(OCIE0A);
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1A);
	TCCR0B = _BV(CS01);
	TCCR1B = _BV(WGM12) | _BV(CS10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
