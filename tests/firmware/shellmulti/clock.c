/* clock.c — a millisecond tick on Timer0's compare match; a static `count`
 * that main.c's static of the same name must not hide here, and a static
 * `mode` that must not hide tank.c's global `mode` elsewhere. */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "tank.h"

volatile uint32_t millis_count;
static volatile uint8_t count = 7;
static volatile uint8_t mode = 9;     /* tank.c's global `mode` is another */

ISR(TIMER0_COMPA_vect)
{
	millis_count++;
	count++;
}

void clock_start(void)
{
	TCCR0A = _BV(WGM01);
	OCR0A = 240 + mode;                /* 249: 16 MHz / 64 / 250, 1 kHz */
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = _BV(CS01) | _BV(CS00);
}

uint8_t clock_count(void)
{
	return count;
}
