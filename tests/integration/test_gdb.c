/*
 * test_gdb.c — the gdb server driven by stock avr-gdb (Debian's gdb-avr) in
 * batch mode, each answer checked against the shell's on the same
 * recording:
 *
 *  - `avrr serve` + `target remote`: break func_d, continue, stepi x3,
 *    reverse-stepi x3 come back to the same pc, at the icount where the
 *    shell's `continue` stops;
 *  - watch g_led: continue stops with the shell's old and new values;
 *    reverse-continue stops before the write (one instruction before the
 *    shell's forward stop) with the values swapped; reverse-continue from
 *    the first stop reports the start of the recording;
 *  - reverse-continue goes back to the breakpoint's earlier hits;
 *  - rwatch stops where the shell's does, and backward before the load;
 *  - info registers and x/8xb &g_led show what the shell shows there;
 *  - bt inside INT0's handler reaches main through the interrupt frame, at
 *    the return address the shell's `where` names (a DWARF build: gdb
 *    unwinds an interrupt frame only from DWARF's call frame information);
 *  - writes to memory and registers are refused;
 *  - the walk-through in one command, `avrr gdb sensors.elf --stimuli ...
 *    -- -batch -x CMDS`: break in INT0's handler, watch presses and
 *    reverse-continue to its last write, `goto irq 5` (avrr.gdb's command),
 *    after which gdb's registers, pc and backtrace are those `avrr shell
 *    sensors.elf` (the same recording, made again) shows after its own
 *    `goto irq 5`, and a stepi later bt reaches main through the interrupt
 *    frame; the temporary recording is gone afterwards, -o keeps it,
 *    and record options with a recording, or stray arguments, are refused;
 *  - malformed, oversized and random packets on a raw socket get an error
 *    reply or a NAK, the server keeps answering, and a client that leaves
 *    mid-packet leaves nothing behind.
 */
#include "tests/testlib.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

typedef test_scratch scratch;

#define LENGTH 1200000


/* A file in the scratch directory with these lines. */
static const char *script(scratch *s, const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s", s->dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Runs `avrr gdb DB -batch -x SCRIPT EXTRA` (avr-gdb's console output,
 * stderr, included); returns the exit status.  gdb stops a script at its
 * first error, but goes on to each -ex in EXTRA. */
static int gdb_batch(scratch *s, const char *db, const char *text, const char *extra)
{
	const char *x = script(s, "cmds.gdb", text);
	return test_run(s->out, sizeof s->out, "%s gdb '%s' -batch -x '%s' %s", test_avrr(), db, x,
			extra);
}

/* The shell's output for these commands. */
static void shell(scratch *s, const char *db, const char *text, char *out, size_t n)
{
	const char *x = script(s, "cmds.shell", text);
	assert_int_equal(test_run(out, n, "%s shell '%s' -x '%s'", test_avrr(), db, x), 0);
}

/* The number after the n-th (0-based) occurrence of `key` in text. */
static uint64_t number_after(const char *text, const char *key, int n)
{
	const char *p = text;
	for (int i = 0; i <= n; i++) {
		p = strstr(p, key);
		if (!p)
			fail_msg("no %d-th '%s' in:\n%s", n, key, text);
		p += strlen(key);
	}
	return strtoull(p, NULL, 0);
}

