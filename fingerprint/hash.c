/*
 * hash.c — fingerprint hash functions and return-address reduction (see
 * hash.h for the definitions and why each is shaped the way it is).
 *
 * fp_hash runs once per simulated instruction during replay, so each kind is
 * one tight loop over the input with no allocation and one switch on kind.
 */
#include "fingerprint/hash.h"

#include <string.h>

/* Second-word seed for jenkins hashes wider than 32 bits (hash.h). */
#define FP_OAAT2_SEED 0x9e3779b9u

/* Largest two primes below 2^16, for twomod. */
#define FP_TWOMOD_P1 65521u
#define FP_TWOMOD_P2 65519u

/* Knuth's multiplier: floor(2^64 / golden ratio), which happens to be odd
 * (Knuth asks for A relatively prime to the word size). */
#define FP_KNUTH_A UINT64_C(0x9E3779B97F4A7C15)

static const char *const fp_hash_names[FP_HASH_COUNT] = {
	[FP_HASH_MODULAR] = "modular",
	[FP_HASH_TWOMOD] = "twomod",
	[FP_HASH_JENKINS] = "jenkins",
	[FP_HASH_KNUTH] = "knuth",
};

const char *fp_hash_name(fp_hash_kind k)
{
	/* Compare as unsigned so a negative out-of-range enum is caught too. */
	return (unsigned)k < FP_HASH_COUNT ? fp_hash_names[k] : NULL;
}

int fp_hash_parse(const char *name, fp_hash_kind *out)
{
	if (!name)
		return -1;
	for (unsigned i = 0; i < FP_HASH_COUNT; i++) {
		if (strcmp(name, fp_hash_names[i]) == 0) {
			*out = (fp_hash_kind)i;
			return 0;
		}
	}
	return -1;
}

/* One-at-a-time from an arbitrary starting hash; seed 0 is the published
 * function. */
static uint32_t oaat_seeded(uint32_t hash, const uint8_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		hash += x[i];
		hash += hash << 10;
		hash ^= hash >> 6;
	}
	hash += hash << 3;
	hash ^= hash >> 11;
	hash += hash << 15;
	return hash;
}

uint32_t fp_jenkins_oaat(const uint8_t *x, size_t n)
{
	return oaat_seeded(0, x, n);
}

static uint64_t byte_sum(const uint8_t *x, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s;
}

uint64_t fp_hash(fp_hash_kind k, const uint8_t *x, size_t n, unsigned bits)
{
	uint64_t mask = fp_hash_mask(bits);

	switch (k) {
	case FP_HASH_MODULAR:
		return byte_sum(x, n) & mask;

	case FP_HASH_TWOMOD: {
		uint64_t s = 0, w = 0;
		for (size_t i = 0; i < n; i++) {
			s += x[i];
			w += (uint64_t)(i + 1) * x[i];
		}
		uint64_t v = (s % FP_TWOMOD_P1) * FP_TWOMOD_P2 + w % FP_TWOMOD_P2;
		return v & mask;
	}

	case FP_HASH_JENKINS: {
		uint64_t v = oaat_seeded(0, x, n);
		/* The second pass costs as much as the first; only pay for it
		 * when the high word survives the mask. */
		if (bits > 32)
			v |= (uint64_t)oaat_seeded(FP_OAAT2_SEED, x, n) << 32;
		return v & mask;
	}

	case FP_HASH_KNUTH: {
		uint64_t p = byte_sum(x, n) * FP_KNUTH_A;
		if (bits >= 64)
			return p;
		/* bits == 0 (no hash portion) must not become a shift by 64. */
		return bits ? p >> (64 - bits) : 0;
	}

	case FP_HASH_COUNT:
		break;
	}
	return 0;
}

/* Σ of the bytes of w, four 16-bit pair sums added by one multiply. */
static inline uint64_t word_byte_sum(uint64_t w)
{
	const uint64_t lo = UINT64_C(0x00ff00ff00ff00ff);
	uint64_t pairs = (w & lo) + (w >> 8 & lo);
	return pairs * UINT64_C(0x0001000100010001) >> 48;
}

