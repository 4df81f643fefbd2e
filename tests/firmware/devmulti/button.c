/* button.c — devmulti's button on INT0 (PD2), rising edges: counts the
 * presses and keeps the port's level, an input read inside an ISR. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include "shared.h"

volatile uint16_t presses;
volatile uint8_t level;

ISR(INT0_vect)
{
	presses++;
	level = PIND;
}

void button_init(void)
{
	EICRA = _BV(ISC01) | _BV(ISC00);
	EIMSK = _BV(INT0);
}
