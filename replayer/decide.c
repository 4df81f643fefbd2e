/*
 * decide.c — the fingerprint replay's decider (see internal.h): at each
 * boundary, f(s) under the one configuration replayed, looked up in its
 * D (or, under sequence matching one interrupt ahead, compared with the
 * next expected interrupt's key, read from the recording a chunk at a
 * time), and a match entered.  This is the hot path of a fingerprint
 * replay: one fingerprint and one probe per boundary.
 */
#include "replayer/internal.h"

#include <stdlib.h>

#include "replayer/score.h"

/* The n-th recorded interrupt's key (1 <= n <= nirq) under the replayed
 * configuration: from D, or from its chunk when streamed.  0 after
 * diverging when it cannot be read. */
static uint64_t fpr_key_of(replay *r, uint64_t n)
{
	if (!r->streamed)
		return r->fp.key_of[n - 1];
	avrr_err err;
	const db_fingerprint *f = db_fps_at(&r->keys, r->fp_config_id, n, &err);
	if (!f) {
		replay_diverge(r, 0, "the recorded fingerprints", err.msg);
		return 0;
	}
	return fpi_key(&r->fp.cfg, f->ra_part, f->hash_part);
}

/* From now on the n-th interrupt is the next expected.  Under sequence
 * matching only its return address can match, so the sim calls the hook
 * only where the PC has its RA bits, and, when the fingerprint counts
 * cycles, only at the cycles with its counter bits. */
static void fpr_expect_next(replay *r, uint64_t n)
{
	r->next_n = n;
	r->next_key = n <= r->nirq ? fpr_key_of(r, n) : 0;
	const trace_event *q = !r->o.keep_going && n <= r->nirq
			       ? rerun_cursor_irq(&r->log, n) : NULL;
	r->pending_seq = q ? q->seq : UINT64_MAX;
	if (r->o.match != RP_MATCH_SEQUENCE || r->o.window != 1)
		return;
	const fp_config *c = &r->fp.cfg;
	uint32_t pc_mask = UINT32_MAX, pc_match = UINT32_MAX;  /* no PC is 2^33 bytes */
	uint64_t cycle_mask = 0, cycle_match = 0;
	if (n <= r->nirq) {
		pc_mask = (uint32_t)fp_hash_mask(c->ra_bits);
		pc_match = (uint32_t)fpi_ra_of_key(c, r->next_key);
		/* The key is ra | counters | hash, the first counter highest. */
		unsigned shift = c->hash_bits;
		for (unsigned i = c->ncounters; c->hash_bits < 64 && i-- > 0;
		     shift += c->counter[i].bits)
			if (c->counter[i].kind == FP_COUNT_CYCLES && shift < 64) {
				cycle_mask = fp_hash_mask(c->counter[i].bits);
				cycle_match = r->next_key >> shift & cycle_mask;
				break;
			}
	}
	sim_set_boundary(r->s, pc_mask, pc_match, cycle_mask, cycle_match);
}

void rp_classify_hit(replay *r, rp_hit *h)
{
	fp_index *x = &r->fp;
	if (r->streamed) {
		/* D, built now: a false hit is rare, and stops the replay
		 * unless it keeps going. */
		avrr_err err;
		if (!r->have_full && index_load_stored(r, r->d, &r->fp_stored, &r->full, NULL, &err)) {
			replay_diverge(r, 0, "the recorded fingerprints", err.msg);
			return;
		}
		r->have_full = 1;
		x = &r->full;
	}
	fp_state st = { .data = sim_live_data(r->s), .data_size = sim_data_size(r->s),
			.ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
			.transfers = sim_transfers(r->s) };
	uint64_t in = x->has_input_keys ? fp_input_key(&x->cfg, &st) : 0;
	unsigned kind = replay_false_hit_kind(x, h->key, st.ra, in);
	h->same_ra = !!(kind & OUT_LOOP);
	h->same_input = !!(kind & OUT_INPUT);
}

/* The recorded interrupt a set-based match stands for: the first one with
 * this fingerprint at or after the next expected, else the first of all. */
