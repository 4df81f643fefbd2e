/*
 * test_hash.c — unit tests for fingerprint/hash.{h,c}: published Jenkins
 * one-at-a-time vectors, hand-computed known answers for the other kinds and
 * for the RA reduction (including the paper's §2.3 example), the widening
 * contract (a wider hash never separates fewer inputs) over pseudo-random
 * inputs, and name parsing.
 */
#include "tests/testlib.h"

#include "fingerprint/hash.h"

static const uint8_t paper_c1[] = {200, 40, 7}; /* §2.3: c1 = g(s) */
static const uint8_t paper_c2[] = {200, 26, 5}; /* §2.3: false loop positive */

/* splitmix64: deterministic inputs for the property tests; state is local
 * to each test so tests stay independent. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Fills buf with a pseudo-random length (0..cap) and content.  Every eighth
 * input is all 0xff so sums get large enough to exercise twomod's moduli. */
static size_t random_input(uint64_t *state, uint8_t *buf, size_t cap)
{
	uint64_t r = splitmix64(state);
	size_t n = (size_t)(r % (cap + 1));
	int saturate = (r >> 32) % 8 == 0;
	for (size_t i = 0; i < n; i++)
		buf[i] = saturate ? 0xff : (uint8_t)splitmix64(state);
	return n;
}

static void test_oaat_published_vectors(void **state)
{
	(void)state;
	const char *fox = "The quick brown fox jumps over the lazy dog";

	assert_int_equal(fp_jenkins_oaat((const uint8_t *)"a", 1), 0xca2e9442u);
	assert_int_equal(fp_jenkins_oaat((const uint8_t *)fox, strlen(fox)),
			 0x519e91f5u);
	/* Empty input: the finaliser maps 0 to 0. */
	assert_int_equal(fp_jenkins_oaat(NULL, 0), 0);
}

static void test_jenkins_kind(void **state)
{
	(void)state;
	const uint8_t a[] = {'a'};

	/* <= 32 bits: the published hash under a bitmask. */
	assert_int_equal(fp_hash(FP_HASH_JENKINS, a, 1, 32), 0xca2e9442u);
	assert_int_equal(fp_hash(FP_HASH_JENKINS, a, 1, 16), 0x9442);
	assert_int_equal(fp_hash(FP_HASH_JENKINS, a, 1, 4), 0x2);
	/* > 32 bits: high word is one-at-a-time seeded with 0x9e3779b9.
	 * oaat2("a") = 0x013aa7b3 and oaat2("") = 0xecd739e9, both checked
	 * against an independent implementation of the published loop. */
	assert_true(fp_hash(FP_HASH_JENKINS, a, 1, 64) ==
		    UINT64_C(0x013aa7b3ca2e9442));
	assert_true(fp_hash(FP_HASH_JENKINS, a, 1, 36) ==
		    UINT64_C(0x3ca2e9442));
	assert_true(fp_hash(FP_HASH_JENKINS, NULL, 0, 64) ==
		    UINT64_C(0xecd739e900000000));
}

static void test_modular_known(void **state)
{
	(void)state;
	/* Σ c1 = 200 + 40 + 7 = 247 = 15·16 + 7, so h1 = 247 mod 16 = 7:
	 * the paper's f* = 0b0111. */
	assert_int_equal(fp_hash(FP_HASH_MODULAR, paper_c1, 3, 4), 7);
	/* Σ c2 = 200 + 26 + 5 = 231 = 14·16 + 7 → also 7: the paper's false
	 * loop positive.  With 8 bits they separate (247 vs 231). */
	assert_int_equal(fp_hash(FP_HASH_MODULAR, paper_c2, 3, 4), 7);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, paper_c1, 3, 8), 247);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, paper_c2, 3, 8), 231);
	/* 247 = 0b11110111: 3 bits → 0b111 = 7, 1 bit → 1. */
	assert_int_equal(fp_hash(FP_HASH_MODULAR, paper_c1, 3, 3), 7);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, paper_c1, 3, 1), 1);
	/* The sum caps the range (§6): 64 bits still give 247. */
	assert_true(fp_hash(FP_HASH_MODULAR, paper_c1, 3, 64) == 247);
	/* Sum, not byte-wise mod: 300 · 255 = 76500 = 0x12AD4. */
	uint8_t ff[300];
	memset(ff, 0xff, sizeof ff);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, ff, 300, 32), 76500);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, ff, 300, 16), 0x2AD4);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, NULL, 0, 16), 0);
}

