/* digest.c — SHA-256 through libsodium (see digest.h). */
#include "digest.h"

#include <sodium.h>

void digest_sha256(const void *data, size_t n, uint8_t out[DIGEST_SIZE])
{
	digest_sha256_2(data, n, NULL, 0, out);
}

void digest_sha256_2(const void *a, size_t na, const void *b, size_t nb,
		     uint8_t out[DIGEST_SIZE])
{
	crypto_hash_sha256_state st;
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, a, na);
	if (nb)
		crypto_hash_sha256_update(&st, b, nb);
	crypto_hash_sha256_final(&st, out);
}

void digest_hex(const uint8_t d[DIGEST_SIZE], char hex[2 * DIGEST_SIZE + 1])
{
	sodium_bin2hex(hex, 2 * DIGEST_SIZE + 1, d, DIGEST_SIZE);
}
