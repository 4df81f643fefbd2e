/*
 * test_session.c — the engine-session host (session/session.h) against the
 * real avrr binary ($AVRR_BIN): an engine process that dies is noticed at
 * once by its front-end, whatever it waits in.
 *
 * The engine is killed with SIGKILL (as the OOM killer or a crash would end
 * it) under `avrr shell` waiting for its next command (checkpoints laid), `avrr serve` waiting
 * for its client, `avrr serve` with a client connected, and `avrr gdb` with
 * avr-gdb waiting for its next command.  Each front-end must say
 * "avrr CMD: the engine died of signal 9 (Killed)" as its last line, exit
 * 1 within seconds, and leave no session directory (its $TMPDIR is a fresh
 * one the test expects empty) and no process (checkpoints included) behind.
 *
 * The engine is the front-end's child that leads a process group of its
 * own (session.h: the engine and its checkpoints form one group).
 */
#include "tests/testlib.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DIED "the engine died of signal 9 (Killed)\n"

typedef struct fixture {
	char dir[128];
	char tmp[160];  /* the sessions' $TMPDIR */
	char rec[192];  /* the recording, a path unique to this run */
} fixture;

static int group_setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	char out[4096];
	if (!f || !test_tmpdir(f->dir, sizeof f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->tmp, sizeof f->tmp, "%s/tmp", f->dir);
	snprintf(f->rec, sizeof f->rec, "%s/session-run.db", f->dir);
	if (mkdir(f->tmp, 0700) ||
	    test_run(out, sizeof out, "%s record traces/funcsheap.elf --stimuli"
		     " traces/funcsheap.stim --instructions 2000000 --quiet -o %s", test_avrr(),
		     f->rec)) {
		test_rmtree(f->dir);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int group_teardown(void **state)
{
	fixture *f = *state;
	test_rmtree(f->dir);
	free(f);
	return 0;
}

/* A front-end under test: its pid and the test's ends of its stdin,
 * stdout and stderr. */
typedef struct proc {
	pid_t pid;
	int in, out, err;
} proc;

/* Starts `avrr ARGV...` with $TMPDIR at f->tmp and pipes for its stdin,
 * stdout and stderr. */
static proc spawn(const fixture *f, const char *const *argv)
{
	int in[2], out[2], err[2];
	assert_int_equal(pipe(in) | pipe(out) | pipe(err), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		for (int fd = 3; fd < 256; fd++)
			close(fd);
		setenv("TMPDIR", f->tmp, 1);
		char *args[16];
		int n = 0;
		args[n++] = (char *)test_avrr();
		while (*argv && n < 15)
			args[n++] = (char *)*argv++;
		args[n] = NULL;
		execv(args[0], args);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	return (proc){ .pid = pid, .in = in[1], .out = out[0], .err = err[0] };
}

/* Reads fd until `want` has appeared in what was read (into buf, n bytes)
 * or `seconds` pass; whether it appeared. */
static int read_until(int fd, char *buf, size_t n, size_t *len, const char *want, int seconds)
{
	time_t end = time(NULL) + seconds;
	while (!strstr(buf, want) && time(NULL) < end && *len + 1 < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 200) <= 0)
			continue;
		ssize_t k = read(fd, buf + *len, n - 1 - *len);
		if (k <= 0)
			break;
		*len += (size_t)k;
		buf[*len] = 0;
	}
	return strstr(buf, want) != NULL;
}

/* A /proc/PID/stat's parent and process group. */
static int stat_of(const char *pid, int *ppid, int *pgrp)
{
	char path[300], text[1024];
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t k = read(fd, text, sizeof text - 1);
	close(fd);
	if (k <= 0)
		return -1;
	text[k] = 0;
	const char *p = strrchr(text, ')');  /* the name may hold spaces */
	char state;
	return p && sscanf(p + 1, " %c %d %d", &state, ppid, pgrp) == 3 ? 0 : -1;
}

/* The engine: the child of `front` that leads its own process group. */
static pid_t engine_of(pid_t front)
{
	DIR *d = opendir("/proc");
	assert_non_null(d);
	pid_t found = -1;
	for (struct dirent *e; found < 0 && (e = readdir(d)) != NULL;) {
		int ppid, pgrp;
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && !stat_of(e->d_name, &ppid, &pgrp) &&
		    ppid == front && pgrp == atoi(e->d_name))
			found = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

/* How many processes name the recording or the sessions' $TMPDIR in
 * their arguments: the front-end, the engine and its checkpoints, and
 * avr-gdb (which loads DIR/firmware.elf). */
static int session_processes(const fixture *f)
{
	return test_processes_with(f->rec, f->tmp, 0);
}

/* The entries of the sessions' $TMPDIR. */
static int tmp_entries(const fixture *f)
{
	DIR *d = opendir(f->tmp);
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The active engine after going backward: the process of the engine's
 * group that is not a checkpoint (no FIFO in the session's directory
 * ends in "-PID"); -1 if there is not exactly one. */
static pid_t active_copy(const fixture *f, pid_t group)
{
	DIR *t = opendir(f->tmp);
	assert_non_null(t);
	char sess[600] = "";
	for (struct dirent *e; (e = readdir(t)) != NULL;)
		if (e->d_name[0] != '.')
			snprintf(sess, sizeof sess, "%s/%s", f->tmp, e->d_name);
	closedir(t);
	pid_t found = -1;
	int many = 0;
	DIR *d = opendir("/proc");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		int ppid, pgrp;
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || stat_of(e->d_name, &ppid, &pgrp) ||
		    pgrp != group)
			continue;
		char tail[300];
		snprintf(tail, sizeof tail, "-%s", e->d_name);
		int fifo = 0;
		DIR *s = opendir(sess);
		assert_non_null(s);
		for (struct dirent *c; (c = readdir(s)) != NULL;) {
			size_t l = strlen(c->d_name), tl = strlen(tail);
			fifo |= l > tl && !strcmp(c->d_name + l - tl, tail);
		}
		closedir(s);
		if (!fifo) {
			many += found > 0;
			found = atoi(e->d_name);
		}
	}
	closedir(d);
	return many ? -1 : found;
}

/* Kills p's engine with SIGKILL and checks the front-end's end: `said`
 * (its stderr so far, *len bytes) ends with "avrr CMD: " DIED, exit 1
 * within 5 s, the session directory and every process of it gone. */
static void kill_and_check(const fixture *f, proc *p, const char *cmd, pid_t engine,
			   const char *died, char *said, size_t n, size_t *len)
{
	assert_true(engine > 0);
	assert_int_equal(tmp_entries(f), 1);  /* the session's directory */
	assert_int_equal(kill(engine, SIGKILL), 0);
	char want[128];
	snprintf(want, sizeof want, "avrr %s: %s", cmd, died);
	int saw = read_until(p->err, said, n, len, want, 5);
	int status = -1;
	for (int i = 0; i < 500; i++) {  /* 5 s */
		if (waitpid(p->pid, &status, WNOHANG) == p->pid)
			break;
		status = -1;
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		nanosleep(&tick, NULL);
	}
	if (status == -1) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		fail_msg("avrr %s did not end within 5 s of its engine's death; it said: %s", cmd,
			 said);
	}
	if (!saw)
		fail_msg("avrr %s said: %s", cmd, said);
	/* the last line it said */
	size_t wl = strlen(want);
	assert_true(*len >= wl);
	assert_string_equal(said + *len - wl, want);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_int_equal(tmp_entries(f), 0);
	for (int i = 0; i < 100 && session_processes(f); i++) {
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		nanosleep(&tick, NULL);  /* SIGKILLed checkpoints may take a moment */
	}
	assert_int_equal(session_processes(f), 0);
	close(p->in);
	close(p->out);
	close(p->err);
}

