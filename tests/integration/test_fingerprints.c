/*
 * test_fingerprints.c — fingerprints recorded with a run and added later.
 *
 *  - `record --fp` stores each configuration and one fingerprint per
 *    interrupt, whose vector is the interrupt's and whose value is what the
 *    spec says, recomputed by hand from the stored context;
 *  - without --fp the default is SPL+SPH+SREG plus the top three GP
 *    registers of frequency-based selection;
 *  - `avrr fingerprint` gives exactly the rows record --fp gives, both from
 *    stored contexts and by re-running, also when the re-run turns over
 *    chunks of the log and of the ground truth and batches of the writer
 *    (it reads them as it goes); a re-run that does not match the
 *    recording (an interrupt, a context's digest) is refused and leaves
 *    the file as it was;
 *  - `info --json` reports the metrics, and `select` the ranking.
 */
#include "tests/edit_log.h"

#include <jansson.h>
#include <sodium.h>
#include <sqlite3.h>
#include <unistd.h>

#include "db/db.h"
#include "fingerprint/hash.h"
#include "recorder/recorder.h"
#include "util/digest.h"

#define N_INSN 100000
#define SPEC_X "x:sel=SPL+SPH+SREG+r24,hash=knuth,ra=6,width=20"

typedef test_scratch scratch;
#define setup test_scratch_setup
#define teardown test_scratch_teardown

/* Records traces/NAME.elf with its stimuli into DIR/FILE. */
/* The fingerprints of configuration `name`, in order of n. */
static db_fingerprint *load(const char *path, const char *name, size_t *n)
{
	db *d;
	avrr_err err = { "" };
	db_fp_config *cfg;
	size_t ncfg;
	db_fingerprint *rows = NULL;
	if (db_open(path, 0, &d, &err) || db_load_fp_configs(d, &cfg, &ncfg, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < ncfg; i++)
		if (!strcmp(cfg[i].name, name) && db_load_fingerprints(d, cfg[i].id, 1, &rows, n, &err))
			fail_msg("%s", err.msg);
	free(cfg);
	db_close(d);
	if (!rows)
		fail_msg("%s: no configuration '%s'", path, name);
	return rows;
}

static void assert_same_rows(const db_fingerprint *a, size_t na, const db_fingerprint *b,
			     size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].n, b[i].n);
		assert_int_equal(a[i].vector, b[i].vector);
		assert_int_equal(a[i].ra_part, b[i].ra_part);
		assert_int_equal(a[i].hash_part, b[i].hash_part);
		assert_int_equal(a[i].input_key, b[i].input_key);
	}
}

typedef struct check {
	const db_fingerprint *rows;
	size_t nrows, seen;
} check;

/* sel=SREG+r24, hash=modular, ra=5, width=13 by hand: the selector's bytes
 * are data[0x5f], data[24]; ra* is the low 5 bits of the word address. */
static int check_by_hand(void *ud, const db_interrupt *q, avrr_err *err)
{
	(void)err;
	check *c = ud;
	assert_non_null(q->context);
	assert_true(c->seen < c->nrows);
	const db_fingerprint *f = &c->rows[c->seen++];
	uint8_t g[2] = { q->context[0x5f], q->context[24] };
	assert_int_equal(f->n, q->idx);
	assert_int_equal(f->vector, q->vector);
	assert_int_equal(f->ra_part, (q->ra >> 1) & 31);
	assert_int_equal(f->hash_part, fp_hash(FP_HASH_MODULAR, g, 2, 8));
	assert_int_equal(f->input_key, (uint64_t)g[0] | (uint64_t)g[1] << 8); /* exact: 2 bytes */
	return 0;
}

