/* batch.c — the oracle's deferred evaluation (see batch.h). */
#include "replayer/batch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "util/grow.h"

/* Each evaluator keeps the distinct states (ra, g(s)) it owns, at most
 * 2^(STATES_MAX_BITS - 2), twice that when it is the only one (or as
 * told), until they are settled and dropped, and evaluates each state
 * once, when it first comes.  A state's outcomes
 * for every member form a vector, and the vectors are interned: most
 * states share one with many others, so a boundary counts once, under its
 * state's vector, and settling adds each vector's count once per member.
 *
 * The states are kept in the order they first came, and found again
 * through a hash index.  A firmware repeats its paths — a delay loop
 * counting down the same values call after call, a polling loop going
 * round — so the state after the one just seen is most often the one that
 * came after it the last time: each state links to that one, which is
 * tried first, by one compare, where a hash probe of a table of millions
 * costs a hash and waits for memory.  (Trying only the state stored next,
 * a loop's return to its first state missed at every turn: 46 % of
 * adcapp's boundaries.)
 *
 * Counting states pays when they repeat, however far apart; it only costs
 * when they do not (a free-running timer in the selector).  So when the
 * table fills with less than a quarter of its boundaries repeats, it rests
 * for STATES_REST batches, each boundary evaluated as it comes, and is
 * then tried again. */
#define STATES_MIN_BITS 12
#define STATES_MAX_BITS 22      /* a 4M-slot index, 2M states: 80 MB an evaluator */
_Static_assert(STATES_MAX_BITS <= 24, "state numbers take 24 bits of an index entry");
#define STATES_REST 256
/* The interned vectors an evaluator keeps, at most (then the table is
 * settled and emptied as when full): a run that is new at every turn
 * brings ever new ones, and each takes a byte a member. */
#define MAX_VECTORS (1u << 17)
/* The ids counted under, at most: the vectors', and the tuples' of class
 * tables (see tuple_id), 24 bytes each. */
#define MAX_IDS (1u << 19)
#define NO_STATE UINT32_MAX
#define NO_VECTOR UINT32_MAX    /* a state not yet evaluated */

/* Full queues the simulation may run ahead of the evaluation by.  The
 * simulation and the evaluators take turns being the slower (the new
 * states come in bursts): with 4 queues, 1.6 ms of simulation, one side
 * waited for the other at every turn; 16 take 7 MB. */
#define QUEUES 16

_Static_assert(FP_HASH_COUNT == 4, "flush_fast unrolls a state's classes, a kind each");
_Static_assert(BATCH_SIZE <= 65536, "a batch's boundaries are numbered in 16 bits");

/* Outcome tables.  A member whose hash part has at most TABLE_BITS bits
 * has, at one return address, an outcome for each value of those bits;
 * the members hashing with one kind there read the same bits (the low
 * ones of the hash, Knuth's top ones), so a table of 2^TABLE_BITS
 * entries gives the outcomes of a run of such members at once: a copy
 * per run for a state instead of a bitmap lookup per member.  Building
 * the tables costs about as much as 2^TABLE_BITS states looked up member
 * by member, so a return address gets them when that many new states
 * have come there: a loop's few addresses get them, where nearly all new
 * states are, and the cost is at most what they save. */
#define TABLE_BITS 10
/* A member of up to WIDE_BITS bits of hash part (the paper's splits with
 * few ra bits) is tabled too, by the first WIDE_BITS bits, where
 * WIDE_AFTER new states have come: a loop whose state changes at every
 * turn (a counter in the selector: funcsheap) brings hundreds of
 * thousands to a few addresses, each else looked up member by member.
 * A member's outcomes are computed once per value of its own bits and
 * copied out to the entries, so the build costs about 2^WIDE_BITS
 * bytes a member: a few thousand states' lookups. */
#define WIDE_BITS 16
#define WIDE_AFTER (1u << 13)
#define TABLES_MAX_BYTES (16u << 20)  /* an evaluator's, at most */

/* A table of members first .. first + n - 1, which hash with `kind` at
 * the return address: their outcomes for each value of the hash's first
 * `bits` bits, n bytes an entry, so that a state copies them in a row. */
typedef struct table_run {
	unsigned kind, bits, first, n;
	const uint8_t *bytes;             /* entry x: bytes + x * n */
} table_run;

typedef struct ra_tables {
	int wide;                         /* the wide members' too */
	size_t bytes;
	unsigned nruns;
	table_run run[];
} ra_tables;

/* Classes of hash values.  Where a loop brings a new state to one return
 * address at nearly every turn (a counter in the selector: funcsheap's
 * delay loop), each still cost hundreds of host instructions: a table
 * entry copied per run of members, and a vector of every member's outcome
 * hashed to intern it.  But there the members that hash with one kind
 * all read the first `bits` (at most WIDE_BITS) bits of the same hash, so
 * their outcomes are a function of those bits, and most values give the
 * outcomes of many others.  So each kind at an address has classes, a
 * number for its members' outcomes: a state's class is found by walking
 * its members' levels (walk_class: their bits, fewest first), a bit test
 * a member and a step only where one is set, from a table of the first
 * LOW_BITS bits; and once FAST_AFTER new states walked there, by a table
 * of all the bits (fast_fill).  A state's outcomes are then a function of
 * its classes, one per kind, and it is counted under that tuple of
 * classes (tuple_id).  The threshold: a table costs about what a thousand
 * states walked do (callgrind, 85 members: 4096 and 256 cost adcapp and
 * funcsheap_noloop more). */
#define FAST_AFTER 1024u
/* An evaluator's classes and their tables, at most (in proportion for a
 * smaller table of states: batch_new).  The classes count too: a long run
 * keeps meeting new values, and at 10^9 instructions of adcapp the
 * grid's classes had grown past the tables (35 MB beside 34 MB), and
 * went on growing. */
#define FAST_MAX_BYTES (32u << 20)
#define CLASSES_MAX 65535u          /* a kind's classes at an address (16-bit) */
#define TUPLES_MAX_BITS 18
/* Before its table, a kind's classes of the first LOW_BITS bits are
 * tabled (where most values have outcomes: a member of few bits), and
 * the members of more bits walked (walk_class). */
#define LOW_BITS 8

/* A member in a kind's classes: its bitmaps at the address, its bits
 * and its number in the batch. */
typedef struct fast_member {
	const uint64_t *row, *at_row;
	uint64_t ymask;             /* its hash part of the kind's hash h: */
	unsigned yshift;            /* (h >> yshift) & ymask */
	unsigned bits, j;
	unsigned from, to;          /* its level: the members of its bits */
	unsigned ra_bits, rr;       /* its configuration's, for input_vector */
} fast_member;

/* The bytes an evaluator's class tables take, and may take. */
typedef struct fast_budget {
	size_t used, max;
} fast_budget;

typedef struct fast_kind {
	unsigned kind, bits, n;     /* the hash, its bits read, the members */
	fast_budget *budget;        /* the evaluator's, which new classes take from
				     * once built (NULL: while built) */
	const uint64_t *h;          /* the evaluator's hashes of that kind (e->h[kind]) */
	unsigned xshift;            /* the bits of hash h: (h >> xshift) & xmask */
	uint64_t xmask;
	uint16_t *cls;              /* per value of the bits: its class; NULL: walk_class */
	uint16_t *low;              /* per value of the first LOW_BITS bits: its class */
	unsigned walk_from;         /* the first member of more than LOW_BITS bits */
	fast_member *m;             /* in order of their bits */
	uint8_t *classes;           /* class c's outcomes, n bytes at (c - 1) * n */
	uint64_t *count;            /* per class (c), the boundaries under it while settling */
	uint32_t nclasses, cap;
	/* Each class but the first, by its parent, level and outcomes there
	 * (class_child): key + 1 (0: empty), and the class. */
	uint64_t *map;
	uint16_t *val;
	uint32_t mask;
} fast_kind;

