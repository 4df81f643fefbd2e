/*
 * batch_eval.h — the parts of the oracle's deferred evaluation (batch.h),
 * private to replayer/batch*.c.
 *
 * An evaluator counts the boundaries of a batch for every member.  The
 * member-by-member evaluation (batch_members.c) is the reference; each
 * optimization over it is a unit of its own, which batch_opts can turn
 * off: the table of distinct states and its links (batch_states.c), the
 * interned outcome vectors (batch_vectors.c), the outcome tables of
 * runs of members (batch_tables.c) and the classes of hash values
 * (batch_classes.c).  The queues and threads are batch.c's.
 */
#ifndef AVRR_BATCH_EVAL_H
#define AVRR_BATCH_EVAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "replayer/batch.h"
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

_Static_assert(FP_HASH_COUNT == 4, "batch_classes_flush unrolls a state's classes, a kind each");
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

/* The table of distinct states (batch_states.c): each boundary whose
 * state came before counts under it, so a state is evaluated once. */
typedef struct eval_states {
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
} eval_states;

/* The interned outcome vectors (batch_vectors.c), nmembers bytes each
 * (OUT_* bits per member), with the boundaries counted under each since
 * the last settling, and an open-addressed index of them (id + 1; 0
 * empty). */
typedef struct eval_vectors {
	growbuf vecs;
	growbuf vec_counts;
	growbuf vec_tuples;         /* per id, a tuple of classes (tuple_id), or slot1 0 */
	uint32_t *vec_index;
	uint32_t vec_mask;
	uint64_t (*by_out)[8];      /* batch_settle_counts', one row per member, zero */
} eval_vectors;

/* The new states and the boundaries at recorded interrupts waiting to be
 * evaluated (batch_members.c), npend of them, as the table pass finds
 * them: return address, g(s), state number (NO_STATE: none, count it at
 * once), at a recorded interrupt, and ras[rid[i]] (a loop has few
 * distinct return addresses). */
typedef struct eval_pending {
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
} eval_pending;

/* The outcome tables (batch_tables.c): which members they cover
 * (tabled[j]), the return addresses new states came to (open
 * addressing; their class tables too), all tables' bytes, and per return
 * address of the pending ones, its tables or NULL. */
typedef struct eval_tables {
	uint8_t *tabled;
	unsigned ntabled, nwide;
	ra_info *rinfo;
	uint32_t rinfo_mask, nrinfo;
	size_t table_bytes;
	const ra_tables *grp_tables[BATCH_SIZE];
} eval_tables;

/* Class tables (batch_classes.c): whether every member can have them
 * (bitmaps, hash parts of at most WIDE_BITS), how many addresses have
 * them and their bytes, the tuple cache (tuple_mask + 1 entries, ntuples
 * used), per pending state its address's tables (NULL: evaluated member
 * by member) and whether it is counted, and a vector being put
 * together. */
typedef struct eval_classes {
	int fast_ok;
	uint32_t nfast;
	ra_fast **fast_list;        /* by slot */
	fast_budget fast_mem;
	tuple_entry *tuples;
	uint32_t tuple_mask, ntuples;
	ra_fast *fast_of[BATCH_SIZE];
	uint8_t fast_done[BATCH_SIZE];
	uint8_t *scratch;
} eval_classes;

/* One thread's share of a batch's states, and all it needs to count them
 * for every member: each evaluator sees every queue and takes the states
 * at the return addresses owner() gives it, so no state is looked up or
 * evaluated twice.  Each optimization keeps its own part. */
