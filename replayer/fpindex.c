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

/* A set for up to n pairs, at most half full. */
static int pairs_init(fpi_pairs *p, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	p->ab = malloc(cap * sizeof *p->ab);
	p->used = calloc(cap / 64, sizeof *p->used);
	p->mask = (uint32_t)(cap - 1);
	return p->ab && p->used ? 0 : -1;
}

static void pairs_add(fpi_pairs *p, uint64_t a, uint64_t b)
{
	uint32_t i = (uint32_t)fpi_mix(a, b) & p->mask;
	for (; p->used[i >> 6] >> (i & 63) & 1; i = (i + 1) & p->mask)
		if (p->ab[i][0] == a && p->ab[i][1] == b)
			return;
	p->used[i >> 6] |= 1ull << (i & 63);
	p->ab[i][0] = a;
	p->ab[i][1] = b;
}

static void pairs_free(fpi_pairs *p)
{
	free(p->ab);
	free(p->used);
}

static void classify_ra(uint32_t *cls, uint64_t ra_part, uint32_t ra)
{
	if (cls[ra_part] == FPI_RA_NONE)
		cls[ra_part] = ra;
	else if (cls[ra_part] != ra)
		cls[ra_part] = FPI_RA_MIXED;
}

/* Adds key to b->keys: its slot, and whether it is new. */
static uint32_t bitsets_slot(fpi_bitsets *b, uint32_t key, int *added)
{
	uint32_t i = fpi_bitsets_slot(key) & b->mask;
	for (; b->keys[i]; i = (i + 1) & b->mask)
		if (b->keys[i] == key + 1) {
			*added = 0;
			return i;
		}
	b->keys[i] = key + 1;
	*added = 1;
	return i;
}

/* Builds b over keys[0..n) and hash parts h[0..n) of `bits` bits, when it
 * fits FPI_BITSETS_BYTES (else leaves b->bits NULL).  0, or -1 when out
 * of memory. */
static int bitsets_build(fpi_bitsets *b, const uint32_t *keys, const uint64_t *h, size_t n,
			 unsigned bits)
{
	if (!n || bits > 24)
		return 0;
	size_t cap = 16, distinct = 0;
	while (cap < 2 * n)
		cap *= 2;
	b->mask = (uint32_t)(cap - 1);
	if (!(b->keys = calloc(cap, sizeof *b->keys)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		int added;
		bitsets_slot(b, keys[i], &added);
		distinct += (size_t)added;
	}
	free(b->keys);
	for (cap = 16; cap < 2 * distinct;)
		cap *= 2;
	b->words = bits <= 6 ? 1 : 1u << (bits - 6);
	if ((distinct + 1) * b->words * 8 > FPI_BITSETS_BYTES) {
		b->keys = NULL;
		return 0;
	}
	b->mask = (uint32_t)(cap - 1);
	b->keys = calloc(cap, sizeof *b->keys);
	b->bitmap = calloc(cap, sizeof *b->bitmap);
	b->empty = (uint32_t)distinct;
	b->bits = calloc((distinct + 1) * b->words, sizeof *b->bits);
	if (!b->keys || !b->bitmap || !b->bits)
		return -1;
	uint32_t made = 0;
	for (size_t i = 0; i < n; i++) {
		int added;
		uint32_t slot = bitsets_slot(b, keys[i], &added);
		if (added)
			b->bitmap[slot] = made++;
		size_t at = (size_t)b->bitmap[slot] * b->words;
		b->bits[at + (h[i] >> 6)] |= 1ull << (h[i] & 63);
	}
	return 0;
}

static void bitsets_free(fpi_bitsets *b)
{
	free(b->keys);
	free(b->bitmap);
	free(b->bits);
}

typedef struct input_at {
	uint64_t key;
	uint32_t ra;
} input_at;

static int by_input_then_ra(const void *pa, const void *pb)
{
	const input_at *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->ra > b->ra) - (a->ra < b->ra);
}

/* inputs, input_ras and input_filter.  0, or -1 when out of memory. */
static int build_inputs(fp_index *x, const db_fingerprint *rows, size_t nrows,
			const uint32_t *ras)
{
	size_t some = nrows ? nrows : 1, distinct = 0, cap = 16;
	input_at *v = malloc(some * sizeof *v);
	x->input_ras = malloc(some * sizeof *x->input_ras);
	if (!v || !x->input_ras) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < nrows; i++)
		v[i] = (input_at){ .key = rows[i].input_key, .ra = ras[i] };
	qsort(v, nrows, sizeof *v, by_input_then_ra);
	for (size_t i = 0; i < nrows; i++)
		distinct += i == 0 || v[i].key != v[i - 1].key;
	while (cap < 2 * distinct)
		cap *= 2;
	if (!(x->inputs = calloc(cap, sizeof *x->inputs))) {
		free(v);
		return -1;
	}
	x->input_mask = (uint32_t)(cap - 1);
	uint32_t nras = 0;
	for (size_t i = 0, j; i < nrows; i = j) {
		uint32_t first = nras;
		for (j = i; j < nrows && v[j].key == v[i].key; j++)
			if (j == i || v[j].ra != v[j - 1].ra)
				x->input_ras[nras++] = v[j].ra;
		uint64_t mix = fpi_mix(v[i].key, 0);
		uint32_t bit = (uint32_t)(mix >> (64 - FPI_INPUT_FILTER_BITS));
		x->input_filter[bit >> 6] |= 1ull << (bit & 63);
		uint32_t at = (uint32_t)mix & x->input_mask;
		while (x->inputs[at].count)
			at = (at + 1) & x->input_mask;
		x->inputs[at] = (fpi_input){ .key = v[i].key, .first = first, .count = nras - first };
	}
	free(v);
	return 0;
}