/* The class tables of a return address: one per kind its members hash
 * with there. */
typedef struct ra_fast {
	uint32_t slot;              /* its number, in the tuples' keys */
	uint32_t walked;            /* new states that walked */
	int dense;                  /* every kind has its table */
	unsigned nk;
	fast_kind k[FP_HASH_COUNT];
} ra_fast;

/* A tuple of classes (16 bits each, kind by kind) at the address of
 * class tables slot + 1 (0: an empty entry), and its interned vector. */
typedef struct tuple_entry {
	uint64_t cls;
	uint32_t slot1, vec;
} tuple_entry;

/* A return address new states came to: how many, its tables once built
 * (NULL before, or when they would not fit), and its classes (NULL when
 * some member cannot have them, or they would not fit). */
typedef struct ra_info {
	uint32_t key;                     /* ra + 1; 0: an empty slot */
	uint32_t count;
	ra_tables *t;
	ra_fast *fast;
} ra_info;

/* A state; once evaluated, its boundaries are counted under its outcome
 * vector, and only while it waits for that, in `count`. */
typedef struct state {
	uint64_t w;                 /* g(s), packed as the queues pack it */
	uint64_t count;             /* its boundaries so far, while vec is unknown */
	uint32_t ra;
	uint32_t vec;               /* its interned outcome vector, or NO_VECTOR */
	uint32_t next;              /* the state that came after it last, or NO_STATE */
} state;

/* One thread's share of a batch's states, and all it needs to count them
 * for every member: each evaluator sees every queue and takes the states
 * at the return addresses owner() gives it, so no state is looked up or
 * evaluated twice. */
typedef struct evaluator {
	struct batch_eval *shared;
	unsigned id;          /* it owns the states whose hash says so */
	const fp_index **members;   /* every member of the batch */
	rp_oracle_result *results;  /* its share of their counts, until settled */
	unsigned nmembers;
	unsigned hash_bits[FP_HASH_COUNT];  /* the widest any member needs; 0: none */

	state *states;              /* in the order they came */
	uint32_t nstates, max_states;
	/* Open addressing: state number + 1 in the low 24 bits, 0 empty,
	 * and 8 bits of the state's hash above, so that a probe reads a state
	 * only when they match; 4 bytes a slot keep the index in the cache. */
	uint32_t *index;
	uint32_t index_mask;
	uint32_t last;              /* the state of the last boundary, or NO_STATE */
	uint64_t seen, repeats;     /* boundaries in the table since it was settled */
	unsigned rest;              /* batches left before the table is tried again */
	/* The interned outcome vectors, nmembers bytes each (OUT_* bits per
	 * member), with the boundaries counted under each since the last
	 * settling, and an open-addressed index of them (id + 1; 0 empty). */
	growbuf vecs;
	growbuf vec_counts;
	growbuf vec_tuples;         /* per id, a tuple of classes (tuple_id), or slot1 0 */
	uint32_t *vec_index;
	uint32_t vec_mask;

	/* The new states and the boundaries at recorded interrupts waiting to
	 * be evaluated, npend of them, as the table pass finds them: return
	 * address, g(s), state number (NO_STATE: none, count it at once),
	 * at a recorded interrupt, and ras[rid[i]] (a loop has few distinct
	 * return addresses). */
	uint32_t pend_ra[BATCH_SIZE];
	uint64_t pend_w[BATCH_SIZE];
	uint32_t pend_state[BATCH_SIZE];
	uint8_t pend_truth[BATCH_SIZE];
	unsigned npend;
	uint16_t rid[BATCH_SIZE];
	uint32_t ras[BATCH_SIZE];
	unsigned nras;
	struct { uint32_t ra, gen; uint16_t id; } ra_map[2 * BATCH_SIZE];
	uint32_t ra_gen;
	/* The pending ones grouped by return address, so that a member looks
	 * its bitmaps up once per address and reads the rest in a row: those
	 * at ras[r] are [rstart[r], rstart[r + 1]), those at recorded
	 * interrupts [rstart[nras], nm).  For each: its pending position,
	 * state, g(s), hashes, the recorded interrupts with that g(s) (in
	 * members[0]'s table; the members share it) or NULL, and each
	 * member's outcome. */
	uint16_t rstart[BATCH_SIZE + 1];
	uint32_t at[BATCH_SIZE];
	uint32_t state_at[BATCH_SIZE];
	uint64_t g[BATCH_SIZE];
	uint64_t h[FP_HASH_COUNT][BATCH_SIZE];
	const fpi_input *in[BATCH_SIZE];
	/* The new states whose g(s) was recorded, those at ras[r] from
	 * with_in[in_start[r]] to with_in[in_start[r + 1]]. */
	uint16_t with_in[BATCH_SIZE];
	uint16_t in_start[BATCH_SIZE + 1];
	uint8_t *out;               /* out[k * nmembers + j]: new state k, member j */
	uint64_t (*by_out)[8];      /* states_settle's, one row per member, zero */
	/* The outcome tables: which members they cover (tabled[j]), the
	 * return addresses new states came to (open addressing), all tables'
	 * bytes, and per return address of the pending ones, its tables or
	 * NULL. */
	uint8_t *tabled;
	unsigned ntabled, nwide;
	ra_info *rinfo;
	uint32_t rinfo_mask, nrinfo;
	size_t table_bytes;
	const ra_tables *grp_tables[BATCH_SIZE];
	/* Class tables: whether every member can have them (bitmaps, hash
	 * parts of at most WIDE_BITS), how many addresses have them and their
	 * bytes, the tuple cache (tuple_mask + 1 entries, ntuples used), per
	 * pending state its address's tables (NULL: evaluated member by
	 * member) and whether it is counted, and a vector being put
	 * together. */
	int fast_ok;
	uint32_t nfast;
	ra_fast **fast_list;        /* by slot */
	fast_budget fast_mem;
	tuple_entry *tuples;
	uint32_t tuple_mask, ntuples;
	ra_fast *fast_of[BATCH_SIZE];
	uint8_t fast_done[BATCH_SIZE];
	uint8_t *scratch;

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
	rp_oracle_result **results; /* the members', which settling adds to */
	sim_tap plan;               /* how the queues' words are packed */
	int threaded, quit;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} batch_eval;

int batch_suits(const fp_config *c)
{
	return fp_exact_keys(c) && !c->ncounters && !(c->round_robin && c->marker == FP_MARK_VAR);
}

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

static void tuples_clear(evaluator *e);

/* Adds the boundaries counted under each outcome vector to the results
 * (no state is pending); `empty`: and drops the states and the vectors,
 * else the states are known when they come again. */
