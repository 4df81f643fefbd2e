/*
 * test_fpindex.c — unit tests for replayer/fpindex.{h,c}'s fpi_distinct:
 * the oracle builds a set-matching D from a configuration's distinct rows
 * only, so that its memory grows with them and not with the interrupts.
 * What must hold: rows alike in everything such an index reads (ra*, hash
 * part, return address, input key) are kept once, rows that differ in any
 * of them are all kept, and an index built of the distinct rows answers
 * every question of set matching exactly as one built of all the rows.
 *
 * And for fpi_counted, the D of a configuration with counters kept on disk
 * in order of the counters' field: at every count, asked in order and
 * again after wraps, its window answers as a held index does.
 */
#include "tests/testlib.h"

#include "fingerprint/fingerprint.h"
#include "replayer/fpindex.h"

#define DATA_SIZE 0x460u /* ATmega16 data space */

static db_fingerprint row(uint64_t n, uint64_t ra_part, uint64_t hash_part, uint64_t input_key)
{
	return (db_fingerprint){ .n = n, .vector = 6, .ra_part = ra_part, .hash_part = hash_part,
				 .input_key = input_key, .has_input_key = 1 };
}

static void add(fpi_distinct *d, db_fingerprint r, uint32_t ra)
{
	assert_int_equal(fpi_distinct_add(d, &r, ra), 0);
}

/* 1,000 interrupts at three states: three rows. */
static void test_repeats_kept_once(void **state)
{
	(void)state;
	fpi_distinct d = { 0 };
	for (uint64_t n = 1; n <= 1000; n++)
		add(&d, row(n, n % 3, 7 * (n % 3), 100 + n % 3), (uint32_t)(0x200 + 2 * (n % 3)));
	assert_int_equal(d.n, 3);
	/* The first of each, in the order they came. */
	assert_int_equal(d.rows[0].n, 1);
	assert_int_equal(d.rows[1].n, 2);
	assert_int_equal(d.rows[2].n, 3);
	assert_int_equal(d.ras[0], 0x202);
	assert_int_equal(d.ras[1], 0x204);
	assert_int_equal(d.ras[2], 0x200);
	fpi_distinct_free(&d);
	assert_null(d.rows);
	assert_int_equal(d.n, 0);
}

/* Each field an index reads tells rows apart; without an input key, the
 * key's value is no part of the row. */
static void test_each_field_counts(void **state)
{
	(void)state;
	fpi_distinct d = { 0 };
	add(&d, row(1, 1, 5, 9), 0x100);
	add(&d, row(2, 2, 5, 9), 0x100);  /* ra* */
	add(&d, row(3, 1, 6, 9), 0x100);  /* hash part */
	add(&d, row(4, 1, 5, 9), 0x102);  /* return address */
	add(&d, row(5, 1, 5, 8), 0x100);  /* input key */
	assert_int_equal(d.n, 5);
	db_fingerprint a = row(6, 1, 5, 1), b = row(7, 1, 5, 2);
	a.has_input_key = b.has_input_key = 0;
	add(&d, a, 0x100);
	add(&d, b, 0x100);
	assert_int_equal(d.n, 6);
	add(&d, row(8, 1, 5, 9), 0x100);  /* the first again */
	assert_int_equal(d.n, 6);
	fpi_distinct_free(&d);
}

/* Past the first table (512 rows) it grows, and still finds every row. */
static void test_grows(void **state)
{
	(void)state;
	fpi_distinct d = { 0 };
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i < 5000; i++)
			add(&d, row(i + 1, i & 15, i >> 4, i * 31), (uint32_t)(2 * (i & 255)));
	assert_int_equal(d.n, 5000);
	assert_true(d.cap >= 5000);
	fpi_distinct_free(&d);
}

/* An index of the distinct rows and one of all of them (sets_only, as the
 * oracle's batch builds them) answer alike, for every key of a 4 + 6 bit
 * configuration at each of the return addresses. */
