// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * foc_t1.c — FOC1A with Timer1 stopped: in normal mode with COM1A = 3
 * (set) it sets OC1A (PB1); in fast PWM (mode 5) with COM1A = 2 it is
 * ignored; back in normal mode with COM1A = 2 (clear) it clears OC1A.
 * OCIE1A is enabled: a strobe must not interrupt.  TIFR1 goes out
 * through GPIOR0 at the end.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay_basic.h>

EMPTY_INTERRUPT(TIMER1_COMPA_vect);

int main(void)
{
	DDRB = _BV(PB1);
	OCR1A = 1000;
	TIMSK1 = _BV(OCIE1A);
	sei();
	TCCR1A = _BV(COM1A1) | _BV(COM1A0);
	TCCR1C = _BV(FOC1A);
	_delay_loop_1(100);
	TCCR1A = _BV(COM1A1) | _BV(WGM10);
	TCCR1B = _BV(WGM12);
	TCCR1C = _BV(FOC1A);
	_delay_loop_1(100);
	TCCR1A = _BV(COM1A1);
	TCCR1B = 0;
	TCCR1C = _BV(FOC1A);
	_delay_loop_1(100);
	GPIOR0 = TIFR1;
	for (;;)
		;
}
