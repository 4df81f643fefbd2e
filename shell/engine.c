/*
 * engine.c — gdb's commands over the replay engine, forward and backward
 * (see engine.h).
 *
 * Forward motions run the replay with a step hook that keeps a shadow call
 * stack (every CALL/RCALL/ICALL and interrupt entry pushes, RET and RETI
 * pop), so `where`, `finish` and `reverse-finish` are exact, and that
 * checks the motion's stop condition (breakpoints, watchpoints, a new
 * source line, a frame popped).  Backward motions are forward ones from a
 * checkpoint: a scout runs the span before here to find the last position
 * where the condition held, then the engine travels there.
 */
#include "engine.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lines.h"
#include "view.h"

#define MAX_BREAKS 64
#define MAX_FRAMES 256

typedef enum { BK_CODE, BK_IRQ, BK_WATCH } break_kind;

typedef struct shell_break {
	int id;
	break_kind kind;
	int temp;             /* tbreak: deleted when hit */
	uint32_t addr;        /* code: flash byte address; watch: data address */
	int vector;           /* irq: the vector, -1 for any */
	unsigned size;        /* watch: bytes, 1..8 */
	uint64_t old;         /* watch: the value at the last position */
	char what[64];        /* as typed */
} shell_break;

/* What the user has set up.  Plain data: requests carry it to the process
 * that takes over after a jump backward. */
typedef struct shell_state {
	shell_break b[MAX_BREAKS];
	unsigned nb;
	int next_id;
	view_xstate xs;
} shell_state;

typedef enum {
	MO_NONE,       /* run to a position, stopping for nothing */
	MO_BREAKS,     /* continue: breakpoints and watchpoints */
	MO_STEP,       /* a new source line, entering calls */
	MO_NEXT,       /* a new source line in this frame or an outer one */
	MO_FINISH,     /* this frame returns */
	MO_SCOUT_BREAKS, MO_SCOUT_STEP, MO_SCOUT_NEXT, /* record, never stop */
} motion_kind;

/* Why a motion stopped, printed by whichever process ends the command. */
typedef struct stop_report {
	enum { SR_NONE, SR_BREAK, SR_WATCH, SR_IRQ, SR_START, SR_END } kind;
	int id;
	uint64_t old, now;
	char what[64];
} stop_report;

typedef struct frame {
	uint64_t pos;         /* the position before the call or entry (reverse-finish) */
	uint32_t from;        /* the pc of the call, or an interrupt's return address */
	uint8_t vector;       /* 0 for a call */
} frame;

enum { REQ_RESUME = 1, REQ_SCOUT, REQ_EXIT };

/* To a checkpoint.  `file` points into the line table, which every process
 * loaded before the first fork, so it is valid in all of them. */
typedef struct travel_req {
	int op;
	uint64_t target;      /* resume: the position; scout: positions below */
	motion_kind scout;
	const char *file;
	unsigned line, depth;
	shell_state st;
	stop_report rep;
} travel_req;

typedef struct scout_result {
	int found, interrupted;
	uint64_t pos;
	stop_report rep;
} scout_result;

typedef struct engine {
	replay *r;
	sim *s;
	const firmware *fw;
	src_lines *lines;
	travel *t;
	volatile int *interrupted;
	shell_state st;

	frame fr[MAX_FRAMES];
	unsigned nfr;
	unsigned unkept;          /* frames pushed beyond MAX_FRAMES, innermost */
	unsigned lost_frames;     /* pops with no frame: the stack was deeper */
	uint64_t prev_icount;
	uint32_t prev_pc;
	unsigned prev_depth;
	int entered;              /* an interrupt was entered at this step */

	motion_kind mo;
	const char *mo_file;
	unsigned mo_line, mo_depth;
	stop_report rep;          /* the motion's stop */
	int found;                /* scouts: a match */
	uint64_t found_pos;
	stop_report found_rep;

	jmp_buf top;
	int ck_fd;                /* as a checkpoint: its FIFO */
	struct sigaction sigint;  /* the engine's Ctrl-C handler */
} engine;

/* ---- the step hook ------------------------------------------------------ */

static uint16_t flash_word(const engine *e, uint32_t pc)
{
	if (pc + 1 >= e->fw->flash_size)
		return 0;
	return (uint16_t)(e->fw->flash[pc] | e->fw->flash[pc + 1] << 8);
}

/* CALL, RCALL, ICALL, EICALL — but not `rcall .+0`, which avr-gcc uses to
 * reserve two bytes of stack for locals, and which never returns. */
static int is_call(uint16_t w)
{
	return (w & 0xfe0e) == 0x940e || ((w & 0xf000) == 0xd000 && w != 0xd000) ||
	       w == 0x9509 || w == 0x9519;
}

/* The frames on the shadow stack, kept or not. */
static unsigned depth_of(const engine *e)
{
	return e->nfr + e->unkept;
}

static void push_frame(engine *e, frame f)
{
	if (e->nfr < MAX_FRAMES)
		e->fr[e->nfr++] = f;
	else
		e->unkept++;
}

/* Keeps the shadow call stack after the instruction at prev_pc retired. */
static void track_frames(engine *e)
{
	uint16_t w = flash_word(e, e->prev_pc);
	unsigned depth = sim_irq_depth(e->s), after_insn = e->prev_depth;
	if (is_call(w)) {
		push_frame(e, (frame){ .pos = e->prev_icount, .from = e->prev_pc });
	} else if (w == 0x9508 || w == 0x9518) {
		if (e->unkept)
			e->unkept--;
		else if (e->nfr)
			e->nfr--;
		else
			e->lost_frames++;
		if (w == 0x9518 && after_insn)
			after_insn--;
	}
	/* An entry at this boundary: its return address is what it pushed,
	 * which `info irqs` and the log name too. */
	e->entered = depth > after_insn;
	if (e->entered)
		push_frame(e, (frame){ .pos = e->s->icount ? e->s->icount - 1 : 0,
				       .from = sim_stacked_pc(e->s),
				       .vector = sim_running_vector(e->s) });
}

static uint64_t watch_value(const engine *e, const shell_break *b)
{
	const uint8_t *d = sim_live_data(e->s);
	uint64_t v = 0;
	for (unsigned i = 0; i < b->size && b->addr + i < e->s->data_size; i++)
		v |= (uint64_t)d[b->addr + i] << (8 * i);
	return v;
}

