/*
 * avr_decode.c — AVR instruction decoder, objdump-compatible formatting and
 * the ELF .text loader (see avr_decode.h).
 *
 * The decoder tests encodings in the order of binutils' AVR opcode table, so
 * that where encodings overlap (aliases, don't-care bits) it reaches the same
 * reading as avr-objdump; tests/integration/test_decode.c checks all 65536
 * first words against it.
 */
#include "sim/avr_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How avr_format lays out each operation's operands. */
enum fmt {
	F_NONE,    /* nop, ret, plain lpm/elpm/spm */
	F_RD_RR,   /* add r1, r2 (movw, mul, fmul...) */
	F_RD,      /* com r1 / pop r1 */
	F_RR,      /* push r1 */
	F_RD_K,    /* ldi r16, 0xFF (upper-case hex) */
	F_RD_KW,   /* adiw r24, 0x01 (lower-case hex) */
	F_RD_BIT,  /* bst r1, 3 */
	F_RR_BIT,  /* sbrc r1, 3 */
	F_IO_BIT,  /* sbi 0x18, 3 */
	F_RD_IO,   /* in r1, 0x3f */
	F_IO_RR,   /* out 0x3f, r1 */
	F_REL,     /* rjmp .+12 */
	F_ABS,     /* jmp 0x8e */
	F_RD_DATA, /* lds r24, 0x0060 */
	F_DATA_RR, /* sts 0x0060, r24 */
	F_RD_PTR,  /* ld r24, X+ ; lpm r24, Z+ ; ldd r24, Y+3 */
	F_PTR_RR,  /* st X+, r24 ; std Y+3, r24 ; xch Z, r24 */
	F_PTR,     /* spm Z+ */
	F_IMM,     /* des 3 */
	F_WORD     /* .word 0x1234 */
};

struct op_info {
	const char *name;
	uint8_t fmt;
};

