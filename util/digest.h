/*
 * digest.h — digests from libsodium: SHA-256 for firmware identity (what
 * users compare with sha256sum), BLAKE2b-256 for the ground-truth digest of
 * each interrupt's context — as strong, and about three times faster here,
 * which matters at thousands of interrupts per simulated second.
 */
#ifndef AVRR_DIGEST_H
#define AVRR_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SIZE 32

void digest_sha256(const void *data, size_t n, uint8_t out[DIGEST_SIZE]);

/* BLAKE2b-256 over two buffers as if concatenated (context bytes, then RA). */
void digest_context(const void *a, size_t na, const void *b, size_t nb,
		    uint8_t out[DIGEST_SIZE]);

/* SipHash-2-4 of data under a fixed key: a 64-bit key for telling byte
 * strings apart (equal strings, equal keys; unequal ones collide with
 * probability 2^-64), e.g. to compare selector outputs. */
uint64_t digest_key64(const void *data, size_t n);

/* Lower-case hex of a digest; `hex` holds 2*DIGEST_SIZE+1 bytes. */
void digest_hex(const uint8_t d[DIGEST_SIZE], char hex[2 * DIGEST_SIZE + 1]);

#endif
