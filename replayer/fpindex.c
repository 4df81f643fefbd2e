/* fpindex.c — the searchable fingerprint database (see fpindex.h). */
#include "replayer/fpindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A set for up to n pairs, at most half full. */
static int pairs_init(fpi_pairs *p, size_t n)
{
	size_t cap = 64;  /* a whole word of `used` */
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
	b->swords = (b->words + 63) / 64;
	b->bits = calloc((distinct + 1) * b->words, sizeof *b->bits);
	b->summary = calloc((distinct + 1) * b->swords, sizeof *b->summary);
	if (!b->keys || !b->bitmap || !b->bits || !b->summary)
		return -1;
	uint32_t made = 0;
	for (size_t i = 0; i < n; i++) {
		int added;
		uint32_t slot = bitsets_slot(b, keys[i], &added);
		if (added)
			b->bitmap[slot] = made++;
		size_t at = (size_t)b->bitmap[slot] * b->words, word = h[i] >> 6;
		b->bits[at + word] |= 1ull << (h[i] & 63);
		b->summary[(size_t)b->bitmap[slot] * b->swords + word / 64] |= 1ull << (word & 63);
	}
	return 0;
}

static void bitsets_free(fpi_bitsets *b)
{
	free(b->keys);
	free(b->bitmap);
	free(b->bits);
	free(b->summary);
}

/* Counts one more row for `key` in table t (mask + 1 slots, probing from
 * `start`), adding the key, and its bit in `filter`, when new.  Returns
 * the key's slot. */
static uint32_t count_row(fpi_slot *t, uint32_t mask, uint64_t key, uint32_t start,
			  uint64_t *filter, uint32_t bit)
{
	uint32_t s = start & mask;
	for (; t[s].count && t[s].key != key; s = (s + 1) & mask)
		;
	if (!t[s].count++) {
		t[s].key = key;
		filter[bit >> 6] |= 1ull << (bit & 63);
	}
	return s;
}

/* Gives each key of t room for its rows after the previous key's, and
 * empties the counts for the rows to be placed. */
static void make_room(fpi_slot *t, size_t cap)
{
	uint32_t first = 0;
	for (size_t s = 0; s < cap; s++) {
		t[s].first = first;
		first += t[s].count;
		t[s].count = 0;
	}
}

/* inputs, input_ras and input_filter.  0, or -1 when out of memory. */
static int build_inputs(fp_index *x, const db_fingerprint *rows, size_t nrows,
			const uint32_t *ras)
{
	size_t some = nrows ? nrows : 1, cap = 16;
	while (cap < 2 * nrows)
		cap *= 2;
	uint32_t *at = malloc(some * sizeof *at);  /* each row's slot */
	x->inputs = calloc(cap, sizeof *x->inputs);
	x->input_ras = malloc(some * sizeof *x->input_ras);
	if (!at || !x->inputs || !x->input_ras) {
		free(at);
		return -1;
	}
	x->input_mask = (uint32_t)(cap - 1);
	for (size_t i = 0; i < nrows; i++) {
		uint64_t mix = fpi_mix(rows[i].input_key, 0);
		at[i] = count_row(x->inputs, x->input_mask, rows[i].input_key, (uint32_t)mix,
				  x->input_filter, (uint32_t)(mix >> (64 - FPI_INPUT_FILTER_BITS)));
	}
	/* Each key's distinct return addresses, which are few. */
	make_room(x->inputs, cap);
	for (size_t i = 0; i < nrows; i++) {
		fpi_input *e = &x->inputs[at[i]];
		uint32_t *list = x->input_ras + e->first, k = 0;
		while (k < e->count && list[k] != ras[i])
			k++;
		if (k == e->count)
			list[e->count++] = ras[i];
	}
	free(at);
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
	unsigned hb = x->cfg.state_bits;
	if (!rc && x->cfg.ra_bits <= 31)
		rc = bitsets_build(&x->by_part, parts, h, nrows, hb);
	if (!rc)
		rc = bitsets_build(&x->by_ra, ras, h, nrows, hb);
	free(parts);
	free(h);
	return rc;
}

/* Whether rows a and b say the same to a sets_only index (the row
 * number, the vector and the digest it does not read). */
