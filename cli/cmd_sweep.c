/*
 * cmd_sweep.c — `avrr sweep`: the oracle over a grid of fingerprint
 * configurations (selectors × widths × hashes × ra bits, in each matching
 * mode) for one or more recordings, written as one tidy CSV (docs/sweep.md).
 *
 * The grid is cut into units: one recording, one matching mode, one
 * selector and at most UNIT_MAX configurations, so that each unit is one
 * oracle pass in which the configurations share the selector's bytes.
 * Units run in forked worker processes, up to --jobs at a time; each sends
 * its counters back through a pipe.  The parent alone writes the CSV, in
 * grid order, so the file is the same for any --jobs and any order in which
 * the units finish.  It is written beside -o and renamed into place only
 * when every unit succeeded.
 *
 * --shard K/N computes the K-th of N contiguous runs of units, for a
 * cluster, and writes their rows after a line naming the shard and a key of
 * the whole grid; `avrr sweep merge` checks that its parts are the N shards
 * of one grid and joins their rows, in shard order, into the same bytes the
 * whole sweep writes.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "../db/db.h"
#include "../recorder/fingerprints.h"
#include "../recorder/replica.h"
#include "../replayer/replayer.h"
#include "../util/digest.h"
#include "../util/file.h"

#define UNIT_MAX 64     /* configurations per oracle pass */
#define LIST_MAX 64     /* values per list option */
#define SPEC_MAX 512    /* what a stored spec may hold (fp_config.spec) */

enum { M_INSTRUCTIONS, M_INTERRUPTS, M_HITS, M_CORRECT, M_FALSE_LOOP, M_FALSE_RA,
       M_INPUT_DUPLICATES, M_HASH_COLLISIONS, M_MISSED, NMETRICS };
static const char *const METRIC[NMETRICS] = {
	"instructions", "interrupts", "hits", "correct", "false_loop", "false_ra",
	"input_duplicates", "hash_collisions", "missed",
};
static const char *const HASH[] = { "modular", "twomod", "jenkins", "knuth", "rr" };
#define NHASH (sizeof HASH / sizeof *HASH)
static const char *const MATCH[] = { "set", "sequence" };

/* One configuration of the grid, on one recording, in one matching mode. */
typedef struct point {
	unsigned rec, match, sel, width, hash, ra;  /* indexes, except width and ra */
	char name[64];
	char spec[SPEC_MAX + 64];                   /* NAME:sel=...,hash=...,ra=K,width=W */
	uint64_t m[NMETRICS];
} point;

typedef struct unit {
	size_t first, n;  /* points[first, first + n): same recording, match, selector */
} unit;

/* What a worker sends back: its status (an exit status of this command),
 * a message when it failed, and each configuration's counters. */
typedef struct unit_msg {
	int status;
	char text[600];
	uint64_t m[UNIT_MAX][NMETRICS];
} unit_msg;

typedef struct worker {
	pid_t pid;
	int fd;
	size_t unit;
	size_t got;      /* bytes of msg received */
	unit_msg msg;
} worker;

typedef struct sweep {
	char *const *recs;                  /* the recordings, as given */
	unsigned nrecs;
	unsigned width[LIST_MAX], nwidth;
	unsigned ra[LIST_MAX], nra;
	unsigned hash[NHASH], nhash;
	unsigned match[2], nmatch;
	const char *sel[LIST_MAX];          /* --selector; none: each recording's paper_selector */
	char *sel_text[LIST_MAX];           /* the --selector values, split in place */
	unsigned nsel, nsel_text;
	char (*default_sel)[SPEC_MAX];      /* per recording */
	point *pts;
	size_t npts;
	unit *units;
	size_t nunits;
	unsigned shard, nshards;            /* --shard K/N; 0/0 for the whole grid */
	size_t unit_lo, unit_hi;            /* the units this run computes */
} sweep;

static const char *selector_of(const sweep *sw, const point *p)
{
	return sw->nsel ? sw->sel[p->sel] : sw->default_sel[p->rec];
}

/* ---- options ------------------------------------------------------------ */

