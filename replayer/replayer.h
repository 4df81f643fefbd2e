/*
 * replayer.h — the replay engine: a recording played back instruction by
 * instruction, every interrupt re-created from fingerprints (seed 004 §2.2)
 * and every outside input fed from the happens-before log (seed 003).
 *
 * The firmware runs on a replica of the recorded machine (trace/
 * replica.h) in the sim layer's replay mode: the peripherals run and raise
 * their flags, but the CPU never vectors on its own.  At every boundary
 * where it could accept an interrupt, the engine decides:
 *
 *   fingerprint replay  computes f(s) under one stored configuration and,
 *                       on a match in D, enters the matched vector.
 *                       --match set: any recorded fingerprint (the paper);
 *                       --match sequence: only the next expected
 *                       interrupt in log order (or the next `window`),
 *                       and only where the log's happens-before order
 *                       puts it: between the running context's last
 *                       event and its next (seed 003).
 *                       It never reads the ground truth; when the recording
 *                       has it, each injection is scored against it.
 *   oracle              (seed 004 §5.3) follows the ground truth, and at
 *                       every such boundary evaluates many configurations
 *                       at once, classifying each hit.
 *
 * Either way every event — interrupt entry, RETI, input read, output
 * write, sleep, wake — is checked against the next recorded event of its
 * context (main program or ISR); the first mismatch is a divergence and
 * stops the replay.  Input reads get the recorded value.
 *
 * Fail loud: a fingerprint replay also stops at the first wrong step it
 * can see.  With the ground truth, that is a false injection (stopped
 * before it enters the vector) or a recorded interrupt passed without
 * being taken (stopped at its icount).  Always, an event of any context
 * that the log's single total order puts after an interrupt not yet
 * injected is a divergence there.  `keep_going` turns both off, to count
 * false positives and misses to the end (or to an event divergence).
 *
 * The API is what every front-end shares: open, run (until an icount, the
 * end, a divergence or a stop request), position, counters, close.
 */
#ifndef AVRR_REPLAYER_H
#define AVRR_REPLAYER_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "sim/sim.h"
#include "util/err.h"

typedef enum { RP_MATCH_SET, RP_MATCH_SEQUENCE } rp_match;

#define RP_DEFAULT_WINDOW 1  /* sequence matching: interrupts looked ahead */

typedef struct rp_options {
	const char *fp_name;        /* configuration to replay; NULL: "default",
				       else the first stored */
	rp_match match;
	unsigned window;            /* 0: RP_DEFAULT_WINDOW */
	int oracle;                 /* oracle evaluation instead */
	int keep_going;             /* count false and missed interrupts, do not stop */
	/* Oracle: the configurations to evaluate, each a stored name or a
	 * spec; none = every stored one. */
	const char *const *oracle_configs;
	unsigned noracle_configs;
	volatile int *interrupted;  /* a stop request from outside */
	/* The oracle's table of distinct states per evaluator: at most
	 * 2^oracle_table_bits slots, and its class tables a budget in
	 * proportion (0: the defaults, batch.h); small ones fill, empty, rest
	 * and refuse often, which tests want to see. */
	unsigned oracle_table_bits;
	/* The firmware kept from one replay to the next of the same ELF (a
	 * fuzzer's: sim/firmware.h), or NULL. */
	fw_cache *fw_cache;
} rp_options;

/* Counters of a fingerprint replay.  The scoring ones (correct and below)
 * need the ground truth; without it `scored` is 0. */
typedef struct rp_counters {
	uint64_t instructions;
	uint64_t interrupts_recorded;
	uint64_t injected;
	uint64_t ambiguous;          /* matches whose fingerprint has several vectors */
	int scored;
	uint64_t correct;
	uint64_t false_loop, false_ra;
	uint64_t input_duplicates, hash_collisions;  /* causes of the false ones */
	uint64_t missed;
} rp_counters;

/* One configuration's oracle result. */
typedef struct rp_oracle_result {
	char name[64];
	char spec[512];
	uint64_t hits, correct, false_loop, false_ra, input_duplicates, hash_collisions, missed;
} rp_oracle_result;

typedef struct rp_divergence {
	uint64_t icount;
	uint32_t pc;
	char where[128];      /* symbol+offset */
	unsigned context;     /* 0 = main, else the ISR's vector */
	char expected[160];
	char actual[160];
} rp_divergence;

/* One interrupt entry the replay made. */
typedef struct rp_injection {
	uint64_t icount;
	uint8_t vector;
} rp_injection;

typedef enum {
	RP_LIMIT,        /* reached the icount asked for */
	RP_END,          /* reached the end of the recording */
	RP_DIVERGED,
	RP_STOPPED,      /* a stop request */
	RP_CPU_STOPPED,  /* the CPU crashed or stopped before the end */
	RP_BREAK,        /* the step hook asked to stop */
} rp_stop;

typedef struct replay replay;

int rp_open(const char *path, const rp_options *o, replay **out, avrr_err *err);
/* The same for a recording already open (db_open, db_open_memory): the
 * replay owns d from here on, failing or not, and rp_close closes it. */
int rp_open_db(db *d, const rp_options *o, replay **out, avrr_err *err);
void rp_close(replay *r);

/* Runs until icount `until` (0: the end of the recording). */
rp_stop rp_run(replay *r, uint64_t until);
/* The same, in slices of 2^22 instructions, calling
 * progress(ud, icount, until) after each (NULL: none); for front-ends that
 * show how far a long run has come. */
rp_stop rp_run_reporting(replay *r, uint64_t until,
			 void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud);

/* Whether the replay went wrong anywhere so far: a divergence, or a false
 * or missed interrupt counted under keep_going. */
int rp_went_wrong(replay *r);