static void test_twomod_known(void **state)
{
	(void)state;
	/* c1: S = 247, W = 1·200 + 2·40 + 3·7 = 200 + 80 + 21 = 301.
	 * Both are below their moduli, so
	 * v = 247·65519 + 301 = 247·65536 − 247·17 + 301
	 *   = 247·65536 − 4199 + 301 = 247·65536 − 3898 = 16183494 = 0xF6F0C6.
	 * 16 bits: 65536 − 3898 = 61638 = 0xF0C6;  4 bits: 0x6. */
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, paper_c1, 3, 32), 16183494);
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, paper_c1, 3, 16), 0xF0C6);
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, paper_c1, 3, 4), 0x6);
	/* The 32-bit value is the whole hash: wider widths add only zeros. */
	assert_true(fp_hash(FP_HASH_TWOMOD, paper_c1, 3, 64) == 16183494);

	/* 300 × 0xff exercises both moduli:
	 * S = 76500;  76500 − 65521 = 10979.
	 * W = 255 · (300·301/2) = 255 · 45150 = 11513250;
	 *     65519 · 175 = 11465825;  11513250 − 11465825 = 47425.
	 * v = 10979 · 65519 + 47425 = 719333101 + 47425 = 719380526
	 *   = 0x2AE0E02E;  16 bits: 0xE02E. */
	uint8_t ff[300];
	memset(ff, 0xff, sizeof ff);
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, ff, 300, 32), 719380526);
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, ff, 300, 16), 0xE02E);

	/* Order matters, unlike modular: {1,2} has W = 1 + 4 = 5, {2,1} has
	 * W = 2 + 2 = 4; S = 3 for both, so v = 3·65519 + W = 196562 / 196561. */
	const uint8_t ab[] = {1, 2}, ba[] = {2, 1};
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, ab, 2, 32), 196562);
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, ba, 2, 32), 196561);
	assert_int_equal(fp_hash(FP_HASH_MODULAR, ab, 2, 32),
			 fp_hash(FP_HASH_MODULAR, ba, 2, 32));
	assert_int_equal(fp_hash(FP_HASH_TWOMOD, NULL, 0, 32), 0);
}

static void test_knuth_known(void **state)
{
	(void)state;
	const uint8_t one[] = {1};

	/* S = 1: P = A = 0x9E3779B97F4A7C15; top bits are A's leading digits. */
	assert_true(fp_hash(FP_HASH_KNUTH, one, 1, 64) ==
		    UINT64_C(0x9E3779B97F4A7C15));
	assert_int_equal(fp_hash(FP_HASH_KNUTH, one, 1, 4), 0x9);
	assert_int_equal(fp_hash(FP_HASH_KNUTH, one, 1, 8), 0x9E);
	assert_int_equal(fp_hash(FP_HASH_KNUTH, one, 1, 16), 0x9E37);
	assert_int_equal(fp_hash(FP_HASH_KNUTH, one, 1, 1), 1);

	/* c1: S = 247 = 256 − 9, so
	 * 247·A = A·0x100 − 9·A
	 *       = 0x9E3779B97F4A7C1500 − 0x58FF34785799E5CBD
	 *       = 0x98A78671F9D0DDB843;  mod 2^64 → P = 0xA78671F9D0DDB843.
	 * 4 bits: 0xA;  8: 0xA7;  16: 0xA786. */
	assert_true(fp_hash(FP_HASH_KNUTH, paper_c1, 3, 64) ==
		    UINT64_C(0xA78671F9D0DDB843));
	assert_int_equal(fp_hash(FP_HASH_KNUTH, paper_c1, 3, 4), 0xA);
	assert_int_equal(fp_hash(FP_HASH_KNUTH, paper_c1, 3, 8), 0xA7);
	assert_int_equal(fp_hash(FP_HASH_KNUTH, paper_c1, 3, 16), 0xA786);
	assert_true(fp_hash(FP_HASH_KNUTH, paper_c1, 3, 63) ==
		    UINT64_C(0xA78671F9D0DDB843) >> 1);
	/* S = 0 → P = 0. */
	assert_int_equal(fp_hash(FP_HASH_KNUTH, NULL, 0, 32), 0);
}

