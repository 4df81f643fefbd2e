/*
 * read.c — reading a recording: its events, interrupts, fingerprints,
 * digests and contexts, whole or a chunk at a time, and the counts (see
 * dbint.h for the split of db/).
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

/* Runs `sql` and hands each row to fn; stops at the first non-zero. */
static int each_row(db *d, const char *sql, int (*fn)(sqlite3_stmt *, void *), void *arg,
		    avrr_err *err)
{
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h, sql, &st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	int rc, r = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = fn(st, arg)) != 0)
			break;
	if (!r && rc != SQLITE_DONE)
		r = avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	else if (r)
		r = avrr_errf(err, "out of memory");
	stmts_finish(d->stmts, st);
	return r;
}

/* Loads every row of `sql` into a malloc'ed array of `size`-byte items. */
static int load_all(db *d, const char *sql, int (*fn)(sqlite3_stmt *, void *), size_t size,
		    void **out, size_t *n, avrr_err *err)
{
	growbuf g = { .size = size };
	int rc = dbw_drain(d, err) ? -1 : each_row(d, sql, fn, &g, err);
	if (rc) {
		free(g.items);
		g.items = NULL;
		g.n = 0;
	}
	*out = g.items;
	*n = g.n;
	return rc;
}

int db_load_events(db *d, trace_event **out, size_t *n, avrr_err *err)
{
	return dbw_drain(d, err) ? -1 : db_decode_events(d->h, d->stmts, d->path, out, n, err);
}

static int append_irq_events(void *ud, const trace_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		trace_event *e = ev[i].type == TRACE_IRQ ? grow(ud) : NULL;
		if (ev[i].type == TRACE_IRQ && !e)
			return -1;
		if (e)
			*e = ev[i];
	}
	return 0;
}

int db_load_interrupts(db *d, db_interrupt **out, size_t *n, avrr_err *err)
{
	/* The irq events are all db_decode_interrupts reads of the log. */
	growbuf g = { .size = sizeof(trace_event) };
	if (dbw_drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, append_irq_events, &g, err)) {
		free(g.items);
		return -1;
	}
	int rc = db_decode_interrupts(d->h, d->stmts, d->path, g.items, g.n, out, n, err);
	free(g.items);
	return rc;
}

int db_event_chunk(db *d, uint64_t first, uint64_t last_of_ctx[256], trace_event **buf,
		   size_t *cap, size_t *count, avrr_err *err)
{
	*count = 0;
	dbw_quiesce(d);
	if (!d->chunk_at && stmts_prepare(d->stmts, d->h, "SELECT count, data FROM event_chunks"
					  " WHERE first = ?", &d->chunk_at) != SQLITE_OK)
		return avrr_errf(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
	sqlite3_stmt *st = d->chunk_at;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)first);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 1;
	}
	if (rc != SQLITE_ROW) {
		avrr_errf(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
		sqlite3_reset(st);
		return -1;
	}
	/* db_open checked every chunk; these hold for one opened unchecked. */
	int64_t n = sqlite3_column_int64(st, 0);
	const char *why = n < 1 || n > 1 << 16 ? "an event chunk with a bad count" : NULL;
	if (!why && (size_t)n > *cap) {
		trace_event *p = realloc(*buf, (size_t)n * sizeof *p);
		if (!p) {
			sqlite3_reset(st);
			return avrr_errf(err, "out of memory");
		}
		*buf = p;
		*cap = (size_t)n;
	}
	if (!why)
		why = chunk_get_events(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
				       first, (size_t)n, last_of_ctx, *buf);
	/* Reset at once: no read transaction outlives the call, so a fork
	 * (a checkpoint) may read on with its copy of the connection. */
	sqlite3_reset(st);
	if (why)
		return avrr_errf(err, "%s: damaged recording: %s (event_chunks, row %" PRIu64 ")",
				 d->path, why, first);
	*count = (size_t)n;
	return 0;
}

int db_each_event(db *d, int (*fn)(void *ud, const trace_event *ev, size_t n), void *ud,
		  avrr_err *err)
{
	return dbw_drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, fn, ud, err) ? -1 : 0;
}

int db_log_counts(db *d, uint64_t *nevents, uint64_t *nirq, avrr_err *err)
{
	if (!d->counted) {
		uint64_t counts[TRACE_COUNT];
		if (db_count_event_types(d, counts, err))
			return -1;
		d->counts = (db_counts){ 0 };
		for (unsigned t = 0; t < TRACE_COUNT; t++)
			d->counts.nevents += counts[t];
		d->counts.nirq = counts[TRACE_IRQ];
		d->counted = 1;
	}
	*nevents = d->counts.nevents;
	*nirq = d->counts.nirq;
	return 0;
}

/* Calls count(counts, event) for every event of the log, a chunk at a
 * time, so that counting a long log holds none of it. */
