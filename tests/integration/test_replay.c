/*
 * test_replay.c — the replay engine on the bundled firmware.
 *
 *  - With the full context (sel=all,hash=jenkins,ra=16,width=64), a
 *    fingerprint replay of each firmware's 10^6-instruction recording
 *    takes every recorded interrupt at its icount with its vector, and ends
 *    with the registers, SRAM, PC and cycle of the recorded run — in set
 *    and in sequence matching.
 *  - The oracle's counts for a narrow configuration equal those of a
 *    deliberately simple reference written here: fingerprints by hand, a
 *    linear search over the recorded contexts, classification by comparing
 *    return addresses and selector bytes directly.
 *  - For configurations the oracle evaluates in bulk (selectors of at most
 *    8 fixed bytes: no hash bits, wide hash parts, no ra*, round-robin by
 *    code block and by region, several members of one selector group), its
 *    counts equal a brute force's: fp_compute at every boundary, compared
 *    with every recorded interrupt's fingerprint — together, and each
 *    alone (then the simulation queues the boundaries itself).
 *  - Without the ground truth (avrr strip) the injections are the same.
 *  - A changed output value in the log is a divergence at that write.
 */
#include "tests/edit_log.h"

#include <jansson.h>
#include <sodium.h>
#include <sqlite3.h>
#include <unistd.h>

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "recorder/recorder.h"
#include "rerun/replica.h"
#include "replayer/replayer.h"

#define FULL "full:sel=all,hash=jenkins,ra=16,width=64"
#define NARROW "narrow:sel=SREG,hash=modular,ra=2,width=6"

static const char *const FIRMWARE[] = { "adcapp", "funcsheap", "funcsheap_noloop" };

typedef test_scratch scratch;
#define setup test_scratch_setup
#define teardown test_scratch_teardown

/* The configurations every recording here stores. */
static const char *const SPECS[] = { FULL, NARROW };

static db_interrupt *load_truth(const char *path, size_t *n)
{
	db *d;
	avrr_err err = { "" };
	db_interrupt *q;
	if (db_open(path, 0, &d, &err) || db_load_interrupts(d, &q, n, &err))
		fail_msg("%s", err.msg);
	db_close(d);
	return q;
}

/* Each recorded interrupt's data space, `size` bytes, read from the
 * interrupts table directly; truth[0..n) is that table through db/, and
 * must agree on the return addresses. */
static uint8_t **load_contexts(const char *path, const db_interrupt *truth, size_t n,
			       uint32_t size)
{
	uint8_t **context = calloc(n, sizeof *context);
	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT ra, context FROM interrupts ORDER BY idx",
					    -1, &st, NULL), SQLITE_OK);
	size_t i = 0;
	for (; sqlite3_step(st) == SQLITE_ROW; i++) {
		assert_true(i < n);
		assert_int_equal(sqlite3_column_int64(st, 0), truth[i].ra);
		assert_int_equal(sqlite3_column_bytes(st, 1), size);
		context[i] = malloc(size);
		memcpy(context[i], sqlite3_column_blob(st, 1), size);
	}
	assert_int_equal(i, n);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return context;
}

static void free_contexts(uint8_t **context, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(context[i]);
	free(context);
}

/* The state a plain re-run of the recording reaches at its end. */
typedef struct machine {
	uint8_t data[0x1000];
	uint32_t size, pc;
	uint64_t cycle;
} machine;

static void snapshot(sim *s, machine *m)
{
	m->size = sim_data_size(s);
	assert_true(m->size <= sizeof m->data);
	memcpy(m->data, sim_live_data(s), m->size);
	m->pc = sim_pc(s);
	m->cycle = sim_cycle(s);
}

static void rerun_to_end(const char *path, machine *m)
{
	db *d;
	rerun_replica r;
	avrr_err err = { "" };
	if (db_open(path, 0, &d, &err) || rerun_replica_open(d, &r, &err))
		fail_msg("%s", err.msg);
	sim_run(r.s, r.run.instructions, 0, NULL);
	snapshot(r.s, m);
	rerun_replica_close(&r);
	db_close(d);
}

