/*
 * timeline.h — a recording as a timeline to move on, forward and backward:
 * the layer every debugging front-end (the shell, the gdb server) stands on.
 *
 * A position is an icount (replayer.h): "at icount k" is the state after k
 * instructions, with any interrupt entered at that boundary.  Forward
 * motions run the replay with a step hook that keeps a shadow call stack
 * (CALL/RCALL/ICALL and interrupt entries push, RET and RETI pop) and
 * checks the motion's stop condition.  Backward motions are forward ones
 * from a checkpoint (travel.h): a scout runs the span before here to find
 * the last position where the condition held, then the timeline travels
 * there.
 *
 * Going backward replaces the process: a copy of a checkpoint runs forward
 * to the position wanted and carries on as the timeline, while the process
 * that asked becomes a checkpoint.  So the timeline owns the command loop
 * (tl_main) and reports every motion's end through the front-end's
 * `stopped` callback, in whichever process reaches it.  State that must
 * survive the hand-over travels with it: the breakpoints, and the
 * front-end's own plain-data "carry" (tl_carry).
 *
 * The timeline prints nothing; everything comes back as data.
 */
#ifndef AVRR_TIMELINE_H
#define AVRR_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "replayer/replayer.h"
#include "dwarf/lines.h"
#include "timeline/travel.h"

typedef struct timeline timeline;

#define TL_MAX_BREAKS 64
#define TL_MAX_FRAMES 256
#define TL_CARRY_MAX 4096  /* bytes of front-end state carried across travel */

typedef enum {
	TL_BK_CODE,      /* pc == addr */
	TL_BK_IRQ,       /* an interrupt (vector, or any) is entered */
	TL_BK_WATCH,     /* the value at addr..addr+size-1 changes */
	TL_BK_RWATCH,    /* an instruction reads it */
	TL_BK_AWATCH,    /* an instruction reads it, or its value changes */
} tl_break_kind;

typedef struct tl_break {
	int id;
	tl_break_kind kind;
	int temp;             /* deleted when it stops a motion */
	uint32_t addr;        /* code: flash byte address; watches: data address */
	int vector;           /* irq: the vector, -1 for any */
	unsigned size;        /* watches: bytes, 1..8 */
	uint64_t old;         /* watches: the value at the last position */
	char what[64];        /* as the user named it */
	/* code and irq breakpoints: stops only where the front-end's
	 * `condition` says this holds ("" : always) — plain text, so that it
	 * is carried with the breakpoints to the process that takes over */
	char cond[128];
} tl_break;

typedef enum {
	TL_STEPPED,      /* reached the position the motion asked for */
	TL_BREAK,        /* a code breakpoint (id) */
	TL_IRQ,          /* an interrupt breakpoint (id) */
	TL_WATCH,        /* a watchpoint (id): old -> now at addr */
	TL_RWATCH,       /* a read watchpoint (id): addr read, value now */
	TL_AWATCH,       /* an access watchpoint (id) */
	TL_START,        /* backward: no match before here; at icount 0 */
	TL_END,          /* forward: the end of the recording */
	TL_DIVERGED,     /* the replay diverged (tl_divergence) */
	TL_INTERRUPTED,  /* a stop request */
	TL_CPU_STOPPED,  /* the CPU stopped before the end */
	TL_FAILED,       /* could not move at all: `what` says why */
} tl_stop_kind;

typedef struct tl_stop {
	tl_stop_kind kind;
	int id;               /* the breakpoint's */
	uint64_t icount;
	uint32_t pc;
	uint32_t addr;        /* watches: the data address */
	uint64_t old, now;    /* watches: the values */
	int reverse;          /* the motion went backward */
	char what[128];       /* the breakpoint as named, or why TL_FAILED */
} tl_stop;

/* A frame of the shadow call stack. */
typedef struct tl_frame {
	uint64_t pos;         /* the position before the call or entry */
	uint32_t from;        /* the pc of the call, or an interrupt's return address */
	uint8_t vector;       /* 0 for a call */
} tl_frame;

typedef struct tl_frontend {
	/* Reads and runs one command; returns 0 to go on, -1 to end the session. */
	int (*command)(timeline *tl, void *ud);
	/* A motion ended (stop->icount is here). */
	void (*stopped)(timeline *tl, const tl_stop *stop, void *ud);
	/* In the copy that took over after going backward, after `stopped`:
	 * ends the command that moved.  May be NULL. */
	void (*resumed)(timeline *tl, void *ud);
	/* Called every few thousand instructions of a forward motion; non-zero
	 * stops it (TL_INTERRUPTED).  May be NULL. */
	int (*poll)(timeline *tl, void *ud);
	/* A breakpoint's condition (tl_break.cond) at the state here: 1 holds,
	 * 0 does not, -1 cannot be evaluated (the breakpoint stops, as gdb's
	 * does, and the front-end says why).  May be NULL: conditions hold. */
	int (*condition)(timeline *tl, const char *cond, void *ud);
} tl_frontend;

