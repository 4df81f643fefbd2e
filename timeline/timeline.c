/*
 * timeline.c — motions on a recording, forward and backward (see
 * timeline.h): the step hook, checkpoints and scouts.
 */
#include "timeline.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "../sim/avr_decode.h"

/* What the user has set up: plain data, carried to the process that takes
 * over after a jump backward. */
typedef struct tl_state {
	tl_break b[TL_MAX_BREAKS];
	unsigned nb;
	int next_id;
} tl_state;

typedef enum {
	MO_NONE,       /* run to a position, stopping for nothing */
	MO_BREAKS,     /* continue, stepi: breakpoints and watchpoints */
	MO_STEP,       /* a new source line, entering calls */
	MO_NEXT,       /* a new source line in this frame or an outer one */
	MO_FINISH,     /* this frame returns */
	MO_SCOUT_BREAKS, MO_SCOUT_STEP, MO_SCOUT_NEXT, /* record, never stop */
} motion_kind;

enum { REQ_RESUME = 1, REQ_SCOUT, REQ_EXIT };

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
} travel_req;

typedef struct scout_result {
	int found, interrupted;
	uint64_t pos;
	tl_stop rep;
} scout_result;

/* Data-space bytes an instruction reads: [lo, lo + len). */
typedef struct data_span {
	uint32_t lo;
	unsigned len;
} data_span;

struct timeline {
	replay *r;
	sim *s;
	const firmware *fw;
	src_lines *lines;
	travel *t;
	volatile int *interrupted;
	tl_state st;
	void *carry;
	size_t carry_size;
	const tl_frontend *fe;
	void *ud;

	tl_frame fr[TL_MAX_FRAMES];
	unsigned nfr;
	unsigned unkept;          /* frames pushed beyond TL_MAX_FRAMES, innermost */
	unsigned lost_frames;     /* pops with no frame: the stack was deeper */
	uint64_t prev_icount;
	uint32_t prev_pc;
	unsigned prev_depth;
	data_span reads;          /* what the instruction at prev_pc reads */
	int entered;              /* an interrupt was entered at this step */
	unsigned poll_in;         /* steps until the next fe->poll */

	motion_kind mo;
	const char *mo_file;
	unsigned mo_line, mo_depth;
	tl_stop rep;              /* the motion's stop */
	int found;                /* scouts: a match */
	int watch_before;         /* scouts: a watch stops before its access */
	uint64_t scout_limit;     /* scouts: matches stop below this position */
	uint64_t found_pos;
	tl_stop found_rep;

	/* The checkpoints' memory as last measured (see keep_under_cap);
	 * mem_n 0: not measured in this process yet. */
	uint64_t mem_kb;
	size_t mem_n;
	unsigned mem_laid;        /* checkpoints laid since */

	jmp_buf top;
	int ck_fd;                /* as a checkpoint: its FIFO */
	struct sigaction sigint;  /* the front-end's Ctrl-C handler */
};

#define POLL_EVERY 8192
#define TO_END UINT64_MAX
/* A motion that ends this far or farther past its last checkpoint lays one
 * this many instructions short of its end: stepping back from where a
 * user arrives then replays at most this much, not a whole interval. */
#define NEAR_BACK (1u << 14)

/* ---- the step hook ------------------------------------------------------ */

static uint16_t flash_word(const timeline *tl, uint32_t pc)
{
	if (pc + 1 >= tl->fw->flash_size)
		return 0;
	return (uint16_t)(tl->fw->flash[pc] | tl->fw->flash[pc + 1] << 8);
}

static unsigned depth_of(const timeline *tl)
{
	return tl->nfr + tl->unkept;
}

static void push_frame(timeline *tl, tl_frame f)
{
	if (tl->nfr < TL_MAX_FRAMES)
		tl->fr[tl->nfr++] = f;
	else
		tl->unkept++;
}

