/*
 * test_memory.c — a recording's memory does not grow with the run's length.
 *
 * `avrr record` streams the events, the ground truth and the fingerprints
 * into the store's chunks as the run goes, and its summary reads them back
 * a chunk at a time, so its peak resident set is (nearly) the same for a
 * short run as for a long one.  What is measured is the growth between
 * two lengths of the same run, not a size, so the simulator's and
 * SQLite's fixed footprint (and the allocator's whims) cancel out.
 *
 * The bound: adcapp takes about 820 interrupts and 2,300 events per 10^6
 * instructions (traces/adcapp.c: a 1 kHz timer, the ADC and the UART at
 * 8 MHz), so 3*10^7 instructions more are about 25,000 interrupts and
 * 70,000 events.  Held decoded (56 bytes an event, 64 an interrupt, and a
 * fingerprint row of 64 bytes plus its metrics sample), that is over
 * 8 MB.  The summary's metrics once kept a 32-byte sample per interrupt
 * (and qsort's copy of it, and the sorted array's doubling), and SQLite's
 * page caches, the writer's (32 MB) and the summary reader's (2 MB), filled
 * as the file grew: 2.3 MB more at 4*10^7.  Now the metrics stream through
 * external sorts of bounded buffers (fingerprint/metrics.c) and both
 * caches are 256 KB, which 10^7 instructions (a 0.3 MB file) already
 * fill: what is left to grow measured 0 to 0.3 MB (the allocator's
 * whims, a few counters).  The bound is 1 MB.
 *
 * `avrr replay`, `replay --oracle` and `avrr shell` (to the end) read the
 * log a chunk at a time too (trace/log.h's cursor), and take each
 * recorded interrupt's icount and vector from it instead of a decoded
 * ground truth.  Per 3*10^7 instructions, the old code held the log
 * (70,000 events of 56 bytes, and a 4-byte index each into it), each
 * interrupt's place in it (4 bytes) and the ground truth (64 bytes): over
 * 5.9 MB, on top of the fingerprint database D.
 *
 *   - The fingerprint replay (and the shell) match one interrupt ahead,
 *     so they read the recorded fingerprints a chunk at a time as well
 *     and keep no D, nor the list of their (correct) injections.  What
 *     still grows is SQLite's page cache, up to its 2 MB: the bound is
 *     3 MB (old code: about 12 MB).
 *   - The oracle matches against the whole set D of each configuration.
 *     The default configuration counts cycles (cycles:32), and a
 *     boundary can only match the recorded fingerprints of its own count,
 *     which grows through the run; so that D is kept on disk in order of
 *     the count (replayer/fpindex.h's fpi_counted) and read as the count
 *     grows, and each row's return address is read with it from the log
 *     instead of a list of 5 bytes per interrupt.  What grows is the page
 *     cache (2 MB) and the rows sorted in memory before they spill, 32
 *     bytes each up to 4 MB: 0.8 MB for 24,500 more.  The bound is the
 *     replay's, 3 MB.  The old code held D: its records (16 bytes), keys
 *     (8), slots and the sets of (key, return address) and (key, input
 *     key) pairs (each 16 bytes, at 2 to 4 slots per entry), its input
 *     keys (20 to 36), the list of return addresses and vectors (5) and,
 *     while it was built, the rows it was built from (72): up to 300
 *     bytes an interrupt, over 6 MB more at 4*10^7.
 */
#include "tests/testlib.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define GROWTH_LIMIT_KB 1024

/* Runs argv (argv[0] the program) with stdin from `input` (NULL: as it
 * is), stdout and stderr to /dev/null; returns its peak resident set in
 * KB, failing the test unless it exits 0. */
