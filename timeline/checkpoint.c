/*
 * checkpoint.c — the process machinery of time travel (see travel.h and
 * internal.h): checkpoints laid as forked processes along a forward run,
 * thinned under the count and memory caps, served on their FIFOs; going
 * back to a position by resuming a copy of one; scouts that run a span
 * ahead to find where a backward motion stops.
 */
#include "timeline/internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "session/session.h"

/* A motion that ends this far or farther past its last checkpoint lays one
 * this many instructions short of its end: stepping back from where a
 * user arrives then replays at most this much, not a whole interval. */
#define NEAR_BACK (1u << 14)
/* A run through to its target lays a checkpoint no nearer the last than
 * 1/SPARSE of the way it has run (see ck_run_forward). */
#define SPARSE 8
/* A motion whose steps the hook does not see polls the front-end between
 * slices of this many instructions (about a millisecond). */
#define POLL_SLICE (1u << 15)
/* A motion lays the engine's spare this many instructions short of its
 * end, unless its spare lies within SPARE_STALE below the end already.
 * A jump back to a position from the spare up to the engine's own
 * (reverse-stepi, a short goto back) wakes the spare, which runs on as
 * the engine: no fork, and at most SPARE_STALE instructions replayed. */
#define SPARE_BACK (1u << 10)
#define SPARE_STALE (1u << 13)

enum { REQ_RESUME = 1, REQ_TAKE, REQ_SCOUT, REQ_EXIT };

/* To a checkpoint.  `file` points into the line table, which every process
 * loaded before the first fork, so it is valid in all of them. */
typedef struct travel_req {
	int op;
	uint64_t target;      /* resume: the position; scout: positions below */
	motion_kind scout;
	const char *file;
	unsigned line, depth;
	int watch_before;     /* scout: see tl_reverse_continue */
	tl_state st;
	unsigned char carry[TL_CARRY_MAX];
	tl_stop rep;          /* resume: the stop to report on arrival */
	tl_work work;         /* the asker's, which the copy goes on counting */
	size_t listed;        /* resume, take: the checkpoints after the jump */
	int lay;              /* resume: ck_run_forward's `lay` for the run */
} travel_req;

typedef struct scout_result {
	int found, interrupted;
	uint64_t pos;
	tl_stop rep;
	uint64_t ran;         /* the instructions the scout replayed */
} scout_result;

/* Tells the checkpoint cks[i] to go and takes it off the list. */
static void drop_checkpoint(timeline *tl, travel_ck *cks, size_t *n, size_t i)
{
	travel_req q = { .op = REQ_EXIT };
	travel_send_to(tl->t, &cks[i], &q, sizeof q);
	travel_forget(tl->t, &cks[i]);
	memmove(&cks[i], &cks[i + 1], (*n - i - 1) * sizeof *cks);
	(*n)--;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Which checkpoint to thin for memory, with the new one about to be laid
 * at k: the one in the densest spot (its neighbours closest together)
 * among the half farthest from k, so that the checkpoints near where the
 * user works stay dense — stepping back replays little — while the old
 * ones grow sparse.  Never the one at icount 0, the way to every position.
 * Returns 0 when there is none to thin. */
static size_t thin_candidate(const travel_ck *cks, size_t n, uint64_t k)
{
	/* The median distance from k, of the checkpoints past the first. */
	uint64_t d[TRAVEL_MAX * 2];
	size_t m = 0;
	for (size_t i = 1; i < n; i++)
		d[m++] = distance(cks[i].icount, k);
	if (!m)
		return 0;
	for (size_t i = 1; i < m; i++)  /* insertion sort: a few hundred at most */
		for (size_t j = i; j > 0 && d[j - 1] > d[j]; j--) {
			uint64_t x = d[j];
			d[j] = d[j - 1];
			d[j - 1] = x;
		}
	uint64_t median = d[m / 2];
	size_t best = 0;
	uint64_t best_gap = 0;
	for (size_t i = 1; i < n; i++) {
		if (!cks[i].icount || distance(cks[i].icount, k) < median)
			continue;
		uint64_t right = i + 1 < n ? cks[i + 1].icount
					   : (k > cks[i].icount ? k : cks[i].icount);
		uint64_t gap = right - cks[i - 1].icount;
		if (!best || gap < best_gap ||
		    (gap == best_gap && distance(cks[i].icount, k) > distance(cks[best].icount, k))) {
			best = i;
			best_gap = gap;
		}
	}
	return best;
}

/* Waits, a little, for the checkpoints told to go to be gone: until then
 * what they shared with the others is still split with them, and a
 * measurement would come out low. */
static void await_gone(const int *pids, size_t n)
{
	for (int tries = 0; tries < 200; tries++) {
		size_t left = 0;
		for (size_t i = 0; i < n; i++)
			left += kill(pids[i], 0) == 0;
		if (!left)
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 250000 }, NULL);
	}
}

