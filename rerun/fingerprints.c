/*
 * fingerprints.c — recording fingerprints, during a recording or after it
 * (see fingerprints.h).
 */
#include "rerun/fingerprints.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cursor.h"
#include "rerun/events.h"
#include "rerun/replica.h"

int rerun_fpset_parse(const char *const *specs, unsigned nspecs, const sim *s, rerun_fpset *out,
		    avrr_err *err)
{
	memset(out, 0, sizeof *out);
	if (nspecs == 1 && !strcmp(specs[0], RERUN_FP_NONE))
		return 0;
	unsigned n = nspecs ? nspecs : 1;
	out->cfg = calloc(n, sizeof *out->cfg);
	out->ids = calloc(n, sizeof *out->ids);
	if (!out->cfg || !out->ids) {
		rerun_fpset_free(out);
		return avrr_errf(err, "out of memory");
	}
	for (unsigned i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "fp%u", i + 1);
		const char *spec = nspecs ? specs[i] : FP_DEFAULT_SPEC;
		if (fp_parse(spec, sim_names(s), sim_firmware(s), sim_data_size(s),
			     nspecs ? name : FP_DEFAULT_NAME, &out->cfg[i], err)) {
			rerun_fpset_free(out);
			return -1;
		}
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(out->cfg[j].name, out->cfg[i].name)) {
				avrr_errf(err, "fingerprint configuration '%s' given twice",
					  out->cfg[i].name);
				rerun_fpset_free(out);
				return -1;
			}
		out->n = i + 1;
	}
	return 0;
}

int rerun_fpset_store(rerun_fpset *f, db *d, avrr_err *err)
{
	for (unsigned i = 0; i < f->n; i++)
		if (db_add_fp_config(d, f->cfg[i].name, f->cfg[i].spec, &f->ids[i], err))
			return -1;
	return 0;
}

int rerun_fp_to_db(void *d, const db_fingerprint *row, avrr_err *err)
{
	return db_add_fingerprint(d, row, err);
}

int rerun_fpset_add(const rerun_fpset *f, rerun_fp_sink sink, void *sink_ud, uint64_t n,
		  uint8_t vector, const fp_state *st, avrr_err *err)
{
	for (unsigned i = 0; i < f->n; i++) {
		fp_value v = fp_compute(&f->cfg[i], st);
		db_fingerprint row = {
			.config = f->ids[i], .n = n, .vector = vector,
			.ra_part = v.ra_part, .hash_part = v.hash_part,
			.input_key = fp_input_key(&f->cfg[i], st), .has_input_key = 1,
		};
		if (sink(sink_ud, &row, err))
			return -1;
	}
	return 0;
}

void rerun_fpset_free(rerun_fpset *f)
{
	free(f->cfg);
	free(f->ids);
	memset(f, 0, sizeof *f);
}

/* ---- adding configurations to a finished recording ------------------ */

typedef struct adder {
	db *d;
	const rerun_fpset *set;
	rerun_fp_sink sink;
	void *sink_ud;
	/* For a re-run: the recorded irq events and ground truth to match,
	 * read a chunk at a time (next_irq_event, db_digest_at). */
	uint64_t nirq_events;
	db_events events;
	db_digests *truth;           /* NULL when stripped */
	uint64_t seen;
	int failed;
	volatile int stop;
	avrr_err *err;
} adder;

static int from_context(void *ud, const db_interrupt *q, avrr_err *err)
{
	adder *a = ud;
	/* db_open validated the context: data_size bytes. */
	fp_state st = { .data = q->context, .data_size = q->context_size, .ra = q->ra };
	return rerun_fpset_add(a->set, a->sink, a->sink_ud, q->idx, (uint8_t)q->vector, &st, err);
}

static void rerun_failed(adder *a)
{
	a->failed = 1;
	a->stop = 1;
}

/* The log's next irq event, or NULL at its end or on failure (a->err
 * set, and the re-run stopped). */
static const trace_event *next_irq_event(adder *a)
{
	const trace_event *e;
	int rc = db_events_next_irq(&a->events, &e, a->err);
	if (rc < 0)
		rerun_failed(a);
	return rc ? NULL : e;
}