/* Parses a comma-separated list of distinct integers in lo..hi. */
static int parse_numbers(const char *opt, const char *text, unsigned lo, unsigned hi,
			 unsigned *out, unsigned *n)
{
	*n = 0;
	for (const char *p = text;; p++) {
		size_t len = strcspn(p, ",");
		char item[32];
		uint64_t v;
		if (!len || len >= sizeof item)
			return cli_fail("sweep", "%s: '%s' is not a comma-separated list of numbers",
					opt, text);
		memcpy(item, p, len);
		item[len] = 0;
		if (cli_parse_u64("sweep", opt, item, &v))
			return EXIT_BAD_INPUT;
		if (v < lo || v > hi)
			return cli_fail("sweep", "%s: %s is not in %u..%u", opt, item, lo, hi);
		for (unsigned i = 0; i < *n; i++)
			if (out[i] == v)
				return cli_fail("sweep", "%s: %s is given twice", opt, item);
		if (*n == LIST_MAX)
			return cli_fail("sweep", "%s: at most %d values", opt, LIST_MAX);
		out[(*n)++] = (unsigned)v;
		p += len;
		if (!*p)
			return 0;
	}
}

/* Parses a comma-separated list of distinct names out of names[0..nnames). */
static int parse_names(const char *opt, const char *text, const char *const *names,
		       unsigned nnames, unsigned *out, unsigned *n)
{
	*n = 0;
	for (const char *p = text;; p++) {
		size_t len = strcspn(p, ",");
		unsigned k = 0;
		while (k < nnames && (strlen(names[k]) != len || strncmp(names[k], p, len)))
			k++;
		if (k == nnames) {
			char all[128] = "";
			for (unsigned i = 0; i < nnames; i++)
				snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
					 i ? ", " : "", names[i]);
			return cli_fail("sweep", "%s: '%.*s' is not one of %s", opt, (int)len, p, all);
		}
		for (unsigned i = 0; i < *n; i++)
			if (out[i] == k)
				return cli_fail("sweep", "%s: %s is given twice", opt, names[k]);
		out[(*n)++] = k;
		p += len;
		if (!*p)
			return 0;
	}
}

