/*
 * fpindex.h — the fingerprint database D of one configuration, as the
 * replayer searches it: every recorded fingerprint, by value.
 *
 * A fingerprint value is one 64-bit key, ra* above f* (width <= 64 bits).
 * Looking a key up gives the recorded interrupts that have it, in log
 * order, each with its vector.  For scoring only, the index also answers
 * exactly whether a recorded interrupt with a given key had a given full
 * return address, or given selector bytes (by their input key).
 *
 * A configuration with counters can instead be kept counted (fpi_counted):
 * on disk in order of the counters, read as a replay's counts grow.
 */
#ifndef AVRR_FPINDEX_H
#define AVRR_FPINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "util/extsort.h"

typedef struct fpi_rec {
	uint64_t n;          /* the n-th recorded interrupt */
	uint8_t vector;
} fpi_rec;

/* A key in an open-addressed table, with its rows: for a fingerprint,
 * recs[first .. first+count); count 0 is an empty slot. */
typedef struct fpi_slot {
	uint64_t key;
	uint32_t first, count;
} fpi_slot;

/* A set of pairs of 64-bit values (open addressing).  The oracle asks it
 * at nearly every instruction, so a probe is one hash and, usually, one
 * cache line. */
typedef struct fpi_pairs {
	uint64_t (*ab)[2];
	uint64_t *used;          /* bit per slot */
	uint32_t mask;
} fpi_pairs;

/* Sets of hash parts, one per value of a small key (a return address, or
 * an ra*): open addressing over the keys (key + 1; 0 = empty), each with
 * the number of its bitmap of hash parts, `words` 64-bit words long.  A loop
 * revisits a few keys, so their bitmaps stay in the cache; this is what
 * lets the oracle ask dozens of configurations at every instruction. */
typedef struct fpi_bitsets {
	uint32_t *keys;
	uint32_t *bitmap;        /* keys[i]'s bitmap is bits + bitmap[i] * words */
	uint64_t *bits;          /* NULL: not built (it would not fit) */
	uint32_t mask, words;
	uint32_t empty;          /* the number of an all-zero bitmap after the rest */
	/* Per bitmap, `swords` words: bit k set when its word k is non-zero.
	 * A wide bitmap is mostly zero words, and its summary stays in the
	 * cache where it does not. */
	uint64_t *summary;
	uint32_t swords;
} fpi_bitsets;

/* A recorded input key, with the distinct return addresses it was
 * recorded at: input_ras[first .. first+count). */
typedef fpi_slot fpi_input;

/* A recorded fingerprint of a configuration with counters, as its
 * counted D keeps it (fpi_counted): what the oracle asks of a hit. */
typedef struct fpi_crow {
	uint64_t count;          /* c(s), the counters' field */
	uint64_t key;
	uint64_t input_key;
	uint32_t ra;             /* the interrupt's full return address */
	uint32_t has_input_key;
} fpi_crow;

/* D of a configuration with counters, kept on disk in order of c(s).
 *
 * A boundary can only match recorded fingerprints with its own counters'
 * field c(s), and the counters (cycles since the reset, counted transfers)
 * only grow, so c(s) grows from boundary to boundary but where its low
 * bits wrap (or the CPU resets).  The distinct rows, sorted by c(s) then
 * key (util/extsort.h), go to an unlinked temporary file; a boundary asks
 * for the rows of its c(s) — the window — and the cursor reads on to them,
 * holding only a buffer of rows.  Asked for a smaller c(s) (a wrap) it
 * starts again from the file's start.  So memory does not grow with the
 * run, and reading costs one pass over the rows per wrap: the replayer
 * keeps counted only configurations that wrap a few times (counted_fits
 * in replayer.c, docs/replay.md "Memory"). */
typedef struct fpi_counted {
	FILE *f;                 /* the rows, by count then key; NULL when none */
	uint64_t nrows;
	fpi_crow *buf;           /* the file's rows at .. at + nbuf */
	size_t cap, nbuf;
	uint64_t at;
	uint64_t wlo, next;      /* the window, rows wlo .. next-1; next: the head */
	uint64_t wcount;         /* the count the window is of */
	uint64_t head;           /* the head's count; UINT64_MAX past the last row */
	int started;             /* a window has been asked for */
	uint64_t rewinds;        /* how often it started again (a wrap) */
	int failed;              /* reading failed (errno value): it acts as the end */
	extsort sort;            /* while built */
	fpi_crow last;           /* while built: the last row written */
} fpi_counted;

/* ra_class values besides a return address (flash is below 2^24 bytes). */
#define FPI_RA_MIXED UINT32_MAX
#define FPI_RA_NONE (UINT32_MAX - 1)

