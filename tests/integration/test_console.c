/*
 * test_console.c — what avrr says about a firmware's debug info and about
 * serving beyond loopback, and the firmware's UART output everywhere it
 * shows: the record console, `export --uart`, the shell's `info uart`, and
 * the SQL examples of docs/schema.md run by the real sqlite3.
 *
 * The truth for UART output is independent of avrr: the fixed messages of
 * tests/firmware/uart_hello.c (repeated here), the line format and sensor
 * order sensors.c prints, and adcapp's first line.
 */
#include "tests/testlib.h"

#include <regex.h>
#include <unistd.h>

/* tests/firmware/uart_hello.c's messages, without the C strings' NULs. */
static const char MSG0[] = "hello from uart0\r\nsecond\tline \\ \033[0m\xff!\r\ntail";
static const char MSG1[] = "uart1 says hi\n";
#define STABS_WARNING(cmd)                                                               \
	"avrr " cmd ": warning: tests/firmware/adcapp_stabs.elf has stabs debug info, which " \
	"avr-gdb misreads (32-bit variables, ISR backtraces); rebuild with -gdwarf-4\n"

static void test_debug_info_warnings(void **state)
{
	test_scratch *s = *state;
	char err[512];
	snprintf(err, sizeof err, "%s/err", s->dir);
	/* stabs: one line on stderr; stdout keeps its JSON clean */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s record tests/firmware/adcapp_stabs.elf "
				  "--instructions 20k --json -o %s/stabs.db 2> %s", test_avrr(),
				  s->dir, err), 0);
	json_error_t je;
	json_t *j = json_loads(s->out, 0, &je);
	assert_non_null(j);
	json_decref(j);
	char *e = test_slurp(err, NULL);
	assert_string_equal(e, STABS_WARNING("record"));
	free(e);
	/* DWARF, the bundled build: nothing said */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s record traces/adcapp.elf "
				  "--instructions 20k -o %s/dwarf.db 2>&1 >/dev/null", test_avrr(),
				  s->dir), 0);
	assert_string_equal(s->out, "");
	/* no -g at all: avr-libc's own DWARF unit describes no code */
	assert_int_equal(test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega16 "
				  "-DF_CPU=8000000UL -Os -I/usr/include/simavr -Wl,--section-start="
				  ".mmcu=0x910000 -o %s/nog.elf traces/adcapp.c && cd %s && %s%s record "
				  "nog.elf --instructions 20k -o nog.db 2>&1 >/dev/null", s->dir, s->dir,
				  test_avrr()[0] == '/' ? "" : "$OLDPWD/", test_avrr()), 0);
	assert_string_equal(s->out, "avrr record: warning: nog.elf has no DWARF debug info for its "
			    "code, so debuggers show no source lines, types or locals; rebuild "
			    "with -gdwarf-4\n");
	/* the shell: once, on stderr, whatever the commands */
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'stepi\\nstepi\\n' | %s shell "
				  "%s/stabs.db 2> %s", test_avrr(), s->dir, err), 0);
	assert_null(strstr(s->out, "warning"));
	e = test_slurp(err, NULL);
	assert_string_equal(e, STABS_WARNING("shell"));
	free(e);
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'stepi\\n' | %s shell "
				  "%s/dwarf.db 2>&1 >/dev/null", test_avrr(), s->dir), 0);
	assert_string_equal(s->out, "");
	/* serve (and gdb, which shares its engine): once, before the address */
	test_run(s->out, sizeof s->out, "timeout 3 %s serve %s/stabs.db --port 0 2>&1 >/dev/null",
		 test_avrr(), s->dir);
	assert_true(!strncmp(s->out, STABS_WARNING("serve"), strlen(STABS_WARNING("serve"))));
	assert_null(strstr(strchr(s->out, '\n') + 1, "warning"));
	assert_non_null(strstr(s->out, "stabs.db on 127.0.0.1:"));
	if (test_run(s->out, sizeof s->out, "command -v avr-gdb") == 0) {
		assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb %s/stabs.db -batch -ex "
					  "'monitor when' 2> %s", test_avrr(), s->dir, err), 0);
		/* avr-gdb -batch prints monitor output on stderr too */
		e = test_slurp(err, NULL);
		assert_true(!strncmp(e, STABS_WARNING("gdb"), strlen(STABS_WARNING("gdb"))));
		assert_string_equal(e + strlen(STABS_WARNING("gdb")), "icount=0 pc=0x0000 __vectors\n");
		free(e);
	}
}

