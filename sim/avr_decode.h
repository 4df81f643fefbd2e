/*
 * avr_decode.h — AVR instruction decoder and flash-image loader.
 *
 * Decodes one instruction at a time from a flash image into a structured
 * avr_insn (mnemonic, operand fields, branch target) for the analyses that
 * need to look at code: frequency-based fingerprint selection, disassembly in
 * the shell, return-address checks.  Mnemonics and operand text agree exactly
 * with avr-objdump (binutils 2.26): where an encoding has several names
 * (brcs/brlo, add/lsl, eor/clr, ldi/ser, ...) the decoder picks the one
 * avr-objdump prints.  Besides the megaAVR set it decodes what objdump decodes
 * on any non-tiny AVR (XMEGA's des, xch, las, lac, lat, `spm Z+`), so every
 * 16-bit word gets the same reading as avr-objdump -m avr5; words that are no
 * instruction decode as AVR_OP_WORD (".word 0x....").
 *
 * Operand fields follow the AVR instruction set manual's names: rd is the Rd
 * field, rr the Rr field (so `st X, r5`, `push r5`, `out 0x3f, r5` and
 * `sbrc r5, 1` carry r5 in rr).
 */
#ifndef AVRR_AVR_DECODE_H
#define AVRR_AVR_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* One value per encoding.  Aliases share their encoding's value: `lsl` is
 * AVR_OP_ADD, `clr` AVR_OP_EOR, `sec` AVR_OP_BSET with bit 0, `breq`
 * AVR_OP_BRBS with bit 1; insn.mnemonic says what objdump prints. */
enum avr_op {
	AVR_OP_WORD,    /* not an instruction: ".word 0x...." */
	AVR_OP_NOP,
	/* arithmetic and logic */
	AVR_OP_ADD, AVR_OP_ADC, AVR_OP_ADIW, AVR_OP_SUB, AVR_OP_SUBI,
	AVR_OP_SBC, AVR_OP_SBCI, AVR_OP_SBIW, AVR_OP_AND, AVR_OP_ANDI,
	AVR_OP_OR, AVR_OP_ORI, AVR_OP_EOR, AVR_OP_COM, AVR_OP_NEG, AVR_OP_INC,
	AVR_OP_DEC, AVR_OP_MUL, AVR_OP_MULS, AVR_OP_MULSU, AVR_OP_FMUL,
	AVR_OP_FMULS, AVR_OP_FMULSU, AVR_OP_DES,
	/* control flow */
	AVR_OP_RJMP, AVR_OP_IJMP, AVR_OP_EIJMP, AVR_OP_JMP, AVR_OP_RCALL,
	AVR_OP_ICALL, AVR_OP_EICALL, AVR_OP_CALL, AVR_OP_RET, AVR_OP_RETI,
	AVR_OP_CPSE, AVR_OP_CP, AVR_OP_CPC, AVR_OP_CPI, AVR_OP_SBRC,
	AVR_OP_SBRS, AVR_OP_SBIC, AVR_OP_SBIS, AVR_OP_BRBS, AVR_OP_BRBC,
	/* data transfer */
	AVR_OP_MOV, AVR_OP_MOVW, AVR_OP_LDI, AVR_OP_LD, AVR_OP_LDD, AVR_OP_LDS,
	AVR_OP_ST, AVR_OP_STD, AVR_OP_STS, AVR_OP_LPM, AVR_OP_ELPM, AVR_OP_SPM,
	AVR_OP_IN, AVR_OP_OUT, AVR_OP_PUSH, AVR_OP_POP, AVR_OP_XCH, AVR_OP_LAS,
	AVR_OP_LAC, AVR_OP_LAT,
	/* bit and bit-test */
	AVR_OP_SBI, AVR_OP_CBI, AVR_OP_LSR, AVR_OP_ROR, AVR_OP_ASR,
	AVR_OP_SWAP, AVR_OP_BSET, AVR_OP_BCLR, AVR_OP_BST, AVR_OP_BLD,
	/* MCU control */
	AVR_OP_SLEEP, AVR_OP_WDR, AVR_OP_BREAK,
	AVR_OP_COUNT_
};

/* Pointer addressing of ld/st/ldd/std/lpm/elpm/spm/xch/las/lac/lat. */
enum avr_ptr_mode {
	AVR_PTR_NONE,    /* no pointer operand (or plain `lpm`: Z implied) */
	AVR_PTR_PLAIN,   /* X, Y, Z */
	AVR_PTR_POSTINC, /* X+, Y+, Z+ */
	AVR_PTR_PREDEC,  /* -X, -Y, -Z */
	AVR_PTR_DISP     /* Y+q, Z+q (ldd/std; q in disp) */
};