static const struct op_info op_info[AVR_OP_COUNT_] = {
	[AVR_OP_WORD] = { ".word", F_WORD },
	[AVR_OP_NOP] = { "nop", F_NONE },
	[AVR_OP_ADD] = { "add", F_RD_RR },
	[AVR_OP_ADC] = { "adc", F_RD_RR },
	[AVR_OP_ADIW] = { "adiw", F_RD_KW },
	[AVR_OP_SUB] = { "sub", F_RD_RR },
	[AVR_OP_SUBI] = { "subi", F_RD_K },
	[AVR_OP_SBC] = { "sbc", F_RD_RR },
	[AVR_OP_SBCI] = { "sbci", F_RD_K },
	[AVR_OP_SBIW] = { "sbiw", F_RD_KW },
	[AVR_OP_AND] = { "and", F_RD_RR },
	[AVR_OP_ANDI] = { "andi", F_RD_K },
	[AVR_OP_OR] = { "or", F_RD_RR },
	[AVR_OP_ORI] = { "ori", F_RD_K },
	[AVR_OP_EOR] = { "eor", F_RD_RR },
	[AVR_OP_COM] = { "com", F_RD },
	[AVR_OP_NEG] = { "neg", F_RD },
	[AVR_OP_INC] = { "inc", F_RD },
	[AVR_OP_DEC] = { "dec", F_RD },
	[AVR_OP_MUL] = { "mul", F_RD_RR },
	[AVR_OP_MULS] = { "muls", F_RD_RR },
	[AVR_OP_MULSU] = { "mulsu", F_RD_RR },
	[AVR_OP_FMUL] = { "fmul", F_RD_RR },
	[AVR_OP_FMULS] = { "fmuls", F_RD_RR },
	[AVR_OP_FMULSU] = { "fmulsu", F_RD_RR },
	[AVR_OP_DES] = { "des", F_IMM },
	[AVR_OP_RJMP] = { "rjmp", F_REL },
	[AVR_OP_IJMP] = { "ijmp", F_NONE },
	[AVR_OP_EIJMP] = { "eijmp", F_NONE },
	[AVR_OP_JMP] = { "jmp", F_ABS },
	[AVR_OP_RCALL] = { "rcall", F_REL },
	[AVR_OP_ICALL] = { "icall", F_NONE },
	[AVR_OP_EICALL] = { "eicall", F_NONE },
	[AVR_OP_CALL] = { "call", F_ABS },
	[AVR_OP_RET] = { "ret", F_NONE },
	[AVR_OP_RETI] = { "reti", F_NONE },
	[AVR_OP_CPSE] = { "cpse", F_RD_RR },
	[AVR_OP_CP] = { "cp", F_RD_RR },
	[AVR_OP_CPC] = { "cpc", F_RD_RR },
	[AVR_OP_CPI] = { "cpi", F_RD_K },
	[AVR_OP_SBRC] = { "sbrc", F_RR_BIT },
	[AVR_OP_SBRS] = { "sbrs", F_RR_BIT },
	[AVR_OP_SBIC] = { "sbic", F_IO_BIT },
	[AVR_OP_SBIS] = { "sbis", F_IO_BIT },
	[AVR_OP_BRBS] = { "brbs", F_REL },
	[AVR_OP_BRBC] = { "brbc", F_REL },
	[AVR_OP_MOV] = { "mov", F_RD_RR },
	[AVR_OP_MOVW] = { "movw", F_RD_RR },
	[AVR_OP_LDI] = { "ldi", F_RD_K },
	[AVR_OP_LD] = { "ld", F_RD_PTR },
	[AVR_OP_LDD] = { "ldd", F_RD_PTR },
	[AVR_OP_LDS] = { "lds", F_RD_DATA },
	[AVR_OP_ST] = { "st", F_PTR_RR },
	[AVR_OP_STD] = { "std", F_PTR_RR },
	[AVR_OP_STS] = { "sts", F_DATA_RR },
	[AVR_OP_LPM] = { "lpm", F_RD_PTR },
	[AVR_OP_ELPM] = { "elpm", F_RD_PTR },
	[AVR_OP_SPM] = { "spm", F_PTR },
	[AVR_OP_IN] = { "in", F_RD_IO },
	[AVR_OP_OUT] = { "out", F_IO_RR },
	[AVR_OP_PUSH] = { "push", F_RR },
	[AVR_OP_POP] = { "pop", F_RD },
	[AVR_OP_XCH] = { "xch", F_PTR_RR },
	[AVR_OP_LAS] = { "las", F_PTR_RR },
	[AVR_OP_LAC] = { "lac", F_PTR_RR },
	[AVR_OP_LAT] = { "lat", F_PTR_RR },
	[AVR_OP_SBI] = { "sbi", F_IO_BIT },
	[AVR_OP_CBI] = { "cbi", F_IO_BIT },
	[AVR_OP_LSR] = { "lsr", F_RD },
	[AVR_OP_ROR] = { "ror", F_RD },
	[AVR_OP_ASR] = { "asr", F_RD },
	[AVR_OP_SWAP] = { "swap", F_RD },
	[AVR_OP_BSET] = { "bset", F_NONE },
	[AVR_OP_BCLR] = { "bclr", F_NONE },
	[AVR_OP_BST] = { "bst", F_RD_BIT },
	[AVR_OP_BLD] = { "bld", F_RD_BIT },
	[AVR_OP_SLEEP] = { "sleep", F_NONE },
	[AVR_OP_WDR] = { "wdr", F_NONE },
	[AVR_OP_BREAK] = { "break", F_NONE },
};

/* objdump's names for the SREG-bit forms, indexed by bit (C Z N V S H T I). */
static const char *const brbs_name[8] = {
	"brcs", "breq", "brmi", "brvs", "brlt", "brhs", "brts", "brie"
};
static const char *const brbc_name[8] = {
	"brcc", "brne", "brpl", "brvc", "brge", "brhc", "brtc", "brid"
};
static const char *const bset_name[8] = {
	"sec", "sez", "sen", "sev", "ses", "seh", "set", "sei"
};
static const char *const bclr_name[8] = {
	"clc", "clz", "cln", "clv", "cls", "clh", "clt", "cli"
};

static void set_op(avr_insn *in, enum avr_op op)
{
	in->op = (uint16_t)op;
	in->mnemonic = op_info[op].name;
}

