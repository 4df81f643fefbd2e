/* tick.c — devmulti's 1 kHz tick: Timer2 in CTC mode (Timer1 stays free
 * for the tracer's cycle counter); it counts the ticks that find the
 * button down, a skip on an input bit (SBIS). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include "shared.h"

volatile uint16_t ticks;
volatile uint8_t held;

ISR(TIMER2_COMPA_vect)
{
	ticks++;
	if (PIND & _BV(PD2))
		held++;
}

void tick_init(void)
{
	TCCR2A = _BV(WGM21);               /* CTC */
	OCR2A = 249;                       /* 16 MHz / 64 / 250 = 1 kHz */
	TIMSK2 = _BV(OCIE2A);
	TCCR2B = _BV(CS22);                /* clk/64 */
}
