/*
 * dbint.h — what the files of db/ share and nothing else sees: the
 * connection's struct, the writer's batches, and the small helpers every
 * part uses.  db.h is the store's interface; this is its inside, split
 * along the seams of the old db.c: the schema's text (schema.c), the
 * writer thread and the rows it writes (writer.c), creating, opening and
 * finishing (open.c), the readers (read.c), and the run's metadata,
 * firmware, device log and stripping (db.c).
 */
#ifndef AVRR_DBINT_H
#define AVRR_DBINT_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/imagecache.h"
#include "db/stmts.h"

#define BATCH_EVENTS 8192
#define BATCH_IRQS 2048
#define BATCH_FPS 8192
#define NBATCHES 3

/* Events and interrupts per stored chunk: small enough that the SQL views
 * walk a chunk's blob cheaply, large enough that a row's own overhead is a
 * fraction of a byte per event. */
#define CHUNK_EVENTS 64
#define CHUNK_IRQS 64
/* Fingerprints per chunk, at most: the view picks them by offset, so a
 * long chunk costs SQL nothing more, and the recorder's batches cut them
 * shorter anyway. */
#define CHUNK_FPS 1024

enum { ST_EVENT, ST_IRQ, ST_CONTEXT, ST_FP, ST_COUNT };

typedef struct db_batch {
	trace_event ev[BATCH_EVENTS];
	unsigned nev;
	db_interrupt irq[BATCH_IRQS];  /* context pointers are set at write time */
	size_t ctx_off[BATCH_IRQS];    /* offset into ctx, or SIZE_MAX for none */
	unsigned nirq;
	uint8_t *ctx;                  /* copied contexts */
	size_t ctx_len, ctx_cap;
	db_fingerprint fp[BATCH_FPS];
	unsigned nfp;
} db_batch;

struct db {
	sqlite3 *h;
	char *path;          /* the user's path */
	char *tmp;           /* the temporary being built, or NULL */
	const void *image;   /* db_open_memory's bytes (the caller's), or NULL */
	size_t image_size;
	db_image_cache *cache;  /* db_open_memory_cached's, or NULL */
	image_conn *conn;    /* the cache's connection h is, to give back */
	db_stmts *stmts;     /* its statements kept for the next image, or NULL */
	int schema_ok;       /* validation found avrr's schema (what the cache may keep) */
	sqlite3_stmt *st[ST_COUNT];
	unsigned fail_after; /* fault injection for tests; 0 = off */
	int version;         /* the file's schema version */
	int writable;

	db_batch *fill;         /* filled by the caller's thread */
	db_batch *handoff;      /* full, waiting for the writer; NULL when empty */
	db_batch *spare[NBATCHES];
	int nspare;
	pthread_t writer;
	int writer_running;
	int quit;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int failed;   /* set once by whichever thread failed to write */
	avrr_err werr;       /* its message; written before `failed` is set */

	db_counts counts;    /* what validation counted */
	int counted;         /* counts holds them (validated, or opened again) */
	sqlite3_stmt *chunk_at;  /* db_event_chunk's, prepared on first use */
	sqlite3_stmt *fp_chunk_of;  /* db_fingerprint_chunk's, likewise */
	int read_held;             /* db_read_begin's transaction is open */

	/* Decoded once for all configurations' fingerprints: the vector of
	 * each interrupt (from the log), a byte each. */
	uint8_t *irq_vector;
	size_t nirq;
	int have_irq_vector;

	/* A read-only recording's interrupts per vector and events per type,
	 * counted in one pass over the log on first asking (the summary asks
	 * for both, and for the vectors twice). */
	uint64_t vector_counts[256], type_counts[TRACE_COUNT];
	int have_tallies;
};

static inline int sql_err(db *d, avrr_err *err, const char *what)
{
	return avrr_errf(err, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->h));
}

static inline int exec(db *d, const char *sql, avrr_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		avrr_errf(err, "%s: %s", d->path, msg ? msg : sqlite3_errmsg(d->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static inline int check_writable(db *d, avrr_err *err)
{
	return d->writable ? 0 : avrr_errf(err, "%s: opened read-only", d->path);
}

static inline void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static inline char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

static inline int pragma_int(db *d, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h, sql, &st) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
	if (!rc)
		*out = sqlite3_column_int64(st, 0);
	stmts_finish(d->stmts, st);
	return rc;
}

/* The temporary a recording is built in (db_temp_path), malloc'ed;
 * NULL if out of memory. */
static inline char *temp_path_for(const char *path)
{
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (tmp && db_temp_path(path, tmp, n)) {
		free(tmp);
		tmp = NULL;
	}
	return tmp;
}

/* The writer (writer.c). */
void dbw_batch_free(db_batch *b);
/* Waits until the writer has written every batch handed to it, so that
 * the caller's thread may use the connection until its next submit. */
void dbw_quiesce(db *d);
/* Writes every row added so far and returns the connection to the
 * caller's thread.  Reports any write failure. */
int dbw_drain(db *d, avrr_err *err);

#endif
