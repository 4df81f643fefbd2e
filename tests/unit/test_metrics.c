/*
 * test_metrics.c — unit tests for fingerprint/metrics.{h,c}: the empty
 * recording, the metrics without ground truth, repeats of one context (no
 * error), a hand-built set where the fingerprint duplicates and the false
 * input duplicates differ, Fig. 6's median of per-prefix medians (even and
 * odd numbers of prefixes), and independence from the order of the samples.
 * Every expected number is worked out by hand in the comments.
 */
#include "tests/testlib.h"

#include <math.h>

#include "fingerprint/metrics.h"

/* One interrupt: fingerprint (ra, hash), input key, and a context digest
 * whose 32 bytes are all `id` (so equal ids = equal contexts). */
static fp_sample sample(uint8_t id, uint64_t ra, uint64_t hash, uint64_t key)
{
	fp_sample s;
	memset(&s, 0, sizeof s);
	s.ra_part = ra;
	s.hash_part = hash;
	s.input_key = key;
	memset(s.context, id, sizeof s.context);
	return s;
}

/* Medians here are 0, 1, 1.5, 2 or 4: all exact in binary, but compared
 * with a tolerance so the test does not depend on how they are summed. */
static void assert_median(double got, double want)
{
	if (fabs(got - want) >= 1e-9)
		fail_msg("median_duplicates_per_ra = %.17g, expected %.17g", got, want);
}

/* Runs fp_metrics_compute on a copy of s[0..n) (it reorders its input). */
static fp_metrics compute(const fp_sample *s, size_t n, int has_truth)
{
	fp_sample *copy = malloc((n ? n : 1) * sizeof *copy);
	fp_metrics m;
	assert_non_null(copy);
	if (n)
		memcpy(copy, s, n * sizeof *copy);
	memset(&m, 0xa5, sizeof m); /* every field must be written */
	assert_int_equal(fp_metrics_compute(copy, n, has_truth, &m), 0);
	free(copy);
	return m;
}

static void test_empty(void **state)
{
	(void)state;
	/* n = 0 with a valid (unused) array: nothing to count, so every
	 * number is 0; has_truth echoes the argument. */
	fp_sample one[1];
	fp_metrics m;

	memset(one, 0, sizeof one);
	for (int truth = 0; truth <= 1; truth++) {
		memset(&m, 0xa5, sizeof m);
		assert_int_equal(fp_metrics_compute(one, 0, truth, &m), 0);
		assert_int_equal(m.fingerprints, 0);
		assert_int_equal(m.distinct, 0);
		assert_int_equal(m.has_truth, truth);
		assert_int_equal(m.duplicates, 0);
		assert_median(m.median_duplicates_per_ra, 0);
		assert_int_equal(m.input_duplicates, 0);
	}
}

static void test_without_truth(void **state)
{
	(void)state;
	/* Contexts 2 and 1 collide on (0,10), context 1 repeats, and every
	 * input key is 7 — with truth there would be duplicates and input
	 * duplicates, but without it only the first two numbers count.
	 *   fingerprints = 5 samples
	 *   distinct     = {(0,10), (1,10), (1,20)} = 3: the same hash value
	 *                  under another ra prefix is another fingerprint. */
	const fp_sample s[] = {
		sample(1, 0, 10, 7),
		sample(2, 0, 10, 7),
		sample(3, 1, 10, 7),
		sample(1, 0, 10, 7),
		sample(4, 1, 20, 7),
	};
	fp_metrics m = compute(s, 5, 0);

	assert_int_equal(m.fingerprints, 5);
	assert_int_equal(m.distinct, 3);
	assert_int_equal(m.has_truth, 0);
	assert_int_equal(m.duplicates, 0);
	assert_median(m.median_duplicates_per_ra, 0);
	assert_int_equal(m.input_duplicates, 0);
}

static void test_repeats_are_not_duplicates(void **state)
{
	(void)state;
	/* One context seen five times: one distinct context, so nothing is
	 * shared with another context.  fingerprints 5, distinct 1,
	 * duplicates 0, input duplicates 0; prefix 3 has one value holding
	 * one context: collisions 1 - 1 = 0, median 0. */
	fp_sample s[5];
	for (size_t i = 0; i < 5; i++)
		s[i] = sample(9, 3, 42, 7);
	fp_metrics m = compute(s, 5, 1);

	assert_int_equal(m.fingerprints, 5);
	assert_int_equal(m.distinct, 1);
	assert_int_equal(m.has_truth, 1);
	assert_int_equal(m.duplicates, 0);
	assert_median(m.median_duplicates_per_ra, 0);
	assert_int_equal(m.input_duplicates, 0);

	/* The whole digest tells contexts apart: the same two contexts
	 * differing only in their last byte, each repeated, are two distinct
	 * contexts sharing fingerprint and key.  fingerprints 4, distinct 1,
	 * duplicates 2, input duplicates 2; the value holds 2 contexts:
	 * collisions 1, median 1. */
	fp_sample t[4];
	for (size_t i = 0; i < 4; i++) {
		t[i] = sample(9, 3, 42, 7);
		if (i % 2)
			t[i].context[sizeof t[i].context - 1] = 10;
	}
	m = compute(t, 4, 1);
	assert_int_equal(m.fingerprints, 4);
	assert_int_equal(m.distinct, 1);
	assert_int_equal(m.duplicates, 2);
	assert_median(m.median_duplicates_per_ra, 1);
	assert_int_equal(m.input_duplicates, 2);
}

