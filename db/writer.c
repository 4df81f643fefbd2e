/*
 * writer.c — rows into the store (see dbint.h for the split of db/).
 *
 * Rows are collected in batches and inserted through prepared statements,
 * one transaction per batch.  Once a first batch fills, a writer thread
 * takes over the inserts, so a recording's SQLite work runs on another core
 * than the simulation; three batches rotate between the two threads (one
 * filling, one handed over, one being written), and the connection belongs
 * to exactly one thread at a time.
 */
#include "db/dbint.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/imagecache.h"
#include "util/grow.h"
#include "db/chunk.h"
#include "db/validate.h"

void dbw_batch_free(db_batch *b)
{
	if (b) {
		free(b->ctx);
		free(b);
	}
}

/* Records the first write failure, from whichever thread met it. */
static void set_failed(db *d, const avrr_err *e)
{
	if (!atomic_load(&d->failed)) {
		d->werr = *e;
		atomic_store(&d->failed, 1);
	}
}

static int report_failure(db *d, avrr_err *err)
{
	if (err)
		*err = d->werr;
	return -1;
}

/* Runs a bound insert.  Fault injection stands in for a full disk. */
static int step_insert(db *d, sqlite3_stmt *st, avrr_err *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (d->fail_after && --d->fail_after == 0)
		return avrr_errf(err, "%s: disk I/O error (injected)", d->path);
	if (rc != SQLITE_DONE)
		return sql_err(d, err, "writing");
	return 0;
}

/* Stores n (at most CHUNK_EVENTS) consecutive events as one chunk. */
static int insert_events(db *d, const trace_event *ev, unsigned n, avrr_err *err)
{
	uint8_t buf[CHUNK_EVENTS * CHUNK_EVENT_MAX];
	size_t len = chunk_put_events(ev, n, buf);
	if (!len)
		return avrr_errf(err, "%s: event %" PRIu64 "..%" PRIu64 " breaks the log's rules",
				 d->path, ev[0].seq, ev[n - 1].seq);
	sqlite3_stmt *st = d->st[ST_EVENT];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)ev[0].seq);
	sqlite3_bind_int64(st, 2, n);
	sqlite3_bind_blob(st, 3, buf, (int)len, SQLITE_STATIC);
	return step_insert(d, st, err);
}

/* Stores n (at most CHUNK_IRQS) consecutive interrupts as one chunk, and
 * their contexts. */
static int insert_interrupts(db *d, const db_interrupt *q, unsigned n, avrr_err *err)
{
	uint8_t buf[CHUNK_IRQS * CHUNK_IRQ_SIZE];
	for (unsigned i = 0; i < n; i++)
		chunk_put_irq(q[i].sp, q[i].digest, buf + i * CHUNK_IRQ_SIZE);
	sqlite3_stmt *st = d->st[ST_IRQ];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)q[0].idx);
	sqlite3_bind_int64(st, 2, n);
	sqlite3_bind_blob(st, 3, buf, (int)(n * CHUNK_IRQ_SIZE), SQLITE_STATIC);
	int rc = step_insert(d, st, err);
	st = d->st[ST_CONTEXT];
	for (unsigned i = 0; i < n && !rc; i++) {
		if (!q[i].context)
			continue;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)q[i].idx);
		sqlite3_bind_blob(st, 2, q[i].context, (int)q[i].context_size, SQLITE_STATIC);
		rc = step_insert(d, st, err);
	}
	return rc;
}

/* Stores n (at most CHUNK_FPS) consecutive fingerprints of one
 * configuration, all with input keys or all without, as one chunk. */
static int insert_fingerprints(db *d, const db_fingerprint *f, unsigned n, avrr_err *err)
{
	uint8_t data[CHUNK_FPS * 2 * CHUNK_FP_FIELD_MAX];
	uint8_t keys[CHUNK_FP_KEY_BASE + CHUNK_FPS * CHUNK_FP_FIELD_MAX];
	chunk_fp_sizes sz = chunk_fp_sizes_of(f, n);
	if (!f[0].has_input_key)
		sz.key = 0;
	chunk_put_fps(f, n, sz, data, f[0].has_input_key ? keys : NULL);
	sqlite3_stmt *st = d->st[ST_FP];
	sqlite3_bind_int64(st, 1, f[0].config);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)f[0].n);
	sqlite3_bind_int64(st, 3, n);
	sqlite3_bind_int(st, 4, (int)sz.ra);
	sqlite3_bind_int(st, 5, (int)sz.hash);
	sqlite3_bind_int(st, 6, (int)sz.key);
	/* Never a NULL pointer, which SQLite would bind as NULL: all-zero
	 * fields take 0 bytes, and an empty blob is still a blob. */
	sqlite3_bind_blob(st, 7, data, (int)(n * (sz.ra + sz.hash)), SQLITE_STATIC);
	if (f[0].has_input_key)
		sqlite3_bind_blob(st, 8, keys, (int)(CHUNK_FP_KEY_BASE + n * sz.key), SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 8);
	return step_insert(d, st, err);
}

