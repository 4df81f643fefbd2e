/*
 * bench.c — avrr's speed against plain simavr, side by side in one run.
 *
 * For each bundled firmware the baseline is simavr's own run loop (avr_run
 * with its stock callbacks, the same stimuli and seed) over a fixed number of
 * cycles; each measure of avrr covers the same firmware and cycles:
 *   record     `avrr record --fp none` (event log and ground truth)
 *   record-fp  `avrr record` with the default fingerprint configuration
 *   replay     `avrr replay`: the fingerprint replay proper, with the
 *              default configuration and its default (sequence) matching
 *   oracle85   `avrr replay --oracle` over the paper's grid: its selector,
 *              ra = 0..16 of a 16-bit fingerprint, five hash functions
 *   validate   the check db_open makes of every row, as a share of replay
 * The two are measured alternately, REPS times; each run of ours is paired
 * with simavr's just before it, and the ratio is the median of the pairs'
 * ratios, so a slow spell of a noisy machine slows both sides of a pair.  Then, once, the shell's latency:
 *   reverse-stepi  `avrr shell` over a 10^8-instruction recording of
 *                  funcsheap: the time from sending `reverse-stepi` at a
 *                  random position to its answer, and the memory of the
 *                  checkpoints (their proportional set size) afterwards;
 *   reverse-continue-watch  the same for `reverse-continue` back to the last
 *                  write of a watched variable (g_presses, INT0's).
 * Output, one line per measurement:
 *
 *   bench <firmware> <measure> ratio=<ours/simavr> [key=value ...]
 *
 * With --scale (make bench-scale), instead, how each bundled firmware's
 * recording grows with its length, 10^6 to 10^9 instructions by default:
 * the time and peak RSS of `avrr record` and `avrr replay`, the file's
 * size, and the shell's (open, go to the end laying checkpoints, one
 * reverse-stepi) with its checkpoints' memory.  Single runs: the growth,
 * not a ratio, is the point.
 *
 *   bench <firmware> scale instructions=<n> record_s=... record_rss_mb=... ...
 *
 * With --travel (make bench-travel), travel against a plain replay on
 * adcapp (10^8 instructions by default): the wall time of `avrr replay`,
 * and in `avrr shell` of `goto END` from the start, `continue` from the
 * start to the end, `reverse-continue` from the end back to init's write
 * of TIMSK (a watch on data 0x59), each with its ratio to the replay; and
 * `reverse-stepi` after a `goto` to random positions, median and p99.
 *
 *   bench adcapp travel instructions=<n> replay_s=... goto_end_ratio=... ...
 *
 * Usage: bench AVRR_BINARY [INSTRUCTIONS [REVERSE_INSTRUCTIONS]]
 *        bench AVRR_BINARY --scale [INSTRUCTIONS ...]
 *        bench AVRR_BINARY --travel [INSTRUCTIONS [SAMPLES]]
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "sim/sim.h"
#include "util/file.h"

#define REPS 5

extern char **environ;

static const char *const FIRMWARE[] = { "adcapp", "funcsheap", "funcsheap_noloop" };

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

/* simavr's own loop over `cycles`, with the firmware's stimuli. */
static double time_simavr(const firmware *fw, const stim_script *script, uint64_t cycles)
{
	avrr_err err;
	sim *s;
	if (sim_open(fw, NULL, 0, &s, &err) || sim_attach_stimuli(s, script, 1, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	double t0 = now();
	sim_run_plain(s, cycles);
	double t = now() - t0;
	sim_close(s);
	return t;
}

/* Runs argv to completion; returns its wall time and, when rss_mb is
 * given, its peak resident set size; exits on failure. */
static double run_command(char *const argv[], double *rss_mb)
{
	posix_spawn_file_actions_t quiet;  /* its reports go to /dev/null */
	posix_spawn_file_actions_init(&quiet);
	posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
	double t0 = now();
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &quiet, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&quiet);
	if (rc != 0) {
		perror(argv[0]);
		exit(1);
	}
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	double t = now() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench: %s %s failed\n", argv[0], argv[1]);
		exit(1);
	}
	if (rss_mb)
		*rss_mb = (double)ru.ru_maxrss / 1024.0;
	return t;
}

static double time_command(char *const argv[])
{
	return run_command(argv, NULL);
}

/* The median ratio of paired runs, ours[i] / base[i]. */
static double paired_ratio(const double *ours, const double *base, int n)
{
	double r[REPS];
	for (int i = 0; i < n; i++)
		r[i] = ours[i] / base[i];
	return median(r, n);
}

/* `reps` (<= REPS) alternating runs of simavr's own loop and of argv: the
 * median paired ratio, and each side's median time. */
