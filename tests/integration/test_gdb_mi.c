/*
 * test_gdb_mi.c — the gdb server as an IDE drives it: a real avr-gdb in MI
 * mode (--interpreter=mi3, what VS Code's cpptools and Native Debug speak)
 * against `avrr serve` on tests/firmware/sensors.elf, the walk-through's
 * ATmega328P firmware, which it records first (-o keeps the recording).  Every stop record and value is checked against
 * truth that does not come through the gdb server: the recording's ground
 * truth (its `interrupts` table, read with SQLite), the firmware's source
 * (initialisers, struct layout, the AVR CALL encoding) and avrr's own shell
 * at the same icount.  Last, gdb/avrr.gdb's `goto irq 5` from the console
 * (as an IDE's debug console sends it) leaves gdb's registers and frames
 * at the shell's `goto irq 5`.
 *
 * With AVRR_MI_TRANSCRIPT=FILE the commands and gdb's answers (less the
 * '=' notifications and prompts) are appended to FILE, for docs/gdb.md.
 */
#include "tests/testlib.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

typedef test_scratch scratch;

#define LENGTH 400000  /* instructions: 4 presses (INT0) of sensors.stim */
#define ELF "tests/firmware/sensors.elf"

/* ---- the server ----------------------------------------------------------- */

/* `avrr serve sensors.elf --stimuli ... -o DB --port 0`, as docs/gdb.md's
 * VS Code task starts it (there on a fixed port): it records into DB, which
 * stays for the shell's truth, then serves.  Returns its pid and the port
 * it announced. */
static pid_t serve(scratch *s, char *db, size_t n, unsigned *port)
{
	char log[300], length[32];
	snprintf(db, n, "%s/sensors.db", s->dir);
	snprintf(log, sizeof log, "%s/serve.log", s->dir);
	snprintf(length, sizeof length, "%d", LENGTH);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(log, "w", stderr))
			_exit(127);
		execl(test_avrr(), "avrr", "serve", ELF, "--stimuli", "tests/firmware/sensors.stim",
		      "--instructions", length, "-o", db, "--port", "0", (char *)NULL);
		_exit(127);
	}
	*port = 0;
	for (int i = 0; i < 500 && !*port; i++) {
		usleep(20000);
		FILE *f = fopen(log, "r");
		char line[300] = "";
		if (f && fgets(line, sizeof line, f)) {
			const char *p = strstr(line, "target remote 127.0.0.1:");
			if (p)
				*port = (unsigned)atoi(p + strlen("target remote 127.0.0.1:"));
		}
		if (f)
			fclose(f);
	}
	assert_true(*port > 0);
	return pid;
}

/* ---- avr-gdb in MI mode ---------------------------------------------------- */

typedef struct mi {
	pid_t pid;
	FILE *to, *from;
	FILE *transcript;  /* NULL unless AVRR_MI_TRANSCRIPT */
	char out[65536];   /* the last command's records */
} mi;

