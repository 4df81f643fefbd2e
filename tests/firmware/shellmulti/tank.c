/* tank.c — the tank's state, defined here for main.c to declare extern. */
#include "tank.h"

struct tank tank = { 3, 1, 0 };
struct log history = { { 9, 8, 7 }, { 1, 2, 3, 4 }, 500 };
volatile uint8_t mode = 5;            /* clock.c has a static `mode` */

void tank_step(uint8_t in)
{
	tank.level += in & 1;
	if (tank.level > 200 - mode) {
		tank.alarm = 1;
		history.last = tank;
		history.n++;
	}
}
