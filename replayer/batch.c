/* batch.c — the oracle's deferred evaluation (see batch.h). */
#include "batch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Full queues the simulation may run ahead of the evaluation by. */
#define QUEUES 4

typedef struct batch_memo {
	uint64_t w;                 /* g(s) */
	uint32_t ra;
	uint32_t uses;              /* not yet added to the results */
} batch_memo;

/* One thread's share of a batch's members, and all it needs to count
 * them: each evaluator sees every queue. */
typedef struct evaluator {
	struct batch_eval *shared;
	const fp_index **members;
	rp_oracle_result **results;
	unsigned nmembers;
	unsigned hash_bits[FP_HASH_COUNT];  /* the widest any member needs; 0: none */

	batch_memo *memo;
	unsigned memo_rest;         /* batches left before the memo is tried again */
	unsigned memo_trial;        /* batches of a trial left before it is judged */
	uint8_t *outcome;           /* outcome[e * nmembers + j]: memo entry e, member j */

	/* One batch's misses (the boundaries the memo did not know), as the
	 * memo pass finds them: queue position, at a recorded interrupt, and
	 * return address, ras[rid[i]] (a loop has few distinct ones). */
	uint32_t miss[BATCH_SIZE];
	uint8_t mtruth[BATCH_SIZE];
	uint16_t rid[BATCH_SIZE];
	uint32_t ras[BATCH_SIZE];
	unsigned nras;
	struct { uint32_t ra, gen; uint16_t id; } ra_map[2 * BATCH_SIZE];
	uint32_t ra_gen;
	/* The misses grouped by return address, so that a member looks its
	 * bitmaps up once per address and reads the rest in a row: those at
	 * ras[r] are [rstart[r], rstart[r + 1]), those at recorded interrupts
	 * [rstart[nras], nm).  For each: its queue position, g(s), hashes,
	 * the recorded interrupts with that g(s) (in members[0]'s table; the
	 * members share it) or NULL, and each member's outcome for the memo. */
	uint16_t rstart[BATCH_SIZE + 1];
	uint32_t at[BATCH_SIZE];
	uint64_t g[BATCH_SIZE];
	uint64_t h[FP_HASH_COUNT][BATCH_SIZE];
	const fpi_input *in[BATCH_SIZE];
	uint8_t *out;               /* out[j * BATCH_SIZE + k]: member j, miss k */

	unsigned head;              /* the queues before it are counted */
	pthread_t thread;
} evaluator;

/* Everything behind an rp_batch.  Queues [head, tail) (mod QUEUES) of
 * each evaluator wait for it, the one at its head perhaps under way; the
 * simulation's thread fills queues[tail % QUEUES] and owns `tail`. */
typedef struct batch_eval {
	batch_queue queues[QUEUES];
	unsigned tail;
	evaluator *ev;
	unsigned nev;
	int threaded, quit;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} batch_eval;

int batch_suits(const fp_config *c)
{
	return fp_exact_keys(c) && !c->ncounters && !(c->round_robin && c->marker == FP_MARK_VAR);
}

static size_t memo_index(uint32_t ra, uint64_t w)
{
	uint64_t h = ((ra + 1ull) * 0x9E3779B97F4A7C15ull ^ w) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> (64 - MEMO_BITS));
}

/* Adds memo entry e's uses to the results. */
static void memo_settle(evaluator *e, size_t at)
{
	batch_memo *m = &e->memo[at];
	if (!m->uses)
		return;
	for (unsigned j = 0; j < e->nmembers; j++)
		count_outcome(e->results[j], e->outcome[at * e->nmembers + j], m->uses);
	m->uses = 0;
}

/* The number of ra among the queue's distinct return addresses, adding
 * it if new.  A loop revisits few addresses, so members look their
 * tables up once per address instead of once per boundary. */
static uint16_t ra_id(evaluator *e, uint32_t ra)
{
	const uint32_t mask = 2 * BATCH_SIZE - 1;
	for (uint32_t i = (ra * 0x9E3779B1u) >> 16 & mask;; i = (i + 1) & mask) {
		if (e->ra_map[i].gen != e->ra_gen) {
			e->ra_map[i].ra = ra;
			e->ra_map[i].gen = e->ra_gen;
			e->ra_map[i].id = (uint16_t)e->nras;
			e->ras[e->nras++] = ra;
			return e->ra_map[i].id;
		}
		if (e->ra_map[i].ra == ra)
			return e->ra_map[i].id;
	}
}

/* eval_member for a member whose hash parts are in bitmaps, per ra* and
 * per return address (fpindex.h): then a boundary costs a bit or two in
 * bitmaps its loop keeps in the cache. */
