/* batch.c — the oracle's deferred evaluation (see batch.h). */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

/* 2^14 entries of 16 bytes: the table stays in the L2 cache.
 *
 * The memo pays when states repeat (an idle loop) and only costs when they
 * do not (a counter in the selector).  So it stays in use while it finds
 * at least a quarter of a batch; otherwise it rests for MEMO_REST batches
 * and is then tried again: one batch to fill it, one to judge it. */
#define MEMO_REST 32
#define MEMO_BITS 14
#define MEMO_SIZE ((size_t)1 << MEMO_BITS)
#define MEMO_EMPTY UINT32_MAX   /* no return address is this */

struct batch_memo {
	uint64_t w;                 /* g(s) */
	uint32_t ra;
	uint32_t uses;              /* not yet added to the results */
};

int batch_suits(const fp_config *c)
{
	return fp_exact_keys(c) && !(c->round_robin && c->marker == FP_MARK_VAR);
}

rp_batch *batch_new(const fp_index **members, rp_oracle_result **results, unsigned n)
{
	rp_batch *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->sel = &members[0]->cfg;
	b->nmembers = n;
	b->members = malloc(n * sizeof *b->members);
	b->results = malloc(n * sizeof *b->results);
	b->memo = malloc(MEMO_SIZE * sizeof *b->memo);
	b->outcome = calloc(MEMO_SIZE, n);
	b->out = calloc(BATCH_SIZE, n);
	if (!b->members || !b->results || !b->memo || !b->outcome || !b->out) {
		batch_free(b);
		return NULL;
	}
	for (unsigned j = 0; j < n; j++) {
		b->members[j] = members[j];
		b->results[j] = results[j];
		widen_hash_bits(b->hash_bits, &members[j]->cfg);
	}
	for (size_t e = 0; e < MEMO_SIZE; e++)
		b->memo[e] = (batch_memo){ .ra = MEMO_EMPTY };
	return b;
}

void batch_free(rp_batch *b)
{
	if (!b)
		return;
	free(b->members);
	free(b->results);
	free(b->memo);
	free(b->outcome);
	free(b->out);
	free(b);
}

static size_t memo_index(uint32_t ra, uint64_t w)
{
	uint64_t h = ((ra + 1ull) * 0x9E3779B97F4A7C15ull ^ w) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> (64 - MEMO_BITS));
}

/* Adds memo entry e's uses to the results. */
static void memo_settle(rp_batch *b, size_t e)
{
	batch_memo *m = &b->memo[e];
	if (!m->uses)
		return;
	for (unsigned j = 0; j < b->nmembers; j++)
		count_outcome(b->results[j], b->outcome[e * b->nmembers + j], m->uses);
	m->uses = 0;
}

/* Member j over the nm misses: counts them, and leaves each outcome in
 * out[] for the memo. */
static void eval_member(rp_batch *b, unsigned j, unsigned nm)
{
	const fp_index *x = b->members[j];
	const fp_config *c = &x->cfg;
	uint8_t *out = b->out + (size_t)j * BATCH_SIZE;
	uint64_t hits = 0, loop = 0, input = 0, correct = 0, missed = 0;
	for (unsigned i = 0; i < nm; i++) {
		uint32_t p = b->miss[i], ra = b->ra[p];
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		/* A round-robin marker here is a code region: it needs only ra. */
		fp_hash_kind k = c->round_robin ? fp_pick_hash(c, &(fp_state){ .ra = ra }) : c->hash;
		uint64_t key = fpi_key(c, ra_part, fp_hash_narrow(k, b->h[k][i], c->hash_bits));
		int hit = fpi_ra_possible(x, ra_part) && fpi_contains(x, key);
		if (b->truth[p]) {
			correct += hit;
			missed += !hit;
			continue;
		}
		unsigned o = 0;
		if (hit) {
			o = OUT_HIT;
			if (fpi_has_ra(x, key, ra)) {
				o |= OUT_LOOP;
				loop++;
			}
			if (b->repeats[i] && fpi_has_input(x, key, b->mw[i])) {
				o |= OUT_INPUT;
				input++;
			}
			hits++;
		}
		out[i] = (uint8_t)o;
	}
	rp_oracle_result *res = b->results[j];
	res->hits += hits + correct;
	res->correct += correct;
	res->missed += missed;
	res->false_loop += loop;
	res->false_ra += hits - loop;
	res->input_duplicates += input;
	res->hash_collisions += hits - input;
}

void batch_flush(rp_batch *b)
{
	int use_memo = !b->memo_rest;
	unsigned nm = 0, count = b->count;
	for (unsigned p = 0; p < count; p++) {
		if (use_memo && !b->truth[p]) {
			batch_memo *m = &b->memo[memo_index(b->ra[p], b->w[p])];
			if (m->ra == b->ra[p] && m->w == b->w[p]) {
				if (++m->uses == UINT32_MAX)
					memo_settle(b, (size_t)(m - b->memo));
				continue;
			}
		}
		b->miss[nm] = p;
		b->mw[nm++] = b->w[p];
	}
	b->count = 0;
	if (!use_memo) {
		if (!--b->memo_rest)
			b->memo_trial = 2;
	} else if (b->memo_trial) {
		b->memo_trial--;
	}
	if (use_memo && !b->memo_trial && (count - nm) * 4 < count)
		b->memo_rest = MEMO_REST;
	if (!nm)
		return;
	for (int k = 0; k < FP_HASH_COUNT; k++)
		if (b->hash_bits[k])
			fp_hash_words((fp_hash_kind)k, b->mw, nm, b->sel->ngather, b->hash_bits[k],
				      b->h[k]);
	const fp_index *any = b->members[0];
	for (unsigned i = 0; i < nm; i++)
		b->repeats[i] = any->has_input_keys && fpi_input_recorded(any, b->mw[i]);
	for (unsigned j = 0; j < b->nmembers; j++)
		eval_member(b, j, nm);
	/* Now memoize the misses: every outcome, including those of entries
	 * they evict, is known. */
	for (unsigned i = 0; use_memo && i < nm; i++) {
		uint32_t p = b->miss[i];
		if (b->truth[p])
			continue;
		size_t e = memo_index(b->ra[p], b->w[p]);
		memo_settle(b, e);
		b->memo[e] = (batch_memo){ .w = b->w[p], .ra = b->ra[p] };
		for (unsigned j = 0; j < b->nmembers; j++)
			b->outcome[e * b->nmembers + j] = b->out[(size_t)j * BATCH_SIZE + i];
	}
}

void batch_settle(rp_batch *b)
{
	batch_flush(b);
	for (size_t e = 0; e < MEMO_SIZE; e++)
		memo_settle(b, e);
}
