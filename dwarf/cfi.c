/*
 * cfi.c — each function's frame at each instruction, from its code (see
 * cfi.h): a forward walk over every path from the entry, with the stack
 * and the registers' contents tracked symbolically.
 */
#include "dwarf/cfi.h"

#include <stdlib.h>
#include <string.h>

#include "sim/avr_decode.h"
#include "util/grow.h"

#define SLOTS 64          /* pushes tracked below the CFA: a prologue saves at most 35 */
#define IO_SPL 0x3d
#define IO_SPH 0x3e
#define IO_SREG 0x3f

/* What a register or a stack slot holds: the caller's rN (0..31), or: */
enum { T_SREG = 32, T_ZERO = 33, T_OTHER = 255 };

typedef struct state {
	uint8_t reached;
	uint8_t sp_ok;          /* dsp is CFA - SP */
	uint8_t y_ok;           /* dy is CFA - Y */
	uint8_t y_pending;      /* subi r28 done, its sbci/sbc r29 not yet */
	uint8_t sreg_callers;   /* SREG is the caller's (its I bit aside) */
	uint8_t sph_y, spl_y;   /* SP half-written from Y */
	int32_t dsp, dy, pend;
	int32_t ylo, yhi;       /* dsp when r28/r29 were read from SPL/SPH; -1 */
	uint8_t reg[32];
	uint8_t slot[SLOTS];    /* slot[d]: what lies at CFA - d */
} state;

struct cfi_table {
	growbuf rows;           /* of cfi_row, sorted by pc once all are in */
	unsigned pc_bytes;
	unsigned followed, failed;
};

static int push_row(cfi_table *t, const cfi_row *r)
{
	cfi_row *p = grow(&t->rows);
	if (!p)
		return -1;
	*p = *r;
	return 0;
}

static void entry_state(state *s, unsigned pc_bytes)
{
	memset(s, 0, sizeof *s);
	s->reached = 1;
	s->sp_ok = 1;
	s->dsp = (int32_t)pc_bytes;
	s->sreg_callers = 1;
	s->ylo = s->yhi = -1;
	for (unsigned r = 0; r < 32; r++)
		s->reg[r] = (uint8_t)r;
	memset(s->slot, T_OTHER, sizeof s->slot);
}

/* Registers an instruction writes, beyond those handled one by one. */
static uint32_t written(const avr_insn *in)
{
	uint32_t m = 0;
	switch (in->op) {
	case AVR_OP_ADD: case AVR_OP_ADC: case AVR_OP_SUB: case AVR_OP_SUBI: case AVR_OP_SBC:
	case AVR_OP_SBCI: case AVR_OP_AND: case AVR_OP_ANDI: case AVR_OP_OR: case AVR_OP_ORI:
	case AVR_OP_EOR: case AVR_OP_COM: case AVR_OP_NEG: case AVR_OP_INC: case AVR_OP_DEC:
	case AVR_OP_MOV: case AVR_OP_LDI: case AVR_OP_LD: case AVR_OP_LDD: case AVR_OP_LDS:
	case AVR_OP_IN: case AVR_OP_POP: case AVR_OP_LSR: case AVR_OP_ROR: case AVR_OP_ASR:
	case AVR_OP_SWAP: case AVR_OP_BLD: case AVR_OP_XCH: case AVR_OP_LAS: case AVR_OP_LAC:
	case AVR_OP_LAT: case AVR_OP_LPM: case AVR_OP_ELPM:
		m = in->rd >= 0 ? 1u << in->rd : 1u;   /* plain lpm: r0 */
		break;
	case AVR_OP_ADIW: case AVR_OP_SBIW: case AVR_OP_MOVW:
		m = 3u << in->rd;
		break;
	case AVR_OP_MUL: case AVR_OP_MULS: case AVR_OP_MULSU: case AVR_OP_FMUL:
	case AVR_OP_FMULS: case AVR_OP_FMULSU:
		m = 3u;
		break;
	case AVR_OP_DES:
		m = 0xffffu;
		break;
	case AVR_OP_CALL: case AVR_OP_RCALL: case AVR_OP_ICALL: case AVR_OP_EICALL:
		/* the callee may change every call-used register */
		m = 1u | 0x0ffc0000u | 0xc0000000u;
		break;
	default:
		break;
	}
	if (in->ptr && (in->ptr_mode == AVR_PTR_POSTINC || in->ptr_mode == AVR_PTR_PREDEC))
		m |= 3u << (in->ptr == 'X' ? 26 : in->ptr == 'Y' ? 28 : 30);
	return m;
}

