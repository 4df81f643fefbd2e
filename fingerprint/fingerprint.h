/*
 * fingerprint.h — fingerprint configurations and their computation
 * (Gracioli & Fischmeister, §2 and §4): f(s) = <r(s.ra), h(g(s))>.
 *
 * A configuration is written as a spec, e.g.
 *
 *   fast:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=8,width=16
 *
 * `NAME:` is optional.  Parameters, comma-separated, in any order:
 *   sel=C+C+...   the selector g: an ordered list of components —
 *                   r0..r31            a general-purpose register
 *                   SPL, PINB, TCNT1L  an I/O register by the MCU's own name
 *                   0x60  0x60-0x7f    a data-space byte, or range (inclusive)
 *                   stack:N            the top N bytes of the stack (above SP)
 *                   var:NAME           a firmware variable, all its bytes
 *                   all                the whole data space
 *                   sic:K              counters, not hashed: the low K bits
 *                   cycles:K           of the software instruction counter
 *                                      (sim_transfers, K <= 32) or of the
 *                                      cycle count (K <= 32: on a device,
 *                                      a free-running clk/1 timer and, past
 *                                      16 bits, its overflow count)
 *   hash=H        modular, twomod, jenkins, knuth, or rr (round-robin)
 *   marker=M      for rr, what picks the function: var:NAME (its value
 *                 modulo 4 indexes modular, twomod, jenkins, knuth) or code
 *                 regions LO-HI:HASH joined by '+' (byte addresses of the
 *                 return address).  Without a marker, or outside every
 *                 region, the return address's 128-byte code block picks:
 *                 block number modulo 4.
 *   ra=K          bits of the return address (as a word address), 0..32
 *   width=W       total bits, ra + hash, 1..64 (default 16)
 * Defaults: hash=jenkins, ra=8, width=16; sel is required.
 *
 * With counters the fingerprint has three parts, f(s) = <r(ra), c(s),
 * h(g(s))>: the counters' bits are stored as they are, between the return
 * address bits and the hash, so two points with different counts never
 * share a fingerprint by a hash collision.  g(s) is the byte components
 * only; `hash_part` holds c(s) above h(g(s)).
 *
 * The selector reads a state view: the data space at the interrupt point
 * (r0..r31, I/O with the live SREG, SRAM) and the return address, exactly
 * what the recorder's hook and the replayer both see.
 */
#ifndef AVRR_FINGERPRINT_H
#define AVRR_FINGERPRINT_H

#include <stdint.h>

#include "sim/firmware.h"
#include "sim/ioregs.h"
#include "util/err.h"
#include "fingerprint/hash.h"

#define FP_MAX_COMPONENTS 64
#define FP_MAX_COUNTERS 4
#define FP_MAX_REGIONS 16
#define FP_MAX_SELECTED 4096  /* bytes a selector may gather (`all` excepted) */
#define FP_GATHER_MAX 32      /* fixed selectors this small are gathered byte by byte */

typedef enum { FP_COMP_BYTES, FP_COMP_STACK, FP_COMP_ALL } fp_comp_kind;

typedef struct fp_component {
	fp_comp_kind kind;
	uint16_t addr;   /* BYTES: first data-space address */
	uint16_t len;    /* BYTES: byte count; STACK: N */
} fp_component;

typedef enum { FP_COUNT_SIC, FP_COUNT_CYCLES } fp_counter_kind;

typedef struct fp_counter {
	fp_counter_kind kind;
	unsigned bits;
} fp_counter;

typedef enum { FP_MARK_BLOCKS, FP_MARK_VAR, FP_MARK_REGIONS } fp_marker_kind;

typedef struct fp_region {
	uint32_t lo, hi;     /* inclusive byte addresses */
	fp_hash_kind hash;
} fp_region;

typedef struct fp_config {
	char name[64];
	char spec[512];          /* as given (without the name) */
	fp_component comp[FP_MAX_COMPONENTS];
	unsigned ncomp;
	int round_robin;
	fp_hash_kind hash;       /* when !round_robin */
	fp_marker_kind marker;
	uint16_t marker_addr;    /* FP_MARK_VAR */
	fp_region region[FP_MAX_REGIONS];
	unsigned nregions;
	fp_counter counter[FP_MAX_COUNTERS]; /* in the order given, the first highest */
	unsigned ncounters;
	unsigned ra_bits;
	unsigned count_bits;     /* the counters' bits together */
	unsigned state_bits;     /* width - ra_bits: count_bits above hash_bits */
	unsigned hash_bits;      /* the bits of h(g(s)) */
	/* A selector of at most FP_GATHER_MAX bytes at fixed addresses (no
	 * stack:, no all) is its byte addresses in order, so fp_select is one
	 * load per byte instead of a memcpy per component: it runs at every
	 * instruction of a replay.  ngather 0: not such a selector. */
	uint16_t gather[FP_GATHER_MAX];
	unsigned ngather;
} fp_config;

/* The state a fingerprint is computed from. */
typedef struct fp_state {
	const uint8_t *data;     /* data space, data_size bytes */
	uint32_t data_size;
	uint32_t ra;             /* byte address */
	uint64_t cycle;          /* for cycles:K */
	uint64_t transfers;      /* for sic:K (sim_transfers) */
} fp_state;

typedef struct fp_value {
	uint64_t ra_part;
	uint64_t hash_part;      /* c(s) above h(g(s)): state_bits */
} fp_value;

