/*
 * test_digest.c — unit tests for util/digest.{h,c}: digest_sha256 against
 * the FIPS 180-2 / NIST known-answer vectors (empty string, "abc", the
 * 448-bit two-block message, one million 'a'); digest_context (XXH3-64,
 * seed 0, stored little-endian) against the same messages' XXH3 values as
 * an independent implementation gives them (`xxhsum -H3`, xxhash 0.8.1;
 * the empty input's is the one xxhash documents), covering each of XXH3's
 * input-length paths, and, over a buffer split at every position or with
 * either half empty, against itself over the concatenation, as the
 * recorder's context||RA digest needs; digest_hex's lower-case,
 * NUL-terminated output.
 */
#include "tests/testlib.h"

#include <ctype.h>
#include <sodium.h>

#include "util/digest.h"

static int setup(void **state)
{
	(void)state;
	return sodium_init() < 0 ? -1 : 0;
}

/* The hex of SHA-256(data[0..n)). */
static void sha_hex(const void *data, size_t n, char hex[2 * DIGEST_SIZE + 1])
{
	uint8_t d[DIGEST_SIZE];
	digest_sha256(data, n, d);
	digest_hex(d, hex);
}

static void test_empty(void **state)
{
	(void)state;
	char hex[2 * DIGEST_SIZE + 1];
	sha_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* NULL with length 0 is the same empty message. */
	sha_hex(NULL, 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
	(void)state;
	char hex[2 * DIGEST_SIZE + 1];
	sha_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_two_blocks(void **state)
{
	(void)state;
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	assert_int_equal(strlen(m), 56); /* 448 bits: the padding needs a 2nd block */
	char hex[2 * DIGEST_SIZE + 1];
	sha_hex(m, strlen(m), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a(void **state)
{
	(void)state;
	size_t n = 1000000;
	char *m = malloc(n);
	assert_non_null(m);
	memset(m, 'a', n);
	char hex[2 * DIGEST_SIZE + 1];
	sha_hex(m, n, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* ... and split unevenly in two. */
	free(m);
}

/* digest_context(a || b) read back as the number it stores (LE). */
static uint64_t ctx64(const void *a, size_t na, const void *b, size_t nb)
{
	uint8_t d[DIGEST_CONTEXT_SIZE];
	assert_int_equal(digest_context(a, na, b, nb, d), 0);
	uint64_t v = 0;
	for (int i = DIGEST_CONTEXT_SIZE - 1; i >= 0; i--)
		v = v << 8 | d[i];
	return v;
}

static void test_context_known_values(void **state)
{
	(void)state;
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	/* 0, 1-16, 17-128 and over 240 bytes take different paths in XXH3. */
	assert_true(ctx64("", 0, NULL, 0) == UINT64_C(0x2d06800538d394c2));
	assert_true(ctx64("abc", 3, NULL, 0) == UINT64_C(0x78af5f94892f3950));
	assert_true(ctx64(two, 56, NULL, 0) == UINT64_C(0x5bbcbbabcdcc3d3f));
	/* Split: "ab" || "c", "" || "abc", 20 || 36 bytes. */
	assert_true(ctx64("ab", 2, "c", 1) == UINT64_C(0x78af5f94892f3950));
	assert_true(ctx64("", 0, "abc", 3) == UINT64_C(0x78af5f94892f3950));
	assert_true(ctx64(two, 20, two + 20, 36) == UINT64_C(0x5bbcbbabcdcc3d3f));
	/* Stored low byte first. */
	uint8_t d[DIGEST_CONTEXT_SIZE];
	assert_int_equal(digest_context("", 0, NULL, 0, d), 0);
	assert_memory_equal(d, "\xc2\x94\xd3\x38\x05\x80\x06\x2d", DIGEST_CONTEXT_SIZE);

	uint8_t b[300];
	for (size_t i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)(i * 37 + 11);
	assert_true(ctx64(b, 296, b + 296, 4) == UINT64_C(0x7cd908f5507d97b3));

	size_t n = 1000000;
	char *m = malloc(n);
	assert_non_null(m);
	memset(m, 'a', n);
	assert_true(ctx64(m, 333333, m + 333333, n - 333333) == UINT64_C(0xb1fd6fae5285c4eb));
	free(m);
}

/* Every split of a 300-byte buffer (crossing XXH3's 256-byte stripes
 * buffer and its 240-byte short-input limit). */
static void test_context_split_equals_concatenation(void **state)
{
	(void)state;
	uint8_t buf[300];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	uint8_t whole[DIGEST_CONTEXT_SIZE], part[DIGEST_CONTEXT_SIZE], sha[DIGEST_SIZE];
	assert_int_equal(digest_context(buf, sizeof buf, NULL, 0, whole), 0);
	for (size_t k = 0; k <= sizeof buf; k++) {
		memset(part, 0, sizeof part);
		assert_int_equal(digest_context(buf, k, buf + k, sizeof buf - k, part), 0);
		assert_memory_equal(part, whole, DIGEST_CONTEXT_SIZE);
	}
	/* The recorder's shape: a context, then the RA as 4 bytes LE. */
	assert_int_equal(digest_context(buf, sizeof buf - 4, buf + sizeof buf - 4, 4, part), 0);
	assert_memory_equal(part, whole, DIGEST_CONTEXT_SIZE);
	/* A one-bit change changes it (the loop is not vacuous)... */
	buf[150] ^= 1;
	assert_int_equal(digest_context(buf, 150, buf + 150, 150, part), 0);
	assert_memory_not_equal(part, whole, DIGEST_CONTEXT_SIZE);
	/* ... and it is not SHA-256's prefix. */
	buf[150] ^= 1;
	digest_sha256(buf, sizeof buf, sha);
	assert_memory_not_equal(sha, whole, DIGEST_CONTEXT_SIZE);
}

static void test_hex_lowercase(void **state)
{
	(void)state;
	uint8_t d[DIGEST_SIZE];
	for (int i = 0; i < DIGEST_SIZE; i++)
		d[i] = (uint8_t)(0xf0 + i % 16) ^ (uint8_t)(i * 0x11);
	d[0] = 0xab;
	d[1] = 0xcd;
	d[2] = 0xef;
	d[3] = 0x00;
	d[DIGEST_SIZE - 1] = 0xff;
	char hex[2 * DIGEST_SIZE + 2];
	memset(hex, 'X', sizeof hex);
	digest_hex(d, hex);
	assert_int_equal(strlen(hex), 2 * DIGEST_SIZE);
	assert_int_equal(hex[2 * DIGEST_SIZE + 1], 'X'); /* writes 65 bytes, no more */
	assert_memory_equal(hex, "abcdef00", 8);
	assert_memory_equal(hex + 62, "ff", 2);
	for (int i = 0; i < 2 * DIGEST_SIZE; i++) {
		assert_true(isxdigit((unsigned char)hex[i]));
		assert_false(isupper((unsigned char)hex[i]));
		unsigned v = (unsigned)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
		assert_int_equal(v, i % 2 ? d[i / 2] & 0xf : d[i / 2] >> 4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_abc),
		cmocka_unit_test(test_two_blocks),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_context_known_values),
		cmocka_unit_test(test_context_split_equals_concatenation),
		cmocka_unit_test(test_hex_lowercase),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