/* Adds the selectors of one --selector value, separated by ';'. */
static int add_selectors(sweep *sw, const char *text)
{
	if (sw->nsel_text == LIST_MAX)
		return cli_fail("sweep", "--selector: at most %d options", LIST_MAX);
	if (!(sw->sel_text[sw->nsel_text] = strdup(text)))
		return cli_fail("sweep", "out of memory");
	char *save, *s = sw->sel_text[sw->nsel_text++];
	if (!*s || strstr(s, ";;") || *s == ';' || s[strlen(s) - 1] == ';')
		return cli_fail("sweep", "--selector: '%s' has an empty selector", text);
	for (char *t = strtok_r(s, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		if (strchr(t, ','))
			return cli_fail("sweep", "--selector: '%s' holds a ','; a selector joins its "
					"components with '+'", t);
		if (sw->nsel == LIST_MAX)
			return cli_fail("sweep", "--selector: at most %d selectors", LIST_MAX);
		for (unsigned i = 0; i < sw->nsel; i++)
			if (!strcmp(sw->sel[i], t))
				return cli_fail("sweep", "--selector: '%s' is given twice", t);
		sw->sel[sw->nsel++] = t;
	}
	return 0;
}

/* ---- the grid ----------------------------------------------------------- */

/* The paper's selector (seed 004 §4.1) for the recording's firmware: SPL,
 * SPH, SREG and the three GP registers frequency-based selection ranks
 * first — what the grid varies the hash and `ra` bits of.  Falls back to
 * `all` when the code cannot be decoded. */
static void paper_selector(const rec_replica *rep, char *out, size_t cap)
{
	if (fp_frequency_selector(rep->fw, rep->s->names, 0, 3, "SPL+SPH+SREG", out, cap))
		snprintf(out, cap, "all");
}

/* The bits selector `sel`'s counters take (sic:K, cycles:K), or 0 if it
 * does not parse (the grid's check reports that). */
static unsigned counter_bits(const rec_replica *rep, const char *sel)
{
	char spec[SPEC_MAX + 32];
	fp_config c;
	avrr_err ignored;
	snprintf(spec, sizeof spec, "sel=%s,ra=0,width=64", sel);
	return fp_parse(spec, rep->s->names, rep->fw, rep->s->data_size, NULL, &c, &ignored)
	       ? 0 : c.count_bits;
}

/* Appends recording `rec`'s points, in grid order: match, selector, width,
 * hash, ra.  ra values whose bits and the counters' exceed a width are left
 * out for that width. */
static int add_points(sweep *sw, unsigned rec, const rec_replica *rep)
{
	unsigned nsel = sw->nsel ? sw->nsel : 1;
	for (unsigned mi = 0; mi < sw->nmatch; mi++)
		for (unsigned s = 0; s < nsel; s++) {
			unsigned counters = counter_bits(rep, sw->nsel ? sw->sel[s]
								       : sw->default_sel[rec]);
			for (unsigned wi = 0; wi < sw->nwidth; wi++)
				for (unsigned hi = 0; hi < sw->nhash; hi++)
					for (unsigned ri = 0; ri < sw->nra; ri++) {
						if (sw->ra[ri] + counters > sw->width[wi])
							continue;
						point *p = &sw->pts[sw->npts++];
						*p = (point){ .rec = rec, .match = sw->match[mi], .sel = s,
							      .width = sw->width[wi],
							      .hash = sw->hash[hi], .ra = sw->ra[ri] };
						snprintf(p->name, sizeof p->name, "s%u-%s-ra%u-w%u", s,
							 HASH[p->hash], p->ra, p->width);
						const char *sel = selector_of(sw, p);
						if (strlen(sel) > SPEC_MAX - 40)
							return cli_fail("sweep", "--selector: '%.40s...' is too "
									"long", sel);
						snprintf(p->spec, sizeof p->spec,
							 "%s:sel=%s,hash=%s,ra=%u,width=%u", p->name, sel,
							 HASH[p->hash], p->ra, p->width);
					}
		}
	return 0;
}

/* Checks recording `rec` before any work starts — an avrr recording that
 * keeps its ground truth (the oracle follows it), every spec of the grid
 * valid for its firmware — and adds its points. */
static int add_recording(sweep *sw, unsigned rec)
{
	const char *path = sw->recs[rec];
	avrr_err err = { "" };
	db *d = NULL;
	rec_replica rep;
	int have_rep = 0, rc = EXIT_BAD_INPUT;
	if (db_open(path, 0, &d, &err) || rec_replica_open(d, &rep, &err)) {
		cli_fail("sweep", "%s", err.msg);
		goto out;
	}
	have_rep = 1;
	if (!rep.run.has_ground_truth) {
		cli_fail("sweep", "%s: the oracle follows the ground truth, and this recording was "
			 "stripped of it", path);
		goto out;
	}
	paper_selector(&rep, sw->default_sel[rec], sizeof sw->default_sel[rec]);
	size_t first = sw->npts;
	if (add_points(sw, rec, &rep))
		goto out;
	/* The first matching mode's points name every configuration once. */
	size_t n = 0;
	while (first + n < sw->npts && sw->pts[first + n].match == sw->pts[first].match)
		n++;
	const char **specs = malloc((n + 1) * sizeof *specs);
	if (!specs) {
		cli_fail("sweep", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		specs[i] = sw->pts[first + i].spec;
	rec_fpset set;
	if (rec_fpset_parse(specs, (unsigned)n, rep.s, &set, &err)) {
		cli_fail("sweep", "%s: %s", path, err.msg);
	} else {
		rec_fpset_free(&set);
		rc = 0;
	}
	free(specs);
out:
	if (have_rep)
		rec_replica_close(&rep);
	db_close(d);
	return rc;
}

/* Cuts the points into units: runs of the same recording, match and
 * selector, split into equal chunks of at most UNIT_MAX. */
static int make_units(sweep *sw)
{
	sw->units = malloc((sw->npts + 1) * sizeof *sw->units);
	if (!sw->units)
		return cli_fail("sweep", "out of memory");
	for (size_t i = 0, j; i < sw->npts; i = j) {
		const point *a = &sw->pts[i];
		for (j = i; j < sw->npts && sw->pts[j].rec == a->rec &&
			    sw->pts[j].match == a->match && sw->pts[j].sel == a->sel; j++)
			;
		size_t run = j - i, chunks = (run + UNIT_MAX - 1) / UNIT_MAX;
		for (size_t c = 0; c < chunks; c++) {
			size_t lo = i + run * c / chunks, hi = i + run * (c + 1) / chunks;
			sw->units[sw->nunits++] = (unit){ lo, hi - lo };
		}
	}
	return 0;
}

/* ---- a unit, in a worker process ---------------------------------------- */

static void run_unit(const sweep *sw, const unit *u, unit_msg *msg)
{
	const point *pts = &sw->pts[u->first];
	const char *path = sw->recs[pts[0].rec];
	const char *specs[UNIT_MAX];
	for (size_t i = 0; i < u->n; i++)
		specs[i] = pts[i].spec;
	rp_options o = { .oracle = 1, .oracle_configs = specs, .noracle_configs = (unsigned)u->n,
			 .match = pts[0].match ? RP_MATCH_SEQUENCE : RP_MATCH_SET,
			 .interrupted = &cli_interrupted };
	avrr_err err = { "" };
	replay *r;
	if (rp_open(path, &o, &r, &err)) {
		msg->status = cli_interrupted ? EXIT_INTERRUPTED : 1;
		snprintf(msg->text, sizeof msg->text, "%s: %s", path, err.msg);
		return;
	}
	rp_stop why = rp_run(r, 0);
	const rp_divergence *d = rp_get_divergence(r);
	size_t n;
	const rp_oracle_result *res = rp_oracle_results(r, &n);
	msg->status = 1;
	if (why == RP_STOPPED) {
		msg->status = EXIT_INTERRUPTED;
	} else if (d) {
		snprintf(msg->text, sizeof msg->text, "%s: the oracle diverged at icount %llu, "
			 "pc 0x%04x %s: expected %s, got %s", path, (unsigned long long)d->icount,
			 d->pc, d->where, d->expected, d->actual);
	} else if (why != RP_END) {
		snprintf(msg->text, sizeof msg->text, "%s: the CPU stopped at icount %llu, before "
			 "the end", path, (unsigned long long)rp_icount(r));
	} else if (n != u->n) {
		snprintf(msg->text, sizeof msg->text, "%s: BUG: the oracle gave %zu results for "
			 "%zu configurations", path, n, u->n);
	} else {
		msg->status = 0;
		const rp_counters *c = rp_get_counters(r);
		for (size_t i = 0; i < n && !msg->status; i++) {
			/* The engine answers in the order asked; make sure. */
			if (strcmp(res[i].name, pts[i].name)) {
				snprintf(msg->text, sizeof msg->text, "%s: BUG: result %zu is '%s', not "
					 "'%s'", path, i, res[i].name, pts[i].name);
				msg->status = 1;
			}
			uint64_t *m = msg->m[i];
			m[M_INSTRUCTIONS] = rp_icount(r);
			m[M_INTERRUPTS] = c->interrupts_recorded;
			m[M_HITS] = res[i].hits;
			m[M_CORRECT] = res[i].correct;
			m[M_FALSE_LOOP] = res[i].false_loop;
			m[M_FALSE_RA] = res[i].false_ra;
			m[M_INPUT_DUPLICATES] = res[i].input_duplicates;
			m[M_HASH_COLLISIONS] = res[i].hash_collisions;
			m[M_MISSED] = res[i].missed;
		}
	}
	rp_close(r);
}

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;  /* the parent sees a short message */
		p += w;
		n -= (size_t)w;
	}
}

static int start_worker(const sweep *sw, size_t u, worker *w)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(NULL);  /* nothing buffered may be written twice */
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		unit_msg *msg = calloc(1, sizeof *msg);
		if (msg) {
			run_unit(sw, &sw->units[u], msg);
			write_all(fds[1], msg, sizeof *msg);
		}
		_exit(0);
	}
	close(fds[1]);
	*w = (worker){ .pid = pid, .fd = fds[0], .unit = u };
	return 0;
}

