/*
 * test_sweep.c — `avrr sweep` against the command it batches.
 *
 *  - Every number of a sweep over a small grid (2 hashes x 3 ra values, in
 *    set and in sequence matching) equals what a separate
 *    `avrr replay --oracle --fp SPEC --json` says for that configuration;
 *    the rows come in grid order, with the recording's default selector.
 *  - --jobs 1 and --jobs 2 write byte-identical CSV over several units and
 *    two recordings; so do shards 1/3..3/3 joined by `avrr sweep merge`, in
 *    any order, which refuses a missing, doubled or foreign shard.
 *  - With --hash-bits, each width is hash bits + ra + the selector's
 *    counter bits, points wider than 64 bits are left out, and every
 *    number equals what one `avrr replay --oracle` over the same specs
 *    says; its shards merge to the whole.
 *  - Selectors that differ only in counters, given next to each other, share
 *    one unit per matching mode, which the shards show.
 *  - A path with a comma is quoted (RFC 4180).
 *  - Bad input: one line "avrr sweep: ...", exit status 2, no file left.
 *  - SIGINT to the sweep alone stops its workers: exit status 130, no file
 *    left, no worker still running.
 */
#include "tests/testlib.h"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NMETRICS 9

static const char *const METRIC[NMETRICS] = {
	"instructions", "interrupts", "hits", "correct", "false_loop", "false_ra",
	"input_duplicates", "hash_collisions", "missed",
};

typedef test_scratch scratch;
#define setup test_scratch_setup
#define teardown test_scratch_teardown

/* Records traces/NAME.elf with its stimuli into DIR/NAME.db. */

/* The two files hold the same bytes; returns how many. */
static size_t assert_same_file(const char *a, const char *b)
{
	size_t n1, n2;
	char *t1 = test_slurp(a, &n1), *t2 = test_slurp(b, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(t1, t2, n1);
	free(t1);
	free(t2);
	return n1;
}

/* One CSV row, split at commas (the fields of these tests hold none). */
typedef struct row {
	char f[9][200];
} row;

static size_t parse_csv(char *text, row **out)
{
	size_t n = 0, cap = 256;
	row *rows = malloc(cap * sizeof *rows);
	char *save;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n == cap)
			rows = realloc(rows, (cap *= 2) * sizeof *rows);
		row *r = &rows[n++];
		int k = 0;
		for (char *p = line; k < 9; k++) {
			size_t len = strcspn(p, ",");
			assert_true(len < sizeof r->f[k]);
			memcpy(r->f[k], p, len);
			r->f[k][len] = 0;
			p += len + (p[len] == ',');
		}
	}
	*out = rows;
	return n;
}

/* The sweep's default selector: the paper's, SPL+SPH+SREG and the three GP
 * registers `avrr select` ranks first in the firmware's code. */
static char *paper_selector(const char *elf)
{
	static char out[16384], sel[256];
	assert_int_equal(test_run(out, sizeof out, "%s select %s --io 0 --gp 3 --json", test_avrr(),
				  elf), 0);
	const char *p = strstr(out, "\"selector\": \"");
	assert_non_null(p);
	p += strlen("\"selector\": \"");
	snprintf(sel, sizeof sel, "SPL+SPH+SREG+%.*s", (int)strcspn(p, "\""), p);
	return sel;
}

