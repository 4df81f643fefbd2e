/* inputs.c — the input set (see inputs.h). */
#include "fingerprint/inputs.h"

#include <string.h>

/* The one table of what a device log records as input: pins, the ADC, the
 * serial data registers, the analog comparator, input capture, and the
 * external interrupt flags.  Internal state (timers, EEPROM, SRAM) is
 * re-created by the simulation, not logged. */
const char *const devlog_input_names[] = {
	"PINA", "PINB", "PINC", "PIND", "PINE", "PINF", "PING", "PINH", "PINJ", "PINK", "PINL",
	"ADCL", "ADCH",
	"UDR", "UDR0", "UDR1", "UDR2", "UDR3",
	"SPDR", "SPDR0", "SPDR1", "USIDR", "USIBR",
	"TWDR", "TWSR",
	"ACSR",
	"ICR1L", "ICR1H", "ICR3L", "ICR3H", "ICR4L", "ICR4H", "ICR5L", "ICR5H",
	"GIFR", "EIFR", "PCIFR",
	NULL,
};

unsigned devlog_inputs(const mcu_names *names, uint8_t *map)
{
	unsigned n = 0;
	memset(map, 0, FP_INPUT_SPACE);
	for (const char *const *p = devlog_input_names; *p; p++) {
		int a = ioregs_addr(names, *p);
		if (a >= 0 && a < FP_INPUT_SPACE && !map[a]) {
			map[a] = 1;
			n++;
		}
	}
	return n;
}