/* by_part and by_ra.  0, or -1 when out of memory. */
static int build_bitsets(fp_index *x, const db_fingerprint *rows, size_t nrows,
			 const uint32_t *ras)
{
	uint32_t *parts = malloc((nrows ? nrows : 1) * sizeof *parts);
	uint64_t *h = malloc((nrows ? nrows : 1) * sizeof *h);
	int rc = parts && h ? 0 : -1;
	for (size_t i = 0; !rc && i < nrows; i++) {
		parts[i] = (uint32_t)rows[i].ra_part;
		h[i] = rows[i].hash_part;
	}
	unsigned hb = x->cfg.hash_bits;
	if (!rc && x->cfg.ra_bits <= 31)
		rc = bitsets_build(&x->by_part, parts, h, nrows, hb);
	if (!rc)
		rc = bitsets_build(&x->by_ra, ras, h, nrows, hb);
	free(parts);
	free(h);
	return rc;
}

int fpi_build(fp_index *x, const fp_config *c, const db_fingerprint *rows, size_t nrows,
	      const uint32_t *ras, avrr_err *err)
{
	memset(x, 0, sizeof *x);
	x->cfg = *c;
	size_t cap = 16, some = nrows ? nrows : 1;
	while (cap < 2 * nrows)
		cap *= 2;
	keyed *k = malloc(some * sizeof *k);
	x->recs = malloc(some * sizeof *x->recs);
	x->key_of = malloc(some * sizeof *x->key_of);
	x->slots = calloc(cap, sizeof *x->slots);
	x->filter = calloc((1u << FPI_FILTER_BITS) / 64, sizeof *x->filter);
	x->input_filter = calloc((1u << FPI_INPUT_FILTER_BITS) / 64, sizeof *x->input_filter);
	int oom = !k || !x->recs || !x->key_of || !x->slots || !x->filter || !x->input_filter ||
		  build_bitsets(x, rows, nrows, ras) ||
		  (!x->by_ra.bits && pairs_init(&x->ra_pairs, nrows)) ||
		  (c->round_robin && pairs_init(&x->input_pairs, nrows));
	if (!oom && c->ra_bits <= 24)
		oom = !(x->ra_seen = calloc(((size_t)1 << c->ra_bits) / 8 + 1, 1));
	if (!oom && c->ra_bits >= 1 && c->ra_bits <= FPI_CLASS_BITS)
		oom = !(x->ra_class = malloc(((size_t)1 << c->ra_bits) * sizeof *x->ra_class));
	for (size_t r = 0; x->ra_class && r < (size_t)1 << c->ra_bits; r++)
		x->ra_class[r] = FPI_RA_NONE;
	if (oom) {
		free(k);
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	x->mask = (uint32_t)(cap - 1);
	x->has_input_keys = 1;
	for (size_t i = 0; i < nrows; i++) {
		const db_fingerprint *f = &rows[i];
		if (f->n != i + 1) {
			free(k);
			fpi_free(x);
			return avrr_errf(err, "damaged recording: configuration '%s' has no fingerprint "
					 "for interrupt %zu", c->name, i + 1);
		}
		uint64_t key = fpi_key(c, f->ra_part, f->hash_part);
		k[i] = (keyed){ .key = key, .rec = { .n = f->n, .vector = (uint8_t)f->vector } };
		x->key_of[i] = key;
		if (x->ra_seen)
			x->ra_seen[f->ra_part >> 3] |= (uint8_t)(1u << (f->ra_part & 7));
		if (x->ra_class)
			classify_ra(x->ra_class, f->ra_part, ras[i]);
		if (x->ra_pairs.ab)  /* only when by_ra could not be built */
			pairs_add(&x->ra_pairs, key, ras[i]);
		if (x->input_pairs.ab)
			pairs_add(&x->input_pairs, key, f->input_key);
		x->has_input_keys &= f->has_input_key;
	}
	if (x->has_input_keys && build_inputs(x, rows, nrows, ras)) {
		free(k);
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	qsort(k, nrows, sizeof *k, by_key_then_n);
	for (size_t i = 0; i < nrows;) {
		size_t j = i;
		for (; j < nrows && k[j].key == k[i].key; j++)
			x->recs[j] = k[j].rec;
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
	free(x->input_filter);
	free(x->ra_seen);
	free(x->ra_class);
	bitsets_free(&x->by_part);
	bitsets_free(&x->by_ra);
	pairs_free(&x->ra_pairs);
	pairs_free(&x->input_pairs);
	free(x->inputs);
	free(x->input_ras);
	memset(x, 0, sizeof *x);
}