static void test_sweep_equals_separate_oracle_runs(void **state)
{
	scratch *s = *state;
	char path[256], csv[300];
	test_record(s, path, sizeof path, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 200k");
	snprintf(csv, sizeof csv, "%s/grid.csv", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' --hash jenkins,rr --ra 0,4,8 "
				  "--match set,sequence --jobs 2 -o '%s'", test_avrr(), path, csv), 0);
	assert_string_equal(s->out, "");
	char *text = test_slurp(csv, NULL);
	row *rows;
	size_t n = parse_csv(text, &rows);
	static const char *const header[9] = { "recording", "config", "selector", "hash", "ra",
					       "width", "match", "metric", "value" };
	for (int k = 0; k < 9; k++)
		assert_string_equal(rows[0].f[k], header[k]);
	/* 2 matches x 2 hashes x 3 ra values, 9 metrics each, in grid order. */
	assert_int_equal(n, 1 + 2 * 2 * 3 * NMETRICS);
	const char *sel = paper_selector("traces/funcsheap.elf");
	static const char *const match[] = { "set", "sequence" }, *const hash[] = { "jenkins", "rr" };
	static const char *const ra[] = { "0", "4", "8" };
	size_t i = 1;
	for (int m = 0; m < 2; m++)
		for (int h = 0; h < 2; h++)
			for (int k = 0; k < 3; k++, i += NMETRICS) {
				char name[64], spec[512];
				snprintf(name, sizeof name, "s0-%s-ra%s-w16", hash[h], ra[k]);
				for (int j = 0; j < NMETRICS; j++) {
					const row *r = &rows[i + (size_t)j];
					assert_string_equal(r->f[0], path);
					assert_string_equal(r->f[1], name);
					assert_string_equal(r->f[2], sel);
					assert_string_equal(r->f[3], hash[h]);
					assert_string_equal(r->f[4], ra[k]);
					assert_string_equal(r->f[5], "16");
					assert_string_equal(r->f[6], match[m]);
					assert_string_equal(r->f[7], METRIC[j]);
				}
				/* The same configuration, on its own. */
				snprintf(spec, sizeof spec, "sel=%s,hash=%s,ra=%s,width=16", sel, hash[h],
					 ra[k]);
				assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s' --oracle "
							  "--match %s --fp '%s' --json 2>/dev/null",
							  test_avrr(), path, match[m], spec), 0);
				json_error_t jerr;
				json_t *o = json_loads(s->out, 0, &jerr);
				if (!o)
					fail_msg("not JSON: %s", s->out);
				json_t *c = json_array_get(json_object_get(o, "configs"), 0);
				assert_non_null(c);
				long long want[NMETRICS];
				want[0] = json_integer_value(json_object_get(o, "instructions"));
				want[1] = -1;
				for (int j = 2; j < NMETRICS; j++)
					want[j] = json_integer_value(json_object_get(c, METRIC[j]));
				for (int j = 0; j < NMETRICS; j++) {
					long long got = strtoll(rows[i + (size_t)j].f[8], NULL, 10);
					if (j == 1)
						assert_int_equal(got, want[3]);  /* every interrupt is correct */
					else if (got != want[j])
						fail_msg("%s %s %s: sweep %lld, replay %lld", name, match[m],
							 METRIC[j], got, want[j]);
				}
				assert_int_equal(want[0], 200000);
				assert_true(want[3] > 10);
				assert_int_equal(want[8], 0);
				json_decref(o);
			}
	/* A narrow set-based grid is fooled somewhere, so the check means something. */
	assert_int_equal(test_run(s->out, sizeof s->out, "sqlite3 '%s' 'SELECT count(*) FROM "
				  "interrupts'", path), 0);
	assert_int_equal(strtoll(rows[1 + 1].f[8], NULL, 10), strtoll(s->out, NULL, 10));
	assert_true(strtoll(rows[1 + 2].f[8], NULL, 10) > strtoll(rows[1 + 3].f[8], NULL, 10));
	free(rows);
	free(text);
}

static void test_jobs_give_identical_csv(void **state)
{
	scratch *s = *state;
	char a[256], b[256], csv1[300], csv2[300];
	test_record(s, a, sizeof a, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 100k");
	test_record(s, b, sizeof b, "adcapp.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--seed 7 --instructions 100k");
	snprintf(csv1, sizeof csv1, "%s/j1.csv", s->dir);
	snprintf(csv2, sizeof csv2, "%s/j2.csv", s->dir);
	const char *grid = "--width 8,16 --ra 0,4,8 --hash modular,knuth,rr --match set,sequence "
			   "--selector 'SPL+SPH+SREG;SPL+SPH+SREG+r24+r25' --selector all";
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' '%s' %s --jobs 1 -o '%s'",
				  test_avrr(), a, b, grid, csv1), 0);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' '%s' %s --jobs 2 -o '%s'",
				  test_avrr(), a, b, grid, csv2), 0);
	size_t n1, n2;
	char *t1 = test_slurp(csv1, &n1), *t2 = test_slurp(csv2, &n2);
	/* 2 recordings x 2 matches x 3 selectors x (ra 0,4,8 at width 8 and 16)
	 * x 3 hashes, 9 metrics each. */
	size_t lines = 0;
	for (char *p = t1; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 2 * 2 * 3 * 6 * 3 * NMETRICS);
	assert_int_equal(n1, n2);
	assert_memory_equal(t1, t2, n1);
	free(t1);
	free(t2);
}

