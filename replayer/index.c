/*
 * index.c — what the deciders decide from (see internal.h): the log's
 * interrupts (vector and return address, walked once or listed in a
 * temporary file), and each configuration's D, built from its stored
 * fingerprints read a chunk at a time alongside the log, or computed from
 * a spec; the oracle's are loaded on several threads.
 */
#include "replayer/internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rerun/fingerprints.h"
#include "util/grow.h"

/* Calls fn with each irq event's vector and return address, in the log's
 * order; fn's non-zero return stops the walk (db_each_event's error). */
typedef int (*irq_fn)(void *ud, uint8_t vector, uint32_t ra);

typedef struct irq_walk {
	irq_fn fn;
	void *ud;
} irq_walk;

static int irq_events(void *ud, const trace_event *ev, size_t n)
{
	const irq_walk *w = ud;
	for (size_t i = 0; i < n; i++)
		if (ev[i].type == TRACE_IRQ && w->fn(w->ud, (uint8_t)ev[i].addr, ev[i].value))
			return -1;
	return 0;
}

static int each_irq(db *d, irq_fn fn, void *ud, avrr_err *err)
{
	irq_walk w = { fn, ud };
	return db_each_event(d, irq_events, &w, err);
}

/* Each interrupt's vector and return address, for the fingerprint index. */
typedef struct irq_lists {
	replay *r;
	size_t n;
} irq_lists;

static int add_irq(void *ud, uint8_t vector, uint32_t ra)
{
	irq_lists *l = ud;
	if (l->n < l->r->nirq) {
		l->r->irq_vector[l->n] = vector;
		l->r->irq_ra[l->n++] = ra;
	}
	return 0;
}

/* Opens the cursor on the log.  db_open validated it: it starts with a
 * reset, and every context is a vector. */
int index_log(replay *r, avrr_err *err)
{
	if (rerun_cursor_init(&r->log, r->d, err))
		return -1;
	r->nirq = r->log.nirq;
	r->c.interrupts_recorded = r->nirq;
	return 0;
}

/* Each interrupt's vector and return address, which building D needs:
 * a walk over the log. */
int index_list_irqs(replay *r, avrr_err *err)
{
	if (r->irq_vector)
		return 0;
	r->irq_vector = malloc(r->nirq + 1);
	r->irq_ra = malloc((r->nirq + 1) * sizeof *r->irq_ra);
	if (!r->irq_vector || !r->irq_ra)
		return avrr_errf(err, "out of memory");
	irq_lists l = { r, 0 };
	if (each_irq(r->d, add_irq, &l, err))
		return -1;
	if (l.n != r->nirq)
		return avrr_errf(err, "%s: the log changed while read", db_name(r->d));
	return 0;
}

/* Whether the oracle evaluates configuration c in a batch (make_groups),
 * which asks its index only what set matching asks (fpi_build's
 * sets_only). */
int index_batched(const replay *r, const fp_config *c)
{
	return r->o.oracle && r->o.match == RP_MATCH_SET && batch_suits(c);
}

/* How many passes over a counted D's rows (one per wrap of its counters,
 * and the first) the oracle allows: (1 + wraps) * rows <= instructions /
 * COUNTED_PASS_SHARE.  Reading a row back (32 bytes, in sequence, and a
 * compare) takes a few nanoseconds, replaying an instruction with the
 * oracle about 100 (adcapp: 10^9 in 106 s), so the reading stays within
 * a few per cent of the run's time.  Measured near the bound, cycles:16
 * over 10^7 instructions of adcapp (241 wraps of 8,173 rows) took 0.94 s
 * of user time, the held D 1.3 s.  Past it D is held as before. */
#define COUNTED_PASS_SHARE 4

/* Whether the oracle keeps configuration c's D counted (fpi_counted),
 * on disk in order of its counters, rather than held in memory: when it
 * is not batched and has counters that wrap so few times in the run
 * (from its totals of cycles and of counted transfers) that reading the
 * rows again at each wrap costs little.  The default configuration,
 * cycles:32, wraps once per 2^32 cycles (9 minutes at 8 MHz); a few
 * bits of counter wrap so often that the D is held as before.  Sequence
 * matching reads the keys expected next from the recording, so there a
 * configuration computed from a spec (not `stored`) is held. */