/* ---- the parent --------------------------------------------------------- */

/* Takes a finished worker's message into the grid; returns its status. */
static int finish_worker(sweep *sw, worker *w)
{
	int st;
	close(w->fd);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	const unit *u = &sw->units[w->unit];
	const char *path = sw->recs[sw->pts[u->first].rec];
	if (w->got != sizeof w->msg) {
		if (WIFSIGNALED(st))
			fprintf(stderr, "avrr sweep: %s: a worker died of signal %d\n", path,
				WTERMSIG(st));
		else
			fprintf(stderr, "avrr sweep: %s: a worker ended without its results\n", path);
		return 1;
	}
	if (w->msg.status) {
		if (w->msg.status != EXIT_INTERRUPTED)
			fprintf(stderr, "avrr sweep: %s\n", w->msg.text);
		return w->msg.status;
	}
	for (size_t i = 0; i < u->n; i++)
		memcpy(sw->pts[u->first + i].m, w->msg.m[i], sizeof w->msg.m[i]);
	return 0;
}

/* Runs every unit, up to `jobs` at a time; returns 0, or the first
 * failure's exit status once the running workers have stopped. */
static int run_units(sweep *sw, unsigned jobs)
{
	worker *ws = calloc(jobs, sizeof *ws);
	struct pollfd *pfd = calloc(jobs, sizeof *pfd);
	if (!ws || !pfd) {
		free(ws);
		free(pfd);
		return cli_fail("sweep", "out of memory");
	}
	int tty = isatty(2), rc = 0;
	size_t next = sw->unit_lo, done = 0, total = sw->unit_hi - sw->unit_lo;
	unsigned nrun = 0;
	if (tty)
		fprintf(stderr, "sweep: 0/%zu units", total);
	for (;;) {
		if (cli_interrupted && !rc) {
			rc = EXIT_INTERRUPTED;
			for (unsigned k = 0; k < nrun; k++)
				kill(ws[k].pid, SIGTERM);
		}
		while (!rc && nrun < jobs && next < sw->unit_hi) {
			if (start_worker(sw, next, &ws[nrun])) {
				fprintf(stderr, "avrr sweep: cannot start a worker: %s\n", strerror(errno));
				rc = 1;
				break;
			}
			next++;
			nrun++;
		}
		if (!nrun)
			break;
		for (unsigned i = 0; i < nrun; i++)
			pfd[i] = (struct pollfd){ .fd = ws[i].fd, .events = POLLIN };
		if (poll(pfd, nrun, -1) < 0)
			continue;  /* a signal: the loop looks at cli_interrupted */
		for (unsigned i = nrun; i-- > 0;) {
			if (!pfd[i].revents)
				continue;
			worker *w = &ws[i];
			ssize_t got = read(w->fd, (char *)&w->msg + w->got, sizeof w->msg - w->got);
			if (got > 0) {
				w->got += (size_t)got;
				if (w->got < sizeof w->msg)
					continue;
			} else if (got < 0 && errno == EINTR) {
				continue;
			}
			int st = finish_worker(sw, w);
			if (st && !rc) {
				rc = st;
				/* Stop the others: their results no longer matter. */
				for (unsigned k = 0; k < nrun; k++)
					if (k != i)
						kill(ws[k].pid, SIGTERM);
			}
			ws[i] = ws[--nrun];
			done++;
			if (tty) {
				fprintf(stderr, "\rsweep: %zu/%zu units", done, total);
				fflush(stderr);
			}
		}
	}
	if (tty)
		fputs("\r\033[K", stderr);
	free(ws);
	free(pfd);
	return rc;
}