static void kill_engine_and_check(const fixture *f, proc *p, const char *cmd, char *said,
				  size_t n, size_t *len)
{
	kill_and_check(f, p, cmd, engine_of(p->pid), DIED, said, n, len);
}

/* `avrr shell` on the fixture's recording, sent cmds, once its answer to
 * the last (which prints 12345) has come. */
static proc shell_after(const fixture *f, const char *cmds)
{
	const char *argv[] = { "shell", f->rec, NULL };
	proc p = spawn(f, argv);
	char out[8192] = "";
	size_t nout = 0;
	assert_int_equal(write(p.in, cmds, strlen(cmds)), (ssize_t)strlen(cmds));
	if (!read_until(p.out, out, sizeof out, &nout, "12345", 60))
		fail_msg("the shell answered: %s", out);
	return p;
}

/* The shell between commands: checkpoints laid, waiting on its stdin. */
static void test_shell_notices_its_engine_die(void **state)
{
	fixture *f = *state;
	/* a command that lays checkpoints, then one whose answer we know has come */
	proc p = shell_after(f, "stepi 1500000\nprint 12345\n");
	char err[4096] = "";
	size_t nerr = 0;
	kill_engine_and_check(f, &p, "shell", err, sizeof err, &nerr);
	assert_string_equal(err, "avrr shell: " DIED);  /* and nothing else */
}