static void measure(timeline *tl, const travel_ck *cks, size_t n)
{
	tl->mem_kb = travel_memory_kb(cks, n);
	tl->mem_n = n;
	tl->mem_laid = 0;
}

/* Thins the checkpoints (cks, *n of them) so that, with `adding` more at
 * k, their memory stays under the cap.
 *
 * Measuring is reading every checkpoint's smaps_rollup, about 0.1 ms each:
 * at every lay that would cost more than the replay between two lays (a
 * few ms).  So the memory is measured only now and then — when not yet
 * measured in this process, when the estimate nears the cap, and once the
 * checkpoints laid since number a quarter of those measured, which keeps
 * the cost per lay constant — and estimated in between as the last
 * measurement plus its average per checkpoint for each one laid since.
 * Past 7/8 of the cap by measurement, the far checkpoints are thinned
 * until the estimate is 3/4 of it, and measured again once they are gone
 * (the estimate of what thinning frees errs high: a neighbour may keep
 * pages the thinned one shared with it).  The gap between the two leaves
 * room for the estimate's error, and lays after thinning need no
 * measurement. */
static void keep_under_cap(timeline *tl, travel_ck *cks, size_t *n, uint64_t k, int adding)
{
	int64_t cap = (int64_t)tl->t->mem_cap_kb, high = cap - cap / 8, low = cap - cap / 4;
	if (!cap || !*n)
		return;
	if (!tl->mem_n || tl->mem_laid >= (tl->mem_n / 4 > 4 ? tl->mem_n / 4 : 4))
		measure(tl, cks, *n);
	for (int fresh = tl->mem_laid == 0;; fresh = 1) {
		int64_t per = (int64_t)(tl->mem_kb / tl->mem_n);
		/* Signed: after thinning there may be fewer than measured. */
		int64_t estimate = (int64_t)tl->mem_kb +
				   ((int64_t)*n + adding - (int64_t)tl->mem_n) * per;
		if (estimate <= high)
			return;
		if (!fresh) {
			measure(tl, cks, *n);
			continue;
		}
		int gone[TRAVEL_MAX * 2];
		size_t ngone = 0, i;
		while (estimate > low && (i = thin_candidate(cks, *n, k)) != 0) {
			gone[ngone++] = cks[i].pid;
			drop_checkpoint(tl, cks, n, i);
			estimate -= per;
		}
		if (!ngone)
			return;  /* only the start is left */
		await_gone(gone, ngone);
		measure(tl, cks, *n);
	}
}

/* Thins the checkpoints (cks, *n of them) down to `max`. */
static void keep_count(timeline *tl, travel_ck *cks, size_t *n, unsigned max)
{
	uint64_t k = rp_icount(tl->r);
	for (size_t i; *n > max && (i = thin_candidate(cks, *n, k)) != 0;)
		drop_checkpoint(tl, cks, n, i);
}

/* Forks a checkpoint of this position, thinning the others beyond the
 * count cap and the memory cap alike (thin_candidate).  The checkpoint
 * continues in ck_serve. */
int ck_lay(timeline *tl)
{
	uint64_t k = rp_icount(tl->r);
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	for (size_t i = 0; i < n; i++)
		if (cks[i].icount == k)
			return 0;  /* one exists here */
	keep_count(tl, cks, &n, tl->t->max ? tl->t->max - 1 : 0);
	keep_under_cap(tl, cks, &n, k, 1);
	tl->thin_due = 0;
	int fd = travel_register(tl->t, k);
	if (fd < 0)
		return 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		tl->ck_fd = fd;
		longjmp(tl->top, 1);
	}
	close(fd);
	if (pid < 0) {
		travel_unregister(tl->t, k);
		return 0;
	}
	travel_set_pid(tl->t, k, (int)pid);
	tl->mem_laid++;
	tl->work.laid++;
	return 1;
}