static int index_counted_fits(const replay *r, const fp_config *c, int stored)
{
	if (!r->o.oracle || !c->ncounters || index_batched(r, c) ||
	    (r->o.match == RP_MATCH_SEQUENCE && !stored))
		return 0;
	const db_run *run = &r->rep.run;
	uint64_t wraps = 0;
	for (unsigned i = 0; i < c->ncounters; i++)
		wraps += (c->counter[i].kind == FP_COUNT_CYCLES ? run->cycles : run->transfers) >>
			 c->counter[i].bits;
	uint64_t rows = r->nirq ? r->nirq : 1;
	return wraps < run->instructions / COUNTED_PASS_SHARE / rows;
}

/* Each recorded interrupt's fingerprint under one stored configuration,
 * with the vector and return address of its irq event: a walk over the
 * log that reads the fingerprints a chunk at a time alongside, so that
 * nothing per interrupt is held (as a list of return addresses was). */
typedef int (*row_fn)(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err);

typedef struct row_walk {
	db_fps fps;
	uint32_t config;
	row_fn fn;
	void *ud;
	uint64_t n, nirq;             /* n: irq events met */
	int rc;
	avrr_err err;
} row_walk;

/* Interrupt k's row, with its irq event's vector and return address. */
static int walk_row(row_walk *w, uint64_t k, uint8_t vector, uint32_t ra)
{
	const db_fingerprint *at = db_fps_at(&w->fps, w->config, k, &w->err);
	if (!at)
		return -1;
	db_fingerprint f = *at;
	f.vector = vector;
	return w->fn(w->ud, &f, ra, &w->err) ? -1 : 0;
}

/* The next interrupt's row. */
static int walk_irq(void *ud, uint8_t vector, uint32_t ra)
{
	row_walk *w = ud;
	uint64_t k = ++w->n;
	if (k > w->nirq)
		return w->rc = avrr_errf(&w->err, "%s: the log changed while read", db_name(w->fps.d));
	return w->rc = walk_row(w, k, vector, ra);
}

/* The same walk over the oracle's list of interrupts (index_list_irqs_once),
 * which needs no decoding of the log. */
static int walk_irq_file(const replay *r, row_walk *w)
{
	uint64_t buf[4096];
	int fd = fileno(r->irq_file);
	while (w->n < w->nirq && !w->rc) {
		size_t want = w->nirq - w->n < 4096 ? (size_t)(w->nirq - w->n) : 4096;
		ssize_t got = pread(fd, buf, want * sizeof *buf, (off_t)(w->n * sizeof *buf));
		if (got <= 0 || (size_t)got % sizeof *buf)
			return w->rc = avrr_errf(&w->err, "reading the interrupts' list back: %s",
						 got < 0 ? strerror(errno) : "short read");
		for (size_t i = 0; i < (size_t)got / sizeof *buf && !w->rc; i++)
			walk_irq(w, (uint8_t)(buf[i] >> 32), (uint32_t)buf[i]);
	}
	return w->rc;
}

static int each_row(const replay *r, db *d, uint32_t config, row_fn fn, void *ud, avrr_err *err)
{
	row_walk w = { .config = config, .fn = fn, .ud = ud, .nirq = r->nirq };
	db_fps_open(&w.fps, d);
	if (db_read_begin(d, err))
		return -1;
	int rc = r->irq_file ? walk_irq_file(r, &w) : each_irq(d, walk_irq, &w, err);
	db_read_end(d);
	db_fps_close(&w.fps);
	if (w.rc)
		*err = w.err;
	if (rc || w.rc)
		return -1;
	return w.n == r->nirq ? 0 : avrr_errf(err, "%s: the log changed while read", db_name(d));
}

/* Each interrupt's return address and vector, as one 64-bit word, into an
 * unlinked file that the oracle's configurations read them from: each
 * walked the whole log for them, and the 85 walks were a seventh of
 * oracle85's host instructions on funcsheap_noloop.  On disk, not in
 * memory, where 8 bytes an interrupt would grow with the run. */
typedef struct irq_writer {
	FILE *f;
	uint64_t n;
} irq_writer;

static int write_irq(void *ud, uint8_t vector, uint32_t ra)
{
	irq_writer *w = ud;
	uint64_t word = (uint64_t)vector << 32 | ra;
	if (fwrite(&word, sizeof word, 1, w->f) != 1)
		return -1;
	w->n++;
	return 0;
}

