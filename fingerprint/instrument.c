/*
 * instrument.c — the post-link rewrite that keeps the device's software
 * instruction counter (see instrument.h).
 *
 * The code is cut into entries, one per instruction (and one per word of
 * the data that sits in .text: progmem, jump tables, constructors).  Each
 * entry gets a size in the rewrite; positions follow; a branch that no
 * longer reaches is lengthened and the positions are redone, until
 * nothing changes (sizes only grow, so this ends).  Then every entry is
 * written at its new place, and every relocation that names a code
 * address is applied again with the address's new value.
 *
 * A counted transfer becomes (r24 and SREG saved, N counter bytes):
 *
 *	push r24; in r24, SREG; cli; push r24
 *	N x { lds r24, avrr_sic+i; subi/sbci r24, 0xff; sts avrr_sic+i, r24 }
 *	pop r24; sbrc r24, 7; rjmp 1f          ; interrupts were on: 1f
 *	out SREG, r24; pop r24; rjmp 2f
 *   1: andi r24, 0x7f; out SREG, r24; pop r24; sei
 *   2: the transfer
 *
 * An interrupt can come only before `cli` (the count not yet raised, the
 * transfer not yet made) or after the transfer (`sei` lets one more
 * instruction run first): at every interrupt point the counter equals
 * what the simulator counts.  The `rjmp`s inside are forward, so they do
 * not count.  A taken backward branch `brXX T` becomes `brXY 3f` (the
 * inverse, forward), the sequence with `rjmp T` (or `jmp T`) as its
 * transfer, `3:`.  After a skip instruction (cpse, sbrc, sbrs, sbic, sbis),
 * which skips one instruction, the sequence is entered through
 * `rjmp 4f; rjmp 5f; 4: ...; 5:`.
 */
#include "fingerprint/instrument.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "sim/avr_decode.h"
#include "fingerprint/cost.h"
#include "fingerprint/inputs.h"
#include "util/avrspace.h"
#include "util/le.h"

#define SEQ_FIXED 14u   /* the sequence's words besides 5 per counter byte */

/* avr-gcc's relocation types that can carry a code address (binutils'
 * elf/avr.h numbers them). */
enum {
	R_AVR_32 = 1, R_AVR_7_PCREL = 2, R_AVR_13_PCREL = 3, R_AVR_16 = 4, R_AVR_16_PM = 5,
	R_AVR_LO8_LDI = 6, R_AVR_HI8_LDI = 7, R_AVR_HH8_LDI = 8, R_AVR_LO8_LDI_NEG = 9,
	R_AVR_HI8_LDI_NEG = 10, R_AVR_HH8_LDI_NEG = 11, R_AVR_LO8_LDI_PM = 12,
	R_AVR_HI8_LDI_PM = 13, R_AVR_HH8_LDI_PM = 14, R_AVR_LO8_LDI_PM_NEG = 15,
	R_AVR_HI8_LDI_PM_NEG = 16, R_AVR_HH8_LDI_PM_NEG = 17, R_AVR_CALL = 18,
	R_AVR_MS8_LDI = 22, R_AVR_MS8_LDI_NEG = 23, R_AVR_LO8_LDI_GS = 24,
	R_AVR_HI8_LDI_GS = 25, R_AVR_8 = 26, R_AVR_8_LO8 = 27, R_AVR_8_HI8 = 28,
	R_AVR_8_HLO8 = 29,
};

enum field { F_NONE, F_8, F_16, F_32, F_LDI, F_CALL };

/* Where relocation `type` keeps its value and which bits of it. */
typedef struct reloc_shape {
	uint8_t field;   /* enum field */
	uint8_t words;   /* a word (pm, gs) address rather than a byte address */
	uint8_t neg;     /* of minus the address */
	uint8_t shift;   /* the bits from here up */
} reloc_shape;

static reloc_shape shape_of(unsigned type)
{
	switch (type) {
	case R_AVR_32: return (reloc_shape){ F_32, 0, 0, 0 };
	case R_AVR_16: return (reloc_shape){ F_16, 0, 0, 0 };
	case R_AVR_16_PM: return (reloc_shape){ F_16, 1, 0, 0 };
	case R_AVR_LO8_LDI: return (reloc_shape){ F_LDI, 0, 0, 0 };
	case R_AVR_HI8_LDI: return (reloc_shape){ F_LDI, 0, 0, 8 };
	case R_AVR_HH8_LDI: return (reloc_shape){ F_LDI, 0, 0, 16 };
	case R_AVR_MS8_LDI: return (reloc_shape){ F_LDI, 0, 0, 24 };
	case R_AVR_LO8_LDI_NEG: return (reloc_shape){ F_LDI, 0, 1, 0 };
	case R_AVR_HI8_LDI_NEG: return (reloc_shape){ F_LDI, 0, 1, 8 };
	case R_AVR_HH8_LDI_NEG: return (reloc_shape){ F_LDI, 0, 1, 16 };
	case R_AVR_MS8_LDI_NEG: return (reloc_shape){ F_LDI, 0, 1, 24 };
	case R_AVR_LO8_LDI_PM: case R_AVR_LO8_LDI_GS: return (reloc_shape){ F_LDI, 1, 0, 0 };
	case R_AVR_HI8_LDI_PM: case R_AVR_HI8_LDI_GS: return (reloc_shape){ F_LDI, 1, 0, 8 };
	case R_AVR_HH8_LDI_PM: return (reloc_shape){ F_LDI, 1, 0, 16 };
	case R_AVR_LO8_LDI_PM_NEG: return (reloc_shape){ F_LDI, 1, 1, 0 };
	case R_AVR_HI8_LDI_PM_NEG: return (reloc_shape){ F_LDI, 1, 1, 8 };
	case R_AVR_HH8_LDI_PM_NEG: return (reloc_shape){ F_LDI, 1, 1, 16 };
	case R_AVR_CALL: return (reloc_shape){ F_CALL, 1, 0, 0 };
	case R_AVR_8: case R_AVR_8_LO8: return (reloc_shape){ F_8, 0, 0, 0 };
	case R_AVR_8_HI8: return (reloc_shape){ F_8, 0, 0, 8 };
	case R_AVR_8_HLO8: return (reloc_shape){ F_8, 0, 0, 16 };
	default: return (reloc_shape){ F_NONE, 0, 0, 0 };
	}
}

enum kind {
	K_DATA,    /* a word of data in .text: kept, relocations applied */
	K_PLAIN,   /* an instruction kept as it is */
	K_ABS,     /* JMP forward: its target redone */
	K_REL,     /* RJMP or BRxx forward: redone, lengthened when out of reach */
	K_SITE,    /* a counted transfer: the sequence, then the transfer */
	K_READ,    /* an input read: saved SREG, cli, the read, the log call */
	K_SKIPREAD, /* SBIS/SBIC of an input's outside bit: IN, the log call, the bit tested */
	K_LOAD,    /* LD/LDD: the load, then its address tested at run time */
};

