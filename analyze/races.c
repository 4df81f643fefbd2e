/* races.c — ISR/main race detection on the replay (see races.h). */
#include "analyze/races.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/members.h"
#include "util/grow.h"

#define SPAN_GAP 8          /* a context's instructions between two halves, at most */
#define SITE_WITNESSES 64   /* witnesses kept per non-atomic access site */
#define MAX_GATES 128       /* vectors with an enable bit of their own, at most */

/* A set of vectors, one bit each. */
typedef struct vecset {
	uint64_t w[4];
} vecset;

static void vs_or(vecset *a, const vecset *b)
{
	for (unsigned i = 0; i < 4; i++)
		a->w[i] |= b->w[i];
}

static int vs_has(const vecset *a, unsigned v)
{
	return (int)(a->w[v >> 6] >> (v & 63) & 1);
}

/* A vector's source switch: it can interrupt only while (data[addr] &
 * mask) is non-zero, and for a pin-change group also its PCMSKn. */
typedef struct gate {
	uint8_t vector, mask;
	uint16_t addr;
	int pcmsk;                  /* PCMSKn's address, or -1 */
} gate;

/* One context's use of one variable. */
typedef struct use {
	uint8_t ctx, reads, writes;
	uint32_t read_pc, write_pc;  /* the first of each */
} use;

/* A variable as races are judged: a scalar member or element of a data
 * symbol (from DWARF), or the whole symbol when its type is not known. */
typedef struct var {
	char name[AN_RACE_NAME];    /* "Serial._rx_buffer_head" */
	uint32_t addr, size;
	use *uses;
	unsigned nuses;
} var;

/* A non-atomic access, by where it happened. */
typedef struct site {
	uint32_t var, first_pc, second_pc;
	uint8_t ctx, multi, writes, rmw;
	uint64_t occurrences;
	uint8_t wvec[SITE_WITNESSES];
	uint64_t wicount[SITE_WITNESSES];
	unsigned nw;
	uint64_t wcount[256];       /* witnesses per interrupting vector */
	vecset open;                /* vectors enabled at a gap, some time it ran */
} site;

/* The access a context has under way. */
typedef struct span {
	uint32_t var;               /* index + 1; 0 = none */
	uint64_t last;              /* the context's instruction count at its last half */
	uint64_t read_mask, write_mask, rmw;
	int gap_open;               /* a boundary with I set since the last half */
	vecset pend;                /* vectors enabled at those boundaries */
	vecset open;                /* vectors enabled at a boundary between halves */
	int split;
	uint32_t first_pc, second_pc, last_pc;
	uint8_t pvec[4];            /* interrupts since the last half */
	uint64_t picount[4];
	unsigned np;
	uint8_t wvec[SITE_WITNESSES];
	uint64_t wicount[SITE_WITNESSES];
	unsigned nw;
} span;

typedef struct races {
	an_session *a;
	var *vars;
	size_t nvars;
	uint32_t *var_at;           /* per data address: var index + 1, or 0 */
	uint32_t data_size;
	span spans[256];
	uint64_t insns[256];        /* instructions retired per context */
	uint8_t i_after[256];       /* I after the context's last instruction */
	vecset en_after[256];       /* vectors enabled then (while a span is open) */
	gate gates[MAX_GATES];
	unsigned ngates;
	/* The gates' registers as last read, and the vectors they enabled:
	 * recomputed only when one of those bytes changed (they rarely do,
	 * and a span reads them at every instruction). */
	const uint8_t *data;
	uint16_t regs[2 * MAX_GATES];
	uint8_t snap[2 * MAX_GATES];
	unsigned nregs;
	vecset enabled;
	uint8_t stack[TRACE_MAX_NESTING + 1];  /* running contexts, innermost last */
	unsigned depth;
	growbuf sites;              /* site */
	int oom;
} races;

static unsigned running(const races *x)
{
	return x->depth ? x->stack[x->depth - 1] : 0;
}

/* x->enabled from the gates' registers: all vectors but those shut. */
static void apply_gates(races *x)
{
	memset(&x->enabled, 0xff, sizeof x->enabled);
	for (unsigned i = 0; i < x->ngates; i++) {
		const gate *g = &x->gates[i];
		if (!(x->data[g->addr] & g->mask) || (g->pcmsk >= 0 && !x->data[g->pcmsk]))
			x->enabled.w[g->vector >> 6] &= ~(1ull << (g->vector & 63));
	}
}

