/*
 * oracle.c — the oracle's decider (see internal.h): it follows the ground
 * truth, entering each recorded interrupt where it happened, and at every
 * boundary evaluates many configurations at once.  Configurations that
 * suit batching (batch.h) only queue the boundary; for the others each
 * distinct selector's bytes and each needed 64-bit hash are computed once
 * and every configuration's narrower hash derived from it (fp_hash_narrow).
 */
#include "replayer/internal.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new boundary: nothing of g(s) is known yet. */
static void group_forget(sel_group *g)
{
	g->bytes = NULL;
	g->have_key = 0;
	memset(g->have, 0, sizeof g->have);
}

/* g(s) for group g at this boundary, gathered once. */
static void group_select(sel_group *g, const fp_state *st)
{
	if (g->bytes)
		return;
	const uint8_t *direct;
	g->n = fp_select(g->cfg, st, g->buf, sizeof g->buf, &direct);
	g->bytes = direct ? direct : g->buf;
}

/* Sequence matching on a counted D: the keys of the interrupts expected
 * next, first .. first+n-1, of stored configuration `config`. */
typedef struct oracle_ahead {
	uint32_t config;
	uint64_t first;
	uint64_t *key;
	size_t n, cap;
} oracle_ahead;

/* The n-th recorded interrupt's key under configuration i (n is at or
 * past the next expected).  0, or -1 after diverging. */
static int oracle_key(replay *r, size_t i, uint64_t n, uint64_t *key)
{
	const fp_index *x = &r->oracle[i];
	if (x->key_of) {
		*key = x->key_of[n - 1];
		return 0;
	}
	oracle_ahead *a = &r->ahead[i];
	if (n < a->first)
		a->n = 0;
	while (n >= a->first + a->n) {
		/* Drop what is behind the next expected, then read on. */
		uint64_t from = a->n ? a->first : n, next = r->truth_pos + 1;
		size_t drop = next > from ? (size_t)(next - from < a->n ? next - from : a->n) : 0;
		if (drop)
			memmove(a->key, a->key + drop, (a->n - drop) * sizeof *a->key);
		a->n -= drop;
		a->first = a->n ? from + drop : n;
		avrr_err err;
		uint64_t want = a->first + a->n;
		if (!db_fps_at(&r->ahead_fps, a->config, want, &err)) {
			replay_diverge(r, 0, "the recorded fingerprints", err.msg);
			return -1;
		}
		const db_fps *c = &r->ahead_fps;
		size_t add = (size_t)(c->first + c->count - want);
		if (a->n + add > a->cap) {
			uint64_t *p = realloc(a->key, (a->n + add) * sizeof *p);
			if (!p) {
				replay_diverge(r, 0, "memory for the recorded fingerprints", "out of memory");
				return -1;
			}
			a->key = p;
			a->cap = a->n + add;
		}
		for (size_t k = 0; k < add; k++) {
			const db_fingerprint *f = &c->buf[want - c->first + k];
			a->key[a->n++] = fpi_key(&x->cfg, f->ra_part, f->hash_part);
		}
	}
	*key = a->key[n - a->first];
	return 0;
}

/* Sequence matching in the oracle: whether one of the `window`
 * interrupts expected next has key `key` and the log's order allows it
 * here (replay_expected_with_key's question, of configuration i). */
static int oracle_expected(replay *r, size_t i, uint64_t key)
{
	if (r->oracle[i].key_of)
		return replay_expected_with_key(r, &r->oracle[i], r->truth_pos + 1, key) != 0;
	for (uint64_t n = r->truth_pos + 1; n < r->truth_pos + 1 + r->o.window && n <= r->nirq; n++) {
		uint64_t k;
		if (oracle_key(r, i, n, &k))
			return 0;
		if (k == key && rerun_cursor_in_order(&r->log, n, sim_running_vector(r->s)))
			return 1;
	}
	return 0;
}

/* A recorded fingerprint that configuration i matches at this boundary:
 * its key, and for a counted D the window's rows with that key. */
typedef struct oracle_hit {
	uint64_t key;
	const fpi_crow *row, *end;
} oracle_hit;

/* Whether configuration i matches at this boundary (*h: what).  Under
 * sequence matching only the next expected interrupts count, as in a
 * fingerprint replay. */