/* An input read becomes (the read's Rd not r0 or r1):
 *
 *	push r0; in r0, SREG; cli; push r0
 *	the read
 *	push r1, r18-r27, r30, r31; mov r24, Rd; clr r1; call avrr_log_read
 *	pop r31, r30, r27-r18, r1; pop r0; out SREG, r0; pop r0
 *
 * Interrupts are off from before the read until the value is logged, so
 * no interrupt's fingerprint can come between the read and its item.  r0
 * still holds the SREG from before at the call (here, in the SBIS/SBIC
 * and load sequences below): the tracer's logger sends a block the read
 * closes with interrupts as they were (fingerprint/tracer.c). */
#define READ_FIXED 35u   /* words besides the read and the call */

/* SBIS/SBIC A, b of an input register's outside bit (devlog_input_insn:
 * one on UDRE or TXC is kept as it is) becomes the same around `in r24, A`
 * (the value kept on the stack across the call), then the skip decided on
 * the logged value:
 *
 *	sbrs r0, b; rjmp 1f
 *	pop r0; out SREG, r0; pop r0; rjmp (SBIS: past the next; SBIC: 2f)
 *   1: pop r0; out SREG, r0; pop r0; rjmp (SBIS: 2f; SBIC: past the next)
 *   2: the next instruction
 */
#define SKIPREAD_FIXED 44u   /* words besides the call */

/* LD/LDD Rd, ptr becomes (Rd not r0, r1 nor the pointer's):
 *
 *	push r0; in r0, SREG; cli; push r0
 *	the load
 *	push r1, r18-r27, r30, r31; mov r22, Rd; movw r24, ptr
 *	adiw r24, q | sbiw r24, 1 (post-increment) | adiw r24, 0
 *	cpi r25, 2; brsh 1f             ; the cheap test: not below 0x200
 *	clr r1; call avrr_log_ld        ; the input map, then the log
 *   1: pop r31, r30, r27-r18, r1; pop r0; out SREG, r0; pop r0
 */
#define LOAD_FIXED 40u   /* words besides the call */

typedef struct entry {
	avr_insn in;
	uint32_t pos;          /* byte address in the rewrite */
	uint8_t kind;          /* enum kind */
	uint8_t after_skip;    /* the instruction before may skip this one */
	uint8_t len;           /* 0 as it was; 1, 2 lengthened (see entry_words) */
} entry;

typedef struct section {
	Elf32_Shdr sh;
	const char *name;
	uint8_t *buf;          /* contents (a copy we may change); NULL for NOBITS */
	size_t size;
	int keep;
	size_t out_index;
	uint32_t out_offset;   /* in the new file */
} section;

typedef struct rewrite {
	const char *path;
	avrr_err *err;
	const fp_instrument_device *dev;
	int has_jmp;           /* JMP/CALL exist (flash over 8 KB) */
	GElf_Ehdr eh;          /* the input's headers, copied (the file may */
	GElf_Phdr *ph;         /* place them unaligned) */
	size_t nph;
	section *sec;
	size_t nsec;
	size_t text, symtab;   /* section indices */
	Elf32_Sym *syms;
	size_t nsyms;
	const char *strtab;    /* the symbols' names */
	size_t strtab_size;
	const uint8_t *code;   /* the old .text */
	uint32_t code_size;
	entry *e;
	size_t ne;
	uint32_t *at;          /* per old word: 1 + its entry, 0 inside one */
	uint32_t new_size;
	uint32_t load_after;   /* flash bytes loaded after .text (the data's image) */
	unsigned counter_bytes;
	uint16_t counter_addr; /* data-space address */
	int have_log_read;
	uint32_t log_read;     /* avrr_log_read's byte address */
	int have_log_ld;
	uint32_t log_ld;       /* avrr_log_ld's byte address */
	uint8_t *out;          /* the new .text */
	fp_instrument_stats *st;
} rewrite;

static int fail(rewrite *rw, const char *what, uint32_t addr)
{
	return avrr_errf(rw->err, "%s: %s at 0x%04x", rw->path, what, (unsigned)addr);
}

static int is_branch(const entry *e)
{
	return e->in.op == AVR_OP_BRBS || e->in.op == AVR_OP_BRBC;
}

static int is_skip(const avr_insn *in)
{
	return in->op == AVR_OP_CPSE || in->op == AVR_OP_SBRC || in->op == AVR_OP_SBRS ||
	       in->op == AVR_OP_SBIC || in->op == AVR_OP_SBIS;
}

static unsigned seq_words(const rewrite *rw)
{
	return SEQ_FIXED + 5 * rw->counter_bytes;
}

/* The transfer a site ends with: RJMP/RCALL/BRxx's `rjmp` become JMP/CALL
 * when lengthened. */
static unsigned xfer_words(const entry *e)
{
	switch (e->in.op) {
	case AVR_OP_JMP: case AVR_OP_CALL: return 2;
	case AVR_OP_RJMP: case AVR_OP_RCALL: case AVR_OP_BRBS: case AVR_OP_BRBC:
		return e->len ? 2 : 1;
	default: return 1;
	}
}

/* Whether the entry's code is more than one instruction: then a skip
 * before it needs the two-jump entry. */
static int multi(const entry *e)
{
	return e->kind == K_SITE || e->kind == K_READ || e->kind == K_SKIPREAD ||
	       e->kind == K_LOAD || (e->kind == K_REL && is_branch(e) && e->len);
}

static unsigned entry_words(const rewrite *rw, const entry *e)
{
	unsigned prefix = e->after_skip && multi(e) ? 2 : 0;
	switch (e->kind) {
	case K_DATA: return 1;
	case K_PLAIN: return e->in.words;
	case K_ABS: return 2;
	case K_REL:   /* rjmp / jmp; brXX / brXY + rjmp / brXY + jmp */
		return prefix + 1u + e->len;
	case K_READ:
		return prefix + READ_FIXED + e->in.words + (rw->has_jmp ? 2u : 1u);
	case K_SKIPREAD:
		return prefix + SKIPREAD_FIXED + (rw->has_jmp ? 2u : 1u);
	case K_LOAD:
		return prefix + LOAD_FIXED + (rw->has_jmp ? 2u : 1u);
	default:
		return prefix + (is_branch(e) ? 1 : 0) + seq_words(rw) + xfer_words(e);
	}
}

/* The entry that holds old byte address a, or NULL past the code. */
static entry *entry_at(const rewrite *rw, uint32_t a)
{
	if (a >= rw->code_size)
		return NULL;
	uint32_t w = a / 2;
	while (w && !rw->at[w])
		w--;
	return rw->at[w] ? &rw->e[rw->at[w] - 1] : NULL;
}

/* Where old byte address a is in the rewrite: -1 inside a rewritten
 * instruction.  The end of .text and what follows it (the data's load
 * image) move by the growth. */