/* A CSV field, quoted when it must be (RFC 4180). */
static void put_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

#define CSV_HEADER "recording,config,selector,hash,ra,width,match,metric,value\n"
#define SHARD_LINE "# avrr sweep shard %u/%u grid %016llx\n"

/* The points the units [unit_lo, unit_hi) cover: they are contiguous. */
static void point_range(const sweep *sw, size_t *lo, size_t *hi)
{
	*lo = sw->unit_lo < sw->nunits ? sw->units[sw->unit_lo].first : sw->npts;
	*hi = sw->unit_hi > sw->unit_lo
	      ? sw->units[sw->unit_hi - 1].first + sw->units[sw->unit_hi - 1].n : *lo;
}

/* A key of the whole grid (every recording, matching mode and spec), so
 * that merge joins only the shards of one sweep. */
static uint64_t grid_key(const sweep *sw)
{
	size_t cap = 1, len = 0;
	for (size_t i = 0; i < sw->npts; i++)
		cap += strlen(sw->recs[sw->pts[i].rec]) + strlen(sw->pts[i].spec) + 4;
	char *text = malloc(cap);
	if (!text)
		return 0;
	for (size_t i = 0; i < sw->npts; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s|%u|%s\n", sw->recs[sw->pts[i].rec],
					sw->pts[i].match, sw->pts[i].spec);
	uint64_t key = digest_key64(text, len);
	free(text);
	return key;
}