/* The vectors whose sources are enabled now. */
static void enabled_now(races *x, vecset *out)
{
	int changed = 0;
	for (unsigned r = 0; r < x->nregs; r++)
		if (x->data[x->regs[r]] != x->snap[r]) {
			x->snap[r] = x->data[x->regs[r]];
			changed = 1;
		}
	if (changed)
		apply_gates(x);
	*out = x->enabled;
}

static void add_reg(races *x, int addr)
{
	for (unsigned r = 0; r < x->nregs; r++)
		if (x->regs[r] == addr)
			return;
	x->regs[x->nregs] = (uint16_t)addr;
	x->snap[x->nregs++] = x->data[addr];
}

/* Reads the MCU's enable bit of each vector (simavr's description of the
 * part: TIMSKn, EIMSK, PCICR, UCSRnB, SPCR, TWCR, ADCSRA, EECR, WDTCSR,
 * ACSR ...); a pin-change group is also shut while its PCMSKn is 0. */
static void find_gates(races *x)
{
	/* SREG is no gate, so only the data space's address is kept: the
	 * simulator's own array, for its whole life. */
	x->data = sim_live_data(x->a->s);
	for (unsigned v = 1; v < 256 && x->ngates < MAX_GATES; v++) {
		gate g = { .vector = (uint8_t)v, .pcmsk = -1 };
		if (sim_vector_enable(x->a->s, (uint8_t)v, &g.addr, &g.mask) ||
		    g.addr >= x->data_size)
			continue;
		const char *name = sim_vector_name(x->a->s, (uint8_t)v);
		unsigned n;
		char reg[16];
		if (name && sscanf(name, "PCINT%u_vect", &n) == 1) {
			snprintf(reg, sizeof reg, "PCMSK%u", n);
			g.pcmsk = sim_ioreg_addr(x->a->s, reg);
		} else if (name && !strcmp(name, "PCINT_vect")) {
			g.pcmsk = sim_ioreg_addr(x->a->s, "PCMSK");
		}
		if (g.pcmsk >= (int)x->data_size)
			g.pcmsk = -1;
		x->gates[x->ngates++] = g;
		add_reg(x, g.addr);
		if (g.pcmsk >= 0)
			add_reg(x, g.pcmsk);
	}
	apply_gates(x);
}

static void note_use(races *x, var *v, unsigned ctx, int write, uint32_t pc)
{
	use *u = NULL;
	for (unsigned i = 0; i < v->nuses && !u; i++)
		if (v->uses[i].ctx == ctx)
			u = &v->uses[i];
	if (!u) {
		use *p = realloc(v->uses, (v->nuses + 1) * sizeof *p);
		if (!p) {
			x->oom = 1;
			return;
		}
		v->uses = p;
		u = &p[v->nuses++];
		*u = (use){ .ctx = (uint8_t)ctx };
	}
	if (write && !u->writes++)
		u->write_pc = pc;
	if (!write && !u->reads++)
		u->read_pc = pc;
}

/* Ends context ctx's access; a non-atomic one is counted at its site. */
static void close_span(races *x, unsigned ctx)
{
	span *sp = &x->spans[ctx];
	uint64_t bytes = sp->read_mask | sp->write_mask;
	int multi = (bytes & (bytes - 1)) != 0;
	if (sp->var && sp->split && (multi || sp->rmw)) {
		site *st = NULL, *sites = x->sites.items;
		for (size_t i = 0; i < x->sites.n && !st; i++)
			if (sites[i].var == sp->var && sites[i].ctx == ctx &&
			    sites[i].first_pc == sp->first_pc && sites[i].second_pc == sp->second_pc)
				st = &sites[i];
		if (!st) {
			if (!(st = grow(&x->sites))) {
				x->oom = 1;
				memset(sp, 0, sizeof *sp);
				return;
			}
			*st = (site){ .var = sp->var, .first_pc = sp->first_pc,
				      .second_pc = sp->second_pc, .ctx = (uint8_t)ctx };
		}
		st->occurrences++;
		st->multi |= (uint8_t)multi;
		st->writes |= sp->write_mask != 0;
		st->rmw |= sp->rmw != 0;
		vs_or(&st->open, &sp->open);
		for (unsigned i = 0; i < sp->nw; i++) {
			st->wcount[sp->wvec[i]]++;
			if (st->nw < SITE_WITNESSES) {
				st->wvec[st->nw] = sp->wvec[i];
				st->wicount[st->nw++] = sp->wicount[i];
			}
		}
	}
	memset(sp, 0, sizeof *sp);
}