static int64_t map_addr(const rewrite *rw, uint32_t a)
{
	if (a >= rw->code_size)
		return (int64_t)a - rw->code_size + rw->new_size;
	const entry *e = entry_at(rw, a);
	if (!e || (a != e->in.addr && e->kind != K_DATA && e->kind != K_PLAIN))
		return -1;
	return (int64_t)e->pos + (a - e->in.addr);
}

/* A branch or jump's target in the rewrite: the start of an instruction. */
static int target_of(rewrite *rw, const entry *e, uint32_t *to)
{
	const entry *t = entry_at(rw, e->in.target);
	if (!t || t->in.addr != e->in.target || t->kind == K_DATA)
		return fail(rw, "a branch into the middle of an instruction or out of the code",
			    e->in.addr);
	*to = t->pos;
	return 0;
}

static int reaches(int64_t words, unsigned bits)
{
	return words >= -(1 << (bits - 1)) && words < 1 << (bits - 1);
}

/* Lengthens what no longer reaches; *changed when anything did. */
static int check_reach(rewrite *rw, entry *e, int *changed)
{
	if (e->kind != K_REL && e->kind != K_SITE)
		return 0;
	uint32_t to;
	switch (e->in.op) {
	case AVR_OP_RJMP: case AVR_OP_RCALL: case AVR_OP_BRBS: case AVR_OP_BRBC:
		break;
	default:
		return 0;   /* absolute or indirect */
	}
	if (target_of(rw, e, &to))
		return -1;
	unsigned prefix = e->after_skip && multi(e) ? 2 : 0;
	uint32_t at = e->pos + 2 * prefix;    /* the instruction that jumps */
	unsigned bits = 12;
	if (e->kind == K_REL && is_branch(e)) {
		if (!e->len)
			bits = 7;
		else
			at += 2;  /* the rjmp after the inverse branch */
	} else if (e->kind == K_SITE) {
		at += 2 * ((is_branch(e) ? 1 : 0) + seq_words(rw));
	}
	if (e->len && !(e->kind == K_REL && is_branch(e) && e->len == 1))
		return 0;   /* already JMP or CALL */
	if (reaches(((int64_t)to - at - 2) / 2, bits))
		return 0;
	if (!rw->has_jmp && bits == 12)
		return fail(rw, "code grows out of RJMP's reach on a device without JMP",
			    e->in.addr);
	if (e->in.addr < rw->dev->vectors_end)
		return fail(rw, "an interrupt vector no longer reaches its handler", e->in.addr);
	e->len++;
	*changed = 1;
	return 0;
}

static int layout(rewrite *rw)
{
	for (int changed = 1; changed;) {
		uint32_t pos = 0;
		for (size_t i = 0; i < rw->ne; i++) {
			rw->e[i].pos = pos;
			pos += 2 * entry_words(rw, &rw->e[i]);
		}
		rw->new_size = pos;
		changed = 0;
		for (size_t i = 0; i < rw->ne; i++)
			if (check_reach(rw, &rw->e[i], &changed))
				return -1;
	}
	if (rw->new_size + rw->load_after > rw->dev->flash_size)
		return avrr_errf(rw->err, "%s: instrumented, it takes %u bytes of flash: more "
				 "than the MCU's %u", rw->path,
				 (unsigned)(rw->new_size + rw->load_after),
				 (unsigned)rw->dev->flash_size);
	return 0;
}

/* ---- writing the code ---------------------------------------------------- */

static void put(rewrite *rw, uint32_t *at, uint16_t w)
{
	le_put(rw->out + *at, w, 2);
	*at += 2;
}

static uint16_t rel12(uint16_t base, uint32_t at, uint32_t to)
{
	return (uint16_t)(base | ((uint32_t)(((int32_t)to - (int32_t)at - 2) / 2) & 0xfff));
}

static uint16_t rel7(uint16_t w, uint32_t at, uint32_t to)
{
	return (uint16_t)((w & 0xfc07) | ((uint32_t)(((int32_t)to - (int32_t)at - 2) / 2) & 0x7f)
						<< 3);
}

static void put_abs(rewrite *rw, uint32_t *at, uint16_t base, uint32_t to)
{
	uint32_t k = to / 2;
	put(rw, at, (uint16_t)((base & 0xfe0e) | (k >> 17 & 0x1f) << 4 | (k >> 16 & 1)));
	put(rw, at, (uint16_t)k);
}

/* A call (RCALL, or CALL when lengthened) from *at to `to`. */
static void put_call(rewrite *rw, uint32_t *at, int lengthened, uint32_t to)
{
	if (lengthened)
		put_abs(rw, at, 0x940e, to);
	else
		put(rw, at, rel12(0xd000, *at, to));
}

/* The registers an input's sequence saves around the log call. */
static const uint8_t saved[] = { 1, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 30, 31 };

/* An input's sequence up to its own part: past it when after a skip that
 * skips, then push r0; in r0, SREG; cli; push r0. */
static void put_enter(rewrite *rw, uint32_t *at, const entry *e, uint32_t end)
{
	if (e->after_skip) {   /* skipped: over the rest; else into it */
		put(rw, at, 0xc001);
		put(rw, at, rel12(0xc000, *at, end));
	}
	put(rw, at, 0x920f);                       /* push r0 */
	put(rw, at, 0xb60f);                       /* in r0, SREG */
	put(rw, at, 0x94f8);                       /* cli */
	put(rw, at, 0x920f);                       /* push r0 */
}

/* pop r0; out SREG, r0; pop r0 */
static void put_leave(rewrite *rw, uint32_t *at)
{
	put(rw, at, 0x900f);
	put(rw, at, 0xbe0f);
	put(rw, at, 0x900f);
}

/* The call to the tracer's logger at old byte address fn. */
static int put_log_call(rewrite *rw, uint32_t *at, uint32_t fn, const char *what)
{
	int64_t to = map_addr(rw, fn);
	if (to < 0)
		return fail(rw, what, fn);
	put_call(rw, at, rw->has_jmp, (uint32_t)to);
	return 0;
}

/* A jump (RJMP, or JMP when lengthened) from *at to `to`. */
static void put_jump(rewrite *rw, uint32_t *at, int lengthened, uint32_t to)
{
	if (lengthened)
		put_abs(rw, at, 0x940c, to);
	else
		put(rw, at, rel12(0xc000, *at, to));
}

