/* main.c — the shell's multi-file test firmware (tests/firmware/shellmulti):
 * globals defined in other units and declared extern here, a static whose
 * name clock.c's static shares, and an array.  Each value a test expects is
 * written here or in tank.c and clock.c. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

#include "tank.h"

AVR_MCU(F_CPU, "atmega328p");

static volatile uint8_t count = 42;   /* clock.c has a `count` of its own */
uint8_t buf[8] = { 10, 11, 12, 13, 14, 15, 16, 17 };

int main(void)
{
	clock_start();
	sei();
	for (;;) {
		uint8_t i = count & 7;
		buf[i] = tank.level;
		count++;
		tank_step(clock_count());
		if (millis_count > 100000)
			PORTB = history.bytes[0] + asm_counter;
	}
}
