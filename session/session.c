/*
 * session.c — the engine-session host (see session.h).
 */
#define _GNU_SOURCE  /* strsignal */
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/signals.h"

/* Signal state: handlers take no user pointer, hence these statics. */
static volatile sig_atomic_t engine_group;  /* the engine's and its checkpoints' */
static volatile sig_atomic_t program;       /* session_run's, while it runs */
static volatile sig_atomic_t stopped_by;    /* the signal that ended the session */
static volatile sig_atomic_t interrupted;   /* Ctrl-C, forwarded */

/* SIGTERM, SIGHUP (and SIGINT where it ends the session): the engine and
 * every checkpoint end at once, and the program with them; the front-end
 * then finds the engine gone and cleans up. */
static void on_stop(int sig)
{
	stopped_by = sig;
	if (engine_group > 0)
		kill(-engine_group, SIGKILL);
	if (program > 0)
		kill(program, SIGTERM);
}

/* Ctrl-C goes to the engine, which stops the running command. */
static void on_sigint(int sig)
{
	(void)sig;
	if (engine_group > 0)
		kill(-engine_group, SIGINT);
	interrupted = 1;
}

/* SIGCHLD does nothing but interrupt what the front-end waits in (readline
 * at the prompt), so that it looks at the engine at once. */
static void on_child(int sig)
{
	(void)sig;
}