static void put_sequence(rewrite *rw, uint32_t *at)
{
	put(rw, at, 0x938f);          /* push r24 */
	put(rw, at, 0xb78f);          /* in r24, SREG */
	put(rw, at, 0x94f8);          /* cli */
	put(rw, at, 0x938f);          /* push r24 */
	for (unsigned i = 0; i < rw->counter_bytes; i++) {
		put(rw, at, 0x9180);  /* lds r24, counter + i */
		put(rw, at, (uint16_t)(rw->counter_addr + i));
		put(rw, at, i ? 0x4f8f : 0x5f8f);  /* sbci / subi r24, 0xff: +1, carried */
		put(rw, at, 0x9380);  /* sts counter + i, r24 */
		put(rw, at, (uint16_t)(rw->counter_addr + i));
	}
	put(rw, at, 0x918f);          /* pop r24 (SREG) */
	put(rw, at, 0xfd87);          /* sbrc r24, 7 */
	put(rw, at, 0xc003);          /* rjmp 1f */
	put(rw, at, 0xbf8f);          /* out SREG, r24 */
	put(rw, at, 0x918f);          /* pop r24 */
	put(rw, at, 0xc004);          /* rjmp 2f */
	put(rw, at, 0x778f);          /* 1: andi r24, 0x7f */
	put(rw, at, 0xbf8f);          /* out SREG, r24 */
	put(rw, at, 0x918f);          /* pop r24 */
	put(rw, at, 0x9478);          /* sei; 2: the transfer */
}

static int write_read(rewrite *rw, const entry *e, uint32_t at, uint32_t end)
{
	const avr_insn *in = &e->in;
	put_enter(rw, &at, e, end);
	for (unsigned w = 0; w < in->words; w++)   /* the read */
		put(rw, &at, in->raw[w]);
	for (unsigned i = 0; i < sizeof saved; i++)
		put(rw, &at, (uint16_t)(0x920f | saved[i] << 4));   /* push */
	unsigned d = (unsigned)in->rd;             /* mov r24, Rd */
	put(rw, &at, (uint16_t)(0x2c00 | (d & 0x10) << 5 | 24u << 4 | (d & 0x0f)));
	put(rw, &at, 0x2411);                      /* clr r1 */
	if (put_log_call(rw, &at, rw->log_read, "avrr_log_read is not at an instruction"))
		return -1;
	for (unsigned i = sizeof saved; i-- > 0;)
		put(rw, &at, (uint16_t)(0x900f | saved[i] << 4));   /* pop */
	put_leave(rw, &at);
	return at == end ? 0 : fail(rw, "an input read's sequence of the wrong size", in->addr);
}

static int write_skipread(rewrite *rw, const entry *e, uint32_t at, uint32_t end)
{
	const avr_insn *in = &e->in;
	size_t i = (size_t)(e - rw->e);
	/* past the next instruction: the start of the entry after it */
	uint32_t past = i + 2 < rw->ne ? rw->e[i + 2].pos : rw->new_size;
	put_enter(rw, &at, e, end);
	for (unsigned k = 0; k < sizeof saved; k++)
		put(rw, &at, (uint16_t)(0x920f | saved[k] << 4));
	unsigned a = (unsigned)in->io;             /* in r24, A */
	put(rw, &at, (uint16_t)(0xb000 | (a & 0x30) << 5 | 24u << 4 | (a & 0x0f)));
	put(rw, &at, 0x938f);                      /* push r24 */
	put(rw, &at, 0x2411);                      /* clr r1 */
	if (put_log_call(rw, &at, rw->log_read, "avrr_log_read is not at an instruction"))
		return -1;
	put(rw, &at, 0x900f);                      /* pop r0: the value */
	for (unsigned k = sizeof saved; k-- > 0;)
		put(rw, &at, (uint16_t)(0x900f | saved[k] << 4));
	put(rw, &at, (uint16_t)(0xfe00 | in->bit));  /* sbrs r0, b */
	uint32_t clear = at + 2 + 8;
	put(rw, &at, rel12(0xc000, at, clear));    /* rjmp 1f */
	int sbis = in->op == AVR_OP_SBIS;
	put_leave(rw, &at);                        /* bit set */
	put(rw, &at, rel12(0xc000, at, sbis ? past : end));
	put_leave(rw, &at);                        /* 1: bit clear */
	put(rw, &at, rel12(0xc000, at, sbis ? end : past));
	return at == end ? 0 : fail(rw, "an input skip's sequence of the wrong size", in->addr);
}

static int write_load(rewrite *rw, const entry *e, uint32_t at, uint32_t end)
{
	const avr_insn *in = &e->in;
	put_enter(rw, &at, e, end);
	put(rw, &at, in->raw[0]);                  /* the load */
	for (unsigned k = 0; k < sizeof saved; k++)
		put(rw, &at, (uint16_t)(0x920f | saved[k] << 4));
	unsigned d = (unsigned)in->rd;             /* mov r22, Rd */
	put(rw, &at, (uint16_t)(0x2c00 | (d & 0x10) << 5 | 22u << 4 | (d & 0x0f)));
	unsigned p = in->ptr == 'X' ? 26 : in->ptr == 'Y' ? 28 : 30;
	put(rw, &at, (uint16_t)(0x0100 | 12u << 4 | p / 2));   /* movw r24, ptr */
	if (in->ptr_mode == AVR_PTR_POSTINC)
		put(rw, &at, 0x9701);                  /* sbiw r24, 1 */
	else {
		unsigned q = in->ptr_mode == AVR_PTR_DISP ? in->disp : 0;
		put(rw, &at, (uint16_t)(0x9600 | (q & 0x30) << 2 | (q & 0x0f)));  /* adiw r24, q */
	}
	put(rw, &at, 0x3092);                      /* cpi r25, 2 */
	unsigned over = 1 + (rw->has_jmp ? 2u : 1u);
	put(rw, &at, (uint16_t)(0xf400 | (over & 0x7f) << 3));   /* brsh 1f */
	put(rw, &at, 0x2411);                      /* clr r1 */
	if (put_log_call(rw, &at, rw->log_ld, "avrr_log_ld is not at an instruction"))
		return -1;
	for (unsigned k = sizeof saved; k-- > 0;)  /* 1: */
		put(rw, &at, (uint16_t)(0x900f | saved[k] << 4));
	put_leave(rw, &at);
	return at == end ? 0 : fail(rw, "a load's sequence of the wrong size", in->addr);
}

int fp_tracer_own_symbol(const char *name)
{
	return !strncmp(name, "avrr_", 5) && strncmp(name, "avrr_body_", 10) &&
	       strncmp(name, FP_HOOKVEC_READ_PREFIX, strlen(FP_HOOKVEC_READ_PREFIX)) &&
	       strncmp(name, FP_HOOKVEC_SKIP_PREFIX, strlen(FP_HOOKVEC_SKIP_PREFIX));
}

static const char *sym_name(const rewrite *rw, const Elf32_Sym *sym);

/* Whether byte address a is inside one of the tracer's own functions
 * (avrr_*, but for avrr_body_*: the firmware's ISR bodies), whose loads
 * must not be tested (avrr_log_ld itself is one) and whose reads are not
 * logged (the UART sink polls UCSRnA). */