static void replay_exactly(const char *path, rp_match match)
{
	rp_options o = { .fp_name = "full", .match = match };
	replay *r;
	avrr_err err = { "" };
	if (rp_open(path, &o, &r, &err))
		fail_msg("%s", err.msg);
	rp_stop why = rp_run(r, 0);
	const rp_divergence *d = rp_get_divergence(r);
	if (d)
		fail_msg("%s: diverged at icount %llu: expected %s, got %s", path,
			 (unsigned long long)d->icount, d->expected, d->actual);
	assert_int_equal(why, RP_END);
	size_t ntruth, ninj;
	db_interrupt *truth = load_truth(path, &ntruth);
	const rp_injection *inj = rp_injections(r, &ninj);
	assert_true(ntruth > 100);
	assert_int_equal(ninj, ntruth);
	for (size_t i = 0; i < ninj; i++) {
		assert_int_equal(inj[i].icount, truth[i].icount);
		assert_int_equal(inj[i].vector, truth[i].vector);
	}
	const rp_counters *c = rp_get_counters(r);
	assert_int_equal(c->instructions, 1000000);
	assert_int_equal(c->correct, ntruth);
	assert_int_equal(c->false_loop + c->false_ra + c->missed, 0);
	machine want, got;
	rerun_to_end(path, &want);
	snapshot(rp_sim(r), &got);
	assert_int_equal(got.size, want.size);
	assert_memory_equal(got.data, want.data, want.size);
	assert_int_equal(got.pc, want.pc);
	assert_int_equal(got.cycle, want.cycle);
	free(truth);
	rp_close(r);
}

static void test_full_context_replay_is_exact(void **state)
{
	scratch *s = *state;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		char path[256];
		test_record_direct(s, path, sizeof path, NULL, FIRMWARE[f], 1000000, 0, SPECS, 2);
		replay_exactly(path, RP_MATCH_SET);
		replay_exactly(path, RP_MATCH_SEQUENCE);
		unlink(path);
	}
}

/* ---- the reference oracle ---------------------------------------------- */

typedef struct ref_irq {
	uint32_t ra;
	uint8_t sreg;
} ref_irq;

typedef struct reference {
	sim *s;
	ref_irq *rec;            /* the recorded interrupt points */
	const db_interrupt *truth;
	size_t n, next;
	uint64_t hits, correct, false_loop, false_ra, input_dup, collision, missed;
	uint64_t window_hits;    /* false hits on one of the next RP_DEFAULT_WINDOW */
} reference;

/* NARROW by hand: ra* = bits 1..2 of the byte address; f* = SREG mod 16. */
static unsigned ref_fingerprint(uint32_t ra, uint8_t sreg)
{
	return ((ra >> 1) & 3) << 4 | (sreg & 15);
}

static void ref_boundary(void *ud)
{
	reference *r = ud;
	const uint8_t *data = sim_live_data(r->s);
	uint32_t ra = sim_pc(r->s);
	uint8_t sreg = data[0x5f];
	unsigned f = ref_fingerprint(ra, sreg);
	int hit = 0, loop = 0, dup = 0;
	for (size_t i = 0; i < r->n; i++)
		if (ref_fingerprint(r->rec[i].ra, r->rec[i].sreg) == f) {
			hit = 1;
			loop |= r->rec[i].ra == ra;
			dup |= r->rec[i].sreg == sreg;
		}
	if (r->next < r->n && r->truth[r->next].icount == sim_icount(r->s)) {
		r->hits += hit;
		r->correct += hit;
		r->missed += !hit;
		assert_int_equal(sim_enter_vector(r->s, (uint8_t)r->truth[r->next].vector), 0);
		r->next++;
		return;
	}
	if (!hit)
		return;
	for (size_t k = r->next; k < r->next + RP_DEFAULT_WINDOW && k < r->n; k++)
		if (ref_fingerprint(r->rec[k].ra, r->rec[k].sreg) == f) {
			r->window_hits++;
			break;
		}
	r->hits++;
	if (loop)
		r->false_loop++;
	else
		r->false_ra++;
	if (dup)
		r->input_dup++;
	else
		r->collision++;
}

