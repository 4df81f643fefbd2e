/*
 * metrics.c — record-time metrics of a configuration (see metrics.h).
 *
 * Everything is a sort and a scan over groups of equal keys.  The sorts are
 * external (util/extsort.h), so a run of any length is measured in the same
 * memory: the samples pass through bounded buffers and temporary files
 * instead of being held.  Four sorts:
 *   all    every fingerprint, by value: distinct
 *   ctx    every sample by (context, fingerprint, index): the first of each
 *          context is the one kept for the three ground-truth metrics (the
 *          least fingerprint, and of those the earliest interrupt)
 *   fp     the kept samples' fingerprints: duplicates, and the median per ra
 *   key    the kept samples' input keys: input duplicates
 */
#include "fingerprint/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "util/extsort.h"

/* Each sort's records in memory at most: a few MB each.  (A build with a
 * tiny number exercises the spilling and the merge passes.) */
#ifndef FP_METRICS_RUN_RECORDS
#define FP_METRICS_RUN_RECORDS (1u << 13)
#endif
#define RUN_RECORDS FP_METRICS_RUN_RECORDS

typedef struct fp_rec { uint64_t ra_part, hash_part; } fp_rec;
typedef struct ctx_rec {
	uint8_t context[8];
	uint64_t ra_part, hash_part, idx, input_key;
} ctx_rec;