typedef struct fp_index {
	fp_config cfg;
	fpi_rec *recs;           /* grouped by key, each group in order of n */
	size_t nrecs;
	uint64_t *key_of;        /* key_of[n-1]: the n-th interrupt's key */
	fpi_slot *slots;         /* open addressing; count 0 = empty */
	uint32_t mask;           /* slots - 1 */
	int has_input_keys;
	/* Bit r set when some recorded fingerprint has ra* = r, for ra <= 24
	 * bits (else NULL): most boundaries fail this before any hashing. */
	uint8_t *ra_seen;
	/* Bit (key's mix >> 48) set for every recorded key: 8 KB, so a lookup
	 * that finds nothing usually stays in the cache instead of missing
	 * in the (large) slot table. */
	uint64_t *filter;
	fpi_bitsets by_part;     /* the recorded hash parts per ra* */
	/* For ra <= FPI_CLASS_BITS: per ra*, the one full return address
	 * recorded with it, or FPI_RA_MIXED when there were several.  Few
	 * return addresses share their low bits in a small firmware, so a
	 * hit's loop-or-RA question is mostly one load. */
	uint32_t *ra_class;
	fpi_bitsets by_ra;       /* the recorded hash parts per full return address */
	fpi_pairs ra_pairs;      /* (key, full ra) of each, when by_ra is not built */
	/* If has_input_keys: each input key (open addressing), and the return
	 * addresses it was recorded at.  Equal input keys are equal g(s), so
	 * equal hash parts: a hit repeats a recorded input exactly when one of
	 * them shares its ra* — unless the hash depends on a round-robin
	 * marker, which input_pairs answers instead. */
	fpi_input *inputs;
	uint32_t input_mask;
	uint32_t *input_ras;
	fpi_pairs input_pairs;   /* (key, input key) of each, if round-robin */
	/* Bit (input key's mix >> 46) set for each: 32 KB, so that a state
	 * unlike every recorded one is usually told so from the cache. */
	uint64_t *input_filter;
	int inputs_shared;       /* inputs, input_ras and input_filter are another's */
	/* A counted D (fpi_counted_begin): then only cfg, ra_seen,
	 * has_input_keys and this are set, and the fpi_counted_* functions
	 * answer instead of the rest. */
	fpi_counted *counted;
} fp_index;

#define FPI_FILTER_BITS 16
#define FPI_INPUT_FILTER_BITS 18
#define FPI_CLASS_BITS 16
#define FPI_BITSETS_BYTES (8u << 20)  /* the most one fpi_bitsets may take */

static inline int fpi_ra_possible(const fp_index *x, uint64_t ra_part)
{
	return !x->ra_seen || (x->ra_seen[ra_part >> 3] >> (ra_part & 7) & 1);
}

/* Whether equal g(s) at equal ra* can still have different fingerprints —
 * a round-robin marker picks the hash, or counters are not in g(s) — so
 * input duplicates are asked of exact (key, input key) pairs. */
static inline int fpi_pairs_inputs(const fp_config *c)
{
	return c->round_robin || c->ncounters;
}

/* The ra* of a key. */
static inline uint64_t fpi_ra_of_key(const fp_config *c, uint64_t key)
{
	return c->state_bits >= 64 ? 0 : key >> c->state_bits;
}

static inline uint64_t fpi_key(const fp_config *c, uint64_t ra_part, uint64_t hash_part)
{
	return c->state_bits >= 64 ? hash_part : ra_part << c->state_bits | hash_part;
}

/* Builds the index of `rows` (one configuration's fingerprints in order of
 * n, n = 1..nrows, each within c's bits: as db_open validated them, or as
 * computed) for configuration c; ras[n-1] is the n-th interrupt's return
 * address.  The input keys are a function of the selector's bytes alone,
 * so with `inputs_of` (NULL: none), an index of the same recording whose
 * selector has the same bytes, x shares its table of them instead of
 * building its own; inputs_of must outlive x.  With `sets_only`, when
 * its bitsets (by_part, by_ra) can be built, x only answers the questions
 * of set matching — fpi_contains, fpi_has_ra, fpi_has_input but for a
 * round-robin configuration (a batch asks that of the table of inputs) —
 * and has no records, keys, slots nor input pairs (recs, key_of: NULL; no
 * fpi_find).  Returns 0, or -1 (err set) when out of memory. */
int fpi_build(fp_index *x, const fp_config *c, const db_fingerprint *rows, size_t nrows,
	      const uint32_t *ras, const fp_index *inputs_of, int sets_only, avrr_err *err);
