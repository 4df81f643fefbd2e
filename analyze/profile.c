/* profile.c — cycles per function and per ISR on the replay (see profile.h). */
#include "analyze/profile.h"

#include "sim/avr_decode.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

enum { NEXT_NONE, NEXT_CALL, NEXT_RET, NEXT_ENTER };

/* A node of the call tree: one function reached by one path. */
typedef struct node {
	uint32_t fn, parent, child, sibling;  /* sibling/child 0: none (0 is the root) */
	uint64_t self, incl;
} node;

typedef struct frame {        /* an interrupted context, settled (no call or return pending) */
	uint32_t cur;
	uint8_t vector;
	uint64_t entered;
} frame;

typedef struct prof {
	an_session *a;
	uint32_t nfn;                 /* code symbols; fn ids past them name contexts */
	uint32_t *fn_of;              /* per flash word */
	uint8_t *kind;                /* per flash word: NEXT_CALL, NEXT_RET or 0 */
	uint32_t words;
	growbuf tree;                 /* node; 0 is the root */
	uint32_t ctx_root[256];
	uint32_t cur;
	uint8_t next;
	frame stack[TRACE_MAX_NESTING + 1];
	unsigned depth;
	uint64_t *calls;              /* per fn id */
	uint64_t count[256], raised[256];
	growbuf latency[256], duration[256];  /* uint64_t cycles */
	uint64_t insn_cycles;
	uint16_t lowest_sp;
	uint64_t lowest_icount;
	uint32_t lowest_path[TRACE_MAX_NESTING * 4];
	size_t nlowest;
	int lowest_unsettled;         /* lowest_path waits for the pending call or return */
	int oom;
} prof;

#define NODE(p) ((node *)(p)->tree.items)

static void push64(prof *p, growbuf *g, uint64_t v)
{
	uint64_t *x = grow(g);
	if (x)
		*x = v;
	else
		p->oom = 1;
}

/* The child of `parent` for function fn, made on first use. */
static uint32_t child(prof *p, uint32_t parent, uint32_t fn)
{
	for (uint32_t c = NODE(p)[parent].child; c; c = NODE(p)[c].sibling)
		if (NODE(p)[c].fn == fn)
			return c;
	node *x = grow(&p->tree);
	if (!x) {
		p->oom = 1;
		return parent;
	}
	*x = (node){ .fn = fn, .parent = parent, .sibling = NODE(p)[parent].child };
	return NODE(p)[parent].child = (uint32_t)(p->tree.n - 1);
}

static int is_context_root(const prof *p, uint32_t n)
{
	return NODE(p)[n].fn >= p->nfn;
}

/* The innermost-first path of node n up to its context's root (included). */
static void append_path(prof *p, uint32_t n)
{
	for (; n && p->nlowest < sizeof p->lowest_path / sizeof *p->lowest_path;
	     n = is_context_root(p, n) ? 0 : NODE(p)[n].parent)
		if (n != p->ctx_root[0])  /* main's functions say it */
			p->lowest_path[p->nlowest++] = n;
}

static uint32_t fn_at(const prof *p, uint32_t pc)
{
	return p->fn_of[(pc >> 1) < p->words ? pc >> 1 : 0];
}

/* The backtrace of the lowest SP: p->cur's path, then the interrupted
 * contexts'. */
static void take_path(prof *p)
{
	p->nlowest = 0;
	append_path(p, p->cur);
	for (unsigned d = p->depth; d-- > 0;)
		append_path(p, p->stack[d].cur);
	p->lowest_unsettled = 0;
}

/* A CALL or RET takes effect where the next instruction runs: the function
 * it enters is known only from that instruction's address, fn.  Called
 * before it runs, or before an interrupt is taken ahead of it, so that the
 * frame an ISR interrupts, and the one the stack's deepest point is
 * charged to, is the function that resumes there (the callee of a CALL
 * just made, the caller of a RET), as the shell's `where` shows it. */