struct fp_metrics_acc {
	uint64_t n;
	extsort all, ctx;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int by_fingerprint(const void *pa, const void *pb)
{
	const fp_rec *a = pa, *b = pb;
	int c = cmp_u64(a->ra_part, b->ra_part);
	return c ? c : cmp_u64(a->hash_part, b->hash_part);
}

static int by_context(const void *pa, const void *pb)
{
	const ctx_rec *a = pa, *b = pb;
	int c = memcmp(a->context, b->context, sizeof a->context);
	if (!c)
		c = cmp_u64(a->ra_part, b->ra_part);
	if (!c)
		c = cmp_u64(a->hash_part, b->hash_part);
	return c ? c : cmp_u64(a->idx, b->idx);
}

static int by_key(const void *pa, const void *pb)
{
	return cmp_u64(*(const uint64_t *)pa, *(const uint64_t *)pb);
}

int fp_metrics_begin(fp_metrics_acc **out)
{
	fp_metrics_acc *a = calloc(1, sizeof *a);
	if (!a)
		return -1;
	extsort_init(&a->all, sizeof(fp_rec), RUN_RECORDS, by_fingerprint);
	extsort_init(&a->ctx, sizeof(ctx_rec), RUN_RECORDS, by_context);
	*out = a;
	return 0;
}

int fp_metrics_add(fp_metrics_acc *a, const fp_sample *s)
{
	fp_rec f = { s->ra_part, s->hash_part };
	ctx_rec c = { .ra_part = s->ra_part, .hash_part = s->hash_part, .idx = a->n,
		      .input_key = s->input_key };
	memcpy(c.context, s->context, sizeof c.context);
	a->n++;
	return extsort_add(&a->all, &f) || extsort_add(&a->ctx, &c) ? -1 : 0;
}

void fp_metrics_free(fp_metrics_acc *a)
{
	if (!a)
		return;
	extsort_free(&a->all);
	extsort_free(&a->ctx);
	free(a);
}

/* ---- medians over counts of values ----------------------------------- */

/* A multiset of doubles as (value, how many), sorted by value: the values
 * the medians here take are few (collision counts and their halves), far
 * fewer than the samples. */
typedef struct hist {
	struct { double v; uint64_t k; } *e;
	size_t n, cap;
	uint64_t total;
} hist;

static int hist_add(hist *h, double v)
{
	size_t lo = 0, hi = h->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (h->e[mid].v < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	h->total++;
	if (lo < h->n && h->e[lo].v == v) {
		h->e[lo].k++;
		return 0;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		void *p = realloc(h->e, cap * sizeof *h->e);
		if (!p)
			return -1;
		h->e = p;
		h->cap = cap;
	}
	memmove(&h->e[lo + 1], &h->e[lo], (h->n - lo) * sizeof *h->e);
	h->e[lo].v = v;
	h->e[lo].k = 1;
	h->n++;
	return 0;
}

/* The value of rank r (0-based) in sorted order. */
static double hist_rank(const hist *h, uint64_t r)
{
	for (size_t i = 0;; i++) {
		if (r < h->e[i].k)
			return h->e[i].v;
		r -= h->e[i].k;
	}
}

/* The median (h->total > 0): the middle value, or the mean of the two. */
static double hist_median(const hist *h)
{
	uint64_t n = h->total;
	return n % 2 ? hist_rank(h, n / 2) : (hist_rank(h, n / 2 - 1) + hist_rank(h, n / 2)) / 2;
}

static void hist_clear(hist *h)
{
	h->n = 0;
	h->total = 0;
}

/* ---- the scans -------------------------------------------------------- */

/* Fig. 6's median of per-prefix medians, and the duplicates, over the kept
 * samples' fingerprints in order: groups of equal values within runs of
 * equal ra prefix. */
static int scan_fingerprints(extsort *fp, fp_metrics *m)
{
	hist values = { 0 }, prefixes = { 0 };
	const fp_rec *r;
	fp_rec group = { 0 };
	uint64_t members = 0;
	int err = 0, rc = 0;
	while (!rc) {
		r = extsort_next(fp, &err);
		if (members && (!r || by_fingerprint(r, &group))) {
			/* a group of equal values ends */
			if (members > 1)
				m->duplicates += members;
			rc = hist_add(&values, (double)(members - 1));
			if (!rc && (!r || r->ra_part != group.ra_part)) {
				/* and with it its prefix */
				rc = hist_add(&prefixes, hist_median(&values));
				hist_clear(&values);
			}
			members = 0;
		}
		if (!r)
			break;
		if (!members)
			group = *r;
		members++;
	}
	m->median_duplicates_per_ra = !rc && prefixes.total ? hist_median(&prefixes) : 0;
	free(values.e);
	free(prefixes.e);
	return rc || err ? -1 : 0;
}

/* Members of groups of two or more equal input keys, in sorted order. */
static int scan_keys(extsort *key, fp_metrics *m)
{
	const uint64_t *r;
	uint64_t group = 0, members = 0;
	int err = 0;
	for (;;) {
		r = extsort_next(key, &err);
		if (members && (!r || *r != group)) {
			if (members > 1)
				m->input_duplicates += members;
			members = 0;
		}
		if (!r)
			break;
		if (!members)
			group = *r;
		members++;
	}
	return err ? -1 : 0;
}

int fp_metrics_end(fp_metrics_acc *a, int has_truth, fp_metrics *m)
{
	extsort fp, key;
	int rc = -1, err = 0;
	memset(m, 0, sizeof *m);
	m->fingerprints = a->n;
	m->has_truth = has_truth;
	extsort_init(&fp, sizeof(fp_rec), RUN_RECORDS, by_fingerprint);
	extsort_init(&key, sizeof(uint64_t), RUN_RECORDS, by_key);
	if (extsort_sort(&a->all))
		goto out;
	const fp_rec *f, *prev = NULL;
	fp_rec last;
	while ((f = extsort_next(&a->all, &err))) {
		if (!prev || by_fingerprint(prev, f))
			m->distinct++;
		last = *f;
		prev = &last;
	}
	if (err)
		goto out;
	extsort_free(&a->all);
	if (has_truth && a->n) {
		/* Keep one sample per distinct context. */
		const ctx_rec *c;
		uint8_t ctx[8];
		int first = 1;
		if (extsort_sort(&a->ctx))
			goto out;
		while ((c = extsort_next(&a->ctx, &err))) {
			if (!first && !memcmp(ctx, c->context, sizeof ctx))
				continue;
			first = 0;
			memcpy(ctx, c->context, sizeof ctx);
			fp_rec kept = { c->ra_part, c->hash_part };
			if (extsort_add(&fp, &kept) || extsort_add(&key, &c->input_key))
				goto out;
		}
		if (err)
			goto out;
		extsort_free(&a->ctx);
		if (extsort_sort(&fp) || scan_fingerprints(&fp, m) || extsort_sort(&key) ||
		    scan_keys(&key, m))
			goto out;
	}
	rc = 0;
out:
	extsort_free(&fp);
	extsort_free(&key);
	fp_metrics_free(a);
	return rc;
}

int fp_metrics_compute(fp_sample *s, size_t n, int has_truth, fp_metrics *m)
{
	fp_metrics_acc *a;
	if (fp_metrics_begin(&a))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (fp_metrics_add(a, &s[i])) {
			fp_metrics_free(a);
			return -1;
		}
	return fp_metrics_end(a, has_truth, m);
}