static int in_tracer(const rewrite *rw, uint32_t a)
{
	for (size_t i = 0; i < rw->nsyms; i++) {
		const Elf32_Sym *y = &rw->syms[i];
		if (y->st_shndx == rw->text && ELF32_ST_TYPE(y->st_info) == STT_FUNC &&
		    a >= y->st_value && a < y->st_value + y->st_size &&
		    fp_tracer_own_symbol(sym_name(rw, y)))
			return 1;
	}
	return 0;
}

static int write_entry(rewrite *rw, const entry *e)
{
	uint32_t at = e->pos, end = e->pos + 2 * entry_words(rw, e), to = 0;
	const avr_insn *in = &e->in;
	if (e->kind == K_DATA || e->kind == K_PLAIN) {
		memcpy(rw->out + at, rw->code + in->addr, e->kind == K_DATA ? 2u : 2u * in->words);
		return 0;
	}
	if (e->kind == K_READ)
		return write_read(rw, e, at, end);
	if (e->kind == K_SKIPREAD)
		return write_skipread(rw, e, at, end);
	if (e->kind == K_LOAD)
		return write_load(rw, e, at, end);
	if (in->op != AVR_OP_RET && in->op != AVR_OP_RETI && in->op != AVR_OP_IJMP &&
	    in->op != AVR_OP_EIJMP && in->op != AVR_OP_ICALL && in->op != AVR_OP_EICALL &&
	    target_of(rw, e, &to))
		return -1;
	if (e->after_skip && multi(e)) {   /* skipped: over the rest; else into it */
		put(rw, &at, 0xc001);
		put(rw, &at, rel12(0xc000, at, end));
	}
	if (e->kind == K_ABS) {
		put_abs(rw, &at, in->raw[0], to);
		return 0;
	}
	if (e->kind == K_REL) {
		if (in->op == AVR_OP_RCALL)   /* only without a counter */
			put_call(rw, &at, e->len, to);
		else if (!is_branch(e))
			put_jump(rw, &at, e->len, to);
		else if (!e->len)
			put(rw, &at, rel7(in->raw[0], at, to));
		else {
			put(rw, &at, rel7(in->raw[0] ^ 0x0400, at, end));
			put_jump(rw, &at, e->len == 2, to);
		}
		return 0;
	}
	if (is_branch(e))   /* not taken: over the sequence */
		put(rw, &at, rel7(in->raw[0] ^ 0x0400, at, end));
	put_sequence(rw, &at);
	switch (in->op) {
	case AVR_OP_RJMP: case AVR_OP_BRBS: case AVR_OP_BRBC:
		put_jump(rw, &at, e->len, to);
		break;
	case AVR_OP_RCALL:
		put_call(rw, &at, e->len, to);
		break;
	case AVR_OP_JMP: case AVR_OP_CALL:
		put_abs(rw, &at, in->raw[0], to);
		break;
	default:
		put(rw, &at, in->raw[0]);
		break;
	}
	return 0;
}

/* ---- relocations ---------------------------------------------------------- */

static uint32_t get_field(const uint8_t *p, const reloc_shape *s)
{
	switch (s->field) {
	case F_8: return p[0];
	case F_16: return (uint32_t)le_get(p, 2);
	case F_32: return (uint32_t)le_get(p, 4);
	case F_LDI: {
		uint32_t w = (uint32_t)le_get(p, 2);
		return (w >> 4 & 0xf0) | (w & 0x0f);
	}
	default: {   /* F_CALL */
		uint32_t w = (uint32_t)le_get(p, 2);
		return (w >> 4 & 0x1f) << 17 | (w & 1) << 16 | (uint32_t)le_get(p + 2, 2);
	}
	}
}

static void set_field(uint8_t *p, const reloc_shape *s, uint32_t v)
{
	switch (s->field) {
	case F_8: p[0] = (uint8_t)v; break;
	case F_16: le_put(p, v, 2); break;
	case F_32: le_put(p, v, 4); break;
	case F_LDI:
		le_put(p, (le_get(p, 2) & 0xf0f0) | (v & 0xf0) << 4 | (v & 0x0f), 2);
		break;
	default:
		le_put(p, (le_get(p, 2) & 0xfe0e) | (v >> 17 & 0x1f) << 4 | (v >> 16 & 1), 2);
		le_put(p + 2, v & 0xffff, 2);
		break;
	}
}

/* The field's value for code address a (bytes). */
static uint32_t field_value(const reloc_shape *s, uint32_t a)
{
	uint32_t v = s->words ? a / 2 : a;
	if (s->neg)
		v = (uint32_t)-v;
	v >>= s->shift;
	switch (s->field) {
	case F_8: case F_LDI: return v & 0xff;
	case F_16: return v & 0xffff;
	case F_CALL: return v & 0x3fffff;
	default: return v;
	}
}

static const char *sym_name(const rewrite *rw, const Elf32_Sym *sym)
{
	return sym->st_name < rw->strtab_size ? rw->strtab + sym->st_name : "";
}

/* Whether a relocation against sym names a code address (the data's load
 * image counts: it moves with the code's end). */
static int names_code(const rewrite *rw, const Elf32_Sym *sym)
{
	if (sym->st_shndx == rw->text)
		return 1;
	const char *name = sym_name(rw, sym);
	return !strcmp(name, "__data_load_start") || !strcmp(name, "__data_load_end");
}

/* Applies one relocation of section `target` again, for the code address's
 * new place.  A field that does not hold what the relocation says (a gs()
 * the linker sent through a trampoline) is left as it is. */
static int relocate(rewrite *rw, size_t target, const Elf32_Rela *r)
{
	size_t si = ELF32_R_SYM(r->r_info);
	unsigned type = ELF32_R_TYPE(r->r_info);
	reloc_shape s = shape_of(type);
	if (s.field == F_NONE || si >= rw->nsyms || !names_code(rw, &rw->syms[si]))
		return 0;
	uint32_t old = rw->syms[si].st_value + (uint32_t)r->r_addend;
	unsigned room = s.field == F_8 ? 1 : s.field == F_32 || s.field == F_CALL ? 4 : 2;
	uint8_t *p;
	if (target == rw->text) {
		const entry *e = entry_at(rw, r->r_offset);
		if (!e)
			return 0;
		if (e->kind != K_DATA && (type == R_AVR_7_PCREL || type == R_AVR_13_PCREL ||
					  type == R_AVR_CALL))
			return 0;   /* decoded and redone with the instruction */
		if (e->kind == K_READ)   /* LDS of a symbol: the read is 4 words in */
			p = rw->out + e->pos + 2 * ((e->after_skip ? 2 : 0) + 4) +
			    (r->r_offset - e->in.addr);
		else if (e->kind != K_DATA && e->kind != K_PLAIN)
			return fail(rw, "a relocation inside a rewritten transfer", r->r_offset);
		else
			p = rw->out + e->pos + (r->r_offset - e->in.addr);
		if (p + room > rw->out + rw->new_size)
			return fail(rw, "a relocation past the code", r->r_offset);
	} else {
		const section *sec = &rw->sec[target];
		if (r->r_offset < sec->sh.sh_addr || r->r_offset - sec->sh.sh_addr + room > sec->size)
			return fail(rw, "a relocation outside its section", r->r_offset);
		p = sec->buf + (r->r_offset - sec->sh.sh_addr);
	}
	if (get_field(p, &s) != field_value(&s, old))
		return 0;
	int64_t to = map_addr(rw, old);
	if (to < 0)
		return fail(rw, "a code address inside a rewritten transfer", old);
	if (s.words && (uint64_t)to / 2 > 0xffff && s.field != F_CALL && !s.shift)
		return fail(rw, "a code address the rewrite moves beyond what a word pointer "
			    "reaches", old);
	set_field(p, &s, field_value(&s, (uint32_t)to));
	return 0;
}