static void refresh_watches(engine *e)
{
	for (unsigned i = 0; i < e->st.nb; i++)
		if (e->st.b[i].kind == BK_WATCH)
			e->st.b[i].old = watch_value(e, &e->st.b[i]);
}

/* Whether a breakpoint or watchpoint stops here; fills *rep. */
static int check_breaks(engine *e, stop_report *rep)
{
	uint32_t pc = sim_pc(e->s);
	int hit = 0;
	for (unsigned i = 0; i < e->st.nb; i++) {
		shell_break *b = &e->st.b[i];
		if (b->kind == BK_WATCH) {
			uint64_t v = watch_value(e, b);
			if (v != b->old && !hit) {
				*rep = (stop_report){ .kind = SR_WATCH, .id = b->id, .old = b->old, .now = v };
				snprintf(rep->what, sizeof rep->what, "%s", b->what);
				hit = 1;
			}
			b->old = v;
		} else if (!hit && ((b->kind == BK_CODE && pc == b->addr) ||
				    (b->kind == BK_IRQ && e->entered &&
				     (b->vector < 0 || b->vector == sim_running_vector(e->s))))) {
			*rep = (stop_report){ .kind = b->kind == BK_IRQ ? SR_IRQ : SR_BREAK, .id = b->id };
			snprintf(rep->what, sizeof rep->what, "%s", b->what);
			hit = 1;
		}
	}
	return hit;
}

/* A new source line for step/next: a line start whose line differs from
 * the motion's, or any line start in another frame. */
static int new_line(engine *e)
{
	uint32_t pc = sim_pc(e->s);
	const char *file;
	unsigned line;
	if (!lines_is_line_start(e->lines, pc) || lines_at(e->lines, pc, &file, &line))
		return 0;
	return line != e->mo_line || !e->mo_file || strcmp(file, e->mo_file) ||
	       depth_of(e) != e->mo_depth;
}

static int on_step(void *ud)
{
	engine *e = ud;
	if (e->s->icount == e->prev_icount)
		return 0;  /* asleep */
	track_frames(e);
	int stop = 0;
	stop_report rep;
	switch (e->mo) {
	case MO_NONE:
		break;
	case MO_BREAKS:
		stop = check_breaks(e, &e->rep);
		break;
	case MO_STEP:
		stop = check_breaks(e, &e->rep) || new_line(e);
		break;
	case MO_NEXT:
		stop = check_breaks(e, &e->rep) || (depth_of(e) <= e->mo_depth && new_line(e));
		break;
	case MO_FINISH:
		stop = check_breaks(e, &e->rep) || depth_of(e) < e->mo_depth;
		break;
	case MO_SCOUT_BREAKS:
		if (check_breaks(e, &rep)) {
			e->found = 1;
			e->found_pos = e->s->icount;
			e->found_rep = rep;
		}
		break;
	case MO_SCOUT_STEP:
	case MO_SCOUT_NEXT:
		if ((e->mo == MO_SCOUT_STEP || depth_of(e) <= e->mo_depth) && new_line(e)) {
			e->found = 1;
			e->found_pos = e->s->icount;
		}
		break;
	}
	e->prev_icount = e->s->icount;
	e->prev_pc = sim_pc(e->s);
	e->prev_depth = sim_irq_depth(e->s);
	return stop;
}

/* ---- positions and checkpoints -------------------------------------------- */

static void reply(const travel *t, const char *msg)
{
	fflush(stdout);
	ssize_t w = write(t->reply_fd, msg, strlen(msg));
	(void)w;  /* the UI gone is noticed on the next read */
}

/* Forks a checkpoint of this position, thinning the others beyond the cap
 * where they are densest.  The checkpoint continues in serve_checkpoint. */
static void checkpoint_here(engine *e)
{
	uint64_t k = rp_icount(e->r);
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(e->t, cks, sizeof cks / sizeof *cks);
	while (n >= e->t->max && n > 2) {
		size_t best = 1;
		for (size_t i = 2; i + 1 < n; i++)
			if (cks[i + 1].icount - cks[i - 1].icount <
			    cks[best + 1].icount - cks[best - 1].icount)
				best = i;
		travel_req q = { .op = REQ_EXIT };
		travel_send(e->t, cks[best].icount, &q, sizeof q);
		travel_unregister(e->t, cks[best].icount);
		memmove(&cks[best], &cks[best + 1], (n - best - 1) * sizeof *cks);
		n--;
	}
	int fd = travel_register(e->t, k);
	if (fd < 0)
		return;  /* one exists here */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		e->ck_fd = fd;
		longjmp(e->top, 1);
	}
	close(fd);
	if (pid < 0)
		travel_unregister(e->t, k);
	else
		travel_set_pid(e->t, k, (int)pid);
}

#define TO_END UINT64_MAX

/* Runs forward to `target` (TO_END: the end) under the current motion,
 * laying checkpoints at every multiple of the interval when `lay` is set. */
static rp_stop run_forward(engine *e, uint64_t target, int lay)
{
	for (;;) {
		uint64_t now = rp_icount(e->r);
		if (now >= target)
			return RP_LIMIT;
		uint64_t next = (now / e->t->interval + 1) * e->t->interval;
		rp_stop why = rp_run(e->r, target < next ? target : next);
		if (why != RP_LIMIT)
			return why;
		if (lay && rp_icount(e->r) == next)
			checkpoint_here(e);
	}
}

/* The checkpoint at or below k. */
static int checkpoint_below(engine *e, uint64_t k, uint64_t *ck)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(e->t, cks, sizeof cks / sizeof *cks);
	int found = 0;
	for (size_t i = 0; i < n && cks[i].icount <= k; i++) {
		*ck = cks[i].icount;
		found = 1;
	}
	return found ? 0 : -1;
}

static void print_location(engine *e);
static void print_report(engine *e, const stop_report *rep);

/* Makes this engine the state at `target`, then prints `rep` and the
 * location.  Going back, this process hands over to a copy of a
 * checkpoint and becomes a checkpoint itself: the function then returns
 * only in the copy, through the top-level loop. */