static int write_csv(const sweep *sw, FILE *f)
{
	size_t lo, hi;
	point_range(sw, &lo, &hi);
	if (sw->nshards)
		fprintf(f, SHARD_LINE, sw->shard, sw->nshards, (unsigned long long)grid_key(sw));
	fputs(CSV_HEADER, f);
	for (size_t i = lo; i < hi; i++) {
		const point *p = &sw->pts[i];
		for (int k = 0; k < NMETRICS; k++) {
			put_field(f, sw->recs[p->rec]);
			fprintf(f, ",%s,", p->name);
			put_field(f, selector_of(sw, p));
			fprintf(f, ",%s,%u,%u,%s,%s,%llu\n", HASH[p->hash], p->ra, p->width,
				MATCH[p->match], METRIC[k], (unsigned long long)p->m[k]);
		}
	}
	return ferror(f) ? -1 : 0;
}

/* The oracle must find every recorded interrupt; anything else is a bug
 * in avrr, not in the firmware, and must not pass as a number. */
static int check_missed(const sweep *sw)
{
	int rc = 0;
	size_t lo, hi;
	point_range(sw, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const point *p = &sw->pts[i];
		if (p->m[M_MISSED]) {
			fprintf(stderr, "avrr sweep: BUG: the oracle missed %llu recorded interrupt%s of "
				"%s under %s (%s matching); a fingerprint of a recorded state must "
				"always be found\n", (unsigned long long)p->m[M_MISSED],
				p->m[M_MISSED] == 1 ? "" : "s", sw->recs[p->rec], p->name,
				MATCH[p->match]);
			rc = 1;
		}
	}
	return rc;
}

/* A hidden temporary beside `out`, with the mode a new file would get. */
static FILE *open_temp(const char *out, char *tmp, size_t n)
{
	const char *slash = strrchr(out, '/');
	int dirlen = slash ? (int)(slash - out + 1) : 0;
	snprintf(tmp, n, "%.*s.%s.XXXXXX", dirlen, out, slash ? slash + 1 : out);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
	}
	return f;
}

static void free_sweep(sweep *sw)
{
	for (unsigned i = 0; i < sw->nsel_text; i++)
		free(sw->sel_text[i]);
	free(sw->default_sel);
	free(sw->pts);
	free(sw->units);
}