/* Σ (j + 1) * byte j of w: with pair sums P_i = b_2i + b_2i+1, that is
 * 2 Σ i P_i + Σ P_i + Σ b_2i+1, and one multiply puts Σ i P_i in the top
 * 16-bit lane (no lane of the product exceeds 6 * 510). */
static inline uint64_t word_weighted_sum(uint64_t w)
{
	const uint64_t lo = UINT64_C(0x00ff00ff00ff00ff), ones = UINT64_C(0x0001000100010001);
	uint64_t odd = w >> 8 & lo, pairs = (w & lo) + odd;
	uint64_t by_index = pairs * UINT64_C(0x0000000100020003) >> 48;
	return 2 * by_index + (pairs * ones >> 48) + (odd * ones >> 48);
}

/* One-at-a-time over the first n bytes of each w[i], eight at a time in
 * vector lanes (GCC's vector extension: AVX2 where the clone has it, else
 * pairs of SSE2 registers), ORed into out[i] shifted left by `shift`. */
typedef uint32_t u32x8 __attribute__((vector_size(32)));

static uint32_t oaat_word(uint64_t w, unsigned n, uint32_t h)
{
	for (unsigned j = 0; j < n; j++) {
		h += (uint32_t)(w >> (8 * j)) & 0xff;
		h += h << 10;
		h ^= h >> 6;
	}
	h += h << 3;
	h ^= h >> 11;
	return h + (h << 15);
}

static inline __attribute__((always_inline)) void oaat_words(const uint64_t *w, size_t count,
							     unsigned n, uint32_t seed,
							     unsigned shift, uint64_t *out)
{
	size_t i = 0;
	for (; i + 8 <= count; i += 8) {
		u32x8 lo, hi, h;
		for (int k = 0; k < 8; k++) {
			lo[k] = (uint32_t)w[i + k];
			hi[k] = (uint32_t)(w[i + k] >> 32);
			h[k] = seed;
		}
		for (unsigned j = 0; j < n; j++) {
			h += (j < 4 ? lo >> (8 * j) : hi >> (8 * (j - 4))) & 0xff;
			h += h << 10;
			h ^= h >> 6;
		}
		h += h << 3;
		h ^= h >> 11;
		h += h << 15;
		for (int k = 0; k < 8; k++)
			out[i + k] |= (uint64_t)h[k] << shift;
	}
	for (; i < count; i++)
		out[i] |= (uint64_t)oaat_word(w[i], n, seed) << shift;
}

/* Built twice where the compiler can (AVX2 and the baseline), chosen when
 * the program loads: the oracle hashes every instruction boundary.  Not
 * under the sanitizers, whose runtimes are not up yet when the choice is
 * made, nor with clang (the fuzzing build), whose version 14 emits no
 * symbol under the function's own name for callers in other files. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
void fp_hash_words(fp_hash_kind k, const uint64_t *w, size_t count, unsigned n, unsigned bits,
		   uint64_t *out)
{
	uint64_t mask = fp_hash_mask(bits);
	switch (k) {
	case FP_HASH_MODULAR:
		for (size_t i = 0; i < count; i++)
			out[i] = word_byte_sum(w[i]) & mask;
		return;
	case FP_HASH_TWOMOD:
		for (size_t i = 0; i < count; i++) {
			uint64_t v = (word_byte_sum(w[i]) % FP_TWOMOD_P1) * FP_TWOMOD_P2 +
				     word_weighted_sum(w[i]) % FP_TWOMOD_P2;
			out[i] = v & mask;
		}
		return;
	case FP_HASH_JENKINS:
		memset(out, 0, count * sizeof *out);
		oaat_words(w, count, n, 0, 0, out);
		if (bits > 32)
			oaat_words(w, count, n, FP_OAAT2_SEED, 32, out);
		for (size_t i = 0; i < count; i++)
			out[i] &= mask;
		return;
	case FP_HASH_KNUTH:
		for (size_t i = 0; i < count; i++) {
			uint64_t p = word_byte_sum(w[i]) * FP_KNUTH_A;
			out[i] = bits >= 64 ? p : bits ? p >> (64 - bits) : 0;
		}
		return;
	case FP_HASH_COUNT:
		break;
	}
	memset(out, 0, count * sizeof *out);
}
