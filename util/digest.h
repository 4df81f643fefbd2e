/*
 * digest.h — SHA-256 (libsodium) for firmware identity, what users compare
 * with sha256sum; XXH3-64 (libxxhash) for the ground-truth digest of each
 * interrupt's context, taken at every interrupt of a recording: it only has
 * to tell contexts apart (nobody forges a context against the scorer), and a
 * cryptographic hash there cost a tenth of the recording's time.
 */
#ifndef AVRR_DIGEST_H
#define AVRR_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SIZE 32
#define DIGEST_CONTEXT_SIZE 8

void digest_sha256(const void *data, size_t n, uint8_t out[DIGEST_SIZE]);

/* XXH3_64bits (seed 0) over two buffers as if concatenated (context bytes,
 * then RA), little-endian: the recording keeps all 8 bytes.  -1 when out of
 * memory. */
int digest_context(const void *a, size_t na, const void *b, size_t nb,
		   uint8_t out[DIGEST_CONTEXT_SIZE]);

/* SipHash-2-4 of data under a fixed key: a 64-bit key for telling byte
 * strings apart (equal strings, equal keys; unequal ones collide with
 * probability 2^-64), e.g. to compare selector outputs. */
uint64_t digest_key64(const void *data, size_t n);

/* Lower-case hex of a digest; `hex` holds 2*DIGEST_SIZE+1 bytes. */
void digest_hex(const uint8_t d[DIGEST_SIZE], char hex[2 * DIGEST_SIZE + 1]);

#endif