static void test_serve_step_and_reverse_step(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	shell(s, db, "break func_d\ncontinue\n", sh, sizeof sh);
	uint64_t at = number_after(sh, "icount=", 0);

	/* avrr serve on a port it picks, announced on stderr. */
	char log[300];
	snprintf(log, sizeof log, "%s/serve.log", s->dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		freopen(log, "w", stderr);
		execl(test_avrr(), "avrr", "serve", db, "--port", "0", (char *)NULL);
		_exit(127);
	}
	unsigned port = 0;
	for (int i = 0; i < 300 && !port; i++) {
		usleep(20000);
		FILE *f = fopen(log, "r");
		char line[300] = "";
		if (f && fgets(line, sizeof line, f)) {
			const char *p = strstr(line, "target remote 127.0.0.1:");
			if (p)
				port = (unsigned)atoi(p + strlen("target remote 127.0.0.1:"));
		}
		if (f)
			fclose(f);
	}
	assert_true(port > 0);
	const char *x = script(s, "must.gdb",
			       "break func_d\ncontinue\ninfo registers pc\nmonitor when\n"
			       "stepi\nstepi\nstepi\ninfo registers pc\n"
			       "reverse-stepi\nreverse-stepi\nreverse-stepi\ninfo registers pc\n"
			       "monitor when\n");
	int rc = test_run(s->out, sizeof s->out,
			  "avr-gdb -q -batch -ex 'target remote 127.0.0.1:%u' -x '%s' traces/funcsheap.elf",
			  port, x);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* pc before the forward steps, after them, and after the reverse ones */
	const char *first = strstr(s->out, "pc             ");
	assert_non_null(first);
	assert_non_null(strstr(first, "0x1e0 <func_d>"));
	assert_int_equal(number_after(s->out, "pc             ", 0), 0xf0);
	assert_int_equal(number_after(s->out, "pc             ", 1), 0xf3);
	assert_int_equal(number_after(s->out, "pc             ", 2), 0xf0);
	/* the shell's icount, before and after the round trip */
	assert_int_equal(number_after(s->out, "icount=", 0), at);
	assert_int_equal(number_after(s->out, "icount=", 1), at);
}

static void test_watch_and_reverse_continue(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	shell(s, db, "watch g_led\ncontinue\ncontinue\n", sh, sizeof sh);
	assert_int_equal(gdb_batch(s, db, "watch g_led\ncontinue\nmonitor when\ncontinue\n"
				   "monitor when\nreverse-continue\nmonitor when\nprint g_led\n"
				   "delete\nreverse-continue\nmonitor when\n", ""), 0);
	/* forward: the shell's stops and values */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(number_after(s->out, "icount=", i), number_after(sh, "icount=", i));
		assert_int_equal(number_after(s->out, "Old value = ", i),
				 number_after(sh, "Old value = ", i));
		assert_int_equal(number_after(s->out, "New value = ", i),
				 number_after(sh, "New value = ", i));
	}
	/* backward: before the write that made the second stop */
	assert_int_equal(number_after(s->out, "icount=", 2), number_after(sh, "icount=", 1) - 1);
	assert_int_equal(number_after(s->out, "Old value = ", 2), number_after(sh, "New value = ", 1));
	assert_int_equal(number_after(s->out, "New value = ", 2), number_after(sh, "Old value = ", 1));
	assert_int_equal(number_after(s->out, "$1 = ", 0), number_after(sh, "Old value = ", 1));
	/* and from there, with nothing to stop at, the start */
	assert_non_null(strstr(s->out, "No more reverse-execution history."));
	assert_int_equal(number_after(s->out, "icount=", 3), 0);
}

static void test_reverse_continue_to_a_breakpoint(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	shell(s, db, "break func_d\ncontinue\ncontinue\ncontinue\n", sh, sizeof sh);
	assert_int_equal(gdb_batch(s, db, "break func_d\ncontinue\ncontinue\ncontinue\n"
				   "reverse-continue\nmonitor when\nreverse-continue\nmonitor when\n",
				   ""), 0);
	/* from the third hit back to the second, then the first */
	assert_int_equal(number_after(s->out, "icount=", 0), number_after(sh, "icount=", 1));
	assert_int_equal(number_after(s->out, "icount=", 1), number_after(sh, "icount=", 0));
}

static void test_read_watchpoint(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	shell(s, db, "rwatch g_led\ncontinue\ncontinue\n", sh, sizeof sh);
	assert_int_equal(gdb_batch(s, db, "rwatch g_led\ncontinue\nmonitor when\ncontinue\n"
				   "monitor when\nreverse-continue\nmonitor when\n", ""), 0);
	assert_non_null(strstr(s->out, "Hardware read watchpoint 1: g_led"));
	assert_int_equal(number_after(s->out, "icount=", 0), number_after(sh, "icount=", 0));
	assert_int_equal(number_after(s->out, "icount=", 1), number_after(sh, "icount=", 1));
	/* backward: before the load */
	assert_int_equal(number_after(s->out, "icount=", 2), number_after(sh, "icount=", 1) - 1);
}

