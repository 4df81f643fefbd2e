/*
 * cost.h — what a fingerprint configuration would cost on the device.
 *
 * A device-side tracer, called from each ISR's prologue, gathers the
 * selector's bytes, hashes them, keeps the return address bits, reads its
 * counters and stores the fingerprint into a ring buffer; a software
 * instruction counter also costs an increment at every counted transfer.
 * The model prices each step in AVR cycles.  The stub, the tracer's own
 * overhead and the hash functions are measured in simavr on the code
 * `avrr tracer` generates, as avr-gcc 5.4 -Os compiles it
 * (results/table1.md); the rest from the instruction timings of the
 * obvious code (IN 1, LDS/LDD/LD/ST/STS 2, ALU 1), as docs/fingerprints.md
 * tabulates.  Measured against it on funcsheap, the model is within 3.4 % of
 * the generated tracer's cycles per interrupt (the default's 32-bit cycle
 * counter: 160 modelled, 154.7 measured).
 */
#ifndef AVRR_COST_H
#define AVRR_COST_H

#include <stdint.h>

#include "fingerprint/fingerprint.h"

/* The cost table, in AVR cycles (docs/fingerprints.md "Device cost"). */
#define COST_CALL          81  /* the stub: SREG and 14 registers saved and restored,
				  two calls, RETI (measured) */
#define COST_RECORD        24  /* the record function's own entry, exit and pointers (measured) */
#define COST_HASH_CALL     73  /* calling the hash and widening its result (measured) */
#define COST_GP_BYTE        1  /* MOV from a register the ISR has not touched yet */
#define COST_IO_BYTE        1  /* IN, for an I/O register below data address 0x60 */
#define COST_MEM_BYTE       2  /* LDS/LD, for extended I/O, SRAM, a variable, `all` */
#define COST_STACK_BASE     2  /* IN SPL, IN SPH before reading stack:N */
#define COST_RA_BASE        2  /* IN SPL, IN SPH to find the return address */
#define COST_RA_BYTE        3  /* LDD the byte, ANDI to keep its bits */
#define COST_COUNTER_BYTE   2  /* LDS a byte of a counter (the timer, or the SIC) */
#define COST_STORE_BASE    10  /* load, bound and save the ring buffer's pointer */
#define COST_STORE_BYTE     2  /* ST X+ */
#define COST_SIC_TRANSFER  16  /* per counted transfer, avrr instrument's sequence: PUSH,
				  IN, CLI, PUSH, POP, SBRC, RJMP, ANDI, OUT, POP, SEI with
				  interrupts on (1 less with them off: measured) */
#define COST_SIC_BYTE       5  /* per counted transfer and counter byte: LDS, SUBI/SBCI, STS */
#define COST_RR_PICK        6  /* round-robin: read the marker, or compare a region */
#define COST_OVF_BASE      27  /* cycles:K, K > 16, per interrupt: TOV1's check, the 32-bit
				  correction, the unrolled store (measured) */
#define COST_OVF_BYTE       1  /* ... and per byte of the overflow count (measured) */
#define COST_OVF_HANDLER   21  /* per Timer1 overflow: the response (4), JMP (3), PUSH, IN,
				  PUSH, POP, OUT, POP, RETI */
#define COST_OVF_HANDLER_BYTE 5  /* ... and per byte of the count: LDS, SUBI/SBCI, STS */

/* A hash function's cycles on an 8-bit AVR: per selected byte, and once. */
typedef struct cost_hash {
	unsigned per_byte, once;
} cost_hash;

cost_hash cost_of_hash(fp_hash_kind k);

/* What a device-side tracer spends for configuration c: `bits` stored per
 * interrupt (the width) in `bytes_per_interrupt`, `cycles_per_interrupt`
 * for one fingerprint, `cycles_per_transfer` of counter instrumentation
 * (0 without sic:K), `cycles_per_overflow` of the tracer's own Timer1
 * overflow handler (0 unless a cycles:K counter has K > 16: one per 2^16
 * cycles), and over a run of `cycles` with `interrupts` interrupts and
 * `transfers` counted transfers, `overhead_pct`: the tracer's cycles in %
 * of the run's (0 when cycles is 0). */
typedef struct cost_device {
	unsigned bits;
	unsigned bytes_per_interrupt;
	unsigned cycles_per_interrupt;
	unsigned cycles_per_transfer;
	unsigned cycles_per_overflow;
	double overhead_pct;
} cost_device;

/* `data_size` is the MCU's data space, for a selector of `all`. */
cost_device cost_of_config(const fp_config *c, uint32_t data_size, uint64_t interrupts,
			   uint64_t transfers, uint64_t cycles);

#endif
