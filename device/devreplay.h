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

#include "db/db.h"
#include "sim/firmware.h"
#include "sim/sim.h"
#include "trace/event.h"
#include "util/err.h"

#define DEVREPLAY_RULE DB_DEVICE_LOG_RULE   /* the imported run's interrupt_rule */

typedef struct devreplay_opts {
	uint64_t max_instructions;    /* 0: 100 M */
	FILE *uart_out, *log_out;     /* may be NULL */
	const char *state_out;        /* may be NULL */
	const char *log_reg;          /* the log's register; NULL: UDR0, else UDR */
} devreplay_opts;

typedef struct devreplay_result {
	uint64_t expected, injected, instructions;
	uint64_t reads_expected, reads;
	uint64_t overflows;           /* the tracer's own overflow handler, entered */
	const char *ovf_timer;        /* its timer: "Timer1" ... */
	int diverged;                 /* 1: why says where */
	char why[512];
} devreplay_result;

/* What a replay found, for `avrr import` to give the log positions: the
 * whole happens-before log as the recorder would have written it (every
 * read of an input and write of an output that trace/log.h traces, and
 * the device's input registers, each interrupt entry and RETI, sleep,
 * wake and reset, with icount, cycle and pc), and one fingerprint per
 * interrupt entered, numbered in order: the device's own, or, for the
 * tracer's Timer1 overflow handler, which logs nothing, the one computed
 * where the replay entered it.  Malloc'ed; devreplay_positions_free. */
typedef struct devreplay_positions {
	trace_event *ev;
	size_t nev, cap;
	db_fingerprint *fp;
	size_t nfp, fp_cap;
	trace_writer w;
	uint64_t instructions, cycles;   /* where the replay stopped */
	int failed;                      /* out of memory */
} devreplay_positions;

void devreplay_positions_free(devreplay_positions *p);

/* The device's log, as `avrr import` parsed it: fp[] its fingerprints
 * in order (the config id and n are not used), and items[] the order of
 * interrupts (read 0, fp its index in fp[]) and input reads (read 1 and
 * the value the device read). */
typedef struct devreplay_item {
	uint8_t read;
	uint8_t value;
	uint32_t fp;
} devreplay_item;

typedef struct devreplay_log {
	const firmware *fw;
	const char *mcu;
	uint32_t frequency;
	const char *spec;              /* the header's fingerprint configuration */
	const db_fingerprint *fp;
	size_t nfp;
	const devreplay_item *items;
	size_t nitems;
	uint8_t blocks;                /* the dump's blocks, mod 256 */
} devreplay_log;

/* Replays a log not yet in a recording; pos (may be NULL) gets the
 * positions.  -1 (err) when it cannot start, else 0 with res filled. */
int devreplay_run_log(const devreplay_log *l, const devreplay_opts *o, devreplay_result *res,
		      devreplay_positions *pos, avrr_err *err);

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
