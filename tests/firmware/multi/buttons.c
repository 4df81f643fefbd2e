/*
 * buttons.c — the alarm's acknowledge button on INT0 (PD2 on the
 * ATmega328P, PD0 on the ATmega2560), rising edge, debounced in its
 * handler: 2 ms later the pin must still be high for the press to count.
 *
 * The debounce waits with interrupts on (ISR_NOBLOCK) and INT0 masked,
 * so the clock keeps ticking inside it: every press nests at least one
 * tick in this handler.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay.h>

#include "pump.h"

#if defined(__AVR_ATmega2560__)
#define BUTTON_PIN PIND0
#else
#define BUTTON_PIN PIND2
#endif

volatile uint16_t presses;
/* Presses counted by this unit; clock.c has a count of its own. */
static uint8_t count;

/* Called once interrupts are on: nothing may be pressed until the tank is
 * set up, and INT0 stays masked until the counters are cleared. */
void buttons_init(void)
{
	presses = 0;                            /* buttons: clear */
	EICRA = _BV(ISC01) | _BV(ISC00);        /* rising edge */
	EIFR = _BV(INTF0);
	EIMSK = _BV(INT0);
}

ISR(INT0_vect, ISR_NOBLOCK)
{
	EIMSK &= (uint8_t)~_BV(INT0);           /* button: debounce */
	_delay_ms(2);
	if (PIND & _BV(BUTTON_PIN)) {
		count++;
		presses++;                          /* button: pressed */
		tank.alarm = 0;
	}
	EIFR = _BV(INTF0);
	EIMSK |= _BV(INT0);
}