/* Keeps the shadow call stack after the instruction at prev_pc retired. */
static void track_frames(timeline *tl)
{
	uint16_t w = flash_word(tl, tl->prev_pc);
	unsigned depth = sim_irq_depth(tl->s), after_insn = tl->prev_depth;
	if (avr_word_is_call(w)) {
		push_frame(tl, (tl_frame){ .pos = tl->prev_icount, .from = tl->prev_pc });
	} else if (avr_word_is_ret(w) || w == 0x9518) {  /* RET, RETI */
		if (tl->unkept)
			tl->unkept--;
		else if (tl->nfr)
			tl->nfr--;
		else
			tl->lost_frames++;
		if (w == 0x9518 && after_insn)
			after_insn--;
	}
	/* An entry at this boundary: its return address is what it pushed,
	 * which `info irqs` and the log name too. */
	tl->entered = depth > after_insn;
	if (tl->entered)
		push_frame(tl, (tl_frame){ .pos = tl->s->icount ? tl->s->icount - 1 : 0,
					   .from = sim_stacked_pc(tl->s),
					   .vector = sim_running_vector(tl->s) });
}

/* The data bytes the instruction at the pc will read, from the registers
 * now: loads, pops and returns (from the stack), I/O reads and the
 * read-modify-writes.  Writes are seen as changed values instead. */
static data_span reads_of_next(const timeline *tl)
{
	avr_insn in;
	const uint8_t *d = sim_live_data(tl->s);
	data_span none = { 0, 0 };
	if (avr_decode(tl->fw->flash, tl->fw->flash_size, sim_pc(tl->s), &in))
		return none;
	uint32_t sp = tl->s->data_size > 0x5e ? (uint32_t)(d[0x5d] | d[0x5e] << 8) : 0;
	unsigned ra_bytes = tl->fw->flash_size > 0x20000 ? 3 : 2;
	switch (in.op) {
	case AVR_OP_LD: case AVR_OP_LDD: case AVR_OP_XCH: case AVR_OP_LAS: case AVR_OP_LAC:
	case AVR_OP_LAT: {
		unsigned lo = in.ptr == 'X' ? 26 : in.ptr == 'Y' ? 28 : 30;
		uint32_t p = (uint32_t)(d[lo] | d[lo + 1] << 8);
		if (in.ptr_mode == AVR_PTR_PREDEC)
			p = (p - 1) & 0xffff;
		else if (in.ptr_mode == AVR_PTR_DISP)
			p += in.disp;
		return (data_span){ p, 1 };
	}
	case AVR_OP_LDS:
		return (data_span){ (uint32_t)in.data, 1 };
	case AVR_OP_POP:
		return (data_span){ sp + 1, 1 };
	case AVR_OP_RET: case AVR_OP_RETI:
		return (data_span){ sp + 1, ra_bytes };
	case AVR_OP_IN: case AVR_OP_SBIS: case AVR_OP_SBIC: case AVR_OP_SBI: case AVR_OP_CBI:
		return (data_span){ (uint32_t)in.io + 0x20, 1 };
	default:
		return none;
	}
}

static uint64_t watch_value(const timeline *tl, const tl_break *b)
{
	const uint8_t *d = sim_live_data(tl->s);
	uint64_t v = 0;
	for (unsigned i = 0; i < b->size && b->addr + i < tl->s->data_size; i++)
		v |= (uint64_t)d[b->addr + i] << (8 * i);
	return v;
}

static void refresh_watches(timeline *tl)
{
	for (unsigned i = 0; i < tl->st.nb; i++)
		if (tl->st.b[i].kind >= TL_BK_WATCH)
			tl->st.b[i].old = watch_value(tl, &tl->st.b[i]);
}

static int overlaps(const tl_break *b, data_span s)
{
	return s.len && s.lo < b->addr + b->size && b->addr < s.lo + s.len;
}

/* Whether a breakpoint or watchpoint stops here; fills *rep with the first
 * that does.  Every watch's value is brought up to date. */
