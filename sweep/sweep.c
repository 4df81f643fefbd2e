/*
 * sweep.c — the oracle over a grid of fingerprint configurations (see
 * sweep.h and docs/sweep.md).
 *
 * The grid is cut into units: one recording, one matching mode, one
 * selector — or adjacent selectors that differ only in counters — and at
 * most UNIT_MAX configurations, so that each unit is one oracle pass in
 * which the configurations share the selector's bytes.
 * Units run in forked worker processes, up to `jobs` at a time; each sends
 * its counters back through a pipe.  The parent alone writes the CSV, in
 * grid order, so the file is the same for any number of jobs and any order
 * in which the units finish.
 *
 * A shard is the K-th of N contiguous runs of units; its CSV opens with a
 * line naming the shard and a key of the whole grid, and sweep_merge checks
 * that its parts are the N shards of one grid and joins their rows, in
 * shard order, into the bytes the whole sweep writes.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "rerun/fingerprints.h"
#include "rerun/replica.h"
#include "replayer/fpindex.h"
#include "replayer/replayer.h"
#include "util/digest.h"
#include "util/file.h"
#include "session/session.h"

#define UNIT_MAX 64     /* configurations per oracle pass */
#define SPEC_MAX SWEEP_SPEC_MAX

enum { M_INSTRUCTIONS, M_INTERRUPTS, M_HITS, M_CORRECT, M_FALSE_LOOP, M_FALSE_RA,
       M_INPUT_DUPLICATES, M_HASH_COLLISIONS, M_MISSED, NMETRICS };
static const char *const METRIC[NMETRICS] = {
	"instructions", "interrupts", "hits", "correct", "false_loop", "false_ra",
	"input_duplicates", "hash_collisions", "missed",
};
const char *const sweep_hash_names[SWEEP_NHASH] = { "modular", "twomod", "jenkins", "knuth",
						     "rr" };
const char *const sweep_match_names[2] = { "set", "sequence" };
#define HASH sweep_hash_names
#define MATCH sweep_match_names

/* One configuration of the grid, on one recording, in one matching mode. */
typedef struct point {
	unsigned rec, match, sel, width, hash, ra;  /* indexes, except width and ra */
	unsigned bytes;     /* the first of the adjacent selectors with sel's bytes */
	char name[64];
	char spec[SPEC_MAX + 64];                   /* NAME:sel=...,hash=...,ra=K,width=W */
	uint64_t m[NMETRICS];
} point;

typedef struct unit {
	size_t first, n;  /* points[first, first + n): same recording, match, selector */
} unit;

/* What a worker sends back: its sweep_status, a message when it failed,
 * and each configuration's counters. */
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

struct sweep {
	sweep_grid g;                       /* as planned; its strings are the caller's */
	char (*default_sel)[SPEC_MAX];      /* per recording, without --selector */
	point *pts;
	size_t npts;
	unit *units;
	size_t nunits;
	unsigned shard, nshards;            /* sweep_select_shard; 0/0 for the whole grid */
	size_t unit_lo, unit_hi;            /* the units this run computes */
	volatile int *interrupted;
};

static const char *selector_of(const sweep *sw, const point *p)
{
	return sw->g.nsel ? sw->g.sel[p->sel] : sw->default_sel[p->rec];
}

/* ---- the grid ----------------------------------------------------------- */

/* The paper's selector (Gracioli & Fischmeister §4.1) for the recording's firmware: SPL,
 * SPH, SREG and the three GP registers frequency-based selection ranks
 * first — what the grid varies the hash and `ra` bits of.  Falls back to
 * `all` when the code cannot be decoded. */
static void paper_selector(const rerun_replica *rep, char *out, size_t cap)
{
	if (fp_frequency_selector(rep->fw, sim_names(rep->s), 0, 3, "SPL+SPH+SREG", out, cap))
		snprintf(out, cap, "all");
}

/* Selector `sel` alone, for its counter bits and its bytes; -1 if it does
 * not parse (the grid's check reports that). */