static void test_oracle_matches_reference(void **state)
{
	scratch *s = *state;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		char path[256];
		test_record_direct(s, path, sizeof path, NULL, FIRMWARE[f], 100000, 1, SPECS, 2);

		/* The reference: contexts from the recording, a plain loop. */
		reference ref = { 0 };
		db_interrupt *truth = load_truth(path, &ref.n);
		db *d;
		rerun_replica rep;
		avrr_err err = { "" };
		if (db_open(path, 0, &d, &err) || rerun_replica_open(d, &rep, &err))
			fail_msg("%s", err.msg);
		ref.truth = truth;
		ref.rec = calloc(ref.n, sizeof *ref.rec);
		uint8_t **context = load_contexts(path, truth, ref.n, sim_data_size(rep.s));
		for (size_t i = 0; i < ref.n; i++)
			ref.rec[i] = (ref_irq){ .ra = truth[i].ra, .sreg = context[i][0x5f] };
		free_contexts(context, ref.n);
		ref.s = rep.s;
		sim_set_replay(rep.s, 1);
		sim_set_hooks(rep.s, &(sim_hooks){ .ud = &ref, .on_boundary = ref_boundary });
		sim_run(rep.s, rep.run.instructions, 0, NULL);
		assert_int_equal(ref.next, ref.n);
		rerun_replica_close(&rep);
		db_close(d);

		/* The engine, on the same recording. */
		const char *cfgs[] = { "narrow", "full" };
		rp_options o = { .oracle = 1, .oracle_configs = cfgs, .noracle_configs = 2 };
		replay *r;
		if (rp_open(path, &o, &r, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(rp_run(r, 0), RP_END);
		size_t n;
		const rp_oracle_result *res = rp_oracle_results(r, &n);
		assert_int_equal(n, 2);
		assert_string_equal(res[0].name, "narrow");
		assert_true(ref.false_loop + ref.false_ra > 0);   /* it is narrow */
		assert_int_equal(res[0].hits, ref.hits);
		assert_int_equal(res[0].correct, ref.correct);
		assert_int_equal(res[0].correct, ref.n);
		assert_int_equal(res[0].false_loop, ref.false_loop);
		assert_int_equal(res[0].false_ra, ref.false_ra);
		assert_int_equal(res[0].input_duplicates, ref.input_dup);
		assert_int_equal(res[0].hash_collisions, ref.collision);
		assert_int_equal(res[0].missed, 0);
		assert_int_equal(ref.missed, 0);
		/* The full context is never fooled here. */
		assert_int_equal(res[1].hits, ref.n);
		assert_int_equal(res[1].correct, ref.n);
		assert_int_equal(res[1].missed, 0);
		rp_oracle_result with_list[2];
		memcpy(with_list, res, sizeof with_list);
		rp_close(r);

		/* Where no temporary file can take the interrupts' list, each
		 * configuration walks the log itself: the same counts. */
		char *tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
		setenv("TMPDIR", "/nonexistent/avrr-test", 1);
		int rc = rp_open(path, &o, &r, &err);
		if (tmpdir)
			setenv("TMPDIR", tmpdir, 1);
		else
			unsetenv("TMPDIR");
		free(tmpdir);
		if (rc)
			fail_msg("%s", err.msg);
		assert_int_equal(rp_run(r, 0), RP_END);
		assert_memory_equal(rp_oracle_results(r, &n), with_list, sizeof with_list);
		rp_close(r);

		/* Sequence matching counts a false hit only on the next few
		 * interrupts' fingerprints, and only where the log's order
		 * allows them: never more than the window rule alone. */
		o.match = RP_MATCH_SEQUENCE;
		if (rp_open(path, &o, &r, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(rp_run(r, 0), RP_END);
		res = rp_oracle_results(r, &n);
		assert_int_equal(res[0].correct, ref.n);
		assert_int_equal(res[0].missed, 0);
		assert_true(res[0].hits - res[0].correct <= ref.window_hits);
		assert_true(ref.window_hits < ref.false_loop + ref.false_ra);
		assert_int_equal(res[0].false_loop + res[0].false_ra, res[0].hits - res[0].correct);
		rp_close(r);
		free(ref.rec);
		free(truth);
		unlink(path);
	}
}

/* ---- the brute-force oracle -------------------------------------------- */

/* Each takes the oracle's batched path, and together they reach its special cases: a Knuth
 * hash of no bits; 20-bit hash parts, in summarized bitmaps (or, with funcsheap_noloop's 126
 * return addresses, too many bitmaps to build); no ra* at all; an ra* that many return
 * addresses share; round-robin by code block and by region; and five members of one
 * selector, which the evaluator threads split between them. */
static const char *const BATCHED[] = {
	"k0:sel=SPL+SPH+SREG,hash=knuth,ra=8,width=8",
	"j20:sel=SPL+SPH+SREG+r24,hash=jenkins,ra=12,width=32",
	"m0:sel=SREG+r24,hash=modular,ra=0,width=16",
	"t2:sel=SREG,hash=twomod,ra=2,width=10",
	"kn:sel=SPL+SPH+SREG+r24,hash=knuth,ra=4,width=12",
	"j8:sel=SPL+SPH+SREG+r24,hash=jenkins,ra=8,width=16",
	"rr:sel=SPL+SPH+SREG+r24,hash=rr,ra=4,width=12",
	"rrm:sel=SPL+SPH+SREG+r24,hash=rr,marker=0x0-0x2ff:knuth+0x400-0x5ff:twomod,ra=6,width=14",
};
#define NBATCHED (sizeof BATCHED / sizeof *BATCHED)

/* Configurations of one selector with hash parts of at most 16 bits, as the bench's grid:
 * at a return address where thousands of new states come (funcsheap's delay loop), the
 * oracle tells them by classes of hash values (batch.c's class tables), every kind and
 * round-robin among them, with no ra*, some, and all. */
static const char *const CLASSED[] = {
	"c1:sel=SPL+SPH+SREG+r24+r25+r30,hash=modular,ra=0,width=16",
	"c2:sel=SPL+SPH+SREG+r24+r25+r30,hash=twomod,ra=3,width=16",
	"c3:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=0,width=16",
	"c4:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=9,width=16",
	"c5:sel=SPL+SPH+SREG+r24+r25+r30,hash=knuth,ra=2,width=16",
	"c6:sel=SPL+SPH+SREG+r24+r25+r30,hash=knuth,ra=16,width=16",
	"c7:sel=SPL+SPH+SREG+r24+r25+r30,hash=rr,ra=1,width=16",
	"c8:sel=SPL+SPH+SREG+r24+r25+r30,hash=rr,ra=12,width=16",
	"c9:sel=SPL+SPH+SREG+r24+r25+r30,hash=twomod,ra=14,width=16",
};
#define NCLASSED (sizeof CLASSED / sizeof *CLASSED)
#define BF_MAX (NBATCHED > NCLASSED ? NBATCHED : NCLASSED)

/* A state as the classification needs it: f(s), the full return address and g(s). */
typedef struct bf_point {
	fp_value f;
	uint32_t ra;
	uint8_t g[8];
	uint32_t n;
} bf_point;

typedef struct bf_counts {
	uint64_t hits, correct, false_loop, false_ra, input_dup, collision, missed;
} bf_counts;

typedef struct brute {
	sim *s;
	const char *const *specs;
	size_t nspecs;
	fp_config cfg[BF_MAX];
	bf_point *rec[BF_MAX];  /* per configuration, each recorded interrupt's */
	uint8_t **context;        /* each recorded interrupt's data space */
	const db_interrupt *truth;
	size_t n, next;
	bf_counts c[BF_MAX];
} brute;

static bf_point bf_point_of(const fp_config *c, const uint8_t *data, uint32_t size, uint32_t ra)
{
	fp_state st = { .data = data, .data_size = size, .ra = ra };
	bf_point p = { .f = fp_compute(c, &st), .ra = ra };
	const uint8_t *direct;
	p.n = fp_select(c, &st, p.g, sizeof p.g, &direct);
	return p;
}

static void bf_boundary(void *ud)
{
	brute *b = ud;
	const uint8_t *data = sim_live_data(b->s);
	uint32_t ra = sim_pc(b->s);
	int at_truth = b->next < b->n && b->truth[b->next].icount == sim_icount(b->s);
	if (at_truth) {
		/* Otherwise the counts below would be of some other run. */
		assert_int_equal(ra, b->truth[b->next].ra);
		assert_memory_equal(data, b->context[b->next], sim_data_size(b->s));
	}
	for (size_t k = 0; k < b->nspecs; k++) {
		bf_point p = bf_point_of(&b->cfg[k], data, sim_data_size(b->s), ra);
		int hit = 0, loop = 0, dup = 0;
		for (size_t i = 0; i < b->n; i++) {
			const bf_point *q = &b->rec[k][i];
			if (q->f.ra_part != p.f.ra_part || q->f.hash_part != p.f.hash_part)
				continue;
			hit = 1;
			loop |= q->ra == p.ra;
			dup |= q->n == p.n && !memcmp(q->g, p.g, p.n);
		}
		bf_counts *c = &b->c[k];
		c->hits += hit;
		if (at_truth) {
			c->correct += hit;
			c->missed += !hit;
		} else if (hit) {
			++*(loop ? &c->false_loop : &c->false_ra);
			++*(dup ? &c->input_dup : &c->collision);
		}
	}
	if (at_truth) {
		assert_int_equal(sim_enter_vector(b->s, (uint8_t)b->truth[b->next].vector), 0);
		b->next++;
	}
}

/* The brute force over the recording at path, into b->c. */
static void brute_force(const char *path, brute *b)
{
	db *d;
	rerun_replica rep;
	avrr_err err = { "" };
	db_interrupt *truth = load_truth(path, &b->n);
	if (db_open(path, 0, &d, &err) || rerun_replica_open(d, &rep, &err))
		fail_msg("%s", err.msg);
	b->s = rep.s;
	b->truth = truth;
	b->context = load_contexts(path, truth, b->n, sim_data_size(rep.s));
	for (size_t k = 0; k < b->nspecs; k++) {
		if (fp_parse(b->specs[k], sim_names(rep.s), rep.fw, sim_data_size(rep.s), NULL, &b->cfg[k],
			     &err))
			fail_msg("%s", err.msg);
		/* Else the oracle would not batch it, and g(s) would not fit a bf_point. */
		assert_true(fp_exact_keys(&b->cfg[k]));
		b->rec[k] = calloc(b->n, sizeof *b->rec[k]);
		for (size_t i = 0; i < b->n; i++)
			b->rec[k][i] = bf_point_of(&b->cfg[k], b->context[i], sim_data_size(rep.s),
						   truth[i].ra);
	}
	sim_set_replay(rep.s, 1);
	sim_set_hooks(rep.s, &(sim_hooks){ .ud = b, .on_boundary = bf_boundary });
	sim_run(rep.s, rep.run.instructions, 0, NULL);
	assert_int_equal(b->next, b->n);
	for (size_t k = 0; k < b->nspecs; k++)
		free(b->rec[k]);
	free_contexts(b->context, b->n);
	free(truth);
	rerun_replica_close(&rep);
	db_close(d);
}

/* Prints each count of the oracle's that differs from the brute force's; returns whether any
 * does. */
static int report_differences(const char *fw, const char *spec, const rp_oracle_result *got,
			      const bf_counts *want)
{
	static const char *const what[] = { "hits", "correct", "false_loop", "false_ra",
					    "input_duplicates", "hash_collisions", "missed" };
	const uint64_t g[] = { got->hits, got->correct, got->false_loop, got->false_ra,
			       got->input_duplicates, got->hash_collisions, got->missed };
	const uint64_t w[] = { want->hits, want->correct, want->false_loop, want->false_ra,
			       want->input_dup, want->collision, want->missed };
	int any = 0;
	for (size_t i = 0; i < sizeof what / sizeof *what; i++)
		if (g[i] != w[i]) {
			print_error("%s %s: %s %llu by the oracle, %llu by brute force\n", fw, spec,
				    what[i], (unsigned long long)g[i], (unsigned long long)w[i]);
			any = 1;
		}
	return any;
}

static void test_oracle_matches_brute_force(void **state)
{
	scratch *s = *state;
	int disagree = 0;
	bf_counts all = { 0 };
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		char path[256];
		test_record_direct(s, path, sizeof path, NULL, FIRMWARE[f], 100000, 1, SPECS, 2);
		brute b = { .specs = BATCHED, .nspecs = NBATCHED };
		brute_force(path, &b);

		/* Specs, not stored names: the oracle computes their D itself. */
		rp_options o = { .oracle = 1, .oracle_configs = BATCHED,
				 .noracle_configs = NBATCHED };
		replay *r;
		avrr_err err = { "" };
		if (rp_open(path, &o, &r, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(rp_run(r, 0), RP_END);
		size_t n;
		const rp_oracle_result *res = rp_oracle_results(r, &n);
		assert_int_equal(n, NBATCHED);
		/* Every disagreement is reported before failing: which
		 * configurations differ tells which special case is wrong. */
		for (size_t k = 0; k < NBATCHED; k++) {
			assert_string_equal(res[k].name, b.cfg[k].name);
			all.false_loop += b.c[k].false_loop;
			all.false_ra += b.c[k].false_ra;
			all.input_dup += b.c[k].input_dup;
			all.collision += b.c[k].collision;
			disagree |= report_differences(FIRMWARE[f], BATCHED[k], &res[k], &b.c[k]);
		}
		rp_close(r);
		/* With the smallest table of states, which fills, empties and
		 * rests again and again, and a budget for class tables that the
		 * first address spends (its new classes are then refused, and
		 * the states evaluated member by member), run in slices that
		 * each settle the table: the same counts. */
		o.oracle_table_bits = 1;
		if (rp_open(path, &o, &r, &err))
			fail_msg("%s", err.msg);
		rp_stop why;
		for (uint64_t at = 7919; (why = rp_run(r, at)) == RP_LIMIT; at += 7919)
			;
		assert_int_equal(why, RP_END);
		res = rp_oracle_results(r, &n);
		for (size_t k = 0; k < NBATCHED; k++)
			disagree |= report_differences(FIRMWARE[f], BATCHED[k], &res[k], &b.c[k]);
		rp_close(r);
		/* Alone, a configuration's boundaries are queued by the
		 * simulation itself (sim_tap): the same counts. */
		for (size_t k = 0; k < NBATCHED; k++) {
			rp_options one = { .oracle = 1, .oracle_configs = &BATCHED[k],
					   .noracle_configs = 1 };
			if (rp_open(path, &one, &r, &err))
				fail_msg("%s", err.msg);
			assert_int_equal(rp_run(r, 0), RP_END);
			disagree |= report_differences(FIRMWARE[f], BATCHED[k],
						       rp_oracle_results(r, &n), &b.c[k]);
			rp_close(r);
		}
		unlink(path);
	}
	if (disagree)
		fail_msg("the oracle's counts differ from the brute force's");
	/* Agreeing on counts that are all 0 would prove little. */
	assert_true(all.false_loop > 0 && all.false_ra > 0);
	assert_true(all.input_dup > 0 && all.collision > 0);
}

/* The class tables (batch.c) where funcsheap's delay loop brings a new state at nearly every
 * turn, and the member-by-member evaluation elsewhere: the brute force's counts, whole, in
 * slices that settle the classes' counts again and again, and with the smallest table of
 * states, which fills and empties (and its cache of tuples of classes with it), and the
 * smallest budget for class tables, which refuses new classes after the first address. */
static void test_oracle_classes_match_brute_force(void **state)
{
	scratch *s = *state;
	int disagree = 0;
	bf_counts all = { 0 };
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		char path[256];
		test_record_direct(s, path, sizeof path, NULL, FIRMWARE[f], 200000, 1, SPECS, 2);
		brute b = { .specs = CLASSED, .nspecs = NCLASSED };
		brute_force(path, &b);
		rp_options o = { .oracle = 1, .oracle_configs = CLASSED,
				 .noracle_configs = NCLASSED };
		for (int sliced = 0; sliced < 3; sliced++) {
			o.oracle_table_bits = sliced == 2;
			replay *r;
			avrr_err err = { "" };
			if (rp_open(path, &o, &r, &err))
				fail_msg("%s", err.msg);
			rp_stop why;
			for (uint64_t at = sliced ? 30011 : 0; (why = rp_run(r, at)) == RP_LIMIT;
			     at += 30011)
				;
			assert_int_equal(why, RP_END);
			size_t n;
			const rp_oracle_result *res = rp_oracle_results(r, &n);
			assert_int_equal(n, NCLASSED);
			for (size_t k = 0; k < NCLASSED; k++)
				disagree |= report_differences(FIRMWARE[f], CLASSED[k], &res[k],
							       &b.c[k]);
			rp_close(r);
		}
		for (size_t k = 0; k < NCLASSED; k++) {
			all.false_loop += b.c[k].false_loop;
			all.false_ra += b.c[k].false_ra;
			all.input_dup += b.c[k].input_dup;
			all.collision += b.c[k].collision;
		}
		unlink(path);
	}
	if (disagree)
		fail_msg("the oracle's counts differ from the brute force's");
	assert_true(all.false_loop > 0 && all.false_ra > 0);
	assert_true(all.input_dup > 0 && all.collision > 0);
}

/* ---- stripped recordings, divergence, the command ------------------------ */

/* The injections a set-based replay with `full` makes.  keep_going: the
 * copy cannot stop at a false injection as the original does, and both
 * must decide alike all the same.  (Not `narrow`: funcsheap's first
 * interrupt comes after its startup loops, where narrow's first false hit
 * ends the replay at once.) */
static void injections_of(const char *path, rp_injection **out, size_t *n, int *scored)
{
	rp_options o = { .fp_name = "full", .match = RP_MATCH_SET, .keep_going = 1 };
	replay *r;
	avrr_err err = { "" };
	if (rp_open(path, &o, &r, &err))
		fail_msg("%s", err.msg);
	rp_run(r, 0);
	const rp_injection *inj = rp_injections(r, n);
	*out = malloc((*n + 1) * sizeof **out);
	memcpy(*out, inj, *n * sizeof **out);
	*scored = rp_get_counters(r)->scored;
	rp_close(r);
}

static void test_strip_makes_the_same_injections(void **state)
{
	scratch *s = *state;
	char path[256], dev[300];
	test_record_direct(s, path, sizeof path, NULL, "funcsheap", 200000, 0, SPECS, 2);
	snprintf(dev, sizeof dev, "%s/device.db", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s strip '%s' -o '%s'", test_avrr(), path,
				  dev), 0);
	rp_injection *a, *b;
	size_t na, nb;
	int sa, sb;
	injections_of(path, &a, &na, &sa);
	injections_of(dev, &b, &nb, &sb);
	assert_true(na > 10);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].icount, b[i].icount);
		assert_int_equal(a[i].vector, b[i].vector);
	}
	assert_int_equal(sa, 1);
	assert_int_equal(sb, 0);
	free(a);
	free(b);
	/* No ground truth is left in the copy. */
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "sqlite3 '%s' 'SELECT count(*) FROM interrupts;"
				  " SELECT count(*) FROM fingerprints WHERE input_key IS NOT NULL'", dev), 0);
	assert_string_equal(s->out, "0\n0\n");
	/* The command reports the scoring keys as null, and the oracle refuses. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s' --fp full --json",
				  test_avrr(), dev), 0);
	json_error_t jerr;
	json_t *o = json_loads(s->out, 0, &jerr);
	if (!o)
		fail_msg("not JSON: %s", s->out);
	static const char *const nulls[] = { "correct", "false_loop", "false_ra", "input_duplicates",
					     "hash_collisions", "missed" };
	for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
		assert_true(json_is_null(json_object_get(o, nulls[i])));
	assert_int_equal(json_integer_value(json_object_get(o, "instructions")), 200000);
	assert_true(json_is_false(json_object_get(o, "diverged")));
	assert_true(json_is_null(json_object_get(o, "divergence")));
	json_decref(o);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s' --oracle", test_avrr(), dev),
			 2);
	assert_non_null(strstr(s->out, "stripped"));
}

/* An observer of the matches and slices, as the scorer is one. */
typedef struct watcher {
	replay *r;
	uint64_t veto_at;       /* the match to veto, counting from 1 */
	uint64_t matches;
	rp_hit last;
	uint64_t due_icount;    /* where a slice must end */
	int saw_due;            /* on_slice came exactly there */
} watcher;