static void on_insn(void *ud, uint32_t pc, uint32_t cycles)
{
	(void)pc;
	(void)cycles;
	races *x = ud;
	unsigned ctx = running(x);
	span *sp = &x->spans[ctx];
	x->insns[ctx]++;
	/* The boundary before this instruction could take an interrupt if I
	 * was set after the context's previous one. */
	sp->gap_open |= x->i_after[ctx];
	if (x->i_after[ctx])
		vs_or(&sp->pend, &x->en_after[ctx]);
	x->i_after[ctx] = (uint8_t)sim_interrupts_enabled(x->a->s);
	if (sp->var && x->insns[ctx] - sp->last > SPAN_GAP)
		close_span(x, ctx);
	/* Only a span's gaps are judged: the sources are read there alone. */
	if (sp->var && x->i_after[ctx])
		enabled_now(x, &x->en_after[ctx]);
}

static void on_sram(void *ud, const rp_access *acc)
{
	races *x = ud;
	uint32_t vi = acc->addr < x->data_size ? x->var_at[acc->addr] : 0;
	if (!vi)
		return;
	unsigned ctx = running(x);
	var *v = &x->vars[vi - 1];
	note_use(x, v, ctx, acc->write, acc->pc);
	span *sp = &x->spans[ctx];
	uint64_t bit = 1ull << ((acc->addr - v->addr) & 63);
	if (sp->var && (sp->var != vi || (acc->write ? sp->write_mask : sp->read_mask) & bit))
		close_span(x, ctx);
	if (!sp->var) {
		*sp = (span){ .var = vi, .first_pc = acc->pc };
		if (x->i_after[ctx])
			enabled_now(x, &x->en_after[ctx]);
	} else {
		if (sp->gap_open && !sp->split) {
			sp->split = 1;
			sp->first_pc = sp->last_pc;
			sp->second_pc = acc->pc;
		}
		if (sp->gap_open)
			vs_or(&sp->open, &sp->pend);
		/* Interrupts taken since the last half came between two. */
		for (unsigned i = 0; i < sp->np && sp->nw < SITE_WITNESSES; i++) {
			sp->wvec[sp->nw] = sp->pvec[i];
			sp->wicount[sp->nw++] = sp->picount[i];
		}
	}
	if (acc->write && (sp->read_mask & bit))
		sp->rmw |= bit;
	*(acc->write ? &sp->write_mask : &sp->read_mask) |= bit;
	sp->np = 0;
	sp->gap_open = 0;
	sp->pend = (vecset){ { 0 } };
	sp->last = x->insns[ctx];
	sp->last_pc = acc->pc;
}

static void on_irq(void *ud, uint8_t vector, uint32_t ra)
{
	(void)ra;
	races *x = ud;
	span *sp = &x->spans[running(x)];
	if (sp->var && sp->np < 4) {
		sp->pvec[sp->np] = vector;
		sp->picount[sp->np++] = x->a->s->icount;
	}
	if (x->depth < sizeof x->stack)
		x->stack[x->depth++] = vector;
	x->i_after[vector] = 0;  /* entry clears I */
}

static void on_reti(void *ud, uint8_t vector)
{
	races *x = ud;
	(void)vector;
	close_span(x, running(x));
	if (x->depth)
		x->depth--;
}

/* Whether a site races with context u's use of the variable: u must be
 * an ISR (main never preempts one) other than the site's own, whose
 * source was enabled at a gap of the access some time it ran. */
static int conflicts(const site *st, const use *u)
{
	if (!u->ctx || u->ctx == st->ctx || !vs_has(&st->open, u->ctx))
		return 0;
	return st->multi ? st->writes || u->writes : u->writes != 0;
}

static int by_witness_then_addr(const void *pa, const void *pb)
{
	const an_race *a = pa, *b = pb;
	if (!a->nwitnesses != !b->nwitnesses)
		return a->nwitnesses ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->first_pc < b->first_pc ? -1 : a->first_pc > b->first_pc;
}