/* Lays the engine's spare here: an ordinary checkpoint, but the engine's
 * to take over whole (never the one at icount 0, the way to every
 * position).  The one it replaces stays, as a checkpoint like any. */
static void lay_spare(timeline *tl)
{
	uint64_t k = rp_icount(tl->r);
	if (!k || tl->spare_ready[0] >= 0 || pipe(tl->spare_ready))
		return;
	int laid = ck_lay(tl);
	close(tl->spare_ready[1]);
	tl->spare_ready[1] = -1;
	if (laid) {
		tl->spare = k;
	} else {
		close(tl->spare_ready[0]);
		tl->spare_ready[0] = -1;
	}
}

/* Waits until the spare laid by this motion waits for requests itself.
 * A process just forked has not run yet: taken over then, it would first
 * wait to be scheduled, and fault in its pages — milliseconds on a busy
 * machine, on the clock of the jump back that comes right after (a
 * script's, gdb's).  Here it is on the motion's, which is long. */
static void await_spare(timeline *tl)
{
	if (tl->spare_ready[0] < 0)
		return;
	struct pollfd p = { .fd = tl->spare_ready[0], .events = POLLIN };
	while (poll(&p, 1, 1000) < 0 && errno == EINTR)
		;
	close(tl->spare_ready[0]);
	tl->spare_ready[0] = -1;
}

/* After going backward: the process that asked is a checkpoint now, laid
 * past both caps, which are kept once the user is idle
 * (ck_thin_when_idle), or at the next lay: thinning is a message, an
 * unlink and an exit each, and for the memory cap a measurement now and
 * then, tens of milliseconds with a few hundred checkpoints — all of it
 * on the clock of the next request otherwise (gdb reads the registers at
 * once).  A run of jumps back with no pause (gdb's `reverse-stepi 1000`
 * is a thousand of them) leaves a process at every position it passed:
 * past a sixteenth over the count cap, that is thinned at once. */
void ck_thin_after_travel(timeline *tl)
{
	/* The asker's count, which a listing here (a scan of the directory,
	 * ~0.2 ms) would only confirm, on the clock of the next command. */
	if (tl->listed > tl->t->max + tl->t->max / 16) {
		travel_ck cks[TRAVEL_MAX * 2];
		size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
		keep_count(tl, cks, &n, tl->t->max);
	}
	tl->thin_due = 1;
}

/* How long the front-end must be quiet before the caps are kept after a
 * jump: a client's next request (gdb's register read, a script's next
 * line) comes well within it, a person's later. */
#define IDLE_MS 50

void ck_thin_when_idle(timeline *tl)
{
	if (!tl->thin_due)
		return;
	struct pollfd p = { .fd = tl->t->cmd_fd, .events = POLLIN };
	if (tl->t->cmd_fd >= 0 && poll(&p, 1, IDLE_MS) > 0)
		return;  /* a command first: the thinning stays due */
	tl->thin_due = 0;
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	keep_count(tl, cks, &n, tl->t->max);
	keep_under_cap(tl, cks, &n, rp_icount(tl->r), 0);
}

uint64_t tl_checkpoint_memory(timeline *tl)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	if (!n)
		return 0;
	measure(tl, cks, n);
	keep_under_cap(tl, cks, &n, rp_icount(tl->r), 0);
	return tl->mem_kb;
}

/* The checkpoint at or below k. */
static int checkpoint_below(const timeline *tl, uint64_t k, uint64_t *ck)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	int found = 0;
	for (size_t i = 0; i < n && cks[i].icount <= k; i++) {
		*ck = cks[i].icount;
		found = 1;
	}
	return found ? 0 : -1;
}

/* Whether the current motion runs through to its target unless the
 * replay itself stops: no breakpoint, no source line, no frame can end
 * it.  Such a run lays its checkpoints sparsely (SPARSE). */
static int runs_through(const timeline *tl)
{
	return tl->mo == MO_NONE || (tl->mo == MO_BREAKS && tl->st.nb == 0);
}

