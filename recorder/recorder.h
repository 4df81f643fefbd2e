/*
 * recorder.h — record a firmware run into a recording (a db file).
 *
 * The recorder runs the firmware in the sim layer with its stimuli and
 * writes what a device-side tracer would have logged — the happens-before
 * event log: interrupt entries and RETIs, reads of input registers, writes
 * to output registers, sleep and wake — plus, for scoring only, the ground
 * truth of every interrupt (where and when it hit, and a SHA-256 digest of
 * the whole pre-interrupt context).
 * Which registers are traced is trace/log.h's.
 */
#ifndef AVRR_RECORDER_H
#define AVRR_RECORDER_H

#include <stdint.h>

#include "util/err.h"

typedef struct rec_options {
	const char *firmware_path;
	const char *out_path;
	const char *mcu;            /* NULL: from the ELF */
	uint32_t frequency;         /* 0: from the ELF */
	const char *stimuli_path;   /* NULL: no stimuli */
	uint64_t seed;
	int seed_given;             /* else the stimuli's `seed`, else 0 */
	uint64_t max_instructions;  /* stop conditions; 0 = not set */
	uint64_t max_cycles;
	uint64_t max_interrupts;
	int store_contexts;         /* keep each interrupt's whole context */
	const char *const *fp_specs; /* fingerprint configurations (fingerprint.h); */
	unsigned nfp_specs;         /* with none, the default one */
	volatile int *interrupted;  /* set by a signal handler: abandon */
	/* Called now and then with the progress towards the stop condition
	 * (done/goal in its own unit); may be NULL. */
	void (*progress)(void *ud, uint64_t done, uint64_t goal);
	void *progress_ud;
	/* Told, once each, of what makes the recording differ from the chip's
	 * run (sim_check_modes), and of debug info a debugger will misread
	 * (fw_debug_info_problem); may be NULL. */
	void (*warn)(void *ud, const char *text);
	void *warn_ud;
	/* Each byte the firmware writes to UART n's data register, as it
	 * does (trace/uart.h), for a console; may be NULL. */
	void (*uart_tx)(void *ud, unsigned uart, uint8_t byte);
	void *uart_tx_ud;
} rec_options;

/* Records one run into o->out_path.  On failure (bad input, a full disk,
 * an interruption) nothing is left at out_path.  Returns 0, or non-zero
 * with err set; *was_interrupted tells the two failures apart. */
int rec_record(const rec_options *o, int *was_interrupted, avrr_err *err);

/* `avrr fingerprint`: adds configurations to the recording at path.  They
 * are computed by rerun_fingerprints (rerun/fingerprints.h).  Nothing changes on failure. */
int rec_add_fingerprints(const char *path, const char *const *specs, unsigned nspecs,
			 volatile int *interrupted, int *rerun, avrr_err *err);

#endif
