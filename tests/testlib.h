/*
 * testlib.h — shared scaffolding for avrr's cmocka test programs.
 *
 * Tests run from the repository root (tests/run.sh does so).  The avrr binary
 * under test is $AVRR_BIN (default ./avrr); scratch files go to a per-test
 * temporary directory made with test_tmpdir().
 */
#ifndef AVRR_TESTLIB_H
#define AVRR_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <jansson.h>
#include <sqlite3.h>

#include "recorder/recorder.h"

/* Path of the avrr binary under test. */
static inline const char *test_avrr(void)
{
	const char *p = getenv("AVRR_BIN");
	return p && *p ? p : "./avrr";
}

/* A fresh directory under $TMPDIR (or /tmp); the caller may leave it. */
static inline const char *test_tmpdir(char *buf, size_t n)
{
	const char *base = getenv("TMPDIR");
	snprintf(buf, n, "%s/avrr-test-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(buf);
}

/* Runs a shell command line, capturing stdout+stderr into out (NUL-
 * terminated, truncated to n-1 bytes); returns the exit status, or -1. */
static inline int test_run(char *out, size_t n, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	char full[4200];
	snprintf(full, sizeof full, "(%s) 2>&1", cmd);
	FILE *p = popen(full, "r");
	if (!p)
		return -1;
	size_t len = 0;
	if (out && n) {
		len = fread(out, 1, n - 1, p);
		out[len] = 0;
	}
	char sink[4096];
	while (fread(sink, 1, sizeof sink, p) > 0)
		;
	int st = pclose(p);
	return st == -1 ? -1 : (st >> 8) & 0xff;
}

/* Removes a test's directory with all it holds. */
static inline void test_rmtree(const char *dir)
{
	char out[64];
	test_run(out, sizeof out, "rm -rf '%s'", dir);
}

/* A scratch directory and a buffer for command output.  The fixtures:
 * test_scratch_setup/teardown give each test its own (a cmocka
 * setup/teardown pair); a program whose tests share more (a recording made
 * once for the group, paths, a table) defines a struct that opens with a
 * test_scratch, makes it with test_fixture_new in its (group) setup and
 * ends it with test_fixture_teardown.  The directory goes with all it
 * holds. */
typedef struct test_scratch {
	char dir[128];
	char out[1 << 16];
} test_scratch;

/* A zeroed fixture of size bytes (at least a test_scratch, its first
 * member) with its directory made; NULL if either fails. */
static inline void *test_fixture_new(size_t size)
{
	test_scratch *s = calloc(1, size);
	if (s && !test_tmpdir(s->dir, sizeof s->dir)) {
		free(s);
		return NULL;
	}
	return s;
}

/* Removes the fixture's directory and frees it (NULL: nothing). */
static inline void test_fixture_free(void *f)
{
	test_scratch *s = f;
	if (s) {
		test_rmtree(s->dir);
		free(s);
	}
}

static inline int test_fixture_teardown(void **state)
{
	test_fixture_free(*state);
	return 0;
}

static inline int test_scratch_setup(void **state)
{
	*state = test_fixture_new(sizeof(test_scratch));
	return *state ? 0 : -1;
}

static inline int test_scratch_teardown(void **state)
{
	return test_fixture_teardown(state);
}

/* `avrr record ARGS -o DIR/FILE`, ARGS from fmt (the firmware and the
 * options, e.g. "traces/x.elf --stimuli traces/x.stim --instructions
 * 20k"), DIR the scratch directory: the recording's path into path (n
 * bytes), avrr's output into s->out; avrr's exit status. */
static inline int test_vrecord(test_scratch *s, char *path, size_t n, const char *file,
			       const char *fmt, va_list ap)
{
	char args[2048];
	vsnprintf(args, sizeof args, fmt, ap);
	snprintf(path, n, "%s/%s", s->dir, file);
	return test_run(s->out, sizeof s->out, "%s record %s -o '%s'", test_avrr(), args, path);
}

static inline int test_try_record(test_scratch *s, char *path, size_t n, const char *file,
				  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int test_try_record(test_scratch *s, char *path, size_t n, const char *file,
				  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = test_vrecord(s, path, n, file, fmt, ap);
	va_end(ap);
	return rc;
}

/* The same, failing the test with avrr's output unless it succeeds. */
static inline void test_record(test_scratch *s, char *path, size_t n, const char *file,
			       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline void test_record(test_scratch *s, char *path, size_t n, const char *file,
			       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = test_vrecord(s, path, n, file, fmt, ap);
	va_end(ap);
	if (rc)
		fail_msg("record %s: status %d\n%s", file, rc, s->out);
}

/* Records traces/NAME.elf with traces/NAME.stim in this process, through
 * the recorder's interface rather than the command, into DIR/FILE (NULL:
 * NAME.db), its path into path (n bytes): insns instructions, with the
 * contexts if asked, under the nspecs fingerprint specs (none: the
 * default); fails the test unless it succeeds. */
static inline void test_record_direct(const test_scratch *s, char *path, size_t n,
				      const char *file, const char *name, uint64_t insns,
				      int contexts, const char *const *specs, unsigned nspecs)
{
	char elf[128], stim[128];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	if (file)
		snprintf(path, n, "%s/%s", s->dir, file);
	else
		snprintf(path, n, "%s/%s.db", s->dir, name);
	rec_options o = {
		.firmware_path = elf, .out_path = path, .stimuli_path = stim,
		.max_instructions = insns, .store_contexts = contexts,
		.fp_specs = specs, .nfp_specs = nspecs,
	};
	avrr_err err = { "" };
	int interrupted;
	if (rec_record(&o, &interrupted, &err))
		fail_msg("record %s: %s", name, err.msg);
}

/* Fails the test, showing both, unless haystack holds needle. */
static inline void test_assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("expected to find '%s' in:\n%s", needle, haystack);
}

/* Writes `text` to the file at path (a test's input), or fails the test. */
static inline void test_write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp))
		fail_msg("cannot write %s", path);
}

