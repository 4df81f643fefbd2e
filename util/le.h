/*
 * le.h — little-endian numbers of 0 to 8 bytes, as the AVR keeps them in
 * memory and as a recording's fingerprint chunks store them.
 */
#ifndef AVRR_UTIL_LE_H
#define AVRR_UTIL_LE_H

#include <stdint.h>

static inline uint64_t le_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Writes v's low n bytes at p; returns the byte after them. */
static inline uint8_t *le_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		*p++ = (uint8_t)v;
	return p;
}

#endif
