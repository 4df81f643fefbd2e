/*
 * internal.h — what the timeline's two halves share, and nothing a
 * front-end may use: the timeline's state (timeline.c: the motions, the
 * step hook and the breakpoints) and the process machinery that moves it
 * (checkpoint.c: laying, thinning and serving checkpoints, going back to a
 * position, scouting a span).  timeline.h is the API; this is not.
 */
#ifndef AVRR_TIMELINE_INTERNAL_H
#define AVRR_TIMELINE_INTERNAL_H

#include <setjmp.h>
#include <signal.h>

#include "timeline/timeline.h"

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


/* Data-space bytes an instruction reads: [lo, lo + len). */
typedef struct data_span {
	uint32_t lo;
	unsigned len;
} data_span;

struct ck_host;

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
	const struct ck_host *host; /* timeline.c's motions, for checkpoint.c */

	tl_frame fr[TL_MAX_FRAMES];
	unsigned nfr;
	unsigned unkept;          /* frames pushed beyond TL_MAX_FRAMES, innermost */
	unsigned lost_frames;     /* pops with no frame: the stack was deeper */
	uint64_t prev_icount;
	uint32_t prev_pc;
	unsigned prev_depth;
	data_span reads;          /* what the instruction at prev_pc reads, */
	int want_reads;           /* kept only when a read or access watch needs it */
	uint8_t *kinds;           /* per flash word: W_CALL, W_RET, W_RETI or W_PLAIN */
	int filtered;             /* on_step hears only of calls, returns and entries */
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
	int thin_due;             /* the caps to keep once idle (ck_thin_when_idle) */
	size_t listed;            /* after a jump: the checkpoints the asker listed */

	/* The engine's spare: the checkpoint it laid a little short of where
	 * its last motion ended, which a short jump back takes over whole —
	 * no fork, no copy left behind (see checkpoint.c).  0: none. */
	uint64_t spare;
	int spare_ready[2];       /* a pipe: the spare says it waits (-1: none) */

	tl_work work;             /* what travel cost so far (tl_get_work) */

	jmp_buf top;
	int ck_fd;                /* as a checkpoint: its FIFO */
	struct sigaction sigint;  /* the front-end's Ctrl-C handler */
};

#define TO_END UINT64_MAX

/* ---- timeline.c, for the machinery ----------------------------------------- */

/* What the process machinery asks of the motions above it.  The machinery
 * (checkpoint.c) knows them only through this table, which timeline.c
 * fills in: the dependency goes one way, timeline.c -> checkpoint.c. */
typedef struct ck_host {
	/* Reports a motion's end here (fe->stopped), and deletes the
	 * temporary breakpoint that ended it. */
	void (*emit)(timeline *tl, tl_stop rep);
	/* Reports a motion that could not move at all: TL_FAILED, saying why. */
	void (*fail)(timeline *tl, const char *why);
	/* Whether the current motion needs to hear only of the steps a
	 * filter tells of: those that change the shadow call stack (calls,
	 * returns, interrupt entries) and, for a motion that checks
	 * breakpoints, those that change a watched value — no code, read or
	 * access breakpoint, no source line. */
	int (*filterable)(const timeline *tl);
	/* Has the step hook told (on) only of those steps, while the replay
	 * runs the others at its own speed, or (off) of every step again.
	 * The hook cannot poll then: the caller polls between slices. */
	void (*filter_steps)(timeline *tl, int on);
	/* Brings every watch's last value, and what the next instruction
	 * reads when a read or access watch needs it, up to date with the
	 * state here. */
	void (*refresh_watches)(timeline *tl);
} ck_host;

/* ---- checkpoint.c: the process machinery ----------------------------------- */

/* Forks a checkpoint of this position (unless there is one), thinning
 * the others beyond the count and memory caps.  The checkpoint carries on
 * in ck_serve, by a longjmp to tl->top.  Returns 1 if it forked one. */
int ck_lay(timeline *tl);

/* What a forward run lays (see ck_run_forward in checkpoint.c). */
enum { LAY_NONE, LAY_CHECKPOINTS, LAY_SPARE };

/* Runs forward to `target` (TO_END: the end) under the current motion,
 * laying checkpoints, and the engine's spare too, as `lay` says.  Returns why
 * the replay stopped: RP_LIMIT at the target. */
rp_stop ck_run_forward(timeline *tl, uint64_t target, int lay);

/* Makes this timeline the state at `target` and reports `rep` there.
 * Going back, this process hands over to a copy of a checkpoint and
 * becomes a checkpoint itself (a longjmp to tl->top): the report then
 * comes from the copy, and this function does not return. */
void ck_travel_to(timeline *tl, uint64_t target, tl_stop rep);

/* The last position before here where the scout motion `kind` matches,
 * scanning back one checkpoint span at a time.  Returns 1 found (*pos,
 * *rep), 0 none, -1 interrupted, -2 failed. */
int ck_search_back(timeline *tl, motion_kind kind, uint64_t *pos, tl_stop *rep);

/* Serves as the checkpoint whose FIFO is tl->ck_fd: waits for requests
 * and forks a copy for each.  A scout is the copy, and exits; at a resume
 * the copy stays the checkpoint and this process becomes the timeline:
 * the only return, once it has reported its stop.  A checkpoint told to
 * go exits. */
void ck_serve(timeline *tl);

/* After going backward: the process that asked is a checkpoint now, so
 * the caps are due again (kept at once only far past the count cap). */
void ck_thin_after_travel(timeline *tl);

/* Keeps the caps if they are due and no command comes within a moment
 * (on the command pipe; a front-end without one does not wait). */
void ck_thin_when_idle(timeline *tl);

/* Says goodbye to every checkpoint. */
void ck_end_session(timeline *tl);

#endif