static double versus_simavr(char *const argv[], const firmware *fw, const stim_script *script,
			    uint64_t cycles, int reps, double *ours, double *base)
{
	double o[REPS], b[REPS];
	for (int i = 0; i < reps; i++) {
		b[i] = time_simavr(fw, script, cycles);
		o[i] = time_command(argv);
	}
	double ratio = paired_ratio(o, b, reps);
	*ours = median(o, reps);
	*base = median(b, reps);
	return ratio;
}

/* The oracle over the paper's whole grid (seed 004, Figs. 5-7): its
 * selector, every split of a 16-bit fingerprint (ra = 0..16 bits) under each
 * of the five hash functions, 85 configurations in one pass. */
#define ORACLE_RA 17
#define ORACLE_CONFIGS (ORACLE_RA * 5)

static void oracle_specs(const char *default_sel, char specs[ORACLE_CONFIGS][320])
{
	static const char *const hashes[] = { "modular", "twomod", "jenkins", "knuth", "rr" };
	int n = 0;
	for (int h = 0; h < 5; h++)
		for (int ra = 0; ra < ORACLE_RA; ra++, n++)
			snprintf(specs[n], sizeof specs[n], "o%d:sel=%s,hash=%s,ra=%d,width=16",
				 n + 1, default_sel, hashes[h], ra);
}

/* Validation at open, which reads every row: its share of a replay of the
 * same recording (replay_s, avrr's median above), which pays it once. */
static void bench_validate(const char *name, const char *db_path, double replay_s)
{
	double t[REPS];
	for (int i = 0; i < REPS; i++) {
		db *d;
		avrr_err err;
		double t0 = now();
		if (db_open(db_path, 0, &d, &err)) {
			fprintf(stderr, "bench: %s\n", err.msg);
			exit(1);
		}
		t[i] = now() - t0;
		db_close(d);
	}
	double v = median(t, REPS);
	printf("bench %s validate share=%.4f validate_s=%.4f replay_s=%.4f (db_open's check of"
	       " every row, as a share of the replay)\n", name, v / replay_s, v, replay_s);
	fflush(stdout);
}

/* Fingerprint replay with the default configuration, and the oracle with
 * 64 over the paper's selector, each against simavr over the recording's
 * cycles. */
static void bench_replay(const char *avrr, const char *name, char *db_path, char *const record[],
			 const firmware *fw, const stim_script *script, uint64_t cycles)
{
	time_command(record);  /* a recording with the default configuration */
	char sel[256];
	if (fp_frequency_selector(fw, ioregs_lookup(fw->mcu), 0, 3, "SPL+SPH+SREG", sel,
				  sizeof sel)) {
		fprintf(stderr, "bench: cannot rank the registers of %s\n", name);
		exit(1);
	}

	static char specs[ORACLE_CONFIGS][320];
	char *add[3 + 2 * ORACLE_CONFIGS + 1], *oracle[4 + 2 * ORACLE_CONFIGS + 1];
	int na = 0, no = 0;
	oracle_specs(sel, specs);
	add[na++] = (char *)avrr;
	add[na++] = "fingerprint";
	add[na++] = db_path;
	oracle[no++] = (char *)avrr;
	oracle[no++] = "replay";
	oracle[no++] = db_path;
	oracle[no++] = "--oracle";
	for (int i = 0; i < ORACLE_CONFIGS; i++) {
		add[na++] = "--fp";
		add[na++] = specs[i];
		oracle[no++] = "--fp";
		oracle[no++] = strndup(specs[i], (size_t)(strchr(specs[i], ':') - specs[i]));
	}
	add[na] = oracle[no] = NULL;
	/* The default configuration replays the bundled firmware exactly: the
	 * replay covers the whole recorded run (versus_simavr checks its exit
	 * status). */
	char *replay[] = { (char *)avrr, "replay", db_path, NULL };
	double ours, base, ratio = versus_simavr(replay, fw, script, cycles, REPS, &ours, &base);
	printf("bench %s replay ratio=%.3f avrr_s=%.4f simavr_s=%.4f (the default configuration, "
	       "sequence matching)\n",
	       name, ratio, ours, base);
	fflush(stdout);
	bench_validate(name, db_path, ours);
	time_command(add);
	/* Three runs, not five: each is long; but one would leave the
	 * ratio to whatever else the machine did meanwhile. */
	ratio = versus_simavr(oracle, fw, script, cycles, 3, &ours, &base);
	printf("bench %s oracle85 ratio=%.3f avrr_s=%.4f simavr_s=%.4f (17 ra splits x 5 hash "
	       "functions, one pass)\n", name, ratio, ours, base);
	fflush(stdout);
	for (int i = 4; i < no; i += 2)
		free(oracle[i + 1]);
}