/* Opens the recording at db_path for replay under `o`.  Returns 0, or -1
 * with err set. */
int tl_open(const char *db_path, const rp_options *o, travel *t, timeline **out, avrr_err *err);

/* Runs the session: lays the first checkpoint, then calls fe->command until
 * it returns -1, and tells every checkpoint to go.  Never returns in the
 * processes it forks; returns 0 in the one that ends the session. */
int tl_main(timeline *tl, const tl_frontend *fe, void *ud);

/* The front-end's plain data (no pointers but into memory loaded before
 * tl_main) carried to the process that takes over after going backward:
 * tl_main copies it there before calling `stopped`. */
void tl_carry(timeline *tl, void *data, size_t size);

/* ---- motions: each ends in fe->stopped ---------------------------------- */

void tl_stepi(timeline *tl, uint64_t n);          /* n instructions, or a break */
void tl_step_line(timeline *tl, int into_calls);  /* gdb's step / next */
void tl_finish(timeline *tl);                     /* until this frame returns */
void tl_continue(timeline *tl);
void tl_reverse_stepi(timeline *tl, uint64_t n);
void tl_reverse_line(timeline *tl, int into_calls);
/* watch_before: a watchpoint stops before the instruction that accessed
 * it (gdb's convention backward), else after it (the shell's). */
void tl_reverse_continue(timeline *tl, int watch_before);
void tl_reverse_finish(timeline *tl);             /* back to this frame's call */
void tl_goto(timeline *tl, uint64_t icount);

/* What the session's travel has cost so far, counted exactly: the
 * instructions replayed — by the engine on its motions, by the scouts it
 * sent backward, and by each copy that took over after a jump, from its
 * checkpoint to where it was asked to go (a copy goes on with the count
 * of the engine that asked) — the scouts, and the checkpoints laid.  A
 * goto from icount a forward to b replays b - a. */
typedef struct tl_work {
	uint64_t replayed;
	uint64_t scouts;
	uint64_t laid;
} tl_work;
tl_work tl_get_work(const timeline *tl);

/* The memory the checkpoints add now (kB, measured), after thinning them
 * if that is over the cap: whenever the memory is measured, the cap
 * holds, between measurements it is estimated (docs/shell.md). */
uint64_t tl_checkpoint_memory(timeline *tl);

/* ---- breakpoints --------------------------------------------------------- */

/* Adds one (size: the bytes a watch covers, 1..8); returns it, or NULL
 * when there are TL_MAX_BREAKS already. */
tl_break *tl_break_add(timeline *tl, tl_break_kind kind, uint32_t addr, unsigned size,
		       const char *what);
int tl_break_delete(timeline *tl, int id);        /* 0, or -1 if none */
/* Sets breakpoint id's condition ("": none).  0, -1 if no such code or
 * irq breakpoint, -2 if the text is longer than tl_break.cond holds. */
int tl_break_condition(timeline *tl, int id, const char *cond);
void tl_break_clear(timeline *tl);
const tl_break *tl_breaks(const timeline *tl, unsigned *n);

/* ---- where we are --------------------------------------------------------- */

uint64_t tl_icount(const timeline *tl);
uint64_t tl_length(const timeline *tl);
uint32_t tl_pc(const timeline *tl);
replay *tl_replay(const timeline *tl);
sim *tl_sim(const timeline *tl);
const firmware *tl_firmware(const timeline *tl);
const src_lines *tl_lines(const timeline *tl);
const travel *tl_travel(const timeline *tl);
const rp_divergence *tl_divergence(const timeline *tl);   /* NULL if none */
/* The shadow call stack, outermost first; *unkept frames deeper than
 * TL_MAX_FRAMES are not kept, *lost returns found no frame. */
const tl_frame *tl_frames(const timeline *tl, unsigned *n, unsigned *unkept, unsigned *lost);
/* A position as `goto` takes it in the shell and in gdb's `monitor goto`:
 * an icount (decimal or 0x hex, with a k, M or G suffix) or `irq N`, the
 * N-th recorded interrupt's (from 1).  Returns 0, -1 if `arg` is neither,
 * -2 if there is no interrupt N. */
int tl_parse_position(const timeline *tl, const char *arg, uint64_t *icount);
/* Parses a count: decimal or 0x hex, with k/M/G suffixes, trailing spaces
 * allowed.  0, or -1. */
int tl_parse_count(const char *s, uint64_t *out);

#endif