/* Rd as the 5-bit field at bits 8..4, Rr as bits 9,3..0. */
static int8_t fld_d5(unsigned w) { return (int8_t)((w >> 4) & 0x1f); }
static int8_t fld_r5(unsigned w) { return (int8_t)((w & 0xf) | ((w >> 5) & 0x10)); }
/* The 8-bit immediate of ldi/cpi/... (bits 11..8, 3..0). */
static uint8_t fld_k8(unsigned w) { return (uint8_t)(((w >> 4) & 0xf0) | (w & 0xf)); }

static void set_ptr(avr_insn *in, char ptr, enum avr_ptr_mode mode)
{
	in->ptr = ptr;
	in->ptr_mode = (uint8_t)mode;
}

/* Pointer and mode of ld/st from bits 12 and 3..0, as objdump accepts them;
 * returns 0 for the combinations that are no instruction. */
static int ldst_ptr(avr_insn *in, unsigned w)
{
	switch (w & 0x100f) {
	case 0x0000: set_ptr(in, 'Z', AVR_PTR_PLAIN); return 1;
	case 0x1001: set_ptr(in, 'Z', AVR_PTR_POSTINC); return 1;
	case 0x1002: set_ptr(in, 'Z', AVR_PTR_PREDEC); return 1;
	case 0x0008: set_ptr(in, 'Y', AVR_PTR_PLAIN); return 1;
	case 0x1009: set_ptr(in, 'Y', AVR_PTR_POSTINC); return 1;
	case 0x100a: set_ptr(in, 'Y', AVR_PTR_PREDEC); return 1;
	case 0x100c: set_ptr(in, 'X', AVR_PTR_PLAIN); return 1;
	case 0x100d: set_ptr(in, 'X', AVR_PTR_POSTINC); return 1;
	case 0x100e: set_ptr(in, 'X', AVR_PTR_PREDEC); return 1;
	default: return 0;
	}
}

static int ptr_low_reg(char ptr)
{
	return ptr == 'X' ? 26 : ptr == 'Y' ? 28 : ptr == 'Z' ? 30 : -1;
}

/* The manual leaves the result undefined when a pre-decremented or
 * post-incremented pointer is also the data register. */
static bool overlaps_ptr(const avr_insn *in, int reg)
{
	if (in->ptr_mode != AVR_PTR_POSTINC && in->ptr_mode != AVR_PTR_PREDEC)
		return false;
	int lo = ptr_low_reg(in->ptr);
	return reg >= 0 && (reg == lo || reg == lo + 1);
}

/* Words 0x9000..0x9FFF; w2 is the following word when have_w2.  Leaves
 * in->op at AVR_OP_WORD for the undefined ones. */