static int check_breaks(timeline *tl, tl_stop *rep)
{
	uint32_t pc = sim_pc(tl->s);
	int hit = 0;
	for (unsigned i = 0; i < tl->st.nb; i++) {
		tl_break *b = &tl->st.b[i];
		tl_stop_kind k = TL_STEPPED;
		if (b->kind >= TL_BK_WATCH) {
			uint64_t v = watch_value(tl, b);
			int changed = v != b->old, read = overlaps(b, tl->reads);
			if (b->kind == TL_BK_WATCH && changed)
				k = TL_WATCH;
			else if (b->kind == TL_BK_RWATCH && read)
				k = TL_RWATCH;
			else if (b->kind == TL_BK_AWATCH && (read || changed))
				k = TL_AWATCH;
			if (k != TL_STEPPED && !hit)
				*rep = (tl_stop){ .kind = k, .addr = b->addr, .old = b->old, .now = v };
			b->old = v;
		} else if ((b->kind == TL_BK_CODE && pc == b->addr) ||
			   (b->kind == TL_BK_IRQ && tl->entered &&
			    (b->vector < 0 || b->vector == sim_running_vector(tl->s)))) {
			k = b->kind == TL_BK_IRQ ? TL_IRQ : TL_BREAK;
			if (!hit)
				*rep = (tl_stop){ .kind = k };
		}
		if (k != TL_STEPPED && !hit) {
			rep->id = b->id;
			snprintf(rep->what, sizeof rep->what, "%s", b->what);
			hit = 1;
		}
	}
	return hit;
}

/* A new source line for step/next: a line start whose line differs from
 * the motion's, or any line start in another frame. */
static int new_line(const timeline *tl)
{
	uint32_t pc = sim_pc(tl->s);
	const char *file;
	unsigned line;
	if (!lines_is_line_start(tl->lines, pc) || lines_at(tl->lines, pc, &file, &line))
		return 0;
	return line != tl->mo_line || !tl->mo_file || strcmp(file, tl->mo_file) ||
	       depth_of(tl) != tl->mo_depth;
}

static int on_step(void *ud)
{
	timeline *tl = ud;
	if (tl->s->icount == tl->prev_icount)
		return 0;  /* asleep */
	track_frames(tl);
	int stop = 0;
	tl_stop rep;
	switch (tl->mo) {
	case MO_NONE:
		break;
	case MO_BREAKS:
		stop = check_breaks(tl, &tl->rep);
		break;
	case MO_STEP:
		stop = check_breaks(tl, &tl->rep) || new_line(tl);
		break;
	case MO_NEXT:
		stop = check_breaks(tl, &tl->rep) || (depth_of(tl) <= tl->mo_depth && new_line(tl));
		break;
	case MO_FINISH:
		stop = check_breaks(tl, &tl->rep) || depth_of(tl) < tl->mo_depth;
		break;
	case MO_SCOUT_BREAKS:
		if (check_breaks(tl, &rep)) {
			/* Backward, gdb stops before the access, as if the
			 * instruction were undone. */
			uint64_t at = tl->s->icount;
			if (tl->watch_before && rep.kind >= TL_WATCH && rep.kind <= TL_AWATCH)
				at--;
			if (at < tl->scout_limit) {
				tl->found = 1;
				tl->found_pos = at;
				tl->found_rep = rep;
			}
		}
		break;
	case MO_SCOUT_STEP:
	case MO_SCOUT_NEXT:
		if ((tl->mo == MO_SCOUT_STEP || depth_of(tl) <= tl->mo_depth) && new_line(tl)) {
			tl->found = 1;
			tl->found_pos = tl->s->icount;
		}
		break;
	}
	/* Only the active timeline asks the front-end; scouts never do. */
	if (!stop && tl->mo >= MO_BREAKS && tl->mo <= MO_FINISH && tl->fe && tl->fe->poll &&
	    !--tl->poll_in) {
		tl->poll_in = POLL_EVERY;
		if (tl->fe->poll(tl, tl->ud)) {
			tl->rep = (tl_stop){ .kind = TL_INTERRUPTED };
			stop = 1;
		}
	}
	tl->prev_icount = tl->s->icount;
	tl->prev_pc = sim_pc(tl->s);
	tl->prev_depth = sim_irq_depth(tl->s);
	if (tl->st.nb)
		tl->reads = reads_of_next(tl);
	return stop;
}

/* ---- reporting ------------------------------------------------------------ */

/* Reports a motion's end here, and deletes the temporary breakpoint that
 * ended it. */