static void bench_record(const char *avrr, const char *name, uint64_t insns, const char *tmp)
{
	char elf[128], stim[128], db_path[256], cyc[32], ins[32];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	snprintf(db_path, sizeof db_path, "%s/%s.db", tmp, name);
	avrr_err err;
	firmware *fw;
	stim_script *script;
	char *text = util_read_text(stim, &err);
	if (!text || fw_load_file(elf, &fw, &err) || stim_parse(text, stim, &script, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	/* Find the cycle count of `insns` instructions with a first recording. */
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	char *first[] = { (char *)avrr, "record", elf, "--stimuli", stim, "--seed", "1",
			  "--instructions", ins, "--quiet", "-o", db_path, NULL };
	time_command(first);
	db *d;
	db_run run;
	if (db_open(db_path, 0, &d, &err) || db_get_run(d, &run, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	uint64_t cycles = run.cycles, events[TRACE_COUNT], nev = 0;
	db_count_event_types(d, events, &err);
	for (int t = 0; t < TRACE_COUNT; t++)
		nev += events[t];
	db_run_free(&run);
	db_close(d);
	snprintf(cyc, sizeof cyc, "%llu", (unsigned long long)cycles);
	char *rec[] = { (char *)avrr, "record", elf, "--stimuli", stim, "--seed", "1",
			"--cycles", cyc, "--fp", "none", "--quiet", "-o", db_path, NULL };
	char *rec_fp[] = { (char *)avrr, "record", elf, "--stimuli", stim, "--seed", "1",
			   "--cycles", cyc, "--quiet", "-o", db_path, NULL };
	double ours[REPS], ours_fp[REPS], base[REPS];
	struct stat sb, sb_fp;  /* each kind's file, for bytes_per_event */
	for (int i = 0; i < REPS; i++) {
		base[i] = time_simavr(fw, script, cycles);
		ours_fp[i] = time_command(rec_fp);
		stat(db_path, &sb_fp);
		ours[i] = time_command(rec);
		stat(db_path, &sb);
	}
	double r = paired_ratio(ours, base, REPS), rfp = paired_ratio(ours_fp, base, REPS);
	double o = median(ours, REPS), ofp = median(ours_fp, REPS), b = median(base, REPS);
	double per = (double)(nev ? nev : 1);
	printf("bench %s record ratio=%.3f avrr_s=%.4f simavr_s=%.4f cycles=%llu "
	       "instructions=%llu events=%llu bytes_per_event=%.1f (no fingerprints)\n",
	       name, r, o, b, (unsigned long long)cycles, (unsigned long long)insns,
	       (unsigned long long)nev, (double)sb.st_size / per);
	printf("bench %s record-fp ratio=%.3f avrr_s=%.4f simavr_s=%.4f bytes_per_event=%.1f"
	       " (default configuration)\n", name, rfp, ofp, b, (double)sb_fp.st_size / per);
	fflush(stdout);
	bench_replay(avrr, name, db_path, first, fw, script, cycles);
	unlink(db_path);
	stim_free(script);
	free(text);
	fw_free(fw);
}

/* Sends a command line to the shell and waits for its answer (the shell
 * echoes a marker after it); returns the seconds it took. */
/* An `avrr shell` driven through pipes. */
typedef struct shell {
	FILE *to, *from;
	pid_t pid;
	char last[512];  /* the last line of the latest answer */
} shell;

static void shell_open(shell *sh, char *const argv[])
{
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		exit(1);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	if (posix_spawn(&sh->pid, argv[0], &fa, NULL, argv, environ)) {
		perror(argv[0]);
		exit(1);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	sh->to = fdopen(in[1], "w");
	sh->from = fdopen(out[0], "r");
}

/* Sends cmd and reads its whole answer; returns the time it took. */
static double shell_command(shell *sh, const char *cmd)
{
	char line[512];
	double t0 = now();
	fprintf(sh->to, "%s\necho @@\n", cmd);
	fflush(sh->to);
	sh->last[0] = 0;
	while (fgets(line, sizeof line, sh->from) && strcmp(line, "@@\n"))
		snprintf(sh->last, sizeof sh->last, "%s", line);
	return now() - t0;
}

/* `info checkpoints`: how many, and their proportional set size. */
static void shell_checkpoints(shell *sh, unsigned *n, double *mb)
{
	char line[512] = "";
	*n = 0;
	*mb = 0;
	fprintf(sh->to, "info checkpoints\necho @@\n");
	fflush(sh->to);
	if (fgets(line, sizeof line, sh->from))
		sscanf(line, "%u checkpoints, %lf MB", n, mb);
	while (strcmp(line, "@@\n") && fgets(line, sizeof line, sh->from))
		;
}

/* Quits the shell; returns its peak resident set size in MB. */
static double shell_close(shell *sh)
{
	char line[512];
	fprintf(sh->to, "quit\n");
	fclose(sh->to);
	while (fgets(line, sizeof line, sh->from))
		;
	fclose(sh->from);
	struct rusage ru;
	wait4(sh->pid, NULL, 0, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static void bench_reverse(const char *avrr, const char *tmp, uint64_t insns)
{
	char db_path[256], ins[32], cmd[64];
	snprintf(db_path, sizeof db_path, "%s/reverse.db", tmp);
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	/* The default configuration, which replays funcsheap faithfully to the
	 * end: a configuration that diverges first would end every motion
	 * past its divergence there. */
	char *rec[] = { (char *)avrr, "record", "traces/funcsheap.elf", "--stimuli",
			"traces/funcsheap.stim", "--instructions", ins, "--quiet", "-o", db_path, NULL };
	time_command(rec);
	char *argv[] = { (char *)avrr, "shell", db_path, NULL };
	shell sh;
	shell_open(&sh, argv);
	/* Run to the end once: that lays the checkpoints. */
	snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)insns);
	shell_command(&sh, cmd);
	enum { SAMPLES = 100 };
	double t[SAMPLES];
	uint64_t seed = 7;
	for (int i = 0; i < SAMPLES; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)(1 + (seed >> 11) % (insns - 1)));
		shell_command(&sh, cmd);
		t[i] = shell_command(&sh, "reverse-stepi") * 1000.0;
	}
	/* reverse-continue to a watchpoint: back to the last button press
	 * (INT0 writes g_presses) from random positions. */
	enum { WATCHES = 10 };
	double tw[WATCHES];
	shell_command(&sh, "watch g_presses");
	for (int i = 0; i < WATCHES; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)(1 + (seed >> 11) % (insns - 1)));
		shell_command(&sh, cmd);
		tw[i] = shell_command(&sh, "reverse-continue") * 1000.0;
	}
	shell_command(&sh, "delete");
	qsort(tw, WATCHES, sizeof *tw, cmp_double);
	double mb;
	unsigned nck;
	shell_checkpoints(&sh, &nck, &mb);
	shell_close(&sh);
	unlink(db_path);
	qsort(t, SAMPLES, sizeof *t, cmp_double);
	printf("bench funcsheap reverse-stepi median_ms=%.1f p99_ms=%.1f checkpoint_mb=%.1f "
	       "checkpoints=%u instructions=%llu samples=%d\n",
	       t[SAMPLES / 2], t[SAMPLES * 99 / 100], mb, nck, (unsigned long long)insns, SAMPLES);
	printf("bench funcsheap reverse-continue-watch median_ms=%.1f max_ms=%.1f instructions=%llu "
	       "samples=%d (watch g_presses)\n", tw[WATCHES / 2], tw[WATCHES - 1],
	       (unsigned long long)insns, WATCHES);
	fflush(stdout);
}

/* One firmware recorded for `insns` instructions, with the default
 * configuration: record, replay and the shell, each once. */
static void bench_scale(const char *avrr, const char *name, uint64_t insns, const char *tmp)
{
	char elf[128], stim[128], db_path[256], ins[32], cmd[64];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	snprintf(db_path, sizeof db_path, "%s/%s.db", tmp, name);
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	char *rec[] = { (char *)avrr, "record", elf, "--stimuli", stim, "--instructions", ins,
			"--quiet", "-o", db_path, NULL };
	char *rep[] = { (char *)avrr, "replay", db_path, NULL };
	char *argv[] = { (char *)avrr, "shell", db_path, NULL };
	double rec_rss, rep_rss;
	double rec_s = run_command(rec, &rec_rss);
	struct stat st;
	if (stat(db_path, &st))
		exit(1);
	double rep_s = run_command(rep, &rep_rss);
	shell sh;
	double t0 = now();
	shell_open(&sh, argv);
	snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)insns);
	shell_command(&sh, cmd);
	double back_ms = shell_command(&sh, "reverse-stepi") * 1000.0;
	double mb;
	unsigned nck;
	shell_checkpoints(&sh, &nck, &mb);
	double sh_rss = shell_close(&sh);
	double sh_s = now() - t0;
	unlink(db_path);
	printf("bench %s scale instructions=%llu record_s=%.2f record_rss_mb=%.1f file_mb=%.1f "
	       "replay_s=%.2f replay_rss_mb=%.1f shell_s=%.2f shell_rss_mb=%.1f "
	       "reverse_stepi_ms=%.1f checkpoints=%u checkpoint_mb=%.1f\n",
	       name, (unsigned long long)insns, rec_s, rec_rss, (double)st.st_size / 1048576.0,
	       rep_s, rep_rss, sh_s, sh_rss, back_ms, nck, mb);
	fflush(stdout);
}