static void decode_9xxx(avr_insn *in, unsigned w, unsigned w2, bool have_w2)
{
	/* Single-operand group 1001 010d dddd xxxx. */
	if ((w & 0xfe08) == 0x9400 || (w & 0xfe0f) == 0x940a) {
		static const enum avr_op unary[8] = {
			AVR_OP_COM, AVR_OP_NEG, AVR_OP_SWAP, AVR_OP_INC,
			AVR_OP_WORD, AVR_OP_ASR, AVR_OP_LSR, AVR_OP_ROR
		};
		enum avr_op op = (w & 0xf) == 0xa ? AVR_OP_DEC : unary[w & 7];
		if (op != AVR_OP_WORD) {
			set_op(in, op);
			in->rd = fld_d5(w);
		}
		return;
	}
	switch (w) {
	case 0x9409: set_op(in, AVR_OP_IJMP); return;
	case 0x9419: set_op(in, AVR_OP_EIJMP); return;
	case 0x9509: set_op(in, AVR_OP_ICALL); return;
	case 0x9519: set_op(in, AVR_OP_EICALL); return;
	case 0x9508: set_op(in, AVR_OP_RET); return;
	case 0x9518: set_op(in, AVR_OP_RETI); return;
	case 0x9588: set_op(in, AVR_OP_SLEEP); return;
	case 0x9598: set_op(in, AVR_OP_BREAK); return;
	case 0x95a8: set_op(in, AVR_OP_WDR); return;
	case 0x95c8: set_op(in, AVR_OP_LPM); return;
	case 0x95d8: set_op(in, AVR_OP_ELPM); return;
	case 0x95e8: set_op(in, AVR_OP_SPM); return;
	case 0x95f8:
		set_op(in, AVR_OP_SPM);
		set_ptr(in, 'Z', AVR_PTR_POSTINC);
		return;
	default: break;
	}
	if ((w & 0xff0f) == 0x9408) { /* bset/bclr, all 16 named */
		in->bit = (uint8_t)((w >> 4) & 7);
		set_op(in, (w & 0x80) ? AVR_OP_BCLR : AVR_OP_BSET);
		in->mnemonic = (w & 0x80) ? bclr_name[in->bit] : bset_name[in->bit];
		return;
	}
	if ((w & 0xff0f) == 0x940b) {
		set_op(in, AVR_OP_DES);
		in->imm = (uint8_t)((w >> 4) & 0xf);
		return;
	}
	if ((w & 0xfe0c) == 0x940c) { /* jmp 0x940c, call 0x940e */
		if (!have_w2)
			return;
		set_op(in, (w & 2) ? AVR_OP_CALL : AVR_OP_JMP);
		in->words = 2;
		in->raw[1] = (uint16_t)w2;
		uint32_t hi = (w & 1) | ((w & 0x1f0) >> 3);
		in->target = ((hi << 16) | w2) * 2;
		return;
	}
	if ((w & 0xfe00) == 0x9600) { /* adiw 0x96xx, sbiw 0x97xx */
		set_op(in, (w & 0x100) ? AVR_OP_SBIW : AVR_OP_ADIW);
		in->rd = (int8_t)(24 + ((w >> 3) & 6));
		in->imm = (uint8_t)((w & 0xf) | ((w >> 2) & 0x30));
		return;
	}
	if ((w & 0xfc00) == 0x9800) { /* cbi sbic sbi sbis */
		static const enum avr_op bitio[4] = {
			AVR_OP_CBI, AVR_OP_SBIC, AVR_OP_SBI, AVR_OP_SBIS
		};
		set_op(in, bitio[(w >> 8) & 3]);
		in->io = (int16_t)((w >> 3) & 0x1f);
		in->bit = (uint8_t)(w & 7);
		return;
	}
	if ((w & 0xfc00) == 0x9c00) {
		set_op(in, AVR_OP_MUL);
		in->rd = fld_d5(w);
		in->rr = fld_r5(w);
		return;
	}
	if ((w & 0xfc00) != 0x9000)
		return; /* the rest of 0x94xx/0x95xx is undefined */

	/* 1001 00sd dddd xxxx: loads (s=0) and stores (s=1). */
	bool store = w & 0x200;
	int8_t reg = fld_d5(w);
	unsigned low = w & 0xf;
	if (!store && (low == 0x4 || low == 0x5 || low == 0x6 || low == 0x7)) {
		set_op(in, low < 6 ? AVR_OP_LPM : AVR_OP_ELPM);
		in->rd = reg;
		set_ptr(in, 'Z', (low & 1) ? AVR_PTR_POSTINC : AVR_PTR_PLAIN);
		in->undefined = overlaps_ptr(in, reg);
		return;
	}
	if (store && low >= 0x4 && low <= 0x7) {
		static const enum avr_op rmw[4] = {
			AVR_OP_XCH, AVR_OP_LAS, AVR_OP_LAC, AVR_OP_LAT
		};
		set_op(in, rmw[low - 4]);
		in->rd = reg;
		set_ptr(in, 'Z', AVR_PTR_PLAIN);
		return;
	}
	if (low == 0xf) {
		set_op(in, store ? AVR_OP_PUSH : AVR_OP_POP);
		if (store)
			in->rr = reg;
		else
			in->rd = reg;
		return;
	}
	if (low == 0x0) {
		if (!have_w2)
			return;
		set_op(in, store ? AVR_OP_STS : AVR_OP_LDS);
		if (store)
			in->rr = reg;
		else
			in->rd = reg;
		in->words = 2;
		in->raw[1] = (uint16_t)w2;
		in->data = (int32_t)w2;
		return;
	}
	if (!ldst_ptr(in, w))
		return;
	set_op(in, store ? AVR_OP_ST : AVR_OP_LD);
	if (store)
		in->rr = reg;
	else
		in->rd = reg;
	in->undefined = overlaps_ptr(in, reg);
}