static void emit(timeline *tl, tl_stop rep)
{
	rep.icount = rp_icount(tl->r);
	rep.pc = sim_pc(tl->s);
	if (rep.kind == TL_BREAK || rep.kind == TL_IRQ)
		for (unsigned i = 0; i < tl->st.nb; i++)
			if (tl->st.b[i].id == rep.id && tl->st.b[i].temp)
				tl_break_delete(tl, rep.id);
	tl->fe->stopped(tl, &rep, tl->ud);
}

static tl_stop stop_of(timeline *tl, rp_stop why)
{
	switch (why) {
	case RP_END: return (tl_stop){ .kind = TL_END };
	case RP_DIVERGED: return (tl_stop){ .kind = TL_DIVERGED };
	case RP_STOPPED: return (tl_stop){ .kind = TL_INTERRUPTED };
	case RP_CPU_STOPPED: return (tl_stop){ .kind = TL_CPU_STOPPED };
	case RP_BREAK: return tl->rep;
	case RP_LIMIT: break;
	}
	return (tl_stop){ .kind = TL_STEPPED };
}

static void fail(timeline *tl, const char *why)
{
	tl_stop rep = { .kind = TL_FAILED };
	snprintf(rep.what, sizeof rep.what, "%s", why);
	emit(tl, rep);
}

/* ---- positions and checkpoints -------------------------------------------- */

