/*
 * test_signals.c — signals, pipes and full disks against the real avrr
 * binary ($AVRR_BIN): every command ends promptly, with a non-zero status,
 * and leaves no process and no session directory behind.
 *
 *   - `avrr shell RUN.db -x CMDS | head -1`: the reader leaves after one
 *     line; the shell (whose checkpoints hold the reply pipe) exits 141 as
 *     if by SIGPIPE, within seconds, where it used to hang;
 *   - SIGTERM and SIGHUP to a shell waiting for commands with checkpoints
 *     laid, SIGINT to one running a script, SIGTERM to one in the middle of
 *     a long command, SIGTERM and SIGINT to `avrr serve`: 128+signal, every
 *     process of the session gone, its directory gone;
 *   - standard output on /dev/full: the shell, `info` and `--help` say so
 *     and exit non-zero.
 * Sessions make their directories under $TMPDIR, which each test points at
 * a fresh directory it then expects empty; a session's processes are found
 * by the recording's unique path on their command line.
 */
#include "tests/testlib.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct fixture {
	test_scratch s;
	char tmp[160];    /* the sessions' $TMPDIR */
	char rec[192];    /* the recording, a path unique to this run */
	char script[192];
} fixture;

static int group_setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!f)
		return -1;
	snprintf(f->tmp, sizeof f->tmp, "%s/tmp", f->s.dir);
	snprintf(f->script, sizeof f->script, "%s/cmds", f->s.dir);
	FILE *fp = fopen(f->script, "w");
	if (fp) {
		/* Enough output to outlast a pipe's buffer, and checkpoints laid. */
		fputs("stepi 3000000\n", fp);
		for (int i = 0; i < 400; i++)
			fputs("x/64xb 0x60\n", fp);
		fclose(fp);
	}
	if (!fp || mkdir(f->tmp, 0700) ||
	    test_try_record(&f->s, f->rec, sizeof f->rec, "signals-run.db", "traces/funcsheap.elf "
			    "--stimuli traces/funcsheap.stim --instructions 4000000")) {
		test_fixture_free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* Starts `avrr ARGV...` with $TMPDIR at f->tmp, stdin from in_fd (or
 * /dev/null) and stdout to out_fd (or /dev/null). */
static pid_t spawn(const fixture *f, int in_fd, int out_fd, const char *const *argv)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(in_fd >= 0 ? in_fd : null, 0);
		dup2(out_fd >= 0 ? out_fd : null, 1);
		dup2(null, 2);
		for (int fd = 3; fd < 256; fd++)
			close(fd);  /* the test's ends of the pipes above all */
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
	return pid;
}

/* The exit status (128+signal if killed) within `seconds`, or -1 after
 * killing a process that did not end. */
static int wait_for(pid_t pid, double seconds)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	for (int i = 0; i < seconds * 100; i++) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* How many processes have the recording's path among their arguments. */
static int session_processes(fixture *f)
{
	return test_processes_with(f->rec, NULL, 1);
}

/* Nothing of a session is left: no process, no directory under $TMPDIR
 * (checkpoints killed a moment ago may take a tick to be gone). */
static void assert_nothing_left(fixture *f)
{
	int procs = 0;
	for (int i = 0; i < 100 && (procs = session_processes(f)) != 0; i++)
		usleep(20 * 1000);
	assert_int_equal(procs, 0);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "ls -A '%s'", f->tmp);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s", cmd), 0);
	assert_string_equal(f->s.out, "");
}

/* How many processes the session has once it has at least `want`
 * (waiting up to 10 s for them). */
static int await_processes(fixture *f, int want)
{
	int procs = 0;
	for (int i = 0; i < 500 && (procs = session_processes(f)) < want; i++)
		usleep(20 * 1000);
	return procs;
}

/* Sends sig to the session's front-end: it ends with 128+sig and leaves
 * nothing behind. */
static void end_by_signal(fixture *f, pid_t pid, int sig)
{
	kill(pid, sig);
	assert_int_equal(wait_for(pid, 10), 128 + sig);
	assert_nothing_left(f);
}

