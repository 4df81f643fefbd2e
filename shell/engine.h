/*
 * engine.h — the shell's engine: one replay (replayer.h) driven by gdb's
 * commands, forward and backward.
 *
 * The engine runs in its own process, apart from the UI (ui.c), because
 * going backward replaces the process: a checkpoint (travel.h) is forked
 * and run forward to the position wanted, and that copy carries on as the
 * engine.  Commands arrive one line at a time on t->cmd_fd; their output
 * goes to stdout; "done\n" on t->reply_fd ends each.
 *
 * Positions are icounts (replayer.h): "at icount k" is the state after k
 * instructions, with any interrupt entered at that boundary.
 */
#ifndef AVRR_ENGINE_H
#define AVRR_ENGINE_H

#include "replayer/replayer.h"
#include "timeline/timeline.h"

typedef struct engine_options {
	const char *db_path;
	rp_options replay;          /* fp_name, match, window, interrupted */
	unsigned checkpoint_mb;     /* the checkpoints' memory cap; 0: TRAVEL_MEMORY_MB */
} engine_options;

/* Runs the engine until the UI says quit or goes away; never returns in
 * the processes it forks.  Before the first command it sends the UI
 * "sym NAME\n" per completable name and "ready\n" — or "error MESSAGE\n"
 * when the recording cannot be replayed.  Returns the exit status. */
int engine_main(const engine_options *o, travel *t);

#endif
