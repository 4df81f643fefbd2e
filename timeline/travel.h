/*
 * travel.h — checkpoints as processes, for time travel on a recording (timeline.h).
 *
 * simavr keeps a chip's state all over the heap (peripherals, cycle timers,
 * IRQ lists), so a checkpoint is not a copy of some structs but a whole
 * process: fork() at a position and let the child wait, its memory shared
 * copy-on-write with everyone else's (gdb's `checkpoint` does the same).
 * Going back to icount k means asking the checkpoint at or below k to fork
 * once more; the checkpoint itself then runs forward to k — replay is
 * deterministic, so it reaches exactly the state a forward run reaches —
 * and takes over as the active engine, while its child (the copy) waits
 * in its place.  A scout is a copy that runs forward only to look (where
 * did a breakpoint last hit?), reports, and exits.
 *
 * Every checkpoint waits on a FIFO named after its icount (and pid) in the session's
 * directory, so the directory itself is the list of checkpoints that every
 * process, old or new, can read.  All of them also hold the read end of the
 * UI's lifeline pipe and exit when it closes.
 */
#ifndef AVRR_TRAVEL_H
#define AVRR_TRAVEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

typedef struct travel {
	char dir[256];       /* the session's directory of FIFOs */
	int cmd_fd;          /* the UI's commands, read by the active engine */
	int reply_fd;        /* to the UI */
	int life_fd;         /* EOF when the UI is gone */
	uint64_t interval;   /* a checkpoint every this many instructions */
	unsigned max;        /* at most this many checkpoints */
	uint64_t mem_cap_kb; /* their memory (travel_memory_kb) at most this; 0: no cap */
} travel;

#define TRAVEL_INTERVAL (1u << 19)
#define TRAVEL_MAX 256
#define TRAVEL_MEMORY_MB 256   /* --checkpoint-memory's default */
#define TRAVEL_MEMORY_MB_MAX (1u << 20)

typedef struct travel_ck {
	uint64_t icount;
	int pid;
} travel_ck;

/* The checkpoints, by icount ascending; returns how many (at most cap). */
size_t travel_list(const travel *t, travel_ck *cks, size_t cap);

/* The memory the checkpoints add to the engine's own (the calling
 * process's), in kB: their proportional set sizes summed — so that what
 * several of them share counts once, split between them — less what of
 * it they share with the engine, which it would hold alone too.  Pages the
 * engine shares with other processes (the shell's UI: libraries) are taken
 * off too, a little too much.  Reads each one's /proc/PID/smaps_rollup:
 * about 0.1 ms a checkpoint. */
uint64_t travel_memory_kb(const travel_ck *cks, size_t n);

/* Creates this process's checkpoint FIFO for icount k, opened so that
 * waiting on it never sees end-of-file; returns its descriptor, or -1.
 * The caller's listing has shown none at k already (a listing here again
 * would cost a scan of the directory on the clock of a jump back, which
 * has one at hand).  travel_set_pid hands this
 * process's FIFO for k to the process pid: a parent that registers for
 * the child it then forks names the child so, as does a checkpoint that
 * takes over as the engine and leaves its child in its place. */
int travel_register(const travel *t, uint64_t k);
void travel_set_pid(const travel *t, uint64_t k, int pid);

/* Sends `len` bytes of request to the checkpoint at icount k; _to, to
 * the one a travel_list just gave (no listing again). */
int travel_send(const travel *t, uint64_t k, const void *req, size_t len);
int travel_send_to(const travel *t, const travel_ck *ck, const void *req, size_t len);

/* Waits for a request on fd (from travel_register); returns 0, or -1 when
 * the UI is gone. */
int travel_wait(const travel *t, int fd, void *req, size_t len);

/* Removes this process's FIFO of icount k (it is exiting, or gave up
 * registering): by its own name, not whatever checkpoint is at k now —
 * one told to go may exit after the engine has laid another at k.
 * travel_forget removes the one a travel_list gave. */
void travel_unregister(const travel *t, uint64_t k);
void travel_forget(const travel *t, const travel_ck *ck);

/* A scout's answer travels through the directory's "result" FIFO. */
int travel_result_open(const travel *t);  /* the asker, before sending */
int travel_result_write(const travel *t, const void *res, size_t len);

/* Reads exactly len bytes (retrying short reads; -1 on EOF or error). */
int travel_read_full(int fd, void *buf, size_t len);

#endif