uint64_t rp_icount(const replay *r);
uint64_t rp_length(const replay *r);            /* the recording's instructions */
const char *rp_config_name(const replay *r);    /* fingerprint replay's configuration */
const rp_counters *rp_get_counters(replay *r);  /* missed counted up to here */
const rp_divergence *rp_get_divergence(const replay *r); /* NULL if none */
/* The interrupt entries made so far, in order.  A faithful replay keeps
 * none of them as it goes (each was the recorded one); they are listed
 * from the log when first asked for. */
const rp_injection *rp_injections(replay *r, size_t *n);
const rp_oracle_result *rp_oracle_results(const replay *r, size_t *n);
/* For a front-end that inspects the machine. */
sim *rp_sim(replay *r);
const firmware *rp_firmware(const replay *r);

/* An access an observer is told of: an input read or output write of a
 * traced I/O register (the value the CPU sees), or an SRAM load or store. */
typedef struct rp_access {
	uint16_t addr;
	uint8_t value;
	uint8_t write;
	uint32_t pc;          /* the instruction's byte address */
	uint8_t ctx;          /* 0 = main, else the running ISR's vector */
	uint64_t icount;      /* counting the access's instruction */
} rp_access;

/* A fingerprint match the replay is about to inject. */
typedef struct rp_hit {
	uint64_t n;           /* the recorded interrupt it stands for, in log order */
	uint8_t vector;
	uint64_t key;         /* the fingerprint that matched */
	uint64_t ra_part, hash_part;  /* the same, as its configuration's parts */
	/* Were it false: whether a recorded interrupt with this fingerprint
	 * has this return address (a loop positive, else an RA one), and
	 * whether one has these selector bytes (an input duplicate, else a
	 * hash collision).  Set by rp_classify_hit, which an observer calls
	 * only for a hit it finds false: it may have to build D. */
	uint8_t same_ra, same_input;
} rp_hit;

typedef struct replay replay;
/* Fills h->same_ra and h->same_input, during on_match. */
void rp_classify_hit(replay *r, rp_hit *h);

/* What a front-end or an analysis listens to; any callback may be NULL.
 * Instructions and SRAM accesses are observed only while some observer
 * listens to them (a replay nobody observes runs the unobserved loop).
 * The state (rp_sim) is the one after the event. */
typedef struct rp_observer {
	void *ud;
	/* An instruction retired at byte address pc, in `cycles` cycles; told
	 * after its I/O accesses, before its SRAM access, its RETI and any
	 * interrupt entry at its boundary. */
	void (*on_insn)(void *ud, uint32_t pc, uint32_t cycles);
	void (*on_sram)(void *ud, const rp_access *a);
	void (*on_io)(void *ud, const rp_access *a);
	void (*on_irq)(void *ud, uint8_t vector, uint32_t ra);  /* entered */
	void (*on_reti)(void *ud, uint8_t vector);              /* left */
	void (*on_raise)(void *ud, uint8_t vector);             /* flag raised */
	/* After every step; non-zero stops rp_run there with RP_BREAK. */
	int (*on_step)(void *ud);
	/* Before a fingerprint replay enters an interrupt its fingerprint
	 * matched; non-zero vetoes the entry and stops the replay there (the
	 * observer says why with rp_diverge). */
	int (*on_match)(void *ud, const rp_hit *h);
	/* The next point the observer needs to see decided: the replay ends
	 * its run slices at icount *icount (and, there, past cycle *cycle),
	 * then calls on_slice.  Left unchanged: no such point. */
	void (*due)(void *ud, uint64_t *icount, uint64_t *cycle);
	/* After each run slice, unless the replay diverged. */
	void (*on_slice)(void *ud);
} rp_observer;

#define RP_MAX_OBSERVERS 8

/* Adds (a copy of) o, or replaces the observer with o->ud.  Returns 0, or
 * -1 (err): too many, or out of memory. */
int rp_observe(replay *r, const rp_observer *o, avrr_err *err);
/* Removes the observer with `ud`, if any. */
void rp_unobserve(replay *r, const void *ud);
/* For an observer that finds the replay wrong: stops it here, a
 * divergence in context ctx (only the first one counts). */
void rp_diverge(replay *r, unsigned ctx, const char *expected, const char *actual);
/* A fingerprint replay's key (fpi_key) of the state here, and of the n-th
 * recorded interrupt. */
uint64_t rp_key_here(replay *r);
uint64_t rp_recorded_key(replay *r, uint64_t n);

/* The happens-before log, in seq order, and how much of each context's
 * part of it the replay has consumed.  The replay itself reads the log a
 * chunk at a time; rp_events reads it whole, on first use, for the
 * commands that list it (the shell's info irqs, uart and events). */
const trace_event *rp_events(replay *r, size_t *n);
size_t rp_consumed(const replay *r, unsigned ctx);
/* The n-th recorded interrupt (1-based) as the ground truth has it: its
 * irq event's icount, cycle, vector and return address (sp and digest are
 * not read).  -1 when the log cannot be read there, after diverging. */
int rp_recorded_interrupt(replay *r, uint64_t n, db_interrupt *q);
/* An event in words: "irq vector 1 (INT0_vect) ra 0x024c", "read PINB (0x36) = 0x01". */
void rp_describe_event(const replay *r, const trace_event *e, char *buf, size_t n);

/* The fingerprint of the current state under each stored configuration,
 * and how many recorded interrupts have it: fn(ud, name, ra_part,
 * hash_part, matches) once per configuration.  Returns 0 or -1 (err). */
int rp_fingerprints_here(replay *r,
			 void (*fn)(void *ud, const char *name, uint64_t ra_part, uint64_t hash_part,
				    size_t matches),
			 void *ud, avrr_err *err);

#endif