static int watch_match(void *ud, const rp_hit *h)
{
	watcher *w = ud;
	w->last = *h;
	if (++w->matches != w->veto_at)
		return 0;
	rp_diverge(w->r, 0, "no 3rd injection", "a veto");
	return 1;
}

static void watch_due(void *ud, uint64_t *icount, uint64_t *cycle)
{
	(void)cycle;
	const watcher *w = ud;
	if (!w->saw_due)
		*icount = w->due_icount;
}

static void watch_slice(void *ud)
{
	watcher *w = ud;
	w->saw_due |= rp_icount(w->r) == w->due_icount;
}

/* Observers other than the scorer are told of each match before it is
 * injected, and their veto stops the replay there, before the entry; their
 * due point ends a run slice exactly. */
static void test_observers_see_matches_and_slices(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record_direct(s, path, sizeof path, NULL, "funcsheap", 200000, 0, SPECS, 2);
	rp_injection *inj;
	size_t ninj;
	int scored;
	injections_of(path, &inj, &ninj, &scored);
	assert_true(ninj > 3);

	rp_options o = { .fp_name = "full", .match = RP_MATCH_SET, .keep_going = 1 };
	replay *r;
	avrr_err err = { "" };
	if (rp_open(path, &o, &r, &err))
		fail_msg("%s", err.msg);
	watcher w = { .r = r, .veto_at = 3, .due_icount = inj[1].icount + 1 };
	assert_int_equal(rp_observe(r, &(rp_observer){ .ud = &w, .on_match = watch_match,
						      .due = watch_due, .on_slice = watch_slice },
				    &err), 0);
	assert_int_equal(rp_run(r, 0), RP_DIVERGED);
	/* Stopped at the 3rd injection's boundary, with two made. */
	assert_int_equal(rp_icount(r), inj[2].icount);
	assert_int_equal(w.last.vector, inj[2].vector);
	size_t made;
	rp_injections(r, &made);
	assert_int_equal(made, 2);
	assert_string_equal(rp_get_divergence(r)->actual, "a veto");
	assert_true(inj[2].icount > inj[1].icount + 1);
	assert_true(w.saw_due);
	rp_close(r);
	free(inj);
}

