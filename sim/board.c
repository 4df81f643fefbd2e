/* board.c — the Arduino board table (see board.h). */
#include "sim/board.h"

#include <stdio.h>
#include <strings.h>

/* From boards.txt: NAME.build.mcu and NAME.build.f_cpu (the default menu
 * entry where a board has several).  The Leonardo and Micro's atmega32u4
 * core in simavr 1.6 has no USB device, so their Serial (USB CDC) does not
 * talk; their UART (Serial1), timers and pins do. */
static const sim_board BOARDS[] = {
	{ "uno", "atmega328p", 16000000 },
	{ "nano", "atmega328p", 16000000 },
	{ "pro-mini", "atmega328p", 16000000 },
	{ "pro-mini16", "atmega328p", 16000000 },
	{ "pro-mini8", "atmega328p", 8000000 },
	{ "duemilanove", "atmega328p", 16000000 },
	{ "mega", "atmega2560", 16000000 },
	{ "mega2560", "atmega2560", 16000000 },
	{ "mega1280", "atmega1280", 16000000 },
	{ "leonardo", "atmega32u4", 16000000 },
	{ "micro", "atmega32u4", 16000000 },
};

const sim_board *board_find(const char *name)
{
	for (size_t i = 0; i < sizeof BOARDS / sizeof *BOARDS; i++)
		if (!strcasecmp(BOARDS[i].name, name))
			return &BOARDS[i];
	return NULL;
}

void board_names(char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof BOARDS / sizeof *BOARDS && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", BOARDS[i].name);
		len += w > 0 ? (size_t)w : 0;
	}
}