/* At each interrupt of the re-run: it must be the recorded one. */
static void check_irq(void *ud, const sim_irq_point *p)
{
	adder *a = ud;
	if (a->failed)
		return;
	uint64_t n = ++a->seen;
	const trace_event *e = n > a->nirq_events ? NULL : next_irq_event(a);
	if (a->failed)
		return;
	if (!e) {
		avrr_errf(a->err, "the re-run does not match the recording: an extra interrupt "
			  "(vector %u) at icount %" PRIu64, p->vector, p->icount);
		rerun_failed(a);
		return;
	}
	rerun_event x = rerun_irq(p->vector, p->ra);
	if (e->icount != p->icount || !rerun_is(e, &x, 1)) {
		avrr_errf(a->err, "the re-run does not match the recording at interrupt %" PRIu64
			  ": recorded vector %u at icount %" PRIu64 " (ra 0x%04x), re-run vector %u"
			  " at icount %" PRIu64 " (ra 0x%04x)", n, e->addr, e->icount, e->value,
			  p->vector, p->icount, p->ra);
		rerun_failed(a);
		return;
	}
	uint8_t recorded[DB_DIGEST_SIZE];
	int kept = a->truth ? db_digest_at(a->truth, n, recorded, a->err) : 1;
	if (kept < 0) {
		rerun_failed(a);
		return;
	}
	if (!kept) {
		uint8_t dg[DB_DIGEST_SIZE];
		if (rerun_digest(p, dg)) {
			avrr_errf(a->err, "out of memory");
			rerun_failed(a);
			return;
		}
		if (memcmp(dg, recorded, DB_DIGEST_SIZE)) {
			avrr_errf(a->err, "the re-run does not match the recording at interrupt %" PRIu64
				  ": its context differs (digest mismatch)", n);
			rerun_failed(a);
			return;
		}
	}
	fp_state st = { .data = p->data, .data_size = p->data_size, .ra = p->ra,
			.cycle = p->timer, .transfers = p->transfers };
	if (rerun_fpset_add(a->set, a->sink, a->sink_ud, n, p->vector, &st, a->err))
		rerun_failed(a);
}

/* The re-run, matched against the recording interrupt by interrupt: the
 * log's irq events and the ground truth's digests are read a chunk at a
 * time as it goes, so that its memory does not grow with the recording. */
static int rerun(adder *a, volatile int *interrupted, avrr_err *err)
{
	rerun_replica r;
	uint64_t nev;
	int rc = -1;
	a->err = err;
	db_events_open(&a->events, a->d, 1);
	if (rerun_replica_open(a->d, &r, err))
		return -1;
	if (db_log_counts(a->d, &nev, &a->nirq_events, err) ||
	    (r.run.has_ground_truth && db_digests_open(a->d, &a->truth, err)))
		goto out;
	sim_set_hooks(r.s, &(sim_hooks){ .ud = a, .on_irq = check_irq });
	/* In slices, so that an interruption is noticed. */
	while (sim_icount(r.s) < r.run.instructions && !a->failed) {
		if (interrupted && *interrupted) {
			avrr_errf(err, "interrupted; nothing added");
			goto out;
		}
		uint64_t limit = sim_icount(r.s) + (1u << 20);
		if (sim_run(r.s, limit < r.run.instructions ? limit : r.run.instructions, 0,
			    &a->stop) != SIM_STOP_LIMIT)
			break;
	}
	if (a->failed)
		goto out;
	if (sim_icount(r.s) != r.run.instructions || a->seen != a->nirq_events) {
		avrr_errf(err, "the re-run does not match the recording: %" PRIu64 " interrupts in %"
			  PRIu64 " instructions, recorded %" PRIu64 " in %" PRIu64, a->seen,
			  sim_icount(r.s), a->nirq_events, r.run.instructions);
		goto out;
	}
	rc = 0;
out:
	db_events_close(&a->events);
	db_digests_close(a->truth);
	a->truth = NULL;
	rerun_replica_close(&r);
	return rc;
}

int rerun_fingerprints(db *d, const rerun_fpset *set, rerun_fp_sink sink, void *sink_ud,
		       volatile int *interrupted, int *used_rerun, avrr_err *err)
{
	*used_rerun = 0;
	uint64_t with_context = 0, vectors[256], nirq = 0;
	adder a = { .d = d, .set = set, .sink = sink, .sink_ud = sink_ud };
	if (db_count_contexts(d, &with_context, err) || db_count_vectors(d, vectors, err))
		return -1;
	for (int v = 0; v < 256; v++)
		nirq += vectors[v];
	/* A stored context has no counters: configurations with counters
	 * take them from a re-run. */
	int counters = 0;
	for (unsigned i = 0; i < set->n; i++)
		counters |= set->cfg[i].ncounters > 0;
	if (nirq > 0 && with_context == nirq && !counters)
		return db_each_context(d, from_context, &a, err);
	*used_rerun = 1;
	return rerun(&a, interrupted, err);
}
