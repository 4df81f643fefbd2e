/* batch_states.c — the evaluators' table of distinct states: a boundary
 * whose state came before counts under that state's outcome vector,
 * found by the link from the state before it or by a hash probe, so each
 * state is evaluated once (batch_eval.h).  The plain path (BATCH_NO_STATES)
 * hands every boundary to the member-by-member evaluation. */
#include "replayer/batch_eval.h"

#include <string.h>

/* The evaluator of the states at return address ra, of nev.  By return
 * address, not by state: then an evaluator tells the others' boundaries
 * without hashing them, and builds outcome tables only for its own
 * addresses. */
static unsigned owner(uint32_t ra, unsigned nev)
{
	return (unsigned)(((ra + 1) * 0x9E3779B1u >> 24) * nev >> 8);
}

/* A state's hash: its index slot comes from bits 32 and up, and its tag
 * in the index from bits 24-31. */
static uint64_t state_hash(uint32_t ra, uint64_t w)
{
	return ((ra + 1ull) * 0x9E3779B97F4A7C15ull ^ w) * 0x9E3779B97F4A7C15ull;
}

/* State number i's entry in the index (i + 1 < 2^24: STATES_MAX_BITS). */
static uint32_t index_entry(uint64_t h, uint32_t i)
{
	return ((uint32_t)h & 0xFF000000u) | (i + 1);
}

/* Whether another batch's new vectors or ids might not fit. */
static int ids_full(const evaluator *e)
{
	return e->vx.vecs.n + BATCH_SIZE > MAX_VECTORS || e->vx.vec_counts.n + BATCH_SIZE > MAX_IDS;
}

/* Room for another batch of new states: when the table is full, it is
 * settled and emptied. */
static void states_make_room(evaluator *e)
{
	if (e->st.nstates + BATCH_SIZE <= e->st.max_states && !ids_full(e))
		return;
	batch_flush_pending(e);
	batch_settle_counts(e, 1);
	if (e->st.repeats * 4 < e->st.seen)
		e->st.rest = STATES_REST;
	e->st.seen = e->st.repeats = 0;
}

/* The number of state (ra, w), h its hash: looked up, else a new one
 * (count 0, vec NO_VECTOR) that *fresh says. */
static uint32_t state_of(evaluator *e, uint32_t ra, uint64_t w, uint64_t h, int *fresh)
{
	*fresh = 0;
	size_t at = (size_t)(h >> 32) & e->st.index_mask;
	for (;; at = (at + 1) & e->st.index_mask) {
		uint32_t x = e->st.index[at], i = x & 0xFFFFFF;
		if (!i)
			break;
		if (x == index_entry(h, i - 1) && e->st.states[i - 1].w == w &&
		    e->st.states[i - 1].ra == ra)
			return i - 1;
	}
	uint32_t i = e->st.nstates++;
	e->st.index[at] = index_entry(h, i);
	e->st.states[i] = (state){ .w = w, .ra = ra, .vec = NO_VECTOR, .next = NO_STATE };
	*fresh = 1;
	return i;
}

/* Counts the `count` <= BATCH_SIZE boundaries at ra[], w[], truth[] whose
 * states this evaluator owns: each that repeats a known state under its
 * vector; the new states and those at recorded interrupts (all of them
 * while the table rests) wait until a whole batch of them can be
 * evaluated together.
 *
 * Every evaluator reads every boundary, and a firmware repeats its paths:
 * a boundary whose state is the one that followed the last one's before,
 * the usual case, is known, and this evaluator's, by one compare; the others
 * are told apart by their return address (owner()) before any hashing.
 * `links` is a constant at each call: a test of BATCH_NO_LINKS in the loop
 * cost 0.2 % of funcsheap's oracle85 (callgrind). */
static inline __attribute__((always_inline)) void
evaluate_batch(evaluator *e, const uint32_t *ra, const uint64_t *w, const uint8_t *truth,
	       unsigned count, unsigned nev, int links)
{
	int states = !(e->off & BATCH_NO_STATES);
	if (states && !e->st.rest) {
		states_make_room(e);
	} else {
		e->st.rest -= states;  /* it rests; without the table, for good */
		if (ids_full(e)) {
			batch_flush_pending(e);
			batch_settle_counts(e, 1);
		}
	}
	int use_table = states && !e->st.rest && !batch_vectors_room(e);
	unsigned repeats = 0, nmine = 0;
	uint64_t *vec_counts = e->vx.vec_counts.items;
	unsigned id_mine = e->id;
	for (unsigned p = 0; p < count; p++) {
		if (nev > 1 && owner(ra[p], nev) != id_mine)
			continue;
		uint32_t next = e->st.last != NO_STATE ? e->st.states[e->st.last].next : NO_STATE;
		state *t = next != NO_STATE ? &e->st.states[next] : NULL;
		if (t && t->w == w[p] && t->ra == ra[p] && !truth[p]) {
			e->st.last = next;
			if (t->vec != NO_VECTOR)
				vec_counts[t->vec]++;
			else
				t->count++;
			nmine++;
			repeats++;
			continue;
		}
		nmine++;
		uint32_t id = NO_STATE;
		if (use_table && !truth[p]) {
			int fresh;
			id = state_of(e, ra[p], w[p], state_hash(ra[p], w[p]), &fresh);
			if (e->st.last != NO_STATE && links)
				e->st.states[e->st.last].next = id;
			e->st.last = id;
			t = &e->st.states[id];
			if (t->vec != NO_VECTOR)
				vec_counts[t->vec]++;
			else
				t->count++;
			if (!fresh) {
				repeats++;
				continue;
			}
		}
		unsigned k = e->pd.npend++;
		e->pd.pend_ra[k] = ra[p];
		e->pd.pend_w[k] = w[p];
		e->pd.pend_state[k] = id;
		e->pd.pend_truth[k] = truth[p];
		if (e->pd.npend == BATCH_SIZE) {
			batch_flush_pending(e);
			vec_counts = e->vx.vec_counts.items;  /* it may have grown */
		}
	}
	if (use_table) {
		e->st.seen += nmine;
		e->st.repeats += repeats;
	}
}

/* Counts queue q, a batch at a time; a lone evaluator without asking
 * whose each boundary is. */
void batch_eval_queue(evaluator *e, const batch_queue *q)
{
	unsigned nev = e->shared->nev;
	for (unsigned at = 0; at < q->count; at += BATCH_SIZE) {
		unsigned n = q->count - at < BATCH_SIZE ? q->count - at : BATCH_SIZE;
		if (e->off & BATCH_NO_LINKS)  /* the plain path's, apart */
			evaluate_batch(e, q->ra + at, q->w + at, q->truth + at, n, nev, 0);
		else if (nev == 1)
			evaluate_batch(e, q->ra + at, q->w + at, q->truth + at, n, 1, 1);
		else
			evaluate_batch(e, q->ra + at, q->w + at, q->truth + at, n, nev, 1);
	}
}