/* Tells the checkpoint cks[i] to go and takes it off the list. */
static void drop_checkpoint(timeline *tl, travel_ck *cks, size_t *n, size_t i)
{
	travel_req q = { .op = REQ_EXIT };
	travel_send(tl->t, cks[i].icount, &q, sizeof q);
	travel_unregister(tl->t, cks[i].icount);
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

/* Forks a checkpoint of this position, thinning the others beyond the
 * count cap and the memory cap alike (thin_candidate).  The checkpoint
 * continues in serve_checkpoint. */
static void checkpoint_here(timeline *tl)
{
	uint64_t k = rp_icount(tl->r);
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	for (size_t i = 0; i < n; i++)
		if (cks[i].icount == k)
			return;  /* one exists here */
	for (size_t i; n >= tl->t->max && (i = thin_candidate(cks, n, k)) != 0;)
		drop_checkpoint(tl, cks, &n, i);
	keep_under_cap(tl, cks, &n, k, 1);
	int fd = travel_register(tl->t, k);
	if (fd < 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		tl->ck_fd = fd;
		longjmp(tl->top, 1);
	}
	close(fd);
	if (pid < 0) {
		travel_unregister(tl->t, k);
	} else {
		travel_set_pid(tl->t, k, (int)pid);
		tl->mem_laid++;
	}
}

/* After going backward: the process that asked is a checkpoint now, laid
 * past keep_under_cap, so the cap is checked again here (measuring only
 * as keep_under_cap would for a lay). */
static void thin_after_travel(timeline *tl)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
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

/* Runs forward to `target` (TO_END: the end) under the current motion,
 * laying checkpoints when `lay` is set: at every multiple of the interval,
 * and, unless one is there already, within NEAR_BACK below the target —
 * NEAR_BACK short of it, or here when the target is that close. */
static rp_stop run_forward(timeline *tl, uint64_t target, int lay)
{
	uint64_t near = 0, ck;
	if (lay && target != TO_END &&
	    (checkpoint_below(tl, target, &ck) || target - ck > NEAR_BACK)) {
		near = target > NEAR_BACK ? target - NEAR_BACK : 0;
		if (near <= rp_icount(tl->r)) {
			checkpoint_here(tl);
			near = 0;
		}
	}
	for (;;) {
		uint64_t now = rp_icount(tl->r);
		if (now >= target)
			return RP_LIMIT;
		uint64_t next = (now / tl->t->interval + 1) * tl->t->interval;
		if (near > now && next > target)
			next = near;  /* no interval's checkpoint between near and target */
		rp_stop why = rp_run(tl->r, target < next ? target : next);
		if (why != RP_LIMIT)
			return why;
		if (lay && rp_icount(tl->r) == next)
			checkpoint_here(tl);
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
static void travel_to(timeline *tl, uint64_t target, tl_stop rep)
{
	uint64_t now = rp_icount(tl->r), ck;
	if (checkpoint_below(tl, target, &ck))
		ck = 0;
	if (target >= now && ck <= now) {
		tl->mo = MO_NONE;
		run_forward(tl, target, 1);
		emit(tl, rep);
		return;
	}
	travel_req q = { .op = REQ_RESUME, .target = target, .st = tl->st, .rep = rep };
	fill_carry(tl, &q);
	fflush(stdout);
	int fd = travel_register(tl->t, now);
	if (travel_send(tl->t, ck, &q, sizeof q)) {
		char why[96];
		snprintf(why, sizeof why, "cannot reach icount %llu: checkpoint %llu is gone",
			 (unsigned long long)target, (unsigned long long)ck);
		if (fd >= 0) {
			close(fd);
			travel_unregister(tl->t, now);
		}
		fail(tl, why);
		return;
	}
	if (fd >= 0) {
		tl->ck_fd = fd;
		longjmp(tl->top, 1);
	}
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
	return rc ? -1 : 0;
}

/* The last position before here where `kind` matches, scanning back one
 * checkpoint span at a time: a scout from checkpoint c looks at positions
 * c+1 .. limit-1 (position 0 follows no step, so it never matches), and at
 * limit too when a watch stops before its access.
 * Returns 1 found, 0 none, -1 interrupted, -2 failed. */
static int search_back(timeline *tl, motion_kind kind, uint64_t *pos, tl_stop *rep)
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
	refresh_watches(tl);
	scout_result res = { 0 };
	uint64_t last = q->watch_before ? q->target : q->target - 1;
	rp_stop why = last > rp_icount(tl->r) ? run_forward(tl, last, 0) : RP_LIMIT;
	res.interrupted = why == RP_STOPPED;
	res.found = tl->found;
	res.pos = tl->found_pos;
	res.rep = tl->found_rep;
	travel_result_write(tl->t, &res, sizeof res);
	_exit(0);
}

/* Waits for requests; returns in a forked copy that is to be the timeline
 * (after a resume), once it has reported its stop.  Exits on REQ_EXIT or
 * when the front-end is gone. */
static void serve_checkpoint(timeline *tl)
{
	signal(SIGINT, SIG_IGN);
	uint64_t k = rp_icount(tl->r);
	for (;;) {
		travel_req q;
		if (travel_wait(tl->t, tl->ck_fd, &q, sizeof q) || q.op == REQ_EXIT) {
			travel_unregister(tl->t, k);
			_exit(0);
		}
		fflush(stdout);
		pid_t pid = fork();
		if (pid != 0)
			continue;
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
		if (q.op == REQ_SCOUT)
			run_scout(tl, &q);
		if (tl->carry)
			memcpy(tl->carry, q.carry, tl->carry_size);
		tl->mo = MO_NONE;
		run_forward(tl, q.target, 1);
		refresh_watches(tl);
		emit(tl, q.rep);
		return;
	}
}

/* ---- motions ---------------------------------------------------------------- */

static void start_motion(timeline *tl, motion_kind m)
{
	tl->mo = m;
	tl->rep = (tl_stop){ .kind = TL_STEPPED };
	tl->poll_in = POLL_EVERY;
	refresh_watches(tl);
	tl->reads = reads_of_next(tl);
	if (tl->interrupted)
		*tl->interrupted = 0;
}

/* A forward motion to `target`; refused where the replay cannot go on. */
static void forward(timeline *tl, motion_kind m, uint64_t target)
{
	if (tl_divergence(tl)) {
		emit(tl, (tl_stop){ .kind = TL_DIVERGED });
		return;
	}
	if (rp_icount(tl->r) >= rp_length(tl->r)) {
		emit(tl, (tl_stop){ .kind = TL_END });
		return;
	}
	start_motion(tl, m);
	emit(tl, stop_of(tl, run_forward(tl, target, 1)));
}

void tl_stepi(timeline *tl, uint64_t n)
{
	uint64_t now = rp_icount(tl->r);
	forward(tl, MO_BREAKS, n > TO_END - now ? TO_END : now + n);
}

static void line_here(timeline *tl)
{
	tl->mo_file = NULL;
	tl->mo_line = 0;
	lines_at(tl->lines, sim_pc(tl->s), &tl->mo_file, &tl->mo_line);
	tl->mo_depth = depth_of(tl);
}

void tl_step_line(timeline *tl, int into_calls)
{
	if (!lines_available(tl->lines)) {
		tl_stepi(tl, 1);
		return;
	}
	line_here(tl);
	forward(tl, into_calls ? MO_STEP : MO_NEXT, TO_END);
}

void tl_finish(timeline *tl)
{
	tl->mo_depth = depth_of(tl);
	forward(tl, MO_FINISH, TO_END);
}

void tl_continue(timeline *tl)
{
	forward(tl, MO_BREAKS, TO_END);
}

void tl_reverse_stepi(timeline *tl, uint64_t n)
{
	uint64_t now = rp_icount(tl->r);
	tl_stop rep = { .kind = n >= now ? TL_START : TL_STEPPED, .reverse = 1 };
	travel_to(tl, n >= now ? 0 : now - n, rep);
}

static void go_back_to(timeline *tl, motion_kind kind, int watch_before)
{
	uint64_t pos = 0;
	tl_stop rep = { .kind = TL_START };
	start_motion(tl, MO_NONE);
	tl->watch_before = watch_before;
	switch (search_back(tl, kind, &pos, &rep)) {
	case -2:
		fail(tl, "the checkpoints are gone; cannot search backward");
		return;
	case -1:
		emit(tl, (tl_stop){ .kind = TL_INTERRUPTED, .reverse = 1 });
		return;
	}
	rep.reverse = 1;
	travel_to(tl, pos, rep);
}

void tl_reverse_continue(timeline *tl, int watch_before)
{
	go_back_to(tl, MO_SCOUT_BREAKS, watch_before);
}

void tl_reverse_line(timeline *tl, int into_calls)
{
	if (!lines_available(tl->lines)) {
		tl_reverse_stepi(tl, 1);
		return;
	}
	line_here(tl);
	go_back_to(tl, into_calls ? MO_SCOUT_STEP : MO_SCOUT_NEXT, 0);
}

void tl_reverse_finish(timeline *tl)
{
	if (!tl->nfr) {
		fail(tl, "\"finish\" not meaningful in the outermost frame.");
		return;
	}
	if (tl->unkept) {
		char why[96];
		snprintf(why, sizeof why,
			 "This frame is deeper than the %d the timeline keeps; its start is unknown.",
			 TL_MAX_FRAMES);
		fail(tl, why);
		return;
	}
	travel_to(tl, tl->fr[tl->nfr - 1].pos, (tl_stop){ .kind = TL_STEPPED, .reverse = 1 });
}

void tl_goto(timeline *tl, uint64_t icount)
{
	if (icount > rp_length(tl->r)) {
		char why[96];
		snprintf(why, sizeof why, "icount %llu is past the end of the recording (%llu)",
			 (unsigned long long)icount, (unsigned long long)rp_length(tl->r));
		fail(tl, why);
		return;
	}
	if (icount > rp_icount(tl->r) && tl_divergence(tl)) {
		emit(tl, (tl_stop){ .kind = TL_DIVERGED });
		return;
	}
	travel_to(tl, icount, (tl_stop){ .kind = TL_STEPPED, .reverse = icount < rp_icount(tl->r) });
}

/* ---- breakpoints -------------------------------------------------------------- */

tl_break *tl_break_add(timeline *tl, tl_break_kind kind, uint32_t addr, unsigned size,
		       const char *what)
{
	if (tl->st.nb == TL_MAX_BREAKS)
		return NULL;
	tl_break *b = &tl->st.b[tl->st.nb++];
	*b = (tl_break){ .id = ++tl->st.next_id, .kind = kind, .addr = addr, .vector = -1,
			 .size = size < 1 ? 1 : size > 8 ? 8 : size };
	snprintf(b->what, sizeof b->what, "%s", what);
	if (kind >= TL_BK_WATCH)
		b->old = watch_value(tl, b);
	return b;
}

int tl_break_delete(timeline *tl, int id)
{
	for (unsigned i = 0; i < tl->st.nb; i++)
		if (tl->st.b[i].id == id) {
			memmove(&tl->st.b[i], &tl->st.b[i + 1],
				(tl->st.nb - i - 1) * sizeof tl->st.b[i]);
			tl->st.nb--;
			return 0;
		}
	return -1;
}

void tl_break_clear(timeline *tl)
{
	tl->st.nb = 0;
}

const tl_break *tl_breaks(const timeline *tl, unsigned *n)
{
	*n = tl->st.nb;
	return tl->st.b;
}

/* ---- where we are ---------------------------------------------------------------- */

uint64_t tl_icount(const timeline *tl) { return rp_icount(tl->r); }
uint64_t tl_length(const timeline *tl) { return rp_length(tl->r); }
uint32_t tl_pc(const timeline *tl) { return sim_pc(tl->s); }
replay *tl_replay(const timeline *tl) { return tl->r; }
sim *tl_sim(const timeline *tl) { return tl->s; }
const firmware *tl_firmware(const timeline *tl) { return tl->fw; }
const src_lines *tl_lines(const timeline *tl) { return tl->lines; }
const travel *tl_travel(const timeline *tl) { return tl->t; }
const rp_divergence *tl_divergence(const timeline *tl) { return rp_get_divergence(tl->r); }

const tl_frame *tl_frames(const timeline *tl, unsigned *n, unsigned *unkept, unsigned *lost)
{
	*n = tl->nfr;
	*unkept = tl->unkept;
	*lost = tl->lost_frames;
	return tl->fr;
}

int tl_irq_position(const timeline *tl, uint64_t n, uint64_t *icount)
{
	size_t nev;
	const trace_event *ev = rp_events(tl->r, &nev);
	for (size_t i = 0; n && i < nev; i++)
		if (ev[i].type == TRACE_IRQ && --n == 0) {
			*icount = ev[i].icount;
			return 0;
		}
	return -1;
}

/* ---- the session ---------------------------------------------------------------- */

int tl_open(const char *db_path, const rp_options *o, travel *t, timeline **out, avrr_err *err)
{
	/* Heap, not stack: the state must survive longjmp and fork alike. */
	timeline *tl = calloc(1, sizeof *tl);
	*out = NULL;
	if (!tl)
		return avrr_errf(err, "out of memory");
	tl->t = t;
	tl->ck_fd = -1;
	tl->interrupted = o->interrupted;
	if (rp_open(db_path, o, &tl->r, err) || lines_load(rp_firmware(tl->r), &tl->lines, err)) {
		rp_close(tl->r);
		free(tl);
		return -1;
	}
	tl->s = rp_sim(tl->r);
	tl->fw = rp_firmware(tl->r);
	tl->prev_pc = sim_pc(tl->s);
	if (rp_observe(tl->r, &(rp_observer){ .ud = tl, .on_step = on_step }, err)) {
		lines_free(tl->lines);
		rp_close(tl->r);
		free(tl);
		return -1;
	}
	*out = tl;
	return 0;
}

void tl_carry(timeline *tl, void *data, size_t size)
{
	tl->carry = data;
	tl->carry_size = size < TL_CARRY_MAX ? size : TL_CARRY_MAX;
}

/* Says goodbye to every checkpoint. */
static void end_session(timeline *tl)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(tl->t, cks, sizeof cks / sizeof *cks);
	travel_req q = { .op = REQ_EXIT };
	for (size_t i = 0; i < n; i++)
		travel_send(tl->t, cks[i].icount, &q, sizeof q);
}

int tl_main(timeline *tl, const tl_frontend *fe, void *ud)
{
	tl->fe = fe;
	tl->ud = ud;
	signal(SIGCHLD, SIG_IGN);  /* checkpoints and scouts reap themselves */
	sigaction(SIGINT, NULL, &tl->sigint);
	if (setjmp(tl->top)) {
		serve_checkpoint(tl);  /* returns in the copy that takes over, */
		if (fe->resumed)       /* which ends the command that jumped */
			fe->resumed(tl, ud);
		thin_after_travel(tl); /* the user has the answer: off the clock */
	} else {
		checkpoint_here(tl);   /* icount 0, for every way back */
	}
	while (!fe->command(tl, ud))
		;
	end_session(tl);
	return 0;
}
