/*
 * session.h — the one host of an engine session, for every front-end:
 * the shell (shell/ui.c), `avrr serve` (gdb/server.c) and `avrr gdb`
 * (cli/cmd_gdb.c).
 *
 * The engine — a replay driven by the front-end's commands — runs in a
 * process of its own, because going backward replaces it by a copy of a
 * checkpoint (timeline/travel.h).  The host owns everything around it:
 *
 *   - the session's directory, $TMPDIR/avrr-KIND-XXXXXX, where the
 *     checkpoints' FIFOs (and files that go with the session) live;
 *   - the fork into a process group of its own, so that one kill ends the
 *     engine and every checkpoint; the signals that end a session are held
 *     over the fork, so none leaves the engine orphaned;
 *   - three pipes: commands down (optional), lines up ("ready", "done",
 *     "bye", "error MESSAGE", "warn MESSAGE", and front-end's own), and
 *     the lifeline, never written, whose closing tells every checkpoint
 *     to go;
 *   - SIGTERM and SIGHUP (and SIGINT as asked): the engine's group goes at
 *     once, and so does a program started with session_run;
 *   - the engine's death: while the front-end waits (for a line, for
 *     input, for its program), the engine process it started that dies
 *     of a signal or exits non-zero is noticed at once through a pidfd
 *     (and SIGCHLD, which interrupts readline);
 *     the host says so in one line ("avrr shell: the engine died of
 *     signal 9 (Killed)") and the call returns SESSION_DIED; the
 *     front-end then ends the session (session_end, which removes the
 *     directory) and exits 1.
 *
 * After going backward the engine is a copy of a checkpoint, a
 * descendant the front-end cannot wait for: the copy says "engine PID"
 * when it takes over, and the host watches it through a pidfd too; its
 * death ("avrr shell: the engine (pid N) died") ends the session alike.
 *
 * The host also starts the sweep's workers (session_worker), so that
 * fork() is called here and in the checkpoint machinery only.
 *
 * A process hosts one session at a time: signal handlers take no user
 * pointer, so the host keeps the one it serves in statics.
 */
#ifndef AVRR_SESSION_H
#define AVRR_SESSION_H

#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include "util/err.h"

/* The words of the reply pipe, written by an engine and read by its
 * front-end (and by session_await): one spelling for both sides.  Each is
 * a line; those ending in a space take the rest of the line. */
#define WIRE_READY  "ready"
#define WIRE_DONE   "done"
#define WIRE_BYE    "bye"
#define WIRE_CLOSED "closed"    /* the engine's stdout went away */
#define WIRE_ERROR  "error "    /* + what went wrong */
#define WIRE_WARN   "warn "     /* + a warning for the front-end to say */
#define WIRE_ENGINE "engine "   /* + the pid now serving as engine (0: none) */
#define WIRE_SYM    "sym "      /* the shell: + a name to complete */
#define WIRE_CMD    "cmd "      /* + a command's name */
#define WIRE_INFO   "info "     /* + an info subcommand's name */

/* The rest of a reply line after the wire word `word` (one of those ending
 * in a space), or NULL when the line is another word's. */
static inline const char *wire_rest(const char *line, const char *word)
{
	size_t n = strlen(word);
	return strncmp(line, word, n) ? NULL : line + n;
}

/* What the engine process is given. */
typedef struct session_ends {
	const char *dir;  /* the session's directory */
	int cmd_fd;       /* the front-end's commands, a line each; -1 without */
	int reply_fd;     /* the engine's lines to the front-end */
	int life_fd;      /* end-of-file once the front-end is gone */
} session_ends;

/* The engine: runs in the forked process; its return is the exit status. */
typedef int (*session_engine)(const session_ends *ends, void *arg);

/* What Ctrl-C does while the session runs. */
typedef enum session_sigint {
	SESSION_SIGINT_FORWARD,  /* sent on to the engine's group (the shell) */
	SESSION_SIGINT_ENDS,     /* ends the session, as SIGTERM (serve) */
	SESSION_SIGINT_IGNORE,   /* the front-end's program takes it (gdb) */
} session_sigint;

#define SESSION_DIED (-3)

typedef struct session {
	/* Set before session_start. */
	const char *who;         /* the front-end, in messages: "shell", "serve", "gdb" */
	const char *kind;        /* the directory's name: avrr-KIND-XXXXXX */
	int commands;            /* whether to open a command pipe */
	session_sigint sigint;
	/* The host's. */
	char dir[200];
	pid_t pid;               /* the engine, leader of its process group */
	int pid_fd;              /* its pidfd; -1 once reaped, or if none */
	int copy_fd;             /* the active checkpoint copy's pidfd, or -1 */
	int copy_pid;
	int reaped;              /* the engine's exit is collected */
	int cmd_fd, reply_fd, life_fd;
	char buf[1024];          /* the engine's lines, read ahead */
	size_t have;
	int died;                /* the engine died, and the host said so */
	char why[160];           /* what it said */
} session;

/* Makes the directory and pipes, forks the engine, which runs
 * fn(ends, arg), and catches the signals that end the session.  Returns
 * 0, or -1 with err set (nothing is left behind). */
int session_start(session *s, session_engine fn, void *arg, avrr_err *err);

/* Sends one command line (a "\n" is added); 0 or -1. */
int session_send(session *s, const char *line);

/* Reads the engine's lines until `until` or "bye": 0.  Other lines go to
 * on_line (may be NULL).  Returns -1 with `error` set on "error MESSAGE"
 * (MESSAGE), "closed" (the engine's stdout went away: "closed") and when
 * the engine is gone without a word ("the engine stopped unexpectedly");
 * -1 with error "" when a signal ended the session; SESSION_DIED. */
int session_await(session *s, const char *until, void (*on_line)(const char *line, void *ud),
		  void *ud, char *error, size_t n);

/* Waits until fd has input: 0; -1 when a signal came (EINTR) or ended the
 * session; SESSION_DIED. */
int session_wait_input(session *s, int fd);

/* Whether the engine died, without waiting: SESSION_DIED (said) or 0. */
int session_check(session *s);

/* Starts argv[0] (searched in PATH) with the session's signals
 * unblocked, and waits for it: its wait status in *status.  Returns 0,
 * -1 (errno: it could not be started), or SESSION_DIED (the program is
 * sent SIGTERM and waited for). */
int session_run(session *s, char *const argv[], int *status);

/* The signal that ended the session (SIGTERM, SIGHUP, SIGINT), or 0. */
int session_stopped_by(void);

/* Whether Ctrl-C came since the last call (SESSION_SIGINT_FORWARD). */
int session_interrupted(void);

/* A worker process, the one other child a front-end starts (the sweep's):
 * fn(arg, fd) runs in it, writing its result down fd, and it exits 0.
 * Returns its pid, the read end in *fd; or -1 (errno). */
pid_t session_worker(void (*fn)(void *arg, int fd), void *arg, int *fd);

/* Ends the session: the lifeline and pipes close, the engine's group is
 * killed and reaped, the directory and all in it removed. */
void session_end(session *s);

#endif