/* "NAME   0xHEX" of register `name` in an `info registers` listing. */
static uint64_t reg_value(const char *text, const char *name)
{
	char key[16];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *p = strstr(text, key);
	if (!p)
		fail_msg("no register %s in:\n%s", name, text);
	p += strlen(key);
	while (*p == ' ')
		p++;
	return strtoull(p, NULL, 0);
}

static void test_registers_and_memory_match_the_shell(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	shell(s, db, "break func_d\ncontinue\ncontinue\ninfo registers\nx/8xb &g_led\n", sh,
	      sizeof sh);
	/* gdb's status is that of its last command */
	assert_int_equal(gdb_batch(s, db, "break func_d\ncontinue\ncontinue\necho \\n\n"
				   "info registers\nx/8xb &g_led\n",
				   "-ex 'set var g_led = 5' -ex 'set var $r24 = 1' "
				   "-ex 'print g_led' -ex 'print $r24'"), 0);
	char name[16];
	for (int r = 0; r < 32; r++) {
		snprintf(name, sizeof name, "r%d", r);
		assert_int_equal(reg_value(s->out, name), reg_value(sh, name));
	}
	assert_int_equal(reg_value(s->out, "SREG"), reg_value(sh, "SREG"));
	assert_int_equal(reg_value(s->out, "SP") & 0xffff, reg_value(sh, "SP"));
	/* the 8 bytes from g_led, as the shell lists them */
	const char *g = strstr(s->out, "<g_led>:"), *h = strstr(sh, "<g_led>:");
	assert_non_null(g);
	assert_non_null(h);
	for (int i = 0; i < 8; i++)
		assert_int_equal(number_after(g, "0x", i), number_after(h, "0x", i));
	/* writes refused, nothing changed */
	assert_non_null(strstr(s->out, "Cannot access memory at address 0x800075"));
	assert_non_null(strstr(s->out, "Could not write register"));
	assert_int_equal(number_after(s->out, "$1 = ", 0), number_after(h, "0x", 0));
	assert_int_equal(number_after(s->out, "$2 = ", 0), reg_value(sh, "r24"));
}