static int make_dir(char *buf, size_t n, const char *kind)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 128)
		tmp = "/tmp";
	if ((size_t)snprintf(buf, n, "%s/avrr-%s-XXXXXX", tmp, kind) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(buf) ? 0 : -1;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	char path[512];
	for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int session_start(session *s, session_engine fn, void *arg, avrr_err *err)
{
	int cmd[2] = { -1, -1 }, rep[2] = { -1, -1 }, life[2] = { -1, -1 };
	s->pid = -1;
	s->pid_fd = s->cmd_fd = s->reply_fd = s->life_fd = -1;
	s->copy_fd = -1;
	s->have = 0;
	s->died = s->reaped = 0;
	stopped_by = interrupted = 0;
	if (make_dir(s->dir, sizeof s->dir, s->kind)) {
		s->dir[0] = 0;
		return avrr_errf(err, "cannot make a session directory: %s", strerror(errno));
	}
	if ((s->commands && pipe(cmd)) || pipe(rep) || pipe(life)) {
		int e = errno;
		close_pair(cmd);
		close_pair(rep);
		close_pair(life);
		remove_dir(s->dir);
		return avrr_errf(err, "%s", strerror(e));
	}
	fflush(NULL);  /* nothing buffered may be written twice */
	util_hold_signals(1);
	pid_t pid = fork();
	if (pid == 0) {
		/* The engine and its checkpoints form a process group, so
		 * one kill ends them all. */
		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (s->sigint != SESSION_SIGINT_FORWARD)
			signal(SIGINT, SIG_IGN);  /* gdb's Ctrl-C comes as a byte */
		util_hold_signals(0);
		if (cmd[1] >= 0)
			close(cmd[1]);
		close(rep[0]);
		close(life[1]);
		session_ends e = { .dir = s->dir, .cmd_fd = cmd[0], .reply_fd = rep[1],
				   .life_fd = life[0] };
		_exit(fn(&e, arg));
	}
	int e = errno;
	if (pid > 0) {
		setpgid(pid, pid);  /* as the child does: whichever runs first */
		engine_group = pid;
		s->pid = pid;
		s->pid_fd = (int)syscall(SYS_pidfd_open, pid, 0);  /* -1: not watched */
	}
	util_catch(SIGTERM, on_stop, 0);
	util_catch(SIGHUP, on_stop, 0);
	if (s->sigint == SESSION_SIGINT_FORWARD)
		util_catch(SIGINT, on_sigint, 0);
	else if (s->sigint == SESSION_SIGINT_ENDS)
		util_catch(SIGINT, on_stop, 0);
	else
		signal(SIGINT, SIG_IGN);
	util_catch(SIGCHLD, on_child, 0);
	util_hold_signals(0);
	if (cmd[0] >= 0)
		close(cmd[0]);
	close(rep[1]);
	close(life[0]);
	s->cmd_fd = cmd[1];
	s->reply_fd = rep[0];
	s->life_fd = life[1];
	if (pid < 0) {
		session_end(s);
		return avrr_errf(err, "cannot start the engine: %s", strerror(e));
	}
	return 0;
}

/* The engine has ended (its pidfd is readable): reaps it.  An exit of 0
 * is no death (an engine may hand over to a checkpoint's copy and leave);
 * a signal or another status is, unless a signal ended the session. */
static int reap(session *s)
{
	int st;
	pid_t r;
	while ((r = waitpid(s->pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r != s->pid)
		return 0;  /* not yet, or someone else's business */
	close(s->pid_fd);
	s->pid_fd = -1;
	s->reaped = 1;
	if (stopped_by || (WIFEXITED(st) && WEXITSTATUS(st) == 0))
		return 0;
	if (WIFSIGNALED(st))
		snprintf(s->why, sizeof s->why, "avrr %s: the engine died of signal %d (%s)\n",
			 s->who, WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(s->why, sizeof s->why, "avrr %s: the engine exited with status %d\n",
			 s->who, WEXITSTATUS(st));
	/* With a program running (avr-gdb), it is said once the program is
	 * gone, so that it is the last line, after whatever it says. */
	if (!program)
		fputs(s->why, stderr);
	s->died = 1;
	/* Its checkpoints can serve no one now, and may hold what the
	 * front-end's program waits on (avr-gdb's connection): they go. */
	kill(-s->pid, SIGKILL);
	return SESSION_DIED;
}

/* The active copy is gone: a death, unless the session is ending. */
static int copy_gone(session *s)
{
	close(s->copy_fd);
	s->copy_fd = -1;
	if (stopped_by)
		return 0;
	snprintf(s->why, sizeof s->why, "avrr %s: the engine (pid %d) died\n", s->who,
		 s->copy_pid);
	if (!program)
		fputs(s->why, stderr);
	s->died = 1;
	kill(-s->pid, SIGKILL);
	return SESSION_DIED;
}

int session_check(session *s)
{
	if (s->died)
		return SESSION_DIED;
	struct pollfd p = { .fd = s->pid_fd, .events = POLLIN };
	if (s->pid_fd >= 0 && poll(&p, 1, 0) > 0 && p.revents)
		return reap(s);
	return 0;
}

int session_wait_input(session *s, int fd)
{
	for (;;) {
		if (s->died)
			return SESSION_DIED;
		if (stopped_by)
			return -1;
		struct pollfd p[3] = { { .fd = fd, .events = POLLIN },
				       { .fd = s->pid_fd, .events = POLLIN },
				       { .fd = s->copy_fd, .events = POLLIN } };
		if (poll(p, 3, -1) < 0)
			return -1;  /* EINTR: the caller looks at its signals */
		if (p[0].revents)
			return 0;
		if (p[1].revents && reap(s))
			return SESSION_DIED;
		if (p[2].revents && copy_gone(s))
			return SESSION_DIED;
	}
}

int session_send(session *s, const char *line)
{
	return s->cmd_fd >= 0 && dprintf(s->cmd_fd, "%s\n", line) > 0 ? 0 : -1;
}

/* The next whole line read ahead into line; 1, or 0 if there is none.  A
 * line longer than the buffer is cut. */
static int take_line(session *s, char *line, size_t n)
{
	char *nl = memchr(s->buf, '\n', s->have);
	size_t len = nl ? (size_t)(nl - s->buf) : s->have;
	if (!nl && s->have < sizeof s->buf)
		return 0;
	snprintf(line, n, "%.*s", (int)len, s->buf);
	size_t used = nl ? len + 1 : len;
	memmove(s->buf, s->buf + used, s->have - used);
	s->have -= used;
	return 1;
}

int session_await(session *s, const char *until, void (*on_line)(const char *line, void *ud),
		  void *ud, char *error, size_t n)
{
	char line[sizeof s->buf + 1];
	for (;;) {
		if (take_line(s, line, sizeof line)) {
			if (!strcmp(line, until) || !strcmp(line, WIRE_BYE))
				return 0;
			int cp;
			if (sscanf(line, WIRE_ENGINE "%d", &cp) == 1) {
				if (s->copy_fd >= 0)
					close(s->copy_fd);
				s->copy_pid = cp;  /* 0: the engine handed over and left */
				s->copy_fd = cp > 0 ? (int)syscall(SYS_pidfd_open, cp, 0) : -1;
				continue;
			}
			const char *why = wire_rest(line, WIRE_ERROR);
			if (why || !strcmp(line, WIRE_CLOSED)) {
				snprintf(error, n, "%s", why ? why : line);
				return -1;
			}
			if (on_line)
				on_line(line, ud);
			continue;
		}
		int w = session_wait_input(s, s->reply_fd);
		if (w == SESSION_DIED)
			return w;
		if (stopped_by) {
			snprintf(error, n, "%s", "");
			return -1;
		}
		if (w < 0)
			continue;  /* a signal that does not end the session */
		ssize_t k = read(s->reply_fd, s->buf + s->have, sizeof s->buf - s->have);
		if (k < 0 && errno == EINTR)
			continue;
		if (k > 0) {
			s->have += (size_t)k;
			continue;
		}
		/* Every holder of the pipe is gone: the engine's end says how. */
		struct pollfd p = { .fd = s->pid_fd, .events = POLLIN };
		while (s->pid_fd >= 0 && poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		if (s->pid_fd >= 0 && reap(s))
			return SESSION_DIED;
		snprintf(error, n, "%s", stopped_by ? "" : "the engine stopped unexpectedly");
		return -1;
	}
}

int session_run(session *s, char *const argv[], int *status)
{
	/* A pipe closed by a successful exec carries a failed one's errno. */
	int ex[2];
	if (pipe2(ex, O_CLOEXEC))
		return -1;
	fflush(NULL);
	util_hold_signals(1);
	pid_t pid = fork();
	if (pid == 0) {
		close(ex[0]);
		signal(SIGINT, SIG_DFL);  /* the program's to handle */
		util_hold_signals(0);
		execvp(argv[0], argv);
		int e = errno;
		ssize_t w = write(ex[1], &e, sizeof e);
		(void)w;
		_exit(127);
	}
	int e = errno;
	if (pid > 0)
		program = pid;
	util_hold_signals(0);
	close(ex[1]);
	if (pid < 0) {
		close(ex[0]);
		errno = e;
		return -1;
	}
	ssize_t got;
	while ((got = read(ex[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ex[0]);
	if (got == (ssize_t)sizeof e) {
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		program = 0;
		errno = e;
		return -1;
	}
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), rc = 0;
	for (;;) {
		if (pfd >= 0 && !stopped_by && (rc = session_wait_input(s, pfd)) == SESSION_DIED) {
			kill(pid, SIGTERM);
			break;
		}
		pid_t r = waitpid(pid, status, pfd >= 0 && !stopped_by ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			*status = 127 << 8;
			break;
		}
	}
	program = 0;
	if (rc == SESSION_DIED) {
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		fputs(s->why, stderr);
	}
	if (pfd >= 0)
		close(pfd);
	return rc == SESSION_DIED ? SESSION_DIED : 0;
}

pid_t session_worker(void (*fn)(void *arg, int fd), void *arg, int *fd)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(NULL);  /* nothing buffered may be written twice */
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		fn(arg, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	*fd = fds[0];
	return pid;
}

int session_stopped_by(void)
{
	return stopped_by;
}

int session_interrupted(void)
{
	int was = interrupted;
	interrupted = 0;
	return was;
}

void session_end(session *s)
{
	if (s->cmd_fd >= 0)
		close(s->cmd_fd);
	if (s->life_fd >= 0)
		close(s->life_fd);  /* every checkpoint goes */
	if (s->reply_fd >= 0)
		close(s->reply_fd);
	s->cmd_fd = s->life_fd = s->reply_fd = -1;
	/* Whatever is left of the engine's group (an engine that did not say
	 * bye, checkpoints on their way out) goes now, before its directory. */
	if (s->pid > 0) {
		engine_group = 0;
		kill(-s->pid, SIGKILL);
		if (!s->reaped)
			while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
				;
	}
	if (s->pid_fd >= 0)
		close(s->pid_fd);
	s->pid_fd = -1;
	if (s->copy_fd >= 0)
		close(s->copy_fd);
	s->copy_fd = -1;
	s->pid = -1;
	if (s->dir[0])
		remove_dir(s->dir);
	s->dir[0] = 0;
}