static void settle(prof *p, uint32_t fn)
{
	if (p->next == NEXT_CALL || p->next == NEXT_ENTER) {
		p->cur = child(p, p->cur, fn);
		if (p->next == NEXT_CALL)
			p->calls[fn]++;
	} else if (p->next == NEXT_RET && !is_context_root(p, NODE(p)[p->cur].parent)) {
		p->cur = NODE(p)[p->cur].parent;
	}
	if (NODE(p)[p->cur].fn != fn && !is_context_root(p, p->cur))
		p->cur = child(p, NODE(p)[p->cur].parent, fn);  /* jumped into another symbol */
	p->next = NEXT_NONE;
	if (p->lowest_unsettled)
		take_path(p);
}

static void on_insn(void *ud, uint32_t pc, uint32_t cycles)
{
	prof *p = ud;
	uint32_t w = (pc >> 1) < p->words ? pc >> 1 : 0;
	settle(p, p->fn_of[w]);
	NODE(p)[p->cur].self += cycles;
	p->insn_cycles += cycles;
	p->next = p->kind[w];
	uint16_t sp = sim_sp(p->a->s);
	const sim *s = p->a->s;
	if (sp < p->lowest_sp && sp >= 0x60 && sp < sim_data_size(s)) {
		p->lowest_sp = sp;
		p->lowest_icount = sim_icount(s);
		/* After a CALL the return address on the stack is the callee's
		 * frame, which the next instruction (or interrupt) settles. */
		p->lowest_unsettled = 1;
		if (p->next == NEXT_NONE)
			take_path(p);
	}
}

static void on_raise(void *ud, uint8_t vector)
{
	prof *p = ud;
	p->raised[vector] = sim_cycle(p->a->s) + 1;  /* 0: not raised */
}

static void on_irq(void *ud, uint8_t vector, uint32_t ra)
{
	prof *p = ud;
	settle(p, fn_at(p, ra));  /* the interrupted context resumes at ra */
	uint64_t now = sim_cycle(p->a->s);
	p->count[vector]++;
	if (p->raised[vector]) {
		push64(p, &p->latency[vector], now - (p->raised[vector] - 1));
		p->raised[vector] = 0;
	}
	if (p->depth < sizeof p->stack / sizeof *p->stack)
		p->stack[p->depth++] = (frame){ .cur = p->cur, .vector = vector, .entered = now };
	p->cur = p->ctx_root[vector];
	p->next = NEXT_ENTER;
}