static void eval_member_rows(evaluator *e, const uint32_t *ra_at, unsigned j, unsigned nm)
{
	const fp_index *x = e->members[j];
	const fp_config *c = &x->cfg;
	/* fp_hash_narrow, with the kind's choice made once (0 bits: mask 0). */
	unsigned shift = c->hash == FP_HASH_KNUTH && c->hash_bits ? 64 - c->hash_bits : 0;
	uint64_t mask = fp_hash_mask(c->hash_bits);
	const uint64_t *hs = e->h[c->hash];
	uint8_t *out = e->out + (size_t)j * BATCH_SIZE;
	uint64_t hits = 0, loop = 0, input = 0, correct = 0;
	for (unsigned r = 0; r < e->nras; r++) {
		uint32_t ra = e->ras[r];
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		uint32_t n = fpi_bitsets_find(&x->by_part, (uint32_t)ra_part);
		const uint64_t *row = x->by_part.bits + (size_t)n * x->by_part.words;
		const uint64_t *sum = x->by_part.summary + (size_t)n * x->by_part.swords;
		/* When one address was recorded with this ra*, its bitmap is
		 * the ra*'s (or none): reuse the one already in the cache. */
		uint32_t only = x->ra_class ? x->ra_class[ra_part] : FPI_RA_MIXED;
		const uint64_t *at_row = only == ra		? row
					 : only != FPI_RA_MIXED ? fpi_bitsets_none(&x->by_ra)
								: fpi_bitsets_row(&x->by_ra, ra);
		unsigned end = e->rstart[r + 1];
		for (unsigned k = e->rstart[r]; k < end; k++) {
			uint64_t h = hs[k] >> shift & mask;
			unsigned hit = 0, at_ra = 0;
			if (fpi_row_has(sum, h >> 6)) {
				hit = (unsigned)fpi_row_has(row, h);
				at_ra = (unsigned)fpi_row_has(at_row, h);  /* implies hit */
			}
			/* A recorded g(s) at this ra* has this fingerprint: a hit. */
			unsigned dup = e->in[k] &&
				       fpi_input_at(e->members[0], e->in[k], c->ra_bits, ra_part);
			hits += hit;
			loop += at_ra;
			input += dup;
			out[k] = (uint8_t)(hit | at_ra << 1 | dup << 2);
		}
	}
	for (unsigned k = e->rstart[e->nras]; k < nm; k++) {  /* recorded interrupts */
		uint64_t h = hs[k] >> shift & mask;
		uint64_t ra_part = fp_reduce_ra(ra_at[e->at[k]], c->ra_bits);
		correct += (unsigned)fpi_bitsets_has(&x->by_part, (uint32_t)ra_part, h);
	}
	rp_oracle_result *res = e->results[j];
	res->hits += hits + correct;
	res->correct += correct;
	res->missed += nm - e->rstart[e->nras] - correct;
	res->false_loop += loop;
	res->false_ra += hits - loop;
	res->input_duplicates += input;
	res->hash_collisions += hits - input;
}

/* Member j over the nm misses of the batch at ra_at[]: counts them, and
 * leaves each outcome in out[] for the memo. */
static void eval_member(evaluator *e, const uint32_t *ra_at, unsigned j, unsigned nm)
{
	const fp_index *x = e->members[j];
	if (x->by_part.bits && x->by_ra.bits && !x->cfg.round_robin) {
		eval_member_rows(e, ra_at, j, nm);
		return;
	}
	const fp_config *c = &x->cfg;
	uint8_t *out = e->out + (size_t)j * BATCH_SIZE;
	uint64_t hits = 0, loop = 0, input = 0, correct = 0, missed = 0;
	for (unsigned k = 0; k < nm; k++) {
		uint32_t ra = ra_at[e->at[k]];
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		/* A round-robin marker here is a code region: it needs only ra. */
		fp_hash_kind kind = c->round_robin ? fp_pick_hash(c, &(fp_state){ .ra = ra })
						   : c->hash;
		uint64_t key = fpi_key(c, ra_part, fp_hash_narrow(kind, e->h[kind][k], c->hash_bits));
		int hit = fpi_ra_possible(x, ra_part) && fpi_contains(x, key);
		if (k >= e->rstart[e->nras]) {  /* a recorded interrupt */
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
			if (e->in[k] && fpi_has_input(x, key, e->g[k])) {
				o |= OUT_INPUT;
				input++;
			}
			hits++;
		}
		out[k] = (uint8_t)o;
	}
	rp_oracle_result *res = e->results[j];
	res->hits += hits + correct;
	res->correct += correct;
	res->missed += missed;
	res->false_loop += loop;
	res->false_ra += hits - loop;
	res->input_duplicates += input;
	res->hash_collisions += hits - input;
}

