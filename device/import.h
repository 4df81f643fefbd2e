/*
 * import.h — a device log and the ELF that ran become a recording
 * (docs/device.md, "avrr import"): the workflow of `avrr import`, which
 * parses its options and prints.  The whole stream is checked before
 * anything is written; a damaged, truncated or foreign dump is one line.
 *
 * The recording holds what the device knew: the firmware, the
 * fingerprint configuration of the header, each fingerprint in order and
 * the input reads' values, in the log's order; the run's interrupt_rule
 * says "device-log" so that no reader takes them for simulated ones.
 * Where and when each interrupt came, and which register each read was,
 * is what a replay finds out: the import replays the log once
 * (devreplay_run_log) and stores the log as that replay saw it, every
 * event with its position, so the shell, gdb and the analyses replay it
 * as any recording (docs/device.md, "Positions").  A log whose replay
 * stops is stored without positions (icount, cycle, return address and a
 * read's address 0, instructions 0), which only `avrr replay` replays,
 * to say where.
 */
#ifndef AVRR_IMPORT_H
#define AVRR_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define DEVIMPORT_FP_NAME "device"

typedef struct devimport_opts {
	const char *dump_path, *elf_path, *out;
	const char *mcu;            /* NULL: the header's (a different one is refused) */
	uint32_t frequency;         /* 0: the ELF's */
	const char *log_reg;        /* NULL: devsite_log_reg's choice */
	int allow_gaps;             /* import up to the first loss */
	uint64_t max_instructions;  /* the positioning replay's; 0: its default */
} devimport_opts;

typedef struct devimport_result {
	unsigned blocks;
	size_t interrupts, reads;          /* the device's items imported */
	size_t dump_bytes;
	struct {                           /* the stream's bytes by what they carry */
		size_t header, blocks, interrupts, reads, loss;
	} bytes;
	char log_reg[16];                  /* the register stored */
	const char *log_reg_from;          /* how it was chosen */
	/* a gap (allow_gaps): where, and what was left out */
	int gap;
	size_t gap_offset, gap_left_out;
	unsigned gap_block, gap_lost;
	/* positions: from the replay, or why there are none */
	int positioned;
	char stopped[768];                 /* !positioned: where the replay stopped */
	uint64_t instructions, overflows, replay_reads;
	const char *ovf_timer;             /* the tracer's counter's timer: "Timer1" ... */
	size_t replay_interrupts, events;
} devimport_result;

/* Imports.  0 with res filled (the recording written), or -1 with err,
 * nothing left at out. */
int devimport_run(const devimport_opts *o, devimport_result *res, avrr_err *err);

#endif