static void test_serve_beyond_loopback(void **state)
{
	test_scratch *s = *state;
	char db[300];
	test_record(s, db, sizeof db, "a.db", "traces/adcapp.elf --instructions 20k");
	/* bound on every address, then ended: no traffic goes anywhere */
	test_run(s->out, sizeof s->out, "timeout 3 %s serve %s/a.db --host 0.0.0.0 --port 0 "
		 "2>&1 >/dev/null", test_avrr(), s->dir);
	regex_t re;
	assert_int_equal(regcomp(&re, "^avrr serve: warning: 0\\.0\\.0\\.0:([0-9]+) is reachable "
				 "beyond this machine: anyone who connects can read the recording "
				 "and its firmware, with no authentication; to debug from another "
				 "machine, serve on 127\\.0\\.0\\.1 and tunnel: ssh -L \\1:localhost:\\1 "
				 "THIS-HOST\navrr serve: [^\n]*a\\.db on 0\\.0\\.0\\.0:\\1;",
				 REG_EXTENDED), 0);
	if (regexec(&re, s->out, 0, NULL, 0))
		fail_msg("no warning in: %s", s->out);
	regfree(&re);
	assert_null(strstr(strstr(s->out, "\n") + 1, "warning"));
	/* loopback, by address or name: nothing said */
	const char *hosts[] = { "127.0.0.1", "localhost", "127.0.0.2" };
	for (unsigned i = 0; i < 3; i++) {
		test_run(s->out, sizeof s->out, "timeout 2 %s serve %s/a.db --host %s --port 0 "
			 "2>&1 >/dev/null", test_avrr(), s->dir, hosts[i]);
		assert_null(strstr(s->out, "warning"));
		/* the line it serves with, of this host: not just any " on " */
		char want[300], remote[64];
		snprintf(want, sizeof want, "avrr serve: %s/a.db on %s:", s->dir, hosts[i]);
		if (strncmp(s->out, want, strlen(want)))
			fail_msg("want '%s...', got: %s", want, s->out);
		unsigned port = 0;
		assert_int_equal(sscanf(s->out + strlen(want), "%u", &port), 1);
		assert_true(port > 0);
		snprintf(remote, sizeof remote, ":%u; in avr-gdb: target remote %s:%u\n", port,
			 hosts[i], port);
		assert_non_null(strstr(s->out, remote));
	}
}

static void test_record_console(void **state)
{
	test_scratch *s = *state;
	/* forced: every line as it ends, per UART, escaped as gdb escapes;
	 * the unended last line at the end of the run */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s record tests/firmware/uart_hello.elf "
				  "-o %s/h.db --console 2>&1 >/dev/null", test_avrr(), s->dir), 0);
	assert_string_equal(s->out, "uart0: hello from uart0\n"
				    "uart0: second\\tline \\\\ \\033[0m\\377!\n"
				    "uart1: uart1 says hi\n"
				    "uart0: tail\n");
	/* stderr not a terminal: nothing; --quiet wins over --console */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s record tests/firmware/uart_hello.elf "
				  "-o %s/h.db 2>&1 >/dev/null", test_avrr(), s->dir), 0);
	assert_string_equal(s->out, "");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s record tests/firmware/uart_hello.elf "
				  "-o %s/h.db --console --quiet 2>&1 >/dev/null", test_avrr(), s->dir), 0);
	assert_string_equal(s->out, "");
	/* --json: the console stays on stderr, stdout is the JSON alone */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s record tests/firmware/uart_hello.elf "
				  "-o %s/h.db --console --json 2>/dev/null", test_avrr(), s->dir), 0);
	json_error_t je;
	json_t *j = json_loads(s->out, 0, &je);
	assert_non_null(j);
	assert_string_equal(test_json_str(j, "stop_reason"), "cpu-done");
	json_decref(j);
	/* a terminal (script(1) gives one): on by default, and the summary too */
	if (test_run(s->out, sizeof s->out, "command -v script") == 0) {
		assert_int_equal(test_run(s->out, sizeof s->out, "script -qec '%s record "
					  "tests/firmware/uart_hello.elf -o %s/h.db' /dev/null",
					  test_avrr(), s->dir), 0);
		assert_non_null(strstr(s->out, "uart0: hello from uart0\r\n"));
		assert_non_null(strstr(s->out, "uart1: uart1 says hi\r\n"));
		assert_non_null(strstr(s->out, "cpu-done"));
	}
}