/* rstart[], at[] and g[] from the memo pass's misses of the batch w[]. */
static void group_by_ra(evaluator *e, const uint64_t *w, unsigned nm)
{
	unsigned next[BATCH_SIZE + 1];
	memset(next, 0, (e->nras + 1) * sizeof *next);
	for (unsigned i = 0; i < nm; i++)
		next[e->rid[i] + 1] += !e->mtruth[i];
	for (unsigned r = 0; r < e->nras; r++)
		next[r + 1] += next[r];
	for (unsigned r = 0; r <= e->nras; r++)
		e->rstart[r] = (uint16_t)next[r];
	unsigned truth_next = next[e->nras];
	for (unsigned i = 0; i < nm; i++) {
		unsigned k = e->mtruth[i] ? truth_next++ : next[e->rid[i]]++;
		e->at[k] = e->miss[i];
		e->g[k] = w[e->miss[i]];
	}
}

/* Counts the `count` <= BATCH_SIZE boundaries at ra[], w[], truth[]:
 * memo hits at once, the misses member by member. */
static void evaluate_batch(evaluator *e, const uint32_t *ra, const uint64_t *w,
			   const uint8_t *truth, unsigned count)
{
	int use_memo = !e->memo_rest;
	unsigned nm = 0;
	if (++e->ra_gen == 0) {  /* a new generation empties ra_map */
		memset(e->ra_map, 0, sizeof e->ra_map);
		e->ra_gen = 1;
	}
	e->nras = 0;
	for (unsigned p = 0; p < count; p++) {
		if (use_memo && !truth[p]) {
			batch_memo *m = &e->memo[memo_index(ra[p], w[p])];
			if (m->ra == ra[p] && m->w == w[p]) {
				if (++m->uses == UINT32_MAX)
					memo_settle(e, (size_t)(m - e->memo));
				continue;
			}
		}
		e->miss[nm] = p;
		e->mtruth[nm] = truth[p];
		e->rid[nm++] = ra_id(e, ra[p]);
	}
	if (!use_memo) {
		if (!--e->memo_rest)
			e->memo_trial = 2;
	} else if (e->memo_trial) {
		e->memo_trial--;
	}
	if (use_memo && !e->memo_trial && (count - nm) * 4 < count)
		e->memo_rest = MEMO_REST;
	if (!nm)
		return;
	group_by_ra(e, w, nm);
	const fp_index *any = e->members[0];
	for (int k = 0; k < FP_HASH_COUNT; k++)
		if (e->hash_bits[k])
			fp_hash_words((fp_hash_kind)k, e->g, nm, any->cfg.ngather, e->hash_bits[k],
				      e->h[k]);
	for (unsigned k = 0; k < nm; k++)
		e->in[k] = any->has_input_keys ? fpi_input_find(any, e->g[k]) : NULL;
	for (unsigned j = 0; j < e->nmembers; j++)
		eval_member(e, ra, j, nm);
	/* Now memoize the misses: every outcome, including those of entries
	 * they evict, is known. */
	for (unsigned k = 0; use_memo && k < e->rstart[e->nras]; k++) {
		uint32_t p = e->at[k];
		size_t slot = memo_index(ra[p], w[p]);
		memo_settle(e, slot);
		e->memo[slot] = (batch_memo){ .w = w[p], .ra = ra[p] };
		for (unsigned j = 0; j < e->nmembers; j++)
			e->outcome[slot * e->nmembers + j] = e->out[(size_t)j * BATCH_SIZE + k];
	}
}

/* Counts queue q, a batch at a time. */
static void evaluate(evaluator *e, const batch_queue *q)
{
	for (unsigned at = 0; at < q->count; at += BATCH_SIZE) {
		unsigned n = q->count - at < BATCH_SIZE ? q->count - at : BATCH_SIZE;
		evaluate_batch(e, q->ra + at, q->w + at, q->truth + at, n);
	}
}

/* The most queues any evaluator has yet to count. */
static unsigned backlog(const batch_eval *s)
{
	unsigned most = 0;
	for (unsigned k = 0; k < s->nev; k++)
		if (s->tail - s->ev[k].head > most)
			most = s->tail - s->ev[k].head;
	return most;
}

/* An evaluator's thread: the queues in order, until told to quit with
 * none left. */