/* ---- cutting the code into entries ------------------------------------- */

/* Where the code is: the vectors, then from the end of the constructor
 * tables (avr-libc's linker script puts progmem, trampolines and jump
 * tables between them), less the objects the symbols name. */
static int classify(rewrite *rw, uint8_t *is_data)
{
	uint32_t code_start = 0;
	for (size_t i = 0; i < rw->nsyms; i++) {
		const Elf32_Sym *y = &rw->syms[i];
		if (y->st_shndx != rw->text)
			continue;
		const char *n = sym_name(rw, y);
		if (!strcmp(n, "__dtors_end") || !strcmp(n, "__ctors_end") ||
		    !strcmp(n, "__trampolines_end"))
			code_start = y->st_value > code_start ? y->st_value : code_start;
	}
	if (!code_start)
		return avrr_errf(rw->err, "%s: no __ctors_end or __dtors_end: not linked by "
				 "avr-gcc with avr-libc's startup code", rw->path);
	for (uint32_t a = rw->dev->vectors_end; a < code_start && a < rw->code_size; a += 2)
		is_data[a / 2] = 1;
	for (size_t i = 0; i < rw->nsyms; i++) {
		const Elf32_Sym *y = &rw->syms[i];
		if (y->st_shndx == rw->text && ELF32_ST_TYPE(y->st_info) == STT_OBJECT)
			for (uint32_t a = y->st_value & ~1u; a < y->st_value + y->st_size &&
			     a < rw->code_size; a += 2)
				is_data[a / 2] = 1;
	}
	return 0;
}

static int cut(rewrite *rw)
{
	uint32_t words = rw->code_size / 2;
	uint8_t *is_data = calloc(words ? words : 1, 1);
	rw->e = calloc(words ? words : 1, sizeof *rw->e);
	rw->at = calloc(words + 1, sizeof *rw->at);
	if (!is_data || !rw->e || !rw->at) {
		free(is_data);
		return avrr_errf(rw->err, "%s: out of memory", rw->path);
	}
	if (classify(rw, is_data)) {
		free(is_data);
		return -1;
	}
	const entry *prev = NULL;
	for (uint32_t a = 0; a < rw->code_size; a += 2) {
		entry *e = &rw->e[rw->ne];
		avr_decode(rw->code, rw->code_size, a, &e->in);
		if (is_data[a / 2] || (e->in.words == 2 && is_data[a / 2 + 1])) {
			e->kind = K_DATA;
			e->in.words = 1;
		} else {
			uint8_t k = avr_word_transfer_kind(e->in.raw[0]);
			int backward = e->in.target <= a;
			e->after_skip = prev && prev->kind != K_DATA && is_skip(&prev->in);
			int counted = k == AVR_COUNT_ALWAYS || (k == AVR_COUNT_BACKWARD && backward);
			int skipread = e->in.op == AVR_OP_SBIS || e->in.op == AVR_OP_SBIC;
			int input = rw->dev->inputs && devlog_input_insn(rw->dev->inputs, &e->in) >= 0;
			if (counted && rw->counter_bytes)
				e->kind = K_SITE;
			else if (k == AVR_COUNT_BACKWARD || counted)
				e->kind = e->in.op == AVR_OP_JMP || e->in.op == AVR_OP_CALL ? K_ABS
					: e->in.op == AVR_OP_RJMP || e->in.op == AVR_OP_RCALL ||
					  is_branch(e) ? K_REL : K_PLAIN;
			else if (rw->have_log_read && input &&
				 !in_tracer(rw, a)) {   /* the UART sink polls UCSRnA */
				if (skipread) {
					e->kind = K_SKIPREAD;
					rw->st->reads++;
				} else if (e->in.rd < 2) {
					free(is_data);
					return fail(rw, "an input read into r0 or r1, which the log's "
						    "call uses", a);
				} else {
					e->kind = K_READ;
					rw->st->reads++;
				}
			} else if (rw->have_log_ld && rw->dev->log_loads &&
				   (e->in.op == AVR_OP_LD || e->in.op == AVR_OP_LDD) &&
				   e->in.rd >= 2 && (e->in.ptr == 'X' || e->in.ptr == 'Y' ||
						     e->in.ptr == 'Z') &&
				   (unsigned)e->in.rd / 2 != (e->in.ptr == 'X' ? 13u :
							      e->in.ptr == 'Y' ? 14u : 15u) &&
				   !in_tracer(rw, a)) {
				e->kind = K_LOAD;
				rw->st->loads++;
			} else
				e->kind = K_PLAIN;
			rw->st->sites += e->kind == K_SITE;
		}
		rw->at[a / 2] = (uint32_t)++rw->ne;
		prev = e;
		if (e->in.words == 2)
			a += 2;
	}
	free(is_data);
	return 0;
}

/* ---- the ELF ---------------------------------------------------------------- */

static int dropped(const section *s)
{
	return s->sh.sh_type == SHT_RELA || s->sh.sh_type == SHT_REL ||
	       !strncmp(s->name, ".debug", 6) || !strncmp(s->name, ".stab", 5);
}

