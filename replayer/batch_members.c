/* batch_members.c — the member-by-member evaluation of a batch of new
 * states, the reference every optimization must agree with: the states
 * grouped by return address, hashed once for all members, then each
 * member's outcome looked up, by its bitmap rows or (BATCH_NO_BITMAPS) by
 * key as the unbatched oracle does (batch_eval.h). */
#include "replayer/batch_eval.h"

#include <string.h>

/* The number of ra among the queue's distinct return addresses, adding
 * it if new.  A loop revisits few addresses, so members look their
 * tables up once per address instead of once per boundary. */
static uint16_t ra_id(evaluator *e, uint32_t ra)
{
	const uint32_t mask = 2 * BATCH_SIZE - 1;
	for (uint32_t i = (ra * 0x9E3779B1u) >> 16 & mask;; i = (i + 1) & mask) {
		if (e->pd.ra_map[i].gen != e->pd.ra_gen) {
			e->pd.ra_map[i].ra = ra;
			e->pd.ra_map[i].gen = e->pd.ra_gen;
			e->pd.ra_map[i].id = (uint16_t)e->pd.nras;
			e->pd.ras[e->pd.nras++] = ra;
			return e->pd.ra_map[i].id;
		}
		if (e->pd.ra_map[i].ra == ra)
			return e->pd.ra_map[i].id;
	}
}

/* eval_member for a member whose hash parts are in bitmaps, per ra* and
 * per return address (fpindex.h): then a boundary costs a bit or two in
 * bitmaps its loop keeps in the cache. */
static void eval_member_rows(evaluator *e, const uint32_t *ra_at, unsigned j, unsigned nm)
{
	const fp_index *x = e->members[j];
	const fp_config *c = &x->cfg;
	uint64_t mask = fp_hash_mask(c->hash_bits);
	uint8_t *out = e->pd.out + j;
	size_t stride = e->nmembers;
	uint64_t correct = 0;
	for (unsigned r = 0; r < e->pd.nras; r++) {
		if (e->pd.rstart[r] == e->pd.rstart[r + 1])
			continue;  /* class tables told them all */
		uint32_t ra = e->pd.ras[r];
		/* fp_hash_narrow, with the kind's choice made once per return
		 * address (a round-robin marker here is a code region). */
		fp_hash_kind kind = fp_pick_hash(c, &(fp_state){ .ra = ra });
		unsigned shift = kind == FP_HASH_KNUTH && c->hash_bits ? 64 - c->hash_bits : 0;
		const uint64_t *hs = e->pd.h[kind];
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		if (!covers(e, e->tb.grp_tables[r], j)) {  /* else the tables gave them */
			const uint64_t *row, *sum, *at_row;
			member_rows(x, ra, &row, &sum, &at_row);
			for (unsigned k = e->pd.rstart[r]; k < e->pd.rstart[r + 1]; k++)
				out[k * stride] = (uint8_t)row_outcome(row, sum, at_row,
								       hs[k] >> shift & mask);
		}
		/* A recorded g(s) at this ra* has this fingerprint (a hit),
		 * unless a round-robin marker hashed it otherwise there. */
		for (unsigned i = e->pd.in_start[r]; i < e->pd.in_start[r + 1]; i++) {
			unsigned k = e->pd.with_in[i];
			unsigned dup = c->round_robin
				       ? rr_input_at(e, c, k, ra_part, hs[k] >> shift & mask)
				       : fpi_input_at(e->members[0], e->pd.in[k], c->ra_bits, ra_part);
			out[k * stride] |= (uint8_t)(dup << 2);
		}
	}
	for (unsigned k = e->pd.rstart[e->pd.nras]; k < nm; k++) {  /* recorded interrupts */
		uint32_t ra = ra_at[e->pd.at[k]];
		fp_hash_kind kind = fp_pick_hash(c, &(fp_state){ .ra = ra });
		unsigned shift = kind == FP_HASH_KNUTH && c->hash_bits ? 64 - c->hash_bits : 0;
		uint64_t h = e->pd.h[kind][k] >> shift & mask;
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		correct += (unsigned)fpi_bitsets_has(&x->by_part, (uint32_t)ra_part, h);
	}
	rp_oracle_result *res = &e->results[j];
	res->hits += correct;
	res->correct += correct;
	res->missed += nm - e->pd.rstart[e->pd.nras] - correct;
}

/* Whether new state k's g(s) was recorded with member x's fingerprint key:
 * an index of bitmaps only (fpi_build's sets_only) does not know that of
 * a round-robin member, whose recorded hash kinds differ by address. */
static int input_dup(const evaluator *e, const fp_index *x, unsigned k, uint64_t key,
		     uint64_t ra_part, uint64_t hash_part)
{
	if (x->cfg.round_robin && !x->key_of)
		return rr_input_at(e, &x->cfg, k, ra_part, hash_part);
	return fpi_has_input(x, key, e->pd.g[k]);
}

/* Member j over the nm states of the batch at ra_at[]: counts those at
 * recorded interrupts, and leaves the others' outcomes in out[]. */
