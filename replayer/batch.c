/* batch.c — the oracle's deferred evaluation (see batch.h): the queues the
 * simulation fills, the evaluator threads that count them, and the
 * evaluators' making and settling; the evaluation itself is in
 * batch_states.c and the units it names (batch_eval.h). */
#include "replayer/batch_eval.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int batch_suits(const fp_config *c)
{
	return fp_exact_keys(c) && !c->ncounters && !(c->round_robin && c->marker == FP_MARK_VAR);
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
		batch_eval_queue(e, q);
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

/* Zeroed memory for a large table, in huge pages where the kernel has
 * them: an evaluator's tables take tens of MB, and mapping them 4 KB at a
 * time cost a fault per page; or NULL. */
static void *big_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE);
#endif
	return p;
}

static void big_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

/* Evaluator e for n members, with an index of 2^bits slots.  The states
 * and the index take their whole size at once: memory never touched is
 * never mapped, and a table that only grows need not be hashed again.
 * 0, or -1 when out of memory. */
static int evaluator_init(evaluator *e, batch_eval *s, unsigned n, unsigned bits,
			  size_t fast_max)
{
	e->shared = s;
	e->members = malloc(n * sizeof *e->members);
	e->results = calloc(n, sizeof *e->results);
	e->pd.out = calloc(BATCH_SIZE, n);
	e->tb.tabled = calloc(n, 1);
	e->vx.by_out = calloc(n, sizeof *e->vx.by_out);
	e->cl.scratch = malloc(n);
	e->vx.vecs.size = n;
	e->vx.vec_counts.size = sizeof(uint64_t);
	e->vx.vec_tuples.size = sizeof(tuple_entry);
	e->vx.vec_index = calloc(2, sizeof *e->vx.vec_index);
	e->vx.vec_mask = 1;
	e->pd.ra_gen = 1;  /* ra_map's zeroed entries are of generation 0: free */
	e->st.max_states = 1u << (bits - 1);
	e->cl.fast_mem.max = fast_max;
	e->st.index_mask = (1u << bits) - 1;
	if (!e->members || !e->results || !e->pd.out || !e->tb.tabled || !e->vx.by_out || !e->vx.vec_index ||
	    !e->cl.scratch ||
	    !(e->st.index = big_alloc(((size_t)1 << bits) * sizeof *e->st.index)) ||
	    !(e->st.states = big_alloc(e->st.max_states * sizeof *e->st.states)))
		return -1;
	e->st.last = NO_STATE;
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

rp_batch *batch_new(const fp_index **members, rp_oracle_result **results, unsigned n,
		    uint32_t data_size, unsigned table_bits)
{
	return batch_new_opts(members, results, n, data_size, table_bits, NULL);
}

rp_batch *batch_new_opts(const fp_index **members, rp_oracle_result **results, unsigned n,
			 uint32_t data_size, unsigned table_bits, const batch_opts *o)
{
	unsigned off = o ? o->off : 0;
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
	sim_tap_plan(&b->tap, data_size);
	s->plan = b->tap;
	start_fill(b, &s->queues[0]);
	/* A thread per processor, each with its share of the states, where
	 * a new state costs a lookup per member.  Where every member can
	 * have class tables (tabled()), a state that comes often enough to
	 * matter costs a few lookups whatever the members, and one thread
	 * keeps up with the simulation: a second would only read every
	 * boundary again to skip it (callgrind: a tenth of the oracle's host
	 * instructions on adcapp). */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned ntabled = 0;
	for (unsigned j = 0; j < n; j++)
		ntabled += tabled(members[j]) != 0;
	s->nev = cpus > 1 && ntabled < n ? (unsigned)cpus : 1;
	if (o && o->evaluators)
		s->nev = o->evaluators;
	if (off & BATCH_NO_THREADS)
		s->nev = 1;
	if (!(s->ev = calloc(s->nev, sizeof *s->ev))) {
		batch_free(b);
		return NULL;
	}
	/* A lone evaluator keeps every state: twice the table of one of two. */
	unsigned bits = table_bits ? table_bits : STATES_MAX_BITS - (s->nev > 1);
	bits = bits > STATES_MAX_BITS ? STATES_MAX_BITS : bits;
	/* The class tables' budget in proportion, below the least table of
	 * states too: a test's tiny one is spent by the first address. */
	size_t fast_max = FAST_MAX_BYTES >> (STATES_MAX_BITS - bits);
	bits = bits < STATES_MIN_BITS ? STATES_MIN_BITS : bits;
	if (!(s->results = malloc(n * sizeof *s->results))) {
		batch_free(b);
		return NULL;
	}
	memcpy(s->results, results, n * sizeof *s->results);
	for (unsigned k = 0; k < s->nev; k++) {
		evaluator *e = &s->ev[k];
		if (evaluator_init(e, s, n, bits, fast_max)) {
			batch_free(b);
			return NULL;
		}
		e->id = k;
		e->off = off;
		for (unsigned j = 0; j < n; j++) {
			e->members[e->nmembers++] = members[j];
			widen_hash_bits(e->hash_bits, &members[j]->cfg);
			e->tb.tabled[j] = (uint8_t)tabled(members[j]);
			e->tb.ntabled += e->tb.tabled[j] != 0;
			e->tb.nwide += e->tb.tabled[j] == 2;
		}
		e->cl.fast_ok = e->tb.ntabled == n && !(off & BATCH_NO_CLASSES);
	}
	/* Without threads the queues are evaluated as they fill. */
	unsigned started = 0;
	while (!(off & BATCH_NO_THREADS) && started < s->nev &&
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
		big_free(e->st.states, e->st.max_states * sizeof *e->st.states);
		big_free(e->st.index, ((size_t)e->st.index_mask + 1) * sizeof *e->st.index);
		free(e->vx.vecs.items);
		free(e->vx.vec_counts.items);
		free(e->vx.vec_tuples.items);
		free(e->cl.fast_list);
		free(e->vx.vec_index);
		free(e->pd.out);
		free(e->tb.tabled);
		free(e->vx.by_out);
		batch_tables_free(e);
		free(e->cl.tuples);
		free(e->cl.scratch);
	}
	free(s->results);
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
			batch_eval_queue(&s->ev[k], b->fill);
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
	for (unsigned k = 0; k < s->nev; k++) {
		evaluator *e = &s->ev[k];
		batch_flush_pending(e);
		batch_settle_counts(e, 0);
		for (unsigned j = 0; j < e->nmembers; j++) {
			rp_oracle_result *to = s->results[j], *from = &e->results[j];
			to->hits += from->hits;
			to->correct += from->correct;
			to->false_loop += from->false_loop;
			to->false_ra += from->false_ra;
			to->input_duplicates += from->input_duplicates;
			to->hash_collisions += from->hash_collisions;
			to->missed += from->missed;
			*from = (rp_oracle_result){ 0 };
		}
	}
}
