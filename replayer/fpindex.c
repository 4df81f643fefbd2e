/* fpindex.c — the searchable fingerprint database (see fpindex.h). */
#include "fpindex.h"

#include <stdlib.h>
#include <string.h>

typedef struct keyed {
	uint64_t key;
	fpi_rec rec;
} keyed;

static int by_key_then_n(const void *pa, const void *pb)
{
	const keyed *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->rec.n > b->rec.n) - (a->rec.n < b->rec.n);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int fpi_has_ra(const fp_index *x, const fpi_slot *slot, uint32_t ra)
{
	return bsearch(&ra, x->ras_sorted + slot->first, slot->count, sizeof ra, cmp_u32) != NULL;
}

int fpi_has_input(const fp_index *x, const fpi_slot *slot, uint64_t input_key)
{
	return x->has_input_keys &&
	       bsearch(&input_key, x->keys_sorted + slot->first, slot->count, sizeof input_key,
		       cmp_u64) != NULL;
}

int fpi_build(fp_index *x, const fp_config *c, const db_fingerprint *rows, size_t nrows,
	      const uint32_t *ras, avrr_err *err)
{
	memset(x, 0, sizeof *x);
	x->cfg = *c;
	size_t cap = 16;
	while (cap < 2 * nrows)
		cap *= 2;
	keyed *k = malloc((nrows ? nrows : 1) * sizeof *k);
	x->recs = malloc((nrows ? nrows : 1) * sizeof *x->recs);
	x->key_of = malloc((nrows ? nrows : 1) * sizeof *x->key_of);
	x->slots = calloc(cap, sizeof *x->slots);
	x->filter = calloc((1u << FPI_FILTER_BITS) / 64, sizeof *x->filter);
	x->ras_sorted = malloc((nrows ? nrows : 1) * sizeof *x->ras_sorted);
	x->keys_sorted = malloc((nrows ? nrows : 1) * sizeof *x->keys_sorted);
	if (!k || !x->recs || !x->key_of || !x->slots || !x->ras_sorted || !x->keys_sorted ||
	    !x->filter) {
		free(k);
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	x->mask = (uint32_t)(cap - 1);
	x->has_input_keys = 1;
	if (c->ra_bits <= 24 && !(x->ra_seen = calloc(((size_t)1 << c->ra_bits) / 8 + 1, 1))) {
		free(k);
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	for (size_t i = 0; i < nrows; i++) {
		const db_fingerprint *f = &rows[i];
		if (f->n != i + 1) {
			free(k);
			fpi_free(x);
			return avrr_errf(err, "damaged recording: configuration '%s' has no fingerprint "
					 "for interrupt %zu", c->name, i + 1);
		}
		k[i].key = fpi_key(c, f->ra_part, f->hash_part);
		k[i].rec = (fpi_rec){ .n = f->n, .input_key = f->input_key, .ra = ras[i],
				      .vector = (uint8_t)f->vector };
		x->key_of[i] = k[i].key;
		if (x->ra_seen)
			x->ra_seen[f->ra_part >> 3] |= (uint8_t)(1u << (f->ra_part & 7));
		x->has_input_keys &= f->has_input_key;
	}
	qsort(k, nrows, sizeof *k, by_key_then_n);
	for (size_t i = 0; i < nrows;) {
		size_t j = i;
		while (j < nrows && k[j].key == k[i].key) {
			x->recs[j] = k[j].rec;
			x->ras_sorted[j] = k[j].rec.ra;
			x->keys_sorted[j] = k[j].rec.input_key;
			j++;
		}
		qsort(x->ras_sorted + i, j - i, sizeof *x->ras_sorted, cmp_u32);
		qsort(x->keys_sorted + i, j - i, sizeof *x->keys_sorted, cmp_u64);
		uint64_t mix = k[i].key * 0x9E3779B97F4A7C15ull;
		uint32_t f = (uint32_t)(mix >> (64 - FPI_FILTER_BITS));
		x->filter[f >> 6] |= 1ull << (f & 63);
		uint32_t s = (uint32_t)(mix >> 32) & x->mask;
		while (x->slots[s].count)
			s = (s + 1) & x->mask;
		x->slots[s] = (fpi_slot){ .key = k[i].key, .first = (uint32_t)i,
					  .count = (uint32_t)(j - i) };
		i = j;
	}
	x->nrecs = nrows;
	free(k);
	return 0;
}

void fpi_free(fp_index *x)
{
	free(x->recs);
	free(x->key_of);
	free(x->slots);
	free(x->filter);
	free(x->ra_seen);
	free(x->ras_sorted);
	free(x->keys_sorted);
	memset(x, 0, sizeof *x);
}