typedef struct counting {
	void (*count)(uint64_t *, const trace_event *);
	uint64_t *counts;
} counting;

static int count_chunk(void *ud, const trace_event *ev, size_t n)
{
	const counting *c = ud;
	for (size_t i = 0; i < n; i++)
		c->count(c->counts, &ev[i]);
	return 0;
}

static int each_event(db *d, void (*count)(uint64_t *, const trace_event *), uint64_t *counts,
		      avrr_err *err)
{
	counting c = { count, counts };
	return dbw_drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, count_chunk, &c, err) ? -1 : 0;
}

/* counts: 256 per vector, then TRACE_COUNT per type. */
static void count_both(uint64_t *counts, const trace_event *e)
{
	if (e->type == TRACE_IRQ && e->addr < 256)
		counts[e->addr]++;
	if (e->type < TRACE_COUNT)
		counts[256 + e->type]++;
}

/* Both tallies, from one pass; kept where the log cannot grow. */
static int tallies(db *d, uint64_t vectors[256], uint64_t types[TRACE_COUNT], avrr_err *err)
{
	if (!d->have_tallies) {
		uint64_t c[256 + TRACE_COUNT] = { 0 };
		if (each_event(d, count_both, c, err))
			return -1;
		memcpy(d->vector_counts, c, sizeof d->vector_counts);
		memcpy(d->type_counts, c + 256, sizeof d->type_counts);
		d->have_tallies = !d->writable;
		if (vectors)
			memcpy(vectors, c, sizeof d->vector_counts);
		if (types)
			memcpy(types, c + 256, sizeof d->type_counts);
		return 0;
	}
	if (vectors)
		memcpy(vectors, d->vector_counts, sizeof d->vector_counts);
	if (types)
		memcpy(types, d->type_counts, sizeof d->type_counts);
	return 0;
}

int db_count_vectors(db *d, uint64_t counts[256], avrr_err *err)
{
	return tallies(d, counts, NULL, err);
}

int db_count_event_types(db *d, uint64_t counts[TRACE_COUNT], avrr_err *err)
{
	return tallies(d, NULL, counts, err);
}

/* ---- fingerprints ----------------------------------------------------- */

static int fp_config_row(sqlite3_stmt *st, void *arg)
{
	db_fp_config *c = grow(arg);
	if (!c)
		return -1;
	const unsigned char *name = sqlite3_column_text(st, 1);
	const unsigned char *spec = sqlite3_column_text(st, 2);
	c->id = (uint32_t)sqlite3_column_int64(st, 0);
	snprintf(c->name, sizeof c->name, "%s", name ? (const char *)name : "");
	snprintf(c->spec, sizeof c->spec, "%s", spec ? (const char *)spec : "");
	return 0;
}

int db_load_fp_configs(db *d, db_fp_config **out, size_t *n, avrr_err *err)
{
	void *rows;
	int rc = load_all(d, "SELECT id, name, spec FROM fp_configs ORDER BY id", fp_config_row,
			  sizeof **out, &rows, n, err);
	*out = rows;
	return rc;
}

/* Fills d->irq_vector from the chunks one at a time. */
static int add_irq_vectors(void *ud, const trace_event *ev, size_t n)
{
	growbuf *g = ud;
	for (size_t i = 0; i < n; i++) {
		uint8_t *v = ev[i].type == TRACE_IRQ ? grow(g) : NULL;
		if (ev[i].type == TRACE_IRQ && !v)
			return -1;
		if (v)
			*v = (uint8_t)ev[i].addr;
	}
	return 0;
}

static int load_irq_vectors(db *d, avrr_err *err)
{
	if (d->have_irq_vector)
		return 0;
	growbuf g = { .size = 1 };
	if (dbw_drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, add_irq_vectors, &g, err)) {
		free(g.items);
		return -1;
	}
	d->irq_vector = g.items ? g.items : malloc(1);
	if (!d->irq_vector)
		return avrr_errf(err, "out of memory");
	d->nirq = g.n;
	d->have_irq_vector = 1;
	return 0;
}

/* Reads the context digests of the ground truth a chunk at a time, in
 * order of interrupt, for the fingerprints being decoded: straight from
 * interrupt_chunks, so that no decoded ground truth is held.  A stripped
 * recording has none to give. */
typedef struct digest_reader {
	db *d;
	sqlite3_stmt *st;       /* over interrupt_chunks; NULL when done */
	const uint8_t *data;    /* the current chunk's */
	uint64_t first, count;  /* its interrupts */
} digest_reader;