static int report(races *x, an_race **out, size_t *n, avrr_err *err)
{
	growbuf found = { .size = sizeof(an_race) };
	const site *sites = x->sites.items;
	for (size_t i = 0; i < x->sites.n; i++) {
		const site *st = &sites[i];
		const var *v = &x->vars[st->var - 1];
		for (unsigned k = 0; k < v->nuses; k++) {
			const use *u = &v->uses[k];
			if (!conflicts(st, u))
				continue;
			an_race *r = grow(&found);
			if (!r) {
				free(found.items);
				return avrr_errf(err, "out of memory");
			}
			memset(r, 0, sizeof *r);
			snprintf(r->variable, sizeof r->variable, "%s", v->name);
			r->addr = (uint16_t)v->addr;
			r->size = v->size;
			r->kind = st->rmw ? "read-modify-write" : st->writes ? "split write" : "split read";
			r->ctx = st->ctx;
			r->first_pc = st->first_pc;
			r->second_pc = st->second_pc;
			r->occurrences = st->occurrences;
			r->other_ctx = u->ctx;
			r->other_writes = u->writes != 0;
			r->other_pc = u->writes ? u->write_pc : u->read_pc;
			r->witness_count = st->wcount[u->ctx];
			for (unsigned w = 0; w < st->nw && r->nwitnesses < AN_MAX_WITNESSES; w++)
				if (st->wvec[w] == u->ctx)
					r->witnesses[r->nwitnesses++] = st->wicount[w];
		}
	}
	if (found.n)
		qsort(found.items, found.n, sizeof(an_race), by_witness_then_addr);
	*out = found.items;
	*n = found.n;
	return 0;
}

int an_races(an_session *a, void (*progress)(void *ud, uint64_t done, uint64_t total),
	     void *ud, an_race **out, size_t *n, avrr_err *err)
{
	races x = { .a = a, .data_size = a->s->data_size, .sites = { .size = sizeof(site) } };
	src_members mem = { 0 };
	int rc = -1;
	if (members_load(a->fw, &mem, err))
		return -1;
	find_gates(&x);
	x.var_at = calloc(x.data_size, sizeof *x.var_at);
	/* At most one variable per data byte. */
	x.vars = calloc(x.data_size + 1, sizeof *x.vars);
	if (!x.var_at || !x.vars) {
		avrr_errf(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < a->fw->nsyms; i++) {
		const fw_symbol *sym = &a->fw->syms[i];
		if (sym->space != FW_SYM_DATA || !sym->size || sym->addr >= x.data_size ||
		    sym->size > x.data_size - sym->addr)
			continue;
		/* Judged per member: two members are two variables (the RX ISR
		 * writing a ring buffer's head races with nobody reading its
		 * tail), and bytes no member covers stay the symbol's. */
		size_t nm;
		const src_member *m = members_in(&mem, sym->addr, sym->size, &nm);
		for (size_t k = 0; k <= nm; k++) {
			uint32_t addr = k < nm ? m[k].addr : sym->addr;
			uint32_t size = k < nm ? m[k].size : sym->size;
			var *v = &x.vars[x.nvars];
			int fresh = 0;
			for (uint32_t b = addr; b < addr + size; b++)
				fresh |= !x.var_at[b];
			if (!fresh || x.nvars == x.data_size)
				continue;
			snprintf(v->name, sizeof v->name, "%s%s", sym->name, k < nm ? m[k].path : "");
			v->addr = addr;
			v->size = size;
			x.nvars++;
			for (uint32_t b = addr; b < addr + size; b++)
				if (!x.var_at[b])
					x.var_at[b] = (uint32_t)x.nvars;
		}
	}
	rp_observer o = { .ud = &x, .on_insn = on_insn, .on_sram = on_sram, .on_irq = on_irq,
			  .on_reti = on_reti };
	if (rp_observe(a->r, &o, err) || an_run(a, progress, ud, err))
		goto out;
	for (unsigned c = 0; c < 256; c++)
		close_span(&x, c);
	if (x.oom) {
		avrr_errf(err, "out of memory");
		goto out;
	}
	rc = report(&x, out, n, err);
out:
	rp_unobserve(a->r, &x);
	for (size_t i = 0; i < x.nvars; i++)
		free(x.vars[i].uses);
	free(x.vars);
	free(x.var_at);
	free(x.sites.items);
	members_free(&mem);
	return rc;
}
