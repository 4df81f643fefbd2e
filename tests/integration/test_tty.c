/*
 * test_tty.c — the interactive `avrr shell` in a real terminal.
 *
 * The scripted tests (test_shell.c) feed the shell a pipe, so readline never
 * runs.  Here a private tmux server gives the shell a pseudo-terminal and
 * the test types at it: completion of commands, `info` subcommands and
 * symbols, gdb's abbreviations and Enter-repeats, the history file, and
 * Ctrl-C, which must stop a long continue or reverse-continue at a position
 * that is consistent (where, the registers and later travel all agree) and
 * give back a normal prompt.  Every step waits for the text it expects on
 * the screen before the next keys go out, so only the Ctrl-C timing is left
 * to the clock, and that with wide margins.
 */
#include "tests/testlib.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

/* With 16 bits of the software instruction counter: the flags and
 * registers alone meet a false loop positive in this run at icount 14.2M
 * under --window 2 (42.7M under simavr 1.6's timers), which would stop
 * `continue` before a Ctrl-C comes. */
#define FLAGS "flags:sel=SPL+SPH+SREG+TIFR+GIFR+UCSRA+ADCSRA+r24+r25+r30+sic:16,width=32"
/* Long enough that `continue` to the end takes several seconds even in the
 * plain build, so Ctrl-Cs totalling a second and a half land mid-run;
 * recording it takes about a second.  The shell runs with --window 2: a
 * window of one lets most boundaries go on the return address bits alone,
 * which replays this recording in well under a second, while two compute
 * the fingerprint at every boundary (about 10M instructions/s). */
#define LENGTH 40000000ULL
#define TIMEOUT_MS 10000
#define PROMPT "(avrr)"  /* capture-pane drops the prompt's trailing space */

/* The whole program's state: one recording and one tmux server. */
typedef struct group {
	char dir[128];
	char db[256];
	char server[64];
	char cwd[1024];
	int sessions;
} group;

static group G;

