/*
 * cost.c — the device cost model (see cost.h and docs/fingerprints.md).
 */
#include "fingerprint/cost.h"

/* Per byte and once, measured in simavr on the hash functions the
 * device-side tracer compiles to (avr-gcc 5.4 -Os, fingerprint/tracer.c):
 * each function's cycles per call over 6 and over 12 selected bytes of
 * funcsheap's interrupts (scripts/table1.sh, results/table1.md):
 *   modular  75 and 135 cycles: a 32-bit sum;
 *   twomod   1881.7 and 2481.3: a 32-bit multiply per byte, then two
 *            32-bit remainders by libgcc's division (its loop varies a
 *            little, hence the fractions: means over the interrupts);
 *   jenkins  803.5 and 1446: one-at-a-time's 32-bit shifts per byte;
 *   knuth    567.6 and 640: the sum, then libgcc's 64 x 64-bit multiply.
 * per byte = (12-byte - 6-byte) / 6 and once = 6-byte - 6 * per byte, each
 * rounded: the table's last two columns.  Measured again once simavr's
 * stray INT0s were gone from funcsheap (sim/periph_extint.c), whose interrupts
 * the means are over: 1880.9 and 2481.8, 803.8 and 1445.7, 568.0 and
 * 640.0 — a `once` 1 or 2 cycles off (1280, 162, 496); these are kept. */
cost_hash cost_of_hash(fp_hash_kind k)
{
	switch (k) {
	case FP_HASH_MODULAR: return (cost_hash){ 10, 15 };
	case FP_HASH_TWOMOD:  return (cost_hash){ 100, 1282 };
	case FP_HASH_JENKINS: return (cost_hash){ 107, 161 };
	case FP_HASH_KNUTH:   return (cost_hash){ 12, 495 };
	default:              return (cost_hash){ 0, 0 };
	}
}

/* Cycles to read the selector's bytes g(s). */
static unsigned gather_cycles(const fp_config *c, uint32_t data_size)
{
	unsigned cycles = 0;
	for (unsigned i = 0; i < c->ncomp; i++) {
		const fp_component *k = &c->comp[i];
		switch (k->kind) {
		case FP_COMP_BYTES:
			for (unsigned b = 0; b < k->len; b++) {
				unsigned a = k->addr + b;
				cycles += a < 32 ? COST_GP_BYTE : a < 0x60 ? COST_IO_BYTE : COST_MEM_BYTE;
			}
			break;
		case FP_COMP_STACK:
			cycles += COST_STACK_BASE + COST_MEM_BYTE * k->len;
			break;
		case FP_COMP_ALL:
			cycles += COST_MEM_BYTE * data_size;
			break;
		}
	}
	return cycles;
}

static unsigned selected_bytes(const fp_config *c, uint32_t data_size)
{
	unsigned n = 0;
	for (unsigned i = 0; i < c->ncomp; i++)
		n += c->comp[i].kind == FP_COMP_ALL ? data_size : c->comp[i].len;
	return n;
}

static unsigned bytes_of_bits(unsigned bits)
{
	return (bits + 7) / 8;
}

/* The hash's cycles; round-robin pays for its dearest function. */
static unsigned hash_cycles(const fp_config *c, unsigned nbytes)
{
	if (!c->hash_bits)
		return 0;
	if (!c->round_robin) {
		cost_hash h = cost_of_hash(c->hash);
		return COST_HASH_CALL + h.per_byte * nbytes + h.once;
	}
	unsigned worst = 0;
	for (int k = 0; k < FP_HASH_COUNT; k++) {
		cost_hash h = cost_of_hash((fp_hash_kind)k);
		unsigned cyc = h.per_byte * nbytes + h.once;
		worst = cyc > worst ? cyc : worst;
	}
	return COST_HASH_CALL + COST_RR_PICK + worst;
}

cost_device cost_of_config(const fp_config *c, uint32_t data_size, uint64_t interrupts,
			   uint64_t transfers, uint64_t cycles)
{
	cost_device d = { .bits = c->ra_bits + c->state_bits };
	d.bytes_per_interrupt = bytes_of_bits(d.bits);
	unsigned per = COST_CALL + COST_RECORD + gather_cycles(c, data_size) +
		       hash_cycles(c, selected_bytes(c, data_size)) +
		       COST_STORE_BASE + COST_STORE_BYTE * d.bytes_per_interrupt;
	if (c->ra_bits)
		per += COST_RA_BASE + COST_RA_BYTE * bytes_of_bits(c->ra_bits);
	for (unsigned i = 0; i < c->ncounters; i++)
		if (c->counter[i].kind == FP_COUNT_CYCLES)
			per += COST_COUNTER_BYTE * bytes_of_bits(c->counter[i].bits);
	unsigned sic_bytes = fp_counter_bytes(c, FP_COUNT_SIC);
	if (sic_bytes) {   /* the stub's LDS of each byte, CLR of the rest of 4 */
		per += COST_COUNTER_BYTE * sic_bytes + (4 - sic_bytes);
		d.cycles_per_transfer = COST_SIC_TRANSFER + COST_SIC_BYTE * sic_bytes;
	}
	unsigned cyc_bytes = fp_counter_bytes(c, FP_COUNT_CYCLES);
	if (cyc_bytes > 2) {   /* Timer1's overflow count in cyc_bytes - 2 bytes */
		per += COST_OVF_BASE + COST_OVF_BYTE * (cyc_bytes - 2);
		d.cycles_per_overflow = COST_OVF_HANDLER + COST_OVF_HANDLER_BYTE * (cyc_bytes - 2);
	}
	d.cycles_per_interrupt = per;
	if (cycles)
		d.overhead_pct = 100.0 * ((double)per * (double)interrupts +
					  (double)d.cycles_per_transfer * (double)transfers +
					  (double)d.cycles_per_overflow * (double)(cycles >> 16)) /
				 (double)cycles;
	return d;
}
