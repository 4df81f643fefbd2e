/*
 * cfi.h — where each function's frame is, at each of its instructions, read
 * from the code itself: the call frame information a debugger needs to
 * unwind through interrupt handlers at any instruction.
 *
 * avr-gcc's .debug_frame cannot serve: for an interrupt handler it leaves
 * out the SREG push (so every offset after it is one short), it describes
 * no epilogue (a frame stopped between the pops and the ret/reti unwinds
 * from the wrong bytes), and a naked handler gets none.  avr-gdb reads no
 * .debug_frame at all (its own prologue scanner has the same blind spots).
 * So each function is run symbolically from its entry over every path —
 * pushes, pops, `rcall .+0` allocations, the frame pointer Y taken from
 * SP and moved by sbiw/adiw/subi+sbci, SP written back from Y, SREG read
 * and written back — giving, before each instruction, the frame's CFA
 * (the SP the caller had before the call or the interrupt: SP + n, or
 * Y + n while SP is half-written) and where each of the caller's
 * registers and SREG was saved.  A function whose paths disagree, or that
 * moves SP in ways not followed here, gets no rows.
 *
 * Conventions are DWARF's for AVR: the return address (2 bytes, 3 on
 * parts with a 22-bit PC, a word address, high byte first) lies at
 * CFA - (pc_bytes - 1); a register saved `d` below the CFA is at CFA - d.
 */
#ifndef AVRR_DWARF_CFI_H
#define AVRR_DWARF_CFI_H

#include <stdint.h>

#include "sim/firmware.h"
#include "util/err.h"

enum { CFI_SP, CFI_Y };     /* the register the CFA is relative to */
#define CFI_SREG 32         /* saved[CFI_SREG]: the caller's SREG */

typedef struct cfi_row {
	uint32_t pc;          /* the instruction (the row holds before it runs) */
	uint32_t func;        /* the function's entry */
	uint8_t len;          /* the instruction's bytes */
	uint8_t base;         /* CFI_SP or CFI_Y: CFA = base + off */
	int16_t off;
	uint8_t interrupt;    /* a handler (or a vector slot): its return
			       * address is the interrupted pc, not a call's */
	uint16_t saved[33];   /* r0..r31, SREG: at CFA - saved[r]; 0 not saved */
	uint8_t sreg_in;      /* the caller's SREG is in register sreg_in - 1
			       * (popped, not yet written back); 0 not */
} cfi_row;

typedef struct cfi_table cfi_table;

/* Reads every function of fw (its code symbols with a size) and the
 * vector table's slots.  pc_bytes: 2, or 3 on parts with a 22-bit PC.
 * Returns 0, or -1 (err: out of memory). */
int cfi_build(const firmware *fw, unsigned pc_bytes, cfi_table **out, avrr_err *err);
void cfi_free(cfi_table *t);

/* The row of the instruction that holds byte address pc, or NULL when no
 * row covers it (code outside a function, or a function not followed). */
const cfi_row *cfi_at(const cfi_table *t, uint32_t pc);

/* All rows, by pc. */
const cfi_row *cfi_rows(const cfi_table *t, unsigned *n);

/* Functions followed, and those left without rows (*failed). */
void cfi_counts(const cfi_table *t, unsigned *followed, unsigned *failed);

unsigned cfi_pc_bytes(const cfi_table *t);

#endif