static void eval_member(evaluator *e, const uint32_t *ra_at, unsigned j, unsigned nm)
{
	const fp_index *x = e->members[j];
	if (x->by_part.bits && x->by_ra.bits && !(e->off & BATCH_NO_BITMAPS)) {
		eval_member_rows(e, ra_at, j, nm);
		return;
	}
	const fp_config *c = &x->cfg;
	uint8_t *out = e->pd.out + j;
	uint64_t correct = 0, missed = 0;
	for (unsigned k = 0; k < nm; k++) {
		uint32_t ra = ra_at[e->pd.at[k]];
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		/* A round-robin marker here is a code region: it needs only ra. */
		fp_hash_kind kind = c->round_robin ? fp_pick_hash(c, &(fp_state){ .ra = ra })
						   : c->hash;
		uint64_t hash_part = fp_hash_narrow(kind, e->pd.h[kind][k], c->hash_bits);
		uint64_t key = fpi_key(c, ra_part, hash_part);
		int hit = fpi_ra_possible(x, ra_part) && fpi_contains(x, key);
		if (k >= e->pd.rstart[e->pd.nras]) {  /* a recorded interrupt */
			correct += hit;
			missed += !hit;
			continue;
		}
		unsigned o = 0;
		if (hit)
			o = OUT_HIT | (fpi_has_ra(x, key, ra) ? OUT_LOOP : 0) |
			    (e->pd.in[k] && input_dup(e, x, k, key, ra_part, hash_part) ? OUT_INPUT : 0);
		out[(size_t)k * e->nmembers] = (uint8_t)o;
	}
	rp_oracle_result *res = &e->results[j];
	res->hits += correct;
	res->correct += correct;
	res->missed += missed;
}

/* rstart[], at[], state_at[] and g[] from the nm pending ones, whose
 * g(s) are w[]. */
static void group_by_ra(evaluator *e, const uint64_t *w, unsigned nm)
{
	unsigned next[BATCH_SIZE + 1];
	memset(next, 0, (e->pd.nras + 1) * sizeof *next);
	for (unsigned i = 0; i < nm; i++)
		next[e->pd.rid[i] + 1] += !e->pd.pend_truth[i];
	for (unsigned r = 0; r < e->pd.nras; r++)
		next[r + 1] += next[r];
	for (unsigned r = 0; r <= e->pd.nras; r++)
		e->pd.rstart[r] = (uint16_t)next[r];
	unsigned truth_next = next[e->pd.nras];
	for (unsigned i = 0; i < nm; i++) {
		unsigned k = e->pd.pend_truth[i] ? truth_next++ : next[e->pd.rid[i]]++;
		e->pd.at[k] = i;
		e->pd.state_at[k] = e->pd.pend_state[i];
		e->pd.g[k] = sim_tap_unpack(&e->shared->plan, w[i]);
	}
}

/* batch_flush_pending for the nm pending ones class tables did not tell. */
static void flush_slow(evaluator *e, unsigned nm)
{
	/* Their return addresses' numbers only now: most pending states of a
	 * loop's addresses were told by classes and need none. */
	for (unsigned i = 0; i < nm; i++)
		e->pd.rid[i] = i && e->pd.pend_ra[i] == e->pd.pend_ra[i - 1] ? e->pd.rid[i - 1]
								     : ra_id(e, e->pd.pend_ra[i]);
	group_by_ra(e, e->pd.pend_w, nm);
	const fp_index *any = e->members[0];
	for (int k = 0; k < FP_HASH_COUNT; k++)
		if (e->hash_bits[k])
			fp_hash_words((fp_hash_kind)k, e->pd.g, nm, any->cfg.ngather, e->hash_bits[k],
				      e->pd.h[k]);
	unsigned nin = 0;
	for (unsigned r = 0; r <= e->pd.nras; r++) {
		e->pd.in_start[r] = nin;
		unsigned end = r < e->pd.nras ? e->pd.rstart[r + 1] : nm;
		for (unsigned k = e->pd.rstart[r]; k < end; k++) {
			e->pd.in[k] = any->has_input_keys ? fpi_input_find(any, e->pd.g[k]) : NULL;
			if (e->pd.in[k])
				e->pd.with_in[nin++] = k;
		}
	}
	for (unsigned r = 0; r < e->pd.nras; r++) {
		e->tb.grp_tables[r] = batch_tables_at(e, e->pd.ras[r], e->pd.rstart[r + 1] - e->pd.rstart[r]);
		if (e->tb.grp_tables[r])
			batch_tables_fill(e, r);
	}
	for (unsigned j = 0; j < e->nmembers; j++)
		eval_member(e, e->pd.pend_ra, j, nm);
	/* Each new state's outcomes, one vector, stand for every boundary in
	 * it until the table is settled; without the table (it rests), each
	 * boundary counts under its vector too, which costs a lookup where
	 * counting it for every member cost hundreds of instructions. */
	int room = !(e->off & BATCH_NO_STATES) && !batch_vectors_room(e);
	for (unsigned k = 0; k < e->pd.rstart[e->pd.nras]; k++) {
		const uint8_t *v = e->pd.out + (size_t)k * e->nmembers;
		if (e->pd.state_at[k] != NO_STATE) {
			state *t = &e->st.states[e->pd.state_at[k]];
			t->vec = batch_intern(e, v);
			((uint64_t *)e->vx.vec_counts.items)[t->vec] += t->count;
		} else if (room) {
			((uint64_t *)e->vx.vec_counts.items)[batch_intern(e, v)]++;
		} else {
			for (unsigned j = 0; j < e->nmembers; j++)
				count_outcome(&e->results[j], v[j], 1);
		}
	}
}

/* Evaluates the pending new states and recorded interrupts, through class
 * tables or member by member, and starts a new group of them. */
void batch_flush_pending(evaluator *e)
{
	if (!e->pd.npend)
		return;
	unsigned nm = batch_classes_flush(e);
	if (nm)
		flush_slow(e, nm);
	e->pd.npend = 0;
	e->pd.nras = 0;
	if (++e->pd.ra_gen == 0) {  /* a new generation empties ra_map */
		memset(e->pd.ra_map, 0, sizeof e->pd.ra_map);
		e->pd.ra_gen = 1;
	}
}