static void test_changed_output_diverges_there(void **state)
{
	scratch *s = *state;
	char path[256], sql[512];
	test_record_direct(s, path, sizeof path, NULL, "adcapp", 200000, 0, SPECS, 2);
	/* Flip a bit of the 20th write in the log. */
	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT seq, icount, pc, addr, value FROM events"
					    " WHERE type = 5 ORDER BY seq LIMIT 1 OFFSET 19",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long seq = sqlite3_column_int64(st, 0), icount = sqlite3_column_int64(st, 1);
	unsigned pc = (unsigned)sqlite3_column_int64(st, 2), value = (unsigned)sqlite3_column_int64(st, 4);
	sqlite3_finalize(st);
	sqlite3_close(h);
	snprintf(sql, sizeof sql, "UPDATE events SET value = (value | 1) - (value & 1) WHERE seq = %lld", seq);
	test_edit_log(path, sql);

	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s' --fp full --json",
				  test_avrr(), path), 1);
	json_error_t jerr;
	json_t *o = json_loads(s->out, 0, &jerr);
	if (!o)
		fail_msg("not JSON: %s", s->out);
	json_t *d = json_object_get(o, "divergence");
	assert_true(json_is_true(json_object_get(o, "diverged")));
	/* The write's PC is the instruction after it; icount counts it. */
	assert_int_equal(json_integer_value(json_object_get(d, "icount")), icount);
	assert_int_equal(json_integer_value(json_object_get(d, "pc")), pc);
	char want[64];
	snprintf(want, sizeof want, "= 0x%02x", value ^ 1);
	assert_non_null(strstr(json_string_value(json_object_get(d, "expected")), want));
	snprintf(want, sizeof want, "= 0x%02x", value);
	assert_non_null(strstr(json_string_value(json_object_get(d, "actual")), want));
	json_decref(o);
}