/* Resets *in to a 1-word ".word w" at addr with every operand absent. */
static void init_word(avr_insn *in, uint32_t addr, uint16_t w)
{
	memset(in, 0, sizeof *in);
	in->addr = addr;
	in->words = 1;
	in->raw[0] = w;
	in->rd = in->rr = -1;
	in->io = -1;
	in->data = -1;
	set_op(in, AVR_OP_WORD);
}

int avr_decode(const uint8_t *flash, uint32_t flash_size, uint32_t addr,
	       avr_insn *out)
{
	if (!flash || !out || (addr & 1) || addr >= flash_size ||
	    flash_size - addr < 2)
		return -1;
	unsigned w = flash[addr] | (unsigned)flash[addr + 1] << 8;
	bool have_w2 = flash_size - addr >= 4;
	unsigned w2 = have_w2 ? (flash[addr + 2] | (unsigned)flash[addr + 3] << 8) : 0;

	avr_insn *in = out;
	init_word(in, addr, (uint16_t)w);

	switch (w >> 12) {
	case 0x0:
		if (w == 0) {
			set_op(in, AVR_OP_NOP);
		} else if ((w & 0xff00) == 0x0100) {
			set_op(in, AVR_OP_MOVW);
			in->rd = (int8_t)(((w >> 4) & 0xf) * 2);
			in->rr = (int8_t)((w & 0xf) * 2);
		} else if ((w & 0xff00) == 0x0200) {
			set_op(in, AVR_OP_MULS);
			in->rd = (int8_t)(16 + ((w >> 4) & 0xf));
			in->rr = (int8_t)(16 + (w & 0xf));
		} else if ((w & 0xff00) == 0x0300) {
			static const enum avr_op m[4] = {
				AVR_OP_MULSU, AVR_OP_FMUL, AVR_OP_FMULS, AVR_OP_FMULSU
			};
			set_op(in, m[((w >> 6) & 2) | ((w >> 3) & 1)]);
			in->rd = (int8_t)(16 + ((w >> 4) & 7));
			in->rr = (int8_t)(16 + (w & 7));
		} else if (w >= 0x0400) {
			static const enum avr_op rr0[4] = {
				AVR_OP_WORD, AVR_OP_CPC, AVR_OP_SBC, AVR_OP_ADD
			};
			set_op(in, rr0[(w >> 10) & 3]);
			in->rd = fld_d5(w);
			in->rr = fld_r5(w);
		}
		/* 0x0001..0x00ff stay .word */
		break;
	case 0x1:
	case 0x2: {
		/* indexed by bits 12..10: 0x20.. and, eor, or, mov;
		 * 0x10.. cpse, cp, sub, adc */
		static const enum avr_op rr12[8] = {
			AVR_OP_AND, AVR_OP_EOR, AVR_OP_OR, AVR_OP_MOV,
			AVR_OP_CPSE, AVR_OP_CP, AVR_OP_SUB, AVR_OP_ADC
		};
		set_op(in, rr12[(w >> 10) & 7]);
		in->rd = fld_d5(w);
		in->rr = fld_r5(w);
		break;
	}
	case 0x3: case 0x4: case 0x5: case 0x6: case 0x7: case 0xe: {
		static const enum avr_op imm[16] = {
			[0x3] = AVR_OP_CPI, [0x4] = AVR_OP_SBCI, [0x5] = AVR_OP_SUBI,
			[0x6] = AVR_OP_ORI, [0x7] = AVR_OP_ANDI, [0xe] = AVR_OP_LDI
		};
		set_op(in, imm[w >> 12]);
		in->rd = (int8_t)(16 + ((w >> 4) & 0xf));
		in->imm = fld_k8(w);
		break;
	}
	case 0x8: case 0xa: {
		/* ldd/std 10q0 qqsd dddd yqqq; q = 0 is written ld/st. */
		bool store = w & 0x200;
		char ptr = (w & 8) ? 'Y' : 'Z';
		in->disp = (uint8_t)((w & 7) | ((w >> 7) & 0x18) | ((w >> 8) & 0x20));
		if (in->disp == 0) {
			set_op(in, store ? AVR_OP_ST : AVR_OP_LD);
			set_ptr(in, ptr, AVR_PTR_PLAIN);
		} else {
			set_op(in, store ? AVR_OP_STD : AVR_OP_LDD);
			set_ptr(in, ptr, AVR_PTR_DISP);
		}
		if (store)
			in->rr = fld_d5(w);
		else
			in->rd = fld_d5(w);
		break;
	}
	case 0x9:
		decode_9xxx(in, w, w2, have_w2);
		break;
	case 0xb:
		set_op(in, (w & 0x800) ? AVR_OP_OUT : AVR_OP_IN);
		in->io = (int16_t)((w & 0xf) | ((w >> 5) & 0x30));
		if (w & 0x800)
			in->rr = fld_d5(w);
		else
			in->rd = fld_d5(w);
		break;
	case 0xc:
	case 0xd:
		set_op(in, (w & 0x1000) ? AVR_OP_RCALL : AVR_OP_RJMP);
		in->rel = ((int32_t)((w & 0xfff) ^ 0x800) - 0x800) * 2;
		in->target = addr + 2 + (uint32_t)in->rel;
		break;
	case 0xf:
		if (w < 0xf800) { /* brbs 0xf000, brbc 0xf400 */
			in->bit = (uint8_t)(w & 7);
			in->rel = ((int32_t)(((w >> 3) & 0x7f) ^ 0x40) - 0x40) * 2;
			in->target = addr + 2 + (uint32_t)in->rel;
			if (w & 0x400) {
				set_op(in, AVR_OP_BRBC);
				in->mnemonic = brbc_name[in->bit];
			} else {
				set_op(in, AVR_OP_BRBS);
				in->mnemonic = brbs_name[in->bit];
			}
		} else if (!(w & 8)) { /* bld bst sbrc sbrs; bit 3 must be 0 */
			static const enum avr_op bt[4] = {
				AVR_OP_BLD, AVR_OP_BST, AVR_OP_SBRC, AVR_OP_SBRS
			};
			enum avr_op op = bt[(w >> 9) & 3];
			set_op(in, op);
			in->bit = (uint8_t)(w & 7);
			if (op == AVR_OP_SBRC || op == AVR_OP_SBRS)
				in->rr = fld_d5(w);
			else
				in->rd = fld_d5(w);
		}
		break;
	}
	if (in->op == AVR_OP_WORD) /* leave no half-decoded fields behind */
		init_word(in, addr, (uint16_t)w);
	return 0;
}

