/*
 * test_batch.c — the batched oracle's optimizations against its plain
 * path (replayer/batch.h).
 *
 * Each bundled firmware (traces/NAME.elf with NAME.stim) is recorded and
 * replayed by the oracle; every instruction boundary of the replay, with
 * the recorded interrupts marked, goes to several batches over the same
 * configurations: one with every optimization off (BATCH_PLAIN: each
 * boundary looked up member by member, by key) and others with some on.
 * Every count of every configuration — hits, correct, false loop and RA
 * positives, input duplicates, hash collisions, missed — must be the
 * plain one's, for:
 *  - all on, as the replayer runs it; with a tiny table of states (it
 *    fills, rests, refuses classes); with three evaluators on threads;
 *  - each optimization alone on (the table of states with and without its
 *    links), and each alone off.
 * Two sets of configurations: 20 of 16 bits (five hashes, round-robin
 * among them, four splits), where every member has classes; and those with
 * three of 32-bit hash parts beside them, which have none, so that
 * outcome tables, bitmap rows and lookups by key meet in one batch.  The
 * plain path is checked to see the recorded interrupts (correct > 0) and
 * some false positives.
 */
#include "tests/testlib.h"

#include "fingerprint/fingerprint.h"
#include "rerun/fingerprints.h"
#include "replayer/batch.h"
#include "replayer/fpindex.h"
#include "replayer/replayer.h"
#include "sim/firmware.h"
#include "sim/ioregs.h"

#define INSNS 1000000
#define NARROW 20
#define NWIDE 3
#define NSPECS (NARROW + NWIDE)
#define MAX_CASES 8

typedef test_scratch scratch;
#define setup test_scratch_setup
#define teardown test_scratch_teardown

/* A way to run the batch: the optimizations off, the table's bits, the
 * evaluators. */
typedef struct batch_case {
	const char *what;
	unsigned off, table_bits, evaluators;
} batch_case;

/* A batch over members [0, n) and its results. */
typedef struct run {
	rp_batch *b;
	rp_oracle_result res[NSPECS];
	unsigned n;
} run;

/* The recorded interrupts: each one's return address and context (the
 * data space it was entered in), data_size bytes each. */
typedef struct truth {
	uint32_t *ra;
	uint8_t *ctx;
	size_t n, data_size;
} truth;

/* What the observer feeds: the plain runs and the cases' (narrow set
 * first, then the mixed one), every instruction's state, and at each
 * interrupt entered the next recorded one as it was recorded. */
typedef struct feed {
	replay *r;
	run runs[2 * (1 + MAX_CASES)];
	unsigned nruns;
	const truth *t;
	size_t next;      /* the recorded interrupt to come */
	uint64_t boundaries, truths;
} feed;

/* Every run's boundary at ra in data space `data`. */
static void emit(feed *f, uint32_t ra, const uint8_t *data, int at_truth)
{
	/* Packed by the first run's tap: all share the selector. */
	uint64_t w = sim_tap_pack(&f->runs[0].b->tap, data);
	for (unsigned i = 0; i < f->nruns; i++)
		batch_add_word(f->runs[i].b, ra, w, at_truth);
	f->boundaries++;
	f->truths += (uint64_t)at_truth;
}

static void on_insn(void *ud, uint32_t pc, uint32_t cycles)
{
	(void)cycles;
	feed *f = ud;
	emit(f, pc, sim_live_data(rp_sim(f->r)), 0);
}

static void on_irq(void *ud, uint8_t vector, uint32_t ra)
{
	(void)vector;
	(void)ra;
	feed *f = ud;
	if (f->next < f->t->n) {
		emit(f, f->t->ra[f->next], f->t->ctx + f->next * f->t->data_size, 1);
		f->next++;
	}
}

static int add_truth(void *ud, const db_interrupt *q, avrr_err *err)
{
	(void)err;
	truth *t = ud;
	assert_non_null(q->context);
	assert_int_equal(q->context_size, t->data_size);
	t->ra = realloc(t->ra, (t->n + 1) * sizeof *t->ra);
	t->ctx = realloc(t->ctx, (t->n + 1) * t->data_size);
	assert_true(t->ra && t->ctx);
	t->ra[t->n] = q->ra;
	memcpy(t->ctx + t->n++ * t->data_size, q->context, t->data_size);
	return 0;
}

/* Fingerprint rows, as rerun_fingerprints gives them. */
typedef struct fp_rows {
	db_fingerprint *rows;
	size_t n, cap;
} fp_rows;

static int collect(void *ud, const db_fingerprint *row, avrr_err *err)
{
	(void)err;
	fp_rows *s = ud;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->rows = realloc(s->rows, s->cap * sizeof *s->rows);
		assert_non_null(s->rows);
	}
	s->rows[s->n++] = *row;
	return 0;
}

/* The indexes of specs[0..n) over the recording at path, open in r, as
 * the replayer builds a batch's (sets only). */