typedef struct evaluator {
	struct batch_eval *shared;
	unsigned id;          /* it owns the states whose hash says so */
	const fp_index **members;   /* every member of the batch */
	rp_oracle_result *results;  /* its share of their counts, until settled */
	unsigned nmembers;
	unsigned hash_bits[FP_HASH_COUNT];  /* the widest any member needs; 0: none */

	eval_states st;
	eval_vectors vx;
	eval_pending pd;
	eval_tables tb;
	eval_classes cl;

	unsigned head;              /* the queues before it are counted */
	pthread_t thread;
	unsigned off;               /* the optimizations turned off (BATCH_NO_*) */
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

/* batch_states.c: counts queue q, a batch at a time. */
void batch_eval_queue(evaluator *e, const batch_queue *q);

/* batch_vectors.c.  Adds the boundaries counted under each outcome vector
 * (and each tuple of classes) to the results (no state is pending);
 * `empty`: and drops the states and the vectors, else the states are
 * known when they come again. */
void batch_settle_counts(evaluator *e, int empty);
/* Room to intern a batch's worth of new vectors: 0, or -1 when out of
 * memory (what was interned stays). */
int batch_vectors_room(evaluator *e);
/* The id of outcome vector v (nmembers bytes), interned if new; there is
 * room (batch_vectors_room). */
uint32_t batch_intern(evaluator *e, const uint8_t *v);

/* batch_members.c: evaluates the pending new states and recorded
 * interrupts, through class tables or member by member, and starts a new
 * group of them. */
void batch_flush_pending(evaluator *e);

/* batch_tables.c.  The outcome tables of return address ra, where n more
 * new states came (and its class tables, built when due), or NULL while it
 * has none; fills the tabled members' outcomes of the pending states at
 * ras[r] from them; frees every address's tables. */
const ra_tables *batch_tables_at(evaluator *e, uint32_t ra, unsigned n);
void batch_tables_fill(evaluator *e, unsigned r);
void batch_tables_free(evaluator *e);

/* batch_classes.c.  The class tables of return address ra (NULL: they
 * cannot be had), their dense tables once due, and their end; the tuple
 * cache emptied; and the pending states that classes can tell counted,
 * the others left first in the pending arrays (their number returned). */
ra_fast *batch_classes_build(evaluator *e, uint32_t ra);
void batch_classes_dense(evaluator *e, ra_fast *f);
void batch_classes_free(ra_fast *f);
void batch_tuples_clear(evaluator *e);
unsigned batch_classes_flush(evaluator *e);

/* Whether the g(s) of new state k was recorded at a return address with
 * ra* ra_part where round-robin configuration c hashed it to h too: there
 * the recorded fingerprint is this one. */
static inline int rr_input_at(const evaluator *e, const fp_config *c, unsigned k, uint64_t ra_part,
		       uint64_t h)
{
	const fp_index *x = e->members[0];  /* its input table is every member's */
	const fpi_input *in = e->pd.in[k];
	for (uint32_t i = 0; i < in->count; i++) {
		uint32_t ra = x->input_ras[in->first + i];
		if (fp_reduce_ra(ra, c->ra_bits) != ra_part)
			continue;
		fp_hash_kind kind = fp_pick_hash(c, &(fp_state){ .ra = ra });
		if (fp_hash_narrow(kind, e->pd.h[kind][k], c->hash_bits) == h)
			return 1;
	}
	return 0;
}

/* The bitmaps of member x at return address ra: the hash parts recorded
 * with its ra* (row, and its summary sum) and with ra itself (at_row);
 * x's hash parts are in bitmaps. */
static inline void member_rows(const fp_index *x, uint32_t ra, const uint64_t **row,
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
static inline int tabled(const fp_index *x)
{
	if (!x->by_part.bits || !x->by_ra.bits || x->cfg.hash_bits > WIDE_BITS)
		return 0;
	return x->cfg.hash_bits <= TABLE_BITS ? 1 : 2;
}

/* Whether tables t give member j's outcomes. */
static inline int covers(const evaluator *e, const ra_tables *t, unsigned j)
{
	return t && (e->tb.tabled[j] == 1 || (e->tb.tabled[j] == 2 && t->wide));
}

/* The kind member j hashes with at return address ra. */
static inline unsigned member_kind(const evaluator *e, unsigned j, uint32_t ra)
{
	return (unsigned)fp_pick_hash(&e->members[j]->cfg, &(fp_state){ .ra = ra });
}

#endif