static void test_reduce_ra(void **state)
{
	(void)state;
	/* The paper's interrupt at byte address 0x8c is word 0x46 = 0b1000110;
	 * the low 4 bits are 0b0110 = 6.  (The paper's 0b1100 reduces the byte
	 * address; we reduce word addresses, §5.3.) */
	assert_int_equal(fp_reduce_ra(0x8c, 4), 6);
	/* Its false RA positive survives the change: 0x0c → word 0x06 → 6. */
	assert_int_equal(fp_reduce_ra(0x0c, 4), 6);
	/* ...and 7 bits separate them: 0x46 vs 0x06. */
	assert_int_equal(fp_reduce_ra(0x8c, 7), 0x46);
	assert_int_equal(fp_reduce_ra(0x0c, 7), 0x06);
	/* k = 0: no RA prefix at all. */
	assert_int_equal(fp_reduce_ra(0x8c, 0), 0);
	assert_int_equal(fp_reduce_ra(UINT32_MAX, 0), 0);
	/* k = 1 sees word bit 0 (byte bit 1): 0x8c has it clear, 0x8e set. */
	assert_int_equal(fp_reduce_ra(0x8c, 1), 0);
	assert_int_equal(fp_reduce_ra(0x8e, 1), 1);
	/* k = 16: 0x1ABCD >> 1 = 0xD5E6, which already fits in 16 bits;
	 * 0x3ABCD >> 1 = 0x1D5E6 loses its bit 16. */
	assert_int_equal(fp_reduce_ra(0x1ABCD, 16), 0xD5E6);
	assert_int_equal(fp_reduce_ra(0x3ABCD, 16), 0xD5E6);
	/* k = 32: the whole word address, 0xFFFFFFFF >> 1 = 0x7FFFFFFF. */
	assert_true(fp_reduce_ra(UINT32_MAX, 32) == UINT64_C(0x7FFFFFFF));
	assert_true(fp_reduce_ra(0x8c, 32) == 0x46);
	/* k > 32 acts as 32. */
	assert_true(fp_reduce_ra(UINT32_MAX, 40) == UINT64_C(0x7FFFFFFF));
}

/* The contract from hash.h: h(x, b) is a function of h(x, b+1) for every
 * kind and b in 1..63, in the specific form each kind promises. */
static void test_widening_property(void **state)
{
	(void)state;
	uint64_t rng = 0x5eed;
	uint8_t buf[96];

	for (int iter = 0; iter < 400; iter++) {
		size_t n = random_input(&rng, buf, sizeof buf);
		for (unsigned k = 0; k < FP_HASH_COUNT; k++) {
			uint64_t wide = fp_hash((fp_hash_kind)k, buf, n, 64), h64 = wide;
			for (unsigned b = 63; b >= 1; b--) {
				uint64_t h = fp_hash((fp_hash_kind)k, buf, n, b);
				/* ...which is what fp_hash_narrow derives from 64 bits. */
				assert_int_equal(fp_hash_narrow((fp_hash_kind)k, h64, b), h);
				uint64_t want = k == FP_HASH_KNUTH
						? wide >> 1
						: wide & fp_hash_mask(b);
				if (h != want)
					fail_msg("%s: n=%zu bits=%u: %#llx, "
						 "want %#llx from bits=%u",
						 fp_hash_name((fp_hash_kind)k),
						 n, b, (unsigned long long)h,
						 (unsigned long long)want, b + 1);
				wide = h;
			}
		}
	}
}

/* fp_hash_words agrees with fp_hash on packed inputs of 1..8 bytes, every
 * kind, at widths around each kind's edges; counts that are not a multiple
 * of any vector length leave no lane behind. */
static void test_hash_words(void **state)
{
	(void)state;
	static const unsigned widths[] = { 1, 6, 8, 14, 16, 24, 31, 32, 33, 48, 63, 64 };
	enum { COUNT = 37 };
	uint64_t rng = 0xb0a7, w[COUNT], out[COUNT];
	for (unsigned n = 1; n <= 8; n++) {
		for (size_t i = 0; i < COUNT; i++) {
			w[i] = i % 5 == 0 ? UINT64_MAX : splitmix64(&rng);
			if (n < 8)
				w[i] &= (UINT64_C(1) << (8 * n)) - 1;
		}
		for (unsigned k = 0; k < FP_HASH_COUNT; k++)
			for (size_t b = 0; b < sizeof widths / sizeof *widths; b++) {
				fp_hash_words((fp_hash_kind)k, w, COUNT, n, widths[b], out);
				for (size_t i = 0; i < COUNT; i++) {
					uint8_t x[8];
					for (unsigned j = 0; j < n; j++)
						x[j] = (uint8_t)(w[i] >> (8 * j));
					uint64_t want = fp_hash((fp_hash_kind)k, x, n, widths[b]);
					if (out[i] != want)
						fail_msg("%s n=%u bits=%u input %zu: %#llx, want %#llx",
							 fp_hash_name((fp_hash_kind)k), n, widths[b], i,
							 (unsigned long long)out[i],
							 (unsigned long long)want);
				}
			}
	}
}