static int sweep_main(sweep *sw, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, 'W' },
		{ "ra", required_argument, NULL, 'r' },
		{ "hash", required_argument, NULL, 'H' },
		{ "selector", required_argument, NULL, 's' },
		{ "match", required_argument, NULL, 'm' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "shard", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int ra_given = 0, c;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cores > 0 ? (uint64_t)cores : 1;
	parse_numbers("--width", "16", 1, 64, sw->width, &sw->nwidth);
	parse_numbers("--ra", "0,2,4,6,8,10,12,14,16", 0, 32, sw->ra, &sw->nra);
	parse_names("--hash", "modular,twomod,jenkins,knuth,rr", HASH, NHASH, sw->hash, &sw->nhash);
	parse_names("--match", "set", MATCH, 2, sw->match, &sw->nmatch);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'o': out = optarg; break;
		case 'W': bad = parse_numbers("--width", optarg, 1, 64, sw->width, &sw->nwidth); break;
		case 'r':
			bad = parse_numbers("--ra", optarg, 0, 32, sw->ra, &sw->nra);
			ra_given = 1;
			break;
		case 'H': bad = parse_names("--hash", optarg, HASH, NHASH, sw->hash, &sw->nhash); break;
		case 's': bad = add_selectors(sw, optarg); break;
		case 'm': bad = parse_names("--match", optarg, MATCH, 2, sw->match, &sw->nmatch); break;
		case 'j':
			if (cli_parse_u64("sweep", "--jobs", optarg, &jobs))
				return EXIT_BAD_INPUT;
			if (jobs < 1 || jobs > 256)
				return cli_fail("sweep", "--jobs: %s is not in 1..256", optarg);
			break;
		case 'S': {
			char tail;
			if (sscanf(optarg, "%u/%u%c", &sw->shard, &sw->nshards, &tail) != 2 ||
			    !sw->shard || sw->shard > sw->nshards || sw->nshards > 100000 ||
			    strspn(optarg, "0123456789/") != strlen(optarg))
				return cli_fail("sweep", "--shard: '%s' is not K/N with 1 <= K <= N",
						optarg);
			break;
		}
		case 'h': return cli_help("sweep");
		case ':': return cli_fail("sweep", "%s needs a value", argv[optind - 1]);
		default: return cli_fail("sweep", "unknown option '%s'; see 'avrr sweep --help'",
					 argv[optind - 1]);
		}
		if (bad)
			return EXIT_BAD_INPUT;
	}
	if (optind == argc)
		return cli_fail("sweep", "usage: avrr sweep RUN.db [RUN.db ...] -o RESULTS.csv "
				"[--width W] [--ra LIST] [--hash LIST] [--selector LIST] "
				"[--match set|sequence] [--jobs N] [--shard K/N]");
	if (!out)
		return cli_fail("sweep", "no output given; use -o RESULTS.csv");
	/* The CSV is renamed over -o at the end: it must not be a recording. */
	struct stat so, sr;
	for (int i = optind; i < argc && !stat(out, &so); i++)
		if (!stat(argv[i], &sr) && so.st_dev == sr.st_dev && so.st_ino == sr.st_ino)
			return cli_fail("sweep", "-o: '%s' is one of the recordings", out);
	unsigned maxw = 0;
	for (unsigned i = 0; i < sw->nwidth; i++)
		maxw = sw->width[i] > maxw ? sw->width[i] : maxw;
	/* The default ra list stops at the widest fingerprint; a value given
	 * explicitly that no width can hold is a mistake worth reporting. */
	unsigned keep = 0;
	for (unsigned i = 0; i < sw->nra; i++) {
		if (sw->ra[i] > maxw && ra_given)
			return cli_fail("sweep", "--ra: %u exceeds every --width (the widest is %u)",
					sw->ra[i], maxw);
		if (sw->ra[i] <= maxw)
			sw->ra[keep++] = sw->ra[i];
	}
	sw->nra = keep;

	sw->recs = argv + optind;
	sw->nrecs = (unsigned)(argc - optind);
	size_t per_rec = (size_t)sw->nmatch * (sw->nsel ? sw->nsel : 1) * sw->nwidth * sw->nhash *
			 sw->nra;
	sw->default_sel = calloc(sw->nrecs, sizeof *sw->default_sel);
	sw->pts = calloc(per_rec * sw->nrecs + 1, sizeof *sw->pts);
	if (!sw->default_sel || !sw->pts)
		return cli_fail("sweep", "out of memory");
	for (unsigned i = 0; i < sw->nrecs; i++)
		if (add_recording(sw, i))
			return EXIT_BAD_INPUT;
	if (make_units(sw))
		return EXIT_BAD_INPUT;
	/* Shard K of N: the K-th of N contiguous runs of units, so the shards'
	 * CSVs, joined in order, are the whole grid's. */
	sw->unit_hi = sw->nunits;
	if (sw->nshards) {
		sw->unit_lo = sw->nunits * (sw->shard - 1) / sw->nshards;
		sw->unit_hi = sw->nunits * sw->shard / sw->nshards;
	}

	char tmp[4096];
	FILE *f = open_temp(out, tmp, sizeof tmp);
	if (!f)
		return cli_fail("sweep", "cannot write '%s': %s", out, strerror(errno));
	cli_catch_signals();
	int rc = run_units(sw, (unsigned)jobs);
	if (!rc)
		rc = check_missed(sw);
	int written = !rc && !write_csv(sw, f);
	if (fclose(f))
		written = 0;
	if (written && !rename(tmp, out))
		return 0;
	unlink(tmp);
	if (rc == EXIT_INTERRUPTED)
		fprintf(stderr, "avrr sweep: interrupted; nothing written\n");
	else if (!rc)
		fprintf(stderr, "avrr sweep: cannot write '%s': %s\n", out, strerror(errno));
	return rc ? rc : 1;
}

