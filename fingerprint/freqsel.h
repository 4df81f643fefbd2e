/*
 * freqsel.h — frequency-based selection of fingerprint input components
 * (Gracioli & Fischmeister, §4.1 and §5.1).
 *
 * The paper picks the general-purpose and I/O registers that the program's
 * code names most often, on the grounds that what is used often changes
 * often.  freqsel_count decodes a flash image linearly and, for each
 * instruction in the paper's list, counts the registers it names;
 * the rank functions order them, GP and I/O registers separately (the paper
 * ranks them apart so that I/O registers are not always outnumbered).
 *
 * Counting rules (the paper scanned assembly text; these are the same rules
 * applied to decoded instructions):
 *   - Instructions counted, by encoding: ADD ADC ADIW SUB SUBI SBC SBCI SBIW
 *     AND ANDI OR ORI EOR COM NEG INC DEC MOV MOVW LDI LD LDD LDS LPM IN SBI
 *     CBI LSR ROR ASR SWAP.  The paper's aliases are these encodings under
 *     another name (LSL = ADD Rd,Rd; ROL = ADC Rd,Rd; TST = AND Rd,Rd;
 *     CLR = EOR Rd,Rd; SBR = ORI; CBR = ANDI; SER = LDI Rd,0xFF), so each
 *     is counted once, as the encoding objdump shows.  Not counted: OUT, ST,
 *     STS, PUSH/POP, compares, branches, multiplies, ELPM.
 *   - Each GP register an instruction names counts once per instruction,
 *     however many operands name it (`add r24, r24` is `lsl r24`: r24 +1).
 *     A register pair counts both registers: MOVW, ADIW, SBIW, and the
 *     pointer of LD/LDD/LPM (X = r26:r27, Y = r28:r29, Z = r30:r31, which
 *     these instructions read and, with X+/-X, write).  Plain `lpm` names r0
 *     and Z implicitly and counts them.
 *   - I/O registers are counted by data-space address: IN, SBI and CBI name
 *     I/O address A, counted at A + 0x20 (SREG, I/O 0x3f, is io[0x5f]); LDS
 *     of an address in 0x20..0xFF counts that address.  On parts without
 *     extended I/O (ATmega16: SRAM from 0x60) LDS of 0x60..0xFF is a
 *     variable, so freqsel_rank_io takes the end of the I/O space.
 *
 * A linear sweep also decodes constant data stored in .text (PROGMEM tables,
 * strings) as if it were code; for the paper's purpose that noise is small.
 */
#ifndef AVRR_FREQSEL_H
#define AVRR_FREQSEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/avr_decode.h"

typedef struct freqsel_counts {
	uint32_t gp[32];   /* uses of r0..r31 */
	uint32_t io[256];  /* uses of the I/O register at data address i */
	uint32_t insns;    /* instructions decoded */
	uint32_t counted;  /* of which in the paper's list */
} freqsel_counts;

/* Whether insn is one of the instructions the paper counts (see above). */
bool freqsel_counts_insn(const avr_insn *insn);

/* Adds insn's register uses to c if it is in the paper's list. */
void freqsel_add(freqsel_counts *c, const avr_insn *insn);

/* Zeroes *out and counts every instruction of code[0..size) (a flash image
 * from address 0, e.g. a firmware's flash up to code_end).  A trailing odd byte is
 * ignored.  Returns 0, or -1 if code is NULL while size > 0, or out NULL. */
int freqsel_count(const uint8_t *code, uint32_t size, freqsel_counts *out);

/* Writes up to max GP register numbers with a non-zero count to regs, by
 * count descending, ties lower register first; returns how many. */
int freqsel_rank_gp(const freqsel_counts *c, uint8_t *regs, int max);

/* Same for I/O registers: data addresses 0x20 <= a < io_end (0x60 for
 * parts without extended I/O, 0x100 for those with it) with a non-zero
 * count, by count descending, ties lower address first; returns how many. */
int freqsel_rank_io(const freqsel_counts *c, uint16_t io_end, uint16_t *addrs,
		    int max);

#endif