/* Runs forward to `target` (TO_END: the end) under the current motion,
 * laying checkpoints unless `lay` is LAY_NONE: at multiples of the
 * interval, and, unless one is there already, within NEAR_BACK below the
 * target (the end, for TO_END) — NEAR_BACK short of it, or here when the
 * target is that close — and with LAY_SPARE the engine's spare SPARE_BACK
 * short of it (or here), unless the spare is within SPARE_STALE below it
 * already; the run returns once that spare waits (await_spare).
 *
 * A motion that can stop anywhere (a breakpoint, a new line) lays one at
 * every multiple, so that stepping back from wherever it stops replays at
 * most an interval.  One that runs through to its target lays them ever
 * sparser, each at least 1/SPARSE of the way run so far past the last:
 * a run of L instructions lays about SPARSE * ln(L / interval) of them,
 * not L / interval — each a fork of the whole engine, and past the count
 * cap a thinning and a measurement — and its target gets its NEAR_BACK
 * one all the same.  Positions passed on the way are reached again from
 * the checkpoint below, replaying at most 1/SPARSE of the distance run.
 * Such a run, and a scout or motion that checks only value watches and
 * interrupt breakpoints, has the step hook told only of the steps that
 * change the call stack or a watched value (the host's filter_steps): the rest
 * run at the replay's own speed. */
static rp_stop run_forward(timeline *tl, uint64_t target, int lay);

rp_stop ck_run_forward(timeline *tl, uint64_t target, int lay)
{
	rp_stop why = run_forward(tl, target, lay);
	await_spare(tl);
	return why;
}

static rp_stop run_forward(timeline *tl, uint64_t target, int lay)
{
	uint64_t near = 0, ck, aim = target == TO_END ? rp_length(tl->r) : target;
	uint64_t start = rp_icount(tl->r), last = start, interval = tl->t->interval;
	int sparse = runs_through(tl), filtered = tl->host->filterable(tl);
	/* The step hook, told of few steps, cannot poll for a stop request
	 * (the active timeline's motions, not a copy's run to its target). */
	int polls = filtered && tl->mo == MO_BREAKS && tl->fe && tl->fe->poll;
	if (lay && aim > start && (checkpoint_below(tl, aim, &ck) || aim - ck > NEAR_BACK)) {
		near = aim > NEAR_BACK ? aim - NEAR_BACK : 0;
		if (near <= start) {
			ck_lay(tl);
			near = 0;
		}
	}
	uint64_t spare = 0;  /* where to lay the spare; 0: nowhere */
	if (lay == LAY_SPARE && aim > start &&
	    !(tl->spare && tl->spare < aim && aim - tl->spare <= SPARE_STALE)) {
		spare = aim > SPARE_BACK ? aim - SPARE_BACK : 0;
		if (spare <= start) {
			lay_spare(tl);
			spare = 0;
		}
	}
	for (;;) {
		uint64_t now = rp_icount(tl->r);
		if (now >= target)
			return RP_LIMIT;
		uint64_t next = (now / interval + 1) * interval;
		if (sparse) {
			uint64_t gap = (now - start) / SPARSE, from = last + gap;
			if (gap > interval && from > now)
				next = (from + interval - 1) / interval * interval;
		}
		if (near > now && next > aim)
			next = near;  /* no interval's checkpoint between near and target */
		if (spare > now && next > spare)
			next = spare;
		uint64_t until = target < next ? target : next;
		if (polls && until - now > POLL_SLICE)
			until = now + POLL_SLICE;
		if (filtered)
			tl->host->filter_steps(tl, 1);
		rp_stop why = rp_run(tl->r, until);
		if (filtered)
			tl->host->filter_steps(tl, 0);
		tl->work.replayed += rp_icount(tl->r) - now;
		if (why != RP_LIMIT)
			return why;
		if (polls && tl->fe->poll(tl, tl->ud)) {
			tl->rep = (tl_stop){ .kind = TL_INTERRUPTED };
			return RP_BREAK;
		}
		if (spare && rp_icount(tl->r) == spare) {
			lay_spare(tl);
			spare = 0;
		}
		if (lay && rp_icount(tl->r) == next) {
			ck_lay(tl);
			last = next;
		}
	}
}

static void fill_carry(const timeline *tl, travel_req *q)
{
	if (tl->carry)
		memcpy(q->carry, tl->carry, tl->carry_size);
}

/* Makes this timeline the state at `target` and reports `rep` there.
 * Going back, this process hands over to a copy of a checkpoint and
 * becomes a checkpoint itself: the report then comes from the copy, and
 * this function does not return. */
