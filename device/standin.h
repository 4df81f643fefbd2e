/*
 * standin.h — the stand-in device (docs/device.md, "The stand-in device"):
 * a firmware built with the device log runs in plain simulation — the
 * sim layer and the stimuli, no recorder, no ground truth — and what it
 * writes to its log's register is the dump a chip would have sent.  The
 * workflow of `avrr device`; the command parses and prints.
 */
#ifndef AVRR_STANDIN_H
#define AVRR_STANDIN_H

#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

#define DEVSTANDIN_DEFAULT_INSTRUCTIONS 2000000u

typedef struct devstandin_opts {
	const char *elf_path;
	const char *stim_path;        /* NULL: no stimuli */
	uint64_t seed;
	int seed_given;               /* else the stimuli's own */
	const char *mcu;              /* NULL: the ELF's */
	uint32_t frequency;           /* 0: the ELF's */
	const char *log_reg;          /* NULL: devsite_log_reg's choice */
	uint64_t instructions;        /* then on to the end of a block; 0: the default */
	FILE *log, *uart;             /* the log's bytes, the other UARTs' (may be NULL) */
	const char *state_out;        /* NULL: not written */
	int stats;                    /* count cycles by the tracer's code */
} devstandin_opts;

typedef struct devstandin_result {
	uint64_t end_icount, end_cycle;   /* where the device is said to stop */
	uint64_t log_bytes, uart_bytes;
	char log_reg[16];                 /* the register captured */
	const char *log_reg_from;         /* how it was chosen (devsite_log_reg) */
	int has_log;                      /* the firmware has the tracer's log */
	/* stats */
	uint64_t interrupts, reads, trace_cycles, log_cycles, send_cycles, put_cycles,
		 read_cycles, ld_calls, ld_cycles;
} devstandin_result;

/* Runs it.  0, or -1 with err (one line: a file, a register, a crash). */
int devstandin_run(const devstandin_opts *o, devstandin_result *res, avrr_err *err);

#endif