static const fpi_rec *pick_in_log_order(const replay *r, const fpi_slot *slot)
{
	const fpi_rec *recs = r->fp.recs + slot->first;
	uint32_t lo = 0, hi = slot->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (recs[mid].n < r->next_n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &recs[lo < slot->count ? lo : 0];
}

static void fingerprint_boundary(replay *r, const fp_state *st)
{
	const fp_config *c = &r->fp.cfg;
	uint64_t ra_part = fp_reduce_ra(st->ra, c->ra_bits);
	if (r->o.match == RP_MATCH_SEQUENCE && r->o.window == 1) {
		/* Only the next interrupt can match: most boundaries fail on
		 * its return address bits before anything is hashed. */
		if (r->next_n > r->nirq || fpi_ra_of_key(c, r->next_key) != ra_part)
			return;
	} else if (!fpi_ra_possible(&r->fp, ra_part)) {
		return;
	}
	fp_value v = fp_compute(c, st);
	uint64_t key = fpi_key(c, v.ra_part, v.hash_part);
	uint64_t n;
	const fpi_slot *slot;
	if (r->o.match == RP_MATCH_SEQUENCE && r->o.window == 1) {
		/* The one key that can match: no need to ask D. */
		if (key != r->next_key ||
		    !rerun_cursor_in_order(&r->log, r->next_n, sim_running_vector(r->s)))
			return;
		n = r->next_n;
	} else if (!(slot = fpi_find(&r->fp, key))) {
		return;
	} else if (r->o.match == RP_MATCH_SEQUENCE) {
		if (!(n = replay_expected_with_key(r, &r->fp, r->next_n, key)))
			return;
	} else {
		n = pick_in_log_order(r, slot)->n;
		for (uint32_t i = slot->first + 1; i < slot->first + slot->count; i++)
			if (r->fp.recs[i].vector != r->fp.recs[slot->first].vector) {
				r->c.ambiguous++;
				break;
			}
	}
	uint8_t vector;
	if (r->streamed) {
		const trace_event *q = rerun_cursor_irq(&r->log, n);
		if (!q)
			return;
		vector = (uint8_t)q->addr;
	} else {
		vector = r->irq_vector[n - 1];
	}
	if (replay_vetoed(r, n, vector, key, &v))
		return;
	r->c.injected++;
	replay_inject(r, vector);
	fpr_expect_next(r, n + 1);
}

static void fpr_on_boundary(void *ud)
{
	replay *r = ud;
	if (r->diverged)
		return;
	fingerprint_boundary(r, &(fp_state){ .data = sim_live_data(r->s),
					    .data_size = sim_data_size(r->s), .ra = sim_pc(r->s),
					    .cycle = sim_timer_cycles(r->s),
					    .transfers = replay_transfers(r) });
}

static int fpr_open(replay *r, const db_fp_config *cfgs, size_t ncfgs, avrr_err *err)
{
	const db_fp_config *c;
	if (r->o.fp_name) {
		if (!(c = index_find_config(cfgs, ncfgs, r->o.fp_name)))
			return avrr_errf(err, "no fingerprint configuration '%s' in the recording "
					 "(see avrr info)", r->o.fp_name);
	} else if (!(c = index_find_config(cfgs, ncfgs, FP_DEFAULT_NAME)) && !(c = ncfgs ? cfgs : NULL)) {
		return avrr_errf(err, "the recording has no fingerprints; add some with "
				 "avrr fingerprint RUN.db --fp SPEC");
	}
	r->fp_stored = *c;
	r->fp_config_id = c->id;
	r->streamed = r->o.match == RP_MATCH_SEQUENCE && r->o.window == 1;
	if (r->streamed ? fp_parse(c->spec, sim_names(r->s), r->rep.fw, sim_data_size(r->s), c->name,
				   &r->fp.cfg, err)
			: index_list_irqs(r, err) || index_load_stored(r, r->d, c, &r->fp, NULL, err))
		return -1;
	fpr_expect_next(r, 1);
	return r->diverged ? avrr_errf(err, "%s", r->div.actual) : 0;
}

uint64_t rp_key_here(replay *r)
{
	const fp_config *c = &r->fp.cfg;
	fp_value v = fp_compute(c, &(fp_state){ .data = sim_live_data(r->s),
		.data_size = sim_data_size(r->s), .ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
		.transfers = replay_transfers(r) });
	return fpi_key(c, v.ra_part, v.hash_part);
}

uint64_t rp_recorded_key(replay *r, uint64_t n)
{
	return fpr_key_of(r, n);
}

int rp_fingerprints_here(replay *r,
			 void (*fn)(void *ud, const char *name, uint64_t ra_part, uint64_t hash_part,
				    size_t matches),
			 void *ud, avrr_err *err)
{
	db_fp_config *cfgs = NULL;
	size_t ncfgs = 0;
	if (db_load_fp_configs(r->d, &cfgs, &ncfgs, err))
		return -1;
	fp_state st = { .data = sim_live_data(r->s), .data_size = sim_data_size(r->s),
			.ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
			.transfers = replay_transfers(r) };
	int rc = 0;
	for (size_t i = 0; i < ncfgs && !rc; i++) {
		fp_config cfg;
		db_fingerprint *rows = NULL;
		size_t n = 0, matches = 0;
		rc = fp_parse(cfgs[i].spec, sim_names(r->s), r->rep.fw, sim_data_size(r->s), cfgs[i].name,
			      &cfg, err) ||
		     db_load_fingerprints(r->d, cfgs[i].id, 0, &rows, &n, err);
		if (rc)
			break;
		fp_value v = fp_compute(&cfg, &st);
		for (size_t k = 0; k < n; k++)
			matches += rows[k].ra_part == v.ra_part && rows[k].hash_part == v.hash_part;
		fn(ud, cfgs[i].name, v.ra_part, v.hash_part, matches);
		free(rows);
	}
	free(cfgs);
	return rc ? -1 : 0;
}

/* The scorer, when the recording has its ground truth. */
static int fpr_attach(replay *r, avrr_err *err)
{
	if (r->scored && !(r->scorer = score_attach(r, r->ntruth, !r->o.keep_going, &r->c, err)))
		return -1;
	return 0;
}

static int fpr_reads_sic(const replay *r)
{
	return replay_counts_sic(&r->fp.cfg);
}

static void fpr_count(replay *r)
{
	/* Missed so far: passed without a correct injection.  The current
	 * boundary has been decided, so it counts too. */
	if (r->scorer)
		score_settle(r->scorer, sim_icount(r->s) + 1);
}

static const char *fpr_config_name(const replay *r)
{
	return r->fp.cfg.name;
}

static void fpr_close(replay *r)
{
	fpi_free(&r->fp);
	fpi_free(&r->full);
	db_fps_close(&r->keys);
	score_free(r->scorer);
}

const rp_decider fpr_decider = {
	.open = fpr_open, .on_boundary = fpr_on_boundary, .attach = fpr_attach,
	.reads_sic = fpr_reads_sic, .count = fpr_count, .config_name = fpr_config_name,
	.close = fpr_close,
};