/* How many live processes have an argument naming a or b (b may be NULL):
 * equal to it when whole, else containing it.  A session's processes are
 * found this way (the shell's wrapper `sh -c ...` only by containing). */
static inline int test_processes_with(const char *a, const char *b, int whole)
{
	DIR *d = opendir("/proc");
	assert_non_null(d);
	int count = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		char path[300], args[4096];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, args, sizeof args - 1);
		close(fd);
		if (n <= 0)
			continue;
		args[n] = 0;
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(args + i) + 1) {
			const char *arg = args + i;
			if (whole ? !strcmp(arg, a) || (b && !strcmp(arg, b))
				  : strstr(arg, a) || (b && strstr(arg, b))) {
				count++;
				break;
			}
		}
	}
	closedir(d);
	return count;
}

/* The whole file at path, malloc'ed and NUL-terminated, its size in *len
 * (if len); fails the test if it cannot be read. */
static inline char *test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* How many newlines text holds. */
static inline size_t test_count_lines(const char *text)
{
	size_t n = 0;
	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* The first column of the first row of query q on the recording at path. */
static inline long long test_sql_int(const char *path, const char *q)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	if (sqlite3_prepare_v2(h, q, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: %s", q, sqlite3_errmsg(h));
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* The recording at path holds n interrupts, and `avrr replay` of it
 * injects all n and does not diverge (its output left in s->out). */
static inline void test_assert_replay_exact(test_scratch *s, const char *path, long long n)
{
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), n);
	char want[64];
	snprintf(want, sizeof want, "injected             %lld\n", n);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s'", test_avrr(), path), 0);
	if (!strstr(s->out, want) || !strstr(s->out, "diverged             no\n"))
		fail_msg("%s", s->out);
}

/* Runs `avrr replay PATH ARGS --json` into s->out; fails unless it exits
 * with want_rc and prints JSON, which it returns (the caller frees it). */
static inline json_t *test_replay_json(test_scratch *s, const char *path, const char *args,
				       int want_rc)
{
	int rc = test_run(s->out, sizeof s->out, "%s replay '%s' %s --json", test_avrr(), path,
			  args);
	if (rc != want_rc)
		fail_msg("replay %s: status %d, want %d:\n%s", args, rc, want_rc, s->out);
	json_error_t jerr;
	json_t *o = json_loads(s->out, 0, &jerr);
	if (!o)
		fail_msg("replay %s: not JSON: %s", args, s->out);
	return o;
}

/* Member key of object o, which the test fails without. */
static inline long long test_json_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		fail_msg("JSON key '%s' missing or not an integer", key);
	return json_integer_value(v);
}

static inline const char *test_json_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		fail_msg("JSON key '%s' missing or not a string", key);
	return json_string_value(v);
}

#endif
