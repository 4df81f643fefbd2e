/*
 * test_extsort.c — unit tests for util/extsort.{h,c}: nothing added; a
 * sort held in memory; sorts that spill into one run per few records and
 * then need one merge, or merge passes first (more runs than
 * EXTSORT_FANIN); each against qsort of the same records.
 */
#include "tests/testlib.h"

#include "util/extsort.h"

/* A record of 12 bytes: a key with many repeats, and its place. */
typedef struct rec {
	uint32_t key, place, pad;
} rec;

static int by_key_place(const void *pa, const void *pb)
{
	const rec *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->place > b->place) - (a->place < b->place);
}

/* Sorts n pseudo-random records (keys in 0..99) with at most run_records
 * in memory, and compares the output with qsort's, record by record. */
static void check(size_t n, size_t run_records)
{
	rec *want = malloc((n ? n : 1) * sizeof *want);
	assert_non_null(want);
	uint32_t x = 12345;
	extsort s;
	assert_int_equal(extsort_init(&s, sizeof(rec), run_records, by_key_place), 0);
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		want[i] = (rec){ (x >> 16) % 100, (uint32_t)i, 0xa5a5a5a5u };
		assert_int_equal(extsort_add(&s, &want[i]), 0);
	}
	qsort(want, n, sizeof *want, by_key_place);
	assert_int_equal(extsort_sort(&s), 0);
	int err = 0;
	size_t got = 0;
	const rec *r;
	while ((r = extsort_next(&s, &err))) {
		assert_true(got < n);
		assert_memory_equal(r, &want[got], sizeof *r);
		got++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(got, n);
	/* Spilled exactly when more than a buffer's worth was added. */
	assert_int_equal(s.f != NULL, n > run_records);
	extsort_free(&s);
	free(want);
}

static void test_empty(void **state)
{
	(void)state;
	check(0, 8);
}

static void test_in_memory(void **state)
{
	(void)state;
	check(1, 8);
	check(1000, 1000);
}

static void test_one_merge(void **state)
{
	(void)state;
	/* 1000 records, 16 a run: 63 runs, merged at once (63 <= 64). */
	check(1000, 16);
}

static void test_merge_passes(void **state)
{
	(void)state;
	/* 5000 records, 7 a run: 715 runs; a pass makes 12, then one merge.
	 * 3 a run: 1667 runs, 27, one merge; 1 a run: 5000, 79, 2, one. */
	check(5000, 7);
	check(5000, 3);
	check(5000, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_one_merge),
		cmocka_unit_test(test_merge_passes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