static int same_row(const db_fingerprint *a, uint32_t ra_a, const db_fingerprint *b,
		    uint32_t ra_b)
{
	return a->ra_part == b->ra_part && a->hash_part == b->hash_part && ra_a == ra_b &&
	       a->has_input_key == b->has_input_key &&
	       (!a->has_input_key || a->input_key == b->input_key);
}

static uint32_t row_hash(const db_fingerprint *f, uint32_t ra)
{
	uint64_t h = fpi_mix(f->ra_part << 32 ^ f->hash_part ^ (uint64_t)ra << 48,
			     f->has_input_key ? f->input_key : 0);
	return (uint32_t)(h >> 32);
}

/* Twice the slots, or the first 1024; 0, or -1 when out of memory. */
static int distinct_grow(fpi_distinct *d)
{
	size_t cap = d->cap ? d->cap * 2 : 512, slots = 2 * cap;
	db_fingerprint *rows = realloc(d->rows, cap * sizeof *rows);
	if (rows)
		d->rows = rows;
	uint32_t *ras = realloc(d->ras, cap * sizeof *ras);
	if (ras)
		d->ras = ras;
	uint32_t *index = calloc(slots, sizeof *index);
	if (!rows || !ras || !index || slots > UINT32_MAX) {
		free(index);
		return -1;
	}
	free(d->index);
	d->index = index;
	d->mask = (uint32_t)(slots - 1);
	d->cap = cap;
	for (size_t i = 0; i < d->n; i++) {
		uint32_t at = row_hash(&d->rows[i], d->ras[i]) & d->mask;
		while (index[at])
			at = (at + 1) & d->mask;
		index[at] = (uint32_t)i + 1;
	}
	return 0;
}

int fpi_distinct_add(fpi_distinct *d, const db_fingerprint *row, uint32_t ra)
{
	if (d->n == d->cap && distinct_grow(d))
		return -1;
	uint32_t at = row_hash(row, ra) & d->mask;
	for (; d->index[at]; at = (at + 1) & d->mask) {
		uint32_t i = d->index[at] - 1;
		if (same_row(&d->rows[i], d->ras[i], row, ra))
			return 0;
	}
	d->index[at] = (uint32_t)d->n + 1;
	d->rows[d->n] = *row;
	d->ras[d->n++] = ra;
	return 0;
}

void fpi_distinct_free(fpi_distinct *d)
{
	free(d->rows);
	free(d->ras);
	free(d->index);
	memset(d, 0, sizeof *d);
}

int fpi_same_bytes(const fp_config *a, const fp_config *b)
{
	return a->ncomp == b->ncomp && !memcmp(a->comp, b->comp, a->ncomp * sizeof *a->comp);
}

