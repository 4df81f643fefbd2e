/*
 * instrument.h — the device's software instruction counter: a post-link
 * rewrite of an avr-gcc firmware so that a counter in SRAM counts exactly
 * the control transfers `sic:K` counts in simulation (sim_transfers).
 *
 * The tracer (tracer.h) reads the counter, `avrr_sic`, at each interrupt;
 * this rewrite is what keeps it.  Before every counted transfer — a taken
 * branch or jump backward, every call, return and indirect jump, in the
 * firmware and in avr-libc's and libgcc's code alike — it inserts an
 * increment that runs with interrupts off and ends with `sei` right before
 * the transfer when they were on, so no interrupt can see the counter
 * ahead of the transfer or behind it.  Code moves, so every branch, jump,
 * call and code address is redone: relative ones from the code itself,
 * absolute ones (function pointers, the data's load address, progmem
 * pointers) from the relocations the link kept (-Wl,--emit-relocs).
 * Debug sections and relocations, which would describe the old layout,
 * are dropped.
 */
#ifndef AVRR_INSTRUMENT_H
#define AVRR_INSTRUMENT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define FP_SIC_SYMBOL "avrr_sic"  /* the counter: 1-4 bytes, little-endian, in SRAM */

typedef struct fp_instrument_device {
	uint32_t flash_size;    /* bytes */
	uint32_t vectors_end;   /* byte address after the interrupt vector table */
	/* The device log's input set: inputs[a] for data address a < 0x200 is
	 * the outside bits of that register, 0 for none (devlog_inputs); NULL:
	 * no read is logged.  With it, and avrr_log_read in the ELF (avrr
	 * tracer --log), each input read (devlog_input_insn: IN or LDS of an
	 * input register, SBIS or SBIC of an outside bit) is followed by a
	 * call that logs the value (docs/device.md). */
	const uint8_t *inputs;
	/* Also every LD/LDD (through X, Y or Z) outside the tracer's own
	 * functions: after it, its address is tested at run time (below 0x200
	 * inline, then avrr_log_ld's map) and an input's value logged. */
	int log_loads;
} fp_instrument_device;
#define FP_INPUT_SPACE 0x200

typedef struct fp_instrument_stats {
	unsigned sites;          /* counted transfers instrumented */
	unsigned reads;          /* input reads logged */
	unsigned loads;          /* loads through a pointer given the run-time test */
	unsigned relaxed;        /* branches and jumps lengthened to reach */
	uint32_t text_before, text_after;  /* .text bytes */
	unsigned counter_bytes;
	unsigned cycles_per_transfer;      /* with interrupts on */
} fp_instrument_stats;

#define FP_LOG_READ_SYMBOL "avrr_log_read"
#define FP_LOG_LD_SYMBOL "avrr_log_ld"

/* Rewrites the ELF in elf[0..size) (named `path` in messages) and writes
 * the new ELF to out_fd.  Returns 0, or -1 (err): no relocations, no
 * avrr_sic, a branch into the middle of an instruction, code that no
 * longer fits the flash or a branch's reach. */
int fp_instrument(const uint8_t *elf, size_t size, const char *path,
		  const fp_instrument_device *dev, int out_fd, fp_instrument_stats *stats,
		  avrr_err *err);

/* Whether a code symbol is the tracer's own (avrr_*): its reads are not
 * the device's inputs and are neither logged nor fed.  Not the firmware's
 * code the tracer moved: avrr_body_* (an ISR body behind the header
 * route's stub), avrr_read_at_* and avrr_skip_at_* (an input read, or a
 * skip on one, the vector route logs in place). */
int fp_tracer_own_symbol(const char *name);
#define FP_HOOKVEC_READ_PREFIX "avrr_read_at_"   /* + the read's address, 5 hex digits */
#define FP_HOOKVEC_SKIP_PREFIX FW_SKIP_COPY_PREFIX   /* the same, for a skip */

#endif