/* Travel on adcapp against a plain replay of the same span (see the top). */
static void bench_travel(const char *avrr, const char *tmp, uint64_t insns, int samples)
{
	char db_path[256], ins[32], cmd[64];
	snprintf(db_path, sizeof db_path, "%s/travel.db", tmp);
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	char *rec[] = { (char *)avrr, "record", "traces/adcapp.elf", "--stimuli",
			"traces/adcapp.stim", "--instructions", ins, "--quiet", "-o", db_path, NULL };
	char *rep[] = { (char *)avrr, "replay", db_path, NULL };
	char *argv[] = { (char *)avrr, "shell", db_path, NULL };
	time_command(rec);
	double replay_s = time_command(rep);
	shell sh;
	shell_open(&sh, argv);
	shell_command(&sh, "echo");  /* opened: the recording loaded */
	double cont_s = shell_command(&sh, "continue");
	shell_close(&sh);
	shell_open(&sh, argv);
	shell_command(&sh, "echo");
	snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)insns);
	double goto_s = shell_command(&sh, cmd);
	shell_command(&sh, "watch 0x59");
	double rc_s = shell_command(&sh, "reverse-continue");
	shell_command(&sh, "delete");
	double *t = calloc((size_t)samples, sizeof *t);
	uint64_t seed = 11;
	for (int i = 0; t && i < samples; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)(1 + (seed >> 11) % (insns - 1)));
		shell_command(&sh, cmd);
		t[i] = shell_command(&sh, "reverse-stepi") * 1000.0;
	}
	shell_close(&sh);
	unlink(db_path);
	if (!t)
		exit(1);
	qsort(t, (size_t)samples, sizeof *t, cmp_double);
	printf("bench adcapp travel instructions=%llu replay_s=%.2f goto_end_s=%.2f goto_end_ratio=%.2f "
	       "continue_s=%.2f continue_ratio=%.2f reverse_continue_watch_s=%.2f "
	       "reverse_continue_watch_ratio=%.2f (watch TIMSK, written in init)\n",
	       (unsigned long long)insns, replay_s, goto_s, goto_s / replay_s, cont_s,
	       cont_s / replay_s, rc_s, rc_s / replay_s);
	printf("bench adcapp travel-reverse-stepi median_ms=%.1f p99_ms=%.1f samples=%d "
	       "instructions=%llu\n", t[samples / 2], t[samples - 1 - samples / 100], samples,
	       (unsigned long long)insns);
	fflush(stdout);
	free(t);
}