/* The shell after a step backward: the engine is a checkpoint's copy,
 * not the process the shell started, and its death is noticed alike. */
static void test_shell_notices_a_copy_die(void **state)
{
	fixture *f = *state;
	proc p = shell_after(f, "stepi 1500000\nreverse-stepi\nprint 12345\n");
	char err[4096] = "";
	size_t nerr = 0;
	pid_t group = engine_of(p.pid);
	assert_true(group > 0);
	pid_t copy = active_copy(f, group);
	assert_true(copy > 0);
	assert_int_not_equal(copy, group);
	char died[64];
	snprintf(died, sizeof died, "the engine (pid %d) died\n", (int)copy);
	kill_and_check(f, &p, "shell", copy, died, err, sizeof err, &nerr);
	char want[128];
	snprintf(want, sizeof want, "avrr shell: %s", died);
	assert_string_equal(err, want);  /* and nothing else */
}

/* The port `avrr serve` announced on its stderr, once it serves. */
static unsigned served_port(proc *p, char *err, size_t n, size_t *len)
{
	if (!read_until(p->err, err, n, len, "target remote", 60))
		fail_msg("avrr serve said: %s", err);
	const char *at = strstr(err, "on 127.0.0.1:");
	assert_non_null(at);
	return (unsigned)atoi(at + strlen("on 127.0.0.1:"));
}

static void test_serve_notices_its_engine_die_before_a_client(void **state)
{
	fixture *f = *state;
	const char *argv[] = { "serve", f->rec, "--port", "0", NULL };
	proc p = spawn(f, argv);
	char err[4096] = "";
	size_t nerr = 0;
	served_port(&p, err, sizeof err, &nerr);
	kill_engine_and_check(f, &p, "serve", err, sizeof err, &nerr);
	assert_int_equal(test_count_lines(err), 2);  /* the serve line, and the death */
}

static void test_serve_notices_its_engine_die_with_a_client(void **state)
{
	fixture *f = *state;
	const char *argv[] = { "serve", f->rec, "--port", "0", NULL };
	proc p = spawn(f, argv);
	char err[4096] = "";
	size_t nerr = 0;
	unsigned port = served_port(&p, err, sizeof err, &nerr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	/* '?' answered: the engine serves this client */
	assert_int_equal(send(fd, "$?#3f", 5, MSG_NOSIGNAL), 5);
	char reply[64] = "";
	size_t got = 0;
	if (!read_until(fd, reply, sizeof reply, &got, "$S05#b8", 30))
		fail_msg("'?' answered '%s'", reply);
	kill_engine_and_check(f, &p, "serve", err, sizeof err, &nerr);
	close(fd);
}

/* avrr gdb: avr-gdb reads its commands from a pipe, and waits there. */
static void test_gdb_notices_its_engine_die(void **state)
{
	fixture *f = *state;
	const char *argv[] = { "gdb", f->rec, "--", "-nx", NULL };
	proc p = spawn(f, argv);
	char out[16384] = "", err[4096] = "";
	size_t nout = 0, nerr = 0;
	const char *cmds = "print 12345\n";
	assert_int_equal(write(p.in, cmds, strlen(cmds)), (ssize_t)strlen(cmds));
	if (!read_until(p.out, out, sizeof out, &nout, "= 12345", 60))
		fail_msg("avr-gdb answered: %s", out);
	kill_engine_and_check(f, &p, "gdb", err, sizeof err, &nerr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_notices_its_engine_die),
		cmocka_unit_test(test_shell_notices_a_copy_die),
		cmocka_unit_test(test_serve_notices_its_engine_die_before_a_client),
		cmocka_unit_test(test_serve_notices_its_engine_die_with_a_client),
		cmocka_unit_test(test_gdb_notices_its_engine_die),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