/* Whether an instruction leaves SREG as it was (sei and cli count: the
 * I bit is not what the caller's SREG is read for). */
static int keeps_sreg(const avr_insn *in)
{
	switch (in->op) {
	case AVR_OP_NOP: case AVR_OP_MOV: case AVR_OP_MOVW: case AVR_OP_LDI: case AVR_OP_LD:
	case AVR_OP_LDD: case AVR_OP_LDS: case AVR_OP_ST: case AVR_OP_STD: case AVR_OP_STS:
	case AVR_OP_LPM: case AVR_OP_ELPM: case AVR_OP_IN: case AVR_OP_PUSH: case AVR_OP_POP:
	case AVR_OP_JMP: case AVR_OP_RJMP: case AVR_OP_IJMP: case AVR_OP_EIJMP: case AVR_OP_CPSE:
	case AVR_OP_SBRC: case AVR_OP_SBRS: case AVR_OP_SBIC: case AVR_OP_SBIS: case AVR_OP_BRBS:
	case AVR_OP_BRBC: case AVR_OP_SBI: case AVR_OP_CBI: case AVR_OP_SWAP: case AVR_OP_BLD:
	case AVR_OP_WDR: case AVR_OP_SLEEP:
		return 1;
	case AVR_OP_BSET: case AVR_OP_BCLR:
		return in->bit == 7;
	case AVR_OP_OUT:
		return in->io != IO_SREG;
	case AVR_OP_RCALL:
		return in->rel == 0;
	default:
		return 0;
	}
}

static int16_t wrap16(int32_t v)
{
	return (int16_t)(uint16_t)(uint32_t)v;
}

/* Whether a call to `target` is a call of a skip's copy (FW_SKIP_COPY_PREFIX),
 * which returns past the next instruction when it skips. */
static int skip_copy(const firmware *fw, uint32_t target)
{
	const fw_symbol *f = fw_code_symbol_at(fw, target);
	return f && f->addr == target &&
	       !strncmp(f->name, FW_SKIP_COPY_PREFIX, strlen(FW_SKIP_COPY_PREFIX));
}

/* The state after `in` runs in s (changed in place).  Returns 0, or -1
 * when the stack moves in a way not followed. */
