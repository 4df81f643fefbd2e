/*
 * bench.c — avrr's speed against plain simavr, side by side in one run.
 *
 * For each bundled firmware the baseline is simavr's own run loop (avr_run
 * with its stock callbacks, the same stimuli and seed) over a fixed number of
 * cycles; each measure of avrr covers the same firmware and cycles:
 *   record     `avrr record --fp none` (event log and ground truth)
 *   record-fp  `avrr record` with the default fingerprint configuration  The two
 * are measured alternately, REPS times, and the medians compared, so a noisy
 * machine slows both alike.  Output, one line per measurement:
 *
 *   bench <firmware> <measure> ratio=<ours/simavr> [key=value ...]
 *
 * Usage: bench AVRR_BINARY [INSTRUCTIONS]
 */
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
	double t0 = now();
	pid_t pid;
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) {
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
	int devnull = dup(1);
	freopen("/dev/null", "w", stdout);
	time_command(first);
	db *d;
	db_run run;
	if (db_open(db_path, 0, &d, &err) || db_get_run(d, &run, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	uint64_t cycles = run.cycles, events[DB_EV_COUNT], nev = 0;
	db_count_event_types(d, events, &err);
	for (int t = 0; t < DB_EV_COUNT; t++)
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
	fflush(stdout);
	dup2(devnull, 1);
	close(devnull);
	struct stat sb;
	stat(db_path, &sb);
	double o = median(ours, REPS), ofp = median(ours_fp, REPS), b = median(base, REPS);
	printf("bench %s record ratio=%.3f avrr_s=%.4f simavr_s=%.4f cycles=%llu "
	       "instructions=%llu events=%llu bytes_per_event=%.1f\n",
	       name, o / b, o, b, (unsigned long long)cycles, (unsigned long long)insns,
	       (unsigned long long)nev, (double)sb.st_size / (double)(nev ? nev : 1));
	printf("bench %s record-fp ratio=%.3f avrr_s=%.4f simavr_s=%.4f (default configuration)\n",
	       name, ofp / b, ofp, b);
	fflush(stdout);
	unlink(db_path);
	stim_free(script);
	free(text);
	fw_free(fw);
}

int main(int argc, char **argv)
{
	if (argc < 2 || sodium_init() < 0) {
		fprintf(stderr, "usage: bench AVRR_BINARY [INSTRUCTIONS]\n");
		return 2;
	}
	uint64_t insns = argc > 2 ? strtoull(argv[2], NULL, 0) : 20000000;
	char tmp[] = "/tmp/avrr-bench-XXXXXX";
	if (!mkdtemp(tmp))
		return 1;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
		bench_record(argv[1], FIRMWARE[f], insns, tmp);
	rmdir(tmp);
	return 0;
}