/* Runs `avrr sweep merge ARGS` in s->dir; returns its exit status. */
static int merge(scratch *s, const char *args)
{
	char bin[4096] = "";
	if (test_avrr()[0] != '/' && !getcwd(bin, sizeof bin - 1))
		fail_msg("getcwd");
	return test_run(s->out, sizeof s->out, "cd '%s' && '%s%s%s' sweep merge %s", s->dir, bin,
			bin[0] ? "/" : "", test_avrr(), args);
}

/* `avrr sweep merge PARTS -o merged.csv` succeeds and writes exactly the
 * bytes of `whole`; returns how many. */
static size_t merges_to(scratch *s, const char *parts, const char *whole)
{
	char args[300], merged[300];
	snprintf(args, sizeof args, "%s -o merged.csv", parts);
	assert_int_equal(merge(s, args), 0);
	snprintf(merged, sizeof merged, "%s/merged.csv", s->dir);
	return assert_same_file(whole, merged);
}

/* Shards 1/3, 2/3, 3/3 merged, in any order, are the whole sweep's CSV byte
 * for byte; merge refuses a missing, doubled or foreign shard and writes
 * nothing then. */
static void test_shards_merge_to_the_whole(void **state)
{
	scratch *s = *state;
	char a[256], b[256], whole[300];
	test_record(s, a, sizeof a, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 100k");
	test_record(s, b, sizeof b, "adcapp.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--seed 7 --instructions 100k");
	snprintf(whole, sizeof whole, "%s/whole.csv", s->dir);
	const char *grid = "--width 8,16 --ra 0,4 --hash jenkins,rr --match set,sequence "
			   "--selector 'SPL+SPH+SREG;SPL+SPH+SREG+r24'";
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' '%s' %s -o '%s'",
				  test_avrr(), a, b, grid, whole), 0);
	for (int k = 1; k <= 3; k++)
		assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' '%s' %s --shard %d/3 "
					  "--jobs 1 -o '%s/part%d.csv'", test_avrr(), a, b, grid, k,
					  s->dir, k), 0);
	/* Another grid's shard, for the refusals below. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' %s --shard 2/3 -o "
				  "'%s/other.csv'", test_avrr(), a, grid, s->dir), 0);
	assert_true(merges_to(s, "part3.csv part1.csv part2.csv", whole) > 1000);
	char part1[300];
	snprintf(part1, sizeof part1, "%s/part1.csv", s->dir);
	char *p1 = test_slurp(part1, NULL);
	assert_memory_equal(p1, "# avrr sweep shard 1/3 grid ", 28);
	free(p1);

	static const struct {
		const char *args, *error;
	} bad[] = {
		{ "part1.csv part3.csv -o out.csv", "avrr sweep: merge: shard 2/3 is missing\n" },
		{ "part1.csv part2.csv part2.csv part3.csv -o out.csv",
		  "avrr sweep: merge: part2.csv and part2.csv are both shard 2/3\n" },
		{ "part1.csv other.csv part3.csv -o out.csv",
		  "avrr sweep: merge: other.csv is shard 2/3 of another sweep than part1.csv (1/3)\n" },
		{ "whole.csv -o out.csv",
		  "avrr sweep: merge: whole.csv:1: not a shard of a sweep (no line '# avrr sweep shard "
		  "K/N grid KEY'); make shards with 'avrr sweep --shard K/N'\n" },
		{ "part1.csv", "avrr sweep: usage: avrr sweep merge PART.csv [PART.csv ...] -o "
		  "RESULTS.csv\n" },
		{ "noheader.csv -o out.csv",
		  "avrr sweep: merge: noheader.csv:2: not the header of a sweep's CSV\n" },
	};
	char noheader[300];
	snprintf(noheader, sizeof noheader, "%s/noheader.csv", s->dir);
	test_write_text(noheader, "# avrr sweep shard 1/1 grid 0123456789abcdef\nnot,a,header\n");
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(merge(s, bad[i].args), 2);
		assert_string_equal(s->out, bad[i].error);
	}
	char out[300];
	snprintf(out, sizeof out, "%s/out.csv", s->dir);
	assert_int_equal(access(out, F_OK), -1);
}

/* Counts the lines of a file. */
static size_t count_lines(const char *path)
{
	char *t = test_slurp(path, NULL);
	size_t lines = test_count_lines(t);
	free(t);
	return lines;
}