typedef struct avr_insn {
	uint32_t addr;        /* byte address of the instruction */
	uint8_t words;        /* 1 or 2 */
	uint16_t op;          /* enum avr_op */
	const char *mnemonic; /* lower case, as avr-objdump prints it */
	uint16_t raw[2];      /* the instruction words (raw[1] 0 if 1 word) */
	int8_t rd;            /* Rd register 0-31, -1 if none; for a pair
	                       * (movw, adiw, sbiw) its low register */
	int8_t rr;            /* Rr register 0-31, -1 if none; low of a pair */
	char ptr;             /* pointer register 'X', 'Y', 'Z', or 0 */
	uint8_t ptr_mode;     /* enum avr_ptr_mode */
	uint8_t disp;         /* q of ldd/std, 0-63 */
	uint8_t bit;          /* bit number: sbrc/sbrs/bst/bld/sbi/cbi/sbic/
	                       * sbis, and the SREG bit of brbs/brbc/bset/bclr */
	uint8_t imm;          /* K of ldi/cpi/subi/sbci/andi/ori (0-255),
	                       * adiw/sbiw (0-63), des (0-15) */
	int16_t io;           /* I/O address 0-63 of in/out/sbi/cbi/sbic/sbis
	                       * (data-space address is io + 0x20), else -1 */
	int32_t data;         /* data-space address of lds/sts, else -1 */
	int32_t rel;          /* byte displacement of rjmp/rcall/brbs/brbc */
	uint32_t target;      /* byte address reached by rjmp/rcall/brbs/brbc
	                       * (addr + 2 + rel, not wrapped) and jmp/call */
	bool undefined;       /* operands the manual calls undefined, such as
	                       * `ld r26, X+` (objdump adds "; undefined") */
} avr_insn;

/* Decodes the instruction at byte address addr of a flash image of
 * flash_size bytes (little-endian words).  Returns 0, or -1 when addr is odd
 * or no whole word lies at addr.  A 2-word instruction whose second word is
 * past the end decodes as AVR_OP_WORD, 1 word long. */
int avr_decode(const uint8_t *flash, uint32_t flash_size, uint32_t addr,
	       avr_insn *out);

/* Writes insn's operands as avr-objdump prints them, without its trailing
 * "; comment" and without padding: "r24, 0x01", "r25, Z+", "Y+3, r24",
 * ".+12", ".-4", "0x8e", "" for none.  Returns the length snprintf would
 * have written (the text is truncated to fit n). */
int avr_format(const avr_insn *insn, char *buf, size_t n);

/* GP registers (bit i = ri) the operands name: Rd, Rr, both registers of a
 * pair (movw/adiw/sbiw) and of a pointer (X = r26:r27, Y = r28:r29,
 * Z = r30:r31). */
uint32_t avr_insn_operand_regs(const avr_insn *insn);

/* avr_insn_operand_regs plus the registers used implicitly: r1:r0 of the
 * multiplies, r0 and Z of plain lpm/elpm, Z of ijmp/icall/eijmp/eicall,
 * r1:r0 and Z of spm, r0-r15 of des. */
uint32_t avr_insn_all_regs(const avr_insn *insn);

/* The data-space address of the I/O register insn names, or -1: io + 0x20
 * for in/out/sbi/cbi/sbic/sbis; for lds/sts the data address when it is in
 * 0x20..0xFF (I/O and extended I/O; on parts whose SRAM starts at 0x60 the
 * upper part is SRAM, which the caller must filter).  Accesses through X/Y/Z
 * and the stack pointer use of push/pop/call/ret are not reported. */
int avr_insn_io(const avr_insn *insn);

/* Whether the instruction word w is a call (CALL, RCALL, ICALL, EICALL) —
 * but not `rcall .+0`, which avr-gcc uses to reserve two bytes of stack and
 * which never returns — or a RET.  For the per-flash-word tables of the
 * shadow call stacks, which must not decode at every instruction. */
static inline bool avr_word_is_call(uint16_t w)
{
	return (w & 0xfe0e) == 0x940e || ((w & 0xf000) == 0xd000 && w != 0xd000) ||
	       w == 0x9509 || w == 0x9519;
}

static inline bool avr_word_is_ret(uint16_t w)
{
	return w == 0x9508;
}

/* How instruction word w counts for the software instruction counter
 * (sim_transfers, `sic:K`): AVR_COUNT_BACKWARD when it counts only if it
 * transfers backward or to itself (BRBS/BRBC taken, RJMP, JMP),
 * AVR_COUNT_ALWAYS whatever its direction (RCALL, CALL, ICALL, EICALL,
 * IJMP, EIJMP, RET, RETI), else 0.  Bit 0 is "counts backward", bit 1
 * "counts forward": the simulator shifts by the direction taken.  The
 * recorder and the device-side rewriter (fingerprint/instrument.h) both
 * count by this. */
enum { AVR_COUNT_BACKWARD = 1, AVR_COUNT_ALWAYS = 3 };

static inline uint8_t avr_word_transfer_kind(uint16_t w)
{
	if ((w >> 11) == 0x1e || (w & 0xf000) == 0xc000 || (w & 0xfe0e) == 0x940c)
		return AVR_COUNT_BACKWARD;
	if ((w & 0xf000) == 0xd000 || (w & 0xfe0e) == 0x940e)
		return AVR_COUNT_ALWAYS;
	switch (w) {
	case 0x9409: case 0x9419:  /* IJMP, EIJMP */
	case 0x9509: case 0x9519:  /* ICALL, EICALL */
	case 0x9508: case 0x9518:  /* RET, RETI */
		return AVR_COUNT_ALWAYS;
	default:
		return 0;
	}
}

#endif