static int digests_open(db *d, digest_reader *r, avrr_err *err)
{
	*r = (digest_reader){ .d = d };
	if (stmts_prepare(d->stmts, d->h, "SELECT first, count, data FROM interrupt_chunks"
			  " ORDER BY first", &r->st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	r->first = 1;
	return 0;
}

/* Interrupt n's digest into dg (n ascending from call to call): 0, 1 when
 * the ground truth has none for it, -1 (err). */
static int digest_at(digest_reader *r, uint64_t n, uint8_t dg[DB_DIGEST_SIZE], avrr_err *err)
{
	db *d = r->d;
	while (r->st && n >= r->first + r->count) {
		int step = sqlite3_step(r->st);
		if (step == SQLITE_DONE) {
			stmts_finish(d->stmts, r->st);
			r->st = NULL;
			break;
		}
		if (step != SQLITE_ROW)
			return avrr_errf(err, "%s: damaged recording: %s", d->path,
					 sqlite3_errmsg(d->h));
		int64_t first = sqlite3_column_int64(r->st, 0), count = sqlite3_column_int64(r->st, 1);
		if ((uint64_t)first != r->first + r->count || count < 1 ||
		    (uint64_t)(first - 1 + count) > d->nirq ||
		    sqlite3_column_bytes(r->st, 2) != count * CHUNK_IRQ_SIZE)
			return avrr_errf(err, "%s: damaged recording: interrupts out of place"
					 " (interrupt_chunks, row %" PRId64 ")", d->path, first);
		r->data = sqlite3_column_blob(r->st, 2);
		r->first = (uint64_t)first;
		r->count = (uint64_t)count;
	}
	if (!r->st || n < r->first)
		return 1;
	uint32_t sp;
	chunk_get_irq(r->data + (n - r->first) * CHUNK_IRQ_SIZE, &sp, dg);
	return 0;
}

/* Gives f its interrupt's digest (f->n ascending from call to call) when
 * the ground truth has one. */
static int digest_of(digest_reader *r, db_fingerprint *f, avrr_err *err)
{
	int rc = digest_at(r, f->n, f->digest, err);
	f->has_digest = rc == 0;
	return rc < 0 ? -1 : 0;
}

static void digests_close(digest_reader *r)
{
	stmts_finish(r->d->stmts, r->st);
	r->st = NULL;
}

struct db_digests {
	digest_reader r;
};

int db_digests_open(db *d, db_digests **out, avrr_err *err)
{
	*out = NULL;
	db_digests *g = calloc(1, sizeof *g);
	if (!g)
		return avrr_errf(err, "out of memory");
	if (dbw_drain(d, err) || load_irq_vectors(d, err) || digests_open(d, &g->r, err)) {
		free(g);
		return -1;
	}
	*out = g;
	return 0;
}

int db_digest_at(db_digests *g, uint64_t n, uint8_t dg[DB_DIGEST_SIZE], avrr_err *err)
{
	dbw_quiesce(g->r.d);  /* its statement stays open while a writer writes */
	return digest_at(&g->r, n, dg, err);
}

void db_digests_close(db_digests *g)
{
	if (!g)
		return;
	digests_close(&g->r);
	free(g);
}

int db_read_begin(db *d, avrr_err *err)
{
	if (!sqlite3_get_autocommit(d->h))
		return 0;
	if (exec(d, "BEGIN", err))
		return -1;
	d->read_held = 1;
	return 0;
}

void db_read_end(db *d)
{
	if (d->read_held)
		sqlite3_exec(d->h, "COMMIT", NULL, NULL, NULL);  /* a read: nothing to lose */
	d->read_held = 0;
}

int db_fingerprint_chunk(db *d, uint32_t config, uint64_t n, db_fingerprint **buf, size_t *cap,
			 uint64_t *first, size_t *count, avrr_err *err)
{
	*count = 0;
	if (!d->fp_chunk_of &&
	    stmts_prepare(d->stmts, d->h, "SELECT first, count, ra_size, hash_size, key_size, data,"
			  " keys FROM fingerprint_chunks WHERE config = ?1 AND first <= ?2"
			  " ORDER BY first DESC LIMIT 1", &d->fp_chunk_of) != SQLITE_OK)
		return avrr_errf(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
	sqlite3_stmt *st = d->fp_chunk_of;
	sqlite3_bind_int64(st, 1, config);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)n);
	int rc = sqlite3_step(st);
	const char *why = rc == SQLITE_ROW ? NULL : rc == SQLITE_DONE ? "no chunk holds it"
			  : sqlite3_errmsg(d->h);
	size_t k = 0;
	int64_t at = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	if (!why)
		why = db_decode_fp_chunk(st, 1, NULL, 0, &k);
	if (!why && (at < 1 || (uint64_t)at + k <= n))
		why = "no chunk holds it";
	if (!why && k > *cap) {
		db_fingerprint *p = realloc(*buf, k * sizeof *p);
		if (!p) {
			sqlite3_reset(st);
			return avrr_errf(err, "out of memory");
		}
		*buf = p;
		*cap = k;
	}
	if (!why) {
		memset(*buf, 0, k * sizeof **buf);
		for (size_t i = 0; i < k; i++) {
			(*buf)[i].config = config;
			(*buf)[i].n = (uint64_t)at + i;
		}
		db_decode_fp_chunk(st, 1, *buf, k, &k);
	}
	sqlite3_reset(st);  /* no read transaction left open, as db_event_chunk */
	if (why)
		return avrr_errf(err, "%s: fingerprint %" PRIu64 " of configuration %u: %s", d->path,
				 n, config, why);
	*first = (uint64_t)at;
	*count = k;
	return 0;
}

int db_each_fingerprint(db *d, uint32_t config, int with_digests,
			int (*fn)(void *ud, const db_fingerprint *f, size_t n, avrr_err *err),
			void *ud, avrr_err *err)
{
	if (dbw_drain(d, err) || load_irq_vectors(d, err))
		return -1;
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h, "SELECT first, count, ra_size, hash_size, key_size, data,"
			  " keys FROM fingerprint_chunks WHERE config = ? ORDER BY first",
			  &st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	digest_reader dr = { .d = d };
	if (with_digests && digests_open(d, &dr, err)) {
		stmts_finish(d->stmts, st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, config);
	db_fingerprint *f = NULL;
	size_t cap = 0;
	uint64_t next = 1;
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 0);
		size_t count;
		const char *why = db_decode_fp_chunk(st, 1, NULL, 0, &count);
		if (!why && (first != (int64_t)next || first - 1 + count > d->nirq))
			why = "fingerprints out of place";
		if (why) {
			rc = avrr_errf(err, "%s: damaged recording: %s (fingerprint_chunks, row %" PRId64
				       ")", d->path, why, first);
			break;
		}
		if (count > cap) {
			free(f);
			if (!(f = malloc(count * sizeof *f))) {
				rc = avrr_errf(err, "out of memory");
				break;
			}
			cap = count;
		}
		memset(f, 0, count * sizeof *f);
		for (size_t i = 0; i < count; i++) {
			f[i].config = config;
			f[i].n = (uint64_t)first + i;
			f[i].vector = d->irq_vector[first - 1 + (int64_t)i];
		}
		db_decode_fp_chunk(st, 1, f, count, &count);
		for (size_t i = 0; i < count && with_digests && !rc; i++)
			rc = digest_of(&dr, &f[i], err);
		if (!rc)
			rc = fn(ud, f, count, err) ? -1 : 0;
		next += count;
	}
	if (!rc && step != SQLITE_DONE)
		rc = avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	free(f);
	digests_close(&dr);
	stmts_finish(d->stmts, st);
	return rc;
}

