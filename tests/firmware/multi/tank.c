/*
 * tank.c — the tank itself: the level follows the inlet valve, one unit
 * every 10 ms, and raises the alarm at ALARM_LEVEL.  Called from the
 * clock's interrupt handler, so the level only ever moves in interrupt
 * context.
 */
#include "pump.h"

volatile struct tank tank;

void tank_step(void)
{
	if (tank.valve) {
		if (tank.level < 250)
			tank.level++;                 /* step: fill */
	} else if (tank.level > 0) {
		tank.level--;
	}
	if (tank.level >= ALARM_LEVEL)          /* step: alarm */
		tank.alarm = 1;
}