static void travel_to(engine *e, uint64_t target, const stop_report *rep)
{
	uint64_t now = rp_icount(e->r), ck;
	if (checkpoint_below(e, target, &ck))
		ck = 0;
	if (target >= now && ck <= now) {
		e->mo = MO_NONE;
		run_forward(e, target, 1);
		print_report(e, rep);
		print_location(e);
		return;
	}
	travel_req q = { .op = REQ_RESUME, .target = target, .st = e->st, .rep = *rep };
	fflush(stdout);
	int fd = travel_register(e->t, now);
	if (travel_send(e->t, ck, &q, sizeof q)) {
		printf("cannot reach icount %" PRIu64 ": checkpoint %" PRIu64 " is gone\n", target, ck);
		if (fd >= 0) {
			close(fd);
			travel_unregister(e->t, now);
		}
		return;
	}
	if (fd >= 0) {
		e->ck_fd = fd;
		longjmp(e->top, 1);
	}
	_exit(0);
}

/* Asks the checkpoint at ck for the last position in (ck, limit) where the
 * scout motion matches. */
static int scout(engine *e, uint64_t ck, uint64_t limit, motion_kind kind, scout_result *res)
{
	int rfd = travel_result_open(e->t);
	if (rfd < 0)
		return -1;
	travel_req q = { .op = REQ_SCOUT, .target = limit, .scout = kind, .file = e->mo_file,
			 .line = e->mo_line, .depth = e->mo_depth, .st = e->st };
	int rc = travel_send(e->t, ck, &q, sizeof q) || travel_read_full(rfd, res, sizeof *res);
	close(rfd);
	return rc ? -1 : 0;
}

/* The last position before here where `kind` matches, scanning back one
 * checkpoint span at a time: a scout from checkpoint c looks at positions
 * c+1 .. limit-1 (position 0 follows no step, so it never matches).
 * Returns 1 found, 0 none, -1 interrupted or failed. */
