/*
 * fpindex.h — the fingerprint database D of one configuration, as the
 * replayer searches it: every recorded fingerprint, by value.
 *
 * A fingerprint value is one 64-bit key, ra* above f* (width <= 64 bits).
 * Looking a key up gives the recorded interrupts that have it, in log
 * order, each with its vector and — for scoring only — its full return
 * address and the key of its selector bytes.
 */
#ifndef AVRR_FPINDEX_H
#define AVRR_FPINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "../db/db.h"
#include "../fingerprint/fingerprint.h"

typedef struct fpi_rec {
	uint64_t n;          /* the n-th recorded interrupt */
	uint64_t input_key;  /* ground truth; valid when the index has_input_keys */
	uint32_t ra;         /* byte address, from the event log */
	uint8_t vector;
} fpi_rec;

typedef struct fpi_slot {
	uint64_t key;
	uint32_t first, count;   /* recs[first .. first+count) */
} fpi_slot;

typedef struct fp_index {
	fp_config cfg;
	fpi_rec *recs;           /* grouped by key, each group in order of n */
	/* The same groups' return addresses and input keys, each group
	 * sorted, for classifying a hit by binary search. */
	uint32_t *ras_sorted;
	uint64_t *keys_sorted;
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
	 * in the (large) slot table — the oracle probes 64 tables at every
	 * instruction. */
	uint64_t *filter;
} fp_index;

#define FPI_FILTER_BITS 16

static inline int fpi_ra_possible(const fp_index *x, uint64_t ra_part)
{
	return !x->ra_seen || (x->ra_seen[ra_part >> 3] >> (ra_part & 7) & 1);
}

static inline uint64_t fpi_key(const fp_config *c, uint64_t ra_part, uint64_t hash_part)
{
	return c->hash_bits >= 64 ? hash_part : ra_part << c->hash_bits | hash_part;
}

/* Builds the index of `rows` (one configuration's fingerprints in order of
 * n, n = 1..nrows) for configuration c; ras[n-1] is the n-th interrupt's
 * return address.  Returns 0, or -1 (err set). */
int fpi_build(fp_index *x, const fp_config *c, const db_fingerprint *rows, size_t nrows,
	      const uint32_t *ras, avrr_err *err);
void fpi_free(fp_index *x);

/* Whether some interrupt recorded in `slot` had return address ra (a hit
 * is then a false loop positive, else a false RA one), and whether one had
 * selector key input_key (a false input duplicate, else a hash collision;
 * 0 when the index has no input keys). */
int fpi_has_ra(const fp_index *x, const fpi_slot *slot, uint32_t ra);
int fpi_has_input(const fp_index *x, const fpi_slot *slot, uint64_t input_key);

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

#endif