static int oracle_lookup(replay *r, size_t i, sel_group *g, const fp_state *st, oracle_hit *h)
{
	const fp_index *x = &r->oracle[i];
	uint64_t ra_part = fp_reduce_ra(st->ra, x->cfg.ra_bits);
	if (!fpi_ra_possible(x, ra_part))
		return 0;
	uint64_t count = fp_counter_part(&x->cfg, st);
	size_t nrows = 0;
	const fpi_crow *rows = NULL;
	if (x->counted) {
		/* Only the rows of this count can match: mostly none. */
		rows = fpi_counted_at(x->counted, count, &nrows);
		if (x->counted->failed) {
			replay_diverge(r, 0, "the recorded fingerprints, sorted into a temporary file",
				       strerror(x->counted->failed));
			return 0;
		}
		if (!nrows)
			return 0;
	}
	group_select(g, st);
	fp_hash_kind k = fp_pick_hash(&x->cfg, st);
	if (!g->have[k]) {
		g->h64[k] = fp_hash(k, g->bytes, g->n, g->hash_bits[k]);
		g->have[k] = 1;
	}
	h->key = fpi_key(&x->cfg, ra_part,
			 fp_state_part(&x->cfg, count, fp_hash_narrow(k, g->h64[k], x->cfg.hash_bits)));
	if (r->o.match == RP_MATCH_SEQUENCE && !oracle_expected(r, i, h->key))
		return 0;
	if (!x->counted)
		return fpi_find(x, h->key) != NULL;
	h->row = fpi_crows_find(rows, nrows, h->key);
	h->end = rows + nrows;
	return h->row != NULL;
}

/* The outcome (OUT_*) of a boundary that is no recorded interrupt. */
static unsigned classify(replay *r, size_t i, sel_group *g, const fp_state *st)
{
	const fp_index *x = &r->oracle[i];
	oracle_hit h;
	if (!oracle_lookup(r, i, g, st, &h))
		return 0;
	if (x->has_input_keys && !g->have_key) {
		g->input_key = fp_input_key_of(g->cfg, g->bytes, g->n);
		g->have_key = 1;
	}
	if (!x->counted)
		return OUT_HIT | replay_false_hit_kind(x, h.key, st->ra, g->input_key);
	int same_ra, same_input;
	fpi_crows_kind(x, h.row, h.end, st->ra, g->input_key, &same_ra, &same_input);
	return OUT_HIT | (same_ra ? OUT_LOOP : 0) | (same_input ? OUT_INPUT : 0);
}

/* The groups that are not batched, at this boundary.  Kept out of line,
 * so the batched path of every instruction stays short. */
static __attribute__((noinline)) void oracle_now(replay *r, sel_group *g, const fp_state *st,
						  int at_truth)
{
	group_forget(g);
	for (unsigned j = 0; j < g->nmembers; j++) {
		size_t i = g->members[j];
		rp_oracle_result *res = &r->results[i];
		oracle_hit h;
		if (!at_truth) {
			count_outcome(res, classify(r, i, g, st), 1);
		} else if (oracle_lookup(r, i, g, st, &h)) {
			res->hits++;
			res->correct++;
		} else {
			res->missed++;
		}
	}
}

/* The oracle at a boundary that needs more than queueing. */
static __attribute__((noinline)) void oracle_boundary(replay *r, const fp_state *st)
{
	uint64_t icount = sim_icount(r->s);
	db_interrupt q = { 0 };
	if (r->truth_pos < r->ntruth && replay_recorded_irq(r, r->truth_pos + 1, &q))
		return;
	if (r->truth_pos < r->ntruth && q.icount < icount) {
		char want[96];
		snprintf(want, sizeof want, "interrupt %zu at icount %" PRIu64, r->truth_pos + 1,
			 q.icount);
		replay_diverge(r, 0, want, "no boundary there where the CPU could take it");
		return;
	}
	int at_truth = r->truth_pos < r->ntruth && q.icount == icount;
	for (size_t k = 0; k < r->ngroups; k++) {
		sel_group *g = &r->groups[k];
		if (g->batch)
			batch_add(g->batch, st->ra, st->data, at_truth);
		else
			oracle_now(r, g, st, at_truth);
	}
	if (at_truth) {
		r->truth_pos++;
		r->c.injected++;
		r->c.correct++;
		replay_inject(r, (uint8_t)q.vector);
	}
	if (!r->diverged)
		replay_truth_next(r, r->truth_pos < r->ntruth &&
				  !replay_recorded_irq(r, r->truth_pos + 1, &q) ? q.icount : UINT64_MAX);
}