/* The pointer operand as objdump writes it: "X", "Y+", "-Z", "Y+5". */
static void fmt_ptr(const avr_insn *in, char *p, size_t n)
{
	switch (in->ptr_mode) {
	case AVR_PTR_POSTINC: snprintf(p, n, "%c+", in->ptr); break;
	case AVR_PTR_PREDEC: snprintf(p, n, "-%c", in->ptr); break;
	case AVR_PTR_DISP: snprintf(p, n, "%c+%u", in->ptr, in->disp); break;
	default: snprintf(p, n, "%c", in->ptr ? in->ptr : '?'); break;
	}
}

int avr_format(const avr_insn *in, char *buf, size_t n)
{
	char p[8];
	if (!in || in->op >= AVR_OP_COUNT_)
		return snprintf(buf, n, "?");
	switch (op_info[in->op].fmt) {
	case F_RD_RR: return snprintf(buf, n, "r%d, r%d", in->rd, in->rr);
	case F_RD: return snprintf(buf, n, "r%d", in->rd);
	case F_RR: return snprintf(buf, n, "r%d", in->rr);
	case F_RD_K: return snprintf(buf, n, "r%d, 0x%02X", in->rd, in->imm);
	case F_RD_KW: return snprintf(buf, n, "r%d, 0x%02x", in->rd, in->imm);
	case F_RD_BIT: return snprintf(buf, n, "r%d, %u", in->rd, in->bit);
	case F_RR_BIT: return snprintf(buf, n, "r%d, %u", in->rr, in->bit);
	case F_IO_BIT: return snprintf(buf, n, "0x%02x, %u", in->io, in->bit);
	case F_RD_IO: return snprintf(buf, n, "r%d, 0x%02x", in->rd, in->io);
	case F_IO_RR: return snprintf(buf, n, "0x%02x, r%d", in->io, in->rr);
	case F_REL: return snprintf(buf, n, ".%+d", (int)in->rel);
	/* objdump uses %#lx, which prints a zero target as plain "0". */
	case F_ABS: return snprintf(buf, n, "%#lx", (unsigned long)in->target);
	case F_RD_DATA: return snprintf(buf, n, "r%d, 0x%04X", in->rd, (unsigned)in->data);
	case F_DATA_RR: return snprintf(buf, n, "0x%04X, r%d", (unsigned)in->data, in->rr);
	case F_RD_PTR:
		if (in->ptr_mode == AVR_PTR_NONE) /* plain lpm/elpm */
			return snprintf(buf, n, "%s", "");
		fmt_ptr(in, p, sizeof p);
		return snprintf(buf, n, "r%d, %s", in->rd, p);
	case F_PTR_RR:
		fmt_ptr(in, p, sizeof p);
		/* xch/las/lac/lat name Rd in the manual, stores name Rr */
		return snprintf(buf, n, "%s, r%d", p, in->rr >= 0 ? in->rr : in->rd);
	case F_PTR:
		if (in->ptr_mode == AVR_PTR_NONE)
			return snprintf(buf, n, "%s", "");
		fmt_ptr(in, p, sizeof p);
		return snprintf(buf, n, "%s", p);
	case F_IMM: return snprintf(buf, n, "%u", in->imm);
	case F_WORD: return snprintf(buf, n, "0x%04x", in->raw[0]);
	default: return snprintf(buf, n, "%s", "");
	}
}