static void test_duplicates_vs_input_duplicates(void **state)
{
	(void)state;
	/* Contexts A..E (ids 1..5), all under ra prefix 0:
	 *   A, B  fingerprint (0,10), key 100: the same g(s) under different
	 *         contexts — a false input duplicate, and they collide
	 *   C, D  fingerprint (0,20), keys 300, 400: a hash collision
	 *   E     fingerprint (0,30), key 500: unique
	 * A appears three times (repeats count once).
	 *   fingerprints     7 samples
	 *   distinct         {10, 20, 30} = 3
	 *   duplicates       A, B, C, D = 4 (counting A's repeats would
	 *                    give 6)
	 *   input_duplicates A, B = 2 (counting A's repeats would give 4)
	 *   median           prefix 0: values 10, 20, 30 hold 2, 2, 1
	 *                    contexts: collisions 1, 1, 0 -> median 1;
	 *                    one prefix -> 1 */
	const fp_sample s[] = {
		sample(1, 0, 10, 100), /* A */
		sample(2, 0, 10, 100), /* B */
		sample(1, 0, 10, 100), /* A again */
		sample(3, 0, 20, 300), /* C */
		sample(4, 0, 20, 400), /* D */
		sample(1, 0, 10, 100), /* A again */
		sample(5, 0, 30, 500), /* E */
	};
	fp_metrics m = compute(s, 7, 1);

	assert_int_equal(m.fingerprints, 7);
	assert_int_equal(m.distinct, 3);
	assert_int_equal(m.has_truth, 1);
	assert_int_equal(m.duplicates, 4);
	assert_median(m.median_duplicates_per_ra, 1);
	assert_int_equal(m.input_duplicates, 2);

	/* The two counts are independent: two contexts sharing a key but
	 * told apart by their fingerprints (different prefixes, same hash
	 * value), and two contexts whose keys differ only in the top bit.
	 *   fingerprints 4, distinct {(1,5), (2,5), (3,6)} = 3
	 *   duplicates   ids 3, 4 share (3,6) = 2
	 *   input dups   ids 1, 2 share key 1 = 2 (ids 3, 4 do not)
	 *   median       prefixes 1, 2: one context each -> 0, 0;
	 *                prefix 3: one value, 2 contexts -> 1;
	 *                median of [0, 0, 1] = 0 */
	const fp_sample t[] = {
		sample(1, 1, 5, 1),
		sample(2, 2, 5, 1),
		sample(3, 3, 6, 9),
		sample(4, 3, 6, 9 | UINT64_C(1) << 63),
	};
	m = compute(t, 4, 1);
	assert_int_equal(m.fingerprints, 4);
	assert_int_equal(m.distinct, 3);
	assert_int_equal(m.duplicates, 2);
	assert_median(m.median_duplicates_per_ra, 0);
	assert_int_equal(m.input_duplicates, 2);
}

/* Fig. 6's set with two prefixes (also used for the order test):
 *   prefix 0x100: value 1 holds ctx 1; value 2 holds ctx 2; value 3 holds
 *                 ctx 3, 4, 5 (ctx 3 repeated twice more)
 *                 -> collisions 0, 0, 2 -> median 0
 *   prefix 0x200: value 1 holds ctx 6, 7 (ctx 6 repeated three more times);
 *                 value 5 holds ctx 8, 9, 10, 11
 *                 -> collisions 1, 3 -> median (1 + 3) / 2 = 2
 *   overall median of [0, 2] = 1.
 * Value 1 under both prefixes: grouped by hash value alone it would hold
 * 3 contexts.  Counting repeats, prefix 0x200 would give 4, 3 -> 3.5 and
 * the overall median 1.75.
 *   fingerprints 11 contexts + 2 + 3 repeats = 16
 *   distinct     (0x100: 1, 2, 3) + (0x200: 1, 5) = 5
 *   duplicates   3 + 2 + 4 = 9
 * Keys are id * 1000 except ctx 8 shares ctx 1's key and ctx 3 shares
 * ctx 2's: input duplicates 1, 8, 2, 3 = 4 (repeats of 3 do not add). */