static void mi_start(mi *m)
{
	int in[2], out[2];
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	m->pid = fork();
	assert_true(m->pid >= 0);
	if (m->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(in[1]);
		close(out[0]);
		execlp("avr-gdb", "avr-gdb", "-nx", "-q", "--interpreter=mi3", ELF, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	m->to = fdopen(in[1], "w");
	m->from = fdopen(out[0], "r");
	assert_non_null(m->to);
	assert_non_null(m->from);
	const char *t = getenv("AVRR_MI_TRANSCRIPT");
	m->transcript = t && *t ? fopen(t, "a") : NULL;
	char line[8192];
	while (fgets(line, sizeof line, m->from) && strncmp(line, "(gdb)", 5))
		;
}

/* Sends one MI command and collects its records up to the result record
 * (^done, ^connected, ^error) — for ^running, on to the *stopped record
 * that ends the motion.  Returns the records, one a line. */
static const char *mi_do(mi *m, const char *cmd)
{
	fprintf(m->to, "%s\n", cmd);
	fflush(m->to);
	if (m->transcript)
		fprintf(m->transcript, "%s\n", cmd);
	size_t k = 0;
	int running = 0;
	char line[8192];
	m->out[0] = 0;
	while (fgets(line, sizeof line, m->from)) {
		if (line[0] == '=' || !strncmp(line, "(gdb)", 5))
			continue;
		size_t n = strlen(line);
		if (k + n < sizeof m->out) {
			memcpy(m->out + k, line, n + 1);
			k += n;
		}
		if (m->transcript)
			fprintf(m->transcript, "  %s", line);
		if (!strncmp(line, "^error", 6))
			fail_msg("%s: %s", cmd, line);
		if (!strncmp(line, "^running", 8))
			running = 1;
		else if (line[0] == '^' && !running)
			return m->out;
		else if (!strncmp(line, "*stopped", 8) && running)
			return m->out;
	}
	fail_msg("avr-gdb went away after '%s'; it said:\n%s", cmd, m->out);
	return NULL;
}

static void mi_stop(mi *m)
{
	fprintf(m->to, "-gdb-exit\n");
	fclose(m->to);
	char line[8192];
	while (fgets(line, sizeof line, m->from))
		;
	fclose(m->from);
	int status;
	assert_int_equal(waitpid(m->pid, &status, 0), m->pid);
	if (m->transcript)
		fclose(m->transcript);
}

/* The line of text that starts with `prefix` ("*stopped", "^done"). */
static const char *record_line(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, prefix, strlen(prefix)))
			return p;
	fail_msg("no %s record in:\n%s", prefix, text);
	return NULL;
}

/* The value of the first `key="..."` at or after text (as MI writes it,
 * escapes kept), into buf. */
static const char *field(const char *text, const char *key, char *buf, size_t n)
{
	char pat[64];
	snprintf(pat, sizeof pat, "%s=\"", key);
	const char *p = text;
	while ((p = strstr(p, pat)) && p != text && p[-1] != ',' && p[-1] != '{')
		p++;
	if (!p)
		fail_msg("no %s in:\n%s", key, text);
	p += strlen(pat);
	size_t k = 0;
	while (*p && *p != '"' && k + 1 < n) {
		if (*p == '\\' && p[1])
			buf[k++] = *p++;
		buf[k++] = *p++;
	}
	buf[k] = 0;
	return buf;
}

static uint64_t field_u64(const char *text, const char *key)
{
	char buf[64];
	return strtoull(field(text, key, buf, sizeof buf), NULL, 0);
}

/* The icount where the replay stands, from `monitor when` ('@' records). */
static uint64_t mi_icount(mi *m)
{
	const char *out = mi_do(m, "-interpreter-exec console \"monitor when\"");
	const char *p = strstr(out, "@\"icount=");
	if (!p)
		fail_msg("monitor when said:\n%s", out);
	return strtoull(p + strlen("@\"icount="), NULL, 10);
}

/* The value -data-evaluate-expression gives for expr. */
static const char *mi_eval(mi *m, const char *expr, char *buf, size_t n)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "-data-evaluate-expression \"%s\"", expr);
	return field(record_line(mi_do(m, cmd), "^done"), "value", buf, n);
}

/* ---- the truth from elsewhere ------------------------------------------------ */

/* The shell's output for `goto ICOUNT` and then these commands. */
static void shell_at(scratch *s, const char *db, uint64_t icount, const char *cmds, char *out,
		     size_t n)
{
	char path[300], text[512];
	snprintf(path, sizeof path, "%s/at.shell", s->dir);
	snprintf(text, sizeof text, "goto %llu\n%s", (unsigned long long)icount, cmds);
	test_write_text(path, text);
	assert_int_equal(test_run(out, n, "%s shell '%s' -x '%s'", test_avrr(), db, path), 0);
}

/* "NAME   0xHEX" of register `name` in the shell's `info registers`. */
static uint64_t shell_reg(const char *text, const char *name)
{
	char key[16];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *p = strstr(text, key);
	if (!p)
		fail_msg("no register %s in:\n%s", name, text);
	return strtoull(p + strlen(key) + strspn(p + strlen(key), " "), NULL, 0);
}

/* The n-th (from 1) INT0 interrupt's icount and return address, from the
 * recording's ground truth. */
