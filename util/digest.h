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

/* Lower-case hex of a digest; `hex` holds 2*DIGEST_SIZE+1 bytes. */
void digest_hex(const uint8_t d[DIGEST_SIZE], char hex[2 * DIGEST_SIZE + 1]);

#endif
