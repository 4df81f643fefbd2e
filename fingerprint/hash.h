/*
 * hash.h — the hash functions h and the return-address reduction r of a
 * fingerprint f(s) = <r(s.ra), h(g(s))> (LCTES'09, "Tracing Interrupts in
 * Embedded Software", §2.1).
 *
 * The selector g (built elsewhere) turns the execution context into a byte
 * vector x_0..x_{n-1}; this module only hashes that vector down to `bits`
 * bits (1..64) and reduces the return address to k bits.  The four kinds are
 * the single hash functions the paper compares in §5.2; round-robin hashing
 * is a choice *between* them made by the caller, so it is not a kind here.
 *
 * Contract shared by every kind (and relied on by callers that compare
 * fingerprints of different widths): for bits b in 1..63, h(x, b) is a
 * function of h(x, b+1), so a wider hash never separates fewer inputs.
 * Concretely h(x, b) == h(x, b+1) & fp_hash_mask(b) for modular, twomod and
 * jenkins (they keep the LOW bits of a fixed-width value), and
 * h(x, b) == h(x, b+1) >> 1 for knuth (it keeps the HIGH bits of a product).
 *
 * Everything here is pure and allocation-free: fp_hash runs once per
 * simulated instruction in the replayer.
 */
#ifndef AVRR_FINGERPRINT_HASH_H
#define AVRR_FINGERPRINT_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	/* S = Σ x_i (64-bit);  h = S mod 2^bits.
	 * The paper's h1 = (Σ x_i) mod 16 generalised to any width.  The plain
	 * sum caps the reachable range (§6: twenty bytes sum to at most 5,100,
	 * so 16 bits are mostly unused) and lets components cancel; that is the
	 * behaviour the paper measured, so it is kept deliberately. */
	FP_HASH_MODULAR,
	/* S = Σ x_i,  W = Σ (i+1)·x_i  (both 64-bit, wrapping);
	 * h = ((S mod 65521) · 65519 + (W mod 65519)) mod 2^bits.
	 * "Two hash functions based on modulo", a variation of London (1999):
	 * the position weights in W make the hash order-sensitive, which the
	 * plain sum is not.  65521 and 65519 are the two largest primes below
	 * 2^16; the combination is a mixed-radix pairing, so the 32-bit value
	 * (< 65521·65519 < 2^32) determines both residues exactly and nothing is
	 * lost before the final mask.  Bits above 31 are therefore always 0.
	 * (W only wraps for n beyond ~2^28 bytes, far past any selector.) */
	FP_HASH_TWOMOD,
	/* bits <= 32:  h = oaat(x) & mask(bits)  — §5.2 quoting Jenkins: "if
	 *              you need less than 32 bits, use a bitmask";
	 * bits  > 32:  h = (oaat(x) | oaat2(x) << 32) & mask(bits), where oaat2
	 *              is one-at-a-time started from hash = 0x9e3779b9 (the
	 *              golden-ratio constant of Jenkins' lookup2) instead of 0.
	 *              One-at-a-time only yields 32 bits; a second, differently
	 *              seeded pass supplies the high word while the low word
	 *              stays the published hash, preserving the widening
	 *              contract across the 32-bit boundary. */
	FP_HASH_JENKINS,
	/* S = Σ x_i;  P = S · 0x9E3779B97F4A7C15 mod 2^64;
	 * h = P >> (64 − bits), and h = P for bits == 64.
	 * Multiplicative hashing (Knuth, TAOCP vol. 3, §6.4) with A/2^64 ≈ the
	 * golden ratio's fractional part.  Knuth's method takes the TOP bits of
	 * the product because the low bits of S·A depend only on the low bits of
	 * S; masking would throw away exactly the well-mixed part. */
	FP_HASH_KNUTH,
	FP_HASH_COUNT
} fp_hash_kind;

/* All-ones in the low `bits` bits; bits >= 64 gives all ones, 0 gives 0.
 * Never shifts by 64 (undefined in C). */
static inline uint64_t fp_hash_mask(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX
	       : bits == 0 ? 0 : UINT64_MAX >> (64 - bits);
}

/* "modular", "twomod", "jenkins", "knuth"; NULL for a value outside the enum
 * (so misuse fails loudly instead of being stored as a name). */
const char *fp_hash_name(fp_hash_kind k);

/* Sets *out to the kind named exactly (case-sensitive) by `name`.
 * Returns 0 on success, -1 (leaving *out alone) for NULL or unknown names. */
int fp_hash_parse(const char *name, fp_hash_kind *out);

/* Hashes x[0..n-1] (x may be NULL when n == 0) to a value < 2^bits.
 * bits is meant to be 1..64; 0 yields 0 and values above 64 act as 64.
 * An out-of-range kind yields 0. */
uint64_t fp_hash(fp_hash_kind k, const uint8_t *x, size_t n, unsigned bits);

/* fp_hash of many short inputs at once: out[i] = fp_hash(k, x, n, bits)
 * where x is the n <= 8 bytes packed in w[i], the first in the lowest
 * byte.  The replay's oracle defers the boundaries it evaluates and hashes
 * them in bulk here, in loops the compiler can vectorize. */
void fp_hash_words(fp_hash_kind k, const uint64_t *w, size_t count, unsigned n, unsigned bits,
		   uint64_t *out);

/* fp_hash(k, x, n, bits) from fp_hash(k, x, n, 64), by the widening
 * contract above: one 64-bit hash serves every width. */
static inline uint64_t fp_hash_narrow(fp_hash_kind k, uint64_t h64, unsigned bits)
{
	if (k == FP_HASH_KNUTH)
		return bits == 0 ? 0 : bits >= 64 ? h64 : h64 >> (64 - bits);
	return h64 & fp_hash_mask(bits);
}

/* r(ra): the low k bits of the WORD address ra_byte_addr / 2.  AVR program
 * addresses step by 2, so reducing the byte address would waste bit 0 (§5.3
 * finds 0 and 1 RA bits equally useless for that reason).  k is 0..32
 * (0 means no RA prefix); k > 32 acts as 32. */
static inline uint64_t fp_reduce_ra(uint32_t ra_byte_addr, unsigned k)
{
	/* ra/2 fits in 31 bits, so any k >= 31 keeps all of it; masking with
	 * fp_hash_mask covers k > 32 without a separate clamp. */
	return (uint64_t)(ra_byte_addr >> 1) & fp_hash_mask(k);
}

/* Bob Jenkins' one-at-a-time hash exactly as published (Dr. Dobb's, Sept.
 * 1997), over unsigned bytes, without the final mask.  The published code
 * takes `char *`, whose signedness is implementation-defined; unsigned bytes
 * are the portable reading and agree with it on ASCII. */
uint32_t fp_jenkins_oaat(const uint8_t *x, size_t n);

#endif