/* One configuration's rows with duplicates left out, as fpi_build takes
 * them (rows[i] at return address ras[i]), for an index that only answers
 * set matching's questions (sets_only): those are about which (fingerprint,
 * return address, input key) were recorded, not how often nor when, so a
 * long run's D takes memory by its distinct rows, not by its interrupts. */
typedef struct fpi_distinct {
	db_fingerprint *rows;
	uint32_t *ras;
	size_t n, cap;
	uint32_t *index;         /* open addressing: row number + 1, 0 empty */
	uint32_t mask;
} fpi_distinct;

/* Adds row at return address ra unless a row alike is there.  0, or -1
 * when out of memory. */
int fpi_distinct_add(fpi_distinct *d, const db_fingerprint *row, uint32_t ra);
void fpi_distinct_free(fpi_distinct *d);

/* Builds a counted D (fpi_counted) of configuration c, which must have
 * counters: begin, add each row (at its interrupt's return address ra),
 * end.  Each returns 0, or -1 (err set). */
int fpi_counted_begin(fp_index *x, const fp_config *c, avrr_err *err);
int fpi_counted_add(fp_index *x, const db_fingerprint *row, uint32_t ra, avrr_err *err);
int fpi_counted_end(fp_index *x, avrr_err *err);

/* The counters' field of a row's (or a key's) hash part. */
static inline uint64_t fpi_count_of(const fp_config *c, uint64_t hash_part)
{
	return hash_part >> c->hash_bits & fp_hash_mask(c->count_bits);
}

/* Moves the window to the rows of `count` (out of line: it reads). */
void fpi_counted_seek(fpi_counted *k, uint64_t count);

/* The recorded rows whose counters' field is `count`, by key: *n of them
 * (valid until the next call).  Mostly one compare: the next row's count
 * is ahead of the boundary's. */
static inline const fpi_crow *fpi_counted_at(fpi_counted *k, uint64_t count, size_t *n)
{
	if (!k->started || count != k->wcount) {
		if (k->started && count > k->wcount && count < k->head) {
			*n = 0;
			return NULL;
		}
		fpi_counted_seek(k, count);
	}
	*n = (size_t)(k->next - k->wlo);
	return *n ? k->buf + (k->wlo - k->at) : NULL;
}

/* The first of rows[0..n) (by key) with `key`, or NULL. */
static inline const fpi_crow *fpi_crows_find(const fpi_crow *rows, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && rows[lo].key == key ? &rows[lo] : NULL;
}

/* For a counted D, whether the recorded rows with `key`, from `first`
 * (fpi_crows_find's) to the end of the window (`end`), include one at
 * full return address ra (*same_ra) and, when every row has an input
 * key, one with input key input_key (*same_input): as fpi_has_ra and
 * fpi_has_input answer for a held D. */
static inline void fpi_crows_kind(const fp_index *x, const fpi_crow *first, const fpi_crow *end,
				  uint32_t ra, uint64_t input_key, int *same_ra, int *same_input)
{
	*same_ra = *same_input = 0;
	for (const fpi_crow *w = first; w < end && w->key == first->key; w++) {
		*same_ra |= w->ra == ra;
		*same_input |= x->has_input_keys && w->input_key == input_key;
	}
}

/* Whether configurations a and b select the same bytes (so their input
 * keys are alike and an index can share its inputs, as fpi_build says). */
int fpi_same_bytes(const fp_config *a, const fp_config *b);
void fpi_free(fp_index *x);

/* The pair, mixed so that every bit depends on all of both (splitmix64's
 * finalizer): keys and addresses differ mostly in a few bits. */
static inline uint64_t fpi_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull + b;
	h = (h ^ h >> 30) * 0xBF58476D1CE4E5B9ull;
	h = (h ^ h >> 27) * 0x94D049BB133111EBull;
	return h ^ h >> 31;
}

static inline int fpi_pairs_has(const fpi_pairs *p, uint64_t a, uint64_t b)
{
	for (uint32_t i = (uint32_t)fpi_mix(a, b) & p->mask;; i = (i + 1) & p->mask) {
		if (!(p->used[i >> 6] >> (i & 63) & 1))
			return 0;
		if (p->ab[i][0] == a && p->ab[i][1] == b)
			return 1;
	}
}

/* The recorded interrupts with selector key input_key, or NULL if none
 * (x must have input keys). */
static inline const fpi_input *fpi_input_find(const fp_index *x, uint64_t input_key)
{
	uint64_t mix = fpi_mix(input_key, 0);
	uint32_t f = (uint32_t)(mix >> (64 - FPI_INPUT_FILTER_BITS));
	if (!(x->input_filter[f >> 6] >> (f & 63) & 1))
		return NULL;
	for (uint32_t i = (uint32_t)mix & x->input_mask;; i = (i + 1) & x->input_mask) {
		const fpi_input *e = &x->inputs[i];
		if (!e->count)
			return NULL;
		if (e->key == input_key)
			return e;
	}
}