static long peak_rss_kb(char *const argv[], const char *input)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Under AddressSanitizer (make SAN=1), freed blocks wait in a
		 * quarantine of up to 256 MB, resident, which would count as
		 * growth: none, for this measure.  A plain build ignores it. */
		const char *asan = getenv("ASAN_OPTIONS");
		char opts[1024];
		snprintf(opts, sizeof opts, "%s%squarantine_size_mb=0:thread_local_quarantine_size_kb=0",
			 asan ? asan : "", asan && *asan ? ":" : "");
		if (setenv("ASAN_OPTIONS", opts, 1) || (input && !freopen(input, "r", stdin)) ||
		    !freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s %s exited with status %d", argv[0], argv[1], status);
	return ru.ru_maxrss;
}

static long record_rss_kb(const char *dir, const char *instructions)
{
	char out[256];
	snprintf(out, sizeof out, "%s/run-%s.db", dir, instructions);
	char *argv[] = { (char *)test_avrr(), "record", "traces/adcapp.elf", "--stimuli",
			 "traces/adcapp.stim", "--instructions", (char *)instructions, "-o", out,
			 "-q", NULL };
	return peak_rss_kb(argv, NULL);
}

#define REPLAY_GROWTH_LIMIT_KB (3 * 1024)

typedef enum { REPLAY, ORACLE, SHELL } reader;

/* The peak RSS of reading the recording of `instructions` (recorded
 * first) to its end. */
static long read_rss_kb(const char *dir, const char *instructions, unsigned long long n,
			reader how)
{
	char db_path[256], input[256];
	record_rss_kb(dir, instructions);
	snprintf(db_path, sizeof db_path, "%s/run-%s.db", dir, instructions);
	snprintf(input, sizeof input, "%s/shell-%s.txt", dir, instructions);
	if (how == SHELL) {
		FILE *f = fopen(input, "w");
		assert_non_null(f);
		fprintf(f, "goto %llu\nquit\n", n);
		assert_int_equal(fclose(f), 0);
	}
	char *argv[] = { (char *)test_avrr(), how == SHELL ? "shell" : "replay", db_path,
			 how == ORACLE ? "--oracle" : NULL, NULL };
	return peak_rss_kb(argv, how == SHELL ? input : NULL);
}

static void check_reader(void **state, reader how, const char *name, long limit_kb)
{
	test_scratch *s = *state;
	long short_kb = read_rss_kb(s->dir, "10M", 10000000ull, how);
	long long_kb = read_rss_kb(s->dir, "40M", 40000000ull, how);
	print_message("%s: peak RSS %ld KB at 10^7, %ld KB at 4*10^7 instructions\n", name,
		      short_kb, long_kb);
	if (long_kb - short_kb >= limit_kb)
		fail_msg("%s's peak RSS grew by %ld KB from 10^7 to 4*10^7 instructions (limit %ld KB)",
			 name, long_kb - short_kb, limit_kb);
}

static void test_replay_memory_flat(void **state)
{
	check_reader(state, REPLAY, "replay", REPLAY_GROWTH_LIMIT_KB);
}

static void test_shell_memory_flat(void **state)
{
	check_reader(state, SHELL, "shell to the end", REPLAY_GROWTH_LIMIT_KB);
}

static void test_oracle_memory_flat(void **state)
{
	check_reader(state, ORACLE, "oracle", REPLAY_GROWTH_LIMIT_KB);
}

static void test_record_memory_flat(void **state)
{
	test_scratch *s = *state;
	long short_kb = record_rss_kb(s->dir, "10M");
	long long_kb = record_rss_kb(s->dir, "40M");
	print_message("record: peak RSS %ld KB at 10^7, %ld KB at 4*10^7 instructions\n",
		      short_kb, long_kb);
	if (long_kb - short_kb >= GROWTH_LIMIT_KB)
		fail_msg("record's peak RSS grew by %ld KB from 10^7 to 4*10^7 instructions"
			 " (limit %d KB)", long_kb - short_kb, GROWTH_LIMIT_KB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record_memory_flat, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_replay_memory_flat, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_shell_memory_flat, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_oracle_memory_flat, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