static void test_backtrace_through_an_interrupt(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	test_record(s, db, sizeof db, "fhd.db", "tests/firmware/funcsheap_dwarf.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	shell(s, db, "break __vector_1\ncontinue\nwhere\n", sh, sizeof sh);
	assert_int_equal(gdb_batch(s, db, "break *__vector_1\ncontinue\nmonitor when\nbt\n", ""), 0);
	assert_int_equal(number_after(s->out, "icount=", 0), number_after(sh, "icount=", 1));
	/* #1 is main, at the return address the shell's interrupt frame names */
	uint64_t ra = number_after(sh, "taken at ", 0);
	assert_int_equal(number_after(s->out, "#1  ", 0), ra);
	assert_non_null(strstr(s->out, " in main () at "));
}

#define SENSORS "tests/firmware/sensors.elf --stimuli tests/firmware/sensors.stim " \
	"--instructions 400k"

static void test_walkthrough_from_the_elf(void **state)
{
	scratch *s = *state;
	char sh[16384];
	const char *x = script(s, "walk.gdb",
			       "break __vector_1\ncontinue\ncontinue\nprint presses\n"
			       "watch presses\nreverse-continue\n"
			       "goto irq 5\ninfo registers\nbt\nwhen\nstepi\nbt\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "TMPDIR='%s' %s gdb " SENSORS
				  " -- -batch -x '%s'", s->dir, test_avrr(), x), 0);
	/* the second press, then back to the write of the first */
	assert_non_null(strstr(s->out, "Breakpoint 1, __vector_1 () at tests/firmware/sensors.c:58"));
	assert_non_null(strstr(s->out, "$1 = 1 '\\001'"));
	assert_non_null(strstr(s->out, "Old value = 1 '\\001'\nNew value = 0 '\\000'\n"));
	assert_non_null(strstr(s->out, " in __vector_1 () at tests/firmware/sensors.c:59\n"
			       "59\t\tpresses++;\n"));
	/* goto irq 5: the shell's goto on the same recording, made again */
	const char *sx = script(s, "walk.shell", "goto irq 5\ninfo registers\nwhere\n");
	assert_int_equal(test_run(sh, sizeof sh, "TMPDIR='%s' %s shell " SENSORS " -x '%s'", s->dir,
				  test_avrr(), sx), 0);
	const char *after = strstr(s->out, "icount=");
	assert_non_null(after);
	assert_int_equal(number_after(after, "icount=", 0), number_after(sh, "icount=", 0));
	assert_int_equal(number_after(after, "icount=", 1), number_after(sh, "icount=", 0));
	char name[16];
	for (int r = 0; r < 32; r++) {
		snprintf(name, sizeof name, "r%d", r);
		assert_int_equal(reg_value(after, name), reg_value(sh, name));
	}
	assert_int_equal(reg_value(after, "SREG"), reg_value(sh, "SREG"));
	assert_int_equal(reg_value(after, "SP") & 0xffff, reg_value(sh, "SP"));
	/* PC2 is avr-gdb's byte-addressed pc; goto's frame line and bt's
	 * frame #0 stand there too */
	uint64_t pc = reg_value(sh, "PC");
	assert_int_equal(reg_value(after, "PC2"), pc);
	char frame[64];
	snprintf(frame, sizeof frame, "#0  0x%08llx in ", (unsigned long long)pc);
	const char *f0 = strstr(after, frame), *regs = strstr(after, "\nr0 ");
	assert_non_null(f0);
	assert_non_null(regs);
	assert_true(f0 < regs);                       /* goto showed it */
	assert_non_null(strstr(regs, frame));         /* and bt, after info registers */
	/* one stepi into the handler, and bt reaches main at the return
	 * address the shell's interrupt frame names */
	snprintf(frame, sizeof frame, "#1  0x%08llx in main () at ",
		 (unsigned long long)number_after(sh, "taken at ", 0));
	assert_non_null(strstr(regs, frame));
	/* nothing of the temporary recordings is left */
	assert_int_equal(test_run(sh, sizeof sh, "ls -d '%s'/avrr-* 2>/dev/null | wc -l", s->dir), 0);
	assert_string_equal(sh, "0\n");
}