/* The oracle's hook.  Most boundaries only queue: that path is kept
 * short, for it runs at nearly every instruction. */
static void oracle_on_boundary(void *ud)
{
	replay *r = ud;
	if (sim_icount(r->s) >= r->truth_next || r->unbatched) {
		if (!r->diverged)
			oracle_boundary(r, &(fp_state){ .data = sim_live_data(r->s),
						       .data_size = sim_data_size(r->s),
						       .ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
						       .transfers = replay_transfers(r) });
		return;
	}
	const uint8_t *data = sim_live_data(r->s);
	uint32_t ra = sim_pc(r->s);
	for (size_t k = 0; k < r->nbatches; k++)
		batch_add(r->batches[k], ra, data, 0);
}

/* Whether a and b gather the same bytes and can be evaluated alike: a
 * round-robin marker variable and counters are state outside g(s), which
 * the batch does not see, so their configurations get groups of their own. */
static int same_group(const fp_config *a, const fp_config *b)
{
	int a_var = a->round_robin && a->marker == FP_MARK_VAR;
	int b_var = b->round_robin && b->marker == FP_MARK_VAR;
	return a_var == b_var && !a->ncounters == !b->ncounters && fpi_same_bytes(a, b);
}

/* Splits the oracle's configurations into selector groups. */
static int make_groups(replay *r, avrr_err *err)
{
	for (size_t i = 0; i < r->nconfigs; i++) {
		const fp_config *c = &r->oracle[i].cfg;
		size_t k = 0;
		while (k < r->ngroups && !same_group(r->groups[k].cfg, c))
			k++;
		sel_group *g = &r->groups[k];
		if (k == r->ngroups) {
			r->ngroups++;
			g->cfg = c;
			if (!(g->members = calloc(r->nconfigs, sizeof *g->members)))
				return avrr_errf(err, "out of memory");
		}
		g->members[g->nmembers++] = (unsigned)i;
		widen_hash_bits(g->hash_bits, c);
	}
	for (size_t k = 0; k < r->ngroups; k++) {
		sel_group *g = &r->groups[k];
		if (!index_batched(r, g->cfg))
			continue;
		const fp_index **members = malloc(g->nmembers * sizeof *members);
		rp_oracle_result **results = malloc(g->nmembers * sizeof *results);
		for (unsigned j = 0; members && results && j < g->nmembers; j++) {
			members[j] = &r->oracle[g->members[j]];
			results[j] = &r->results[g->members[j]];
		}
		g->batch = members && results
			   ? batch_new(members, results, g->nmembers, sim_data_size(r->s),
				       r->o.oracle_table_bits)
			   : NULL;
		free(members);
		free(results);
		if (!g->batch)
			return avrr_errf(err, "out of memory");
	}
	if (!(r->batches = calloc(r->ngroups, sizeof *r->batches)))
		return avrr_errf(err, "out of memory");
	for (size_t k = 0; k < r->ngroups; k++) {
		if (r->groups[k].batch)
			r->batches[r->nbatches++] = r->groups[k].batch;
		else
			r->unbatched = 1;
	}
	/* One batch and nothing else: the simulation queues for it itself. */
	if (r->nbatches == 1 && !r->unbatched)
		r->tap = &r->batches[0]->tap;
	db_interrupt q;
	replay_truth_next(r, r->ntruth && !rp_recorded_interrupt(r, 1, &q) ? q.icount : UINT64_MAX);
	return 0;
}

