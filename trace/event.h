/*
 * event.h — the happens-before log's events: their kinds, what each field
 * means for each kind, how the recorder stamps them and the rules every log
 * obeys.  The one definition the recorder, the store's validation and the
 * replayer share (seed 003's log, one entry per event a device-side tracer
 * would see).
 *
 * Every event belongs to a context: the main program (0) or the running
 * ISR, named by its vector.  seq is the log's single total order; prev links
 * each event to the previous one of its own context.
 */
#ifndef AVRR_TRACE_EVENT_H
#define AVRR_TRACE_EVENT_H

#include <stdint.h>

/* Event kinds (the numbers are stored). */
typedef enum {
	TRACE_RESET = 1,  /* start of the run, or a watchdog reset */
	TRACE_IRQ = 2,    /* interrupt entry: addr = vector, value = ra = pc */
	TRACE_RETI = 3,   /* return from interrupt: addr = vector */
	TRACE_READ = 4,   /* CPU read of an input register: addr, value */
	TRACE_WRITE = 5,  /* CPU write to an output register: addr, value */
	TRACE_SLEEP = 6,
	TRACE_WAKE = 7,
	TRACE_COUNT
} trace_kind;

const char *trace_kind_name(int type); /* "irq", ...; "?" if unknown */

typedef struct trace_event {
	uint64_t seq;     /* 1-based global order */
	uint64_t prev;    /* seq of the previous event of the same ctx; 0 = none */
	uint32_t ctx;     /* 0 = main program, else the running ISR's vector */
	uint32_t type;
	uint64_t icount;  /* instructions retired when it happened */
	uint64_t cycle;
	uint32_t pc;      /* byte address */
	uint32_t addr;
	uint32_t value;
} trace_event;

/* Reads and writes carry an address and a value of their own. */
static inline int trace_has_operands(uint32_t type)
{
	return type == TRACE_READ || type == TRACE_WRITE;
}

/* The addr and value every other kind carries, implied by its context and
 * pc: an irq's are its vector (its context) and its return address (its
 * pc), a reti's its vector; reset, sleep and wake carry none.  The one
 * statement of that layout: the recorder stamps events by it, the replayer
 * expects them by it, and the store leaves those fields out by it. */
static inline void trace_implied(uint32_t type, uint32_t ctx, uint32_t pc, uint32_t *addr,
				 uint32_t *value)
{
	*addr = type == TRACE_IRQ || type == TRACE_RETI ? ctx : 0;
	*value = type == TRACE_IRQ ? pc : 0;
}

#define TRACE_MAX_NESTING 64  /* simavr's stack of running ISRs */

/* The recorder's side: seq and each context's last event. */
typedef struct trace_writer {
	uint64_t seq;
	uint64_t last_of_ctx[256];
} trace_writer;

/* The next event of the log, stamped with its place in both orders. */
trace_event trace_stamp(trace_writer *w, uint8_t ctx, trace_kind type, uint64_t icount,
			uint64_t cycle, uint32_t pc, uint32_t addr, uint32_t value);

/* The running ISRs, as the log so far implies them. */
typedef struct trace_nesting {
	uint8_t stack[TRACE_MAX_NESTING];
	unsigned depth;
} trace_nesting;

/* Checks e against its kind's rules and the running-ISR stack n (updated):
 * NULL when it holds, else what is wrong.  Vectors run 1..max_vector,
 * register addresses below data_size.  seq, prev and the ranges of icount,
 * cycle and pc are the caller's. */
const char *trace_check(const trace_event *e, trace_nesting *n, unsigned max_vector,
			uint32_t data_size);

#endif