static uint32_t reg_bit(int r)
{
	return r >= 0 && r < 32 ? UINT32_C(1) << r : 0;
}

uint32_t avr_insn_operand_regs(const avr_insn *in)
{
	if (!in)
		return 0;
	uint32_t m = reg_bit(in->rd) | reg_bit(in->rr);
	switch (in->op) {
	case AVR_OP_MOVW:
		m |= reg_bit(in->rd + 1) | reg_bit(in->rr + 1);
		break;
	case AVR_OP_ADIW:
	case AVR_OP_SBIW:
		m |= reg_bit(in->rd + 1);
		break;
	default:
		break;
	}
	int p = ptr_low_reg(in->ptr);
	if (p >= 0)
		m |= reg_bit(p) | reg_bit(p + 1);
	return m;
}

uint32_t avr_insn_all_regs(const avr_insn *in)
{
	if (!in)
		return 0;
	uint32_t m = avr_insn_operand_regs(in);
	const uint32_t r1r0 = 0x3, z = UINT32_C(3) << 30;
	switch (in->op) {
	case AVR_OP_MUL: case AVR_OP_MULS: case AVR_OP_MULSU:
	case AVR_OP_FMUL: case AVR_OP_FMULS: case AVR_OP_FMULSU:
		m |= r1r0;
		break;
	case AVR_OP_LPM: case AVR_OP_ELPM:
		if (in->ptr_mode == AVR_PTR_NONE)
			m |= reg_bit(0) | z;
		break;
	case AVR_OP_IJMP: case AVR_OP_ICALL: case AVR_OP_EIJMP: case AVR_OP_EICALL:
		m |= z;
		break;
	case AVR_OP_SPM:
		m |= r1r0 | z;
		break;
	case AVR_OP_DES:
		m |= 0xffff;
		break;
	default:
		break;
	}
	return m;
}

int avr_insn_io(const avr_insn *in)
{
	if (!in)
		return -1;
	switch (in->op) {
	case AVR_OP_IN: case AVR_OP_OUT: case AVR_OP_SBI: case AVR_OP_CBI:
	case AVR_OP_SBIC: case AVR_OP_SBIS:
		return in->io >= 0 ? in->io + 0x20 : -1;
	case AVR_OP_LDS: case AVR_OP_STS:
		return in->data >= 0x20 && in->data <= 0xff ? (int)in->data : -1;
	default:
		return -1;
	}
}
