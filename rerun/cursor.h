/*
 * cursor.h — a recorded happens-before log followed context by context as
 * a replay consumes it (seed 003), read from the store a chunk at a time.
 * It sits above db/, which it reads through; trace/ keeps the events and
 * the traced registers.
 */
#ifndef AVRR_RERUN_CURSOR_H
#define AVRR_RERUN_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "db/cursor.h"
#include "db/db.h"
#include "trace/event.h"
#include "util/err.h"

/* A recorded log followed context by context as a replay consumes it,
 * read from the recording a chunk at a time (db/cursor.h): it holds
 * only a window of decoded events, from the oldest one some context has
 * yet to consume to the newest any context has needed, so its memory does
 * not grow with the log's length.  Each event in the window links to its
 * context's next, so finding a context's next event is one load.
 *
 * Pointers it returns stay valid until the next call that may read on
 * (rerun_cursor_next, _irq, _in_order, _first_left, _consume). */
#define RERUN_NONE UINT64_MAX
typedef struct rerun_cursor {
	db *d;                        /* where the chunks come from (not owned) */
	trace_event *win;             /* events lo .. hi-1 (0-based: seq - 1) */
	uint64_t *nxt;                /* per window event: its context's next, or RERUN_NONE
					 when not read yet (or none, once done) */
	size_t cap;
	uint64_t lo, hi;
	int done;                     /* read to the end of the log */
	uint64_t pos[256];            /* each context's next event; RERUN_NONE: not read yet */
	uint64_t last[256];           /* each context's last event read; RERUN_NONE: none */
	uint64_t last_seq[256];       /* the seq of each context's last consumed event; 0: none */
	size_t consumed[256];
	/* The irq events in the window: numbers irq_lo .. irq_lo+nirq_win-1
	 * (1-based), at window positions irq[(irq_head + k) % irq_cap]. */
	uint64_t *irq;
	size_t irq_cap, irq_head, nirq_win;
	uint64_t irq_lo, irq_read;    /* irq_read: irq events read so far */
	/* Every RERUN_SEEK_EVERY-th chunk read: its first event and the irq
	 * events before it, to read an interrupt's event again once it has
	 * left the window (rerun_cursor_irq). */
	uint64_t (*seek)[2];
	size_t nseek, seek_cap, nchunks;
	db_events events;             /* the chunks, read in order */
	trace_event again;            /* an irq event read again */
	size_t nirq;                  /* irq events in the whole log */
	int failed;                   /* reading failed: err says why; it acts as the end */
	avrr_err err;
} rerun_cursor;

#define RERUN_SEEK_EVERY 16

/* Opens a cursor on d's log, which starts with its reset (consumed). */
int rerun_cursor_init(rerun_cursor *c, db *d, avrr_err *err);
void rerun_cursor_free(rerun_cursor *c);

/* Reads on until context ctx's next event is in the window, or the end. */
const trace_event *rerun_cursor_more(rerun_cursor *c, unsigned ctx);

/* Context ctx's next recorded event, or NULL when it has none left. */
static inline const trace_event *rerun_cursor_next(rerun_cursor *c, unsigned ctx)
{
	uint64_t i = c->pos[ctx];
	return i != RERUN_NONE ? &c->win[i - c->lo] : rerun_cursor_more(c, ctx);
}

/* Marks context ctx's next event (rerun_cursor_next's, not NULL) consumed. */
static inline void rerun_cursor_consume(rerun_cursor *c, unsigned ctx)
{
	uint64_t i = c->pos[ctx];
	c->last_seq[ctx] = c->win[i - c->lo].seq;
	c->pos[ctx] = c->nxt[i - c->lo];
	c->consumed[ctx]++;
}

/* The n-th irq event (1 <= n <= nirq), or NULL when it cannot be read. */
const trace_event *rerun_cursor_irq(rerun_cursor *c, uint64_t n);

/* Whether the n-th recorded interrupt can happen now by the log's
 * happens-before order, context `running` being the one running: it is its
 * own context's next event, and falls between the running context's last
 * event and its next. */
int rerun_cursor_in_order(rerun_cursor *c, uint64_t n, unsigned running);

/* The first recorded event, in seq order, that no context has consumed
 * yet (*ctx its context), or NULL when all are. */
const trace_event *rerun_cursor_first_left(rerun_cursor *c, unsigned *ctx);

#endif