static int step(state *s, const avr_insn *in, unsigned pc_bytes)
{
	uint32_t w = written(in);
	int sreg_kept = keeps_sreg(in);
	switch (in->op) {
	case AVR_OP_PUSH:
		if (!s->sp_ok)
			return -1;
		if (s->dsp < SLOTS)
			s->slot[s->dsp] = s->reg[in->rr];
		s->dsp++;
		break;
	case AVR_OP_POP:
		if (!s->sp_ok || s->dsp <= (int32_t)pc_bytes)
			return -1;
		s->dsp--;
		s->reg[in->rd] = s->dsp < SLOTS ? s->slot[s->dsp] : T_OTHER;
		if (s->dsp < SLOTS)
			s->slot[s->dsp] = T_OTHER;
		w &= ~(1u << in->rd);
		break;
	case AVR_OP_RCALL:
		if (in->rel == 0) {   /* rcall .+0: room for locals */
			if (!s->sp_ok)
				return -1;
			for (unsigned k = 0; k < pc_bytes; k++, s->dsp++)
				if (s->dsp < SLOTS)
					s->slot[s->dsp] = T_OTHER;
			w = 0;
		}
		break;
	case AVR_OP_IN:
		if (in->io == IO_SREG) {
			s->reg[in->rd] = s->sreg_callers ? T_SREG : T_OTHER;
			w = 0;
		} else if ((in->io == IO_SPL && in->rd == 28) || (in->io == IO_SPH && in->rd == 29)) {
			if (!s->sp_ok)
				return -1;
			*(in->rd == 28 ? &s->ylo : &s->yhi) = s->dsp;
			s->y_ok = s->ylo == s->dsp && s->yhi == s->dsp;
			s->dy = s->dsp;
			s->y_pending = 0;
			s->reg[in->rd] = T_OTHER;
			return 0;
		}
		break;
	case AVR_OP_OUT:
		if (in->io == IO_SREG) {
			s->sreg_callers = s->reg[in->rr] == T_SREG;
			return 0;
		}
		if (in->io == IO_SPL || in->io == IO_SPH) {
			int from_y = s->y_ok && !s->y_pending && in->rr == (in->io == IO_SPL ? 28 : 29);
			if (!from_y)
				return -1;
			*(in->io == IO_SPL ? &s->spl_y : &s->sph_y) = 1;
			s->sp_ok = 0;
			if (s->spl_y && s->sph_y) {
				s->spl_y = s->sph_y = 0;
				s->sp_ok = 1;
				s->dsp = s->dy;
				for (int32_t d = s->dsp < 0 ? 0 : s->dsp; d < SLOTS; d++)
					s->slot[d] = T_OTHER;  /* freed */
			}
			return 0;
		}
		break;
	case AVR_OP_EOR:
		if (in->rd == in->rr) {
			s->reg[in->rd] = T_ZERO;
			w &= ~(1u << in->rd);
		}
		break;
	case AVR_OP_SBIW: case AVR_OP_ADIW:
		if (in->rd == 28 && s->y_ok && !s->y_pending) {
			s->dy += in->op == AVR_OP_SBIW ? in->imm : -(int32_t)in->imm;
			s->reg[28] = s->reg[29] = T_OTHER;
			s->sreg_callers = 0;
			return 0;
		}
		break;
	case AVR_OP_SUBI:
		if (in->rd == 28 && s->y_ok && !s->y_pending) {
			s->y_pending = 1;
			s->pend = in->imm;
			s->reg[28] = T_OTHER;
			s->sreg_callers = 0;
			return 0;
		}
		break;
	case AVR_OP_SBCI: case AVR_OP_SBC:
		if (in->rd == 29 && s->y_pending &&
		    (in->op == AVR_OP_SBCI || (in->rr == 1 && (s->reg[1] == T_ZERO || s->reg[1] == 1)))) {
			int32_t hi = in->op == AVR_OP_SBCI ? in->imm : 0;
			s->dy = wrap16(s->dy + s->pend + 256 * hi);
			s->y_pending = 0;
			s->reg[29] = T_OTHER;
			s->sreg_callers = 0;
			return 0;
		}
		break;
	default:
		break;
	}
	if (w & (3u << 28)) {
		s->y_ok = s->y_pending = 0;
		s->ylo = s->yhi = -1;
	}
	for (unsigned r = 0; r < 32; r++)
		if (w & (1u << r))
			s->reg[r] = T_OTHER;
	if (!sreg_kept)
		s->sreg_callers = 0;
	return 0;
}

/* Meets `in` into `at` (a state already reached, or not).  Returns 1 when
 * `at` changed, 0 when not, -1 when the two frames disagree. */
static int meet(state *at, const state *in)
{
	if (!at->reached) {
		*at = *in;
		return 1;
	}
	if (at->sp_ok != in->sp_ok || (at->sp_ok && at->dsp != in->dsp) ||
	    at->spl_y != in->spl_y || at->sph_y != in->sph_y)
		return -1;
	int changed = 0;
	if (at->y_ok && (!in->y_ok || in->dy != at->dy || in->y_pending != at->y_pending ||
			 (at->y_pending && in->pend != at->pend))) {
		if (!at->sp_ok)
			return -1;
		at->y_ok = at->y_pending = 0;
		changed = 1;
	}
	if (at->ylo != in->ylo || at->yhi != in->yhi) {
		at->ylo = at->yhi = -1;
		changed |= at->y_ok;
		at->y_ok = 0;
	}
	if (at->sreg_callers && !in->sreg_callers) {
		at->sreg_callers = 0;
		changed = 1;
	}
	for (unsigned r = 0; r < 32; r++)
		if (at->reg[r] != in->reg[r] && at->reg[r] != T_OTHER) {
			at->reg[r] = T_OTHER;
			changed = 1;
		}
	for (unsigned d = 0; d < SLOTS; d++)
		if (at->slot[d] != in->slot[d] && at->slot[d] != T_OTHER) {
			at->slot[d] = T_OTHER;
			changed = 1;
		}
	return changed;
}