static void test_index_of_distinct_rows_answers_alike(void **state)
{
	(void)state;
	fp_config c;
	avrr_err err = { { 0 } };
	assert_int_equal(fp_parse("sel=r24+r25,hash=jenkins,ra=4,width=10",
				  ioregs_lookup("atmega16"), NULL, DATA_SIZE, "t", &c, &err), 0);
	enum { N = 3000 };
	static db_fingerprint rows[N];
	static uint32_t ras[N];
	fpi_distinct d = { 0 };
	uint64_t x = 12345;
	for (size_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;  /* a fixed sequence */
		ras[i] = (uint32_t)(0x100 + 2 * (x >> 60));                /* 16 addresses */
		uint64_t g = x >> 58 & 7;                                 /* 8 inputs */
		rows[i] = row(i + 1, fp_reduce_ra(ras[i], c.ra_bits), (g * 37 + (x >> 40 & 1)) & 63, g);
		add(&d, rows[i], ras[i]);
	}
	assert_true(d.n < N / 4);
	fp_index all, few;
	assert_int_equal(fpi_build(&all, &c, rows, N, ras, NULL, 1, &err), 0);
	assert_int_equal(fpi_build(&few, &c, d.rows, d.n, d.ras, NULL, 1, &err), 0);
	assert_non_null(few.by_part.bits);
	assert_non_null(few.by_ra.bits);
	assert_null(few.key_of);
	unsigned hits = 0;
	for (uint32_t ra = 0x100; ra < 0x120; ra += 2)
		for (uint64_t h = 0; h < 64; h++) {
			uint64_t key = fpi_key(&c, fp_reduce_ra(ra, c.ra_bits), h);
			int in = fpi_contains(&all, key);
			assert_int_equal(fpi_contains(&few, key), in);
			hits += (unsigned)in;
			if (!in)
				continue;
			assert_int_equal(fpi_has_ra(&few, key, ra), fpi_has_ra(&all, key, ra));
			for (uint64_t g = 0; g < 9; g++)
				assert_int_equal(fpi_has_input(&few, key, g), fpi_has_input(&all, key, g));
		}
	assert_true(hits > 0);
	fpi_free(&all);
	fpi_free(&few);
	fpi_distinct_free(&d);
}

/* A round-robin configuration's pairs of (key, input key), which only
 * fpi_has_input reads and which grow with the rows: kept by a full index,
 * not by a sets-only one with bitsets (the batch asks the table of inputs
 * instead). */
static void test_input_pairs_only_where_asked(void **state)
{
	(void)state;
	fp_config c;
	avrr_err err = { { 0 } };
	assert_int_equal(fp_parse("sel=r24+r25,hash=rr,ra=4,width=10", ioregs_lookup("atmega16"),
				  NULL, DATA_SIZE, "t", &c, &err), 0);
	db_fingerprint rows[64];
	uint32_t ras[64];
	for (size_t i = 0; i < 64; i++) {
		ras[i] = (uint32_t)(0x100 + 2 * (i % 16));
		rows[i] = row(i + 1, fp_reduce_ra(ras[i], c.ra_bits), i * 7 % 64, i % 8);
	}
	fp_index sets, full;
	assert_int_equal(fpi_build(&sets, &c, rows, 64, ras, NULL, 1, &err), 0);
	assert_int_equal(fpi_build(&full, &c, rows, 64, ras, NULL, 0, &err), 0);
	assert_non_null(sets.by_ra.bits);
	assert_null(sets.input_pairs.ab);
	assert_non_null(full.input_pairs.ab);
	for (size_t i = 0; i < 64; i++)
		assert_true(fpi_has_input(&full, fpi_key(&c, rows[i].ra_part, rows[i].hash_part),
					  rows[i].input_key));
	fpi_free(&sets);
	fpi_free(&full);
}

/* The window of `count` answers as the held index `all` does, for every
 * key of that count at each of the return addresses and input keys. */