static void test_replay_command_errors(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record_direct(s, path, sizeof path, NULL, "funcsheap", 20000, 0, SPECS, 2);
	static const struct { const char *args, *needle; } bad[] = {
		{ "--match fuzzy", "'fuzzy'" },
		{ "--fp nosuch", "'nosuch'" },
		{ "--until 12x", "--until" },
		{ "--fp full --fp narrow", "--oracle" },
		{ "--oracle --fp 'sel=r77'", "'r77'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int rc = test_run(s->out, sizeof s->out, "%s replay '%s' %s", test_avrr(), path,
				  bad[i].args);
		if (rc != 2 || !strstr(s->out, bad[i].needle) || strncmp(s->out, "avrr replay: ", 13) ||
		    strchr(s->out, '\n') != s->out + strlen(s->out) - 1)
			fail_msg("replay %s: status %d, output '%s'", bad[i].args, rc, s->out);
	}
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s/none.db'", test_avrr(),
				  s->dir), 2);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s' --fp full --until 5000",
				  test_avrr(), path), 0);
	assert_non_null(strstr(s->out, "instructions         5000 of 20000"));
	/* An oracle over a spec the recording does not store works too. */
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "%s replay '%s' --oracle --fp 'x:sel=SPL+SPH+SREG,ra=4' --json",
				  test_avrr(), path), 0);
	assert_non_null(strstr(s->out, "\"name\": \"x\""));
	assert_non_null(strstr(s->out, "\"missed\": 0"));
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_context_replay_is_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oracle_matches_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oracle_matches_brute_force, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oracle_classes_match_brute_force, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_strip_makes_the_same_injections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observers_see_matches_and_slices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_output_diverges_there, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_command_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