static void test_record_stores_one_per_interrupt(void **state)
{
	scratch *s = *state;
	const char *specs[] = { "h:sel=SREG+r24,hash=modular,ra=5,width=13",
				"sel=all,hash=jenkins,ra=16,width=64" };
	char path[256];
	test_record_direct(s, path, sizeof path, "a.db", "adcapp", N_INSN, 1, specs, 2);
	size_t n1, n2;
	db_fingerprint *h = load(path, "h", &n1);
	db_fingerprint *all = load(path, "fp2", &n2);  /* unnamed: fp<position> */
	assert_true(n1 > 50);
	assert_int_equal(n1, n2);

	db *d;
	avrr_err err = { "" };
	trace_event *ev;
	size_t nev, k = 0;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	assert_int_equal(db_load_events(d, &ev, &nev, &err), 0);
	for (size_t i = 0; i < nev; i++)
		if (ev[i].type == TRACE_IRQ) {
			assert_true(k < n1);
			assert_int_equal(h[k].vector, ev[i].addr);
			assert_int_equal(all[k].vector, ev[i].addr);
			k++;
		}
	assert_int_equal(k, n1);
	check c = { h, n1, 0 };
	assert_int_equal(db_each_context(d, check_by_hand, &c, &err), 0);
	assert_int_equal(c.seen, n1);
	free(ev);
	db_close(d);
	free(h);
	free(all);
}

