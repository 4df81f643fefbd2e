/*
 * hookvec.h — tracing a finished ELF with no source change: the vector
 * route of `avrr instrument`.
 *
 * Nothing of the firmware moves.  The tracer's runtime (tracer.h's
 * fp_tracer_write_runtime, compiled and linked on its own by avr-gcc at
 * the address this plan gives) is appended after the firmware's flash
 * image (.text and the .data load image); each used vector entry is
 * pointed at the runtime's stub for it, which records the fingerprint and
 * jumps to the firmware's handler; the reset vector at the runtime's .init
 * code, which then jumps to the firmware's own; and avr-libc's stack set-up
 * in the crt is patched to leave the runtime's variables at the top of RAM
 * alone.  Because only vector entries and two LDI immediates change, the
 * debug sections, symbols and line tables stay true as they are; the
 * runtime's symbols are added, and a section the runtime would overlap
 * (simavr's .mmcu, where a link left it in flash) moves past it.
 */
#ifndef AVRR_HOOKVEC_H
#define AVRR_HOOKVEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fingerprint/tracer.h"
#include "sim/firmware.h"
#include "util/err.h"


#define FP_HOOKVEC_NOPS_MAX 16

typedef struct fp_hookvec_plan {
	uint32_t flash_size;     /* the part's, bytes */
	uint32_t vectors_end;    /* byte address after the vector table */
	unsigned vec_bytes;      /* 4 (JMP) or 2 (RJMP) per entry */
	uint32_t image_end;      /* the firmware's flash image ends here */
	uint32_t base;           /* the runtime's flash address (even) */
	uint32_t sp_at;          /* byte address of the crt's `ldi r28, lo8(RAMEND)` */
	uint16_t ramend;
	uint32_t data_end;       /* the firmware's static data end (data address) */
	int ovf_vector;          /* TIMERn_OVF's number when the runtime takes it, else -1 */
	/* Arduino's init() sets every timer up for analogWrite(); its writes
	 * to the counter's timer become NOPs (fp_hookvec_counter). */
	fp_timer_write nops[FP_HOOKVEC_NOPS_MAX];
	unsigned nnops;
	fp_tracer_hooks hooks;   /* ram_base is set by fp_hookvec_ram */
	/* An ELF without simavr's .mmcu gets one naming the part and this
	 * clock (0: none), so device, import and replay know it. */
	uint32_t mmcu_freq;
	char mmcu_name[64];
	/* The input reads logged in place: each IN or LDS of an input
	 * register becomes an RCALL or CALL of the same size into a copy of
	 * it in the runtime that logs the value (a 2-word LDS on a part
	 * without CALL: RCALL and NOP). */
	struct fp_hookvec_read {
		uint32_t at;
		uint16_t raw[2];
		uint8_t words, rd;
		uint8_t skip;        /* SBIS/SBIC: the next instruction's words, else 0 */
		uint8_t sbis, bit, io;
	} *reads;
	unsigned nreads;
	/* --log-loads: each LD/LDD through X, Y or Z becomes an RCALL of a
	 * copy that loads, then logs the value if the address is an input's
	 * (tested at run time: a pointer's value is not known before). */
	struct fp_hookvec_load {
		uint32_t at;
		uint16_t raw;
		uint8_t rd, disp, mode;
		char ptr;
	} *loads;
	unsigned nloads;
} fp_hookvec_plan;

/* Reads fw's vector table and crt: which vectors are used (an entry that
 * does not jump to __bad_interrupt), the reset code, the stack set-up.
 * Returns 0, or -1 (err, one line): a vector entry that is not a jump, no
 * stack set-up found. */
int fp_hookvec_plan_make(const firmware *fw, uint32_t flash_size, uint32_t vectors_end,
			 uint16_t ramend, fp_hookvec_plan *p, avrr_err *err);

/* For cycles:K, the timer that counts (p->hooks.counter_timer) and, when
 * the counter is wider than 16 bits (need_ovf), its overflow vector
 * (p->ovf_vector): the first 16-bit timer of Timer1, 3, 4, 5 the MCU has,
 * whose overflow vector the firmware leaves unused and whose registers
 * (fp_tracer_timer_writes) its code does not write; failing that, the
 * first whose only writes are in Arduino's init(), which sets every timer
 * up for analogWrite() whether the sketch uses it or not: those writes
 * become NOPs (p->nops), and the timer's PWM outputs are the tracer's.
 * -1 (err, one line, each timer's reason): none is free. */
int fp_hookvec_counter(const firmware *fw, const mcu_names *names, int need_ovf,
		       fp_hookvec_plan *p, avrr_err *err);

/* With the device log: finds the input reads (IN, LDS, SBIS, SBIC, as
 * devlog_input_insn judges them) in fw's code (from the reset code to the
 * end of .text: what lies before it, the progmem data and tables, is not
 * decoded), inputs as devlog_inputs sets it; with `loads` (--log-loads),
 * in the same pass, the loads through a pointer (LD, LDD), but for those
 * into r0 or r1 or into their own pointer, which are left alone (as the
 * header route's rewrite leaves them).  -1 (err): a read into r0, which
 * the logging's own use of r0 would undo, or a skip on an input's outside
 * bit as the last word of the code. */
int fp_hookvec_find_reads(const firmware *fw, const uint8_t *inputs, int loads,
			  fp_hookvec_plan *p, avrr_err *err);

/* The logging copies of the reads and loads, as C for the runtime (after
 * the tracer's, which defines avrr_log_read and avrr_log_ld_sreg).  The
 * loads' copies go first in the runtime's flash (section .vectors, the
 * first a link places), nearest the code whose RCALLs must reach them. */
void fp_hookvec_write_reads(const fp_hookvec_plan *p, FILE *out);

void fp_hookvec_plan_free(fp_hookvec_plan *p);

/* Sets the runtime's RAM: `bytes` at the top, below RAMEND + 1.  -1 (err)
 * when the firmware's static data reaches into them. */
int fp_hookvec_ram(fp_hookvec_plan *p, unsigned bytes, avrr_err *err);

typedef struct fp_hookvec_stats {
	uint32_t flash_bytes;    /* the runtime's code and constants */
	unsigned ram_bytes;      /* its variables (the top of RAM reserved for them is even-aligned) */
	unsigned hooked;         /* vectors hooked (the reset and TIMERn_OVF aside) */
	unsigned reads;          /* input reads logged in place */
	unsigned loads;          /* loads through a pointer tested in place */
	unsigned stub_cycles;    /* a stub's own cycles, the record function aside */
	uint32_t moved;          /* sections moved past the runtime (.mmcu) */
} fp_hookvec_stats;

/* The runtime linked by avr-gcc (rt[0..rt_size), an ELF) in its sizes:
 * the bytes of its .noinit, -1 (err) when it has .data or .bss (which the
 * firmware's crt would not initialise). */
int fp_hookvec_runtime_ram(const uint8_t *rt, size_t rt_size, unsigned *bytes, avrr_err *err);

/* Writes the instrumented ELF to out_fd: elf[0..size) (named path) with
 * the vector entries and the stack set-up patched and the runtime (linked
 * at p->base, its RAM at p->hooks.ram_base) appended.  Returns 0, or -1
 * (err): no room in flash, a vector the stub is out of reach of. */
int fp_hookvec_write(const uint8_t *elf, size_t size, const char *path,
		     const fp_hookvec_plan *p, const uint8_t *rt, size_t rt_size, int out_fd,
		     fp_hookvec_stats *st, avrr_err *err);

#endif
