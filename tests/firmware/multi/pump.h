/*
 * pump.h — what the units of the pump controller share: the tank (defined
 * in tank.c, read and written from main and two interrupt handlers) and
 * each unit's entry points.
 */
#ifndef PUMP_H
#define PUMP_H

#include <stdint.h>

/* One struct, so that a debugger has a whole object to print and members
 * to watch; volatile because interrupt handlers write it. */
struct tank {
	uint8_t level;   /* 0..250, in steps of the clock's 10 ms */
	uint8_t valve;   /* 1 while the inlet valve is open */
	uint8_t alarm;   /* set at ALARM_LEVEL, cleared by a button press */
};
extern volatile struct tank tank;

#define ALARM_LEVEL 12

void tank_step(void);

void clock_init(void);
uint32_t millis(void);
extern volatile uint32_t millis_count;

void uart_init(void);
int uart_get(void);
void uart_put(char c);
extern volatile uint16_t rx_count;

void buttons_init(void);
extern volatile uint16_t presses;

#endif