static int parse_selector(const rerun_replica *rep, const char *sel, fp_config *c)
{
	char spec[SPEC_MAX + 32];
	avrr_err ignored;
	snprintf(spec, sizeof spec, "sel=%s,ra=0,width=64", sel);
	return fp_parse(spec, sim_names(rep->s), rep->fw, sim_data_size(rep->s), NULL, c, &ignored);
}

/* Appends recording `rec`'s points, in grid order: match, selector, width
 * (or hash bits), hash, ra.  ra values whose bits and the counters' exceed
 * a width are left out for that width; with hash bits, points wider than
 * 64 bits are. */
static int add_points(sweep *sw, unsigned rec, const rerun_replica *rep, avrr_err *err)
{
	const sweep_grid *g = &sw->g;
	unsigned nsel = g->nsel ? g->nsel : 1, nsize = g->nhash_bits ? g->nhash_bits : g->nwidth;
	unsigned counters[SWEEP_LIST_MAX], bytes[SWEEP_LIST_MAX];
	/* Selectors that differ only in counters gather the same bytes: given
	 * next to each other, they can share a unit, and so one simulation, as
	 * `avrr replay --oracle` shares it among all its configurations. */
	fp_config c[2];
	int prev_ok = 0;
	for (unsigned s = 0; s < nsel; s++) {
		fp_config *cur = &c[s % 2], *prev = &c[(s + 1) % 2];
		int ok = !parse_selector(rep, g->nsel ? g->sel[s] : sw->default_sel[rec], cur);
		counters[s] = ok ? cur->count_bits : 0;
		bytes[s] = ok && prev_ok && fpi_same_bytes(prev, cur) ? bytes[s - 1] : s;
		prev_ok = ok;
	}
	for (unsigned mi = 0; mi < g->nmatch; mi++)
		for (unsigned s = 0; s < nsel; s++)
			for (unsigned zi = 0; zi < nsize; zi++)
				for (unsigned hi = 0; hi < g->nhash; hi++)
					for (unsigned ri = 0; ri < g->nra; ri++) {
						unsigned width = g->nhash_bits
								 ? g->hash_bits[zi] + g->ra[ri] + counters[s]
								 : g->width[zi];
						if (g->ra[ri] + counters[s] > width || width > 64)
							continue;
						point *p = &sw->pts[sw->npts++];
						*p = (point){ .rec = rec, .match = g->match[mi], .sel = s,
							      .bytes = bytes[s], .width = width,
							      .hash = g->hash[hi], .ra = g->ra[ri] };
						snprintf(p->name, sizeof p->name, "s%u-%s-ra%u-w%u", s,
							 HASH[p->hash], p->ra, p->width);
						const char *sel = selector_of(sw, p);
						if (strlen(sel) > SPEC_MAX - 40)
							return avrr_errf(err, "--selector: '%.40s...' is too "
									 "long", sel);
						snprintf(p->spec, sizeof p->spec,
							 "%s:sel=%s,hash=%s,ra=%u,width=%u", p->name, sel,
							 HASH[p->hash], p->ra, p->width);
					}
	return 0;
}

/* Checks recording `rec` before any work starts — an avrr recording that
 * keeps its ground truth (the oracle follows it), every spec of the grid
 * valid for its firmware — and adds its points. */
