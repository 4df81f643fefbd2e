/* digest.c — SHA-256 and BLAKE2b through libsodium (see digest.h). */
#include "digest.h"

#include <sodium.h>

void digest_sha256(const void *data, size_t n, uint8_t out[DIGEST_SIZE])
{
	crypto_hash_sha256(out, data, n);
}

void digest_context(const void *a, size_t na, const void *b, size_t nb,
		    uint8_t out[DIGEST_SIZE])
{
	crypto_generichash_state st;
	crypto_generichash_init(&st, NULL, 0, DIGEST_SIZE);
	crypto_generichash_update(&st, a, na);
	if (nb)
		crypto_generichash_update(&st, b, nb);
	crypto_generichash_final(&st, out, DIGEST_SIZE);
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
