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
 * Usage: bench AVRR_BINARY [INSTRUCTIONS [REVERSE_INSTRUCTIONS]]
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Runs argv to completion; returns its wall time, exits on failure. */
static double time_command(char *const argv[])
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
	waitpid(pid, &st, 0);
	double t = now() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench: %s %s failed\n", argv[0], argv[1]);
		exit(1);
	}
	return t;
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
			  "--instructions", ins, "-o", db_path, NULL };
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
			"--cycles", cyc, "--fp", "none", "-o", db_path, NULL };
	char *rec_fp[] = { (char *)avrr, "record", elf, "--stimuli", stim, "--seed", "1",
			   "--cycles", cyc, "-o", db_path, NULL };
	double ours[REPS], ours_fp[REPS], base[REPS];
	for (int i = 0; i < REPS; i++) {
		base[i] = time_simavr(fw, script, cycles);
		ours_fp[i] = time_command(rec_fp);
		ours[i] = time_command(rec);  /* last, so its file gives bytes_per_event */
	}
	struct stat sb;
	stat(db_path, &sb);
	double r = paired_ratio(ours, base, REPS), rfp = paired_ratio(ours_fp, base, REPS);
	double o = median(ours, REPS), ofp = median(ours_fp, REPS), b = median(base, REPS);
	printf("bench %s record ratio=%.3f avrr_s=%.4f simavr_s=%.4f cycles=%llu "
	       "instructions=%llu events=%llu bytes_per_event=%.1f\n",
	       name, r, o, b, (unsigned long long)cycles, (unsigned long long)insns,
	       (unsigned long long)nev, (double)sb.st_size / (double)(nev ? nev : 1));
	printf("bench %s record-fp ratio=%.3f avrr_s=%.4f simavr_s=%.4f (default configuration)\n",
	       name, rfp, ofp, b);
	fflush(stdout);
	bench_replay(avrr, name, db_path, first, fw, script, cycles);
	unlink(db_path);
	stim_free(script);
	free(text);
	fw_free(fw);
}

/* Sends a command line to the shell and waits for its answer (the shell
 * echoes a marker after it); returns the seconds it took. */
static double shell_command(FILE *to, FILE *from, const char *cmd, char *last, size_t n)
{
	char line[512];
	double t0 = now();
	fprintf(to, "%s\necho @@\n", cmd);
	fflush(to);
	last[0] = 0;
	while (fgets(line, sizeof line, from) && strcmp(line, "@@\n"))
		snprintf(last, n, "%s", line);
	return now() - t0;
}

static void bench_reverse(const char *avrr, const char *tmp, uint64_t insns)
{
	char db_path[256], ins[32];
	snprintf(db_path, sizeof db_path, "%s/reverse.db", tmp);
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	/* A configuration that replays funcsheap faithfully (docs/replay.md). */
	char *rec[] = { (char *)avrr, "record", "traces/funcsheap.elf", "--stimuli",
			"traces/funcsheap.stim", "--instructions", ins, "--fp",
			"flags:sel=SPL+SPH+SREG+TIFR+GIFR+UCSRA+ADCSRA+r24+r25+r30,width=32",
			"-o", db_path, NULL };
	time_command(rec);
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		exit(1);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	char *sh[] = { (char *)avrr, "shell", db_path, "--fp", "flags", "--match", "sequence", NULL };
	pid_t pid;
	if (posix_spawn(&pid, avrr, &fa, NULL, sh, environ)) {
		perror(avrr);
		exit(1);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	FILE *to = fdopen(in[1], "w"), *from = fdopen(out[0], "r");
	char last[512], cmd[64];
	/* Run to the end once: that lays the checkpoints. */
	snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)insns);
	shell_command(to, from, cmd, last, sizeof last);
	enum { SAMPLES = 100 };
	double t[SAMPLES];
	uint64_t seed = 7;
	for (int i = 0; i < SAMPLES; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)(1 + (seed >> 11) % (insns - 1)));
		shell_command(to, from, cmd, last, sizeof last);
		t[i] = shell_command(to, from, "reverse-stepi", last, sizeof last) * 1000.0;
	}
	/* reverse-continue to a watchpoint: back to the last button press
	 * (INT0 writes g_presses) from random positions. */
	enum { WATCHES = 10 };
	double tw[WATCHES];
	shell_command(to, from, "watch g_presses", last, sizeof last);
	for (int i = 0; i < WATCHES; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)(1 + (seed >> 11) % (insns - 1)));
		shell_command(to, from, cmd, last, sizeof last);
		tw[i] = shell_command(to, from, "reverse-continue", last, sizeof last) * 1000.0;
	}
	shell_command(to, from, "delete", last, sizeof last);
	qsort(tw, WATCHES, sizeof *tw, cmp_double);
	/* The summary is the first line of the answer. */
	fprintf(to, "info checkpoints\necho @@\n");
	fflush(to);
	double mb = 0;
	unsigned nck = 0;
	char line[512];
	if (fgets(line, sizeof line, from))
		sscanf(line, "%u checkpoints, %lf MB", &nck, &mb);
	while (strcmp(line, "@@\n") && fgets(line, sizeof line, from))
		;
	fprintf(to, "quit\n");
	fclose(to);
	while (fgets(line, sizeof line, from))
		;
	fclose(from);
	waitpid(pid, NULL, 0);
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

int main(int argc, char **argv)
{
	if (argc < 2 || sodium_init() < 0) {
		fprintf(stderr, "usage: bench AVRR_BINARY [INSTRUCTIONS [REVERSE_INSTRUCTIONS]]\n");
		return 2;
	}
	uint64_t insns = argc > 2 ? strtoull(argv[2], NULL, 0) : 20000000;
	char tmp[] = "/tmp/avrr-bench-XXXXXX";
	if (!mkdtemp(tmp))
		return 1;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
		bench_record(argv[1], FIRMWARE[f], insns, tmp);
	bench_reverse(argv[1], tmp, argc > 3 ? strtoull(argv[3], NULL, 0) : 100000000);
	rmdir(tmp);
	return 0;
}