/* Whether input e (of x's table) was recorded at a return address whose
 * ra* under ra_bits is ra_part. */
static inline int fpi_input_at(const fp_index *x, const fpi_input *e, unsigned ra_bits,
			       uint64_t ra_part)
{
	for (uint32_t k = 0; k < e->count; k++)
		if (fp_reduce_ra(x->input_ras[e->first + k], ra_bits) == ra_part)
			return 1;
	return 0;
}

/* The slot of `key`, or NULL when no recorded interrupt has it. */
static inline const fpi_slot *fpi_find(const fp_index *x, uint64_t key)
{
	uint64_t mix = key * 0x9E3779B97F4A7C15ull;
	uint32_t f = (uint32_t)(mix >> (64 - FPI_FILTER_BITS));
	if (!(x->filter[f >> 6] >> (f & 63) & 1))
		return NULL;
	uint32_t i = (uint32_t)(mix >> 32) & x->mask;
	for (;; i = (i + 1) & x->mask) {
		const fpi_slot *s = &x->slots[i];
		if (!s->count)
			return NULL;
		if (s->key == key)
			return s;
	}
}

static inline uint32_t fpi_bitsets_slot(uint32_t key)
{
	return (key * 0x9E3779B1u) >> 7;
}

/* The number of the bitmap of the hash parts recorded with `key`, an
 * all-zero one when there are none (b->bits must be built). */
static inline uint32_t fpi_bitsets_find(const fpi_bitsets *b, uint32_t key)
{
	uint32_t i = fpi_bitsets_slot(key) & b->mask;
	for (; b->keys[i] && b->keys[i] != key + 1; i = (i + 1) & b->mask)
		;
	return b->keys[i] ? b->bitmap[i] : b->empty;
}

static inline const uint64_t *fpi_bitsets_row(const fpi_bitsets *b, uint32_t key)
{
	return b->bits + (size_t)fpi_bitsets_find(b, key) * b->words;
}

static inline const uint64_t *fpi_bitsets_none(const fpi_bitsets *b)
{
	return b->bits + (size_t)b->empty * b->words;
}

static inline int fpi_row_has(const uint64_t *row, uint64_t h)
{
	return row[h >> 6] >> (h & 63) & 1;
}

/* Whether hash part h was recorded with `key` (b->bits must be built). */
static inline int fpi_bitsets_has(const fpi_bitsets *b, uint32_t key, uint64_t h)
{
	return fpi_row_has(fpi_bitsets_row(b, key), h);
}

static inline uint64_t fpi_hash_part(const fp_index *x, uint64_t key)
{
	return key & fp_hash_mask(x->cfg.state_bits);
}

/* Whether some interrupt has fingerprint `key`. */
static inline int fpi_contains(const fp_index *x, uint64_t key)
{
	if (!x->by_part.bits)
		return fpi_find(x, key) != NULL;
	uint32_t part = x->cfg.state_bits >= 64 ? 0 : (uint32_t)(key >> x->cfg.state_bits);
	return fpi_bitsets_has(&x->by_part, part, fpi_hash_part(x, key));
}

/* Whether some interrupt recorded with `key` (which must be recorded) had
 * return address ra: a hit is then a false loop positive, else a false RA
 * one. */
static inline int fpi_has_ra(const fp_index *x, uint64_t key, uint32_t ra)
{
	if (x->ra_class) {
		uint32_t only = x->ra_class[key >> x->cfg.state_bits];
		if (only != FPI_RA_MIXED)
			return only == ra;
	}
	return x->by_ra.bits ? fpi_bitsets_has(&x->by_ra, ra, fpi_hash_part(x, key))
			     : fpi_pairs_has(&x->ra_pairs, key, ra);
}

/* Whether some interrupt recorded with `key` had selector key input_key (a
 * false input duplicate, else a hash collision); 0 without input keys. */
static inline int fpi_has_input(const fp_index *x, uint64_t key, uint64_t input_key)
{
	if (!x->has_input_keys)
		return 0;
	if (fpi_pairs_inputs(&x->cfg))
		return fpi_pairs_has(&x->input_pairs, key, input_key);
	const fpi_input *e = fpi_input_find(x, input_key);
	return e && fpi_input_at(x, e, x->cfg.ra_bits,
				 x->cfg.state_bits >= 64 ? 0 : key >> x->cfg.state_bits);
}

#endif