static unsigned check_window(fp_index *k, fp_index *all, const fp_config *c, uint64_t count)
{
	size_t n;
	const fpi_crow *w = fpi_counted_at(k->counted, count, &n);
	assert_int_equal(k->counted->failed, 0);
	unsigned hits = 0;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(w[i].count, count);
	for (uint32_t ra = 0x100; ra < 0x120; ra += 2)
		for (uint64_t h = 0; h < 64; h++) {
			uint64_t key = fpi_key(c, fp_reduce_ra(ra, c->ra_bits),
					       fp_state_part(c, count, h));
			const fpi_crow *at = fpi_crows_find(w, n, key);
			assert_int_equal(at != NULL, fpi_find(all, key) != NULL);
			if (!at)
				continue;
			hits++;
			for (uint64_t g = 0; g < 9; g++) {
				int same_ra, same_input;
				fpi_crows_kind(k, at, w + n, ra, g, &same_ra, &same_input);
				assert_int_equal(same_ra, fpi_has_ra(all, key, ra));
				assert_int_equal(same_input, fpi_has_input(all, key, g));
			}
		}
	return hits;
}

/* A 4 + 6 + 6 bit configuration counting cycles: 3,000 rows at random
 * counts, and 5,000 distinct rows at count 5, more than the 4,096 it
 * reads at a time.  Asked count by count, three times over (two wraps),
 * then at scattered counts, it answers as the held index and starts
 * again from the file's start exactly when a count goes down. */
static void test_counted_answers_alike(void **state)
{
	(void)state;
	fp_config c;
	avrr_err err = { { 0 } };
	assert_int_equal(fp_parse("sel=cycles:6+r24+r25,hash=jenkins,ra=4,width=16",
				  ioregs_lookup("atmega16"), NULL, DATA_SIZE, "t", &c, &err), 0);
	assert_int_equal(c.count_bits, 6);
	assert_int_equal(c.hash_bits, 6);
	enum { N = 3000, BIG = 5000 };
	static db_fingerprint rows[N + BIG];
	static uint32_t ras[N + BIG];
	uint64_t x = 999;
	for (size_t i = 0; i < N + BIG; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ras[i] = (uint32_t)(0x100 + 2 * (x >> 60));
		uint64_t g = x >> 58 & 7, count = i < N ? x >> 20 & 63 : 5;
		rows[i] = row(i + 1, fp_reduce_ra(ras[i], c.ra_bits),
			      fp_state_part(&c, count, (g * 37 + (x >> 40 & 1)) & 63),
			      i < N ? g : 100 + i);
	}
	fp_index all, k;
	assert_int_equal(fpi_build(&all, &c, rows, N + BIG, ras, NULL, 0, &err), 0);
	assert_int_equal(fpi_counted_begin(&k, &c, &err), 0);
	for (size_t i = 0; i < N + BIG; i++)
		assert_int_equal(fpi_counted_add(&k, &rows[i], ras[i], &err), 0);
	assert_int_equal(fpi_counted_end(&k, &err), 0);
	assert_true(k.has_input_keys);
	unsigned hits = 0;
	for (int turn = 0; turn < 3; turn++)
		for (uint64_t count = 0; count < 64; count++)
			hits += check_window(&k, &all, &c, count);
	assert_int_equal(k.counted->rewinds, 2);
	assert_true(hits > 0);
	size_t n;
	fpi_counted_at(k.counted, 5, &n);  /* a wrap, to the big window */
	assert_true(n >= BIG);
	assert_int_equal(k.counted->rewinds, 3);
	static const uint64_t scattered[] = { 9, 9, 40, 41, 63, 2, 2, 17, 3 };  /* two wraps */
	for (size_t i = 0; i < sizeof scattered / sizeof *scattered; i++)
		check_window(&k, &all, &c, scattered[i]);
	assert_int_equal(k.counted->rewinds, 5);
	fpi_free(&k);
	assert_null(k.counted);
	fpi_free(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeats_kept_once),
		cmocka_unit_test(test_each_field_counts),
		cmocka_unit_test(test_grows),
		cmocka_unit_test(test_index_of_distinct_rows_answers_alike),
		cmocka_unit_test(test_input_pairs_only_where_asked),
		cmocka_unit_test(test_counted_answers_alike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