/* ---- merge --------------------------------------------------------------- */

typedef struct part {
	const char *path;
	char *text;       /* the whole file */
	char *body;       /* after its two header lines */
	unsigned k, n;
	unsigned long long grid;
} part;

/* Reads a shard's CSV: its shard line, the CSV header, the rows. */
static int read_part(part *p, avrr_err *err)
{
	if (!(p->text = util_read_text(p->path, err)))
		return -1;
	char tail;
	char *nl = strchr(p->text, '\n');
	if (!nl || sscanf(p->text, "# avrr sweep shard %u/%u grid %16llx%c", &p->k, &p->n, &p->grid,
			  &tail) != 4 || tail != '\n' || !p->k || p->k > p->n)
		return avrr_errf(err, "%s:1: not a shard of a sweep (no line '# avrr sweep shard K/N "
				 "grid KEY'); make shards with 'avrr sweep --shard K/N'", p->path);
	if (strncmp(nl + 1, CSV_HEADER, strlen(CSV_HEADER)))
		return avrr_errf(err, "%s:2: not the header of a sweep's CSV", p->path);
	p->body = nl + 1 + strlen(CSV_HEADER);
	return 0;
}

/* `avrr sweep merge PART... -o OUT.csv`: the shards of one sweep, in any
 * order, joined into the CSV the whole sweep writes. */
static int sweep_merge(int argc, char **argv)
{
	const char *out = NULL;
	int nparts = 0;
	part *parts = calloc((size_t)argc, sizeof *parts);
	if (!parts)
		return cli_fail("sweep", "out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (++i == argc) {
				free(parts);
				return cli_fail("sweep", "merge: %s needs a value", argv[i - 1]);
			}
			out = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(parts);
			return cli_fail("sweep", "merge: unknown option '%s'; see 'avrr sweep --help'",
					argv[i]);
		} else {
			parts[nparts++].path = argv[i];
		}
	}
	int rc = EXIT_BAD_INPUT;
	avrr_err err = { "" };
	part **by_k = NULL;
	if (!nparts || !out) {
		cli_fail("sweep", "usage: avrr sweep merge PART.csv [PART.csv ...] -o RESULTS.csv");
		goto done;
	}
	for (int i = 0; i < nparts; i++)
		if (read_part(&parts[i], &err)) {
			cli_fail("sweep", "merge: %s", err.msg);
			goto done;
		}
	unsigned n = parts[0].n;
	if (!(by_k = calloc(n + 1, sizeof *by_k))) {
		cli_fail("sweep", "out of memory");
		goto done;
	}
	for (int i = 0; i < nparts; i++) {
		part *p = &parts[i];
		if (p->n != n || p->grid != parts[0].grid) {
			cli_fail("sweep", "merge: %s is shard %u/%u of another sweep than %s (%u/%u)",
				 p->path, p->k, p->n, parts[0].path, parts[0].k, n);
			goto done;
		}
		if (by_k[p->k]) {
			cli_fail("sweep", "merge: %s and %s are both shard %u/%u", by_k[p->k]->path,
				 p->path, p->k, n);
			goto done;
		}
		by_k[p->k] = p;
	}
	for (unsigned k = 1; k <= n; k++)
		if (!by_k[k]) {
			cli_fail("sweep", "merge: shard %u/%u is missing", k, n);
			goto done;
		}
	char tmp[4096];
	FILE *f = open_temp(out, tmp, sizeof tmp);
	if (!f) {
		cli_fail("sweep", "cannot write '%s': %s", out, strerror(errno));
		goto done;
	}
	fputs(CSV_HEADER, f);
	for (unsigned k = 1; k <= n; k++)
		fputs(by_k[k]->body, f);
	int bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, out)) {
		cli_fail("sweep", "cannot write '%s': %s", out, strerror(errno));
		unlink(tmp);
		goto done;
	}
	rc = 0;
done:
	for (int i = 0; i < nparts; i++)
		free(parts[i].text);
	free(parts);
	free(by_k);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return sweep_merge(argc - 1, argv + 1);
	sweep sw = { 0 };
	int rc = sweep_main(&sw, argc, argv);
	free_sweep(&sw);
	return rc;
}