/* Every value fits its width, and width 64 is not silently truncated. */
static void test_range(void **state)
{
	(void)state;
	uint64_t rng = 0xfeed;
	uint8_t buf[96];
	int knuth_top = 0, jenkins_top = 0;

	for (int iter = 0; iter < 400; iter++) {
		size_t n = random_input(&rng, buf, sizeof buf);
		for (unsigned k = 0; k < FP_HASH_COUNT; k++)
			for (unsigned b = 1; b < 64; b++)
				assert_true(fp_hash((fp_hash_kind)k, buf, n, b)
					    >> b == 0);
		knuth_top |= fp_hash(FP_HASH_KNUTH, buf, n, 64) >> 63 != 0;
		jenkins_top |= fp_hash(FP_HASH_JENKINS, buf, n, 64) >> 63 != 0;
	}
	/* With 400 inputs the top bit of a 64-bit hash must show up. */
	assert_true(knuth_top);
	assert_true(jenkins_top);
}

/* Outside the documented 1..64: 0 gives 0 (no hash portion), > 64 acts as
 * 64, and an unknown kind gives 0 — all without undefined shifts. */
static void test_bits_edges(void **state)
{
	(void)state;
	for (unsigned k = 0; k < FP_HASH_COUNT; k++) {
		fp_hash_kind kind = (fp_hash_kind)k;
		assert_int_equal(fp_hash(kind, paper_c1, 3, 0), 0);
		assert_true(fp_hash(kind, paper_c1, 3, 65) ==
			    fp_hash(kind, paper_c1, 3, 64));
		assert_true(fp_hash(kind, paper_c1, 3, 1000) ==
			    fp_hash(kind, paper_c1, 3, 64));
	}
	assert_int_equal(fp_hash(FP_HASH_COUNT, paper_c1, 3, 16), 0);
	assert_int_equal(fp_hash_mask(0), 0);
	assert_int_equal(fp_hash_mask(1), 1);
	assert_true(fp_hash_mask(63) == UINT64_MAX >> 1);
	assert_true(fp_hash_mask(64) == UINT64_MAX);
	assert_true(fp_hash_mask(200) == UINT64_MAX);
}

static void test_names(void **state)
{
	(void)state;
	static const char *const names[] = {"modular", "twomod", "jenkins",
					    "knuth"};
	fp_hash_kind k;

	for (unsigned i = 0; i < FP_HASH_COUNT; i++) {
		assert_string_equal(fp_hash_name((fp_hash_kind)i), names[i]);
		k = FP_HASH_COUNT;
		assert_int_equal(fp_hash_parse(names[i], &k), 0);
		assert_int_equal(k, i);
	}
	assert_null(fp_hash_name(FP_HASH_COUNT));
	assert_null(fp_hash_name((fp_hash_kind)-1));

	static const char *const bad[] = {
		"", "Modular", "KNUTH", "jenkins ", " twomod", "mod", "knuths",
		"round-robin", "twomodular", "jenkins\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		k = FP_HASH_KNUTH;
		assert_int_not_equal(fp_hash_parse(bad[i], &k), 0);
		assert_int_equal(k, FP_HASH_KNUTH); /* left alone on failure */
	}
	assert_int_not_equal(fp_hash_parse(NULL, &k), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oaat_published_vectors),
		cmocka_unit_test(test_jenkins_kind),
		cmocka_unit_test(test_modular_known),
		cmocka_unit_test(test_twomod_known),
		cmocka_unit_test(test_knuth_known),
		cmocka_unit_test(test_reduce_ra),
		cmocka_unit_test(test_widening_property),
		cmocka_unit_test(test_hash_words),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_bits_edges),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
