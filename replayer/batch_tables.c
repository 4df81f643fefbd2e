/* batch_tables.c — outcome tables: at a return address where many new
 * states come, a run of members hashing alike gets its outcomes by one
 * copy per state instead of a bitmap lookup per member (batch_eval.h);
 * and the registry of return addresses, which also decides when their
 * class tables (batch_classes.c) are built. */
#include "replayer/batch_eval.h"

#include <stdlib.h>
#include <string.h>

/* Whether member j is in tables with (wide) or without the wide members. */
static int in_tables(const evaluator *e, unsigned j, int wide)
{
	return e->tb.tabled[j] == 1 || (wide && e->tb.tabled[j] == 2);
}

/* Whether member j starts a run of tabled members at ra: members of one
 * kind and one class (tabled()) in a row. */
static int run_starts(const evaluator *e, unsigned j, uint32_t ra, int wide)
{
	return in_tables(e, j, wide) &&
	       (!j || e->tb.tabled[j - 1] != e->tb.tabled[j] ||
		member_kind(e, j - 1, ra) != member_kind(e, j, ra));
}

/* The bits a table of hash kind k is indexed by, for members of class
 * cls (Knuth's top bits, the others' low ones). */
static unsigned table_bits(const evaluator *e, unsigned k, int cls)
{
	unsigned most = cls == 2 ? WIDE_BITS : TABLE_BITS;
	return k == FP_HASH_KNUTH || e->hash_bits[k] > most ? most : e->hash_bits[k];
}

/* The outcome tables at return address ra, with the wide members' or
 * without, or NULL when out of memory. */
static ra_tables *tables_build(const evaluator *e, uint32_t ra, int wide)
{
	unsigned nruns = 0, most = 0;
	size_t bytes = 0;
	for (unsigned j = 0; j < e->nmembers; j++) {
		nruns += (unsigned)run_starts(e, j, ra, wide);
		if (in_tables(e, j, wide))
			bytes += (size_t)1 << table_bits(e, member_kind(e, j, ra), e->tb.tabled[j]);
		if (in_tables(e, j, wide) && e->members[j]->cfg.hash_bits > most)
			most = e->members[j]->cfg.hash_bits;
	}
	ra_tables *t = malloc(sizeof *t + nruns * sizeof *t->run + bytes);
	uint8_t *vals = malloc((size_t)1 << most);  /* a member's outcome per hash part */
	if (!t || !vals) {
		free(t);
		free(vals);
		return NULL;
	}
	uint8_t *at = (uint8_t *)&t->run[nruns];
	t->nruns = 0;
	t->wide = wide;
	t->bytes = bytes;
	for (unsigned j = 0; j < e->nmembers; j++) {
		if (!run_starts(e, j, ra, wide))
			continue;
		table_run *run = &t->run[t->nruns++];
		unsigned k = member_kind(e, j, ra), bits = table_bits(e, k, e->tb.tabled[j]);
		*run = (table_run){ .kind = k, .bits = bits, .first = j, .bytes = at };
		while (j + run->n < e->nmembers && e->tb.tabled[j + run->n] == e->tb.tabled[j] &&
		       member_kind(e, j + run->n, ra) == k)
			run->n++;
		for (unsigned i = 0; i < run->n; i++) {
			const uint64_t *row, *sum, *at_row;
			member_rows(e->members[j + i], ra, &row, &sum, &at_row);
			unsigned b = e->members[j + i]->cfg.hash_bits;
			for (size_t h = 0; h < (size_t)1 << b; h++)
				vals[h] = (uint8_t)row_outcome(row, sum, at_row, h);
			/* Member i of the entry: its hash part from entry x's. */
			uint8_t *to = at + i;
			if (k == FP_HASH_KNUTH)
				for (size_t x = 0; x < (size_t)1 << bits; x++)
					to[x * run->n] = vals[b ? x >> (bits - b) : 0];
			else
				for (size_t x = 0, m = fp_hash_mask(b); x < (size_t)1 << bits; x++)
					to[x * run->n] = vals[x & m];
		}
		at += (size_t)run->n << bits;
	}
	free(vals);
	return t;
}

/* The outcome tables of return address ra, where n more new states came,
 * or NULL while it has none. */
