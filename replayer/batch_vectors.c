/* batch_vectors.c — the interned outcome vectors: a state's outcomes for
 * every member form a vector, most states share one with many others, so
 * boundaries count once under their vector and settling adds each
 * vector's count once per member (batch_eval.h). */
#include "replayer/batch_eval.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

/* Adds the boundaries counted under each outcome vector to the results
 * (no state is pending); `empty`: and drops the states and the vectors,
 * else the states are known when they come again. */
void batch_settle_counts(evaluator *e, int empty)
{
	uint64_t *counts = e->vx.vec_counts.items;
	const uint8_t *vecs = e->vx.vecs.items;
	/* Per member, the boundaries under each outcome (OUT_* bits, below
	 * 8) first: count_outcome's branches, for tens of thousands of
	 * vectors times every member, were mispredicted at every turn. */
	uint64_t (*by_out)[8] = e->vx.by_out;
	const tuple_entry *tuples = e->vx.vec_tuples.items;
	for (size_t v = 0; v < e->vx.vec_counts.n; v++) {
		if (!counts[v])
			continue;
		if (tuples[v].slot1) {  /* class by class, below */
			ra_fast *f = e->cl.fast_list[tuples[v].slot1 - 1];
			for (unsigned i = 0; i < f->nk; i++)
				f->k[i].count[tuples[v].cls >> 16 * i & 0xFFFF] += counts[v];
			counts[v] = 0;
			continue;
		}
		const uint8_t *out = vecs + (size_t)tuples[v].vec * e->nmembers;
		for (unsigned j = 0; j < e->nmembers; j++)
			by_out[j][out[j]] += counts[v];
		counts[v] = 0;
	}
	for (uint32_t s = 0; s < e->cl.nfast; s++)
		for (unsigned i = 0; i < e->cl.fast_list[s]->nk; i++) {
			fast_kind *k = &e->cl.fast_list[s]->k[i];
			for (uint32_t c = 1; c <= k->nclasses; c++) {
				if (!k->count[c])
					continue;
				const uint8_t *out = k->classes + (size_t)(c - 1) * k->n;
				for (unsigned t = 0; t < k->n; t++)
					by_out[k->m[t].j][out[t]] += k->count[c];
				k->count[c] = 0;
			}
		}
	for (unsigned j = 0; j < e->nmembers; j++)
		for (unsigned o = 0; o < 8; o++) {
			count_outcome(&e->results[j], o, by_out[j][o]);
			by_out[j][o] = 0;
		}
	if (!empty)
		return;
	memset(e->st.index, 0, ((size_t)e->st.index_mask + 1) * sizeof *e->st.index);
	e->st.nstates = 0;
	e->st.last = NO_STATE;
	e->vx.vecs.n = e->vx.vec_counts.n = e->vx.vec_tuples.n = 0;
	memset(e->vx.vec_index, 0, ((size_t)e->vx.vec_mask + 1) * sizeof *e->vx.vec_index);
	batch_tuples_clear(e);
}

/* A hash of a vector's n bytes: XXH3 reads a few dozen bytes in a few
 * independent lanes, where a chain of multiplies waited on each other
 * (a loop that is new at every turn interns a vector per boundary). */
static uint64_t vector_hash(const uint8_t *v, unsigned n)
{
	return XXH3_64bits(v, n);
}

/* Room to intern a batch's worth of new vectors.  0, or -1 when out of
 * memory (what was interned stays). */
int batch_vectors_room(evaluator *e)
{
	growbuf *bufs[3] = { &e->vx.vecs, &e->vx.vec_counts, &e->vx.vec_tuples };
	for (int i = 0; i < 3; i++) {
		growbuf *g = bufs[i];
		if (g->cap - g->n >= BATCH_SIZE)
			continue;
		/* Twice, but not much past the most kept. */
		size_t most = (i ? MAX_IDS : MAX_VECTORS) + 2 * BATCH_SIZE;
		size_t cap = g->cap * 2 < most ? g->cap * 2 : most;
		if (cap < g->n + BATCH_SIZE)
			cap = g->n + BATCH_SIZE;
		void *p = realloc(g->items, cap * g->size);
		if (!p)
			return -1;
		g->items = p;
		g->cap = cap;
	}
	size_t slots = (size_t)e->vx.vec_mask + 1;
	if ((e->vx.vecs.n + BATCH_SIZE) * 2 <= slots)
		return 0;
	while ((e->vx.vecs.n + BATCH_SIZE) * 2 > slots)
		slots *= 2;
	uint32_t *index = calloc(slots, sizeof *index);
	if (!index)
		return -1;
	free(e->vx.vec_index);
	e->vx.vec_index = index;
	e->vx.vec_mask = (uint32_t)(slots - 1);
	const tuple_entry *tuples = e->vx.vec_tuples.items;
	for (size_t id = 0; id < e->vx.vec_counts.n; id++) {
		if (tuples[id].slot1)
			continue;  /* a tuple: no vector of its own */
		size_t at = vector_hash((const uint8_t *)e->vx.vecs.items +
					(size_t)tuples[id].vec * e->nmembers,
					e->nmembers) & e->vx.vec_mask;
		while (index[at])
			at = (at + 1) & e->vx.vec_mask;
		index[at] = (uint32_t)id + 1;
	}
	return 0;
}

/* The id of outcome vector v (nmembers bytes), interned if new; there is
 * room (batch_vectors_room).  Its bytes are vector vec_tuples[id].vec of
 * vecs. */
uint32_t batch_intern(evaluator *e, const uint8_t *v)
{
	const tuple_entry *tuples = e->vx.vec_tuples.items;
	size_t at = vector_hash(v, e->nmembers) & e->vx.vec_mask;
	for (;; at = (at + 1) & e->vx.vec_mask) {
		uint32_t id = e->vx.vec_index[at];
		if (!id)
			break;
		if (!memcmp((const uint8_t *)e->vx.vecs.items + (size_t)tuples[id - 1].vec * e->nmembers,
			    v, e->nmembers))
			return id - 1;
	}
	uint32_t id = (uint32_t)e->vx.vec_counts.n;
	*(tuple_entry *)grow(&e->vx.vec_tuples) = (tuple_entry){ .vec = (uint32_t)e->vx.vecs.n };
	memcpy(grow(&e->vx.vecs), v, e->nmembers);
	*(uint64_t *)grow(&e->vx.vec_counts) = 0;
	e->vx.vec_index[at] = id + 1;
	return id;
}