static void test_elf_forms_keep_and_refuse(void **state)
{
	scratch *s = *state;
	char db[256], sh[16384];
	snprintf(db, sizeof db, "%s/kept.db", s->dir);
	/* -o keeps the recording: the one `avrr record` makes */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb " SENSORS " -o '%s' -- -batch "
				  "-ex 'goto 1000' -ex 'when'", test_avrr(), db), 0);
	assert_non_null(strstr(s->out, "icount=1000 pc="));
	assert_int_equal(test_sql_int(db, "SELECT count(*) FROM interrupts WHERE vector = 1"), 4);
	assert_int_equal(test_run(sh, sizeof sh, "%s info '%s' | grep '^instructions'", test_avrr(),
				  db), 0);
	assert_string_equal(sh, "instructions  400000\n");
	/* the recording's forms as they were: what follows RUN.db is avr-gdb's */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb '%s' -batch -ex 'goto irq 2' "
				  "-ex 'irqs'", test_avrr(), db), 0);
	/* at the second recorded interrupt, which irqs lists as taken */
	long long irq2 = test_sql_int(db, "SELECT icount FROM interrupts ORDER BY icount LIMIT 1 "
				      "OFFSET 1");
	snprintf(sh, sizeof sh, "icount=%lld pc=", irq2);
	assert_non_null(strstr(s->out, sh));
	snprintf(sh, sizeof sh, "\n2      %-12lld ", irq2);
	const char *row = strstr(s->out, sh);
	assert_non_null(row);
	assert_non_null(strstr(row, "correct\n"));
	assert_true(strstr(row, "correct\n") < strchr(row + 1, '\n') + 1);
	/* record options with a recording; stray arguments after an ELF */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb --stimuli x.stim '%s'",
				  test_avrr(), db), 2);
	snprintf(sh, sizeof sh, "avrr gdb: --stimuli is for recording a FIRMWARE.elf first; %s is "
		 "not an ELF\n", db);
	assert_string_equal(s->out, sh);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s shell '%s' -o y.db", test_avrr(), db),
			 2);
	snprintf(sh, sizeof sh, "avrr shell: -o is for recording a FIRMWARE.elf first; %s is not "
		 "an ELF\n", db);
	assert_string_equal(s->out, sh);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb " SENSORS " -batch", test_avrr()),
			 2);
	assert_string_equal(s->out, "avrr gdb: unexpected '-batch' after tests/firmware/sensors.elf; "
			    "avr-gdb's arguments go after --\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s shell tests/firmware/sensors.elf "
				  "--seed x", test_avrr()), 2);
	assert_string_equal(s->out, "avrr shell: --seed: 'x' is not a non-negative integer\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb --fp a --fp b '%s'", test_avrr(),
				  db), 2);
	assert_string_equal(s->out, "avrr gdb: one --fp NAME: the stored configuration to replay "
			    "with\n");
}

/* ---- the protocol on a raw socket ---------------------------------------- */

static int connect_to(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (int i = 0; i < 300; i++) {
		if (!connect(fd, (struct sockaddr *)&a, sizeof a))
			return fd;
		usleep(20000);
	}
	return -1;
}

/* Reads what the server sends within a moment. */
static size_t drain(int fd, char *buf, size_t n)
{
	size_t k = 0;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 300000 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	ssize_t r;
	while (k + 1 < n && (r = recv(fd, buf + k, n - 1 - k, 0)) > 0)
		k += (size_t)r;
	buf[k] = 0;
	return k;
}

static void send_packet(int fd, const char *payload)
{
	char frame[5000];
	unsigned sum = 0;
	for (const char *p = payload; *p; p++)
		sum += (unsigned char)*p;
	int n = snprintf(frame, sizeof frame, "$%s#%02x", payload, sum & 0xff);
	assert_int_equal(send(fd, frame, (size_t)n, MSG_NOSIGNAL), n);
}