static void *evaluate_queues(void *arg)
{
	evaluator *e = arg;
	batch_eval *s = e->shared;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (e->head == s->tail && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (e->head == s->tail)
			break;
		const batch_queue *q = &s->queues[e->head % QUEUES];
		pthread_mutex_unlock(&s->mu);
		evaluate(e, q);
		pthread_mutex_lock(&s->mu);
		e->head++;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Tells the first `started` evaluators' threads to finish, and waits. */
static void stop_threads(batch_eval *s, unsigned started)
{
	pthread_mutex_lock(&s->mu);
	s->quit = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (unsigned k = 0; k < started; k++)
		pthread_join(s->ev[k].thread, NULL);
}

/* Evaluator e for n members.  0, or -1 when out of memory. */
static int evaluator_init(evaluator *e, batch_eval *s, unsigned n)
{
	e->shared = s;
	e->members = malloc(n * sizeof *e->members);
	e->results = malloc(n * sizeof *e->results);
	e->memo = malloc(MEMO_SIZE * sizeof *e->memo);
	e->outcome = calloc(MEMO_SIZE, n);
	e->out = calloc(BATCH_SIZE, n);
	if (!e->members || !e->results || !e->memo || !e->outcome || !e->out)
		return -1;
	for (size_t at = 0; at < MEMO_SIZE; at++)
		e->memo[at] = (batch_memo){ .ra = MEMO_EMPTY };
	return 0;
}

/* Points the tap at a new fill queue. */
static void start_fill(rp_batch *b, batch_queue *q)
{
	b->fill = q;
	memset(q->truth, 0, sizeof q->truth);  /* the tap writes no truth */
	b->tap.pc = q->ra;
	b->tap.word = q->w;
	b->tap.count = 0;
}

static void tap_full(void *ud)
{
	batch_flush(ud);
}

rp_batch *batch_new(const fp_index **members, rp_oracle_result **results, unsigned n)
{
	rp_batch *b = calloc(1, sizeof *b);
	batch_eval *s = calloc(1, sizeof *s);
	if (!b || !s) {
		free(b);
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	b->eval = s;
	b->sel = &members[0]->cfg;
	b->tap = (sim_tap){ .addr = b->sel->gather, .naddr = b->sel->ngather, .cap = QUEUE_SIZE,
			    .full = tap_full, .ud = b };
	start_fill(b, &s->queues[0]);
	/* A thread per processor, each with every nev-th member: neighbours
	 * in a sweep differ in cost, so this spreads it evenly. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->nev = cpus > 1 ? (unsigned)cpus : 1;
	if (s->nev > n)
		s->nev = n;
	if (!(s->ev = calloc(s->nev, sizeof *s->ev))) {
		batch_free(b);
		return NULL;
	}
	for (unsigned k = 0; k < s->nev; k++)
		if (evaluator_init(&s->ev[k], s, (n - k + s->nev - 1) / s->nev)) {
			batch_free(b);
			return NULL;
		}
	for (unsigned j = 0; j < n; j++) {
		evaluator *e = &s->ev[j % s->nev];
		e->members[e->nmembers] = members[j];
		e->results[e->nmembers++] = results[j];
		widen_hash_bits(e->hash_bits, &members[j]->cfg);
	}
	/* Without threads the queues are evaluated as they fill. */
	unsigned started = 0;
	while (started < s->nev &&
	       pthread_create(&s->ev[started].thread, NULL, evaluate_queues, &s->ev[started]) == 0)
		started++;
	s->threaded = started == s->nev;
	if (!s->threaded)
		stop_threads(s, started);
	return b;
}

void batch_free(rp_batch *b)
{
	if (!b)
		return;
	batch_eval *s = b->eval;
	if (s->threaded)
		stop_threads(s, s->nev);
	for (unsigned k = 0; s->ev && k < s->nev; k++) {
		evaluator *e = &s->ev[k];
		free(e->members);
		free(e->results);
		free(e->memo);
		free(e->outcome);
		free(e->out);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->ev);
	free(s);
	free(b);
}

void batch_flush(rp_batch *b)
{
	batch_eval *s = b->eval;
	if (!(b->fill->count = b->tap.count))
		return;
	if (!s->threaded) {
		for (unsigned k = 0; k < s->nev; k++)
			evaluate(&s->ev[k], b->fill);
		start_fill(b, b->fill);
		return;
	}
	pthread_mutex_lock(&s->mu);
	s->tail++;
	pthread_cond_broadcast(&s->cv);
	while (backlog(s) == QUEUES)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	start_fill(b, &s->queues[s->tail % QUEUES]);
}

void batch_settle(rp_batch *b)
{
	batch_eval *s = b->eval;
	batch_flush(b);
	pthread_mutex_lock(&s->mu);
	while (backlog(s))
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	for (unsigned k = 0; k < s->nev; k++)
		for (size_t at = 0; at < MEMO_SIZE; at++)
			memo_settle(&s->ev[k], at);
}