static int search_back(engine *e, motion_kind kind, uint64_t *pos, stop_report *rep)
{
	uint64_t limit = rp_icount(e->r);
	while (limit >= 2) {
		uint64_t ck;
		scout_result res;
		if (checkpoint_below(e, limit - 2, &ck) || scout(e, ck, limit, kind, &res)) {
			printf("the checkpoints are gone; cannot search backward\n");
			return -1;
		}
		/* The scout may have finished before the Ctrl-C reached it. */
		if (res.interrupted || (e->interrupted && *e->interrupted))
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

static void run_scout(engine *e, const travel_req *q)
{
	e->mo = q->scout;
	e->mo_file = q->file;
	e->mo_line = q->line;
	e->mo_depth = q->depth;
	e->found = 0;
	refresh_watches(e);
	scout_result res = { 0 };
	rp_stop why = q->target > rp_icount(e->r) + 1 ? run_forward(e, q->target - 1, 0) : RP_LIMIT;
	res.interrupted = why == RP_STOPPED;
	res.found = e->found;
	res.pos = e->found_pos;
	res.rep = e->found_rep;
	travel_result_write(e->t, &res, sizeof res);
	_exit(0);
}

/* Waits for requests; returns in a forked copy that is to be the engine
 * (after a resume).  Exits on REQ_EXIT or when the UI is gone. */
static void serve_checkpoint(engine *e)
{
	signal(SIGINT, SIG_IGN);
	uint64_t k = rp_icount(e->r);
	for (;;) {
		travel_req q;
		if (travel_wait(e->t, e->ck_fd, &q, sizeof q) || q.op == REQ_EXIT) {
			travel_unregister(e->t, k);
			_exit(0);
		}
		fflush(stdout);
		pid_t pid = fork();
		if (pid != 0)
			continue;
		close(e->ck_fd);
		e->ck_fd = -1;
		sigaction(SIGINT, &e->sigint, NULL);
		/* A checkpoint forked while a Ctrl-C was pending keeps the flag
		 * set; its copies must not stop on arrival. */
		if (e->interrupted)
			*e->interrupted = 0;
		e->st = q.st;
		if (q.op == REQ_SCOUT)
			run_scout(e, &q);
		e->mo = MO_NONE;
		run_forward(e, q.target, 1);
		print_report(e, &q.rep);
		print_location(e);
		return;
	}
}

/* ---- printing ------------------------------------------------------------- */

static mview view_of(engine *e)
{
	return (mview){ .data = sim_live_data(e->s), .data_size = e->s->data_size, .fw = e->fw,
			.names = e->s->names, .pc = sim_pc(e->s), .icount = rp_icount(e->r) };
}

static void print_pc_line(engine *e, uint32_t pc)
{
	const char *file;
	unsigned line;
	if (lines_available(e->lines) && !lines_at(e->lines, pc, &file, &line)) {
		const char *base = strrchr(file, '/');
		printf(" at %s:%u", base ? base + 1 : file, line);
	}
}

/* `where`'s first line: icount=<n> pc=0x<hex> <symbol>+<offset>. */
static void print_location(engine *e)
{
	char where[128];
	uint32_t pc = sim_pc(e->s);
	fw_describe_pc(e->fw, pc, where, sizeof where);
	printf("icount=%" PRIu64 " pc=0x%04x %s", rp_icount(e->r), pc, where);
	print_pc_line(e, pc);
	printf("\n");
}

static void print_report(engine *e, const stop_report *rep)
{
	(void)e;
	switch (rep->kind) {
	case SR_BREAK:
		printf("Breakpoint %d, %s\n", rep->id, rep->what);
		break;
	case SR_IRQ:
		printf("Breakpoint %d, interrupt %s\n", rep->id, rep->what);
		break;
	case SR_WATCH:
		printf("Watchpoint %d: %s\nOld value = %" PRIu64 "\nNew value = %" PRIu64 "\n", rep->id,
		       rep->what, rep->old, rep->now);
		break;
	case SR_START:
		printf("Start of recording.\n");
		break;
	case SR_END:
		printf("End of recording.\n");
		break;
	case SR_NONE:
		break;
	}
}

/* Reports how a forward motion ended. */
static void report_stop(engine *e, rp_stop why)
{
	switch (why) {
	case RP_END:
		printf("End of recording.\n");
		break;
	case RP_DIVERGED: {
		const rp_divergence *d = rp_get_divergence(e->r);
		printf("The replay diverged: expected %s, got %s (see info divergence).\n",
		       d->expected, d->actual);
		break;
	}
	case RP_STOPPED:
		printf("Interrupted.\n");
		break;
	case RP_CPU_STOPPED:
		printf("The CPU stopped.\n");
		break;
	case RP_BREAK:
		print_report(e, &e->rep);
		break;
	case RP_LIMIT:
		break;
	}
	print_location(e);
}

/* ---- commands ------------------------------------------------------------- */

typedef int (*command_fn)(engine *e, const char *args);

/* Parses a count or icount: decimal or 0x hex, with k/M/G suffixes. */
static int parse_count(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	uint64_t v = strtoull(s, &end, 0);
	uint64_t mul = *end == 'k' ? 1000 : *end == 'M' ? 1000000 : *end == 'G' ? 1000000000 : 1;
	if (mul > 1)
		end++;
	while (*end == ' ')
		end++;
	if (errno || end == s || *end || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int count_arg(const char *args, uint64_t *n)
{
	*n = 1;
	if (*args && (parse_count(args, n) || !*n)) {
		printf("bad count '%s'\n", args);
		return -1;
	}
	return 0;
}

static void start_motion(engine *e, motion_kind m)
{
	e->mo = m;
	refresh_watches(e);
	if (e->interrupted)
		*e->interrupted = 0;
}

static int at_divergence(engine *e)
{
	if (!rp_get_divergence(e->r))
		return 0;
	printf("The replay diverged here and cannot go further; go back, or see info divergence.\n");
	return 1;
}

static int cmd_stepi(engine *e, const char *args)
{
	uint64_t n;
	if (count_arg(args, &n) || at_divergence(e))
		return 0;
	if (rp_icount(e->r) >= rp_length(e->r)) {
		printf("End of recording.\n");
		return 0;
	}
	start_motion(e, MO_BREAKS);
	report_stop(e, run_forward(e, rp_icount(e->r) + n, 1));
	return 0;
}

static void line_here(engine *e)
{
	e->mo_file = NULL;
	e->mo_line = 0;
	lines_at(e->lines, sim_pc(e->s), &e->mo_file, &e->mo_line);
	e->mo_depth = depth_of(e);
}

static int step_lines(engine *e, motion_kind m)
{
	if (at_divergence(e))
		return 0;
	if (!lines_available(e->lines)) {
		printf("(no line information: stepping by instruction)\n");
		return cmd_stepi(e, "");
	}
	line_here(e);
	start_motion(e, m);
	report_stop(e, run_forward(e, TO_END, 1));
	return 0;
}

static int cmd_step(engine *e, const char *args)
{
	(void)args;
	return step_lines(e, MO_STEP);
}

static int cmd_next(engine *e, const char *args)
{
	(void)args;
	return step_lines(e, MO_NEXT);
}

static int cmd_continue(engine *e, const char *args)
{
	(void)args;
	if (at_divergence(e))
		return 0;
	start_motion(e, MO_BREAKS);
	report_stop(e, run_forward(e, TO_END, 1));
	return 0;
}

static int cmd_finish(engine *e, const char *args)
{
	(void)args;
	if (!depth_of(e)) {
		printf("\"finish\" not meaningful in the outermost frame.\n");
		return 0;
	}
	if (at_divergence(e))
		return 0;
	e->mo_depth = depth_of(e);
	start_motion(e, MO_FINISH);
	report_stop(e, run_forward(e, TO_END, 1));
	return 0;
}

static int cmd_reverse_stepi(engine *e, const char *args)
{
	uint64_t n, now = rp_icount(e->r);
	if (count_arg(args, &n))
		return 0;
	stop_report rep = { .kind = n >= now ? SR_START : SR_NONE };
	travel_to(e, n >= now ? 0 : now - n, &rep);
	return 0;
}

static void go_back_to(engine *e, motion_kind kind)
{
	uint64_t pos = 0;
	stop_report rep = { .kind = SR_START };
	start_motion(e, MO_NONE);
	if (search_back(e, kind, &pos, &rep) < 0) {
		printf("Interrupted.\n");
		print_location(e);
		return;
	}
	travel_to(e, pos, &rep);
}

static int cmd_reverse_continue(engine *e, const char *args)
{
	(void)args;
	go_back_to(e, MO_SCOUT_BREAKS);
	return 0;
}

static int reverse_lines(engine *e, motion_kind kind)
{
	if (!lines_available(e->lines)) {
		printf("(no line information: stepping by instruction)\n");
		return cmd_reverse_stepi(e, "");
	}
	line_here(e);
	go_back_to(e, kind);
	return 0;
}

static int cmd_reverse_step(engine *e, const char *args)
{
	(void)args;
	return reverse_lines(e, MO_SCOUT_STEP);
}

static int cmd_reverse_next(engine *e, const char *args)
{
	(void)args;
	return reverse_lines(e, MO_SCOUT_NEXT);
}

static int cmd_reverse_finish(engine *e, const char *args)
{
	(void)args;
	if (!e->nfr) {
		printf("\"finish\" not meaningful in the outermost frame.\n");
		return 0;
	}
	if (e->unkept) {
		printf("This frame is deeper than the %d the shell keeps; its start is unknown.\n",
		       MAX_FRAMES);
		return 0;
	}
	stop_report rep = { .kind = SR_NONE };
	travel_to(e, e->fr[e->nfr - 1].pos, &rep);
	return 0;
}

/* The icount of the n-th recorded interrupt (1-based), or -1. */
static int irq_position(engine *e, uint64_t n, uint64_t *pos)
{
	size_t nev;
	const db_event *ev = rp_events(e->r, &nev);
	for (size_t i = 0; i < nev; i++)
		if (ev[i].type == DB_EV_IRQ && --n == 0) {
			*pos = ev[i].icount;
			return 0;
		}
	return -1;
}

static int cmd_goto(engine *e, const char *args)
{
	uint64_t target;
	if (!strncmp(args, "irq", 3) && (args[3] == ' ' || !args[3])) {
		uint64_t n;
		const char *a = args + 3;
		while (*a == ' ')
			a++;
		if (parse_count(a, &n) || !n || irq_position(e, n, &target)) {
			printf("no recorded interrupt '%s' (they are numbered from 1)\n", a);
			return 0;
		}
	} else if (parse_count(args, &target)) {
		printf("usage: goto ICOUNT | goto irq N\n");
		return 0;
	}
	stop_report rep = { .kind = SR_NONE };
	if (target > rp_length(e->r)) {
		printf("icount %" PRIu64 " is past the end of the recording (%" PRIu64 ")\n", target,
		       rp_length(e->r));
		return 0;
	}
	if (target > rp_icount(e->r) && at_divergence(e))
		return 0;
	travel_to(e, target, &rep);
	return 0;
}

static int cmd_run(engine *e, const char *args)
{
	(void)args;
	stop_report rep = { .kind = SR_NONE };
	travel_to(e, 0, &rep);
	return 0;
}

static shell_break *new_break(engine *e, break_kind kind, const char *what)
{
	if (e->st.nb == MAX_BREAKS) {
		printf("too many breakpoints (at most %d)\n", MAX_BREAKS);
		return NULL;
	}
	shell_break *b = &e->st.b[e->st.nb++];
	*b = (shell_break){ .id = ++e->st.next_id, .kind = kind, .vector = -1 };
	snprintf(b->what, sizeof b->what, "%s", what);
	return b;
}

static int add_break(engine *e, const char *args, int temp)
{
	if (!*args) {
		printf("usage: break ADDR|SYMBOL|FILE:LINE | break irq [VECTOR]\n");
		return 0;
	}
	if (!strncmp(args, "irq", 3) && (args[3] == ' ' || !args[3])) {
		const char *a = args + 3;
		while (*a == ' ')
			a++;
		uint64_t v = 0;
		if (*a && (parse_count(a, &v) || v > 255 || !sim_vector_name(e->s, (uint8_t)v))) {
			printf("no interrupt vector '%s' on this MCU\n", a);
			return 0;
		}
		char what[64];
		const char *name = *a ? sim_vector_name(e->s, (uint8_t)v) : NULL;
		snprintf(what, sizeof what, "%s", name ? name : "any");
		shell_break *b = new_break(e, BK_IRQ, what);
		if (b) {
			b->vector = *a ? (int)v : -1;
			b->temp = temp;
			printf("Breakpoint %d at interrupt %s\n", b->id, what);
		}
		return 0;
	}
	uint32_t addr;
	avrr_err err;
	const char *colon = strrchr(args, ':');
	if (colon && colon[1] >= '0' && colon[1] <= '9') {
		char file[256];
		uint64_t line;
		snprintf(file, sizeof file, "%.*s", (int)(colon - args), args);
		if (parse_count(colon + 1, &line) || line > UINT32_MAX) {
			printf("bad line number in '%s'\n", args);
			return 0;
		}
		if (!lines_available(e->lines)) {
			printf("no line information in the firmware; break on an address or symbol\n");
			return 0;
		}
		if (lines_addr(e->lines, file, (unsigned)line, &addr, &err)) {
			printf("%s\n", err.msg);
			return 0;
		}
	} else {
		mview m = view_of(e);
		int is_code;
		/* gdb writes an address as *ADDR; a bare one means the same here. */
		if (view_address(&m, args + (*args == '*'), 1, &addr, &is_code, &err)) {
			printf("%s\n", err.msg);
			return 0;
		}
		if (!is_code) {
			printf("'%s' is a data address; use watch for data\n", args);
			return 0;
		}
	}
	shell_break *b = new_break(e, BK_CODE, args);
	if (!b)
		return 0;
	b->addr = addr;
	b->temp = temp;
	char where[128];
	fw_describe_pc(e->fw, addr, where, sizeof where);
	printf("%s %d at 0x%04x: %s", temp ? "Temporary breakpoint" : "Breakpoint", b->id, addr,
	       where);
	print_pc_line(e, addr);
	printf("\n");
	return 0;
}

static int cmd_break(engine *e, const char *args)
{
	return add_break(e, args, 0);
}

static int cmd_tbreak(engine *e, const char *args)
{
	return add_break(e, args, 1);
}

static int cmd_watch(engine *e, const char *args)
{
	uint32_t addr;
	int is_code;
	avrr_err err;
	mview m = view_of(e);
	if (!*args) {
		printf("usage: watch SYMBOL|ADDR\n");
		return 0;
	}
	if (view_address(&m, args, 0, &addr, &is_code, &err)) {
		printf("%s\n", err.msg);
		return 0;
	}
	if (is_code) {
		printf("'%s' is in flash, which the firmware cannot write\n", args);
		return 0;
	}
	const char *name = args[0] == '&' ? args + 1 : args;
	const fw_symbol *sym = fw_find_symbol(e->fw, name);
	unsigned size = sym && sym->space == FW_SYM_DATA && sym->addr == addr && sym->size ? sym->size : 1;
	if (size > 8)
		size = 8;
	shell_break *b = new_break(e, BK_WATCH, args);
	if (!b)
		return 0;
	b->addr = addr;
	b->size = size;
	b->old = watch_value(e, b);
	printf("Watchpoint %d: %s (%u byte%s at 0x%x)\n", b->id, args, size, size > 1 ? "s" : "", addr);
	return 0;
}

static int cmd_delete(engine *e, const char *args)
{
	if (!*args) {
		e->st.nb = 0;
		return 0;
	}
	uint64_t id;
	if (parse_count(args, &id)) {
		printf("usage: delete [N]\n");
		return 0;
	}
	for (unsigned i = 0; i < e->st.nb; i++)
		if ((uint64_t)e->st.b[i].id == id) {
			memmove(&e->st.b[i], &e->st.b[i + 1], (e->st.nb - i - 1) * sizeof e->st.b[i]);
			e->st.nb--;
			return 0;
		}
	printf("No breakpoint number %s.\n", args);
	return 0;
}

static int info_breakpoints(engine *e, const char *args)
{
	(void)args;
	if (!e->st.nb) {
		printf("No breakpoints or watchpoints.\n");
		return 0;
	}
	printf("Num  Type        Address  What\n");
	for (unsigned i = 0; i < e->st.nb; i++) {
		const shell_break *b = &e->st.b[i];
		const char *type = b->kind == BK_WATCH ? "watchpoint" : b->kind == BK_IRQ ? "interrupt"
				   : b->temp ? "tbreakpoint" : "breakpoint";
		if (b->kind == BK_IRQ)
			printf("%-4d %-11s %-8s %s\n", b->id, type, "", b->what);
		else
			printf("%-4d %-11s 0x%04x   %s\n", b->id, type, b->addr, b->what);
	}
	return 0;
}

/* Removes the temporary breakpoint that just stopped a motion. */
static void drop_temp(engine *e)
{
	if (e->rep.kind != SR_BREAK && e->rep.kind != SR_IRQ)
		return;
	for (unsigned i = 0; i < e->st.nb; i++)
		if (e->st.b[i].id == e->rep.id && e->st.b[i].temp) {
			char num[16];
			snprintf(num, sizeof num, "%d", e->rep.id);
			cmd_delete(e, num);
			return;
		}
}

static int cmd_where(engine *e, const char *args)
{
	(void)args;
	char where[128];
	uint32_t pc = sim_pc(e->s);
	fw_describe_pc(e->fw, pc, where, sizeof where);
	printf("icount=%" PRIu64 " pc=0x%04x %s\n", rp_icount(e->r), pc, where);
	if (e->unkept)
		printf("(%u inner frame%s not shown: the shell keeps %d)\n", e->unkept,
		       e->unkept > 1 ? "s" : "", MAX_FRAMES);
	for (unsigned i = e->nfr; i-- > 0;) {
		const frame *f = &e->fr[i];
		fw_describe_pc(e->fw, f->from, where, sizeof where);
		unsigned n = e->unkept + e->nfr - i;
		if (f->vector) {
			/* Taken at the boundary before its return address, at
			 * the icount `info irqs` lists. */
			const char *v = sim_vector_name(e->s, f->vector);
			printf("#%u  interrupt %u%s%s%s taken at 0x%04x %s", n, f->vector,
			       v ? " (" : "", v ? v : "", v ? ")" : "", f->from, where);
			print_pc_line(e, f->from);
			printf(" [icount %" PRIu64 "]\n", f->pos + 1);
		} else {
			printf("#%u  called from 0x%04x %s", n, f->from, where);
			print_pc_line(e, f->from);
			printf(" [icount %" PRIu64 "]\n", f->pos);
		}
	}
	if (e->lost_frames)
		printf("(the stack was %u frame%s deeper than seen from reset)\n", e->lost_frames,
		       e->lost_frames > 1 ? "s" : "");
	return 0;
}

static int cmd_x(engine *e, const char *args)
{
	/* args: "/FMT ADDR" or "ADDR" */
	char fmt[32] = "";
	const char *expr = args;
	if (*args == '/') {
		size_t n = strcspn(args, " ");
		snprintf(fmt, sizeof fmt, "%.*s", (int)n, args);
		expr = args + n;
		while (*expr == ' ')
			expr++;
	}
	mview m = view_of(e);
	avrr_err err;
	if (view_examine(stdout, &m, fmt, expr, &e->st.xs, &err))
		printf("%s\n", err.msg);
	return 0;
}

static int cmd_print(engine *e, const char *args)
{
	mview m = view_of(e);
	avrr_err err;
	if (!*args)
		printf("usage: print SYMBOL|REGISTER\n");
	else if (view_print(stdout, &m, args, &err))
		printf("%s\n", err.msg);
	return 0;
}

static int cmd_disassemble(engine *e, const char *args)
{
	(void)args;
	mview m = view_of(e);
	view_disassemble(stdout, &m, 5, 5);
	return 0;
}

static int cmd_errors(engine *e, const char *args)
{
	(void)args;
	const rp_counters *c = rp_get_counters(e->r);
	printf("configuration        %s\n", rp_config_name(e->r));
	printf("instructions         %" PRIu64 " of %" PRIu64 "\n", c->instructions, rp_length(e->r));
	printf("injected             %" PRIu64 "\n", c->injected);
	if (!c->scored) {
		printf("(the recording has no ground truth: nothing to score)\n");
		return 0;
	}
	printf("correct              %" PRIu64 "\n", c->correct);
	printf("false loop positives %" PRIu64 "\n", c->false_loop);
	printf("false RA positives   %" PRIu64 "\n", c->false_ra);
	printf("  input duplicates   %" PRIu64 "\n", c->input_duplicates);
	printf("  hash collisions    %" PRIu64 "\n", c->hash_collisions);
	printf("missed               %" PRIu64 "\n", c->missed);
	return 0;
}

static int info_divergence(engine *e, const char *args)
{
	(void)args;
	const rp_divergence *d = rp_get_divergence(e->r);
	if (!d) {
		printf("The replay has not diverged (up to icount %" PRIu64 ").\n", rp_icount(e->r));
		return 0;
	}
	printf("diverged at icount %" PRIu64 ", pc 0x%04x %s (context %u)\n", d->icount, d->pc,
	       d->where, d->context);
	printf("  expected  %s\n  actual    %s\n", d->expected, d->actual);
	return 0;
}

static const char *context_name(engine *e, unsigned ctx)
{
	const char *v = ctx ? sim_vector_name(e->s, (uint8_t)ctx) : "main";
	return v ? v : "isr";
}

/* Recorded interrupts near here (all with "all"), each with its fate. */
static int info_irqs(engine *e, const char *args)
{
	size_t nev, ninj;
	const db_event *ev = rp_events(e->r, &nev);
	const rp_injection *inj = rp_injections(e->r, &ninj);
	uint64_t now = rp_icount(e->r), n = 0, before = 0;
	int all = !strcmp(args, "all");
	for (size_t i = 0; i < nev; i++)
		if (ev[i].type == DB_EV_IRQ && ev[i].icount <= now)
			before++;
	printf("Num    icount       vector              state\n");
	size_t k = 0;  /* injections, merged in icount order */
	for (size_t i = 0; i < nev; i++) {
		if (ev[i].type != DB_EV_IRQ)
			continue;
		n++;
		int shown = all || (n + 5 > before && n <= before + 5);
		for (; k < ninj && inj[k].icount < ev[i].icount; k++)
			if (shown)
				printf("-      %-12" PRIu64 " %-19s false (injected, not recorded)\n",
				       inj[k].icount, context_name(e, inj[k].vector));
		int taken = k < ninj && inj[k].icount == ev[i].icount && inj[k].vector == ev[i].addr;
		if (taken)
			k++;
		if (shown)
			printf("%-6" PRIu64 " %-12" PRIu64 " %-19s %s\n", n, ev[i].icount,
			       context_name(e, ev[i].addr), taken ? "correct"
			       : ev[i].icount > now ? "pending" : "missed");
	}
	return 0;
}

/* The happens-before log around here: N events either side. */
static int info_events(engine *e, const char *args)
{
	uint64_t n = 5;
	if (*args && parse_count(args, &n)) {
		printf("usage: info events [N]\n");
		return 0;
	}
	size_t nev;
	const db_event *ev = rp_events(e->r, &nev);
	uint64_t now = rp_icount(e->r);
	size_t here = 0;
	while (here < nev && ev[here].icount <= now)
		here++;
	size_t from = here > n ? here - n : 0, to = here + n < nev ? here + n : nev;
	for (size_t i = from; i < to; i++) {
		char what[160];
		rp_describe_event(e->r, &ev[i], what, sizeof what);
		printf("%s seq %-8" PRIu64 " icount %-10" PRIu64 " %-10s %s\n", i == here ? "=>" : "  ",
		       ev[i].seq, ev[i].icount, context_name(e, ev[i].ctx), what);
	}
	if (here == nev)
		printf("=> (end of the log)\n");
	return 0;
}

static void print_fingerprint(void *ud, const char *name, uint64_t ra_part, uint64_t hash_part,
			      size_t matches)
{
	(void)ud;
	printf("%-16s ra*=0x%" PRIx64 " h=0x%" PRIx64 "  ", name, ra_part, hash_part);
	if (matches)
		printf("in D (%zu recorded interrupt%s)\n", matches, matches > 1 ? "s" : "");
	else
		printf("not in D\n");
}

static int info_checkpoints(engine *e, const char *args)
{
	(void)args;
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(e->t, cks, sizeof cks / sizeof *cks);
	uint64_t kb = 0;
	for (size_t i = 0; i < n; i++) {
		char path[64], line[256];
		snprintf(path, sizeof path, "/proc/%d/smaps_rollup", cks[i].pid);
		FILE *f = fopen(path, "r");
		while (f && fgets(line, sizeof line, f))
			if (!strncmp(line, "Pss:", 4))
				kb += strtoull(line + 4, NULL, 10);
		if (f)
			fclose(f);
	}
	printf("%zu checkpoints, %.1f MB (proportional set size)\n", n, (double)kb / 1024.0);
	for (size_t i = 0; i < n; i++)
		printf("  icount %" PRIu64 "\n", cks[i].icount);
	return 0;
}

/* A table of names with gdb's resolution: an exact name or alias, else a
 * unique prefix. */
typedef struct named {
	const char *name, *alias;
} named;

static int resolve(const named *t, size_t n, size_t stride, const char *word, size_t len)
{
	int found = -1, count = 0;
	for (size_t i = 0; i < n; i++) {
		const named *c = (const named *)((const char *)t + i * stride);
		if ((strlen(c->name) == len && !strncmp(c->name, word, len)) ||
		    (c->alias && strlen(c->alias) == len && !strncmp(c->alias, word, len)))
			return (int)i;
		if (!strncmp(c->name, word, len)) {
			found = (int)i;
			count++;
		}
	}
	return count == 1 ? found : count > 1 ? -2 : -1;
}

typedef struct info_cmd {
	named n;
	int (*fn)(engine *e, const char *args);
} info_cmd;

static int info_registers(engine *e, const char *a)
{
	(void)a;
	mview m = view_of(e);
	view_registers(stdout, &m);
	return 0;
}

static int info_io(engine *e, const char *a)
{
	(void)a;
	mview m = view_of(e);
	view_io(stdout, &m);
	return 0;
}

static int info_fingerprint(engine *e, const char *a)
{
	(void)a;
	avrr_err err;
	if (rp_fingerprints_here(e->r, print_fingerprint, NULL, &err))
		printf("%s\n", err.msg);
	return 0;
}

static const info_cmd INFO[] = {
	{ { "registers", "r" }, info_registers },
	{ { "io", NULL }, info_io },
	{ { "breakpoints", "b" }, info_breakpoints },
	{ { "watchpoints", NULL }, info_breakpoints },
	{ { "irqs", NULL }, info_irqs },
	{ { "events", NULL }, info_events },
	{ { "fingerprint", NULL }, info_fingerprint },
	{ { "divergence", NULL }, info_divergence },
	{ { "checkpoints", NULL }, info_checkpoints },
};

static int cmd_info(engine *e, const char *args)
{
	size_t len = strcspn(args, " ");
	int i = resolve(&INFO[0].n, sizeof INFO / sizeof *INFO, sizeof *INFO, args, len);
	if (i < 0) {
		printf("%s info command \"%.*s\"; try: registers io breakpoints irqs events "
		       "fingerprint divergence checkpoints\n", i == -2 ? "Ambiguous" : "Undefined",
		       (int)len, args);
		return 0;
	}
	const char *rest = args + len;
	while (*rest == ' ')
		rest++;
	return INFO[i].fn(e, rest);
}

static int cmd_echo(engine *e, const char *args)
{
	(void)e;
	printf("%s\n", args);
	return 0;
}

static int cmd_help(engine *e, const char *args);

typedef struct command {
	named n;
	command_fn fn;
	int motion;           /* drops a tbreak that stopped it */
	const char *help;
} command;

static const command COMMANDS[] = {
	{ { "stepi", "si" }, cmd_stepi, 1, "stepi [N]: N instructions forward" },
	{ { "step", "s" }, cmd_step, 1, "step: to the next source line, into calls" },
	{ { "next", "n" }, cmd_next, 1, "next: to the next source line in this function" },
	{ { "finish", "fin" }, cmd_finish, 1, "finish: until this function returns" },
	{ { "continue", "c" }, cmd_continue, 1, "continue: until a breakpoint, watchpoint or the end" },
	{ { "reverse-stepi", "rsi" }, cmd_reverse_stepi, 0, "reverse-stepi [N]: N instructions back" },
	{ { "reverse-step", "rs" }, cmd_reverse_step, 0, "reverse-step: back to the previous source line" },
	{ { "reverse-next", "rn" }, cmd_reverse_next, 0, "reverse-next: back to the previous line of this function" },
	{ { "reverse-continue", "rc" }, cmd_reverse_continue, 0, "reverse-continue: back to the last breakpoint or watched write" },
	{ { "reverse-finish", NULL }, cmd_reverse_finish, 0, "reverse-finish: back to the call of this function" },
	{ { "goto", NULL }, cmd_goto, 0, "goto ICOUNT | goto irq N: jump to a position" },
	{ { "run", "r" }, cmd_run, 0, "run: back to the start" },
	{ { "break", "b" }, cmd_break, 0, "break ADDR|SYMBOL|FILE:LINE | break irq [VECTOR]" },
	{ { "tbreak", NULL }, cmd_tbreak, 0, "tbreak ...: a breakpoint deleted when hit" },
	{ { "delete", "d" }, cmd_delete, 0, "delete [N]: breakpoints and watchpoints" },
	{ { "watch", NULL }, cmd_watch, 0, "watch SYMBOL|ADDR: stop when it changes" },
	{ { "info", "i" }, cmd_info, 0, "info registers|io|breakpoints|irqs|events|fingerprint|divergence|checkpoints" },
	{ { "x", NULL }, cmd_x, 0, "x/NFU ADDR: examine memory" },
	{ { "print", "p" }, cmd_print, 0, "print SYMBOL|REGISTER" },
	{ { "disassemble", NULL }, cmd_disassemble, 0, "disassemble: around the pc" },
	{ { "where", "bt" }, cmd_where, 0, "where: position and call stack" },
	{ { "backtrace", NULL }, cmd_where, 0, "backtrace: the same as where" },
	{ { "errors", NULL }, cmd_errors, 0, "errors: the replay's counters up to here" },
	{ { "echo", NULL }, cmd_echo, 0, "echo TEXT" },
	{ { "help", "h" }, cmd_help, 0, "help: this list" },
};

static int cmd_help(engine *e, const char *args)
{
	(void)e;
	(void)args;
	for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++)
		printf("%s\n", COMMANDS[i].help);
	printf("quit: leave the shell\n");
	return 0;
}

/* Runs one command line. */
static void execute(engine *e, char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	size_t end = strlen(line);
	while (end && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
		line[--end] = 0;
	if (!*line)
		return;
	/* "x/16xb ADDR": the command word ends at '/' too. */
	size_t len = strcspn(line, " /");
	int i = resolve(&COMMANDS[0].n, sizeof COMMANDS / sizeof *COMMANDS, sizeof *COMMANDS, line,
			len);
	if (i < 0) {
		printf(i == -2 ? "Ambiguous command \"%.*s\".\n"
			       : "Undefined command: \"%.*s\".  Try \"help\".\n", (int)len, line);
		return;
	}
	const char *args = line + len;
	while (*args == ' ')
		args++;
	e->rep.kind = SR_NONE;
	COMMANDS[i].fn(e, args);
	if (COMMANDS[i].motion)
		drop_temp(e);
}

/* ---- the loop -------------------------------------------------------------- */

/* Reads one line from fd, byte by byte: whatever follows belongs to the
 * process that will be the engine then. */
static int read_line(int fd, char *buf, size_t n)
{
	size_t k = 0;
	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (c == '\n')
			break;
		if (k + 1 < n)
			buf[k++] = c;
	}
	buf[k] = 0;
	return 0;
}

static void send_names(engine *e)
{
	char line[160];
	for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++) {
		snprintf(line, sizeof line, "cmd %s\n", COMMANDS[i].n.name);
		reply(e->t, line);
	}
	reply(e->t, "cmd quit\n");
	for (size_t i = 0; i < sizeof INFO / sizeof *INFO; i++) {
		snprintf(line, sizeof line, "info %s\n", INFO[i].n.name);
		reply(e->t, line);
	}
	for (size_t i = 0; i < e->fw->nsyms; i++) {
		snprintf(line, sizeof line, "sym %s\n", e->fw->syms[i].name);
		reply(e->t, line);
	}
	/* Source files by basename, as `break FILE:LINE` is typed. */
	for (size_t i = 0; lines_available(e->lines) && lines_file(e->lines, i); i++) {
		const char *f = lines_file(e->lines, i), *base = strrchr(f, '/');
		snprintf(line, sizeof line, "sym %s\n", base ? base + 1 : f);
		reply(e->t, line);
	}
}

/* Says goodbye to every checkpoint. */
static void end_session(engine *e)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(e->t, cks, sizeof cks / sizeof *cks);
	travel_req q = { .op = REQ_EXIT };
	for (size_t i = 0; i < n; i++)
		travel_send(e->t, cks[i].icount, &q, sizeof q);
}

int engine_main(const engine_options *o, travel *t)
{
	/* Heap, not stack: the state must survive longjmp and fork alike. */
	engine *e = calloc(1, sizeof *e);
	avrr_err err;
	char msg[600];
	if (!e) {
		reply(t, "error out of memory\n");
		return 2;
	}
	e->t = t;
	e->ck_fd = -1;
	e->interrupted = o->replay.interrupted;
	if (rp_open(o->db_path, &o->replay, &e->r, &err) ||
	    lines_load(rp_firmware(e->r), &e->lines, &err)) {
		snprintf(msg, sizeof msg, "error %s\n", err.msg);
		reply(e->t, msg);
		rp_close(e->r);
		free(e);
		return 2;
	}
	e->s = rp_sim(e->r);
	e->fw = rp_firmware(e->r);
	e->prev_pc = sim_pc(e->s);
	rp_set_step_hook(e->r, on_step, e);
	signal(SIGCHLD, SIG_IGN);  /* checkpoints and scouts reap themselves */
	sigaction(SIGINT, NULL, &e->sigint);
	send_names(e);
	reply(e->t, "ready\n");
	if (setjmp(e->top)) {
		serve_checkpoint(e);  /* returns in the copy that takes over, */
		reply(e->t, "done\n");   /* which ends the command that jumped */
	} else {
		checkpoint_here(e);   /* icount 0, for `run` and every way back */
	}
	char line[1024];
	for (;;) {
		if (read_line(t->cmd_fd, line, sizeof line))
			break;
		if (!strcmp(line, "quit"))
			break;
		if (e->interrupted)
			*e->interrupted = 0;
		execute(e, line);
		reply(e->t, "done\n");
	}
	end_session(e);
	reply(e->t, "bye\n");
	_exit(0);
}