/* One test's terminal: a tmux session running the shell. */
typedef struct tty {
	char name[32];
	char home[256];
	char *screen;       /* the last capture, history included */
	size_t cap, mark;   /* what the next wait looks at starts at mark */
	int dead;           /* the shell had exited at the last capture */
	char out[65536];
} tty;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Runs one tmux command line against the private server. */
static int tmux(char *out, size_t n, const char *fmt, ...)
{
	char args[2048], sink[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	return test_run(out ? out : sink, out ? n : sizeof sink, "tmux -L %s -f /dev/null %s",
			G.server, args);
}

static int have_tmux(void)
{
	char out[256];
	return test_run(out, sizeof out, "command -v tmux") == 0;
}

static int group_setup(void **state)
{
	(void)state;
	if (!test_tmpdir(G.dir, sizeof G.dir) || !getcwd(G.cwd, sizeof G.cwd))
		return -1;
	snprintf(G.server, sizeof G.server, "avrr-test-%d", (int)getpid());
	snprintf(G.db, sizeof G.db, "%s/fh.db", G.dir);
	static char out[16384];
	if (test_run(out, sizeof out, "%s record traces/funcsheap.elf --stimuli traces/funcsheap.stim "
		     "--instructions %llu --fp '%s' -o '%s'", test_avrr(), LENGTH, FLAGS, G.db)) {
		fprintf(stderr, "record failed:\n%s", out);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	/* A killed server leaves its socket behind. */
	char sock[512] = "";
	if (!tmux(sock, sizeof sock, "display-message -p '#{socket_path}'"))
		sock[strcspn(sock, "\n")] = 0;
	else
		sock[0] = 0;
	tmux(NULL, 0, "kill-server");
	if (sock[0])
		unlink(sock);
	char out[64];
	test_run(out, sizeof out, "rm -rf '%s'", G.dir);
	return 0;
}

/* Reads the pane, history included, as text up to the cursor's line: each
 * line without its trailing blanks.  So "(avrr) where\n" shows up once
 * readline has taken the line and moved on, and a prompt being waited for
 * is the last line.  The cursor and the lines come from one tmux call, so
 * that no output falls in between. */
static const char *capture(tty *t)
{
	char cmd[320];
	snprintf(cmd, sizeof cmd, "tmux -L %s -f /dev/null display-message -p -t '%s' "
		 "'#{history_size} #{cursor_y} #{pane_dead}' \\; capture-pane -p -S - -t '%s' "
		 "2>/dev/null",
		 G.server, t->name, t->name);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	if (!t->screen) {
		t->cap = 65536;
		t->screen = malloc(t->cap);
		assert_non_null(t->screen);
	}
	long hist = 0, y = 0, row = 0;
	if (fscanf(p, "%ld %ld %d", &hist, &y, &t->dead) != 3)
		hist = y = -1;  /* no pane (yet): nothing */
	int c = getc(p);  /* the newline after them */
	size_t len = 0, line = 0;  /* line: where the current line starts */
	while (row <= hist + y && (c = getc(p)) != EOF) {
		if (len + 2 > t->cap) {
			t->cap *= 2;
			t->screen = realloc(t->screen, t->cap);
			assert_non_null(t->screen);
		}
		if (c == '\n') {
			while (len > line && t->screen[len - 1] == ' ')
				len--;
			if (row++ == hist + y)
				break;
			t->screen[len++] = '\n';
			line = len;
		} else {
			t->screen[len++] = (char)c;
		}
	}
	while (len > line && t->screen[len - 1] == ' ')
		len--;
	while (getc(p) != EOF)
		;
	pclose(p);
	t->screen[len] = 0;
	if (t->mark > len)  /* never: the transcript only grows */
		t->mark = len;
	return t->screen;
}

static const char *exited(const tty *t)
{
	return t->dead ? ": the shell exited" : "";
}

static void dump(tty *t, const char *why)
{
	capture(t);
	fprintf(stderr, "--- %s; the screen (from the mark on) ---\n%s\n---\n", why,
		t->screen + t->mark);
}

/* Sends text literally (-l: "delete" would be the Delete key otherwise). */
static void type(tty *t, const char *text)
{
	assert_null(strchr(text, '\''));
	assert_int_equal(tmux(NULL, 0, "send-keys -t '%s' -l -- '%s'", t->name, text), 0);
}

static void key(tty *t, const char *name)
{
	assert_int_equal(tmux(NULL, 0, "send-keys -t '%s' %s", t->name, name), 0);
}

/* Waits until `text` shows up at or after the mark; the mark moves past it. */
static void wait_for(tty *t, const char *text)
{
	long end = now_ms() + TIMEOUT_MS;
	for (;;) {
		const char *p = strstr(capture(t) + t->mark, text);
		if (p) {
			t->mark = (size_t)(p - t->screen) + strlen(text);
			return;
		}
		if (now_ms() > end || t->dead) {
			dump(t, text);
			fail_msg("\"%s\" did not show up%s", text, exited(t));
		}
		sleep_ms(50);
	}
}

/* Waits until the line being edited (from the mark, which is at its start)
 * reads exactly `line`; the mark stays. */
static void wait_line_ms(tty *t, const char *line, long ms)
{
	long end = now_ms() + ms;
	while (strcmp(capture(t) + t->mark, line)) {
		if (now_ms() > end || t->dead) {
			dump(t, line);
			fail_msg("the line did not read \"%s\"%s", line, exited(t));
		}
		sleep_ms(50);
	}
}

static void wait_line(tty *t, const char *line)
{
	wait_line_ms(t, line, TIMEOUT_MS);
}

/* Waits for a fresh prompt on a line of its own after the mark; the text in
 * between goes to t->out and the mark to the prompt's line. */
static const char *wait_prompt(tty *t)
{
	long end = now_ms() + TIMEOUT_MS;
	for (;;) {
		const char *s = capture(t);
		size_t len = strlen(s), k = strlen(PROMPT);
		if (len >= t->mark + k && !strcmp(s + len - k, PROMPT) &&
		    (len - k == t->mark ? t->mark == 0 || s[t->mark - 1] == '\n'
					: s[len - k - 1] == '\n')) {
			size_t n = len - k - t->mark;
			assert_true(n < sizeof t->out);
			memcpy(t->out, s + t->mark, n);
			t->out[n] = 0;
			t->mark = len - k;
			return t->out;
		}
		if (now_ms() > end || t->dead) {
			dump(t, "a prompt");
			fail_msg("no prompt came back%s", exited(t));
		}
		sleep_ms(50);
	}
}

/* Enter on the current line, which reads `echo` by then: the command's
 * output (up to the next prompt). */
static const char *enter(tty *t, const char *echo)
{
	wait_line(t, echo);
	key(t, "Enter");
	char line[256];
	snprintf(line, sizeof line, "%s\n", echo);
	wait_for(t, line);
	return wait_prompt(t);
}

/* Types a whole command and returns its output. */
static const char *cmd(tty *t, const char *text)
{
	char echo[256];
	snprintf(echo, sizeof echo, PROMPT " %s", text);
	type(t, text);
	return enter(t, echo);
}

/* 1 when the shell has exited (how goes to `how`: "status N" or "signal
 * N"), 0 while it runs (or tmux has yet to collect its status), -1 when
 * tmux cannot tell. */
static int pane_dead(tty *t, char *how, size_t n)
{
	char out[128] = "";
	if (tmux(out, sizeof out, "display-message -p -t '%s' "
		 "'#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}'", t->name)) {
		snprintf(how, n, "tmux: %s", out);
		return -1;
	}
	/* "dead:status:signal", status or signal empty */
	int dead = atoi(out);
	const char *status = strchr(out, ':'), *sig = status ? strchr(status + 1, ':') : NULL;
	if (!sig) {
		snprintf(how, n, "tmux said \"%s\"", out);
		return -1;
	}
	if (status[1] != ':')
		snprintf(how, n, "status %d", atoi(status + 1));
	else if (sig[1] && sig[1] != '\n')
		snprintf(how, n, "signal %d", atoi(sig + 1));
	else
		return snprintf(how, n, "collecting"), 0;  /* terminal closed, exit not reaped */
	return dead;
}

/* Starts the shell on the recording in a new session, HOME being its own
 * directory (the history file goes there), and waits for the first prompt.
 * remain-on-exit keeps the pane after the shell exits, for its status. */
static void start(tty *t)
{
	snprintf(t->name, sizeof t->name, "t%d", ++G.sessions);
	t->mark = 0;
	char out[1024];
	int rc = tmux(out, sizeof out,
		      "start-server \\; set -s exit-empty off \\; set -g remain-on-exit on \\; "
		      "new-session -d -x 120 -y 40 -s '%s' -c '%s' "
		      "\"exec env HOME='%s' '%s' shell '%s' --fp flags --match sequence --window 2\"",
		      t->name, G.cwd, t->home, test_avrr(), G.db);
	if (rc) {
		fprintf(stderr, "tmux: %s", out);
		fail_msg("tmux new-session exited with %d", rc);
	}
	/* Nothing before the first prompt. */
	assert_string_equal(wait_prompt(t), "");
}

/* Waits for the shell to exit: 1 (how it did in `how`), or 0 at the
 * timeout.  tmux learns of the exit from SIGCHLD, and Debian's tmux can miss
 * it (libutempter has its own handler in while the terminal closes:
 * tmux/tmux#311); then the pane is dead with no status, and a SIGCHLD to our
 * own server has it collect the child. */
static int wait_exit(tty *t, long ms, char *how, size_t n)
{
	long end = now_ms() + ms;
	int dead;
	while ((dead = pane_dead(t, how, n)) == 0) {
		if (now_ms() > end)
			return 0;
		if (!strcmp(how, "collecting")) {
			char pid[32] = "";
			if (!tmux(pid, sizeof pid, "display-message -p '#{pid}'") && atoi(pid) > 0)
				kill(atoi(pid), SIGCHLD);
		}
		sleep_ms(50);
	}
	return 1;
}

/* Quits the shell and checks that it exits with status 0. */
static void quit(tty *t)
{
	char how[128] = "";
	type(t, "quit");
	wait_line(t, PROMPT " quit");
	key(t, "Enter");
	if (!wait_exit(t, TIMEOUT_MS, how, sizeof how)) {
		dump(t, "quit");
		fail_msg("the shell did not exit in %d ms", TIMEOUT_MS);
	}
	if (strcmp(how, "status 0")) {
		dump(t, "quit");
		fail_msg("the shell's exit: %s", how);
	}
}

static int tty_setup(void **state)
{
	tty *t = calloc(1, sizeof *t);
	if (!t)
		return -1;
	snprintf(t->home, sizeof t->home, "%s/home-XXXXXX", G.dir);
	if (!mkdtemp(t->home))
		return -1;
	*state = t;
	return 0;
}

/* Leaves the shell the ordinary way if it is still there (so it removes its
 * session directory), then drops the session. */
static int tty_teardown(void **state)
{
	tty *t = *state;
	char how[128];
	if (t->name[0] && pane_dead(t, how, sizeof how) == 0) {
		tmux(NULL, 0, "send-keys -t '%s' C-c", t->name);
		sleep_ms(200);
		tmux(NULL, 0, "send-keys -t '%s' -l quit \\; send-keys -t '%s' Enter", t->name,
		     t->name);
		wait_exit(t, TIMEOUT_MS, how, sizeof how);
	}
	if (t->name[0])
		tmux(NULL, 0, "kill-session -t '%s'", t->name);
	free(t->screen);
	free(t);
	return 0;
}

#define SKIP_WITHOUT_TMUX()                                   \
	do {                                                  \
		if (!have_tmux()) {                           \
			fprintf(stderr, "tmux is not installed\n"); \
			skip();                               \
		}                                             \
	} while (0)

/* ---- readline ------------------------------------------------------------- */

static void test_command_completion(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	start(t);
	type(t, "whe");
	key(t, "Tab");
	wait_line(t, PROMPT " where");
	assert_string_equal(enter(t, PROMPT " where"), "icount=0 pc=0x0000 __vectors\n");
	/* An ambiguous word completes as far as the candidates agree; from
	 * there, readline's second Tab in a row lists them. */
	type(t, "reverse-c");
	key(t, "Tab");
	wait_line(t, PROMPT " reverse-continue");
	key(t, "C-u");
	wait_line(t, PROMPT);
	type(t, "reve");
	key(t, "Tab");
	wait_line(t, PROMPT " reverse-");
	key(t, "Tab");
	key(t, "Tab");
	wait_for(t, "reverse-continue  reverse-finish    reverse-next      reverse-step      "
		    "reverse-stepi\n");
	wait_line(t, PROMPT " reverse-");
	key(t, "C-u");
	wait_line(t, PROMPT);
	quit(t);
}

static void test_symbol_and_info_completion(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	start(t);
	type(t, "break mai");
	key(t, "Tab");
	wait_line(t, PROMPT " break main");
	assert_string_equal(enter(t, PROMPT " break main"),
			    "Breakpoint 1 at 0x03e0: main at funcsheap.c:160\n");
	type(t, "info reg");
	key(t, "Tab");
	wait_line(t, PROMPT " info registers");
	const char *out = enter(t, PROMPT " info registers");
	assert_non_null(strstr(out, "r0             0x00     0\n"));
	assert_non_null(strstr(out, "PC             0x000000 __vectors\n"));
	/* The short alias of info takes subcommands too. */
	type(t, "i b");
	key(t, "Tab");
	wait_line(t, PROMPT " i breakpoints");
	assert_string_equal(enter(t, PROMPT " i breakpoints"),
			    "Num  Type        Address  What\n"
			    "1    breakpoint  0x03e0   main\n");
	/* Data symbols complete as well. */
	type(t, "print g_le");
	key(t, "Tab");
	wait_line(t, PROMPT " print g_led");
	assert_string_equal(enter(t, PROMPT " print g_led"), "$1 = 0 '\\000'\n");
	quit(t);
}

static void test_abbreviations_and_repeat(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	start(t);
	assert_string_equal(cmd(t, "si 3"), "icount=3 pc=0x0058 __trampolines_start+0x4\n");
	assert_string_equal(cmd(t, "rsi"), "icount=2 pc=0x0056 __trampolines_start+0x2\n");
	/* Enter on an empty line repeats the last command, backward too. */
	assert_string_equal(enter(t, PROMPT), "icount=1 pc=0x0054 __trampolines_start\n");
	assert_string_equal(cmd(t, "si"), "icount=2 pc=0x0056 __trampolines_start+0x2\n");
	assert_string_equal(enter(t, PROMPT), "icount=3 pc=0x0058 __trampolines_start+0x4\n");
	assert_string_equal(enter(t, PROMPT), "icount=4 pc=0x005a __trampolines_start+0x6\n");
	/* Ctrl-C at the prompt abandons the line, as in gdb; it is not run. */
	type(t, "frobnicate");
	wait_line(t, PROMPT " frobnicate");
	key(t, "C-c");
	const char *out = wait_prompt(t);
	assert_null(strstr(out, "Undefined"));
	assert_string_equal(cmd(t, "where"), "icount=4 pc=0x005a __trampolines_start+0x6\n");
	quit(t);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_history(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	char path[300];
	snprintf(path, sizeof path, "%s/.avrr_history", t->home);
	start(t);
	cmd(t, "where");
	assert_string_equal(cmd(t, "si 3"), "icount=3 pc=0x0058 __trampolines_start+0x4\n");
	enter(t, PROMPT);  /* a repeat: not a history line of its own */
	quit(t);
	const char *h = slurp(path);
	assert_non_null(h);
	/* Whether `quit` itself is kept is a matter of taste. */
	if (strcmp(h, "where\nsi 3\nquit\n"))
		assert_string_equal(h, "where\nsi 3\n");

	/* A new session reads it back: Ctrl-R finds "si 3". */
	tmux(NULL, 0, "kill-session -t '%s'", t->name);
	start(t);
	key(t, "C-r");
	type(t, "si");
	wait_line(t, "(reverse-i-search)`si': si 3");
	key(t, "Enter");
	wait_for(t, PROMPT " si 3\n");
	assert_string_equal(wait_prompt(t), "icount=3 pc=0x0058 __trampolines_start+0x4\n");
	quit(t);
}

/* ---- Ctrl-C --------------------------------------------------------------- */

/* Parses "icount=N pc=0xP" at the start of a line of out, after `after`. */
static void position(const char *out, const char *after, unsigned long long *icount, unsigned *pc)
{
	const char *p = strstr(out, after);
	if (!p)
		fail_msg("no \"%s\" in:\n%s", after, out);
	p += strlen(after);
	if (sscanf(p, "icount=%llu pc=0x%x", icount, pc) != 2)
		fail_msg("no position after \"%s\" in:\n%s", after, out);
}

/* Starts `command`, lets it run for `ms`, presses Ctrl-C: the output up to
 * the prompt that follows. */
static const char *interrupt(tty *t, const char *command, long ms)
{
	char echo[128];
	snprintf(echo, sizeof echo, PROMPT " %s\n", command);
	type(t, command);
	key(t, "Enter");
	wait_for(t, echo);  /* the shell has the command */
	sleep_ms(ms);
	key(t, "C-c");
	return wait_prompt(t);
}

/* `where` agrees with the position printed when the motion stopped; its
 * whole output (with the call stack) goes to `out`. */
static void where_is(tty *t, unsigned long long icount, unsigned pc, char *out, size_t n)
{
	unsigned long long w;
	unsigned wpc;
	const char *where = cmd(t, "where");
	snprintf(out, n, "%s", where);
	position(where, "", &w, &wpc);
	assert_int_equal(w, icount);
	assert_int_equal(wpc, pc);
}

static void test_ctrl_c_stops_continue(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	start(t);
	/* A few rounds: the stops land anywhere in the checkpoint spans (one
	 * every 2^19 instructions), on span boundaries as well as inside. */
	enum { ROUNDS = 3 };
	unsigned long long stop[ROUNDS], last = 0;
	unsigned pc[ROUNDS];
	static char regs[4096], where[4096];
	for (int i = 0; i < ROUNDS; i++) {
		const char *out = interrupt(t, "continue", 500);
		position(out, "Interrupted.\n", &stop[i], &pc[i]);
		assert_true(stop[i] > last);
		assert_true(stop[i] < LENGTH);
		last = stop[i];
		where_is(t, stop[i], pc[i], where, sizeof where);
	}
	snprintf(regs, sizeof regs, "%s", cmd(t, "info registers"));
	/* The state there is the one a plain `goto` reaches. */
	assert_string_equal(cmd(t, "run"), "icount=0 pc=0x0000 __vectors\n");
	char go[64];
	snprintf(go, sizeof go, "goto %llu", stop[ROUNDS - 1]);
	cmd(t, go);
	assert_string_equal(cmd(t, "where"), where);
	assert_string_equal(cmd(t, "info registers"), regs);
	/* And the checkpoints laid on the way are sound: travelling from the
	 * start to just past each stop gets there, not to the stop. */
	assert_string_equal(cmd(t, "run"), "icount=0 pc=0x0000 __vectors\n");
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long long at;
		unsigned apc;
		snprintf(go, sizeof go, "goto %llu", stop[i] + 1000);
		position(cmd(t, go), "", &at, &apc);
		if (at != stop[i] + 1000)
			fail_msg("%s after Ctrl-C had stopped continue at %llu reached icount %llu",
				 go, stop[i], at);
	}
	quit(t);
}

static void test_ctrl_c_stops_reverse_continue(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	start(t);
	/* Far enough in that searching back to the start takes over a second
	 * (it costs about what the way forward did): the first Ctrl-C at 1.5 s
	 * of continue, then each search interrupted at 0.3 s.  Three rounds,
	 * because the search runs in pieces and a Ctrl-C may land anywhere in
	 * one. */
	unsigned long long from, at;
	unsigned from_pc, pc;
	char where[4096];
	position(interrupt(t, "continue", 1500), "Interrupted.\n", &from, &from_pc);
	for (int i = 0; i < 3; i++) {
		const char *out = interrupt(t, "reverse-continue", 300);
		if (!strstr(out, "Interrupted.\n"))
			fail_msg("round %d: Ctrl-C did not stop reverse-continue from icount %llu:\n%s",
				 i + 1, from, out);
		position(out, "Interrupted.\n", &at, &pc);
		assert_true(at > 0);
		assert_true(at <= from);
		where_is(t, at, pc, where, sizeof where);
		from = at;
	}
	/* The shell still travels: to the start and forward past here. */
	assert_string_equal(cmd(t, "reverse-continue"), "Start of recording.\n"
			    "icount=0 pc=0x0000 __vectors\n");
	char go[64];
	snprintf(go, sizeof go, "goto %llu", from + 1000);
	position(cmd(t, go), "", &at, &pc);
	assert_int_equal(at, from + 1000);
	quit(t);
}

/* After Ctrl-C has stopped a command, the prompt is an ordinary one: a
 * later signal while typing (a resized terminal: SIGWINCH) keeps the line. */
static void test_prompt_after_ctrl_c(void **state)
{
	SKIP_WITHOUT_TMUX();
	tty *t = *state;
	start(t);
	unsigned long long at;
	unsigned pc;
	position(interrupt(t, "continue", 300), "Interrupted.\n", &at, &pc);
	type(t, "wher");
	wait_line(t, PROMPT " wher");
	assert_int_equal(tmux(NULL, 0, "resize-window -t '%s' -x 100 -y 30", t->name), 0);
	sleep_ms(300);
	type(t, "e");
	wait_line_ms(t, PROMPT " where", 2000);  /* typed: no need to wait long */
	const char *out = enter(t, PROMPT " where");
	unsigned long long w;
	unsigned wpc;
	position(out, "", &w, &wpc);
	assert_int_equal(w, at);
	quit(t);
}

#define TTY_TEST(f) cmocka_unit_test_setup_teardown(f, tty_setup, tty_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TTY_TEST(test_command_completion),
		TTY_TEST(test_symbol_and_info_completion),
		TTY_TEST(test_abbreviations_and_repeat),
		TTY_TEST(test_history),
		TTY_TEST(test_ctrl_c_stops_continue),
		TTY_TEST(test_ctrl_c_stops_reverse_continue),
		TTY_TEST(test_prompt_after_ctrl_c),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
