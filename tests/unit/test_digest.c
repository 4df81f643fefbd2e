/*
 * test_digest.c — unit tests for util/digest.{h,c}: digest_sha256 against
 * the FIPS 180-2 / NIST known-answer vectors (empty string, "abc", the
 * 448-bit two-block message, one million 'a'); digest_context (BLAKE2b-256,
 * unkeyed) against the same messages' BLAKE2b-256 values (checked with
 * Python's hashlib) and, over a buffer split at every position or with
 * either half empty, against itself over the concatenation, as the
 * recorder's context||RA digest needs; digest_hex's lower-case,
 * NUL-terminated output.
 */
#include "../testlib.h"

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

/* The hex of digest_context(a || b). */
static void ctx_hex(const void *a, size_t na, const void *b, size_t nb,
		    char hex[2 * DIGEST_SIZE + 1])
{
	uint8_t d[DIGEST_SIZE];
	digest_context(a, na, b, nb, d);
	digest_hex(d, hex);
}

static void test_context_known_values(void **state)
{
	(void)state;
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[2 * DIGEST_SIZE + 1];
	ctx_hex("", 0, NULL, 0, hex);
	assert_string_equal(hex, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
	ctx_hex("abc", 3, NULL, 0, hex);
	assert_string_equal(hex, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
	ctx_hex(two, 56, NULL, 0, hex);
	assert_string_equal(hex, "5f7a93da9c5621583f22e49e8e91a40cbba37536622235a380f434b9f68e49c4");
	/* Split: "ab" || "c", "" || "abc", 20 || 36 bytes. */
	ctx_hex("ab", 2, "c", 1, hex);
	assert_string_equal(hex, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
	ctx_hex("", 0, "abc", 3, hex);
	assert_string_equal(hex, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
	ctx_hex(two, 20, two + 20, 36, hex);
	assert_string_equal(hex, "5f7a93da9c5621583f22e49e8e91a40cbba37536622235a380f434b9f68e49c4");

	size_t n = 1000000;
	char *m = malloc(n);
	assert_non_null(m);
	memset(m, 'a', n);
	ctx_hex(m, 333333, m + 333333, n - 333333, hex);
	assert_string_equal(hex, "0741850f36cba4259628355d1073e24ddb9ca0e1bfac36fd39ae5dc2101e23a4");
	free(m);
}

/* Every split of a 300-byte buffer (crossing BLAKE2b's 128-byte blocks). */
static void test_context_split_equals_concatenation(void **state)
{
	(void)state;
	uint8_t buf[300];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	uint8_t whole[DIGEST_SIZE], part[DIGEST_SIZE], sha[DIGEST_SIZE];
	digest_context(buf, sizeof buf, NULL, 0, whole);
	for (size_t k = 0; k <= sizeof buf; k++) {
		memset(part, 0, sizeof part);
		digest_context(buf, k, buf + k, sizeof buf - k, part);
		assert_memory_equal(part, whole, DIGEST_SIZE);
	}
	/* The recorder's shape: a context, then the RA as 4 bytes LE. */
	digest_context(buf, sizeof buf - 4, buf + sizeof buf - 4, 4, part);
	assert_memory_equal(part, whole, DIGEST_SIZE);
	/* A one-bit change changes it (the loop is not vacuous)... */
	buf[150] ^= 1;
	digest_context(buf, 150, buf + 150, 150, part);
	assert_memory_not_equal(part, whole, DIGEST_SIZE);
	/* ... and it is not SHA-256. */
	buf[150] ^= 1;
	digest_sha256(buf, sizeof buf, sha);
	assert_memory_not_equal(sha, whole, DIGEST_SIZE);
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
