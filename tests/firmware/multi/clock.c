/*
 * clock.c — a 1 kHz tick from Timer 1 in CTC mode (16 MHz / 64 / 250), the
 * millisecond count, and the tank's 10 ms step.
 *
 * The handler is ISR_NOBLOCK: it re-enables interrupts at once, so the
 * UART and the buttons are never held up behind the tank's step, and it
 * is itself preempted by them.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "pump.h"

volatile uint32_t millis_count;
/* Milliseconds left in the current 10 ms step; buttons.c has a count of
 * its own. */
static uint8_t count = 10;

void clock_init(void)
{
	OCR1A = F_CPU / 64 / 1000 - 1;           /* 249 at 16 MHz: every 16000 cycles */
	TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10);
	TIMSK1 = _BV(OCIE1A);
}

/* The count is 4 bytes: read with interrupts off, or a tick between two
 * of its loads would tear it. */
uint32_t millis(void)
{
	uint32_t now;
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		now = millis_count;
	}
	return now;
}

ISR(TIMER1_COMPA_vect, ISR_NOBLOCK)
{
	millis_count++;                          /* tick: millis */
	if (--count)
		return;
	count = 10;                              /* tick: step */
	tank_step();
}
