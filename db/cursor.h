/*
 * cursor.h — the store read on a chunk at a time, for readers that walk
 * the log or a configuration's fingerprints in order and must not hold
 * them whole.  Built on db_event_chunk and db_fingerprint_chunk (db.h):
 * what each caller used to carry between chunks (each context's last
 * event, which gives the next chunk's events their prev; the chunk last
 * read and where it starts) is kept here once.
 */
#ifndef AVRR_DB_CURSOR_H
#define AVRR_DB_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "trace/event.h"
#include "util/err.h"

/* The log from one chunk's first event on. */
typedef struct db_events {
	db *d;                        /* not owned */
	uint64_t next;                /* the seq the chunk read next starts at */
	uint64_t last_of_ctx[256];    /* db_event_chunk's carry */
	trace_event *buf;             /* the chunk read last: buf[at .. n) not yet walked */
	size_t cap, n, at;
} db_events;

/* Starts at event seq `first`, which must begin a chunk (1: the log's
 * start).  From anywhere but the start the first chunk's events have no
 * prev (0): a reader that starts midway must not ask it. */
void db_events_open(db_events *it, db *d, uint64_t first);
/* The next chunk's events, *ev[0 .. *n) (valid until the next call):
 * 0, 1 at the end of the log, or -1 (err). */
int db_events_chunk(db_events *it, const trace_event **ev, size_t *n, avrr_err *err);
/* The next irq event (valid until the next call): 0, 1 at the end of the
 * log, or -1 (err). */
int db_events_next_irq(db_events *it, const trace_event **e, avrr_err *err);
void db_events_close(db_events *it);

/* One configuration's fingerprints (or several, one at a time: a reader
 * asked for another configuration reads that one's chunk). */
typedef struct db_fps {
	db *d;                        /* not owned */
	uint32_t config;              /* whose chunk buf holds */
	db_fingerprint *buf;          /* fingerprints first .. first+count-1 */
	size_t cap, count;
	uint64_t first;
} db_fps;

void db_fps_open(db_fps *f, db *d);
/* db_fps_at's read of the chunk that holds configuration config's n-th. */
const db_fingerprint *db_fps_read(db_fps *f, uint32_t config, uint64_t n, avrr_err *err);

/* Configuration config's n-th fingerprint (with config, n, ra_part,
 * hash_part and input key, as db_fingerprint_chunk gives them; valid
 * until the next call), read with its chunk unless that is the one read
 * last.  NULL on failure (err), after which nothing is held.  Inline: the
 * oracle's loading asks it once per interrupt per configuration. */
static inline const db_fingerprint *db_fps_at(db_fps *f, uint32_t config, uint64_t n,
					      avrr_err *err)
{
	if (config == f->config && n >= f->first && n - f->first < f->count)
		return &f->buf[n - f->first];
	return db_fps_read(f, config, n, err);
}
void db_fps_close(db_fps *f);

#endif