/* Reads the sections, the symbols and the counter. */
static int read_elf(rewrite *rw, Elf *elf)
{
	size_t shstr;
	if (elf_getshdrnum(elf, &rw->nsec) || elf_getshdrstrndx(elf, &shstr) || !rw->nsec)
		return avrr_errf(rw->err, "%s: damaged section headers", rw->path);
	if (!(rw->sec = calloc(rw->nsec, sizeof *rw->sec)))
		return avrr_errf(rw->err, "%s: out of memory", rw->path);
	for (size_t i = 1; i < rw->nsec; i++) {
		section *s = &rw->sec[i];
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			return avrr_errf(rw->err, "%s: damaged section header %zu", rw->path, i);
		s->sh = (Elf32_Shdr){
			.sh_name = (Elf32_Word)sh.sh_name, .sh_type = (Elf32_Word)sh.sh_type,
			.sh_flags = (Elf32_Word)sh.sh_flags, .sh_addr = (Elf32_Addr)sh.sh_addr,
			.sh_offset = (Elf32_Off)sh.sh_offset, .sh_size = (Elf32_Word)sh.sh_size,
			.sh_link = (Elf32_Word)sh.sh_link, .sh_info = (Elf32_Word)sh.sh_info,
			.sh_addralign = (Elf32_Word)sh.sh_addralign,
			.sh_entsize = (Elf32_Word)sh.sh_entsize,
		};
		s->name = elf_strptr(elf, shstr, sh.sh_name);
		if (!s->name)
			s->name = "";
		Elf_Data *d = sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		if (d && d->d_size) {
			if (!(s->buf = malloc(d->d_size)))
				return avrr_errf(rw->err, "%s: out of memory", rw->path);
			memcpy(s->buf, d->d_buf, d->d_size);
			s->size = d->d_size;
		}
		if (!strcmp(s->name, ".text"))
			rw->text = i;
		else if (sh.sh_type == SHT_SYMTAB)
			rw->symtab = i;
	}
	if (!gelf_getehdr(elf, &rw->eh) || elf_getphdrnum(elf, &rw->nph))
		return avrr_errf(rw->err, "%s: damaged ELF header", rw->path);
	if (rw->nph && !(rw->ph = calloc(rw->nph, sizeof *rw->ph)))
		return avrr_errf(rw->err, "%s: out of memory", rw->path);
	for (size_t p = 0; p < rw->nph; p++)
		if (!gelf_getphdr(elf, (int)p, &rw->ph[p]))
			return avrr_errf(rw->err, "%s: damaged program header %zu", rw->path, p);
	int has_rela = 0;
	for (size_t i = 1; i < rw->nsec; i++)
		has_rela |= rw->sec[i].sh.sh_type == SHT_RELA && rw->sec[i].sh.sh_info == rw->text;
	if (!rw->text || !rw->sec[rw->text].size)
		return avrr_errf(rw->err, "%s: no .text", rw->path);
	if (!rw->symtab || rw->sec[rw->symtab].sh.sh_link >= rw->nsec)
		return avrr_errf(rw->err, "%s: no symbol table", rw->path);
	if (!has_rela)
		return avrr_errf(rw->err, "%s: no relocations: link with -Wl,--emit-relocs",
				 rw->path);
	const section *str = &rw->sec[rw->sec[rw->symtab].sh.sh_link];
	if (!str->size || str->buf[str->size - 1])
		return avrr_errf(rw->err, "%s: damaged symbol names", rw->path);
	rw->strtab = (const char *)str->buf;
	rw->strtab_size = str->size;
	rw->syms = (Elf32_Sym *)rw->sec[rw->symtab].buf;
	rw->nsyms = rw->sec[rw->symtab].size / sizeof(Elf32_Sym);
	rw->code = rw->sec[rw->text].buf;
	rw->code_size = (uint32_t)rw->sec[rw->text].size & ~1u;
	for (size_t i = 0; i < rw->nsyms; i++) {
		const Elf32_Sym *y = &rw->syms[i];
		if (!strcmp(sym_name(rw, y), FP_SIC_SYMBOL)) {
			if (y->st_value < ELF_DATA_BASE || y->st_value >= ELF_DATA_BASE + 0x10000 ||
			    y->st_size < 1 || y->st_size > 4)
				return avrr_errf(rw->err, "%s: " FP_SIC_SYMBOL " must be 1 to 4 bytes "
						 "of SRAM", rw->path);
			rw->counter_addr = (uint16_t)(y->st_value - ELF_DATA_BASE);
			rw->counter_bytes = y->st_size;
		}
	}
	for (size_t i = 0; i < rw->nsyms; i++) {
		const Elf32_Sym *y = &rw->syms[i];
		if (y->st_shndx == rw->text && !strcmp(sym_name(rw, y), FP_LOG_READ_SYMBOL)) {
			rw->have_log_read = 1;
			rw->log_read = y->st_value;
		}
		if (y->st_shndx == rw->text && !strcmp(sym_name(rw, y), FP_LOG_LD_SYMBOL)) {
			rw->have_log_ld = 1;
			rw->log_ld = y->st_value;
		}
	}
	if (!rw->counter_bytes && !(rw->have_log_read && rw->dev->inputs))
		return avrr_errf(rw->err, "%s: no " FP_SIC_SYMBOL " nor " FP_LOG_READ_SYMBOL
				 ": build it with the tracer of a sic:K configuration or with "
				 "the device log (avrr tracer --log)", rw->path);
	return 0;
}

/* Code symbols follow their code; the data's load address its image. */
static void move_symbols(rewrite *rw)
{
	for (size_t i = 0; i < rw->nsyms; i++) {
		Elf32_Sym *y = &rw->syms[i];
		if (!names_code(rw, y))
			continue;
		int64_t at = map_addr(rw, y->st_value);
		if (at < 0)
			continue;
		if (y->st_size) {
			int64_t end = map_addr(rw, y->st_value + y->st_size);
			if (end >= at)
				y->st_size = (uint32_t)(end - at);
		}
		y->st_value = (uint32_t)at;
	}
}

