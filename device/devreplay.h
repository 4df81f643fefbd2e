/*
 * devreplay.h — the replay of a recording `avrr import` made from a device
 * log (docs/device.md): the firmware runs in the sim layer's replay mode
 * (it never vectors on its own) and each interrupt is entered where the
 * next fingerprint of the log matches (sequence matching).  It is exact
 * or it stops loud: the first fingerprint that never matches is named.
 *
 * Where it stops: the device log ends with a block the tracer sent from
 * inside the interrupt whose fingerprint closed it, so the replay stops
 * where the device's tracer finished sending the last block (its
 * avrr_log_busy flag falls), and `avrr device` stops at the same kind of
 * point: their states are comparable there.
 */
#ifndef AVRR_DEVREPLAY_H
#define AVRR_DEVREPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/sim.h"
#include "../util/err.h"

#define DEVREPLAY_RULE "device-log"   /* the imported run's interrupt_rule */

typedef struct devreplay_opts {
	uint64_t max_instructions;    /* 0: 100 M */
	FILE *uart_out, *log_out;     /* may be NULL */
	const char *state_out;        /* may be NULL */
	const char *log_reg;          /* the log's register; NULL: UDR0, else UDR */
} devreplay_opts;

typedef struct devreplay_result {
	uint64_t expected, injected, instructions;
	uint64_t reads_expected, reads;
	uint64_t overflows;           /* the tracer's own Timer1 overflow handler, entered */
	int diverged;                 /* 1: why says where */
	char why[512];
} devreplay_result;

/* Whether the recording at path is an import (1), not (0), or unreadable (-1). */
int devreplay_is_import(const char *path);

/* Replays it; -1 (err) when it cannot start, else 0 with res filled. */
int devreplay_run(const char *path, const devreplay_opts *o, devreplay_result *res,
		  avrr_err *err);

/* The log's register, as `avrr device` and the replay find it: `name`,
 * else the tracer's UART sink's (UDR0, else UDR).  Its data address, or
 * -1 with err "no register NAME on the MCU". */
int devreplay_log_reg(sim *s, const char *name, avrr_err *err);

/* The final state as `avrr device --state-out` writes it: registers, SP,
 * PC, SREG and SRAM (from RAMSTART), as text. */
int devreplay_write_state(sim *s, const char *path);

#endif