static void int0(const char *db, int n, uint64_t *icount, uint64_t *ra)
{
	char q[160];
	snprintf(q, sizeof q, "SELECT icount FROM interrupts WHERE vector = 1 ORDER BY idx "
		 "LIMIT 1 OFFSET %d", n - 1);
	*icount = (uint64_t)test_sql_int(db, q);
	snprintf(q, sizeof q, "SELECT ra FROM interrupts WHERE vector = 1 ORDER BY idx "
		 "LIMIT 1 OFFSET %d", n - 1);
	*ra = (uint64_t)test_sql_int(db, q);
}

/* ---- the session ------------------------------------------------------------ */

static void test_mi_session(void **state)
{
	scratch *s = *state;
	char db[256], v[512], sh[16384];
	unsigned port;
	pid_t server = serve(s, db, sizeof db, &port);
	mi m = { 0 };
	mi_start(&m);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "-target-select remote 127.0.0.1:%u", port);
	record_line(mi_do(&m, cmd), "^connected");

	/* INT0's handler (ISR(INT0_vect) is __vector_1): the first press.
	 * The CPU entered the vector at the recorded icount; one JMP later it
	 * is at the handler, whose caller is the recorded return address. */
	const char *out = mi_do(&m, "-break-insert __vector_1");
	assert_string_equal(field(record_line(out, "^done"), "number", v, sizeof v), "1");
	out = record_line(mi_do(&m, "-exec-continue"), "*stopped");
	assert_string_equal(field(out, "reason", v, sizeof v), "breakpoint-hit");
	assert_string_equal(field(out, "bkptno", v, sizeof v), "1");
	assert_string_equal(field(out, "func", v, sizeof v), "__vector_1");
	uint64_t gt_icount, gt_ra;
	int0(db, 1, &gt_icount, &gt_ra);
	uint64_t hit1 = mi_icount(&m);
	assert_int_equal(hit1, gt_icount + 1);
	/* before its presses++: none yet */
	assert_string_equal(mi_eval(&m, "presses", v, sizeof v), "0 '\\\\000'");
	out = record_line(mi_do(&m, "-stack-list-frames"), "^done");
	assert_string_equal(field(out, "func", v, sizeof v), "__vector_1");
	const char *f1 = strstr(out, "level=\"1\"");
	assert_non_null(f1);
	assert_int_equal(field_u64(f1, "addr"), gt_ra);
	assert_string_equal(field(f1, "func", v, sizeof v), "main");
	/* uptime, 32 bits, as the shell reads it there */
	shell_at(s, db, hit1, "print uptime\ninfo registers\n", sh, sizeof sh);
	const char *shown = strstr(sh, "$1 = ");  /* the shell prints as gdb does */
	if (!shown)
		fail_msg("the shell's print uptime said:\n%s", sh);
	uint64_t up = strtoull(shown + strlen("$1 = "), NULL, 10);
	assert_int_equal(strtoull(mi_eval(&m, "uptime", v, sizeof v), NULL, 10), up);

	/* The second press; then who last wrote presses: backward, the
	 * watchpoint stops before the store of the first press's increment. */
	out = record_line(mi_do(&m, "-exec-continue"), "*stopped");
	assert_string_equal(field(out, "reason", v, sizeof v), "breakpoint-hit");
	int0(db, 2, &gt_icount, &gt_ra);
	assert_int_equal(mi_icount(&m), gt_icount + 1);
	assert_string_equal(mi_eval(&m, "presses", v, sizeof v), "1 '\\\\001'");
	out = mi_do(&m, "-break-watch presses");
	assert_string_equal(field(record_line(out, "^done"), "number", v, sizeof v), "2");
	out = record_line(mi_do(&m, "-exec-continue --reverse"), "*stopped");
	assert_string_equal(field(out, "reason", v, sizeof v), "watchpoint-trigger");
	assert_string_equal(field(out, "number", v, sizeof v), "2");
	assert_string_equal(field(out, "exp", v, sizeof v), "presses");
	assert_string_equal(field(out, "old", v, sizeof v), "1 '\\\\001'");
	assert_string_equal(field(out, "new", v, sizeof v), "0 '\\\\000'");
	assert_string_equal(field(out, "func", v, sizeof v), "__vector_1");
	assert_string_equal(field(out, "line", v, sizeof v), "59");  /* presses++; */
	uint64_t store = mi_icount(&m);
	/* the shell, forward from the start, sees the write one instruction on */
	{
		char path[300];
		snprintf(path, sizeof path, "%s/w.shell", s->dir);
		test_write_text(path, "watch presses\ncontinue\n");
		assert_int_equal(test_run(sh, sizeof sh, "%s shell '%s' -x '%s'", test_avrr(), db,
					  path), 0);
		assert_int_equal(strtoull(strstr(sh, "icount=") + 7, NULL, 10), store + 1);
	}
	assert_string_equal(mi_eval(&m, "presses", v, sizeof v), "0 '\\\\000'");

	/* A reverse step from the store goes to the start of its line (as
	 * the compiler's line table has it), still before the write. */
	record_line(mi_do(&m, "-break-disable 2"), "^done");
	out = record_line(mi_do(&m, "-exec-step --reverse"), "*stopped");
	assert_string_equal(field(out, "reason", v, sizeof v), "end-stepping-range");
	assert_string_equal(field(out, "func", v, sizeof v), "__vector_1");
	assert_string_equal(field(out, "line", v, sizeof v), "59");
	char lines[256];
	assert_int_equal(test_run(lines, sizeof lines, "avr-objdump --dwarf=decodedline " ELF
				  " | awk '$1 == \"sensors.c\" && $2 == 59 { print $3; exit }'"), 0);
	assert_int_equal(field_u64(out, "addr"), strtoull(lines, NULL, 16));
	uint64_t stepped = mi_icount(&m);
	assert_true(stepped < store && stepped > hit1);
	assert_string_equal(mi_eval(&m, "presses", v, sizeof v), "0 '\\\\000'");

	/* The report of the first press: report(&sensors[1], 1) calls
	 * format_line(line, sensors[1].id = 20, ...). */
	record_line(mi_do(&m, "-break-delete"), "^done");
	out = mi_do(&m, "-break-insert format_line");
	uint64_t fl = field_u64(record_line(out, "^done"), "addr");
	out = record_line(mi_do(&m, "-exec-continue"), "*stopped");
	assert_string_equal(field(out, "reason", v, sizeof v), "breakpoint-hit");
	assert_string_equal(field(out, "func", v, sizeof v), "format_line");
	assert_int_equal(field_u64(out, "addr"), fl);
	const char *id = strstr(out, "{name=\"id\"");
	assert_non_null(id);
	assert_string_equal(field(id, "value", v, sizeof v), "20 '\\\\024'");
	uint64_t at_fl = mi_icount(&m);
	out = record_line(mi_do(&m, "-stack-list-frames"), "^done");
	static const char *const chain[] = { "format_line", "report", "main" };
	for (int i = 0; i < 3; i++) {
		char lv[32];
		snprintf(lv, sizeof lv, "level=\"%d\"", i);
		const char *f = strstr(out, lv);
		assert_non_null(f);
		assert_string_equal(field(f, "func", v, sizeof v), chain[i]);
	}
	assert_null(strstr(out, "level=\"3\""));
	uint64_t ret = field_u64(strstr(out, "level=\"1\""), "addr");
	/* sensors[] as the source initialises it; a struct sensor is 6 bytes
	 * (uint8_t, uint16_t, int16_t, uint8_t: AVR has no padding), and
	 * current = &sensors[presses % 3] = &sensors[1] */
	assert_string_equal(mi_eval(&m, "sizeof(struct sensor)", v, sizeof v), "6");
	assert_string_equal(mi_eval(&m, "sensors[0].offset", v, sizeof v), "-3");
	assert_string_equal(mi_eval(&m, "presses", v, sizeof v), "1 '\\\\001'");
	uint64_t base = strtoull(strstr(mi_eval(&m, "&sensors", v, sizeof v), "0x"), NULL, 16);
	assert_int_equal(strtoull(mi_eval(&m, "current", v, sizeof v), NULL, 16), base + 6);

	/* Back out of format_line: to the CALL in report, one instruction
	 * before the entry; a CALL is 4 bytes, 0x940e then the word address. */
	out = record_line(mi_do(&m, "-exec-finish --reverse"), "*stopped");
	assert_string_equal(field(out, "reason", v, sizeof v), "end-stepping-range");
	assert_string_equal(field(out, "func", v, sizeof v), "report");
	uint64_t call = field_u64(out, "addr");
	assert_int_equal(call, ret - 4);
	assert_int_equal(mi_icount(&m), at_fl - 1);
	snprintf(cmd, sizeof cmd, "-data-read-memory-bytes 0x%llx 4", (unsigned long long)call);
	char want[16];
	snprintf(want, sizeof want, "0e94%02x%02x", (unsigned)(fl / 2) & 0xff,
		 (unsigned)(fl / 2) >> 8);
	assert_string_equal(field(record_line(mi_do(&m, cmd), "^done"), "contents", v, sizeof v),
			    want);
	/* SREG, SP and PC (avr-gdb's registers 32, 33, 34) as the shell has
	 * them at that icount */
	shell_at(s, db, at_fl - 1, "info registers\n", sh, sizeof sh);
	out = record_line(mi_do(&m, "-data-list-register-values x 32 33 34"), "^done");
	assert_int_equal(field_u64(strstr(out, "number=\"32\""), "value"), shell_reg(sh, "SREG"));
	assert_int_equal(field_u64(strstr(out, "number=\"33\""), "value"), shell_reg(sh, "SP"));
	assert_int_equal(field_u64(strstr(out, "number=\"34\""), "value"), shell_reg(sh, "PC"));
	assert_int_equal(shell_reg(sh, "PC"), call);

	/* avrr.gdb's goto from an IDE's console: gdb's registers and frames
	 * are then those of the new position, as the shell has them there. */
	record_line(mi_do(&m, "-interpreter-exec console \"source gdb/avrr.gdb\""), "^done");
	out = mi_do(&m, "-interpreter-exec console \"goto irq 5\"");
	record_line(out, "^done");
	assert_non_null(strstr(out, "~\"#0  "));
	char sh5[16384];
	{
		char path[300];
		snprintf(path, sizeof path, "%s/g.shell", s->dir);
		test_write_text(path, "goto irq 5\ninfo registers\n");
		assert_int_equal(test_run(sh5, sizeof sh5, "%s shell '%s' -x '%s'", test_avrr(), db,
					  path), 0);
	}
	assert_int_equal(mi_icount(&m), strtoull(strstr(sh5, "icount=") + 7, NULL, 10));
	out = record_line(mi_do(&m, "-data-list-register-values x 32 33 34"), "^done");
	assert_int_equal(field_u64(strstr(out, "number=\"32\""), "value"), shell_reg(sh5, "SREG"));
	assert_int_equal(field_u64(strstr(out, "number=\"33\""), "value"), shell_reg(sh5, "SP"));
	assert_int_equal(field_u64(strstr(out, "number=\"34\""), "value"), shell_reg(sh5, "PC"));
	out = record_line(mi_do(&m, "-stack-list-frames"), "^done");
	assert_int_equal(field_u64(out, "addr"), shell_reg(sh5, "PC"));

	/* Nothing to stop at: back to the start, forward to the end.  gdb
	 * 13's MI carries no reason in this *stopped (its no-history reason
	 * goes to the console stream); a later gdb's may only say
	 * "no-history". */
	record_line(mi_do(&m, "-break-delete"), "^done");
	out = mi_do(&m, "-exec-continue --reverse");
	assert_non_null(strstr(out, "~\"\\nNo more reverse-execution history.\\n\""));
	out = record_line(out, "*stopped");
	if (strstr(out, "reason="))
		assert_string_equal(field(out, "reason", v, sizeof v), "no-history");
	assert_int_equal(field_u64(out, "addr"), 0);
	assert_int_equal(mi_icount(&m), 0);
	out = mi_do(&m, "-exec-continue");
	assert_non_null(strstr(out, "~\"\\nNo more reverse-execution history.\\n\""));
	out = record_line(out, "*stopped");
	if (strstr(out, "reason="))
		assert_string_equal(field(out, "reason", v, sizeof v), "no-history");
	assert_int_equal(mi_icount(&m), LENGTH);

	mi_stop(&m);
	int status;
	assert_int_equal(waitpid(server, &status, 0), server);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	alarm(600);  /* a hung avr-gdb fails the test rather than the run */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mi_session, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