/* Where the list cannot be written (no room in $TMPDIR), each
 * configuration walks the log as before: the same rows, only slower. */
void index_list_irqs_once(replay *r)
{
	irq_writer w = { .f = extsort_temp_file() };
	avrr_err ignored;
	if (!w.f)
		return;
	if (each_irq(r->d, write_irq, &w, &ignored) || fflush(w.f) || w.n != r->nirq) {
		fclose(w.f);
		return;
	}
	r->irq_file = w.f;
}

/* Rows into the distinct ones (fpi_distinct). */
static int add_distinct(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	return fpi_distinct_add(ud, f, ra) ? avrr_errf(err, "out of memory") : 0;
}

static int add_counted(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	return fpi_counted_add(ud, f, ra, err);
}

/* Every row, with its return address, as fpi_build takes them. */
typedef struct row_list {
	growbuf rows, ras;          /* db_fingerprint, uint32_t */
} row_list;

static int add_row(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	row_list *l = ud;
	db_fingerprint *row = grow(&l->rows);
	uint32_t *at = row ? grow(&l->ras) : NULL;
	if (!at)
		return avrr_errf(err, "out of memory");
	*row = *f;
	*at = ra;
	return 0;
}

/* Builds a counted D of cfg from rows[0..n) at return addresses ras. */
static int build_counted(fp_index *x, const fp_config *cfg, const db_fingerprint *rows,
			 const uint32_t *ras, size_t n, avrr_err *err)
{
	if (fpi_counted_begin(x, cfg, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (fpi_counted_add(x, &rows[i], ras[i], err)) {
			fpi_free(x);
			return -1;
		}
	if (fpi_counted_end(x, err)) {
		fpi_free(x);
		return -1;
	}
	return 0;
}

/* Loads stored configuration c into x, sharing the input keys of
 * inputs_of (NULL: none) where it can (fpi_build).  db_open validated one
 * fingerprint per interrupt, within the configuration's bits.  Where the
 * oracle asks only set matching's questions, the rows stream in and only
 * the distinct ones are kept: a long run's D, and the memory it takes to
 * build it, grow with its distinct rows, not with its interrupts.  A
 * counted D (index_counted_fits) streams them to disk in order of counters. */
int index_load_stored(const replay *r, db *d, const db_fp_config *c, fp_index *x,
		      const fp_index *inputs_of, avrr_err *err)
{
	fp_config cfg;
	if (fp_parse(c->spec, sim_names(r->s), r->rep.fw, sim_data_size(r->s), c->name, &cfg, err))
		return -1;
	if (index_counted_fits(r, &cfg, 1)) {
		if (fpi_counted_begin(x, &cfg, err))
			return -1;
		if (each_row(r, d, c->id, add_counted, x, err) || fpi_counted_end(x, err)) {
			fpi_free(x);
			return -1;
		}
		return 0;
	}
	if (index_batched(r, &cfg)) {
		fpi_distinct rows = { 0 };
		int rc = each_row(r, d, c->id, add_distinct, &rows, err);
		if (!rc)
			rc = fpi_build(x, &cfg, rows.rows, rows.n, rows.ras, inputs_of, 1, err);
		fpi_distinct_free(&rows);
		/* An index that could not be built of bitsets keeps a record
		 * per interrupt (fpi_build): it needs them all. */
		if (rc || !x->key_of)
			return rc;
		fpi_free(x);
	}
	row_list l = { { .size = sizeof(db_fingerprint) }, { .size = sizeof(uint32_t) } };
	int rc = each_row(r, d, c->id, add_row, &l, err) ||
		 fpi_build(x, &cfg, l.rows.items, l.rows.n, l.ras.items, inputs_of,
			   index_batched(r, &cfg), err) ? -1 : 0;
	free(l.rows.items);
	free(l.ras.items);
	return rc;
}

const db_fp_config *index_find_config(const db_fp_config *cfgs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cfgs[i].name, name))
			return &cfgs[i];
	return NULL;
}

/* Rows computed for configurations the recording does not store. */
typedef struct row_sink {
	db_fingerprint *rows;
	size_t n, cap;
} row_sink;