static size_t fig6_even(fp_sample *s)
{
	size_t n = 0;
	s[n++] = sample(1, 0x100, 1, 1000);
	s[n++] = sample(2, 0x100, 2, 2000);
	s[n++] = sample(3, 0x100, 3, 2000);
	s[n++] = sample(4, 0x100, 3, 4000);
	s[n++] = sample(5, 0x100, 3, 5000);
	s[n++] = sample(3, 0x100, 3, 2000);
	s[n++] = sample(3, 0x100, 3, 2000);
	s[n++] = sample(6, 0x200, 1, 6000);
	s[n++] = sample(7, 0x200, 1, 7000);
	s[n++] = sample(6, 0x200, 1, 6000);
	s[n++] = sample(8, 0x200, 5, 1000);
	s[n++] = sample(9, 0x200, 5, 9000);
	s[n++] = sample(6, 0x200, 1, 6000);
	s[n++] = sample(10, 0x200, 5, 10000);
	s[n++] = sample(11, 0x200, 5, 11000);
	s[n++] = sample(6, 0x200, 1, 6000);
	return n;
}

static void test_fig6_median(void **state)
{
	(void)state;
	fp_sample s[16];
	size_t n = fig6_even(s);
	assert_int_equal(n, 16);
	fp_metrics m = compute(s, n, 1);

	assert_int_equal(m.fingerprints, 16);
	assert_int_equal(m.distinct, 5);
	assert_int_equal(m.has_truth, 1);
	assert_int_equal(m.duplicates, 9);
	assert_median(m.median_duplicates_per_ra, 1.0);
	assert_int_equal(m.input_duplicates, 4);

	/* Three prefixes, whose medians are out of order by ra:
	 *   ra 5: value 7 holds ctx 1..5,
	 *         value 8 holds ctx 6..10         -> 4, 4         -> 4
	 *   ra 7: value 7 holds ctx 11            -> 0            -> 0
	 *   ra 9: value 1 holds ctx 12, 13        -> 1
	 *         value 2 holds ctx 14, 15, 16    -> 2   -> (1+2)/2 = 1.5
	 *   median of [4, 0, 1.5] = sorted [0, 1.5, 4] -> 1.5
	 *   (taking the middle prefix unsorted would give 0, the mean 11/6,
	 *   and pooling all values regardless of prefix, [4, 4, 0, 1, 2],
	 *   would give 2)
	 *   fingerprints 16, distinct (5,7), (5,8), (7,7), (9,1), (9,2) = 5,
	 *   duplicates 5 + 5 + 2 + 3 = 15, keys all different -> 0 */
	fp_sample t[16];
	size_t k = 0;
	for (uint8_t id = 1; id <= 5; id++)
		t[k++] = sample(id, 5, 7, id);
	for (uint8_t id = 6; id <= 10; id++)
		t[k++] = sample(id, 5, 8, id);
	t[k++] = sample(11, 7, 7, 11);
	t[k++] = sample(12, 9, 1, 12);
	t[k++] = sample(13, 9, 1, 13);
	t[k++] = sample(14, 9, 2, 14);
	t[k++] = sample(15, 9, 2, 15);
	t[k++] = sample(16, 9, 2, 16);
	assert_int_equal(k, 16);
	m = compute(t, k, 1);
	assert_int_equal(m.fingerprints, 16);
	assert_int_equal(m.distinct, 5);
	assert_int_equal(m.duplicates, 15);
	assert_median(m.median_duplicates_per_ra, 1.5);
	assert_int_equal(m.input_duplicates, 0);
}

static void assert_same_metrics(const fp_metrics *a, const fp_metrics *b)
{
	assert_int_equal(a->fingerprints, b->fingerprints);
	assert_int_equal(a->distinct, b->distinct);
	assert_int_equal(a->has_truth, b->has_truth);
	assert_int_equal(a->duplicates, b->duplicates);
	assert_median(a->median_duplicates_per_ra, b->median_duplicates_per_ra);
	assert_int_equal(a->input_duplicates, b->input_duplicates);
}

static void test_order_independent(void **state)
{
	(void)state;
	/* The Fig. 6 set (numbers in the comment above fig6_even) in its
	 * written order, reversed, and permuted by i -> (7i + 3) mod 16
	 * (7 is prime to 16, so that is a bijection): same metrics. */
	fp_sample s[16], r[16], p[16];
	size_t n = fig6_even(s);
	assert_int_equal(n, 16);
	for (size_t i = 0; i < n; i++) {
		r[n - 1 - i] = s[i];
		p[(7 * i + 3) % n] = s[i];
	}
	for (int truth = 0; truth <= 1; truth++) {
		fp_metrics ms = compute(s, n, truth);
		fp_metrics mr = compute(r, n, truth);
		fp_metrics mp = compute(p, n, truth);

		assert_int_equal(ms.fingerprints, 16);
		assert_int_equal(ms.distinct, 5);
		assert_int_equal(ms.has_truth, truth);
		assert_int_equal(ms.duplicates, truth ? 9 : 0);
		assert_median(ms.median_duplicates_per_ra, truth ? 1.0 : 0);
		assert_int_equal(ms.input_duplicates, truth ? 4 : 0);
		assert_same_metrics(&mr, &ms);
		assert_same_metrics(&mp, &ms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_without_truth),
		cmocka_unit_test(test_repeats_are_not_duplicates),
		cmocka_unit_test(test_duplicates_vs_input_duplicates),
		cmocka_unit_test(test_fig6_median),
		cmocka_unit_test(test_order_independent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