/* Parses `spec` for a firmware whose MCU has register names `names` (may be
 * NULL: then I/O names are refused) and symbols in `fw` (may be NULL: then
 * var: is refused).  `data_size` bounds addresses.  An unnamed spec gets
 * `default_name`.  Errors quote the bad token:
 * "bad fingerprint spec 'sel=r99': no register 'r99'". */
int fp_parse(const char *spec, const mcu_names *names, const firmware *fw,
	     uint32_t data_size, const char *default_name, fp_config *out, avrr_err *err);
/* The sizes of a spec's fingerprint without resolving its selector: the
 * return-address bits and the bits below them (counters and hash), as
 * fp_parse would set ra_bits and state_bits.  For checking stored values. */
int fp_spec_bits(const char *spec, unsigned *ra_bits, unsigned *state_bits, avrr_err *err);

/* The bytes that hold c's widest counter of this kind, 0 without one: a
 * device keeps one counter of each kind, as wide as that. */
unsigned fp_counter_bytes(const fp_config *c, fp_counter_kind kind);

/* The hash function that applies in state s (the configured one, or the
 * round-robin marker's pick). */
fp_hash_kind fp_pick_hash(const fp_config *c, const fp_state *s);

/* The selector's bytes g(s), in order, into buf (at most cap bytes);
 * returns the count.  For a selector that is exactly `all`, *direct is set
 * to s->data and nothing is copied. */
uint32_t fp_select(const fp_config *c, const fp_state *s, uint8_t *buf, uint32_t cap,
		   const uint8_t **direct);

fp_value fp_compute(const fp_config *c, const fp_state *s);

/* c(s): the counters' low bits, the first counter highest (0 without). */
uint64_t fp_counter_part(const fp_config *c, const fp_state *s);

/* The stored part of a fingerprint from c(s) and h(g(s)). */
static inline uint64_t fp_state_part(const fp_config *c, uint64_t counters, uint64_t h)
{
	return c->hash_bits >= 64 ? h : counters << c->hash_bits | h;
}

/* A 64-bit key of g(s): equal for equal selector bytes.  For a selector
 * of at most 8 fixed bytes (fp_exact_keys) it is those bytes, the first
 * lowest, so the replay's oracle can compare a state against every
 * recorded one without hashing; otherwise digest_key64 of them.  For
 * scoring false input duplicates only. */
uint64_t fp_input_key(const fp_config *c, const fp_state *s);
/* The same, of bytes g[0..n) that fp_select gave for c. */
uint64_t fp_input_key_of(const fp_config *c, const uint8_t *g, uint32_t n);

static inline int fp_exact_keys(const fp_config *c)
{
	return c->ngather && c->ngather <= 8;
}

/* g(s) of a selector with fp_exact_keys, packed as fp_input_key packs it. */
static inline uint64_t fp_gather_word(const fp_config *c, const uint8_t *data)
{
	uint64_t w = 0;
	for (unsigned i = 0; i < c->ngather; i++)
		w |= (uint64_t)data[c->gather[i]] << (8 * i);
	return w;
}

/* The selector of frequency-based selection (Gracioli & Fischmeister §4.1) for fw: the
 * `nio` I/O registers and `ngp` GP registers its code names most often,
 * I/O first, e.g. "SREG+SPL+SPH+r24+r25+r28" — or, when `fixed_io` is
 * given (e.g. "SPL+SPH+SREG"), those instead of the ranked I/O ones.
 * Returns 0, or -1 if the code cannot be decoded or buf is too small. */
int fp_frequency_selector(const firmware *fw, const mcu_names *names, int nio, int ngp,
			  const char *fixed_io, char *buf, size_t n);

/* The configuration used when none is given: 32 bits of the cycle count,
 * replayed with sequence matching.  Chosen by measurement
 * (docs/fingerprints.md, "The default configuration"): the cheapest on the
 * device, within 32 bits, that replays exactly a busy firmware whose
 * interrupts come up to 10 s apart at 20 MHz (2^32 cycles is 214 s there),
 * and the bundled firmware at under 10 % device overhead. */
#define FP_DEFAULT_NAME "default"
#define FP_DEFAULT_SPEC "sel=cycles:32,ra=0,width=32"

/* The longest interrupt-free stretches of a run (gaps): from an interrupt
 * point, or a reset, to the next interrupt point; the longest in cycles and
 * the longest in counted transfers (sim_transfers), each with the icounts
 * it runs from and to. */
typedef struct fp_gaps {
	uint64_t cycles, cycles_from, cycles_to;
	uint64_t transfers, transfers_from, transfers_to;
} fp_gaps;

/* Whether c tells apart every two points of each gap of g: some counter's
 * period exceeds its gap (cycles:K: 2^K > g->cycles; sic:K: 2^K >
 * g->transfers).  A configuration without a counter is not judged (1):
 * whether its state hash tells a loop's turns apart depends on the
 * state, which the gap's length does not say (docs/fingerprints.md). */
int fp_covers_gaps(const fp_config *c, const fp_gaps *g);

/* If some configuration of cfg[0..n) does not cover the gaps g, writes
 * one line into buf naming the first such configuration, the gap (its
 * icount range and length; in seconds at `frequency` Hz, if not 0), and a
 * configuration that covers it, and returns 1; else returns 0. */
int fp_gap_warning(const fp_config *cfg, unsigned n, const fp_gaps *g, uint32_t frequency,
		   char *buf, size_t size);

/* Writes the canonical "NAME:spec" into buf. */
void fp_format(const fp_config *c, char *buf, size_t n);

#endif