static int append_fingerprints(void *ud, const db_fingerprint *f, size_t n, avrr_err *err)
{
	db_fingerprint *to = grow_n(ud, n);
	if (!to)
		return avrr_errf(err, "out of memory");
	memcpy(to, f, n * sizeof *to);
	return 0;
}

int db_load_fingerprints(db *d, uint32_t config, int with_digests, db_fingerprint **out,
			 size_t *n, avrr_err *err)
{
	growbuf g = { .size = sizeof **out };
	int rc = db_each_fingerprint(d, config, with_digests, append_fingerprints, &g, err);
	if (rc) {
		free(g.items);
		g.items = NULL;
		g.n = 0;
	}
	*out = g.items;
	*n = g.n;
	return rc;
}

int db_each_context(db *d, int (*fn)(void *ud, const db_interrupt *q, avrr_err *err),
		    void *ud, avrr_err *err)
{
	db_interrupt *truth;
	size_t n;
	if (db_load_interrupts(d, &truth, &n, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "SELECT idx, data FROM contexts ORDER BY idx", -1, &st,
			       NULL) != SQLITE_OK) {
		free(truth);
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	}
	int rc = 0, have = sqlite3_step(st);
	for (size_t i = 0; i < n && !rc; i++) {
		db_interrupt *q = &truth[i];
		if (have == SQLITE_ROW && (uint64_t)sqlite3_column_int64(st, 0) == q->idx) {
			q->context = sqlite3_column_blob(st, 1);
			q->context_size = (uint32_t)sqlite3_column_bytes(st, 1);
		}
		rc = fn(ud, q, err) ? -1 : 0;
		if (q->context)
			have = sqlite3_step(st);
	}
	if (!rc && have != SQLITE_ROW && have != SQLITE_DONE)
		rc = avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	free(truth);
	sqlite3_finalize(st);
	return rc;
}

int db_count_contexts(db *d, uint64_t *n, avrr_err *err)
{
	int64_t count = 0;
	if (dbw_drain(d, err))
		return -1;
	if (pragma_int(d, "SELECT count(*) FROM contexts", &count))
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	*n = (uint64_t)count;
	return 0;
}