/* The paper's selector with no counter, sic:4 and cycles:2, 10 points in
 * each matching mode: two units, so the first of three shards has none,
 * the second holds set matching, the third sequence matching; merged,
 * they are the whole. */
static void test_counter_selectors_share_a_unit(void **state)
{
	scratch *s = *state;
	char path[256], whole[300], grid[1024], part[300];
	test_record(s, path, sizeof path, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 100k");
	snprintf(whole, sizeof whole, "%s/whole.csv", s->dir);
	const char *sel = paper_selector("traces/funcsheap.elf");
	snprintf(grid, sizeof grid, "--selector '%s;%s+sic:4;%s+cycles:2' --width 8,16 --ra 0,8 "
		 "--hash jenkins --match set,sequence", sel, sel, sel);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' %s -o '%s'", test_avrr(),
				  path, grid, whole), 0);
	/* At width 8, ra 8 leaves no room for a counter: 4 + 3 + 3 points. */
	for (int k = 1; k <= 3; k++) {
		assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' %s --shard %d/3 "
					  "-o '%s/part%d.csv'", test_avrr(), path, grid, k, s->dir,
					  k), 0);
		snprintf(part, sizeof part, "%s/part%d.csv", s->dir, k);
		size_t lines = count_lines(part);
		if (lines != (k == 1 ? 2 : 2 + 10 * NMETRICS))
			fail_msg("shard %d/3 has %zu lines, not those of one unit per matching mode",
				 k, lines);
		char *t = test_slurp(part, NULL);
		if (k > 1 && !strstr(t, k == 2 ? ",set,hits," : ",sequence,hits,"))
			fail_msg("shard %d/3 holds none of the rows expected:\n%.300s", k, t);
		free(t);
	}
	assert_int_equal(count_lines(whole), 1 + 2 * 10 * NMETRICS);
	merges_to(s, "part2.csv part3.csv part1.csv", whole);
}

/* The paper's selector S with no counter, sic:4 and cycles:2, at 8 and 54
 * hash bits and ra 0 and 8: S+sic:4 with 54 hash bits and ra 8 would be 66
 * bits wide. */