static void row_of(const state *s, uint32_t pc, uint32_t func, unsigned len, int interrupt,
		   cfi_row *r)
{
	memset(r, 0, sizeof *r);
	r->pc = pc;
	r->func = func;
	r->len = (uint8_t)len;
	r->interrupt = (uint8_t)interrupt;
	if (s->sp_ok) {
		r->base = CFI_SP;
		r->off = (int16_t)s->dsp;
	} else {
		r->base = CFI_Y;
		r->off = (int16_t)s->dy;
	}
	for (unsigned d = 0; d < SLOTS; d++) {
		uint8_t tag = s->slot[d];
		/* a pushed register is saved from its push on, as avr-gcc's
		 * CFI says, though it still holds the same value until changed */
		if (tag < 32 && !r->saved[tag])
			r->saved[tag] = (uint16_t)d;
		else if (tag == T_SREG && !s->sreg_callers && !r->saved[CFI_SREG])
			r->saved[CFI_SREG] = (uint16_t)d;
	}
	for (unsigned k = 0; k < 32 && !s->sreg_callers && !r->saved[CFI_SREG]; k++)
		if (s->reg[k] == T_SREG)
			r->sreg_in = (uint8_t)(k + 1);
}

static int has_row(const state *s)
{
	return s->reached && (s->sp_ok || (s->y_ok && !s->y_pending));
}

/* Follows the function [lo, hi) and adds its rows; 0, 1 when it cannot be
 * followed (no rows), -1 out of memory. */
static int follow(cfi_table *t, const firmware *fw, uint32_t lo, uint32_t hi, int interrupt)
{
	uint32_t n = (hi - lo) / 2;
	state *st = calloc(n ? n : 1, sizeof *st);
	uint32_t *work = malloc((n ? n : 1) * sizeof *work);
	if (!st || !work) {
		free(st);
		free(work);
		return -1;
	}
	unsigned nw = 0;
	entry_state(&st[0], t->pc_bytes);
	work[nw++] = lo;
	int bad = 0;
	while (nw && !bad) {
		uint32_t pc = work[--nw];
		avr_insn in;
		if (avr_decode(fw->flash, fw->flash_size, pc, &in) || in.op == AVR_OP_WORD)
			continue;
		state s = st[(pc - lo) / 2];
		if (step(&s, &in, t->pc_bytes)) {
			bad = 1;
			break;
		}
		uint32_t next = pc + 2u * in.words, succ[2];
		unsigned ns = 0;
		switch (in.op) {
		case AVR_OP_RET: case AVR_OP_RETI: case AVR_OP_IJMP: case AVR_OP_EIJMP:
			break;
		case AVR_OP_JMP: case AVR_OP_RJMP:
			succ[ns++] = in.target;   /* out of the function: a tail call */
			break;
		case AVR_OP_BRBS: case AVR_OP_BRBC:
			succ[ns++] = in.target;
			succ[ns++] = next;
			break;
		case AVR_OP_RCALL: case AVR_OP_CALL:   /* a skip's copy skips too */
		case AVR_OP_CPSE: case AVR_OP_SBRC: case AVR_OP_SBRS: case AVR_OP_SBIC:
		case AVR_OP_SBIS: {
			avr_insn skipped;
			succ[ns++] = next;
			if ((in.op != AVR_OP_RCALL && in.op != AVR_OP_CALL) || skip_copy(fw, in.target))
				if (!avr_decode(fw->flash, fw->flash_size, next, &skipped))
					succ[ns++] = next + 2u * skipped.words;
			break;
		}
		default:
			succ[ns++] = next;
			break;
		}
		for (unsigned k = 0; k < ns && !bad; k++) {
			if (succ[k] < lo || succ[k] >= hi || (succ[k] & 1))
				continue;
			int m = meet(&st[(succ[k] - lo) / 2], &s);
			if (m < 0)
				bad = 1;
			else if (m && nw < n)
				work[nw++] = succ[k];
		}
	}
	int rc = 0;
	if (bad) {
		t->failed++;
		rc = 1;
	} else {
		t->followed++;
		for (uint32_t i = 0; i < n && !rc; i++) {
			avr_insn in;
			uint32_t pc = lo + 2 * i;
			if (!has_row(&st[i]) || avr_decode(fw->flash, fw->flash_size, pc, &in))
				continue;
			cfi_row r;
			row_of(&st[i], pc, lo, 2u * in.words, interrupt, &r);
			if (push_row(t, &r))
				rc = -1;
		}
	}
	free(st);
	free(work);
	return rc;
}

