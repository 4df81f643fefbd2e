/*
 * fpindex.h — the fingerprint database D of one configuration, as the
 * replayer searches it: every recorded fingerprint, by value.
 *
 * A fingerprint value is one 64-bit key, ra* above f* (width <= 64 bits).
 * Looking a key up gives the recorded interrupts that have it, in log
 * order, each with its vector.  For scoring only, the index also answers
 * exactly whether a recorded interrupt with a given key had a given full
 * return address, or given selector bytes (by their input key).
 */
#ifndef AVRR_FPINDEX_H
#define AVRR_FPINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "fingerprint/fingerprint.h"

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
 * of set matching — fpi_contains, fpi_has_ra, fpi_has_input — and has no
 * records, keys nor slots (recs, key_of: NULL; no fpi_find).  Returns 0,
 * or -1 (err set) when out of memory. */
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