static void build_indexes(const char *path, replay *r, const char *const *specs, unsigned n,
			  fp_index *x, truth *t)
{
	avrr_err err = { "" };
	db *d;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	t->data_size = sim_data_size(rp_sim(r));
	assert_int_equal(db_each_context(d, add_truth, t, &err), 0);
	rerun_fpset set;
	assert_int_equal(rerun_fpset_parse(specs, n, rp_sim(r), &set, &err), 0);
	for (unsigned i = 0; i < set.n; i++)
		set.ids[i] = i;
	fp_rows sink = { 0 };
	int rerun;
	int rc = rerun_fingerprints(d, &set, collect, &sink, NULL, &rerun, &err);
	if (rc)
		fail_msg("fingerprints: %s", err.msg);
	size_t nirq = sink.n / n;
	assert_true(nirq > 0);
	uint32_t *ras = malloc(nirq * sizeof *ras);
	db_fingerprint *mine = malloc(nirq * sizeof *mine);
	for (size_t k = 0; k < nirq; k++) {
		db_interrupt q;
		assert_int_equal(rp_recorded_interrupt(r, k + 1, &q), 0);
		ras[k] = q.ra;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t m = 0;
		for (size_t k = 0; k < sink.n; k++)
			if (sink.rows[k].config == i)
				mine[m++] = sink.rows[k];
		assert_int_equal(m, nirq);
		assert_true(batch_suits(&set.cfg[i]));
		if (fpi_build(&x[i], &set.cfg[i], mine, m, ras, i ? &x[0] : NULL, 1, &err))
			fail_msg("index: %s", err.msg);
	}
	free(mine);
	free(ras);
	free(sink.rows);
	rerun_fpset_free(&set);
	db_close(d);
}

/* Replays the recording at path by the oracle for `insns` instructions,
 * feeding every boundary to the plain batches and the cases', and checks
 * every count of the cases' against the plain ones. */
static void compare(const char *path, const batch_case *cases, unsigned ncases)
{
	avrr_err err = { "" };
	const char *const one[] = { "sel=SPL+SPH+SREG,ra=8,width=16" };
	rp_options o = { .oracle = 1, .keep_going = 1, .oracle_configs = one,
			 .noracle_configs = 1 };
	replay *r;
	if (rp_open(path, &o, &r, &err))
		fail_msg("open %s: %s", path, err.msg);
	const firmware *fw = rp_firmware(r);
	char sel[256];
	assert_int_equal(fp_frequency_selector(fw, ioregs_lookup(fw->mcu), 0, 3, "SPL+SPH+SREG",
					       sel, sizeof sel), 0);
	static const char *const hashes[] = { "modular", "twomod", "jenkins", "knuth", "rr" };
	static const unsigned ras[] = { 0, 5, 10, 16 };
	static char text[NSPECS][320];
	const char *specs[NSPECS];
	for (unsigned i = 0; i < NARROW; i++)
		snprintf(text[i], sizeof text[i], "sel=%s,hash=%s,ra=%u,width=16", sel,
			 hashes[i / 4], ras[i % 4]);
	for (unsigned i = 0; i < NWIDE; i++)
		snprintf(text[NARROW + i], sizeof text[i], "sel=%s,hash=%s,ra=8,width=40", sel,
			 hashes[2 + i]);
	for (unsigned i = 0; i < NSPECS; i++)
		specs[i] = text[i];
	fp_index *x = calloc(NSPECS, sizeof *x);
	truth t = { 0 };
	build_indexes(path, r, specs, NSPECS, x, &t);
	const fp_index *members[NSPECS];
	for (unsigned i = 0; i < NSPECS; i++)
		members[i] = &x[i];

	feed *f = calloc(1, sizeof *f);
	f->r = r;
	f->t = &t;
	for (unsigned c = 0; c <= ncases; c++)
		for (unsigned set = 0; set < 2; set++) {
			run *u = &f->runs[f->nruns++];
			u->n = set ? NSPECS : NARROW;
			rp_oracle_result *res[NSPECS];
			for (unsigned j = 0; j < u->n; j++)
				res[j] = &u->res[j];
			batch_opts bo = { .off = BATCH_PLAIN };
			unsigned bits = 0;
			if (c) {
				bo = (batch_opts){ .off = cases[c - 1].off,
						   .evaluators = cases[c - 1].evaluators };
				bits = cases[c - 1].table_bits;
			}
			u->b = batch_new_opts(members, res, u->n, sim_data_size(rp_sim(r)), bits, &bo);
			assert_non_null(u->b);
		}
	rp_observer ob = { .ud = f, .on_insn = on_insn, .on_irq = on_irq };
	assert_int_equal(rp_observe(r, &ob, &err), 0);
	rp_stop stop = rp_run(r, 0);
	assert_true(stop == RP_END || stop == RP_LIMIT);
	assert_int_equal(f->next, t.n);
	for (unsigned i = 0; i < f->nruns; i++)
		batch_settle(f->runs[i].b);

	for (unsigned set = 0; set < 2; set++) {
		const run *plain = &f->runs[set];
		uint64_t correct = 0, falses = 0, truths = 0;
		for (unsigned j = 0; j < plain->n; j++) {
			const rp_oracle_result *p = &plain->res[j];
			correct += p->correct;
			falses += p->hits - p->correct;
			truths += p->correct + p->missed;
			assert_int_equal(p->hits - p->correct, p->false_loop + p->false_ra);
			assert_int_equal(p->false_loop + p->false_ra,
					 p->input_duplicates + p->hash_collisions);
		}
		assert_true(correct > 0);
		assert_true(falses > 0);
		assert_int_equal(truths, plain->n * f->truths);
		for (unsigned c = 1; c <= ncases; c++) {
			const run *u = &f->runs[2 * c + set];
			for (unsigned j = 0; j < u->n; j++) {
				const rp_oracle_result *p = &plain->res[j], *q = &u->res[j];
				if (memcmp(p, q, sizeof *p))
					fail_msg("%s, %s, %s: hits %llu/%llu correct %llu/%llu "
						 "loop %llu/%llu ra %llu/%llu input %llu/%llu "
						 "collisions %llu/%llu missed %llu/%llu (plain/case)",
						 path, cases[c - 1].what, specs[j],
						 (unsigned long long)p->hits, (unsigned long long)q->hits,
						 (unsigned long long)p->correct,
						 (unsigned long long)q->correct,
						 (unsigned long long)p->false_loop,
						 (unsigned long long)q->false_loop,
						 (unsigned long long)p->false_ra,
						 (unsigned long long)q->false_ra,
						 (unsigned long long)p->input_duplicates,
						 (unsigned long long)q->input_duplicates,
						 (unsigned long long)p->hash_collisions,
						 (unsigned long long)q->hash_collisions,
						 (unsigned long long)p->missed,
						 (unsigned long long)q->missed);
			}
		}
	}
	for (unsigned i = 0; i < f->nruns; i++)
		batch_free(f->runs[i].b);
	free(f);
	rp_close(r);
	for (unsigned i = 0; i < NSPECS; i++)
		fpi_free(&x[i]);
	free(x);
	free(t.ra);
	free(t.ctx);
}