/* The vector table's slots past the reset vector: the instruction there
 * runs with the interrupt just taken, its return address on top. */
static int vector_slots(cfi_table *t, const firmware *fw)
{
	avr_insn in;
	if (avr_decode(fw->flash, fw->flash_size, 0, &in) ||
	    (in.op != AVR_OP_JMP && in.op != AVR_OP_RJMP))
		return 0;
	uint32_t slot = 2u * in.words, end = fw->code_end;
	for (size_t i = 0; i < fw->nsyms; i++)
		if (fw->syms[i].space == FW_SYM_CODE && fw->syms[i].addr > 0 &&
		    fw->syms[i].addr < end)
			end = fw->syms[i].addr;
	for (uint32_t pc = slot; pc + slot <= end; pc += slot) {
		if (avr_decode(fw->flash, fw->flash_size, pc, &in) ||
		    (in.op != AVR_OP_JMP && in.op != AVR_OP_RJMP))
			break;
		cfi_row r;
		memset(&r, 0, sizeof r);
		r.pc = pc;
		r.len = (uint8_t)slot;
		r.base = CFI_SP;
		r.off = (int16_t)t->pc_bytes;
		r.interrupt = 1;
		if (push_row(t, &r))
			return -1;
	}
	return 0;
}

static int by_pc(const void *a, const void *b)
{
	const cfi_row *x = a, *y = b;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

int cfi_build(const firmware *fw, unsigned pc_bytes, cfi_table **out, avrr_err *err)
{
	cfi_table *t = calloc(1, sizeof *t);
	if (!t)
		return avrr_errf(err, "out of memory");
	t->pc_bytes = pc_bytes;
	t->rows.size = sizeof(cfi_row);
	int rc = vector_slots(t, fw);
	uint32_t last = UINT32_MAX;
	/* Symbols are sorted by address: an alias (work.constprop.0 beside
	 * work, ISR_ALIASOF) is followed once. */
	for (size_t i = 0; i < fw->nsyms && rc >= 0; i++) {
		const fw_symbol *s = &fw->syms[i];
		/* libgcc's routines are NOTYPE symbols with a size */
		if (s->space != FW_SYM_CODE || s->size < 2 || s->addr == last ||
		    s->addr + s->size > fw->flash_size)
			continue;
		last = s->addr;
		int isr = 0;
		for (size_t j = i; j < fw->nsyms && fw->syms[j].addr == s->addr; j++)
			isr |= fw->syms[j].space == FW_SYM_CODE &&
			       !strncmp(fw->syms[j].name, "__vector_", 9);
		rc = follow(t, fw, s->addr, s->addr + s->size, isr);
	}
	if (rc < 0) {
		cfi_free(t);
		return avrr_errf(err, "out of memory");
	}
	qsort(t->rows.items, t->rows.n, sizeof(cfi_row), by_pc);
	*out = t;
	return 0;
}

void cfi_free(cfi_table *t)
{
	if (!t)
		return;
	free(t->rows.items);
	free(t);
}

const cfi_row *cfi_at(const cfi_table *t, uint32_t pc)
{
	const cfi_row *rows = t ? t->rows.items : NULL;
	size_t lo = 0, hi = t ? t->rows.n : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const cfi_row *r = &rows[lo - 1];
	return pc < r->pc + r->len ? r : NULL;
}

const cfi_row *cfi_rows(const cfi_table *t, unsigned *n)
{
	*n = (unsigned)t->rows.n;
	return t->rows.items;
}

void cfi_counts(const cfi_table *t, unsigned *followed, unsigned *failed)
{
	*followed = t->followed;
	*failed = t->failed;
}

unsigned cfi_pc_bytes(const cfi_table *t)
{
	return t->pc_bytes;
}
