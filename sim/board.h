/*
 * board.h — Arduino boards by name: the MCU and clock each one runs.
 *
 * An Arduino ELF names its MCU only in avr-libc's deviceinfo note and its
 * clock nowhere (F_CPU is a compile-time macro), so `--board uno` is how a
 * user says both at once.  The table is Arduino's boards.txt (Debian's
 * arduino-core-avr) reduced to the boards simavr 1.6 has a core for.
 */
#ifndef AVRR_BOARD_H
#define AVRR_BOARD_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_board {
	const char *name;       /* "uno" */
	const char *mcu;        /* simavr's and avr-gcc's name: "atmega328p" */
	uint32_t frequency;     /* Hz */
} sim_board;

/* The board called `name` (case-insensitive), or NULL. */
const sim_board *board_find(const char *name);

/* "uno, nano, ..." into buf. */
void board_names(char *buf, size_t n);

#endif