static int by_config_n(const void *a, const void *b)
{
	const db_fingerprint *x = a, *y = b;
	if (x->config != y->config)
		return x->config < y->config ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Stores a batch's fingerprints, which arrive interrupt by interrupt with
 * every configuration's interleaved, as chunks of one configuration each. */
static int insert_fp_batch(db *d, db_fingerprint *f, unsigned n, avrr_err *err)
{
	qsort(f, n, sizeof *f, by_config_n);
	int rc = 0;
	for (unsigned i = 0, k; i < n && !rc && !atomic_load(&d->failed); i = k) {
		for (k = i + 1; k < n && k - i < CHUNK_FPS && f[k].config == f[i].config &&
				f[k].n == f[k - 1].n + 1 && f[k].has_input_key == f[i].has_input_key;
		     k++)
			;
		rc = insert_fingerprints(d, &f[i], k - i, err);
	}
	return rc;
}

/* Inserts a batch's rows; empties the batch.  A new recording commits each
 * batch (its file is a temporary until db_finish); an opened one commits
 * only at db_commit, so a failed addition leaves it as it was.  After a
 * failure nothing more is written, but batches keep being recycled. */
static void write_batch(db *d, db_batch *b)
{
	avrr_err e = { "" };
	int rc = 0;
	for (unsigned i = 0; i < b->nev && !rc && !atomic_load(&d->failed); i += CHUNK_EVENTS)
		rc = insert_events(d, &b->ev[i], b->nev - i < CHUNK_EVENTS ? b->nev - i : CHUNK_EVENTS,
				   &e);
	for (unsigned i = 0; i < b->nirq; i++)
		b->irq[i].context = b->ctx_off[i] == SIZE_MAX ? NULL : b->ctx + b->ctx_off[i];
	for (unsigned i = 0; i < b->nirq && !rc && !atomic_load(&d->failed); i += CHUNK_IRQS)
		rc = insert_interrupts(d, &b->irq[i], b->nirq - i < CHUNK_IRQS ? b->nirq - i
										: CHUNK_IRQS, &e);
	if (b->nfp && !rc && !atomic_load(&d->failed))
		rc = insert_fp_batch(d, b->fp, b->nfp, &e);
	if (!rc && !atomic_load(&d->failed) && d->tmp)
		rc = exec(d, "COMMIT; BEGIN", &e);
	if (rc)
		set_failed(d, &e);
	b->nev = b->nirq = b->nfp = 0;
	b->ctx_len = 0;
}

static void *writer_main(void *arg)
{
	db *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->handoff && !d->quit)
			pthread_cond_wait(&d->cv, &d->mu);
		if (!d->handoff)
			break;
		db_batch *b = d->handoff;
		d->handoff = NULL;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		write_batch(d, b);
		pthread_mutex_lock(&d->mu);
		d->spare[d->nspare++] = b;
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Hands the full batch to the writer (starting it on first use) and takes
 * an empty one. */
static int submit(db *d, avrr_err *err)
{
	if (!d->writer_running) {
		for (int i = 0; i < NBATCHES - 1; i++) {
			db_batch *b = calloc(1, sizeof *b);
			if (!b)
				return avrr_errf(err, "out of memory");
			d->spare[d->nspare++] = b;
		}
		if (pthread_create(&d->writer, NULL, writer_main, d) != 0)
			return avrr_errf(err, "cannot start the writer thread");
		d->writer_running = 1;
	}
	pthread_mutex_lock(&d->mu);
	while (d->handoff || !d->nspare)
		pthread_cond_wait(&d->cv, &d->mu);
	d->handoff = d->fill;
	d->fill = d->spare[--d->nspare];
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	return atomic_load(&d->failed) ? report_failure(d, err) : 0;
}

/* Waits until the writer has written every batch handed to it, so that
 * the caller's thread may use the connection until its next submit: for a
 * read amid writes, without writing the batch being filled or stopping
 * the writer (drain), so that the chunks written are those it would have
 * written without the read. */
void dbw_quiesce(db *d)
{
	if (!d->writer_running)
		return;
	pthread_mutex_lock(&d->mu);
	while (d->handoff || d->nspare < NBATCHES - 1)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

/* Writes every row added so far and returns the connection to the
 * caller's thread.  Reports any write failure. */
int dbw_drain(db *d, avrr_err *err)
{
	if (d->writer_running) {
		if (d->fill && (d->fill->nev || d->fill->nirq || d->fill->nfp)) {
			pthread_mutex_lock(&d->mu);
			while (d->handoff)
				pthread_cond_wait(&d->cv, &d->mu);
			d->handoff = d->fill;
			d->fill = NULL;
			pthread_cond_broadcast(&d->cv);
			pthread_mutex_unlock(&d->mu);
		}
		pthread_mutex_lock(&d->mu);
		d->quit = 1;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->writer, NULL);
		d->writer_running = 0;
		d->quit = 0;
		if (!d->fill && d->nspare)
			d->fill = d->spare[--d->nspare];
	} else if (d->fill && (d->fill->nev || d->fill->nirq || d->fill->nfp)) {
		write_batch(d, d->fill);
	}
	return atomic_load(&d->failed) ? report_failure(d, err) : 0;
}

/* ---- rows ----------------------------------------------------------- */

/* The batch a new row goes into, or NULL (err set) when rows cannot be
 * added: read-only, an earlier write failed, or out of memory. */
static db_batch *batch_for_row(db *d, avrr_err *err)
{
	if (check_writable(d, err))
		return NULL;
	if (atomic_load(&d->failed)) {
		report_failure(d, err);
		return NULL;
	}
	if (!d->fill && !(d->fill = calloc(1, sizeof *d->fill)))
		avrr_errf(err, "out of memory");
	return d->fill;
}

int db_add_interrupt(db *d, const db_interrupt *q, avrr_err *err)
{
	db_batch *b = batch_for_row(d, err);
	if (!b)
		return -1;
	b->ctx_off[b->nirq] = SIZE_MAX;
	if (q->context) {
		if (b->ctx_len + q->context_size > b->ctx_cap) {
			size_t cap = (b->ctx_len + q->context_size) * 2;
			uint8_t *n = realloc(b->ctx, cap);
			if (!n)
				return avrr_errf(err, "out of memory");
			b->ctx = n;
			b->ctx_cap = cap;
		}
		memcpy(b->ctx + b->ctx_len, q->context, q->context_size);
		b->ctx_off[b->nirq] = b->ctx_len;
		b->ctx_len += q->context_size;
	}
	b->irq[b->nirq++] = *q;
	return b->nirq == BATCH_IRQS ? submit(d, err) : 0;
}

int db_add_event(db *d, const trace_event *e, avrr_err *err)
{
	db_batch *b = batch_for_row(d, err);
	if (!b)
		return -1;
	b->ev[b->nev++] = *e;
	return b->nev == BATCH_EVENTS ? submit(d, err) : 0;
}

int db_add_fingerprint(db *d, const db_fingerprint *f, avrr_err *err)
{
	db_batch *b = batch_for_row(d, err);
	if (!b)
		return -1;
	b->fp[b->nfp++] = *f;
	return b->nfp == BATCH_FPS ? submit(d, err) : 0;
}

int db_add_fp_config(db *d, const char *name, const char *spec, uint32_t *id, avrr_err *err)
{
	if (check_writable(d, err) || dbw_drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "INSERT INTO fp_configs (name, spec) VALUES (?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(d, err, "writing a fingerprint configuration");
	bind_text(st, 1, name);
	bind_text(st, 2, spec);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT)
		rc = avrr_errf(err, "%s: a fingerprint configuration named '%s' is already there",
			       d->path, name);
	else if (rc != SQLITE_DONE)
		rc = sql_err(d, err, "writing a fingerprint configuration");
	else
		rc = 0;
	sqlite3_finalize(st);
	if (!rc)
		*id = (uint32_t)sqlite3_last_insert_rowid(d->h);
	return rc;
}
