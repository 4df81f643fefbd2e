/* tank.h — the shell's multi-file test firmware: what main.c sees of the
 * other units, declared `extern` as a real project's header does. */
#ifndef TANK_H
#define TANK_H

#include <stdint.h>

struct tank {
	uint8_t level;
	uint8_t valve;
	uint8_t alarm;
};

struct log {
	struct tank last;
	uint8_t bytes[4];
	uint16_t n;
};

extern struct tank tank;              /* defined in tank.c */
extern volatile uint32_t millis_count; /* defined in clock.c */
extern struct log history;            /* defined in tank.c */
extern volatile uint16_t asm_counter; /* defined in asmvar.S, without DWARF */

void tank_step(uint8_t in);
void clock_start(void);
uint8_t clock_count(void);

#endif