/* `| head -1`: the shell ends as if by SIGPIPE, promptly. */
static void test_shell_into_closed_pipe(void **state)
{
	fixture *f = *state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	const char *argv[] = { "shell", f->rec, "-x", f->script, NULL };
	pid_t pid = spawn(f, -1, p[1], argv);
	close(p[1]);
	char line[256];
	FILE *in = fdopen(p[0], "r");
	assert_non_null(fgets(line, sizeof line, in));
	assert_non_null(strstr(line, "icount=3000000"));
	fclose(in);  /* the reader leaves */
	assert_int_equal(wait_for(pid, 20), 128 + SIGPIPE);
	assert_nothing_left(f);
}

/* A shell waiting for commands, checkpoints laid, gets `sig`. */
static void stop_waiting_shell(fixture *f, int sig)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	const char *argv[] = { "shell", f->rec, NULL };
	pid_t pid = spawn(f, p[0], -1, argv);
	close(p[0]);
	assert_int_equal(write(p[1], "stepi 3000000\n", 14), 14);
	/* 3,000,000 instructions lay five checkpoints, each a process. */
	assert_true(await_processes(f, 7) >= 7);
	end_by_signal(f, pid, sig);
	close(p[1]);
}

static void test_shell_sigterm(void **state)
{
	stop_waiting_shell(*state, SIGTERM);
}

static void test_shell_sighup(void **state)
{
	stop_waiting_shell(*state, SIGHUP);
}

/* Signals in the middle of a script's long command. */
static void stop_running_script(fixture *f, int sig)
{
	const char *argv[] = { "shell", f->rec, "-x", f->script, NULL };
	pid_t pid = spawn(f, -1, -1, argv);
	assert_true(await_processes(f, 3) >= 3);
	end_by_signal(f, pid, sig);
}

static void test_script_sigint(void **state)
{
	stop_running_script(*state, SIGINT);
}

static void test_script_sigterm(void **state)
{
	stop_running_script(*state, SIGTERM);
}

static void stop_server(fixture *f, int sig)
{
	const char *argv[] = { "serve", f->rec, "--port", "0", NULL };
	pid_t pid = spawn(f, -1, -1, argv);
	assert_int_equal(await_processes(f, 2), 2);  /* the server and its engine */
	end_by_signal(f, pid, sig);
}

static void test_serve_sigterm(void **state)
{
	stop_server(*state, SIGTERM);
}

static void test_serve_sigint(void **state)
{
	stop_server(*state, SIGINT);
}

static void test_full_disk(void **state)
{
	fixture *f = *state;
	int rc = test_run(f->s.out, sizeof f->s.out, "TMPDIR=%s %s shell %s -x %s > /dev/full",
			  f->tmp, test_avrr(), f->rec, f->script);
	assert_int_equal(rc, 1);
	assert_string_equal(f->s.out, "avrr shell: standard output: No space left on device\n");
	assert_nothing_left(f);
	rc = test_run(f->s.out, sizeof f->s.out, "%s info %s > /dev/full", test_avrr(), f->rec);
	assert_int_equal(rc, 2);
	assert_string_equal(f->s.out, "avrr info: writing the output: No space left on device\n");
	rc = test_run(f->s.out, sizeof f->s.out, "%s --help > /dev/full", test_avrr());
	assert_int_equal(rc, 2);
	assert_string_equal(f->s.out, "avrr: writing the output: No space left on device\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_into_closed_pipe),
		cmocka_unit_test(test_shell_sigterm),
		cmocka_unit_test(test_shell_sighup),
		cmocka_unit_test(test_script_sigint),
		cmocka_unit_test(test_script_sigterm),
		cmocka_unit_test(test_serve_sigterm),
		cmocka_unit_test(test_serve_sigint),
		cmocka_unit_test(test_full_disk),
	};
	return cmocka_run_group_tests(tests, group_setup, test_fixture_teardown);
}