static int oracle_open(replay *r, const db_fp_config *cfgs, size_t ncfgs,
		       avrr_err *err)
{
	/* The oracle builds and frees hundreds of MB of tables on three
	 * threads; with glibc's heaps growing 128 KB at a time, the kernel
	 * mapped and zeroed their pages again and again (measured: 0.5 s of
	 * system time in a 0.6 s run).  Growing 64 MB at a time makes that
	 * 0.1 s; untouched pages cost nothing. */
	mallopt(M_TOP_PAD, 64 << 20);
	if (!r->scored)
		return avrr_errf(err, "the oracle follows the ground truth, and this recording "
				 "was stripped of it");
	size_t n = r->o.noracle_configs ? r->o.noracle_configs : ncfgs;
	if (!n)
		return avrr_errf(err, "no fingerprint configuration to evaluate; give --fp SPEC");
	r->oracle = calloc(n, sizeof *r->oracle);
	r->results = calloc(n, sizeof *r->results);
	r->groups = calloc(n, sizeof *r->groups);
	r->ahead = calloc(n, sizeof *r->ahead);
	const char **specs = calloc(n, sizeof *specs);
	const db_fp_config **stored = calloc(n, sizeof *stored);
	size_t *spec_slot = calloc(n, sizeof *spec_slot), nspecs = 0;
	int rc = 0;
	if (!r->oracle || !r->results || !r->groups || !r->ahead || !specs || !stored || !spec_slot)
		rc = avrr_errf(err, "out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		stored[i] = r->o.noracle_configs ? index_find_config(cfgs, ncfgs, r->o.oracle_configs[i])
						 : &cfgs[i];
		if (stored[i])
			r->ahead[i].config = stored[i]->id;
		if (!stored[i]) {
			spec_slot[nspecs] = i;
			specs[nspecs++] = r->o.oracle_configs[i];
		}
	}
	if (!rc && n > 1)
		index_list_irqs_once(r);
	if (!rc)
		rc = index_load_all_stored(r, stored, r->oracle, n, err);
	free(stored);
	r->nconfigs = n;
	if (!rc && nspecs) {
		fp_index *tmp = calloc(nspecs, sizeof *tmp);
		rc = tmp ? index_load_specs(r, specs, (unsigned)nspecs, tmp, err)
			 : avrr_errf(err, "out of memory");
		for (size_t k = 0; tmp && k < nspecs; k++) {
			if (rc)
				fpi_free(&tmp[k]);
			else
				r->oracle[spec_slot[k]] = tmp[k];
		}
		free(tmp);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		snprintf(r->results[i].name, sizeof r->results[i].name, "%s", r->oracle[i].cfg.name);
		snprintf(r->results[i].spec, sizeof r->results[i].spec, "%s", r->oracle[i].cfg.spec);
	}
	if (!rc)
		rc = make_groups(r, err);
	free(specs);
	free(spec_slot);
	return rc;
}

/* Waits for the oracle's queued boundaries and adds them to its results. */
static void oracle_settle(replay *r)
{
	for (size_t k = 0; k < r->ngroups; k++)
		if (r->groups[k].batch)
			batch_settle(r->groups[k].batch);
}

/* Frees what oracle_open made (as far as it came). */
static void oracle_close(replay *r)
{
	for (size_t i = 0; r->oracle && i < r->nconfigs; i++)
		fpi_free(&r->oracle[i]);
	for (size_t i = 0; r->ahead && i < r->nconfigs; i++)
		free(r->ahead[i].key);
	free(r->ahead);
	for (size_t k = 0; k < r->ngroups; k++) {
		free(r->groups[k].members);
		batch_free(r->groups[k].batch);
	}
	free(r->oracle);
	free(r->batches);
	free(r->results);
	free(r->groups);
	db_fps_close(&r->ahead_fps);
}

/* Whether any configuration evaluated reads the software instruction
 * counter, which the sim then has to keep. */
static int oracle_reads_sic(const replay *r)
{
	for (size_t i = 0; i < r->nconfigs; i++)
		if (replay_counts_sic(&r->oracle[i].cfg))
			return 1;
	return 0;
}

static void oracle_count(replay *r)
{
	r->c.missed = 0;
	for (size_t i = 0; i < r->nconfigs; i++)
		r->c.missed += r->results[i].missed;
}

static const char *oracle_config_name(const replay *r)
{
	(void)r;
	return NULL;  /* many: rp_oracle_results */
}

const rp_decider oracle_decider = {
	.open = oracle_open, .on_boundary = oracle_on_boundary, .reads_sic = oracle_reads_sic,
	.count = oracle_count, .config_name = oracle_config_name, .settle = oracle_settle,
	.close = oracle_close,
};
