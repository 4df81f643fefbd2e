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

#include <stddef.h>
#include <stdint.h>

/* The kind's width in a stored event: chunk.c's head varint is
 * (ctx + 1) << TRACE_TYPE_BITS | type, and the events view decodes it so.
 * Kind 0 is not used, so TRACE_TYPE_MAX kinds at most — and all 7 are
 * taken: a new kind needs a wider field, i.e. a new store layout and
 * DB_SCHEMA_VERSION (db.h).  TRACE_TYPE_MAX is spelled as a number for the
 * views' SQL text. */
#define TRACE_TYPE_BITS 3
#define TRACE_TYPE_MAX 7  /* (1 << TRACE_TYPE_BITS) - 1 */

/* How a kind's addr and value are kept.  Reads and writes carry their
 * own, stored after the pc; every other kind's follow from its context and
 * pc (trace_implied) and the store leaves them out. */
typedef enum {
	TRACE_ARGS_NONE,       /* addr = value = 0 */
	TRACE_ARGS_VECTOR,     /* addr = the vector (its context), value = 0 */
	TRACE_ARGS_VECTOR_RA,  /* addr = the vector, value = the return address (its pc) */
	TRACE_ARGS_STORED,     /* addr and value of its own */
} trace_args;

/* What a kind does to the running ISRs, for trace_check. */
typedef enum {
	TRACE_NEST_RESET,  /* in the main program; none run after it */
	TRACE_NEST_ENTER,  /* an ISR starts: the context is the vector entered */
	TRACE_NEST_LEAVE,  /* the running ISR ends */
	TRACE_NEST_STAY,   /* in the running context, which goes on */
} trace_nest;

/* The event kinds, one row each: X(KIND, number, name, args, nest).  The
 * one statement of a kind: the enum below, the names (and the store's
 * event_types), the store layout (chunk.c, and the views' SQL that
 * trace_sql_types writes) and the log's rules (trace_check) all follow
 * from it.  A new kind is a row here, with the next number (stored: never
 * renumber), plus its hook where the simulator sees it (sim.h), which the
 * recorder logs and the replayer expects. */
#define TRACE_KINDS(X)                                                              \
	X(RESET, 1, "reset", TRACE_ARGS_NONE, TRACE_NEST_RESET)  /* run start, WDT reset */ \
	X(IRQ, 2, "irq", TRACE_ARGS_VECTOR_RA, TRACE_NEST_ENTER)  /* interrupt entry */      \
	X(RETI, 3, "reti", TRACE_ARGS_VECTOR, TRACE_NEST_LEAVE)  /* return from interrupt */ \
	X(READ, 4, "read", TRACE_ARGS_STORED, TRACE_NEST_STAY)  /* CPU read of an input */   \
	X(WRITE, 5, "write", TRACE_ARGS_STORED, TRACE_NEST_STAY)  /* write to an output */   \
	X(SLEEP, 6, "sleep", TRACE_ARGS_NONE, TRACE_NEST_STAY)                              \
	X(WAKE, 7, "wake", TRACE_ARGS_NONE, TRACE_NEST_STAY)

/* Event kinds (the numbers are stored). */
typedef enum {
#define TRACE_KIND_ENUM(K, n, name, args, nest) TRACE_##K = n,
	TRACE_KINDS(TRACE_KIND_ENUM)
#undef TRACE_KIND_ENUM
	TRACE_COUNT
} trace_kind;

#define TRACE_KIND_ONE(K, n, name, args, nest) +1
enum { TRACE_NKINDS = 0 TRACE_KINDS(TRACE_KIND_ONE) };
#undef TRACE_KIND_ONE
_Static_assert(TRACE_COUNT == TRACE_NKINDS + 1, "trace kinds are numbered 1, 2, ... in order");
_Static_assert(TRACE_NKINDS <= TRACE_TYPE_MAX,
	       "more event kinds than the store's type field holds (TRACE_TYPE_BITS)");
_Static_assert(TRACE_TYPE_MAX == (1 << TRACE_TYPE_BITS) - 1, "TRACE_TYPE_MAX is the field's");

const char *trace_kind_name(int type); /* "irq", ...; "?" if unknown */

/* How kind `type` keeps its addr and value (TRACE_ARGS_NONE if unknown). */
static inline trace_args trace_kind_args(uint32_t type)
{
	switch (type) {
#define TRACE_KIND_ARGS(K, n, name, args, nest) case n: return args;
	TRACE_KINDS(TRACE_KIND_ARGS)
#undef TRACE_KIND_ARGS
	default: return TRACE_ARGS_NONE;
	}
}

/* What kind `type` does to the running ISRs (-1 if unknown). */
static inline int trace_kind_nest(uint32_t type)
{
	switch (type) {
#define TRACE_KIND_NEST(K, n, name, args, nest) case n: return (int)nest;
	TRACE_KINDS(TRACE_KIND_NEST)
#undef TRACE_KIND_NEST
	default: return -1;
	}
}

/* The SQL test of an event's type for the kinds whose args are among
 * `args_set` (a set of 1 << trace_args), as the store's views write it:
 * "type = 2", "type IN (2, 3)", or with negate "type <> 4", "type NOT IN
 * (4, 5)".  Into buf (n bytes); returns buf. */
char *trace_sql_types(unsigned args_set, int negate, char *buf, size_t n);

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
	return trace_kind_args(type) == TRACE_ARGS_STORED;
}

/* The addr and value every other kind carries, implied by its context and
 * pc (its row's args): an irq's are its vector (its context) and its
 * return address (its pc), a reti's its vector; reset, sleep and wake
 * carry none.  The recorder stamps events by it, the replayer expects them
 * by it, and the store leaves those fields out by it. */
static inline void trace_implied(uint32_t type, uint32_t ctx, uint32_t pc, uint32_t *addr,
				 uint32_t *value)
{
	trace_args a = trace_kind_args(type);
	*addr = a == TRACE_ARGS_VECTOR || a == TRACE_ARGS_VECTOR_RA ? ctx : 0;
	*value = a == TRACE_ARGS_VECTOR_RA ? pc : 0;
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