static void on_reti(void *ud, uint8_t vector)
{
	(void)vector;
	prof *p = ud;
	if (!p->depth)
		return;
	frame *f = &p->stack[--p->depth];
	push64(p, &p->duration[f->vector], sim_cycle(p->a->s) - f->entered);
	p->cur = f->cur;
	p->next = NEXT_NONE;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static an_spread spread(growbuf *g)
{
	uint64_t *v = g->items;
	if (!g->n)
		return (an_spread){ 0 };
	qsort(v, g->n, sizeof *v, by_u64);
	return (an_spread){ .n = g->n, .min = v[0], .median = v[(g->n - 1) / 2], .max = v[g->n - 1] };
}

static int by_self(const void *a, const void *b)
{
	const an_func *x = a, *y = b;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Names of fn ids: code symbols, then "main" and each vector's name. */
typedef struct names {
	const char **fn;
	char ctx[256][48];
} names;

static const char *fn_name(const prof *p, const names *nm, uint32_t fn)
{
	return fn < p->nfn ? nm->fn[fn] : nm->ctx[fn - p->nfn];
}

static int fill(prof *p, an_profile *out, names *nm, avrr_err *err)
{
	/* Inclusive cycles: a child is always made after its parent. */
	for (size_t n = p->tree.n; n-- > 1;) {
		NODE(p)[n].incl += NODE(p)[n].self;
		NODE(p)[NODE(p)[n].parent].incl += NODE(p)[n].incl;
	}
	uint64_t *self = calloc(p->nfn + 1, sizeof *self), *total = calloc(p->nfn + 1, sizeof *total);
	if (!self || !total) {
		free(self);
		free(total);
		return avrr_errf(err, "out of memory");
	}
	for (size_t n = 1; n < p->tree.n; n++) {
		const node *x = &NODE(p)[n];
		if (x->fn >= p->nfn)
			continue;
		self[x->fn] += x->self;
		int outer = 1;  /* recursion: counted at its outermost call */
		for (uint32_t up = x->parent; up && !is_context_root(p, up) && outer;
		     up = NODE(p)[up].parent)
			outer = NODE(p)[up].fn != x->fn;
		if (outer)
			total[x->fn] += x->incl;
	}
	size_t k = 0;
	for (uint32_t f = 0; f < p->nfn; f++)
		k += total[f] > 0 || p->calls[f] > 0;
	out->funcs = calloc(k + 1, sizeof *out->funcs);
	k = 0;
	for (uint32_t f = 0; out->funcs && f < p->nfn; f++)
		if (total[f] || p->calls[f])
			out->funcs[k++] = (an_func){ .name = nm->fn[f], .self = self[f],
						     .total = total[f], .calls = p->calls[f] };
	free(self);
	free(total);
	if (!out->funcs)
		return avrr_errf(err, "out of memory");
	out->nfuncs = k;
	qsort(out->funcs, k, sizeof *out->funcs, by_self);

	size_t nv = 0;
	for (unsigned v = 1; v < 256; v++)
		nv += p->count[v] > 0;
	if (!(out->vectors = calloc(nv + 1, sizeof *out->vectors)))
		return avrr_errf(err, "out of memory");
	for (unsigned v = 1; v < 256; v++) {
		if (!p->count[v])
			continue;
		an_vector *x = &out->vectors[out->nvectors++];
		x->vector = (uint8_t)v;
		snprintf(x->name, sizeof x->name, "%s", nm->ctx[v]);
		x->count = p->count[v];
		x->latency = spread(&p->latency[v]);
		x->duration = spread(&p->duration[v]);
		const node *root = &NODE(p)[p->ctx_root[v]];
		x->total = root->incl;
		for (uint32_t c = root->child; c; c = NODE(p)[c].sibling)
			x->self += NODE(p)[c].self;
	}
	out->instruction_cycles = p->insn_cycles;
	out->cycles = sim_cycle(p->a->s);
	out->stack_lowest_sp = p->lowest_sp;
	uint32_t size = sim_data_size(p->a->s);
	out->stack_bytes = p->lowest_sp < size ? size - 1 - p->lowest_sp : 0;
	out->stack_icount = p->lowest_icount;
	if (!(out->backtrace = calloc(p->nlowest + 1, sizeof *out->backtrace)))
		return avrr_errf(err, "out of memory");
	for (size_t i = 0; i < p->nlowest; i++) {
		const char *name = fn_name(p, nm, NODE(p)[p->lowest_path[i]].fn);
		/* main is the outermost frame, as the shell's `where` says: its
		 * caller is avr-libc's start-up, whose nearest label
		 * (__do_clear_bss, __do_global_ctors) no one wrote. */
		if (i == p->nlowest - 1 && i > 0 && !strcmp(out->backtrace[i - 1], "main"))
			break;
		out->backtrace[out->nbacktrace++] = (char *)name;
	}
	return 0;
}

/* What an_profile keeps for folded stacks and names. */
typedef struct kept {
	prof p;
	names nm;
} kept;

static void free_prof(prof *p)
{
	free(p->fn_of);
	free(p->kind);
	free(p->tree.items);
	free(p->calls);
	for (unsigned v = 0; v < 256; v++) {
		free(p->latency[v].items);
		free(p->duration[v].items);
	}
}

static uint8_t next_of(uint16_t op)
{
	return avr_word_is_call(op) ? NEXT_CALL : avr_word_is_ret(op) ? NEXT_RET : NEXT_NONE;
}

int an_profile_run(an_session *a, void (*progress)(void *ud, uint64_t done, uint64_t total),
		   void *ud, an_profile *out, avrr_err *err)
{
	memset(out, 0, sizeof *out);
	kept *k = calloc(1, sizeof *k);
	if (!k)
		return avrr_errf(err, "out of memory");
	out->priv = k;
	prof *p = &k->p;
	const firmware *fw = a->fw;
	p->a = a;
	p->nfn = (uint32_t)fw->nsyms + 1;   /* the last: no symbol */
	p->words = fw->flash_size / 2 + 1;
	p->fn_of = calloc(p->words, sizeof *p->fn_of);
	p->kind = calloc(p->words, 1);
	p->calls = calloc(p->nfn + 256, sizeof *p->calls);
	k->nm.fn = calloc(p->nfn, sizeof *k->nm.fn);
	p->tree.size = sizeof(node);
	for (unsigned v = 0; v < 256; v++)
		p->latency[v].size = p->duration[v].size = sizeof(uint64_t);
	node *root = grow(&p->tree);
	if (!p->fn_of || !p->kind || !p->calls || !k->nm.fn || !root) {
		an_profile_free(out);
		return avrr_errf(err, "out of memory");
	}
	for (size_t i = 0; i < fw->nsyms; i++)
		k->nm.fn[i] = fw->syms[i].name;
	k->nm.fn[fw->nsyms] = "??";
	for (uint32_t w = 0; w < p->words; w++) {
		const fw_symbol *sym = fw_code_symbol_at(fw, 2 * w);
		p->fn_of[w] = sym ? (uint32_t)(sym - fw->syms) : (uint32_t)fw->nsyms;
		if (2 * w + 1 < fw->flash_size)
			p->kind[w] = next_of((uint16_t)(fw->flash[2 * w] | fw->flash[2 * w + 1] << 8));
	}
	*root = (node){ 0 };
	for (unsigned v = 0; v < 256; v++) {
		an_context_name(a, v, k->nm.ctx[v], sizeof k->nm.ctx[v]);
		p->ctx_root[v] = child(p, 0, p->nfn + v);
	}
	p->cur = p->ctx_root[0];
	p->next = NEXT_ENTER;
	p->lowest_sp = UINT16_MAX;
	rp_observer o = { .ud = p, .on_insn = on_insn, .on_raise = on_raise, .on_irq = on_irq,
			  .on_reti = on_reti };
	int rc = rp_observe(a->r, &o, err) || an_run(a, progress, ud, err) ? -1 : 0;
	rp_unobserve(a->r, p);
	/* A run that ends on a CALL made it (and its return address may be
	 * the deepest point). */
	if (!rc && p->next != NEXT_NONE)
		settle(p, fn_at(p, sim_pc(a->s)));
	if (!rc && p->oom)
		rc = avrr_errf(err, "out of memory");
	if (!rc)
		rc = fill(p, out, &k->nm, err);
	if (rc)
		an_profile_free(out);
	return rc;
}

/* Writes node n's path from its context's root, ';'-separated. */
static void write_path(const prof *p, const names *nm, uint32_t n, FILE *f)
{
	uint32_t path[1024];
	size_t len = 0;
	for (; n && len < 1024; n = NODE(p)[n].parent)
		path[len++] = n;
	int first = 1;
	while (len-- > 0) {
		uint32_t fn = NODE(p)[path[len]].fn;
		if (fn == p->nfn)   /* the main program's root: its functions say it */
			continue;
		fprintf(f, "%s%s", first ? "" : ";", fn_name(p, nm, fn));
		first = 0;
	}
}

int an_profile_folded(const an_profile *out, FILE *f)
{
	const kept *k = out->priv;
	const prof *p = &k->p;
	for (size_t n = 1; n < p->tree.n; n++) {
		if (!NODE(p)[n].self)
			continue;
		write_path(p, &k->nm, (uint32_t)n, f);
		fprintf(f, " %llu\n", (unsigned long long)NODE(p)[n].self);
	}
	return ferror(f) ? -1 : 0;
}

void an_profile_free(an_profile *out)
{
	kept *k = out->priv;
	if (k) {
		free_prof(&k->p);
		free(k->nm.fn);
		free(k);
	}
	free(out->funcs);
	free(out->vectors);
	free(out->backtrace);
	memset(out, 0, sizeof *out);
}