static void test_hash_bits_widen_with_counters(void **state)
{
	scratch *s = *state;
	char path[256], whole[300], sels[600];
	test_record(s, path, sizeof path, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 200k");
	snprintf(whole, sizeof whole, "%s/hb.csv", s->dir);
	const char *sel = paper_selector("traces/funcsheap.elf");
	snprintf(sels, sizeof sels, "%s;%s+sic:4;%s+cycles:2", sel, sel, sel);
	char grid[1024];
	snprintf(grid, sizeof grid, "--selector '%s' --hash-bits 8,54 --ra 0,8 --hash jenkins "
		 "--match set,sequence", sels);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' %s -o '%s'", test_avrr(),
				  path, grid, whole), 0);
	assert_string_equal(s->out, "");
	char *text = test_slurp(whole, NULL);
	row *rows;
	size_t n = parse_csv(text, &rows), i = 1;
	static const char *const match[] = { "set", "sequence" }, *const suffix[] = { "", "+sic:4",
										  "+cycles:2" };
	static const unsigned counters[] = { 0, 4, 2 }, hbits[] = { 8, 54 }, ra[] = { 0, 8 };
	for (int m = 0; m < 2; m++) {
		/* The same specs in one `avrr replay --oracle`. */
		char cmd[4096];
		int len = snprintf(cmd, sizeof cmd, "%s replay '%s' --oracle --match %s --json",
				   test_avrr(), path, match[m]);
		size_t first = i;
		for (int k = 0; k < 3; k++)
			for (int h = 0; h < 2; h++)
				for (int r = 0; r < 2; r++) {
					unsigned w = hbits[h] + ra[r] + counters[k];
					if (w > 64)
						continue;
					char name[64], selk[300];
					snprintf(name, sizeof name, "s%d-jenkins-ra%u-w%u", k, ra[r], w);
					snprintf(selk, sizeof selk, "%s%s", sel, suffix[k]);
					len += snprintf(cmd + len, sizeof cmd - (size_t)len,
							" --fp '%s:sel=%s,hash=jenkins,ra=%u,width=%u'", name,
							selk, ra[r], w);
					for (int j = 0; j < NMETRICS; j++, i++) {
						assert_true(i < n);
						const row *x = &rows[i];
						char num[16];
						assert_string_equal(x->f[0], path);
						assert_string_equal(x->f[1], name);
						assert_string_equal(x->f[2], selk);
						assert_string_equal(x->f[3], "jenkins");
						snprintf(num, sizeof num, "%u", ra[r]);
						assert_string_equal(x->f[4], num);
						snprintf(num, sizeof num, "%u", w);
						assert_string_equal(x->f[5], num);
						assert_string_equal(x->f[6], match[m]);
						assert_string_equal(x->f[7], METRIC[j]);
					}
				}
		/* 3 selectors x 2 hash bits x 2 ra, less the one wider than 64 bits. */
		assert_int_equal(i - first, 11 * NMETRICS);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s 2>/dev/null", cmd), 0);
		json_error_t jerr;
		json_t *o = json_loads(s->out, 0, &jerr);
		if (!o)
			fail_msg("not JSON: %s", s->out);
		json_t *cfgs = json_object_get(o, "configs");
		assert_int_equal(json_array_size(cfgs), 11);
		for (size_t c = 0; c < 11; c++) {
			const row *x = &rows[first + c * NMETRICS];
			json_t *cj = json_array_get(cfgs, c);
			assert_string_equal(json_string_value(json_object_get(cj, "name")), x->f[1]);
			assert_int_equal(strtoll(x[0].f[8], NULL, 10),
					 json_integer_value(json_object_get(o, "instructions")));
			for (int j = 2; j < NMETRICS; j++)
				if (strtoll(x[j].f[8], NULL, 10) !=
				    json_integer_value(json_object_get(cj, METRIC[j])))
					fail_msg("%s %s %s: sweep %s, replay %lld", x->f[1], match[m],
						 METRIC[j], x[j].f[8],
						 json_integer_value(json_object_get(cj, METRIC[j])));
			assert_string_equal(x[1].f[8], x[3].f[8]);  /* every interrupt is correct */
		}
		json_decref(o);
	}
	assert_int_equal(i, n);
	/* More counter bits tell more turns of the loop apart, under set matching:
	 * S, 8 hash bits, ra 8 (w16) against S+sic:4 (w20). */
	assert_string_equal(rows[1 + 1 * NMETRICS].f[1], "s0-jenkins-ra8-w16");
	assert_string_equal(rows[1 + 5 * NMETRICS].f[1], "s1-jenkins-ra8-w20");
	assert_true(strtoll(rows[1 + 1 * NMETRICS + 5].f[8], NULL, 10) +
		    strtoll(rows[1 + 1 * NMETRICS + 4].f[8], NULL, 10) >
		    strtoll(rows[1 + 5 * NMETRICS + 5].f[8], NULL, 10) +
		    strtoll(rows[1 + 5 * NMETRICS + 4].f[8], NULL, 10));
	free(rows);
	free(text);

	/* Its shards merge to the whole. */
	for (int k = 1; k <= 3; k++)
		assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' %s --shard %d/3 "
					  "-o '%s/part%d.csv'", test_avrr(), path, grid, k, s->dir,
					  k), 0);
	merges_to(s, "part2.csv part3.csv part1.csv", whole);
}

