/*
 * batch.h — the oracle's evaluation under set matching, deferred and done
 * in bulk.
 *
 * Under set matching a boundary's outcome depends only on its return
 * address and g(s), and evaluating it never changes the run (the oracle
 * injects from the ground truth).  So for configurations that share a
 * selector of at most 8 fixed bytes, each boundary only queues (ra, g(s))
 * here (or the simulation queues it, through the batch's sim_tap).  Full
 * queues go to evaluator threads while the simulation runs on: one, or,
 * where some member cannot have class tables (batch.c), one per
 * processor, each owning the states at the return addresses whose hash
 * names it.  An evaluator
 * counts each state it owns in a table and evaluates it for every
 * configuration only the first time it comes, a batch of new states at a
 * time: each hash over the whole batch, in loops the compiler vectorizes;
 * then one configuration at a time over the batch, while its tables sit in
 * the cache.
 *
 * Those selectors' input keys are their bytes (fp_exact_keys), so whether
 * a state repeats a recorded one is one probe too, without hashing.
 */
#ifndef AVRR_BATCH_H
#define AVRR_BATCH_H

#include <stdint.h>

#include "sim/sim.h"
#include "replayer/fpindex.h"
#include "replayer/replayer.h"

#define BATCH_SIZE 2048
/* Boundaries handed to the evaluation at once: few handovers, so the two
 * threads seldom wait for each other. */
#define QUEUE_SIZE (16 * BATCH_SIZE)

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

/* Boundaries waiting for evaluation. */
typedef struct batch_queue {
	unsigned count;
	uint32_t ra[QUEUE_SIZE];
	uint64_t w[QUEUE_SIZE];     /* g(s), packed as sim_tap_pack packs it */
	uint8_t truth[QUEUE_SIZE];  /* a recorded interrupt point */
} batch_queue;

typedef struct rp_batch {
	const fp_config *sel;       /* the shared selector */
	batch_queue *fill;          /* the queue being filled */
	/* Where the next boundary goes: fill's ra[] and w[], and its count
	 * (fill->count is set when it is handed over).  The simulation may
	 * fill it directly (sim_tap); `until` is the replayer's to set. */
	sim_tap tap;
	struct batch_eval *eval;    /* private to batch.c */
} rp_batch;

/* Whether configurations like c can be batched: a selector of at most 8
 * fixed bytes, and a hash that does not depend on a variable's value. */
int batch_suits(const fp_config *c);

/* A batch for members[0..n) (which share c's selector), counting into
 * results[j] for members[j], over a data space of data_size bytes; each
 * evaluator's table of states has at most 2^table_bits slots, and its
 * class tables a budget in proportion (0: the defaults).  Returns NULL
 * when out of memory. */
rp_batch *batch_new(const fp_index **members, rp_oracle_result **results, unsigned n,
		    uint32_t data_size, unsigned table_bits);

/* The evaluation's optimizations, each of which can be turned off: the
 * counts are the same whichever are on (tests/integration/test_batch.c
 * holds them to that), only the cost differs.  BATCH_PLAIN turns all off:
 * every boundary is evaluated and counted member by member, each looked
 * up by key as fpindex.h answers it. */
enum {
	BATCH_NO_THREADS = 1,   /* one evaluator, on the caller's thread */
	BATCH_NO_STATES = 2,    /* no table of states nor vectors to count under */
	BATCH_NO_LINKS = 4,     /* a known state found by its hash alone, not by
				 * the link from the state before it */
	BATCH_NO_TABLES = 8,    /* no outcome tables of runs of members */
	BATCH_NO_CLASSES = 16,  /* no classes of hash values */
	BATCH_NO_BITMAPS = 32,  /* members looked up by key, not by bitmap rows */
	BATCH_PLAIN = 63,
};

typedef struct batch_opts {
	unsigned off;           /* BATCH_NO_* */
	unsigned evaluators;    /* 0: as batch_new chooses; else that many
				 * (one under BATCH_NO_THREADS) */
} batch_opts;

/* batch_new with the optimizations o turns off (NULL: none). */
rp_batch *batch_new_opts(const fp_index **members, rp_oracle_result **results, unsigned n,
			 uint32_t data_size, unsigned table_bits, const batch_opts *o);
void batch_free(rp_batch *b);

/* Hands the queue over for evaluation and starts a new one.  Queues are
 * evaluated in order, on a thread of the batch's own when one could be
 * started (the simulation goes on meanwhile), else here and now. */
void batch_flush(rp_batch *b);

/* Evaluates everything queued, waits for it, then adds the counts kept
 * under the evaluators' outcome vectors: the results are complete until
 * the next batch_add. */
void batch_settle(rp_batch *b);

/* Queues a boundary at return address ra whose g(s) the tap packed into
 * w (sim_tap_pack with b->tap); `truth` when the recorded run took an
 * interrupt there. */
static inline void batch_add_word(rp_batch *b, uint32_t ra, uint64_t w, int truth)
{
	sim_tap *t = &b->tap;
	unsigned i = t->count;
	t->pc[i] = ra;
	t->word[i] = w;
	b->fill->truth[i] = (uint8_t)truth;
	if ((t->count = i + 1) == t->cap)
		batch_flush(b);
}

/* Queues a boundary at return address ra in data space `data`; `truth`
 * when the recorded run took an interrupt there. */
static inline void batch_add(rp_batch *b, uint32_t ra, const uint8_t *data, int truth)
{
	batch_add_word(b, ra, sim_tap_pack(&b->tap, data), truth);
}

#endif
