/*
 * batch.h — the oracle's evaluation under set matching, deferred and done
 * in bulk.
 *
 * Under set matching a boundary's outcome depends only on its return
 * address and g(s), and evaluating it never changes the run (the oracle
 * injects from the ground truth).  So for configurations that share a
 * selector of at most 8 fixed bytes, each boundary only queues (ra, g(s))
 * here.  A full queue is evaluated at once: each hash the group needs over
 * the whole batch, in loops the compiler vectorizes; then one
 * configuration at a time over the whole batch, while its tables sit in
 * the cache.  A direct-mapped memo from (ra, g(s)) to every configuration's
 * outcome makes a state the firmware revisits cost one probe.
 *
 * Those selectors' input keys are their bytes (fp_exact_keys), so whether
 * a state repeats a recorded one is one probe too, without hashing.
 */
#ifndef AVRR_BATCH_H
#define AVRR_BATCH_H

#include <stdint.h>

#include "fpindex.h"
#include "replayer.h"

#define BATCH_SIZE 2048

/* A boundary's outcome for one configuration, as bits. */
enum { OUT_HIT = 1, OUT_LOOP = 2, OUT_INPUT = 4 };

/* Adds `times` boundaries of outcome `out` to res. */
static inline void count_outcome(rp_oracle_result *res, unsigned out, uint64_t times)
{
	if (!(out & OUT_HIT))
		return;
	res->hits += times;
	*(out & OUT_LOOP ? &res->false_loop : &res->false_ra) += times;
	*(out & OUT_INPUT ? &res->input_duplicates : &res->hash_collisions) += times;
}

/* Raises bits[k] to the width of hash k that configuration c needs.
 * Knuth's narrow values are the top bits of the 64-bit one; the others'
 * are its low bits. */
static inline void widen_hash_bits(unsigned bits[FP_HASH_COUNT], const fp_config *c)
{
	for (int k = 0; k < FP_HASH_COUNT; k++) {
		unsigned need = k == FP_HASH_KNUTH ? 64 : c->hash_bits;
		if ((c->round_robin || (int)c->hash == k) && need > bits[k])
			bits[k] = need;
	}
}

typedef struct batch_memo batch_memo;

typedef struct rp_batch {
	const fp_config *sel;       /* the shared selector */
	unsigned count;             /* boundaries queued */
	uint32_t ra[BATCH_SIZE];
	uint64_t w[BATCH_SIZE];     /* g(s), packed as fp_gather_word packs it */
	uint8_t truth[BATCH_SIZE];  /* a recorded interrupt point */

	/* Private to batch.c. */
	const fp_index **members;
	rp_oracle_result **results;
	unsigned nmembers;
	unsigned hash_bits[FP_HASH_COUNT];  /* the widest any member needs; 0: none */
	batch_memo *memo;
	unsigned memo_rest;         /* batches left before the memo is tried again */
	unsigned memo_trial;        /* batches of a trial left before it is judged */
	uint8_t *outcome;           /* outcome[e * nmembers + j]: memo entry e, member j */
	uint8_t *out;               /* out[j * BATCH_SIZE + i]: member j, miss i */
	uint32_t miss[BATCH_SIZE];  /* queue positions the memo did not know */
	uint64_t h[FP_HASH_COUNT][BATCH_SIZE];
	uint64_t mw[BATCH_SIZE];
	uint8_t repeats[BATCH_SIZE];  /* the miss's g(s) is some recorded one's */
} rp_batch;

/* Whether configurations like c can be batched: a selector of at most 8
 * fixed bytes, and a hash that does not depend on a variable's value. */
int batch_suits(const fp_config *c);

/* A batch for members[0..n) (which share c's selector), counting into
 * results[j] for members[j].  Returns NULL when out of memory. */
rp_batch *batch_new(const fp_index **members, rp_oracle_result **results, unsigned n);
void batch_free(rp_batch *b);

/* Evaluates everything queued. */
void batch_flush(rp_batch *b);

/* batch_flush, then adds the memo's uncounted uses to the results, so
 * they are complete. */
void batch_settle(rp_batch *b);

/* Queues a boundary at return address ra in data space `data`; `truth`
 * when the recorded run took an interrupt there. */
static inline void batch_add(rp_batch *b, uint32_t ra, const uint8_t *data, int truth)
{
	unsigned i = b->count;
	b->ra[i] = ra;
	b->w[i] = fp_gather_word(b->sel, data);
	b->truth[i] = (uint8_t)truth;
	if ((b->count = i + 1) == BATCH_SIZE)
		batch_flush(b);
}

#endif
