/* main.c — devmulti's main loop: mixes the two ISRs' counters into a
 * running sum, with interrupts off around each 16-bit read. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include "shared.h"

volatile uint32_t mix;

int main(void)
{
	tick_init();
	button_init();
	sei();
	for (;;) {
		cli();
		uint16_t t = ticks, p = presses;
		sei();
		mix = mix * 31u + t + ((uint32_t)p << 16);
	}
}