static void test_fields_with_commas_are_quoted(void **state)
{
	scratch *s = *state;
	char path[256], odd[300], csv[300];
	test_record(s, path, sizeof path, "funcsheap_noloop.db", "traces/funcsheap_noloop.elf "
		    "--stimuli traces/funcsheap_noloop.stim --seed 7 --instructions 50k");
	snprintf(odd, sizeof odd, "%s/a,\"b\".db", s->dir);
	snprintf(csv, sizeof csv, "%s/q.csv", s->dir);
	assert_int_equal(rename(path, odd), 0);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' --hash jenkins --ra 8 -o '%s'",
				  test_avrr(), odd, csv), 0);
	char *text = test_slurp(csv, NULL), want[400];
	snprintf(want, sizeof want, "\n\"%s/a,\"\"b\"\".db\",s0-jenkins-ra8-w16,", s->dir);
	if (!strstr(text, want))
		fail_msg("no '%s' in:\n%s", want, text);
	free(text);
}

/* The names in DIR, sorted, one per line. */
static void list_dir(const char *dir, char *buf, size_t n)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
	assert_int_equal(test_run(buf, n, "%s", cmd), 0);
}

static void test_bad_input(void **state)
{
	scratch *s = *state;
	char path[256], stripped[300], text[300], before[1024], after[1024];
	test_record(s, path, sizeof path, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 20k");
	snprintf(stripped, sizeof stripped, "%s/stripped.db", s->dir);
	snprintf(text, sizeof text, "%s/text.db", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s strip '%s' -o '%s' && echo hello > '%s'",
				  test_avrr(), path, stripped, text), 0);
	list_dir(s->dir, before, sizeof before);
	static const struct { const char *args, *needle; } bad[] = {
		{ "RUN", "no output given; use -o RESULTS.csv" },
		{ "RUN -o OUT --hash jenkins,md5", "--hash: 'md5' is not one of modular, twomod, "
						   "jenkins, knuth, rr" },
		{ "RUN -o OUT --ra 3,x", "--ra: 'x' is not a non-negative integer" },
		{ "RUN -o OUT --ra 4,,8", "--ra: '4,,8' is not a comma-separated list of numbers" },
		{ "RUN -o OUT --ra 33", "--ra: 33 is not in 0..32" },
		{ "RUN -o OUT --width 8 --ra 0,12", "--ra: 12 exceeds every --width (the widest is 8)" },
		{ "RUN -o OUT --width 16,x", "--width: 'x' is not a non-negative integer" },
		{ "RUN -o OUT --width 65", "--width: 65 is not in 1..64" },
		{ "RUN -o OUT --hash-bits 0", "--hash-bits: 0 is not in 1..64" },
		{ "RUN -o OUT --hash-bits 8,x", "--hash-bits: 'x' is not a non-negative integer" },
		{ "RUN -o OUT --hash-bits 8,8", "--hash-bits: 8 is given twice" },
		{ "RUN -o OUT --width 16 --hash-bits 8", "--hash-bits: give it or --width, not both" },
		{ "RUN -o OUT --hash-bits 40,48 --ra 8,30",
		  "--ra: 30 and the fewest --hash-bits, 40, exceed 64 bits" },
		{ "RUN -o OUT --match fuzzy", "--match: 'fuzzy' is not one of set, sequence" },
		{ "RUN -o OUT --jobs 0", "--jobs: 0 is not in 1..256" },
		{ "RUN -o OUT --shard 0/3", "--shard: '0/3' is not K/N with 1 <= K <= N" },
		{ "RUN -o OUT --shard 4/3", "--shard: '4/3' is not K/N with 1 <= K <= N" },
		{ "RUN -o OUT --shard 1/3x", "--shard: '1/3x' is not K/N with 1 <= K <= N" },
		{ "RUN -o OUT --selector 'SPL;;SREG'", "--selector: 'SPL;;SREG' has an empty selector" },
		{ "RUN -o OUT --selector 'SPL+r77'", "'r77'" },
		{ "DIR/none.db -o OUT", "DIR/none.db: No such file or directory" },
		{ "DIR/text.db -o OUT", "DIR/text.db: not an avrr recording" },
		{ "DIR/stripped.db -o OUT", "DIR/stripped.db: the oracle follows the ground truth, and "
					    "this recording was stripped of it" },
		{ "RUN -o DIR/nodir/out.csv", "cannot write 'DIR/nodir/out.csv': No such file or "
					      "directory" },
		{ "RUN -o OUT --frobnicate", "unknown option '--frobnicate'" },
		{ "RUN -o RUN", "-o DIR/funcsheap.db: is the input 'DIR/funcsheap.db'; refusing to "
				"write over it" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		/* Substitute RUN, OUT and DIR. */
		char args[1024] = "", needle[512] = "";
		const char *from[2] = { bad[i].args, bad[i].needle };
		char *to[2] = { args, needle };
		size_t cap[2] = { sizeof args, sizeof needle };
		for (int k = 0; k < 2; k++)
			for (const char *p = from[k]; *p;) {
				size_t len = strlen(to[k]);
				if (!strncmp(p, "RUN", 3))
					snprintf(to[k] + len, cap[k] - len, "'%s'", path), p += 3;
				else if (!strncmp(p, "OUT", 3))
					snprintf(to[k] + len, cap[k] - len, "'%s/out.csv'", s->dir), p += 3;
				else if (!strncmp(p, "DIR", 3))
					snprintf(to[k] + len, cap[k] - len, "%s", s->dir), p += 3;
				else
					snprintf(to[k] + len, cap[k] - len, "%c", *p++);
			}
		int rc = test_run(s->out, sizeof s->out, "%s sweep %s", test_avrr(), args);
		if (rc != 2 || strncmp(s->out, "avrr sweep: ", 12) || !strstr(s->out, needle) ||
		    strchr(s->out, '\n') != s->out + strlen(s->out) - 1)
			fail_msg("sweep %s: status %d, output '%s', expected '%s'", args, rc, s->out,
				 needle);
		list_dir(s->dir, after, sizeof after);
		if (strcmp(before, after))
			fail_msg("sweep %s left files behind:\n%s", args, after);
	}
	/* --help succeeds and names every option. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep --help", test_avrr()), 0);
	static const char *const opts[] = { "--output", "--width", "--hash-bits", "--ra", "--hash",
					    "--selector", "--match", "--jobs", "--shard" };
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
		assert_non_null(strstr(s->out, opts[i]));
}

static void test_interrupt_leaves_nothing(void **state)
{
	scratch *s = *state;
	char path[256], csv[300], before[1024], after[1024];
	test_record(s, path, sizeof path, "funcsheap.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --seed 7 --instructions 2M");
	snprintf(csv, sizeof csv, "%s/out.csv", s->dir);
	list_dir(s->dir, before, sizeof before);
	/* Hashing the whole context at every instruction keeps it busy for
	 * seconds; the signal goes to the sweep alone, not to its workers. */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		setpgid(0, 0);  /* out of the test's process group */
		execl(test_avrr(), "avrr", "sweep", path, "--selector", "all", "--ra", "0,8",
		      "--jobs", "2", "-o", csv, (char *)NULL);
		_exit(127);
	}
	nanosleep(&(struct timespec){ 0, 500000000 }, NULL);
	assert_int_equal(kill(pid, SIGINT), 0);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 130);
	/* The workers were in the sweep's new process group; none is left. */
	assert_int_equal(kill(-pid, 0), -1);
	list_dir(s->dir, after, sizeof after);
	assert_string_equal(before, after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sweep_equals_separate_oracle_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_give_identical_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shards_merge_to_the_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hash_bits_widen_with_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counter_selectors_share_a_unit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fields_with_commas_are_quoted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupt_leaves_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