static int add_recording(sweep *sw, unsigned rec, avrr_err *err)
{
	const char *path = sw->g.recs[rec];
	db *d = NULL;
	rerun_replica rep;
	int have_rep = 0, rc = -1;
	if (db_open(path, 0, &d, err) || rerun_replica_open(d, &rep, err))
		goto out;
	have_rep = 1;
	if (!rep.run.has_ground_truth) {
		avrr_errf(err, "%s: the oracle follows the ground truth, and this recording was "
			  "stripped of it", path);
		goto out;
	}
	paper_selector(&rep, sw->default_sel[rec], sizeof sw->default_sel[rec]);
	size_t first = sw->npts;
	if (add_points(sw, rec, &rep, err))
		goto out;
	/* The first matching mode's points name every configuration once. */
	size_t n = 0;
	while (first + n < sw->npts && sw->pts[first + n].match == sw->pts[first].match)
		n++;
	const char **specs = malloc((n + 1) * sizeof *specs);
	if (!specs) {
		avrr_errf(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		specs[i] = sw->pts[first + i].spec;
	rerun_fpset set;
	avrr_err why;
	if (rerun_fpset_parse(specs, (unsigned)n, rep.s, &set, &why)) {
		avrr_errf(err, "%s: %s", path, why.msg);
	} else {
		rerun_fpset_free(&set);
		rc = 0;
	}
	free(specs);
out:
	if (have_rep)
		rerun_replica_close(&rep);
	db_close(d);
	return rc;
}

/* Cuts the points into units: runs of the same recording, match and
 * selector bytes, split into equal chunks of at most UNIT_MAX. */
static int make_units(sweep *sw, avrr_err *err)
{
	sw->units = malloc((sw->npts + 1) * sizeof *sw->units);
	if (!sw->units)
		return avrr_errf(err, "out of memory");
	for (size_t i = 0, j; i < sw->npts; i = j) {
		const point *a = &sw->pts[i];
		for (j = i; j < sw->npts && sw->pts[j].rec == a->rec &&
			    sw->pts[j].match == a->match && sw->pts[j].bytes == a->bytes; j++)
			;
		size_t run = j - i, chunks = (run + UNIT_MAX - 1) / UNIT_MAX;
		for (size_t c = 0; c < chunks; c++) {
			size_t lo = i + run * c / chunks, hi = i + run * (c + 1) / chunks;
			sw->units[sw->nunits++] = (unit){ lo, hi - lo };
		}
	}
	return 0;
}


/* ---- planning ----------------------------------------------------------- */

int sweep_plan(const sweep_grid *g, sweep **out, avrr_err *err)
{
	*out = NULL;
	sweep *sw = calloc(1, sizeof *sw);
	size_t per_rec = (size_t)g->nmatch * (g->nsel ? g->nsel : 1) *
			 (g->nhash_bits ? g->nhash_bits : g->nwidth) * g->nhash * g->nra;
	if (!sw)
		return avrr_errf(err, "out of memory");
	sw->g = *g;
	sw->default_sel = calloc(g->nrecs + 1, sizeof *sw->default_sel);
	sw->pts = calloc(per_rec * g->nrecs + 1, sizeof *sw->pts);
	int rc = !sw->default_sel || !sw->pts ? avrr_errf(err, "out of memory") : 0;
	for (unsigned i = 0; i < g->nrecs && !rc; i++)
		rc = add_recording(sw, i, err);
	if (!rc)
		rc = make_units(sw, err);
	if (rc) {
		sweep_free(sw);
		return -1;
	}
	sweep_select_shard(sw, 1, 1);
	sw->shard = sw->nshards = 0;  /* the whole grid, with no shard line */
	*out = sw;
	return 0;
}

void sweep_select_shard(sweep *sw, unsigned k, unsigned n)
{
	sw->shard = k;
	sw->nshards = n;
	sw->unit_lo = sw->nunits * (k - 1) / n;
	sw->unit_hi = sw->nunits * k / n;
}

void sweep_free(sweep *sw)
{
	if (!sw)
		return;
	free(sw->default_sel);
	free(sw->pts);
	free(sw->units);
	free(sw);
}

/* ---- a unit, in a worker process ---------------------------------------- */

static void run_unit(const sweep *sw, const unit *u, unit_msg *msg)
{
	const point *pts = &sw->pts[u->first];
	const char *path = sw->g.recs[pts[0].rec];
	const char *specs[UNIT_MAX];
	for (size_t i = 0; i < u->n; i++)
		specs[i] = pts[i].spec;
	rp_options o = { .oracle = 1, .oracle_configs = specs, .noracle_configs = (unsigned)u->n,
			 .match = pts[0].match ? RP_MATCH_SEQUENCE : RP_MATCH_SET,
			 .interrupted = sw->interrupted };
	avrr_err err = { "" };
	replay *r;
	if (rp_open(path, &o, &r, &err)) {
		msg->status = *sw->interrupted ? SWEEP_INTERRUPTED : SWEEP_FAILED;
		snprintf(msg->text, sizeof msg->text, "%s: %s", path, err.msg);
		return;
	}
	rp_stop why = rp_run(r, 0);
	const rp_divergence *d = rp_get_divergence(r);
	size_t n;
	const rp_oracle_result *res = rp_oracle_results(r, &n);
	msg->status = SWEEP_FAILED;
	if (why == RP_STOPPED) {
		msg->status = SWEEP_INTERRUPTED;
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
				msg->status = SWEEP_FAILED;
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

/* What a worker process runs: one unit, its message down fd. */
typedef struct unit_job {
	const sweep *sw;
	size_t u;
} unit_job;

static void work(void *arg, int fd)
{
	const unit_job *job = arg;
	unit_msg *msg = calloc(1, sizeof *msg);
	if (msg) {
		run_unit(job->sw, &job->sw->units[job->u], msg);
		util_write_full(fd, msg, sizeof *msg);  /* short: the parent sees it */
	}
}

static int start_worker(const sweep *sw, size_t u, worker *w)
{
	unit_job job = { sw, u };
	int fd;
	pid_t pid = session_worker(work, &job, &fd);
	if (pid < 0)
		return -1;
	*w = (worker){ .pid = pid, .fd = fd, .unit = u };
	return 0;
}

/* ---- the parent --------------------------------------------------------- */

/* Takes a finished worker's message into the grid; returns its status
 * (err says why when it failed). */
static sweep_status finish_worker(sweep *sw, worker *w, avrr_err *err)
{
	int st;
	close(w->fd);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	const unit *u = &sw->units[w->unit];
	const char *path = sw->g.recs[sw->pts[u->first].rec];
	if (w->got != sizeof w->msg) {
		if (WIFSIGNALED(st))
			avrr_errf(err, "%s: a worker died of signal %d", path, WTERMSIG(st));
		else
			avrr_errf(err, "%s: a worker ended without its results", path);
		return SWEEP_FAILED;
	}
	if (w->msg.status) {
		avrr_errf(err, "%s", w->msg.status == SWEEP_INTERRUPTED ? "interrupted" : w->msg.text);
		return (sweep_status)w->msg.status;
	}
	for (size_t i = 0; i < u->n; i++)
		memcpy(sw->pts[u->first + i].m, w->msg.m[i], sizeof w->msg.m[i]);
	return 0;
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
#define SHARD_LINE "# avrr sweep shard %u/%u grid "  /* then the key, 16 hex digits */

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
		cap += strlen(sw->g.recs[sw->pts[i].rec]) + strlen(sw->pts[i].spec) + 4;
	char *text = malloc(cap);
	if (!text)
		return 0;
	for (size_t i = 0; i < sw->npts; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s|%u|%s\n", sw->g.recs[sw->pts[i].rec],
					sw->pts[i].match, sw->pts[i].spec);
	uint64_t key = digest_key64(text, len);
	free(text);
	return key;
}

int sweep_write_csv(const sweep *sw, FILE *f)
{
	size_t lo, hi;
	point_range(sw, &lo, &hi);
	if (sw->nshards)
		fprintf(f, SHARD_LINE "%016llx\n", sw->shard, sw->nshards,
			(unsigned long long)grid_key(sw));
	fputs(CSV_HEADER, f);
	for (size_t i = lo; i < hi; i++) {
		const point *p = &sw->pts[i];
		for (int k = 0; k < NMETRICS; k++) {
			put_field(f, sw->g.recs[p->rec]);
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
static sweep_status check_missed(const sweep *sw, avrr_err *err)
{
	size_t lo, hi;
	point_range(sw, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const point *p = &sw->pts[i];
		if (p->m[M_MISSED]) {
			avrr_errf(err, "BUG: the oracle missed %llu recorded interrupt%s of %s under %s"
				  " (%s matching); a fingerprint of a recorded state must always be"
				  " found", (unsigned long long)p->m[M_MISSED],
				  p->m[M_MISSED] == 1 ? "" : "s", sw->g.recs[p->rec], p->name,
				  MATCH[p->match]);
			return SWEEP_FAILED;
		}
	}
	return SWEEP_OK;
}

sweep_status sweep_run(sweep *sw, unsigned jobs, volatile int *interrupted,
		       void (*progress)(void *ud, size_t done, size_t total), void *ud,
		       avrr_err *err)
{
	sw->interrupted = interrupted;
	worker *ws = calloc(jobs, sizeof *ws);
	struct pollfd *pfd = calloc(jobs, sizeof *pfd);
	if (!ws || !pfd) {
		free(ws);
		free(pfd);
		avrr_errf(err, "out of memory");
		return SWEEP_FAILED;
	}
	sweep_status rc = SWEEP_OK;
	size_t next = sw->unit_lo, done = 0, total = sw->unit_hi - sw->unit_lo;
	unsigned nrun = 0;
	if (progress)
		progress(ud, 0, total);
	for (;;) {
		if (*interrupted && !rc) {
			rc = SWEEP_INTERRUPTED;
			avrr_errf(err, "interrupted");
			for (unsigned k = 0; k < nrun; k++)
				kill(ws[k].pid, SIGTERM);
		}
		while (!rc && nrun < jobs && next < sw->unit_hi) {
			if (start_worker(sw, next, &ws[nrun])) {
				avrr_errf(err, "cannot start a worker: %s", strerror(errno));
				rc = SWEEP_FAILED;
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
			continue;  /* a signal: the loop looks at *interrupted */
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
			avrr_err why;
			sweep_status st = finish_worker(sw, w, &why);
			if (st && !rc) {
				rc = st;
				*err = why;
				/* Stop the others: their results no longer matter. */
				for (unsigned k = 0; k < nrun; k++)
					if (k != i)
						kill(ws[k].pid, SIGTERM);
			}
			ws[i] = ws[--nrun];
			done++;
			if (progress)
				progress(ud, done, total);
		}
	}
	free(ws);
	free(pfd);
	return rc ? rc : check_missed(sw, err);
}


/* ---- merge ------------------------------------------------------------- */

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
	if (!nl || sscanf(p->text, SHARD_LINE "%16llx%c", &p->k, &p->n, &p->grid,
			  &tail) != 4 || tail != '\n' || !p->k || p->k > p->n)
		return avrr_errf(err, "%s:1: not a shard of a sweep (no line '# avrr sweep shard K/N "
				 "grid KEY'); make shards with 'avrr sweep --shard K/N'", p->path);
	if (strncmp(nl + 1, CSV_HEADER, strlen(CSV_HEADER)))
		return avrr_errf(err, "%s:2: not the header of a sweep's CSV", p->path);
	p->body = nl + 1 + strlen(CSV_HEADER);
	return 0;
}

int sweep_merge(char *const *paths, unsigned nparts, FILE *out, avrr_err *err)
{
	part *parts = calloc(nparts + 1, sizeof *parts);
	part **by_k = NULL;
	int rc = -1;
	if (!parts)
		return avrr_errf(err, "out of memory");
	for (unsigned i = 0; i < nparts; i++) {
		parts[i].path = paths[i];
		if (read_part(&parts[i], err))
			goto done;
	}
	unsigned n = nparts ? parts[0].n : 0;
	if (!nparts || !(by_k = calloc(n + 1, sizeof *by_k))) {
		avrr_errf(err, nparts ? "out of memory" : "no shards to merge");
		goto done;
	}
	for (unsigned i = 0; i < nparts; i++) {
		part *p = &parts[i];
		if (p->n != n || p->grid != parts[0].grid) {
			avrr_errf(err, "%s is shard %u/%u of another sweep than %s (%u/%u)", p->path,
				  p->k, p->n, parts[0].path, parts[0].k, n);
			goto done;
		}
		if (by_k[p->k]) {
			avrr_errf(err, "%s and %s are both shard %u/%u", by_k[p->k]->path, p->path,
				  p->k, n);
			goto done;
		}
		by_k[p->k] = p;
	}
	for (unsigned k = 1; k <= n; k++)
		if (!by_k[k]) {
			avrr_errf(err, "shard %u/%u is missing", k, n);
			goto done;
		}
	fputs(CSV_HEADER, out);
	for (unsigned k = 1; k <= n; k++)
		fputs(by_k[k]->body, out);
	rc = 0;
done:
	for (unsigned i = 0; i < nparts; i++)
		free(parts[i].text);
	free(parts);
	free(by_k);
	return rc;
}