void ck_travel_to(timeline *tl, uint64_t target, tl_stop rep)
{
	uint64_t now = rp_icount(tl->r);
	/* One listing for the way: each costs a scan of the directory,
	 * ~0.2 ms with a few hundred checkpoints. */
	travel_ck cks[TRAVEL_MAX * 2], below = { 0, 0 };
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	int here = 0;  /* a checkpoint at now */
	for (size_t i = 0; i < n; i++) {
		if (cks[i].icount <= target)
			below = cks[i];
		here |= cks[i].icount == now;
	}
	uint64_t ck = below.icount;
	if (target >= now && ck <= now) {
		tl->mo = MO_NONE;
		ck_run_forward(tl, target, LAY_SPARE);
		tl->host->emit(tl, rep);
		return;
	}
	/* The spare, when it is the way, is taken over whole: it leaves no
	 * copy behind, and this process takes its place in the count. */
	int take = tl->spare && ck == tl->spare && target < now && target - ck <= SPARE_STALE;
	/* A hop back of a few instructions (reverse-stepi again, after
	 * the spare was taken) lays no spare on the way: its fork would
	 * cost more than the hop, on its clock. */
	travel_req q = { .op = take ? REQ_TAKE : REQ_RESUME, .target = target, .st = tl->st,
			 .rep = rep, .work = tl->work, .listed = n + !here - take,
			 .lay = now - target <= SPARE_STALE ? LAY_CHECKPOINTS : LAY_SPARE };
	fill_carry(tl, &q);
	fflush(stdout);
	int fd = here ? -1 : travel_register(tl->t, now);
	if (!below.pid || travel_send_to(tl->t, &below, &q, sizeof q)) {
		char why[96];
		snprintf(why, sizeof why, "cannot reach icount %llu: checkpoint %llu is gone",
			 (unsigned long long)target, (unsigned long long)ck);
		if (fd >= 0) {
			close(fd);
			travel_unregister(tl->t, now);
		}
		tl->host->fail(tl, why);
		return;
	}
	if (fd >= 0) {
		tl->ck_fd = fd;
		longjmp(tl->top, 1);
	}
	/* Handed over for good: the front-end is not to take this for a death. */
	dprintf(tl->t->reply_fd, WIRE_ENGINE "0\n");
	_exit(0);
}

/* Asks the checkpoint at ck for the last position in (ck, limit) where the
 * scout motion matches. */
static int scout(timeline *tl, uint64_t ck, uint64_t limit, motion_kind kind, scout_result *res)
{
	int rfd = travel_result_open(tl->t);
	if (rfd < 0)
		return -1;
	travel_req q = { .op = REQ_SCOUT, .target = limit, .scout = kind, .file = tl->mo_file,
			 .line = tl->mo_line, .depth = tl->mo_depth, .st = tl->st,
			 .watch_before = tl->watch_before };
	int rc = travel_send(tl->t, ck, &q, sizeof q) || travel_read_full(rfd, res, sizeof *res);
	close(rfd);
	if (rc)
		return -1;
	tl->work.scouts++;
	tl->work.replayed += res->ran;
	return 0;
}

/* The last position before here where `kind` matches, scanning back one
 * checkpoint span at a time: a scout from checkpoint c looks at positions
 * c+1 .. limit-1 (position 0 follows no step, so it never matches), and at
 * limit too when a watch stops before its access.
 * Returns 1 found, 0 none, -1 interrupted, -2 failed. */
int ck_search_back(timeline *tl, motion_kind kind, uint64_t *pos, tl_stop *rep)
{
	uint64_t limit = rp_icount(tl->r);
	while (limit >= 2) {
		uint64_t ck;
		scout_result res;
		if (checkpoint_below(tl, limit - 2, &ck) || scout(tl, ck, limit, kind, &res))
			return -2;
		/* The scout may have finished before the Ctrl-C reached it. */
		if (res.interrupted || (tl->interrupted && *tl->interrupted))
			return -1;
		if (res.found) {
			*pos = res.pos;
			*rep = res.rep;
			return 1;
		}
		limit = ck + 1;
	}
	return 0;
}

/* ---- serving as a checkpoint ---------------------------------------------- */