static const batch_case ALL_ON[] = {
	{ "all on", 0, 0, 0 },
	{ "all on, a table of 2^12 states", 0, 12, 0 },
	{ "all on, three evaluators", 0, 0, 3 },
	{ "all on, one evaluator without threads", BATCH_NO_THREADS, 0, 0 },
};

static const batch_case ALONE_ON[] = {
	{ "the table of states alone, without links", BATCH_PLAIN & ~BATCH_NO_STATES, 0, 0 },
	{ "the table of states and its links alone",
	  BATCH_PLAIN & ~(BATCH_NO_STATES | BATCH_NO_LINKS), 0, 0 },
	{ "outcome tables alone", BATCH_PLAIN & ~BATCH_NO_TABLES, 0, 0 },
	{ "class tables alone", BATCH_PLAIN & ~BATCH_NO_CLASSES, 0, 0 },
	{ "bitmap rows alone", BATCH_PLAIN & ~BATCH_NO_BITMAPS, 0, 0 },
	{ "threads alone, three evaluators", BATCH_PLAIN & ~BATCH_NO_THREADS, 0, 3 },
};

static const batch_case ALONE_OFF[] = {
	{ "all but the table of states", BATCH_NO_STATES, 0, 0 },
	{ "all but the links", BATCH_NO_LINKS, 0, 0 },
	{ "all but outcome tables", BATCH_NO_TABLES, 0, 0 },
	{ "all but class tables", BATCH_NO_CLASSES, 0, 0 },
	{ "all but bitmap rows", BATCH_NO_BITMAPS, 0, 0 },
	{ "all but outcome and class tables, a table of 2^12 states",
	  BATCH_NO_TABLES | BATCH_NO_CLASSES, 12, 0 },
};

#define N(a) (sizeof a / sizeof *a)

static void check_firmware(void **state, const char *name)
{
	scratch *s = *state;
	char path[256];
	test_record_direct(s, path, sizeof path, NULL, name, INSNS, 1, NULL, 0);
	compare(path, ALL_ON, N(ALL_ON));
	compare(path, ALONE_ON, N(ALONE_ON));
	compare(path, ALONE_OFF, N(ALONE_OFF));
}

static void test_adcapp(void **state)
{
	check_firmware(state, "adcapp");
}

static void test_funcsheap(void **state)
{
	check_firmware(state, "funcsheap");
}

static void test_funcsheap_noloop(void **state)
{
	check_firmware(state, "funcsheap_noloop");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_adcapp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap_noloop, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
