// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * int0_busy.c — a push button on INT0 and nothing else: the firmware whose
 * interrupts are far apart while its main loop runs, never sleeps.
 *
 * INT0 (PD2) is set for rising edges (EICRA = ISC01|ISC00) and counts the
 * presses; the main loop spins on an 8-bit counter that wraps, so its state
 * repeats every 256 turns and nothing in it tells one gap's turns apart —
 * only the cycle count does.  With the pin low before its first edge,
 * simavr 1.6 alone fired INT0 continuously there (sim/periph_extint.c).  Built for
 * 16 MHz here; int0_slow.c is the same code at 20 MHz.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

#ifndef INT0_BUSY_MCU
AVR_MCU(F_CPU, "atmega328p");
#endif

volatile uint16_t presses;   /* rising edges seen */
volatile uint8_t spin;       /* the busy loop's wrapping counter */

ISR(INT0_vect)
{
	presses++;
}

int main(void)
{
	EICRA = _BV(ISC01) | _BV(ISC00);   /* INT0 on rising edges */
	EIMSK = _BV(INT0);
	sei();
	for (;;)
		spin++;
}