static int collect_row(void *ud, const db_fingerprint *row, avrr_err *err)
{
	row_sink *s = ud;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		db_fingerprint *p = realloc(s->rows, cap * sizeof *p);
		if (!p)
			return avrr_errf(err, "out of memory");
		s->rows = p;
		s->cap = cap;
	}
	s->rows[s->n++] = *row;
	return 0;
}

/* Builds the D of configurations given as specs, computing their
 * fingerprints as `avrr fingerprint` would, into x[0..nspecs). */
int index_load_specs(replay *r, const char *const *specs, unsigned nspecs, fp_index *x,
		     avrr_err *err)
{
	rerun_fpset set;
	row_sink sink = { 0 };
	int rerun, rc = -1;
	if (index_list_irqs(r, err) || rerun_fpset_parse(specs, nspecs, r->s, &set, err))
		return -1;
	for (unsigned i = 0; i < set.n; i++)
		set.ids[i] = i;
	if (rerun_fingerprints(r->d, &set, collect_row, &sink, r->o.interrupted, &rerun, err))
		goto out;
	/* Rows arrive interrupt by interrupt; split them by configuration. */
	db_fingerprint *mine = malloc((r->nirq + 1) * sizeof *mine);
	if (!mine) {
		avrr_errf(err, "out of memory");
		goto out;
	}
	rc = 0;
	for (unsigned i = 0; i < set.n && !rc; i++) {
		size_t n = 0;
		for (size_t k = 0; k < sink.n && n <= r->nirq; k++)
			if (sink.rows[k].config == i)
				mine[n++] = sink.rows[k];
		if (n != r->nirq)
			rc = avrr_errf(err, "computed %zu fingerprints for %zu interrupts", n, r->nirq);
		else if (index_counted_fits(r, &set.cfg[i], 0))
			rc = build_counted(&x[i], &set.cfg[i], mine, r->irq_ra, n, err);
		else
			rc = fpi_build(&x[i], &set.cfg[i], mine, n, r->irq_ra, i ? &x[0] : NULL,
				       index_batched(r, &set.cfg[i]), err);
	}
	free(mine);
out:
	free(sink.rows);
	rerun_fpset_free(&set);
	return rc;
}

/* Every other stored configuration of the oracle's, from `first` on:
 * cfg[i] (NULL: given as a spec, skipped) into x[i]. */
typedef struct load_share {
	const replay *r;
	db *d;                      /* the other thread opens its own */
	const db_fp_config **cfg;
	fp_index *x;
	const fp_index *lead;       /* loaded first; the others share its inputs */
	size_t n, first;
	int rc;
	avrr_err err;
} load_share;

static void load_every_other(load_share *s)
{
	for (size_t i = s->first; i < s->n && !s->rc; i += 2)
		if (s->cfg[i] && &s->x[i] != s->lead)
			s->rc = index_load_stored(s->r, s->d, s->cfg[i], &s->x[i], s->lead, &s->err);
}

/* A loading thread: reading rows from SQLite is most of opening a sweep's
 * configurations, so a second connection halves the wait. */
static void *load_thread(void *arg)
{
	load_share *s = arg;
	if (!(s->rc = db_open_again(s->r->d, &s->d, &s->err))) {
		load_every_other(s);
		db_close(s->d);
	}
	return NULL;
}

/* Loads the stored configurations among cfg[0..n) into x[]: the first
 * one, then the others on two threads when there are several. */
int index_load_all_stored(const replay *r, const db_fp_config **cfg,
			  fp_index *x, size_t n, avrr_err *err)
{
	size_t first = 0;
	while (first < n && !cfg[first])
		first++;
	if (first == n)
		return 0;
	if (index_load_stored(r, r->d, cfg[first], &x[first], NULL, err))
		return -1;
	load_share mine = { .r = r, .d = r->d, .cfg = cfg, .x = x, .lead = &x[first], .n = n,
			    .first = 0 };
	load_share other = { .r = r, .cfg = cfg, .x = x, .lead = &x[first], .n = n, .first = 1 };
	pthread_t t;
	int threaded = n > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
		       pthread_create(&t, NULL, load_thread, &other) == 0;
	load_every_other(&mine);
	if (threaded) {
		pthread_join(t, NULL);
	} else {
		other.d = r->d;
		load_every_other(&other);
	}
	if (mine.rc)
		*err = mine.err;
	else if (other.rc)
		*err = other.err;
	return mine.rc || other.rc ? -1 : 0;
}