static int write_elf(rewrite *rw, Elf *in, int fd)
{
	const GElf_Ehdr *ieh = &rw->eh;
	const GElf_Phdr *iph = rw->ph;
	size_t nph = rw->nph;
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf32_Ehdr *eh = out ? elf32_newehdr(out) : NULL;
	Elf32_Phdr *ph = eh && nph ? elf32_newphdr(out, nph) : NULL;
	if (!eh || (nph && !ph)) {
		if (out)
			elf_end(out);
		return avrr_errf(rw->err, "%s: %s", rw->path, elf_errmsg(-1));
	}
	memcpy(eh->e_ident, ieh->e_ident, EI_NIDENT);
	eh->e_type = ieh->e_type;
	eh->e_machine = ieh->e_machine;
	eh->e_version = (Elf32_Word)ieh->e_version;
	eh->e_entry = (Elf32_Addr)ieh->e_entry;
	eh->e_flags = (Elf32_Word)ieh->e_flags;
	eh->e_phoff = nph ? sizeof(Elf32_Ehdr) : 0;
	size_t shstr = 0, next = 1;
	elf_getshdrstrndx(in, &shstr);
	for (size_t i = 1; i < rw->nsec; i++)
		if ((rw->sec[i].keep = !dropped(&rw->sec[i])))
			rw->sec[i].out_index = next++;
	for (size_t i = 0; i < rw->nsyms; i++) {
		uint16_t x = rw->syms[i].st_shndx;
		if (x && x < rw->nsec)
			rw->syms[i].st_shndx = rw->sec[x].keep ? (uint16_t)rw->sec[x].out_index
							       : SHN_ABS;
	}
	/* Our own layout: the headers, then each section in order. */
	uint32_t off = (uint32_t)(sizeof(Elf32_Ehdr) + nph * sizeof(Elf32_Phdr));
	for (size_t i = 1; i < rw->nsec; i++) {
		section *s = &rw->sec[i];
		if (!s->keep)
			continue;
		Elf_Scn *scn = elf_newscn(out);
		Elf32_Shdr *sh = scn ? elf32_getshdr(scn) : NULL;
		Elf_Data *d = scn ? elf_newdata(scn) : NULL;
		if (!sh || !d) {
			elf_end(out);
			return avrr_errf(rw->err, "%s: %s", rw->path, elf_errmsg(-1));
		}
		*sh = s->sh;
		if (s->sh.sh_link && s->sh.sh_link < rw->nsec)
			sh->sh_link = (Elf32_Word)rw->sec[s->sh.sh_link].out_index;
		uint32_t align = sh->sh_addralign > 1 ? sh->sh_addralign : 1;
		off = (off + align - 1) / align * align;
		sh->sh_offset = off;
		d->d_buf = i == rw->text ? rw->out : s->buf;
		d->d_size = i == rw->text ? rw->new_size : s->size;
		d->d_type = i == rw->symtab ? ELF_T_SYM : ELF_T_BYTE;
		d->d_align = align;
		sh->sh_size = (Elf32_Word)d->d_size;
		if (sh->sh_type == SHT_NOBITS) {
			d->d_buf = NULL;
			d->d_size = 0;
			sh->sh_size = s->sh.sh_size;
		} else {
			off += sh->sh_size;
		}
		s->out_offset = sh->sh_offset;
		if (i == shstr)
			eh->e_shstrndx = (Elf32_Half)s->out_index;
	}
	eh->e_shoff = (off + 3) & ~3u;
	int64_t growth = (int64_t)rw->new_size - rw->code_size;
	for (size_t p = 0; p < nph; p++) {
		ph[p] = (Elf32_Phdr){
			.p_type = (Elf32_Word)iph[p].p_type, .p_offset = (Elf32_Off)iph[p].p_offset,
			.p_vaddr = (Elf32_Addr)iph[p].p_vaddr, .p_paddr = (Elf32_Addr)iph[p].p_paddr,
			.p_filesz = (Elf32_Word)iph[p].p_filesz, .p_memsz = (Elf32_Word)iph[p].p_memsz,
			.p_flags = (Elf32_Word)iph[p].p_flags, .p_align = (Elf32_Word)iph[p].p_align,
		};
		/* The segment's sections: allocated, at addresses inside it. */
		for (size_t i = 1; i < rw->nsec; i++) {
			const section *s = &rw->sec[i];
			if (!s->keep || !(s->sh.sh_flags & SHF_ALLOC) ||
			    s->sh.sh_addr < iph[p].p_vaddr ||
			    s->sh.sh_addr >= iph[p].p_vaddr + (iph[p].p_memsz ? iph[p].p_memsz : 1))
				continue;
			ph[p].p_offset = s->out_offset - (s->sh.sh_addr - iph[p].p_vaddr);
			break;
		}
		if (iph[p].p_vaddr == rw->sec[rw->text].sh.sh_addr && iph[p].p_filesz) {
			ph[p].p_filesz = (Elf32_Word)(iph[p].p_filesz + growth);
			ph[p].p_memsz = (Elf32_Word)(iph[p].p_memsz + growth);
		} else if (iph[p].p_paddr < ELF_DATA_BASE && iph[p].p_paddr >= rw->code_size) {
			ph[p].p_paddr = (Elf32_Addr)(iph[p].p_paddr + growth);  /* a load image */
		}
	}
	elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
	int rc = elf_update(out, ELF_C_WRITE) < 0
		? avrr_errf(rw->err, "%s: writing the ELF: %s", rw->path, elf_errmsg(-1)) : 0;
	elf_end(out);
	return rc;
}

/* ---- the whole rewrite ------------------------------------------------------ */

static int rewrite_code(rewrite *rw)
{
	const GElf_Phdr *ph = rw->ph;
	for (size_t p = 0; p < rw->nph; p++)
		if (ph[p].p_type == PT_LOAD && ph[p].p_paddr < ELF_DATA_BASE &&
		    ph[p].p_paddr >= rw->code_size &&
		    ph[p].p_paddr + ph[p].p_filesz - rw->code_size > rw->load_after)
			rw->load_after = (uint32_t)(ph[p].p_paddr + ph[p].p_filesz - rw->code_size);
	if (cut(rw) || layout(rw))
		return -1;
	if (!(rw->out = malloc(rw->new_size ? rw->new_size : 1)))
		return avrr_errf(rw->err, "%s: out of memory", rw->path);
	for (size_t i = 0; i < rw->ne; i++)
		if (write_entry(rw, &rw->e[i]))
			return -1;
	for (size_t i = 1; i < rw->nsec; i++) {
		const section *s = &rw->sec[i];
		size_t target = s->sh.sh_info;
		if (s->sh.sh_type != SHT_RELA || s->sh.sh_link != rw->symtab || target >= rw->nsec ||
		    !(rw->sec[target].sh.sh_flags & SHF_ALLOC) ||
		    (target != rw->text && !rw->sec[target].buf))
			continue;
		const Elf32_Rela *r = (const Elf32_Rela *)s->buf;
		for (size_t k = 0; k < s->size / sizeof *r; k++)
			if (relocate(rw, target, &r[k]))
				return -1;
	}
	move_symbols(rw);
	for (size_t i = 0; i < rw->ne; i++)
		rw->st->relaxed += rw->e[i].len > 0;
	return 0;
}

int fp_instrument(const uint8_t *bytes, size_t size, const char *path,
		  const fp_instrument_device *dev, int out_fd, fp_instrument_stats *st,
		  avrr_err *err)
{
	memset(st, 0, sizeof *st);
	rewrite rw = { .path = path, .err = err, .dev = dev, .st = st,
		       .has_jmp = dev->flash_size > 8192 };
	elf_version(EV_CURRENT);
	char *copy = malloc(size ? size : 1);
	if (!copy)
		return avrr_errf(err, "%s: out of memory", path);
	memcpy(copy, bytes, size);
	Elf *elf = elf_memory(copy, size);
	int rc;
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS32)
		rc = avrr_errf(err, "%s: not a 32-bit ELF file", path);
	else
		rc = read_elf(&rw, elf) || rewrite_code(&rw) || write_elf(&rw, elf, out_fd)
			? -1 : 0;
	st->text_before = rw.code_size;
	st->text_after = rw.new_size;
	st->counter_bytes = rw.counter_bytes;
	st->cycles_per_transfer = COST_SIC_TRANSFER + COST_SIC_BYTE * rw.counter_bytes;
	for (size_t i = 0; rw.sec && i < rw.nsec; i++)
		free(rw.sec[i].buf);
	free(rw.sec);
	free(rw.ph);
	free(rw.e);
	free(rw.at);
	free(rw.out);
	if (elf)
		elf_end(elf);
	free(copy);
	return rc;
}
