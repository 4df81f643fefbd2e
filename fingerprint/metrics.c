/*
 * metrics.c — record-time metrics of a configuration (see metrics.h).
 * Everything is a sort and a scan over groups of equal keys.
 */
#include "fingerprint/metrics.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int by_fingerprint(const void *pa, const void *pb)
{
	const fp_sample *a = pa, *b = pb;
	int c = cmp_u64(a->ra_part, b->ra_part);
	return c ? c : cmp_u64(a->hash_part, b->hash_part);
}

static int by_context(const void *pa, const void *pb)
{
	const fp_sample *a = pa, *b = pb;
	return memcmp(a->context, b->context, sizeof a->context);
}

static int by_input(const void *pa, const void *pb)
{
	const fp_sample *a = pa, *b = pb;
	return cmp_u64(a->input_key, b->input_key);
}

static int same_fingerprint(const fp_sample *a, const fp_sample *b)
{
	return a->ra_part == b->ra_part && a->hash_part == b->hash_part;
}

/* Members of groups of two or more, in a sample array sorted by `cmp`. */
static uint64_t members_of_shared_groups(const fp_sample *s, size_t n,
					 int (*cmp)(const void *, const void *))
{
	uint64_t total = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && cmp(&s[i], &s[j]) == 0)
			j++;
		if (j - i > 1)
			total += j - i;
		i = j;
	}
	return total;
}

static int by_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* The median of v[0..n) (n > 0); sorts v. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, by_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Fig. 6's median of per-prefix medians over s sorted by fingerprint.
 * `scratch` holds n doubles for the per-value collisions, `prefix` n more
 * for the per-prefix medians. */
static double median_per_ra(const fp_sample *s, size_t n, double *scratch, double *prefix)
{
	size_t nprefix = 0;
	for (size_t i = 0; i < n;) {
		size_t nvalues = 0, j = i;
		while (j < n && s[j].ra_part == s[i].ra_part) {
			size_t k = j + 1;
			while (k < n && same_fingerprint(&s[j], &s[k]))
				k++;
			scratch[nvalues++] = (double)(k - j - 1);
			j = k;
		}
		prefix[nprefix++] = median(scratch, nvalues);
		i = j;
	}
	return nprefix ? median(prefix, nprefix) : 0;
}

int fp_metrics_compute(fp_sample *s, size_t n, int has_truth, fp_metrics *m)
{
	memset(m, 0, sizeof *m);
	m->fingerprints = n;
	if (n == 0) {
		m->has_truth = has_truth;
		return 0;
	}
	qsort(s, n, sizeof *s, by_fingerprint);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || !same_fingerprint(&s[i - 1], &s[i]))
			m->distinct++;
	if (!has_truth) {
		m->has_truth = has_truth;
		return 0;
	}
	/* Keep one sample per distinct context. */
	qsort(s, n, sizeof *s, by_context);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || by_context(&s[u - 1], &s[i]) != 0)
			s[u++] = s[i];
	double *scratch = malloc(2 * u * sizeof *scratch);
	if (!scratch)
		return -1;
	qsort(s, u, sizeof *s, by_fingerprint);
	m->duplicates = members_of_shared_groups(s, u, by_fingerprint);
	m->median_duplicates_per_ra = median_per_ra(s, u, scratch, scratch + u);
	qsort(s, u, sizeof *s, by_input);
	m->input_duplicates = members_of_shared_groups(s, u, by_input);
	free(scratch);
	m->has_truth = 1;
	return 0;
}