static void states_settle(evaluator *e, int empty)
{
	uint64_t *counts = e->vec_counts.items;
	const uint8_t *vecs = e->vecs.items;
	/* Per member, the boundaries under each outcome (OUT_* bits, below
	 * 8) first: count_outcome's branches, for tens of thousands of
	 * vectors times every member, were mispredicted at every turn. */
	uint64_t (*by_out)[8] = e->by_out;
	const tuple_entry *tuples = e->vec_tuples.items;
	for (size_t v = 0; v < e->vec_counts.n; v++) {
		if (!counts[v])
			continue;
		if (tuples[v].slot1) {  /* class by class, below */
			ra_fast *f = e->fast_list[tuples[v].slot1 - 1];
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
	for (uint32_t s = 0; s < e->nfast; s++)
		for (unsigned i = 0; i < e->fast_list[s]->nk; i++) {
			fast_kind *k = &e->fast_list[s]->k[i];
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
	memset(e->index, 0, ((size_t)e->index_mask + 1) * sizeof *e->index);
	e->nstates = 0;
	e->last = NO_STATE;
	e->vecs.n = e->vec_counts.n = e->vec_tuples.n = 0;
	memset(e->vec_index, 0, ((size_t)e->vec_mask + 1) * sizeof *e->vec_index);
	tuples_clear(e);
}

static void flush_pending(evaluator *e);

/* Whether another batch's new vectors or ids might not fit. */
static int ids_full(const evaluator *e)
{
	return e->vecs.n + BATCH_SIZE > MAX_VECTORS || e->vec_counts.n + BATCH_SIZE > MAX_IDS;
}

/* Room for another batch of new states: when the table is full, it is
 * settled and emptied. */
static void states_make_room(evaluator *e)
{
	if (e->nstates + BATCH_SIZE <= e->max_states && !ids_full(e))
		return;
	flush_pending(e);
	states_settle(e, 1);
	if (e->repeats * 4 < e->seen)
		e->rest = STATES_REST;
	e->seen = e->repeats = 0;
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
static int vectors_make_room(evaluator *e)
{
	growbuf *bufs[3] = { &e->vecs, &e->vec_counts, &e->vec_tuples };
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
	size_t slots = (size_t)e->vec_mask + 1;
	if ((e->vecs.n + BATCH_SIZE) * 2 <= slots)
		return 0;
	while ((e->vecs.n + BATCH_SIZE) * 2 > slots)
		slots *= 2;
	uint32_t *index = calloc(slots, sizeof *index);
	if (!index)
		return -1;
	free(e->vec_index);
	e->vec_index = index;
	e->vec_mask = (uint32_t)(slots - 1);
	const tuple_entry *tuples = e->vec_tuples.items;
	for (size_t id = 0; id < e->vec_counts.n; id++) {
		if (tuples[id].slot1)
			continue;  /* a tuple: no vector of its own */
		size_t at = vector_hash((const uint8_t *)e->vecs.items +
					(size_t)tuples[id].vec * e->nmembers,
					e->nmembers) & e->vec_mask;
		while (index[at])
			at = (at + 1) & e->vec_mask;
		index[at] = (uint32_t)id + 1;
	}
	return 0;
}

/* The id of outcome vector v (nmembers bytes), interned if new; there is
 * room (vectors_make_room).  Its bytes are vector vec_tuples[id].vec of
 * vecs. */
static uint32_t intern_vector(evaluator *e, const uint8_t *v)
{
	const tuple_entry *tuples = e->vec_tuples.items;
	size_t at = vector_hash(v, e->nmembers) & e->vec_mask;
	for (;; at = (at + 1) & e->vec_mask) {
		uint32_t id = e->vec_index[at];
		if (!id)
			break;
		if (!memcmp((const uint8_t *)e->vecs.items + (size_t)tuples[id - 1].vec * e->nmembers,
			    v, e->nmembers))
			return id - 1;
	}
	uint32_t id = (uint32_t)e->vec_counts.n;
	*(tuple_entry *)grow(&e->vec_tuples) = (tuple_entry){ .vec = (uint32_t)e->vecs.n };
	memcpy(grow(&e->vecs), v, e->nmembers);
	*(uint64_t *)grow(&e->vec_counts) = 0;
	e->vec_index[at] = id + 1;
	return id;
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

/* Whether the g(s) of new state k was recorded at a return address with
 * ra* ra_part where round-robin configuration c hashed it to h too: there
 * the recorded fingerprint is this one. */
static int rr_input_at(const evaluator *e, const fp_config *c, unsigned k, uint64_t ra_part,
		       uint64_t h)
{
	const fp_index *x = e->members[0];  /* its input table is every member's */
	const fpi_input *in = e->in[k];
	for (uint32_t i = 0; i < in->count; i++) {
		uint32_t ra = x->input_ras[in->first + i];
		if (fp_reduce_ra(ra, c->ra_bits) != ra_part)
			continue;
		fp_hash_kind kind = fp_pick_hash(c, &(fp_state){ .ra = ra });
		if (fp_hash_narrow(kind, e->h[kind][k], c->hash_bits) == h)
			return 1;
	}
	return 0;
}

/* The bitmaps of member x at return address ra: the hash parts recorded
 * with its ra* (row, and its summary sum) and with ra itself (at_row);
 * x's hash parts are in bitmaps. */
static void member_rows(const fp_index *x, uint32_t ra, const uint64_t **row,
			const uint64_t **sum, const uint64_t **at_row)
{
	uint64_t ra_part = fp_reduce_ra(ra, x->cfg.ra_bits);
	uint32_t n = fpi_bitsets_find(&x->by_part, (uint32_t)ra_part);
	*row = x->by_part.bits + (size_t)n * x->by_part.words;
	*sum = x->by_part.summary + (size_t)n * x->by_part.swords;
	/* When one address was recorded with this ra*, its bitmap is
	 * the ra*'s (or none): reuse the one already in the cache. */
	uint32_t only = x->ra_class ? x->ra_class[ra_part] : FPI_RA_MIXED;
	*at_row = only == ra		? *row
		  : only != FPI_RA_MIXED ? fpi_bitsets_none(&x->by_ra)
					 : fpi_bitsets_row(&x->by_ra, ra);
}

/* A hash part's outcome bits but OUT_INPUT: at_row's bit implies row's. */
static inline unsigned row_outcome(const uint64_t *row, const uint64_t *sum,
				   const uint64_t *at_row, uint64_t h)
{
	if (!fpi_row_has(sum, h >> 6))
		return 0;
	return (unsigned)fpi_row_has(row, h) | (unsigned)fpi_row_has(at_row, h) << 1;
}

/* Whether member x's outcomes come from outcome tables: 0 no, 1 from
 * those of TABLE_BITS, 2 from the wide ones only. */
static int tabled(const fp_index *x)
{
	if (!x->by_part.bits || !x->by_ra.bits || x->cfg.hash_bits > WIDE_BITS)
		return 0;
	return x->cfg.hash_bits <= TABLE_BITS ? 1 : 2;
}

/* Whether tables t give member j's outcomes. */
static int covers(const evaluator *e, const ra_tables *t, unsigned j)
{
	return t && (e->tabled[j] == 1 || (e->tabled[j] == 2 && t->wide));
}

/* The kind member j hashes with at return address ra. */
static unsigned member_kind(const evaluator *e, unsigned j, uint32_t ra)
{
	return (unsigned)fp_pick_hash(&e->members[j]->cfg, &(fp_state){ .ra = ra });
}

/* Whether member j is in tables with (wide) or without the wide members. */
static int in_tables(const evaluator *e, unsigned j, int wide)
{
	return e->tabled[j] == 1 || (wide && e->tabled[j] == 2);
}

/* Whether member j starts a run of tabled members at ra: members of one
 * kind and one class (tabled()) in a row. */
static int run_starts(const evaluator *e, unsigned j, uint32_t ra, int wide)
{
	return in_tables(e, j, wide) &&
	       (!j || e->tabled[j - 1] != e->tabled[j] ||
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
			bytes += (size_t)1 << table_bits(e, member_kind(e, j, ra), e->tabled[j]);
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
		unsigned k = member_kind(e, j, ra), bits = table_bits(e, k, e->tabled[j]);
		*run = (table_run){ .kind = k, .bits = bits, .first = j, .bytes = at };
		while (j + run->n < e->nmembers && e->tabled[j + run->n] == e->tabled[j] &&
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

static void fast_free(ra_fast *f)
{
	for (unsigned i = 0; f && i < f->nk; i++) {
		if (f->k[i].cls != f->k[i].low)
			free(f->k[i].cls);
		free(f->k[i].low);
		free(f->k[i].m);
		free(f->k[i].classes);
		free(f->k[i].count);
		free(f->k[i].map);
		free(f->k[i].val);
	}
	free(f);
}

static uint32_t child_slot(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* Whether budget b has `more` bytes left, which are then taken. */
static int budget_take(fast_budget *b, size_t more)
{
	if (b->used + more > b->max)
		return 0;
	b->used += more;
	return 1;
}

/* Room in kind k, below CLASSES_MAX, for another class: its outcomes,
 * its count and its entry in the map.  0, or -1 when out of memory. */
static int class_room(fast_kind *k)
{
	if (k->nclasses == k->cap) {
		uint32_t cap = 2 * k->cap;
		uint8_t *c = realloc(k->classes, (size_t)cap * k->n);
		if (c)
			k->classes = c;
		uint64_t *n = realloc(k->count, ((size_t)cap + 1) * sizeof *n);
		if (n)
			k->count = n;
		if (!c || !n)
			return -1;
		memset(k->count + k->cap + 1, 0, (size_t)(cap - k->cap) * sizeof *n);
		k->cap = cap;
	}
	if ((k->nclasses + 1) * 2 <= k->mask + 1)
		return 0;
	uint32_t mask = 2 * k->mask + 1;
	uint64_t *map = calloc((size_t)mask + 1, sizeof *map);
	uint16_t *val = malloc(((size_t)mask + 1) * sizeof *val);
	if (!map || !val) {
		free(map);
		free(val);
		return -1;
	}
	for (uint32_t i = 0; i <= k->mask; i++) {
		if (!k->map[i])
			continue;
		uint32_t at = child_slot(k->map[i], mask);
		while (map[at])
			at = (at + 1) & mask;
		map[at] = k->map[i];
		val[at] = k->val[i];
	}
	free(k->map);
	free(k->val);
	k->map = map;
	k->val = val;
	k->mask = mask;
	return 0;
}

/* The class of parent class p with the members of one level (their bits
 * being that level) at outcomes o (OUT_* bits, 2 a member, those of m[from
 * .. to) in order): interned in map, a new class (p's outcomes and these)
 * when new; 0 when no more fit (the budget spent, CLASSES_MAX, out of
 * memory). */
static unsigned class_child(fast_kind *k, unsigned p, uint32_t o, unsigned from, unsigned to)
{
	uint64_t key = ((uint64_t)from << 48 | (uint64_t)p << 32 | o) + 1;  /* 0: empty */
	uint32_t at = child_slot(key, k->mask);
	for (; k->map[at]; at = (at + 1) & k->mask)
		if (k->map[at] == key)
			return k->val[at];
	/* Its outcomes, its count and two slots of the map (half full); a
	 * kind that is full takes nothing, or each refusal would spend the
	 * budget of the others. */
	size_t bytes = k->n + sizeof *k->count + 2 * (sizeof *k->map + sizeof *k->val);
	if (k->nclasses == CLASSES_MAX || (k->budget && !budget_take(k->budget, bytes)) ||
	    class_room(k))
		return 0;
	for (at = child_slot(key, k->mask); k->map[at];)
		at = (at + 1) & k->mask;
	uint8_t *v = k->classes + (size_t)k->nclasses * k->n;
	memcpy(v, k->classes + (size_t)(p - 1) * k->n, k->n);
	for (unsigned t = from; t < to; t++)
		v[t] = (uint8_t)(o >> 2 * (t - from) & 3);
	unsigned c = ++k->nclasses;
	k->map[at] = key;
	k->val[at] = (uint16_t)c;
	return c;
}

/* The class of the kind's hash h (as e->h holds it) without the table:
 * level by level, its members' outcomes where they have some.  A few
 * loads a member, where a state comes to an address seldom; 0 when no
 * more classes fit. */
static unsigned walk_class(fast_kind *k, uint64_t h)
{
	unsigned c = k->low[k->kind == FP_HASH_KNUTH ? h >> (64 - LOW_BITS)
						     : h & fp_hash_mask(LOW_BITS)];
	for (unsigned t = k->walk_from; t < k->n; t++) {
		const fast_member *m = &k->m[t];
		uint64_t y = h >> m->yshift & m->ymask;
		if (!fpi_row_has(m->row, y))
			continue;  /* the usual case: at_row's bits imply row's */
		uint32_t o = 0;  /* its level's outcomes, which share y */
		for (unsigned i = m->from; i < m->to; i++)
			o |= (uint32_t)(fpi_row_has(k->m[i].row, y) |
					fpi_row_has(k->m[i].at_row, y) << 1) << 2 * (i - m->from);
		if (!(c = class_child(k, c, o, m->from, m->to)))
			return 0;
		t = m->to - 1;
	}
	return c;
}

/* Fills kind k's table: the class of every value of its bits.  Level by
 * level, its members in order of their bits: at level L the classes are
 * those of the members of at most L bits, for each value of the first L
 * bits, and a value's class is its parent's (the value of its first L - 1
 * bits) unless a member of L bits has an outcome there, which only the
 * bits set in that member's bitmaps give: so the cost is the table's size
 * and the bits recorded, not a lookup per value and member.  Class 1 is
 * every outcome 0, and a class's outcomes for the members of more bits
 * than its level are 0.  0, or -1 when out of memory or classes. */
static uint16_t *fast_fill(fast_kind *k, unsigned bits)
{
	size_t entries = (size_t)1 << bits;
	uint16_t *c = malloc((entries < 4 ? 4 : entries) * sizeof *c);  /* 8 bytes read */
	if (!c)
		return NULL;
	c[0] = 1;
	int knuth = k->kind == FP_HASH_KNUTH, rc = 0;
	unsigned t = 0;
	for (unsigned L = 0; L <= bits && !rc; L++) {
		size_t half = L ? (size_t)1 << (L - 1) : 0, size = (size_t)1 << L;
		if (L && !knuth) {  /* parent: the low L - 1 bits */
			for (size_t y = 0; y < half; y += 4) {  /* 8 bytes at a time */
				uint64_t v;
				memcpy(&v, c + (y & (half - 1)), sizeof v);
				memcpy(c + half + y, &v, half < 4 ? half * sizeof *c : sizeof v);
			}
		} else if (L) {  /* parent: the top L - 1 bits, two at once */
			for (size_t y = half; y-- > 0;) {
				uint32_t two = c[y] * 0x10001u;
				memcpy(c + 2 * y, &two, sizeof two);
			}
		}
		unsigned from = t;
		while (t < k->n && k->m[t].bits == L)
			t++;
		if (t == from)
			continue;
		/* The values where a member of this level has an outcome: the
		 * bits set in its bitmap of the ra*, which at_row's imply. */
		for (size_t w = 0; w < (size + 63) / 64 && !rc; w++) {
			uint64_t any = 0;
			for (unsigned i = from; i < t; i++)
				any |= k->m[i].row[w];
			while (any && !rc) {
				size_t y = w * 64 + (unsigned)__builtin_ctzll(any);
				any &= any - 1;
				uint32_t o = 0;
				for (unsigned i = from; i < t; i++)
					o |= (uint32_t)(fpi_row_has(k->m[i].row, y) |
							fpi_row_has(k->m[i].at_row, y) << 1) << 2 * (i - from);
				unsigned child = class_child(k, c[y], o, from, t);
				if (!child)
					rc = -1;
				c[y] = (uint16_t)child;
			}
		}
	}
	if (rc) {
		free(c);
		return NULL;
	}
	return c;
}

/* The bits kind k's first table (k->low) is indexed by. */
static unsigned low_bits(const fast_kind *k)
{
	return k->bits < LOW_BITS ? k->bits : LOW_BITS;
}

/* The bytes fast_build's f takes. */
static size_t fast_size(const ra_fast *f)
{
	size_t bytes = sizeof *f;
	for (unsigned i = 0; i < f->nk; i++) {
		const fast_kind *k = &f->k[i];
		bytes += k->n * sizeof *k->m + (size_t)k->cap * k->n +
			 ((size_t)k->cap + 1) * sizeof *k->count +
			 ((size_t)k->mask + 1) * (sizeof *k->map + sizeof *k->val) +
			 ((size_t)1 << low_bits(k)) * sizeof *k->low;
	}
	return bytes;
}

/* Orders a kind's members by their bits. */
static int by_bits(const void *a, const void *b)
{
	const fast_member *x = a, *y = b;
	return x->bits != y->bits ? (x->bits > y->bits) - (x->bits < y->bits)
				  : (x->j > y->j) - (x->j < y->j);
}

/* The classes of return address ra (see fast_kind), without tables yet,
 * or NULL when out of memory or a level has more than 16 members (the
 * outcomes of a level are a 32-bit word). */
static ra_fast *fast_build(evaluator *e, uint32_t ra)
{
	ra_fast *f = calloc(1, sizeof *f);
	ra_fast **list = realloc(e->fast_list, (e->nfast + 1) * sizeof *list);
	if (list)
		e->fast_list = list;
	if (!f || !list) {
		free(f);
		return NULL;
	}
	for (unsigned j = 0; j < e->nmembers; j++) {
		unsigned kind = member_kind(e, j, ra), i = 0, b = e->members[j]->cfg.hash_bits;
		while (i < f->nk && f->k[i].kind != kind)
			i++;
		if (i == f->nk)
			f->k[f->nk++].kind = kind;
		f->k[i].n++;
		if (b > f->k[i].bits)
			f->k[i].bits = b;
	}
	for (unsigned i = 0; i < f->nk; i++) {
		fast_kind *k = &f->k[i];
		k->h = e->h[k->kind];
		k->xshift = k->kind == FP_HASH_KNUTH && k->bits ? 64 - k->bits : 0;
		k->xmask = fp_hash_mask(k->bits);
		k->m = calloc(k->n, sizeof *k->m);
		k->cap = 16;
		k->classes = calloc(k->cap, k->n);  /* class 1: every outcome 0 */
		k->count = calloc((size_t)k->cap + 1, sizeof *k->count);
		k->mask = 31;
		k->map = calloc((size_t)k->mask + 1, sizeof *k->map);
		k->val = malloc(((size_t)k->mask + 1) * sizeof *k->val);
		if (!k->m || !k->classes || !k->count || !k->map || !k->val) {
			fast_free(f);
			return NULL;
		}
		k->nclasses = 1;
		k->n = 0;
	}
	for (unsigned j = 0; j < e->nmembers; j++) {
		unsigned kind = member_kind(e, j, ra), i = 0;
		while (f->k[i].kind != kind)
			i++;
		fast_member *m = &f->k[i].m[f->k[i].n++];
		const uint64_t *sum;
		member_rows(e->members[j], ra, &m->row, &sum, &m->at_row);
		m->bits = e->members[j]->cfg.hash_bits;
		m->j = j;
		m->ra_bits = e->members[j]->cfg.ra_bits;
		m->rr = (unsigned)e->members[j]->cfg.round_robin;
		/* Knuth's narrow values are the top bits of the wider ones. */
		int knuth = kind == FP_HASH_KNUTH;
		m->yshift = knuth && m->bits ? 64 - m->bits : 0;
		m->ymask = knuth ? (m->bits ? UINT64_MAX : 0) : fp_hash_mask(m->bits);
	}
	for (unsigned i = 0; i < f->nk; i++) {
		fast_kind *k = &f->k[i];
		qsort(k->m, k->n, sizeof *k->m, by_bits);
		for (unsigned t = 0, from = 0; t <= k->n; t++) {
			if (t < k->n && k->m[t].bits == k->m[from].bits)
				continue;
			if (t - from > 16) {
				fast_free(f);
				return NULL;
			}
			for (unsigned x = from; x < t; x++) {
				k->m[x].from = from;
				k->m[x].to = t;
			}
			from = t;
		}
		k->walk_from = 0;
		while (k->walk_from < k->n && k->m[k->walk_from].bits <= LOW_BITS)
			k->walk_from++;
		if (!(k->low = fast_fill(k, low_bits(k)))) {
			fast_free(f);
			return NULL;
		}
		if (k->bits <= LOW_BITS)
			k->cls = k->low;  /* that is the whole table */
	}
	/* Built whole, whatever it took; new classes from now on take from
	 * the budget, one at a time. */
	e->fast_mem.used += fast_size(f);
	for (unsigned i = 0; i < f->nk; i++)
		f->k[i].budget = &e->fast_mem;
	f->slot = e->nfast;
	e->fast_list[e->nfast++] = f;
	return f;
}

/* Tables for the classes of f's kinds (fast_fill): where FAST_AFTER new
 * states came, a look-up costs less than walking the levels.  A kind
 * whose table cannot be had walks on. */
static void fast_dense(evaluator *e, ra_fast *f)
{
	f->dense = 1;
	for (unsigned i = 0; i < f->nk; i++) {
		fast_kind *k = &f->k[i];
		size_t table = ((size_t)1 << k->bits) * sizeof *k->cls;
		if (!k->cls && budget_take(&e->fast_mem, table) && !(k->cls = fast_fill(k, k->bits)))
			e->fast_mem.used -= table;
		f->dense &= k->cls != NULL;
	}
}

/* The outcome tables of return address ra, where n more new states came,
 * or NULL while it has none. */
static const ra_tables *tables_at(evaluator *e, uint32_t ra, unsigned n)
{
	if (!e->ntabled)
		return NULL;
	if ((e->nrinfo + 1) * 2 > e->rinfo_mask + 1) {  /* half full: twice the slots */
		uint32_t mask = e->rinfo_mask ? 2 * e->rinfo_mask + 1 : 255;
		ra_info *to = calloc((size_t)mask + 1, sizeof *to);
		if (!to)
			return NULL;
		for (uint32_t i = 0; e->rinfo && i <= e->rinfo_mask; i++) {
			if (!e->rinfo[i].key)
				continue;
			uint32_t at = (e->rinfo[i].key * 0x9E3779B1u >> 8) & mask;
			while (to[at].key)
				at = (at + 1) & mask;
			to[at] = e->rinfo[i];
		}
		free(e->rinfo);
		e->rinfo = to;
		e->rinfo_mask = mask;
	}
	uint32_t at = ((ra + 1) * 0x9E3779B1u >> 8) & e->rinfo_mask;
	while (e->rinfo[at].key && e->rinfo[at].key != ra + 1)
		at = (at + 1) & e->rinfo_mask;
	ra_info *r = &e->rinfo[at];
	if (!r->key) {
		r->key = ra + 1;
		e->nrinfo++;
	}
	uint32_t before = r->count;
	r->count = before + n < before ? UINT32_MAX : before + n;
	if (e->fast_ok && !r->fast && e->fast_mem.used < e->fast_mem.max)
		r->fast = fast_build(e, ra);
	if (r->fast && before < FAST_AFTER && r->count >= FAST_AFTER)
		fast_dense(e, r->fast);
	if (r->fast)  /* its new states go there, but for a few */
		return r->t;
	int wide = e->nwide && before < WIDE_AFTER && r->count >= WIDE_AFTER;
	if ((wide || (!r->t && before < (1u << TABLE_BITS) && r->count >= (1u << TABLE_BITS))) &&
	    e->table_bytes < TABLES_MAX_BYTES) {
		ra_tables *t = tables_build(e, ra, wide);
		if (t) {
			if (r->t)
				e->table_bytes -= r->t->bytes;
			free(r->t);
			r->t = t;
			e->table_bytes += t->bytes;
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
static void tables_fill(evaluator *e, unsigned r)
{
	const ra_tables *t = e->grp_tables[r];
	size_t stride = e->nmembers;
	/* A run at a time, its entry's place and size fixed in the loop. */
	for (unsigned i = 0; i < t->nruns; i++) {
		const table_run *run = &t->run[i];
		const uint64_t *hs = e->h[run->kind];
		unsigned shift = run->kind == FP_HASH_KNUTH ? 64 - run->bits : 0, n = run->n;
		uint64_t mask = fp_hash_mask(run->bits);
		uint8_t *out = e->out + run->first;
		for (unsigned k = e->rstart[r]; k < e->rstart[r + 1]; k++)
			copy_entry(out + k * stride, run->bytes + (hs[k] >> shift & mask) * n, n);
	}
}

/* Empties the tuple cache (its vectors were dropped). */
static void tuples_clear(evaluator *e)
{
	if (e->tuples)
		memset(e->tuples, 0, ((size_t)e->tuple_mask + 1) * sizeof *e->tuples);
	e->ntuples = 0;
}

static uint32_t tuple_slot(uint64_t cls, uint32_t slot1, uint32_t mask)
{
	return (uint32_t)(((cls + slot1) * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* The vector id of the classes cls at the address of tables f: a tuple
 * stands for the vector its classes give, so it is counted as one and
 * settled class by class (states_settle), without putting the vector
 * together.  There is room for a new id (vectors_make_room); NO_VECTOR
 * when out of memory. */
static uint32_t tuple_id(evaluator *e, const ra_fast *f, uint64_t cls)
{
	if ((e->ntuples + 1) * 2 > e->tuple_mask + 1) {
		/* Twice the entries, up to 2^TUPLES_MAX_BITS; then it starts
		 * again empty (a tuple may then take a second id). */
		uint32_t mask = e->tuple_mask ? 2 * e->tuple_mask + 1 : 4095;
		tuple_entry *to = mask < 1u << TUPLES_MAX_BITS ? calloc((size_t)mask + 1, sizeof *to)
								: NULL;
		if (!to) {
			if (!e->tuples)
				return NO_VECTOR;
			tuples_clear(e);
		} else {
			for (uint32_t i = 0; e->tuples && i <= e->tuple_mask; i++) {
				const tuple_entry *t = &e->tuples[i];
				if (!t->slot1)
					continue;
				uint32_t at = tuple_slot(t->cls, t->slot1, mask);
				while (to[at].slot1)
					at = (at + 1) & mask;
				to[at] = *t;
			}
			free(e->tuples);
			e->tuples = to;
			e->tuple_mask = mask;
		}
	}
	uint32_t slot1 = f->slot + 1;
	uint32_t at = tuple_slot(cls, slot1, e->tuple_mask);
	for (;; at = (at + 1) & e->tuple_mask) {
		tuple_entry *t = &e->tuples[at];
		if (!t->slot1)
			break;
		if (t->cls == cls && t->slot1 == slot1)
			return t->vec;
	}
	uint32_t vec = (uint32_t)e->vec_counts.n;
	*(uint64_t *)grow(&e->vec_counts) = 0;
	*(tuple_entry *)grow(&e->vec_tuples) = (tuple_entry){ .cls = cls, .slot1 = slot1 };
	e->tuples[at] = (tuple_entry){ .cls = cls, .slot1 = slot1, .vec = vec };
	e->ntuples++;
	return vec;
}

/* The class tables of return address ra, or NULL. */
static ra_fast *fast_find(const evaluator *e, uint32_t ra)
{
	if (!e->rinfo)
		return NULL;
	uint32_t at = ((ra + 1) * 0x9E3779B1u >> 8) & e->rinfo_mask;
	while (e->rinfo[at].key && e->rinfo[at].key != ra + 1)
		at = (at + 1) & e->rinfo_mask;
	return e->rinfo[at].fast;
}

/* The interned vector of new state q at return address ra, of classes
 * cls at f, whose g(s) was recorded (e->in[q]): each member's outcome is
 * its class's, with OUT_INPUT where a recorded address shares its ra*
 * (rr_input_at for round-robin) — a hit repeats a recorded input there —
 * as eval_member_rows says.  There is room (vectors_make_room). */
static uint32_t input_vector(evaluator *e, const ra_fast *f, uint64_t cls, unsigned q,
			     uint32_t ra)
{
	const fp_index *x = e->members[0];  /* its input table is every member's */
	const fpi_input *in = e->in[q];
	/* The ra* of ra_bits bits are alike where ra / 2 and a recorded
	 * address / 2 agree in their low ra_bits bits: at most `agree`. */
	unsigned agree = 0;
	for (uint32_t i = 0; i < in->count; i++) {
		uint32_t d = (x->input_ras[in->first + i] ^ ra) >> 1;
		unsigned a = d ? (unsigned)__builtin_ctz(d) : 64;
		agree = a > agree ? a : agree;
	}
	uint8_t *v = e->scratch;
	for (unsigned i = 0; i < f->nk; i++) {
		const fast_kind *k = &f->k[i];
		const uint8_t *from = k->classes + (size_t)((cls >> 16 * i & 0xFFFF) - 1) * k->n;
		for (unsigned t = 0; t < k->n; t++) {
			unsigned dup = k->m[t].ra_bits <= agree;
			if (k->m[t].rr) {
				const fp_config *c = &e->members[k->m[t].j]->cfg;
				unsigned shift = k->kind == FP_HASH_KNUTH && c->hash_bits
							 ? 64 - c->hash_bits : 0;
				dup = (unsigned)rr_input_at(e, c, q, fp_reduce_ra(ra, c->ra_bits),
							    e->h[k->kind][q] >> shift &
							    fp_hash_mask(c->hash_bits));
			}
			v[k->m[t].j] = (uint8_t)(from[t] | dup << 2);
		}
	}
	return intern_vector(e, v);
}

/* Counts the pending new states that classes can tell — those at
 * addresses with classes, but not at recorded interrupts — each under its
 * tuple of classes (or, where its g(s) was recorded, its vector); leaves
 * the others first in the pending arrays, in order, and returns how many
 * they are. */
static unsigned flush_fast(evaluator *e)
{
	unsigned nm = e->npend, nf = 0;
	if (!e->nfast || vectors_make_room(e))
		return nm;
	const fp_index *any = e->members[0];
	uint32_t last_ra = UINT32_MAX;
	ra_fast *f = NULL;
	for (unsigned i = 0; i < nm; i++) {
		e->fast_done[i] = 0;
		if (e->pend_truth[i])
			continue;
		if (e->pend_ra[i] != last_ra) {
			last_ra = e->pend_ra[i];
			f = fast_find(e, last_ra);
		}
		if (!f)
			continue;
		uint64_t g = sim_tap_unpack(&e->shared->plan, e->pend_w[i]);
		e->in[nf] = any->has_input_keys ? fpi_input_find(any, g) : NULL;
		e->fast_of[nf] = f;
		e->at[nf] = i;
		e->g[nf++] = g;
	}
	if (!nf)
		return nm;
	for (int k = 0; k < FP_HASH_COUNT; k++)
		if (e->hash_bits[k])
			fp_hash_words((fp_hash_kind)k, e->g, nf, any->cfg.ngather, e->hash_bits[k],
				      e->h[k]);
	for (unsigned q = 0; q < nf; q++) {
		f = e->fast_of[q];
		uint64_t cls = 0;
		unsigned i;
		int walked = 0;
		if (f->dense && f->nk == FP_HASH_COUNT) {  /* every kind: unrolled */
			const fast_kind *k = f->k;
			cls = (uint64_t)k[0].cls[k[0].h[q] >> k[0].xshift & k[0].xmask] |
			      (uint64_t)k[1].cls[k[1].h[q] >> k[1].xshift & k[1].xmask] << 16 |
			      (uint64_t)k[2].cls[k[2].h[q] >> k[2].xshift & k[2].xmask] << 32 |
			      (uint64_t)k[3].cls[k[3].h[q] >> k[3].xshift & k[3].xmask] << 48;
		} else if (f->dense) {  /* the usual case, without a branch a kind */
			for (i = 0; i < f->nk; i++) {
				const fast_kind *k = &f->k[i];
				cls |= (uint64_t)k->cls[k->h[q] >> k->xshift & k->xmask] << 16 * i;
			}
		}
		for (i = f->dense ? f->nk : 0; i < f->nk; i++) {
			fast_kind *k = &f->k[i];
			uint64_t h = e->h[k->kind][q];
			unsigned c = k->cls ? k->cls[h >> k->xshift & k->xmask]
					    : (walked = 1, walk_class(k, h));
			if (!c)
				break;
			cls |= (uint64_t)c << 16 * i;
		}
		uint32_t vec = i < f->nk   ? NO_VECTOR
			       : e->in[q] ? input_vector(e, f, cls, q, e->pend_ra[e->at[q]])
					  : tuple_id(e, f, cls);
		if (walked && ++f->walked == FAST_AFTER)
			fast_dense(e, f);  /* a loop's address: tables pay */
		if (vec == NO_VECTOR)
			continue;
		unsigned p = e->at[q];
		uint64_t *vec_counts = e->vec_counts.items;
		if (e->pend_state[p] != NO_STATE) {
			state *t = &e->states[e->pend_state[p]];
			t->vec = vec;
			vec_counts[vec] += t->count;
		} else {
			vec_counts[vec]++;
		}
		e->fast_done[p] = 1;
	}
	unsigned keep = 0;
	for (unsigned i = 0; i < nm; i++) {
		if (e->fast_done[i])
			continue;
		e->pend_ra[keep] = e->pend_ra[i];
		e->pend_w[keep] = e->pend_w[i];
		e->pend_state[keep] = e->pend_state[i];
		e->pend_truth[keep++] = e->pend_truth[i];
	}
	return keep;
}

/* eval_member for a member whose hash parts are in bitmaps, per ra* and
 * per return address (fpindex.h): then a boundary costs a bit or two in
 * bitmaps its loop keeps in the cache. */
static void eval_member_rows(evaluator *e, const uint32_t *ra_at, unsigned j, unsigned nm)
{
	const fp_index *x = e->members[j];
	const fp_config *c = &x->cfg;
	uint64_t mask = fp_hash_mask(c->hash_bits);
	uint8_t *out = e->out + j;
	size_t stride = e->nmembers;
	uint64_t correct = 0;
	for (unsigned r = 0; r < e->nras; r++) {
		if (e->rstart[r] == e->rstart[r + 1])
			continue;  /* class tables told them all */
		uint32_t ra = e->ras[r];
		/* fp_hash_narrow, with the kind's choice made once per return
		 * address (a round-robin marker here is a code region). */
		fp_hash_kind kind = fp_pick_hash(c, &(fp_state){ .ra = ra });
		unsigned shift = kind == FP_HASH_KNUTH && c->hash_bits ? 64 - c->hash_bits : 0;
		const uint64_t *hs = e->h[kind];
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		if (!covers(e, e->grp_tables[r], j)) {  /* else the tables gave them */
			const uint64_t *row, *sum, *at_row;
			member_rows(x, ra, &row, &sum, &at_row);
			for (unsigned k = e->rstart[r]; k < e->rstart[r + 1]; k++)
				out[k * stride] = (uint8_t)row_outcome(row, sum, at_row,
								       hs[k] >> shift & mask);
		}
		/* A recorded g(s) at this ra* has this fingerprint (a hit),
		 * unless a round-robin marker hashed it otherwise there. */
		for (unsigned i = e->in_start[r]; i < e->in_start[r + 1]; i++) {
			unsigned k = e->with_in[i];
			unsigned dup = c->round_robin
				       ? rr_input_at(e, c, k, ra_part, hs[k] >> shift & mask)
				       : fpi_input_at(e->members[0], e->in[k], c->ra_bits, ra_part);
			out[k * stride] |= (uint8_t)(dup << 2);
		}
	}
	for (unsigned k = e->rstart[e->nras]; k < nm; k++) {  /* recorded interrupts */
		uint32_t ra = ra_at[e->at[k]];
		fp_hash_kind kind = fp_pick_hash(c, &(fp_state){ .ra = ra });
		unsigned shift = kind == FP_HASH_KNUTH && c->hash_bits ? 64 - c->hash_bits : 0;
		uint64_t h = e->h[kind][k] >> shift & mask;
		uint64_t ra_part = fp_reduce_ra(ra, c->ra_bits);
		correct += (unsigned)fpi_bitsets_has(&x->by_part, (uint32_t)ra_part, h);
	}
	rp_oracle_result *res = &e->results[j];
	res->hits += correct;
	res->correct += correct;
	res->missed += nm - e->rstart[e->nras] - correct;
}

/* Member j over the nm states of the batch at ra_at[]: counts those at
 * recorded interrupts, and leaves the others' outcomes in out[]. */
static void eval_member(evaluator *e, const uint32_t *ra_at, unsigned j, unsigned nm)
{
	const fp_index *x = e->members[j];
	if (x->by_part.bits && x->by_ra.bits) {
		eval_member_rows(e, ra_at, j, nm);
		return;
	}
	const fp_config *c = &x->cfg;
	uint8_t *out = e->out + j;
	uint64_t correct = 0, missed = 0;
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
		if (hit)
			o = OUT_HIT | (fpi_has_ra(x, key, ra) ? OUT_LOOP : 0) |
			    (e->in[k] && fpi_has_input(x, key, e->g[k]) ? OUT_INPUT : 0);
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
	memset(next, 0, (e->nras + 1) * sizeof *next);
	for (unsigned i = 0; i < nm; i++)
		next[e->rid[i] + 1] += !e->pend_truth[i];
	for (unsigned r = 0; r < e->nras; r++)
		next[r + 1] += next[r];
	for (unsigned r = 0; r <= e->nras; r++)
		e->rstart[r] = (uint16_t)next[r];
	unsigned truth_next = next[e->nras];
	for (unsigned i = 0; i < nm; i++) {
		unsigned k = e->pend_truth[i] ? truth_next++ : next[e->rid[i]]++;
		e->at[k] = i;
		e->state_at[k] = e->pend_state[i];
		e->g[k] = sim_tap_unpack(&e->shared->plan, w[i]);
	}
}

static void flush_slow(evaluator *e, unsigned nm);

/* Evaluates the pending new states and recorded interrupts, through class
 * tables or member by member, and starts a new group of them. */
static void flush_pending(evaluator *e)
{
	if (!e->npend)
		return;
	unsigned nm = flush_fast(e);
	if (nm)
		flush_slow(e, nm);
	e->npend = 0;
	e->nras = 0;
	if (++e->ra_gen == 0) {  /* a new generation empties ra_map */
		memset(e->ra_map, 0, sizeof e->ra_map);
		e->ra_gen = 1;
	}
}

/* flush_pending for the nm pending ones class tables did not tell. */
static void flush_slow(evaluator *e, unsigned nm)
{
	/* Their return addresses' numbers only now: most pending states of a
	 * loop's addresses were told by classes and need none. */
	for (unsigned i = 0; i < nm; i++)
		e->rid[i] = i && e->pend_ra[i] == e->pend_ra[i - 1] ? e->rid[i - 1]
								     : ra_id(e, e->pend_ra[i]);
	group_by_ra(e, e->pend_w, nm);
	const fp_index *any = e->members[0];
	for (int k = 0; k < FP_HASH_COUNT; k++)
		if (e->hash_bits[k])
			fp_hash_words((fp_hash_kind)k, e->g, nm, any->cfg.ngather, e->hash_bits[k],
				      e->h[k]);
	unsigned nin = 0;
	for (unsigned r = 0; r <= e->nras; r++) {
		e->in_start[r] = nin;
		unsigned end = r < e->nras ? e->rstart[r + 1] : nm;
		for (unsigned k = e->rstart[r]; k < end; k++) {
			e->in[k] = any->has_input_keys ? fpi_input_find(any, e->g[k]) : NULL;
			if (e->in[k])
				e->with_in[nin++] = k;
		}
	}
	for (unsigned r = 0; r < e->nras; r++) {
		e->grp_tables[r] = tables_at(e, e->ras[r], e->rstart[r + 1] - e->rstart[r]);
		if (e->grp_tables[r])
			tables_fill(e, r);
	}
	for (unsigned j = 0; j < e->nmembers; j++)
		eval_member(e, e->pend_ra, j, nm);
	/* Each new state's outcomes, one vector, stand for every boundary in
	 * it until the table is settled; without the table (it rests), each
	 * boundary counts under its vector too, which costs a lookup where
	 * counting it for every member cost hundreds of instructions. */
	int room = !vectors_make_room(e);
	for (unsigned k = 0; k < e->rstart[e->nras]; k++) {
		const uint8_t *v = e->out + (size_t)k * e->nmembers;
		if (e->state_at[k] != NO_STATE) {
			state *t = &e->states[e->state_at[k]];
			t->vec = intern_vector(e, v);
			((uint64_t *)e->vec_counts.items)[t->vec] += t->count;
		} else if (room) {
			((uint64_t *)e->vec_counts.items)[intern_vector(e, v)]++;
		} else {
			for (unsigned j = 0; j < e->nmembers; j++)
				count_outcome(&e->results[j], v[j], 1);
		}
	}
}

/* The number of state (ra, w), h its hash: looked up, else a new one
 * (count 0, vec NO_VECTOR) that *fresh says. */
static uint32_t state_of(evaluator *e, uint32_t ra, uint64_t w, uint64_t h, int *fresh)
{
	*fresh = 0;
	size_t at = (size_t)(h >> 32) & e->index_mask;
	for (;; at = (at + 1) & e->index_mask) {
		uint32_t x = e->index[at], i = x & 0xFFFFFF;
		if (!i)
			break;
		if (x == index_entry(h, i - 1) && e->states[i - 1].w == w &&
		    e->states[i - 1].ra == ra)
			return i - 1;
	}
	uint32_t i = e->nstates++;
	e->index[at] = index_entry(h, i);
	e->states[i] = (state){ .w = w, .ra = ra, .vec = NO_VECTOR, .next = NO_STATE };
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
 * are told apart by their return address (owner()) before any hashing. */
static inline __attribute__((always_inline)) void
evaluate_batch(evaluator *e, const uint32_t *ra, const uint64_t *w, const uint8_t *truth,
	       unsigned count, unsigned nev)
{
	if (!e->rest) {
		states_make_room(e);
	} else if (e->rest--, ids_full(e)) {
		flush_pending(e);
		states_settle(e, 1);
	}
	int use_table = !e->rest && !vectors_make_room(e);
	unsigned repeats = 0, nmine = 0;
	uint64_t *vec_counts = e->vec_counts.items;
	unsigned id_mine = e->id;
	for (unsigned p = 0; p < count; p++) {
		if (nev > 1 && owner(ra[p], nev) != id_mine)
			continue;
		uint32_t next = e->last != NO_STATE ? e->states[e->last].next : NO_STATE;
		state *t = next != NO_STATE ? &e->states[next] : NULL;
		if (t && t->w == w[p] && t->ra == ra[p] && !truth[p]) {
			e->last = next;
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
			if (e->last != NO_STATE)
				e->states[e->last].next = id;
			e->last = id;
			t = &e->states[id];
			if (t->vec != NO_VECTOR)
				vec_counts[t->vec]++;
			else
				t->count++;
			if (!fresh) {
				repeats++;
				continue;
			}
		}
		unsigned k = e->npend++;
		e->pend_ra[k] = ra[p];
		e->pend_w[k] = w[p];
		e->pend_state[k] = id;
		e->pend_truth[k] = truth[p];
		if (e->npend == BATCH_SIZE) {
			flush_pending(e);
			vec_counts = e->vec_counts.items;  /* it may have grown */
		}
	}
	if (use_table) {
		e->seen += nmine;
		e->repeats += repeats;
	}
}

/* Counts queue q, a batch at a time; a lone evaluator without asking
 * whose each boundary is. */
static void evaluate(evaluator *e, const batch_queue *q)
{
	unsigned nev = e->shared->nev;
	for (unsigned at = 0; at < q->count; at += BATCH_SIZE) {
		unsigned n = q->count - at < BATCH_SIZE ? q->count - at : BATCH_SIZE;
		if (nev == 1)
			evaluate_batch(e, q->ra + at, q->w + at, q->truth + at, n, 1);
		else
			evaluate_batch(e, q->ra + at, q->w + at, q->truth + at, n, nev);
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
	e->out = calloc(BATCH_SIZE, n);
	e->tabled = calloc(n, 1);
	e->by_out = calloc(n, sizeof *e->by_out);
	e->scratch = malloc(n);
	e->vecs.size = n;
	e->vec_counts.size = sizeof(uint64_t);
	e->vec_tuples.size = sizeof(tuple_entry);
	e->vec_index = calloc(2, sizeof *e->vec_index);
	e->vec_mask = 1;
	e->ra_gen = 1;  /* ra_map's zeroed entries are of generation 0: free */
	e->max_states = 1u << (bits - 1);
	e->fast_mem.max = fast_max;
	e->index_mask = (1u << bits) - 1;
	if (!e->members || !e->results || !e->out || !e->tabled || !e->by_out || !e->vec_index ||
	    !e->scratch ||
	    !(e->index = big_alloc(((size_t)1 << bits) * sizeof *e->index)) ||
	    !(e->states = big_alloc(e->max_states * sizeof *e->states)))
		return -1;
	e->last = NO_STATE;
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
		for (unsigned j = 0; j < n; j++) {
			e->members[e->nmembers++] = members[j];
			widen_hash_bits(e->hash_bits, &members[j]->cfg);
			e->tabled[j] = (uint8_t)tabled(members[j]);
			e->ntabled += e->tabled[j] != 0;
			e->nwide += e->tabled[j] == 2;
		}
		e->fast_ok = e->ntabled == n;
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
		big_free(e->states, e->max_states * sizeof *e->states);
		big_free(e->index, ((size_t)e->index_mask + 1) * sizeof *e->index);
		free(e->vecs.items);
		free(e->vec_counts.items);
		free(e->vec_tuples.items);
		free(e->fast_list);
		free(e->vec_index);
		free(e->out);
		free(e->tabled);
		free(e->by_out);
		for (uint32_t i = 0; e->rinfo && i <= e->rinfo_mask; i++) {
			free(e->rinfo[i].t);
			fast_free(e->rinfo[i].fast);
		}
		free(e->rinfo);
		free(e->tuples);
		free(e->scratch);
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
	for (unsigned k = 0; k < s->nev; k++) {
		evaluator *e = &s->ev[k];
		flush_pending(e);
		states_settle(e, 0);
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