static void run_scout(timeline *tl, const travel_req *q)
{
	tl->mo = q->scout;
	tl->mo_file = q->file;
	tl->mo_line = q->line;
	tl->mo_depth = q->depth;
	tl->found = 0;
	tl->watch_before = q->watch_before;
	tl->scout_limit = q->target;
	tl->host->refresh_watches(tl);
	scout_result res = { 0 };
	uint64_t ran_before = tl->work.replayed;
	uint64_t last = q->watch_before ? q->target : q->target - 1;
	rp_stop why = last > rp_icount(tl->r) ? ck_run_forward(tl, last, LAY_NONE) : RP_LIMIT;
	res.interrupted = why == RP_STOPPED;
	res.found = tl->found;
	res.pos = tl->found_pos;
	res.rep = tl->found_rep;
	res.ran = tl->work.replayed - ran_before;
	travel_result_write(tl->t, &res, sizeof res);
	_exit(0);
}

/* Waits for requests; returns in a forked copy that is to be the timeline
 * (after a resume), once it has reported its stop.  Exits on REQ_EXIT or
 * when the front-end is gone. */
void ck_serve(timeline *tl)
{
	signal(SIGINT, SIG_IGN);
	uint64_t k = rp_icount(tl->r);
	if (tl->spare_ready[1] >= 0) {  /* the spare just laid: waiting now */
		/* The engine gives up waiting after a second: no SIGPIPE then. */
		void (*was)(int) = signal(SIGPIPE, SIG_IGN);
		ssize_t w = write(tl->spare_ready[1], "", 1);
		(void)w;
		signal(SIGPIPE, was);
		close(tl->spare_ready[1]);
	}
	if (tl->spare_ready[0] >= 0)    /* the engine's, forked with it */
		close(tl->spare_ready[0]);
	tl->spare_ready[0] = tl->spare_ready[1] = -1;
	for (;;) {
		travel_req q;
		if (travel_wait(tl->t, tl->ck_fd, &q, sizeof q) || q.op == REQ_EXIT) {
			travel_unregister(tl->t, k);
			_exit(0);
		}
		fflush(stdout);
		pid_t pid = q.op == REQ_TAKE ? 0 : fork();
		if (q.op == REQ_SCOUT && pid != 0)
			continue;
		if (q.op == REQ_TAKE) {
			/* The engine's spare becomes the engine: gone from the
			 * list, nothing forked. */
			travel_unregister(tl->t, k);
		} else if (q.op == REQ_RESUME) {
			/* The parent goes on as the engine and the child stays
			 * behind as this checkpoint, under its FIFO renamed: the
			 * parent runs on at once, where a child would first
			 * wait to be scheduled, milliseconds on a busy machine,
			 * on the clock of every jump back.  (Without a child,
			 * the jump is still made; the checkpoint is gone.) */
			if (pid == 0)
				continue;
			if (pid > 0)
				travel_set_pid(tl->t, k, (int)pid);
			else
				travel_unregister(tl->t, k);
		}
		close(tl->ck_fd);
		tl->ck_fd = -1;
		/* This copy inherits the measurement of when its checkpoint
		 * was laid, which stays the estimate's base, and the process
		 * that asked becomes a checkpoint, one more laid since.  The
		 * count of lays starts again here: a copy inherits a count
		 * that may be due, and measuring all the checkpoints at a jump
		 * backward would cost more than a short jump itself. */
		tl->mem_laid = 1;
		sigaction(SIGINT, &tl->sigint, NULL);
		/* A checkpoint forked while a Ctrl-C was pending keeps the flag
		 * set; its copies must not stop on arrival. */
		if (tl->interrupted)
			*tl->interrupted = 0;
		tl->st = q.st;
		tl->work = q.work;
		tl->listed = q.listed;
		tl->spare = 0;  /* the asker's spare, or this is it */
		if (q.op == REQ_SCOUT)
			run_scout(tl, &q);
		/* The front-end watches the active engine: this copy now, said
		 * before running on, whose checkpoints may thin away the
		 * process that asked (watched until this line is read). */
		dprintf(tl->t->reply_fd, WIRE_ENGINE "%d\n", (int)getpid());
		if (tl->carry)
			memcpy(tl->carry, q.carry, tl->carry_size);
		tl->mo = MO_NONE;
		/* Taken over, the spare runs a few thousand instructions at
		 * most, laying nothing on the clock. */
		ck_run_forward(tl, q.target, q.op == REQ_TAKE ? LAY_NONE : q.lay);
		tl->host->refresh_watches(tl);
		tl->host->emit(tl, q.rep);
		return;
	}
}

void ck_end_session(timeline *tl)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	travel_req q = { .op = REQ_EXIT };
	for (size_t i = 0; i < n; i++)
		travel_send(tl->t, cks[i].icount, &q, sizeof q);
}