int main(int argc, char **argv)
{
	if (argc < 2 || sodium_init() < 0) {
		fprintf(stderr, "usage: bench AVRR_BINARY [INSTRUCTIONS [REVERSE_INSTRUCTIONS]]\n"
				"       bench AVRR_BINARY --scale [INSTRUCTIONS ...]\n"
				"       bench AVRR_BINARY --travel [INSTRUCTIONS [SAMPLES]]\n");
		return 2;
	}
	char tmp[] = "/tmp/avrr-bench-XXXXXX";
	if (!mkdtemp(tmp))
		return 1;
	if (argc > 2 && !strcmp(argv[2], "--scale")) {
		static const uint64_t lengths[] = { 1000000, 10000000, 100000000, 1000000000 };
		int n = argc > 3 ? argc - 3 : (int)(sizeof lengths / sizeof *lengths);
		for (int i = 0; i < n; i++)
			for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
				bench_scale(argv[1], FIRMWARE[f],
					    argc > 3 ? strtoull(argv[3 + i], NULL, 0) : lengths[i], tmp);
		rmdir(tmp);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "--travel")) {
		bench_travel(argv[1], tmp, argc > 3 ? strtoull(argv[3], NULL, 0) : 100000000,
			     argc > 4 ? atoi(argv[4]) : 100);
		rmdir(tmp);
		return 0;
	}
	uint64_t insns = argc > 2 ? strtoull(argv[2], NULL, 0) : 20000000;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
		bench_record(argv[1], FIRMWARE[f], insns, tmp);
	bench_reverse(argv[1], tmp, argc > 3 ? strtoull(argv[3], NULL, 0) : 100000000);
	rmdir(tmp);
	return 0;
}
