/* digest.c — SHA-256 through libsodium, XXH3 through libxxhash (see digest.h). */
#include "util/digest.h"

#include <sodium.h>
#include <xxhash.h>

void digest_sha256(const void *data, size_t n, uint8_t out[DIGEST_SIZE])
{
	crypto_hash_sha256(out, data, n);
}

int digest_context(const void *a, size_t na, const void *b, size_t nb,
		   uint8_t out[DIGEST_CONTEXT_SIZE])
{
	/* The library's own allocation, not a state on the stack: its layout
	 * is only promised to code linked statically, and this links to the
	 * shared library. */
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		return -1;
	XXH3_64bits_reset(st);
	XXH3_64bits_update(st, a, na);
	if (nb)
		XXH3_64bits_update(st, b, nb);
	XXH64_hash_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	for (int i = 0; i < DIGEST_CONTEXT_SIZE; i++)
		out[i] = (uint8_t)(h >> 8 * i);
	return 0;
}

void digest_hex(const uint8_t d[DIGEST_SIZE], char hex[2 * DIGEST_SIZE + 1])
{
	sodium_bin2hex(hex, 2 * DIGEST_SIZE + 1, d, DIGEST_SIZE);
}

uint64_t digest_key64(const void *data, size_t n)
{
	/* A fixed key: the keys must be equal across runs and recordings. */
	static const uint8_t key[crypto_shorthash_KEYBYTES] = { 0 };
	uint8_t out[crypto_shorthash_BYTES];
	crypto_shorthash(out, data, n, key);
	uint64_t k = 0;
	for (int i = 7; i >= 0; i--)
		k = k << 8 | out[i];
	return k;
}
