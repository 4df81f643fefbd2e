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
 * Each line times runs of at least two seconds: the firmware runs 10^8
 * instructions, or more where plain simavr needs more to take 2 s (the
 * count is calibrated per firmware).  The two are measured alternately,
 * REPS times; each run of ours is paired with simavr's just before it, and
 * the line gives the median of the pairs' ratios with their min and max, so
 * a slow spell of a noisy machine slows both sides of a pair.  Wall time
 * still moves with the machine's load; so each line also gives the ratio of
 * host instructions retired by the same runs (the timed length, or
 * CALLGRIND_INSTRUCTIONS when given), counted by callgrind, both sides as
 * whole processes with all their threads, one per processor at a time.  It
 * counts whole runs, not a window of them: a firmware whose states are new
 * on a first pass and repeat after (funcsheap's delay loop) costs the
 * oracle more early than late, and an early window judged it by its first
 * pass (2.744 at 10^6..2*10^6 against 1.924 for the whole 10^8).  That
 * count does not vary with load: it is the judged figure, and each target
 * is checked against it (a check mark or a cross).
 * Then, once, the shell's latency:
 * Output, one line per measurement:
 *
 *   bench <firmware> <measure> ratio=<median> min=<x> max=<x> insn_ratio=<x>
 *         target<=<x> <check mark or cross> [key=value ...]
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
 * of TIMSK (a watch on data 0x59), each with its ratio to the replay; the
 * same `continue` and `reverse-continue` through stock avr-gdb (`avrr gdb
 * -batch`), against a replay timed again just before; and `reverse-stepi`
 * after a `goto` to random positions, median and p99.
 *
 *   bench adcapp travel instructions=<n> replay_s=... goto_end_ratio=... ...
 *   bench adcapp travel-gdb instructions=<n> replay_s=... continue_ratio=... ...
 *
 * Usage: bench AVRR_BINARY [INSTRUCTIONS [REVERSE_INSTRUCTIONS [CALLGRIND_INSTRUCTIONS]]]
 *        bench AVRR_BINARY --scale [INSTRUCTIONS ...]
 *        bench AVRR_BINARY --callgrind [CALLGRIND_INSTRUCTIONS]   (the counts alone)
 *        bench --plain ELF STIMULI CYCLES   (simavr's own loop alone, for callgrind)
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

/* What the measures of one firmware share. */
typedef struct bench_ctx {
	const char *avrr;   /* the binary measured */
	const char *self;   /* this program, run again as --plain under callgrind */
	const char *tmp;    /* a directory of our own for the recordings */
	uint64_t insns;     /* the timed runs' least length in instructions */
	uint64_t cg_insns;  /* the callgrind runs' length in instructions (0: the timed one) */
	int met, judged;    /* targets met, and checked, so far */
} bench_ctx;

/* Wall-time ratios of runs paired with simavr's just before them. */
typedef struct ratios {
	double med, min, max;  /* of the pairs' ratios, ours[i] / base[i] */
	double ours, base;     /* each side's median seconds */
} ratios;

static ratios paired(const double *ours, const double *base, int n)
{
	double r[REPS], o[REPS], b[REPS];
	for (int i = 0; i < n; i++) {
		r[i] = ours[i] / base[i];
		o[i] = ours[i];
		b[i] = base[i];
	}
	ratios w = { .ours = median(o, n), .base = median(b, n) };
	w.med = median(r, n);  /* sorts r */
	w.min = r[0];
	w.max = r[n - 1];
	return w;
}

/* REPS alternating runs of simavr's own loop and of argv. */
static ratios versus_simavr(char *const argv[], const firmware *fw, const stim_script *script,
			    uint64_t cycles)
{
	double o[REPS], b[REPS];
	for (int i = 0; i < REPS; i++) {
		b[i] = time_simavr(fw, script, cycles);
		o[i] = time_command(argv);
	}
	return paired(o, b, REPS);
}

/* A process under callgrind, its stderr (where the count comes) on a pipe. */
typedef struct cg_job {
	char *const *argv;
	pid_t pid;
	FILE *err;
	double count;
} cg_job;

static void cg_start(cg_job *j)
{
	int n = 0;
	while (j->argv[n])
		n++;
	char **vg = calloc((size_t)n + 4, sizeof *vg);
	if (!vg)
		exit(1);
	vg[0] = "valgrind";
	vg[1] = "--tool=callgrind";
	vg[2] = "--callgrind-out-file=/dev/null";
	memcpy(vg + 3, j->argv, (size_t)n * sizeof *vg);
	int fd[2];
	if (pipe(fd))
		exit(1);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	int rc = posix_spawnp(&j->pid, vg[0], &fa, NULL, vg, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(vg);
	close(fd[1]);
	if (rc != 0) {
		fprintf(stderr, "bench: cannot run valgrind (scripts/install-deps.sh installs it)\n");
		exit(1);
	}
	j->err = fdopen(fd[0], "r");
}

/* Reads j's count ("Collected" total) to the end of its stderr, then reaps
 * it; exits when the run failed. */
static void cg_finish(cg_job *j)
{
	char line[1024];
	j->count = -1;
	while (fgets(line, sizeof line, j->err)) {
		const char *c = strstr(line, "Collected : ");
		if (c)
			j->count = strtod(c + 12, NULL);
	}
	fclose(j->err);
	int st;
	waitpid(j->pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || j->count <= 0) {
		fprintf(stderr, "bench: callgrind of %s %s failed\n", j->argv[0], j->argv[1]);
		exit(1);
	}
}

/* The host instructions each job's argv retires, its whole process and all
 * its threads, as callgrind counts them, into jobs[i].count; up to `slots`
 * at once (a count does not depend on what else runs).  Job i starts once
 * job after[i] (< i, or -1 for none) has ended.  Jobs are reaped in the
 * order they start: the simplest schedule, and list order decides it. */
static void callgrind_all(cg_job *jobs, const int *after, int n, int slots)
{
	int started = 0, finished = 0;
	while (finished < n) {
		if (started < n && started - finished < slots && after[started] < finished)
			cg_start(&jobs[started++]);
		else
			cg_finish(&jobs[finished++]);
	}
}

/* One line: the wall ratios, and the judged instruction ratio and its
 * target. */
static void report(bench_ctx *c, const char *name, const char *measure, const ratios *w,
		   double insn_ratio, double target, const char *what)
{
	int ok = insn_ratio <= target;
	c->met += ok;
	c->judged++;
	printf("bench %s %s ratio=%.3f min=%.3f max=%.3f insn_ratio=%.3f target<=%.2f %s "
	       "avrr_s=%.3f simavr_s=%.3f (%s)\n", name, measure, w->med,
	       w->min, w->max, insn_ratio, target, ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97",
	       w->ours, w->base, what);
	fflush(stdout);
}

/* The oracle over the paper's whole grid (seed 004, Figs. 5-7): its
 * selector, every split of a 16-bit fingerprint (ra = 0..16 bits) under each
 * of the five hash functions, 85 configurations in one pass. */
#define ORACLE_RA 17
#define ORACLE_CONFIGS (ORACLE_RA * 5)

/* The command lines that add the 85 configurations to db_path and replay
 * them with the oracle; free them with oracle_free. */
typedef struct oracle_cmds {
	char specs[ORACLE_CONFIGS][320];
	char *add[3 + 2 * ORACLE_CONFIGS + 1], *run[4 + 2 * ORACLE_CONFIGS + 1];
} oracle_cmds;

static void oracle_init(oracle_cmds *o, const char *avrr, const char *sel, char *db_path)
{
	static const char *const hashes[] = { "modular", "twomod", "jenkins", "knuth", "rr" };
	int na = 0, no = 0;
	o->add[na++] = (char *)avrr;
	o->add[na++] = "fingerprint";
	o->add[na++] = db_path;
	o->run[no++] = (char *)avrr;
	o->run[no++] = "replay";
	o->run[no++] = db_path;
	o->run[no++] = "--oracle";
	for (int h = 0, n = 0; h < 5; h++)
		for (int ra = 0; ra < ORACLE_RA; ra++, n++) {
			snprintf(o->specs[n], sizeof o->specs[n], "o%d:sel=%s,hash=%s,ra=%d,width=16",
				 n + 1, sel, hashes[h], ra);
			o->add[na++] = "--fp";
			o->add[na++] = o->specs[n];
			o->run[no++] = "--fp";
			o->run[no++] = strndup(o->specs[n],
					       (size_t)(strchr(o->specs[n], ':') - o->specs[n]));
		}
	o->add[na] = o->run[no] = NULL;
}

static void oracle_free(oracle_cmds *o)
{
	for (int i = 5; o->run[i - 1]; i += 2)
		free(o->run[i]);
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

/* Records `ins` instructions of elf without fingerprints into db_path;
 * returns the run's cycles and, when events is given, its event count. */
static uint64_t record_length(const char *avrr, const char *elf, const char *stim,
			      uint64_t insns, char *db_path, uint64_t *events)
{
	char ins[32];
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	char *first[] = { (char *)avrr, "record", (char *)elf, "--stimuli", (char *)stim,
			  "--seed", "1", "--instructions", ins, "--fp", "none", "--quiet",
			  "-o", db_path, NULL };
	time_command(first);
	avrr_err err;
	db *d;
	db_run run;
	if (db_open(db_path, 0, &d, &err) || db_get_run(d, &run, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	uint64_t cycles = run.cycles, counts[TRACE_COUNT], nev = 0;
	db_count_event_types(d, counts, &err);
	for (int t = 0; t < TRACE_COUNT; t++)
		nev += counts[t];
	db_run_free(&run);
	db_close(d);
	if (events)
		*events = nev;
	return cycles;
}

/* The measures callgrind counts: plain simavr, then the longest, so that
 * the two run side by side; the replay reads record-fp's recording. */
enum { CG_PLAIN, CG_ORACLE, CG_RECORD, CG_RECORD_FP, CG_REPLAY, CG_COUNT };

/* Each measure's host instructions over plain simavr's, whole processes
 * running `insns` instructions of the firmware (as cycles). */
static void count_instructions(bench_ctx *c, const char *elf, const char *stim, const char *sel,
			       uint64_t insns, double ratio[CG_COUNT])
{
	char oracle_db[256], rec_db[256], fp_db[256], cyc[32];
	snprintf(oracle_db, sizeof oracle_db, "%s/cg-oracle.db", c->tmp);
	snprintf(rec_db, sizeof rec_db, "%s/cg-record.db", c->tmp);
	snprintf(fp_db, sizeof fp_db, "%s/cg-record-fp.db", c->tmp);
	uint64_t cycles = record_length(c->avrr, elf, stim, insns, oracle_db, NULL);
	snprintf(cyc, sizeof cyc, "%llu", (unsigned long long)cycles);
	static oracle_cmds o;
	oracle_init(&o, c->avrr, sel, oracle_db);
	time_command(o.add);
	char *plain[] = { (char *)c->self, "--plain", (char *)elf, (char *)stim, cyc, NULL };
	char *rec[] = { (char *)c->avrr, "record", (char *)elf, "--stimuli", (char *)stim,
			"--seed", "1", "--cycles", cyc, "--fp", "none", "--quiet", "-o", rec_db,
			NULL };
	char *rec_fp[] = { (char *)c->avrr, "record", (char *)elf, "--stimuli", (char *)stim,
			   "--seed", "1", "--cycles", cyc, "--quiet", "-o", fp_db, NULL };
	char *replay[] = { (char *)c->avrr, "replay", fp_db, NULL };
	cg_job jobs[CG_COUNT] = {
		[CG_PLAIN] = { .argv = plain }, [CG_ORACLE] = { .argv = o.run },
		[CG_RECORD] = { .argv = rec }, [CG_RECORD_FP] = { .argv = rec_fp },
		[CG_REPLAY] = { .argv = replay },
	};
	static const int after[CG_COUNT] = { -1, -1, -1, -1, CG_RECORD_FP };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	callgrind_all(jobs, after, CG_COUNT, cpus < 2 ? 1 : cpus > CG_COUNT ? CG_COUNT : (int)cpus);
	for (int m = 0; m < CG_COUNT; m++)
		ratio[m] = jobs[m].count / jobs[CG_PLAIN].count;
	oracle_free(&o);
	unlink(oracle_db);
	unlink(rec_db);
	unlink(fp_db);
}

/* The oracle's selector: the paper's frequency-based one for the firmware. */
static void oracle_selector(const firmware *fw, const char *name, char *sel, size_t n)
{
	if (fp_frequency_selector(fw, ioregs_lookup(fw->mcu), 0, 3, "SPL+SPH+SREG", sel, n)) {
		fprintf(stderr, "bench: cannot rank the registers of %s\n", name);
		exit(1);
	}
}

/* --callgrind: the instruction ratios alone, one line per firmware. */
static void bench_callgrind(bench_ctx *c, const char *name)
{
	char elf[128], stim[128], sel[256];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	avrr_err err;
	firmware *fw;
	if (fw_load_file(elf, &fw, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	oracle_selector(fw, name, sel, sizeof sel);
	fw_free(fw);
	double ir[CG_COUNT];
	count_instructions(c, elf, stim, sel, c->cg_insns, ir);
	printf("bench %s callgrind record=%.3f record-fp=%.3f replay=%.3f oracle85=%.3f "
	       "instructions=%llu\n", name, ir[CG_RECORD], ir[CG_RECORD_FP], ir[CG_REPLAY],
	       ir[CG_ORACLE], (unsigned long long)c->cg_insns);
	fflush(stdout);
}

/* The firmware and its parsed stimuli, or exit 1 saying why; the stimuli's
 * text is returned for the caller to free after stim_free. */
static char *load_target(const char *elf, const char *stim, firmware **fw, stim_script **script)
{
	avrr_err err;
	char *text = util_read_text(stim, &err);
	if (!text || fw_load_file(elf, fw, &err) || stim_parse(text, stim, script, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	return text;
}

static void bench_firmware(bench_ctx *c, const char *name)
{
	char elf[128], stim[128], db_path[256], cyc[32];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	snprintf(db_path, sizeof db_path, "%s/%s.db", c->tmp, name);
	firmware *fw;
	stim_script *script;
	char *text = load_target(elf, stim, &fw, &script);
	char sel[256];
	oracle_selector(fw, name, sel, sizeof sel);
	/* The length: at least c->insns instructions, and as many more as
	 * plain simavr needs to take 2 s here. */
	uint64_t insns = c->insns, nev;
	uint64_t cycles = record_length(c->avrr, elf, stim, insns, db_path, &nev);
	double t = time_simavr(fw, script, cycles);
	if (t < 2.0) {
		insns = (uint64_t)((double)insns * 2.2 / t / 1e6 + 1) * 1000000;
		cycles = record_length(c->avrr, elf, stim, insns, db_path, &nev);
	}
	snprintf(cyc, sizeof cyc, "%llu", (unsigned long long)cycles);
	double ir[CG_COUNT];
	count_instructions(c, elf, stim, sel, c->cg_insns ? c->cg_insns : insns, ir);
	char *rec[] = { (char *)c->avrr, "record", elf, "--stimuli", stim, "--seed", "1",
			"--cycles", cyc, "--fp", "none", "--quiet", "-o", db_path, NULL };
	char *rec_fp[] = { (char *)c->avrr, "record", elf, "--stimuli", stim, "--seed", "1",
			   "--cycles", cyc, "--quiet", "-o", db_path, NULL };
	double ours[REPS], ours_fp[REPS], base[REPS];
	struct stat sb, sb_fp;  /* each kind's file */
	for (int i = 0; i < REPS; i++) {
		base[i] = time_simavr(fw, script, cycles);
		ours[i] = time_command(rec);
		stat(db_path, &sb);
		ours_fp[i] = time_command(rec_fp);  /* last: the replays below read it */
		stat(db_path, &sb_fp);
	}
	ratios w = paired(ours, base, REPS);
	char what[160];
	snprintf(what, sizeof what, "no fingerprints; %llu instructions, %llu cycles, %llu events",
		 (unsigned long long)insns, (unsigned long long)cycles, (unsigned long long)nev);
	report(c, name, "record", &w, ir[CG_RECORD], 1.05, what);
	w = paired(ours_fp, base, REPS);
	report(c, name, "record-fp", &w, ir[CG_RECORD_FP], 1.05, "default configuration");
	double per = (double)sb_fp.st_size / (double)(nev ? nev : 1);
	int ok = per <= 14.0;
	c->met += ok;
	c->judged++;
	printf("bench %s bytes-per-event value=%.2f target<=14 %s file_bytes=%lld "
	       "no_fp_value=%.2f (default configuration's recording)\n", name, per,
	       ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97", (long long)sb_fp.st_size,
	       (double)sb.st_size / (double)(nev ? nev : 1));
	fflush(stdout);

	/* The default configuration replays the bundled firmware exactly: the
	 * replay covers the whole recorded run (time_command checks its exit
	 * status). */
	char *replay[] = { (char *)c->avrr, "replay", db_path, NULL };
	w = versus_simavr(replay, fw, script, cycles);
	report(c, name, "replay", &w, ir[CG_REPLAY], 1.10, "default configuration, sequence matching");
	bench_validate(name, db_path, w.ours);
	static oracle_cmds o;
	oracle_init(&o, c->avrr, sel, db_path);
	time_command(o.add);
	w = versus_simavr(o.run, fw, script, cycles);
	report(c, name, "oracle85", &w, ir[CG_ORACLE], 2.0, "17 ra splits x 5 hash functions, one pass");
	oracle_free(&o);
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

/* `samples` reverse-stepi, each after a goto to a pseudo-random position
 * below insns (the same positions every run); their times in ms, sorted,
 * in an array of at least one element that the caller frees. */
static double *reverse_stepi_samples(shell *sh, uint64_t insns, int samples)
{
	char cmd[64];
	double *t = calloc((size_t)samples + 1, sizeof *t);
	if (!t)
		exit(1);
	uint64_t seed = 11;
	for (int i = 0; i < samples; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)(1 + (seed >> 11) % (insns - 1)));
		shell_command(sh, cmd);
		t[i] = shell_command(sh, "reverse-stepi") * 1000.0;
	}
	qsort(t, (size_t)samples, sizeof *t, cmp_double);
	return t;
}

/* One firmware recorded for `insns` instructions, with the default
 * configuration: record, replay and replay --oracle once each, then the
 * shell's travel against that replay: `goto END` from the start, a
 * `reverse-continue` from there back to init's write of TIMSK (a watch on
 * data 0x59; every bundled firmware writes it once, in init), `samples`
 * reverse-stepi after a goto to random positions, and, in a second shell,
 * `continue` from the start to the end. */
static void bench_scale(const char *avrr, const char *name, uint64_t insns, int samples,
			const char *tmp)
{
	char elf[128], stim[128], db_path[256], ins[32], cmd[64];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	snprintf(db_path, sizeof db_path, "%s/%s.db", tmp, name);
	snprintf(ins, sizeof ins, "%llu", (unsigned long long)insns);
	char *rec[] = { (char *)avrr, "record", elf, "--stimuli", stim, "--instructions", ins,
			"--quiet", "-o", db_path, NULL };
	char *rep[] = { (char *)avrr, "replay", db_path, NULL };
	char *oracle[] = { (char *)avrr, "replay", db_path, "--oracle", NULL };
	char *argv[] = { (char *)avrr, "shell", db_path, NULL };
	double rec_rss, rep_rss, oracle_rss;
	double rec_s = run_command(rec, &rec_rss);
	struct stat st;
	if (stat(db_path, &st))
		exit(1);
	double rep_s = run_command(rep, &rep_rss);
	double oracle_s = run_command(oracle, &oracle_rss);
	shell sh;
	double t0 = now();
	shell_open(&sh, argv);
	shell_command(&sh, "echo");  /* opened: the recording loaded */
	snprintf(cmd, sizeof cmd, "goto %llu", (unsigned long long)insns);
	double goto_s = shell_command(&sh, cmd);
	double back_ms = shell_command(&sh, "reverse-stepi") * 1000.0;
	double mb;
	unsigned nck;
	shell_checkpoints(&sh, &nck, &mb);
	shell_command(&sh, "watch 0x59");
	double rc_s = shell_command(&sh, "reverse-continue");
	if (!strstr(sh.last, "icount=")) {  /* a watch hit ends with where it stopped */
		fprintf(stderr, "bench: %s: reverse-continue to the watch on TIMSK said: %s", name,
			sh.last);
		exit(1);
	}
	shell_command(&sh, "delete");
	double *t = reverse_stepi_samples(&sh, insns, samples);
	double sh_rss = shell_close(&sh);
	double sh_s = now() - t0;
	shell_open(&sh, argv);
	shell_command(&sh, "echo");
	double cont_s = shell_command(&sh, "continue");
	double cont_rss = shell_close(&sh);
	unlink(db_path);
	printf("bench %s scale instructions=%llu record_s=%.2f record_rss_mb=%.1f file_mb=%.1f "
	       "replay_s=%.2f replay_rss_mb=%.1f oracle_s=%.2f oracle_rss_mb=%.1f "
	       "shell_s=%.2f shell_rss_mb=%.1f checkpoints=%u checkpoint_mb=%.1f "
	       "goto_end_s=%.2f goto_end_ratio=%.2f continue_s=%.2f continue_ratio=%.2f "
	       "continue_rss_mb=%.1f reverse_continue_watch_s=%.2f reverse_continue_watch_ratio=%.2f "
	       "reverse_stepi_end_ms=%.1f reverse_stepi_median_ms=%.1f reverse_stepi_p99_ms=%.1f "
	       "samples=%d\n",
	       name, (unsigned long long)insns, rec_s, rec_rss, (double)st.st_size / 1048576.0,
	       rep_s, rep_rss, oracle_s, oracle_rss, sh_s, sh_rss, nck, mb, goto_s,
	       goto_s / rep_s, cont_s, cont_s / rep_s, cont_rss, rc_s, rc_s / rep_s, back_ms,
	       samples ? t[samples / 2] : 0.0, samples ? t[samples - 1 - samples / 100] : 0.0,
	       samples);
	fflush(stdout);
	free(t);
}

/* An instruction count as a user writes it: digits with an optional
 * decimal k, M or G (10G is 10^10); 0 when it is not one. */
static uint64_t parse_count(const char *s)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 10);
	uint64_t scale = !strcmp(end, "") ? 1 : !strcmp(end, "k") ? 1000ull
		       : !strcmp(end, "M") ? 1000000ull : !strcmp(end, "G") ? 1000000000ull : 0;
	return end == s || *s == '-' ? 0 : n * scale;
}

/* The same travel through stock avr-gdb (`avrr gdb RUN.db -batch`), the
 * way an IDE moves: `continue` from the start to the end, then
 * `reverse-continue` back to init's write of TIMSK (a hardware watch on
 * data 0x59).  gdb's `shell date` stamps each motion's start and end;
 * *cont and *rc get their seconds (the stamps' own fork costs ~1 ms).
 * Exits if avr-gdb did not stop where it should. */
static void gdb_travel(const char *avrr, const char *db_path, const char *tmp, double *cont,
		       double *rc)
{
	char script[300], cmd[900], line[512];
	snprintf(script, sizeof script, "%s/travel.gdb", tmp);
	FILE *f = fopen(script, "w");
	if (!f)
		exit(1);
	fputs("shell date +@T%s.%N\ncontinue\nshell date +@T%s.%N\n"
	      "watch *(unsigned char *)0x59\nshell date +@T%s.%N\nreverse-continue\n"
	      "shell date +@T%s.%N\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "'%s' gdb '%s' -batch -x '%s' 2>&1", avrr, db_path, script);
	FILE *p = popen(cmd, "r");
	double t[4];
	int n = 0, init = 0;
	while (p && fgets(line, sizeof line, p)) {
		if (!strncmp(line, "@T", 2) && n < 4)
			t[n++] = strtod(line + 2, NULL);
		init |= strstr(line, "in init ()") != NULL;
	}
	if (!p || pclose(p) != 0 || n != 4 || !init) {
		fprintf(stderr, "bench: avr-gdb's travel did not end in init (stamps %d)\n", n);
		exit(1);
	}
	unlink(script);
	*cont = t[1] - t[0];
	*rc = t[3] - t[2];
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
	double *t = reverse_stepi_samples(&sh, insns, samples);
	shell_close(&sh);
	/* gdb's side, against a replay timed again just before it. */
	double replay2_s = time_command(rep), gdb_cont_s, gdb_rc_s;
	gdb_travel(avrr, db_path, tmp, &gdb_cont_s, &gdb_rc_s);
	unlink(db_path);
	printf("bench adcapp travel instructions=%llu replay_s=%.2f goto_end_s=%.2f goto_end_ratio=%.2f "
	       "continue_s=%.2f continue_ratio=%.2f reverse_continue_watch_s=%.2f "
	       "reverse_continue_watch_ratio=%.2f (watch TIMSK, written in init)\n",
	       (unsigned long long)insns, replay_s, goto_s, goto_s / replay_s, cont_s,
	       cont_s / replay_s, rc_s, rc_s / replay_s);
	printf("bench adcapp travel-gdb instructions=%llu replay_s=%.2f continue_s=%.2f "
	       "continue_ratio=%.2f reverse_continue_watch_s=%.2f reverse_continue_watch_ratio=%.2f "
	       "(avr-gdb -batch; hardware watch on TIMSK)\n", (unsigned long long)insns, replay2_s,
	       gdb_cont_s, gdb_cont_s / replay2_s, gdb_rc_s, gdb_rc_s / replay2_s);
	printf("bench adcapp travel-reverse-stepi median_ms=%.1f p99_ms=%.1f samples=%d "
	       "instructions=%llu\n", t[samples / 2], t[samples - 1 - samples / 100], samples,
	       (unsigned long long)insns);
	fflush(stdout);
	free(t);
}

/* simavr's own loop alone, with the firmware's stimuli: the baseline that
 * callgrind counts. */
static int plain(const char *elf, const char *stim, uint64_t cycles)
{
	firmware *fw;
	stim_script *script;
	char *text = load_target(elf, stim, &fw, &script);
	time_simavr(fw, script, cycles);
	stim_free(script);
	free(text);
	fw_free(fw);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--plain"))
		return plain(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (argc < 2 || sodium_init() < 0) {
		fprintf(stderr, "usage: bench AVRR_BINARY [INSTRUCTIONS [REVERSE_INSTRUCTIONS "
				"[CALLGRIND_INSTRUCTIONS]]]\n"
				"       bench AVRR_BINARY --scale [INSTRUCTIONS ...]\n"
				"       bench AVRR_BINARY --callgrind [CALLGRIND_INSTRUCTIONS]\n"
				"       bench --plain ELF STIMULI CYCLES\n"
				"       bench AVRR_BINARY --travel [INSTRUCTIONS [SAMPLES]]\n");
		return 2;
	}
	char tmp[] = "/tmp/avrr-bench-XXXXXX";
	if (!mkdtemp(tmp))
		return 1;
	if (argc > 2 && !strcmp(argv[2], "--scale")) {
		static const char *const lengths[] = { "1M", "10M", "100M", "1G" };
		const char *env = getenv("SCALE_SAMPLES");
		int samples = env ? atoi(env) : 10;
		if (samples < 0)
			samples = 0;
		int n = argc > 3 ? argc - 3 : (int)(sizeof lengths / sizeof *lengths);
		const char *const *arg = argc > 3 ? (const char *const *)argv + 3 : lengths;
		for (int i = 0; i < n; i++)
			if (parse_count(arg[i]) < 2) {
				fprintf(stderr, "bench: %s: not an instruction count (N, or N with k, M or G)\n",
					arg[i]);
				return 2;
			}
		const char *only = getenv("SCALE_FIRMWARE");
		for (int i = 0; i < n; i++)
			for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
				if (!only || !*only || !strcmp(only, FIRMWARE[f]))
					bench_scale(argv[1], FIRMWARE[f], parse_count(arg[i]), samples, tmp);
		rmdir(tmp);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "--travel")) {
		bench_travel(argv[1], tmp, argc > 3 ? strtoull(argv[3], NULL, 0) : 100000000,
			     argc > 4 ? atoi(argv[4]) : 100);
		rmdir(tmp);
		return 0;
	}
	bench_ctx c = {
		.avrr = argv[1],
		.self = argv[0],
		.tmp = tmp,
		.insns = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000000,
		.cg_insns = argc > 4 ? strtoull(argv[4], NULL, 0) : 0,
	};
	if (argc > 2 && !strcmp(argv[2], "--callgrind")) {
		c.cg_insns = argc > 3 ? strtoull(argv[3], NULL, 0) : 100000000;
		for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
			bench_callgrind(&c, FIRMWARE[f]);
		rmdir(tmp);
		return 0;
	}
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++)
		bench_firmware(&c, FIRMWARE[f]);
	bench_reverse(argv[1], tmp, argc > 3 ? strtoull(argv[3], NULL, 0) : 100000000);
	printf("bench targets met=%d of %d (judged on insn_ratio, callgrind's host instructions; "
	       "ratio is wall time)\n", c.met, c.judged);
	rmdir(tmp);
	return c.met == c.judged ? 0 : 3;
}