const ra_tables *batch_tables_at(evaluator *e, uint32_t ra, unsigned n)
{
	if (!e->tb.ntabled)
		return NULL;
	if ((e->tb.nrinfo + 1) * 2 > e->tb.rinfo_mask + 1) {  /* half full: twice the slots */
		uint32_t mask = e->tb.rinfo_mask ? 2 * e->tb.rinfo_mask + 1 : 255;
		ra_info *to = calloc((size_t)mask + 1, sizeof *to);
		if (!to)
			return NULL;
		for (uint32_t i = 0; e->tb.rinfo && i <= e->tb.rinfo_mask; i++) {
			if (!e->tb.rinfo[i].key)
				continue;
			uint32_t at = (e->tb.rinfo[i].key * 0x9E3779B1u >> 8) & mask;
			while (to[at].key)
				at = (at + 1) & mask;
			to[at] = e->tb.rinfo[i];
		}
		free(e->tb.rinfo);
		e->tb.rinfo = to;
		e->tb.rinfo_mask = mask;
	}
	uint32_t at = ((ra + 1) * 0x9E3779B1u >> 8) & e->tb.rinfo_mask;
	while (e->tb.rinfo[at].key && e->tb.rinfo[at].key != ra + 1)
		at = (at + 1) & e->tb.rinfo_mask;
	ra_info *r = &e->tb.rinfo[at];
	if (!r->key) {
		r->key = ra + 1;
		e->tb.nrinfo++;
	}
	uint32_t before = r->count;
	r->count = before + n < before ? UINT32_MAX : before + n;
	if (e->cl.fast_ok && !r->fast && e->cl.fast_mem.used < e->cl.fast_mem.max)
		r->fast = batch_classes_build(e, ra);
	if (r->fast && before < FAST_AFTER && r->count >= FAST_AFTER)
		batch_classes_dense(e, r->fast);
	if (r->fast)  /* its new states go there, but for a few */
		return r->t;
	if (e->off & BATCH_NO_TABLES)
		return NULL;
	int wide = e->tb.nwide && before < WIDE_AFTER && r->count >= WIDE_AFTER;
	if ((wide || (!r->t && before < (1u << TABLE_BITS) && r->count >= (1u << TABLE_BITS))) &&
	    e->tb.table_bytes < TABLES_MAX_BYTES) {
		ra_tables *t = tables_build(e, ra, wide);
		if (t) {
			if (r->t)
				e->tb.table_bytes -= r->t->bytes;
			free(r->t);
			r->t = t;
			e->tb.table_bytes += t->bytes;
		}
	}
	return r->t;
}

/* Copies n bytes, a table entry, without a call: entries are a few
 * bytes to a few dozen, and a state copies one per run. */
static inline void copy_entry(uint8_t *to, const uint8_t *from, unsigned n)
{
	if (n >= 8) {
		for (unsigned i = 0; i + 8 <= n; i += 8)
			memcpy(to + i, from + i, 8);
		memcpy(to + n - 8, from + n - 8, 8);
	} else if (n >= 4) {
		memcpy(to, from, 4);
		memcpy(to + n - 4, from + n - 4, 4);
	} else {
		for (unsigned i = 0; i < n; i++)
			to[i] = from[i];
	}
}

/* The outcomes of the tabled members for the pending new states at
 * return address ras[r], from its tables, but OUT_INPUT. */
void batch_tables_fill(evaluator *e, unsigned r)
{
	const ra_tables *t = e->tb.grp_tables[r];
	size_t stride = e->nmembers;
	/* A run at a time, its entry's place and size fixed in the loop. */
	for (unsigned i = 0; i < t->nruns; i++) {
		const table_run *run = &t->run[i];
		const uint64_t *hs = e->pd.h[run->kind];
		unsigned shift = run->kind == FP_HASH_KNUTH ? 64 - run->bits : 0, n = run->n;
		uint64_t mask = fp_hash_mask(run->bits);
		uint8_t *out = e->pd.out + run->first;
		for (unsigned k = e->pd.rstart[r]; k < e->pd.rstart[r + 1]; k++)
			copy_entry(out + k * stride, run->bytes + (hs[k] >> shift & mask) * n, n);
	}
}

void batch_tables_free(evaluator *e)
{
	for (uint32_t i = 0; e->tb.rinfo && i <= e->tb.rinfo_mask; i++) {
		free(e->tb.rinfo[i].t);
		batch_classes_free(e->tb.rinfo[i].fast);
	}
	free(e->tb.rinfo);
}