/* Starts `avrr serve DB --port PORT`; returns its pid. */
static pid_t serve(scratch *s, const char *db, unsigned *port)
{
	int probe = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	assert_int_equal(bind(probe, (struct sockaddr *)&a, sizeof a), 0);
	getsockname(probe, (struct sockaddr *)&a, &len);
	*port = ntohs(a.sin_port);
	close(probe);
	char p[16];
	snprintf(p, sizeof p, "%u", *port);
	(void)s;
	pid_t pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stderr);
		execl(test_avrr(), "avrr", "serve", db, "--port", p, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_bad_packets_get_errors(void **state)
{
	scratch *s = *state;
	char db[256], buf[16384];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d", LENGTH);
	unsigned port;
	pid_t pid = serve(s, db, &port);
	int fd = connect_to(port);
	assert_true(fd >= 0);

	/* a bad checksum: NAK */
	assert_int_equal(send(fd, "$g#00", 5, 0), 5);
	drain(fd, buf, sizeof buf);
	assert_string_equal(buf, "-");
	/* oversized: NAK, not an overflow */
	static char big[9000];
	memset(big, 'm', sizeof big - 1);
	big[0] = '$';
	assert_int_equal(send(fd, big, strlen(big), 0), (ssize_t)strlen(big));
	assert_int_equal(send(fd, "#00", 3, 0), 3);
	drain(fd, buf, sizeof buf);
	assert_string_equal(buf, "-");
	/* malformed requests: E01; unknown ones: empty */
	static const char *const bad[] = { "m", "mzz,4", "m800000", "p", "pzz", "Z9,0,2",
					   "Z2,800075,99", "qRcmd,6", "qRcmd,zz", "bx",
					   "M800075,1:05", "P18=01", "G00", "m900000,4" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		send_packet(fd, bad[i]);
		drain(fd, buf, sizeof buf);
		if (!strstr(buf, "$E01#a6"))
			fail_msg("'%s' answered '%s'", bad[i], buf);
	}
	send_packet(fd, "qNoSuchThing");
	drain(fd, buf, sizeof buf);
	assert_string_equal(buf, "+$#00");
	/* a read past the end of the data space is cut there */
	send_packet(fd, "m80045e,8");
	drain(fd, buf, sizeof buf);
	assert_int_equal(strlen(buf), strlen("+$xxxx#cs"));
	/* random bytes and packets: answers, never a crash */
	srand(7);
	for (int i = 0; i < 2000; i++) {
		char pkt[64];
		size_t n = (size_t)(rand() % 60);
		for (size_t k = 0; k < n; k++)
			pkt[k] = (char)(" $#}*+-0123456789abcdefgmpqsczZMPGXvbk,:;"[rand() % 41]);
		pkt[n] = 0;
		if (n && strchr("kDcCsSbv}", pkt[0]))
			continue;  /* the session's end and motions ("}d" is D) are tested elsewhere */
		if (rand() % 2)
			send_packet(fd, pkt);
		else
			assert_int_equal(send(fd, pkt, n, MSG_NOSIGNAL), (ssize_t)n);
	}
	drain(fd, buf, sizeof buf);
	/* still serving */
	assert_int_equal(send(fd, "+$#00+", 6, 0), 6);  /* an empty packet closes any open one */
	drain(fd, buf, sizeof buf);
	send_packet(fd, "?");
	drain(fd, buf, sizeof buf);
	assert_non_null(strstr(buf, "$S05#b8"));
	/* leaving mid-packet ends the session cleanly */
	assert_int_equal(send(fd, "$m80", 4, 0), 4);
	close(fd);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(test_run(buf, sizeof buf, "ls -d \"${TMPDIR:-/tmp}\"/avrr-gdb-* 2>/dev/null | wc -l; "
				  "pgrep -f '[a]vrr serve %s' | wc -l", db), 0);
	assert_string_equal(buf, "0\n0\n");
}

static void test_bad_input_is_one_line(void **state)
{
	scratch *s = *state;
	assert_int_equal(test_run(s->out, sizeof s->out, "%s serve /nonexistent.db --port 0",
				  test_avrr()), 2);
	assert_non_null(strstr(s->out, "avrr serve: /nonexistent.db"));
	assert_int_equal(strchr(s->out, '\n') - s->out + 1, (long)strlen(s->out));
	assert_int_equal(test_run(s->out, sizeof s->out, "%s serve x.db --port 70000",
				  test_avrr()), 2);
	assert_string_equal(s->out, "avrr serve: --port 70000: not a TCP port (0-65535)\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb --port 1 x.db", test_avrr()), 2);
	assert_string_equal(s->out,
			    "avrr gdb: --port is for avrr serve; avrr gdb picks a free loopback port\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s serve x.db --checkpoint-memory 0",
				  test_avrr()), 2);
	assert_string_equal(s->out, "avrr serve: --checkpoint-memory: 0 is not in 1..1048576 (MB)\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb --checkpoint-memory lots x.db",
				  test_avrr()), 2);
	assert_string_equal(s->out,
			    "avrr gdb: --checkpoint-memory: 'lots' is not a non-negative integer\n");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_serve_step_and_reverse_step,
						test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_watch_and_reverse_continue,
						test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_reverse_continue_to_a_breakpoint,
						test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_read_watchpoint, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_registers_and_memory_match_the_shell,
						test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_backtrace_through_an_interrupt,
						test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_walkthrough_from_the_elf, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_elf_forms_keep_and_refuse, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_bad_packets_get_errors, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_is_one_line, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