/* Asserts the recording at path holds only the default configuration. */
static void assert_only_default(const char *path)
{
	db *d;
	avrr_err err = { "" };
	db_fp_config *cfg;
	size_t n;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	assert_int_equal(db_load_fp_configs(d, &cfg, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(cfg[0].name, "default");
	free(cfg);
	db_close(d);
}

static void test_default_configuration(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record_direct(s, path, sizeof path, "d.db", "adcapp", N_INSN, 0, NULL, 0);
	db *d;
	avrr_err err = { "" };
	db_fp_config *cfg;
	size_t n;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	assert_int_equal(db_load_fp_configs(d, &cfg, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(cfg[0].name, "default");
	assert_string_equal(cfg[0].spec, "sel=cycles:32,ra=0,width=32");
	free(cfg);
	db_close(d);
}

/* Runs `avrr ARGS`; returns the exit status, output in s->out. */
static int avrr(scratch *s, const char *fmt, const char *a, const char *b)
{
	char args[1024];
	snprintf(args, sizeof args, fmt, a, b);
	return test_run(s->out, sizeof s->out, "%s %s", test_avrr(), args);
}

static void sql(const char *path, const char *stmt)
{
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, stmt, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

static void test_fingerprint_command_matches_record(void **state)
{
	scratch *s = *state;
	const char *specs[] = { SPEC_X };
	char direct[256], ctx[256], rerun[256];
	test_record_direct(s, direct, sizeof direct, "direct.db", "funcsheap", N_INSN, 0, specs, 1);
	test_record_direct(s, ctx, sizeof ctx, "ctx.db", "funcsheap", N_INSN, 1, NULL, 0);
	test_record_direct(s, rerun, sizeof rerun, "rerun.db", "funcsheap", N_INSN, 0, NULL, 0);

	assert_int_equal(avrr(s, "fingerprint '%s' --fp '%s'", ctx, SPEC_X), 0);
	assert_non_null(strstr(s->out, "from the stored contexts"));
	assert_int_equal(avrr(s, "fingerprint '%s' --fp '%s'", rerun, SPEC_X), 0);
	assert_non_null(strstr(s->out, "re-ran the recording"));

	size_t n0, n1, n2;
	db_fingerprint *a = load(direct, "x", &n0), *b = load(ctx, "x", &n1),
		       *c = load(rerun, "x", &n2);
	assert_true(n0 > 50);
	assert_same_rows(a, n0, b, n1);
	assert_same_rows(a, n0, c, n2);
	free(a);
	free(b);
	free(c);

	/* The same name again is refused. */
	assert_int_equal(avrr(s, "fingerprint '%s' --fp '%s'", rerun, SPEC_X), 2);
	assert_non_null(strstr(s->out, "'x' is already there"));
}

static void test_rerun_must_match(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record_direct(s, path, sizeof path, "t.db", "funcsheap", N_INSN, 0, NULL, 0);
	/* Move the 10th interrupt one instruction later, in the log and the
	 * ground truth alike, so the file stays consistent (it validates) but
	 * is not what the firmware does. */
	test_edit_log(path, "UPDATE events SET icount = icount + 1 WHERE seq ="
		      " (SELECT seq FROM events WHERE type = 2 ORDER BY seq LIMIT 1 OFFSET 9)");
	assert_int_equal(avrr(s, "fingerprint '%s' --fp '%s'", path, SPEC_X), 2);
	assert_non_null(strstr(s->out, "does not match the recording at interrupt 10"));
	assert_only_default(path);  /* nothing was added */
}

/* A re-run long enough that the log's chunks, the ground truth's and the
 * writer's batches all turn over while it runs (CHUNK_EVENTS and
 * CHUNK_IRQS are 64, BATCH_FPS 8,192 rows: ~1,800 interrupts under 12
 * configurations are 2 batches and more), read a chunk at a time as it
 * goes: every configuration's rows are record --fp's. */
static void test_rerun_across_chunks_and_batches(void **state)
{
	scratch *s = *state;
	enum { NCFG = 12 };
	static const char *const hashes[] = { "modular", "twomod", "jenkins", "knuth" };
	char specs_text[NCFG][96], args[NCFG * 110] = "";
	const char *specs[NCFG];
	for (int i = 0; i < NCFG; i++) {
		snprintf(specs_text[i], sizeof specs_text[i], "c%d:sel=SPL+SPH+SREG+r24,hash=%s,ra=%d,"
			 "width=16", i + 1, hashes[i % 4], i);
		specs[i] = specs_text[i];
		snprintf(args + strlen(args), sizeof args - strlen(args), " --fp '%s'", specs[i]);
	}
	char direct[256], rerun[256];
	test_record_direct(s, direct, sizeof direct, "direct.db", "funcsheap", 20 * N_INSN, 0,
			   specs, NCFG);
	test_record_direct(s, rerun, sizeof rerun, "rerun.db", "funcsheap", 20 * N_INSN, 0, NULL, 0);
	assert_int_equal(avrr(s, "fingerprint '%s'%s", rerun, args), 0);
	assert_non_null(strstr(s->out, "re-ran the recording"));
	for (int i = 0; i < NCFG; i++) {
		char name[16];
		snprintf(name, sizeof name, "c%d", i + 1);
		size_t na, nb;
		db_fingerprint *a = load(direct, name, &na), *b = load(rerun, name, &nb);
		assert_true(na * NCFG > 2 * 8192);
		assert_same_rows(a, na, b, nb);
		free(a);
		free(b);
	}
}

/* A ground truth whose 20th context digest is not the firmware's: the
 * re-run stops there, and nothing is added. */
static void test_rerun_checks_digests(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record_direct(s, path, sizeof path, "t.db", "funcsheap", N_INSN, 0, NULL, 0);
	test_edit_log(path, "UPDATE interrupts SET digest = X'A5A5A5A5A5A5A5A5' WHERE idx = 20");
	assert_int_equal(avrr(s, "fingerprint '%s' --fp '%s'", path, SPEC_X), 2);
	assert_non_null(strstr(s->out, "does not match the recording at interrupt 20: its context"
				       " differs"));
	assert_only_default(path);
}

static void test_info_metrics(void **state)
{
	scratch *s = *state;
	const char *specs[] = { "full:sel=all,hash=jenkins,ra=16,width=64",
				"narrow:sel=SREG,hash=modular,ra=2,width=6" };
	char path[256];
	test_record_direct(s, path, sizeof path, "m.db", "adcapp", N_INSN, 0, specs, 2);
	assert_int_equal(avrr(s, "info '%s' --json%s", path, ""), 0);
	json_error_t jerr;
	json_t *o = json_loads(s->out, 0, &jerr);
	if (!o)
		fail_msg("not JSON: %s", s->out);
	json_int_t nirq = test_json_int(o, "interrupts");
	json_t *cfgs = json_object_get(o, "fingerprint_configs");
	assert_int_equal(json_array_size(cfgs), 2);
	json_t *full = json_array_get(cfgs, 0), *narrow = json_array_get(cfgs, 1);
	assert_string_equal(json_string_value(json_object_get(full, "name")), "full");
	assert_string_equal(json_string_value(json_object_get(full, "spec")),
			    "sel=all,hash=jenkins,ra=16,width=64");
	assert_int_equal(test_json_int(full, "fingerprints"), nirq);
	assert_int_equal(test_json_int(narrow, "fingerprints"), nirq);
	/* The whole context tells every context apart; 64 bits do not collide
	 * here.  SREG alone cannot: 6 bits hold at most 64 fingerprints. */
	assert_int_equal(test_json_int(full, "duplicates"), 0);
	assert_int_equal(test_json_int(full, "input_duplicates"), 0);
	assert_true(json_real_value(json_object_get(full, "median_duplicates_per_ra")) == 0);
	assert_true(test_json_int(narrow, "distinct") <= 64);
	assert_true(test_json_int(narrow, "duplicates") > nirq / 2);
	assert_true(test_json_int(narrow, "input_duplicates") > nirq / 2);
	assert_true(json_is_real(json_object_get(narrow, "median_duplicates_per_ra")));
	json_decref(o);

	/* Stripped of the ground truth, the truth-based metrics are null. */
	sql(path, "DELETE FROM interrupt_chunks; UPDATE fingerprint_chunks SET keys = NULL;"
		  " UPDATE run SET has_ground_truth = 0");
	assert_int_equal(avrr(s, "info '%s' --json%s", path, ""), 0);
	o = json_loads(s->out, 0, &jerr);
	assert_non_null(o);
	narrow = json_array_get(json_object_get(o, "fingerprint_configs"), 1);
	assert_int_equal(test_json_int(narrow, "fingerprints"), nirq);
	assert_true(json_is_null(json_object_get(narrow, "duplicates")));
	assert_true(json_is_null(json_object_get(narrow, "input_duplicates")));
	json_decref(o);
}

static void test_select(void **state)
{
	scratch *s = *state;
	assert_int_equal(avrr(s, "select %s --json --gp 4 --io %s", "traces/adcapp.elf", "2"), 0);
	json_error_t jerr;
	json_t *o = json_loads(s->out, 0, &jerr);
	if (!o)
		fail_msg("not JSON: %s", s->out);
	json_t *gp = json_object_get(o, "gp"), *io = json_object_get(o, "io");
	/* Counts from avr-objdump -d of adcapp.elf, by the rules of freqsel.h. */
	assert_string_equal(json_string_value(json_object_get(json_array_get(gp, 0), "register")), "r24");
	assert_int_equal(test_json_int(json_array_get(gp, 0), "uses"), 160);
	assert_int_equal(test_json_int(json_array_get(gp, 1), "uses"), 105);
	for (size_t i = 1; i < json_array_size(gp); i++)
		assert_true(test_json_int(json_array_get(gp, i - 1), "uses") >=
			    test_json_int(json_array_get(gp, i), "uses"));
	for (size_t i = 1; i < json_array_size(io); i++)
		assert_true(test_json_int(json_array_get(io, i - 1), "uses") >=
			    test_json_int(json_array_get(io, i), "uses"));
	char want[128];
	snprintf(want, sizeof want, "%s+%s+r24+r25+r31+r30",
		 json_string_value(json_object_get(json_array_get(io, 0), "register")),
		 json_string_value(json_object_get(json_array_get(io, 1), "register")));
	assert_string_equal(json_string_value(json_object_get(o, "selector")), want);
	json_decref(o);
	/* The text form ends with the same selector. */
	assert_int_equal(avrr(s, "select %s --gp 4 --io %s", "traces/adcapp.elf", "2"), 0);
	char line[160];
	snprintf(line, sizeof line, "selector  sel=%s\n", want);
	assert_non_null(strstr(s->out, line));
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record_stores_one_per_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_configuration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fingerprint_command_matches_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rerun_must_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rerun_across_chunks_and_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rerun_checks_digests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_info_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