int fpi_build(fp_index *x, const fp_config *c, const db_fingerprint *rows, size_t nrows,
	      const uint32_t *ras, const fp_index *inputs_of, int sets_only, avrr_err *err)
{
	memset(x, 0, sizeof *x);
	x->cfg = *c;
	size_t cap = 16, some = nrows ? nrows : 1;
	while (cap < 2 * nrows)
		cap *= 2;
	/* (A counted D has no table of inputs to share.) */
	int share = inputs_of && inputs_of->inputs && inputs_of->has_input_keys &&
		    fpi_same_bytes(&inputs_of->cfg, c);
	x->input_filter = share ? inputs_of->input_filter
				: calloc((1u << FPI_INPUT_FILTER_BITS) / 64, sizeof *x->input_filter);
	x->inputs_shared = share;
	int oom = !x->input_filter || build_bitsets(x, rows, nrows, ras);
	/* The table of keys and the records are most of an index's memory;
	 * the bitsets answer what set matching asks without them. */
	int keyed = !sets_only || !x->by_part.bits || !x->by_ra.bits;
	uint32_t *at = NULL;  /* each row's slot */
	if (!oom && keyed) {
		at = malloc(some * sizeof *at);
		x->recs = malloc(some * sizeof *x->recs);
		x->key_of = malloc(some * sizeof *x->key_of);
		x->slots = calloc(cap, sizeof *x->slots);
		x->filter = calloc((1u << FPI_FILTER_BITS) / 64, sizeof *x->filter);
		oom = !at || !x->recs || !x->key_of || !x->slots || !x->filter;
	}
	/* Without them, a batch asks a round-robin member's input duplicates
	 * of the shared table of inputs (batch.c's rr_input_at): the pairs
	 * took 16 bytes a distinct row, 71 MB of the 85-configuration grid's
	 * D at 10^10 instructions of adcapp. */
	oom = oom || (!x->by_ra.bits && pairs_init(&x->ra_pairs, nrows)) ||
	      (keyed && fpi_pairs_inputs(c) && pairs_init(&x->input_pairs, nrows));
	if (!oom && c->ra_bits <= 24)
		oom = !(x->ra_seen = calloc(((size_t)1 << c->ra_bits) / 8 + 1, 1));
	if (!oom && c->ra_bits >= 1 && c->ra_bits <= FPI_CLASS_BITS)
		oom = !(x->ra_class = malloc(((size_t)1 << c->ra_bits) * sizeof *x->ra_class));
	for (size_t r = 0; x->ra_class && r < (size_t)1 << c->ra_bits; r++)
		x->ra_class[r] = FPI_RA_NONE;
	if (oom) {
		free(at);
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	x->mask = (uint32_t)(cap - 1);
	x->has_input_keys = 1;
	for (size_t i = 0; i < nrows; i++) {
		const db_fingerprint *f = &rows[i];
		uint64_t key = fpi_key(c, f->ra_part, f->hash_part);
		if (keyed) {
			x->key_of[i] = key;
			uint64_t mix = key * 0x9E3779B97F4A7C15ull;  /* as fpi_find probes */
			at[i] = count_row(x->slots, x->mask, key, (uint32_t)(mix >> 32), x->filter,
					  (uint32_t)(mix >> (64 - FPI_FILTER_BITS)));
		}
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
	if (x->has_input_keys && share) {
		x->inputs = inputs_of->inputs;
		x->input_ras = inputs_of->input_ras;
		x->input_mask = inputs_of->input_mask;
	} else if (share) {  /* another's table, but no keys here: none */
		x->input_filter = NULL;
		x->inputs_shared = 0;
	} else if (x->has_input_keys && build_inputs(x, rows, nrows, ras)) {
		free(at);
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	if (keyed) {  /* each key's records, in order of n */
		make_room(x->slots, cap);
		for (size_t i = 0; i < nrows; i++) {
			fpi_slot *slot = &x->slots[at[i]];
			x->recs[slot->first + slot->count++] =
				(fpi_rec){ .n = rows[i].n, .vector = (uint8_t)rows[i].vector };
		}
		x->nrecs = nrows;
	}
	free(at);
	return 0;
}

void fpi_free(fp_index *x)
{
	free(x->recs);
	free(x->key_of);
	free(x->slots);
	free(x->filter);
	if (!x->inputs_shared) {
		free(x->input_filter);
		free(x->inputs);
		free(x->input_ras);
	}
	free(x->ra_seen);
	free(x->ra_class);
	bitsets_free(&x->by_part);
	bitsets_free(&x->by_ra);
	pairs_free(&x->ra_pairs);
	pairs_free(&x->input_pairs);
	if (x->counted) {
		extsort_free(&x->counted->sort);
		if (x->counted->f)
			fclose(x->counted->f);
		free(x->counted->buf);
		free(x->counted);
	}
	memset(x, 0, sizeof *x);
}

/* ---- a counted D ------------------------------------------------------ */

#define COUNTED_SORT_RECORDS (1u << 17)  /* 4 MB of rows sorted in memory at a time */
#define COUNTED_READ_ROWS 4096           /* 128 KB read from the file at a time */

/* By count, then key, then the rest: the file's order; equal rows are
 * alike in every field, so one of each is kept. */
static int by_count(const void *pa, const void *pb)
{
	const fpi_crow *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->ra != b->ra)
		return a->ra < b->ra ? -1 : 1;
	if (a->input_key != b->input_key)
		return a->input_key < b->input_key ? -1 : 1;
	return (a->has_input_key > b->has_input_key) - (a->has_input_key < b->has_input_key);
}

int fpi_counted_begin(fp_index *x, const fp_config *c, avrr_err *err)
{
	memset(x, 0, sizeof *x);
	x->cfg = *c;
	x->has_input_keys = 1;
	x->counted = calloc(1, sizeof *x->counted);
	if (x->counted)
		extsort_init(&x->counted->sort, sizeof(fpi_crow), COUNTED_SORT_RECORDS, by_count);
	if (!x->counted || (c->ra_bits <= 24 &&
			    !(x->ra_seen = calloc(((size_t)1 << c->ra_bits) / 8 + 1, 1)))) {
		fpi_free(x);
		return avrr_errf(err, "out of memory");
	}
	return 0;
}

int fpi_counted_add(fp_index *x, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	const fp_config *c = &x->cfg;
	fpi_crow w = { .count = fpi_count_of(c, f->hash_part),
		       .key = fpi_key(c, f->ra_part, f->hash_part), .input_key = f->input_key,
		       .ra = ra, .has_input_key = !!f->has_input_key };
	if (x->ra_seen)
		x->ra_seen[f->ra_part >> 3] |= (uint8_t)(1u << (f->ra_part & 7));
	x->has_input_keys &= f->has_input_key;
	if (extsort_add(&x->counted->sort, &w))
		return avrr_errf(err, "sorting the fingerprints: %s", strerror(errno));
	return 0;
}

int fpi_counted_end(fp_index *x, avrr_err *err)
{
	fpi_counted *k = x->counted;
	int rerr = 0;
	const fpi_crow *w;
	if (extsort_sort(&k->sort) || !(k->f = extsort_temp_file()))
		goto fail;
	while ((w = extsort_next(&k->sort, &rerr)))
		if (!k->nrows || by_count(w, &k->last)) {
			if (fwrite(w, sizeof *w, 1, k->f) != 1)
				goto fail;
			k->last = *w;
			k->nrows++;
		}
	if (rerr || fflush(k->f))
		goto fail;
	extsort_free(&k->sort);
	k->cap = COUNTED_READ_ROWS;
	if (!(k->buf = malloc(k->cap * sizeof *k->buf)))
		return avrr_errf(err, "out of memory");
	return 0;
fail:
	return avrr_errf(err, "sorting the fingerprints: %s", strerror(errno));
}

/* Makes the buffer hold rows from .. i (i < nrows), read from `from` on;
 * 0, or -1 after a failed read (k->failed set). */
static int hold(fpi_counted *k, uint64_t from, uint64_t i)
{
	if (from >= k->at && i < k->at + k->nbuf)
		return 0;
	if (k->failed)
		return -1;
	while (i - from >= k->cap) {  /* a window longer than the buffer */
		fpi_crow *p = realloc(k->buf, 2 * k->cap * sizeof *p);
		if (!p) {
			k->failed = ENOMEM;
			return -1;
		}
		k->buf = p;
		k->cap *= 2;
	}
	size_t want = k->nrows - from < k->cap ? (size_t)(k->nrows - from) : k->cap;
	ssize_t got = pread(fileno(k->f), k->buf, want * sizeof *k->buf,
			    (off_t)(from * sizeof *k->buf));
	if (got != (ssize_t)(want * sizeof *k->buf)) {
		k->failed = got < 0 ? errno : EIO;
		return -1;
	}
	k->at = from;
	k->nbuf = want;
	return 0;
}

/* The count of row i, which the buffer holds. */
static uint64_t count_at(const fpi_counted *k, uint64_t i)
{
	return k->buf[i - k->at].count;
}

void fpi_counted_seek(fpi_counted *k, uint64_t count)
{
	if (!k->started || count < k->wcount) {  /* from the start: a wrap */
		k->rewinds += (uint64_t)k->started;
		k->next = 0;
		k->started = 1;
	}
	while (k->next < k->nrows && !hold(k, k->next, k->next) && count_at(k, k->next) < count)
		k->next++;
	k->wlo = k->next;
	while (k->next < k->nrows && !hold(k, k->wlo, k->next) && count_at(k, k->next) == count)
		k->next++;
	k->wcount = count;
	if (k->failed)  /* an empty window; the replayer says why */
		k->next = k->wlo;
	k->head = k->next < k->nrows && !k->failed ? count_at(k, k->next) : UINT64_MAX;
}