static void test_export_uart(void **state)
{
	test_scratch *s = *state;
	char path[300];
	size_t len;
	test_record(s, path, sizeof path, "h.db", "tests/firmware/uart_hello.elf");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/h.db --uart 0 -o %s/u0",
				  test_avrr(), s->dir, s->dir), 0);
	snprintf(path, sizeof path, "%s/u0", s->dir);
	char *b = test_slurp(path, &len);
	assert_int_equal(len, sizeof MSG0 - 1);
	assert_memory_equal(b, MSG0, len);
	free(b);
	char want[400];
	snprintf(want, sizeof want, "%s/u0: %zu bytes sent on UART0 (UDR0)\n", s->dir,
		 sizeof MSG0 - 1);
	assert_string_equal(s->out, want);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/h.db --uart 1 -o - > %s/u1",
				  test_avrr(), s->dir, s->dir), 0);
	snprintf(path, sizeof path, "%s/u1", s->dir);
	b = test_slurp(path, &len);
	assert_string_equal(b, MSG1);
	free(b);
	/* UART2 exists and sent nothing: an empty file */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/h.db --uart 2 -o %s/u2 && "
				  "wc -c < %s/u2", test_avrr(), s->dir, s->dir, s->dir), 0);
	assert_non_null(strstr(s->out, "0 bytes sent on UART2 (UDR2)\n0\n"));
	/* bad input: one line, exit 2, no file */
	test_record(s, path, sizeof path, "a.db", "traces/adcapp.elf --instructions 20k");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/a.db --uart 1 -o %s/no",
				  test_avrr(), s->dir, s->dir), 2);
	assert_string_equal(s->out, "avrr export: --uart 1: the atmega16 has no UART 1\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/a.db --uart 4 -o %s/no",
				  test_avrr(), s->dir, s->dir), 2);
	assert_string_equal(s->out, "avrr export: --uart 4: no AVR has a UART 4 (0..3)\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/a.db --uart 0",
				  test_avrr(), s->dir), 2);
	assert_int_equal(test_run(s->out, sizeof s->out, "ls %s/no", s->dir), 2);
}

/* sensors.c reports each button press as "S<id/10>=<value>\n", the sensor
 * after the press: press p reports sensors[p % 3], ids 10, 20, 30. */
static void test_export_uart_sensors(void **state)
{
	test_scratch *s = *state;
	char path[300];
	test_record(s, path, sizeof path, "s.db", "tests/firmware/sensors.elf "
		    "--stimuli tests/firmware/sensors.stim --instructions 3M");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/s.db --uart 0 -o %s/s.txt",
				  test_avrr(), s->dir, s->dir), 0);
	snprintf(path, sizeof path, "%s/s.txt", s->dir);
	char *b = test_slurp(path, NULL);
	char *last = strrchr(b, '\n');  /* the run may end inside a line */
	assert_non_null(last);
	last[1] = 0;
	regex_t re;
	assert_int_equal(regcomp(&re, "^S([123])=[0-9]{1,5}$", REG_EXTENDED), 0);
	unsigned lines = 0;
	char *save = NULL;
	for (char *l = strtok_r(b, "\n", &save); l; l = strtok_r(NULL, "\n", &save), lines++) {
		regmatch_t m[2];
		if (regexec(&re, l, 2, m, 0))
			fail_msg("line %u: '%s'", lines + 1, l);
		assert_int_equal(l[1] - '0', (int)((lines + 1) % 3) + 1);
	}
	regfree(&re);
	free(b);
	/* a press every 5 ms +- 1 in the 187.5 ms of 3M instructions at 16 MHz
	 * (about one instruction a cycle): some thirty lines */
	assert_in_range(lines, 25, 45);
}

/* info uart at a position: the bytes the instructions before it sent. */
static void test_info_uart(void **state)
{
	test_scratch *s = *state;
	char db[300];
	test_record(s, db, sizeof db, "h.db", "tests/firmware/uart_hello.elf");
	/* where the 5th byte went out on UART0 (0x800 + UDR0 0xc6) */
	long long at = test_sql_int(db, "SELECT icount FROM events WHERE type = 5 AND addr = 198 "
				    "ORDER BY seq LIMIT 1 OFFSET 4");
	assert_true(at > 0);
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'info uart\\ngoto %lld\\ninfo uart 0\\n"
				  "stepi\\ninfo uart 0\\ninfo uart 1\\ninfo uart 3\\ninfo uart 4\\n' | "
				  "%s shell %s", at, test_avrr(), db), 0);
	char want[2048];
	snprintf(want, sizeof want,
		 "No UART output before icount 0.\n"
		 "icount=%lld pc=",
		 at);
	assert_true(!strncmp(s->out, want, strlen(want)));
	snprintf(want, sizeof want,
		 "UART0 (UDR0) sent 4 bytes before icount %lld:\nhell\n", at);
	assert_non_null(strstr(s->out, want));
	snprintf(want, sizeof want,
		 "UART0 (UDR0) sent 5 bytes before icount %lld:\nhello\n"
		 "UART1 (UDR1) sent 0 bytes before icount %lld.\n"
		 "UART3 (UDR3) sent 0 bytes before icount %lld.\n"
		 "usage: info uart [N], N from 0 to 3\n", at + 1, at + 1, at + 1);
	assert_non_null(strstr(s->out, want));
	/* at the end: every line of both, escaped, UART0's unended one too */
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'continue\\ninfo uart\\n' | "
				  "%s shell %s", test_avrr(), db), 0);
	assert_non_null(strstr(s->out, "End of recording.\n"));
	snprintf(want, sizeof want, "UART0 (UDR0) sent %zu bytes before icount ", sizeof MSG0 - 1);
	assert_non_null(strstr(s->out, want));
	snprintf(want, sizeof want, ":\nhello from uart0\nsecond\\tline \\\\ \\033[0m\\377!\n"
		 "tail\nUART1 (UDR1) sent %zu bytes before icount ", sizeof MSG1 - 1);
	assert_non_null(strstr(s->out, want));
	assert_non_null(strstr(s->out, ":\nuart1 says hi\n"));
	/* the same from avr-gdb, one byte later than above */
	if (test_run(s->out, sizeof s->out, "command -v avr-gdb") == 0) {
		assert_int_equal(test_run(s->out, sizeof s->out, "%s gdb %s -batch -ex 'monitor goto "
					  "%lld' -ex 'monitor uart 0' -ex 'monitor uart 9' 2>&1",
					  test_avrr(), db, at + 1), 0);
		snprintf(want, sizeof want, "UART0 (UDR0) sent 5 bytes before icount %lld:\nhello\n"
			 "usage: monitor uart [N], N from 0 to 3\n", at + 1);
		assert_non_null(strstr(s->out, want));
	}
}

/* Every ```sql block of docs/schema.md, run by sqlite3 on a fresh
 * recording of adcapp: no errors, and the UART one gives the text. */
static void test_schema_examples(void **state)
{
	test_scratch *s = *state;
	char db[300];
	test_record(s, db, sizeof db, "a.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 2M");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export %s/a.db --uart 0 -o %s/sent",
				  test_avrr(), s->dir, s->dir), 0);
	char path[300];
	size_t sent_len;
	snprintf(path, sizeof path, "%s/sent", s->dir);
	char *sent = test_slurp(path, &sent_len);
	assert_true(!strncmp(sent, "adcapp ready\r\nD,1,", 18) ||
		    !strncmp(sent, "adcapp ready\r\n# n=0 ", 20));
	assert_true(sent_len > 100);
	char *doc = test_slurp("docs/schema.md", NULL);
	unsigned blocks = 0, uart = 0;
	for (char *p = strstr(doc, "\n```sql\n"); p; p = strstr(p, "\n```sql\n")) {
		p += 8;
		char *end = strstr(p, "\n```\n");
		assert_non_null(end);
		snprintf(path, sizeof path, "%s/q%u.sql", s->dir, blocks);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fwrite(p, 1, (size_t)(end - p) + 1, f);
		fclose(f);
		char cmd[1200];
		snprintf(cmd, sizeof cmd, "sqlite3 -bail %s/a.db < %s/q%u.sql > %s/r%u 2> %s/e%u; "
			 "echo $?", s->dir, s->dir, blocks, s->dir, blocks, s->dir, blocks);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s", cmd), 0);
		if (strcmp(s->out, "0\n"))
			fail_msg("block %u exits %s", blocks, s->out);
		snprintf(path, sizeof path, "%s/e%u", s->dir, blocks);
		char *e = test_slurp(path, NULL);
		if (*e)
			fail_msg("block %u: %s", blocks, e);
		free(e);
		snprintf(path, sizeof path, "%s/r%u", s->dir, blocks);
		size_t rlen;
		char *r = test_slurp(path, &rlen);
		assert_true(rlen > 0);
		if (!strncmp(p, "-- uart output", 14)) {
			/* the text, then sqlite3's row end */
			assert_int_equal(rlen, sent_len + 1);
			assert_memory_equal(r, sent, sent_len);
			uart++;
		}
		free(r);
		blocks++;
		p = end;
	}
	assert_int_equal(uart, 1);
	assert_true(blocks >= 4);
	free(doc);
	free(sent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_debug_info_warnings, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_serve_beyond_loopback, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_record_console, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_export_uart, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_export_uart_sensors, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_info_uart, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_schema_examples, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
