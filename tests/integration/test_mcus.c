/*
 * test_mcus.c — firmware for other MCUs than the bundled ATmega16, built
 * from tests/firmware/ by make: what the chip does, the recording does.
 *
 *  - wdt_reset (ATmega328P): the watchdog in reset mode resets the chip
 *    every 16 ms; each reset is a logged event, a counter in .noinit goes
 *    out on PORTB at each boot, and the replay is exact.
 *  - sleep_forever: a sleep nothing can end stops the recording at once.
 *  - pwm_reserved: a timer mode nothing simulates is reported, once,
 *    naming the output compare pin it loses.
 *  - SIGTERM ends a long recording at once and leaves nothing behind.
 *  - A firmware for each of five MCUs (UART echo or sensor node, timer,
 *    ADC, pin change, watchdog, sleep, nesting): recorded without --fp,
 *    its input reads logged, and replayed exactly from the default
 *    configuration and from the full context with the cycle count.
 */
#include "tests/testlib.h"

#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;


static void test_watchdog_reset_replays(void **state)
{
	scratch *s = *state;
	char path[256], dev[300];
	test_record(s, path, sizeof path, "wdt_reset.db", "tests/firmware/wdt_reset.elf "
		    "--instructions 1M --fp 'full:sel=all,ra=16,width=64' "
		    "--fp 'default:sel=cycles:32,ra=0,width=32'");
	/* The power-on reset, then one per watchdog period. */
	long long resets = test_sql_int(path, "SELECT count(*) FROM events WHERE type = 1");
	assert_true(resets >= 4);
	/* A constant period between watchdog resets (the first one also counts
	 * the few cycles of boot before the firmware enables the watchdog). */
	assert_int_equal(test_sql_int(path, "SELECT count(DISTINCT c2 - c1) FROM (SELECT cycle c2, "
				 "lag(cycle) OVER (ORDER BY seq) c1 FROM events WHERE type = 1 AND "
				 "seq > 1) WHERE c1 IS NOT NULL"), 1);
	/* 16 ms at 16 MHz, give or take the watchdog's own rounding. */
	long long period = test_sql_int(path, "SELECT max(cycle) - min(cycle) FROM (SELECT cycle FROM "
				   "events WHERE type = 1 AND seq > 1 ORDER BY seq LIMIT 2)");
	assert_true(period > 250000 && period < 262000);
	/* Each boot writes its count, kept in .noinit, to PORTB (0x25): 1, 2, ... */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 5 AND addr = 37"),
			 resets);
	assert_int_equal(test_sql_int(path, "SELECT max(value) FROM events WHERE type = 5 AND addr = 37"),
			 resets);
	/* And the ISR it interrupted is abandoned, as on the chip: the replay
	 * re-creates all of it, from the default and from the full context. */
	long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
	assert_true(irqs > 50);
	snprintf(dev, sizeof dev, "%s/dev.db", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s strip '%s' -o '%s'", test_avrr(), path,
				  dev), 0);
	const char *runs[][2] = { { path, "default" }, { path, "full" }, { dev, "default" } };
	for (size_t i = 0; i < 3; i++) {
		int rc = test_run(s->out, sizeof s->out, "%s replay '%s' --fp %s", test_avrr(),
				  runs[i][0], runs[i][1]);
		char want[64];
		snprintf(want, sizeof want, "injected             %lld\n", irqs);
		if (rc || !strstr(s->out, want) || !strstr(s->out, "diverged             no"))
			fail_msg("replay %s --fp %s: status %d\n%s", runs[i][0], runs[i][1], rc, s->out);
	}
	/* The shell lists the resets among the events. */
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'goto 400000\\ninfo events\\n' | "
				  "%s shell '%s'", test_avrr(), path), 0);
	if (!strstr(s->out, "reset"))
		fail_msg("no reset in info events:\n%s", s->out);
}

static void test_sleep_forever_stops(void **state)
{
	scratch *s = *state;
	char path[256];
	time_t t0 = time(NULL);
	test_record(s, path, sizeof path, "sleep_forever.db", "tests/firmware/sleep_forever.elf "
		    "--instructions 1000000");
	assert_true(time(NULL) - t0 < 10);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info '%s'", test_avrr(), path), 0);
	if (!strstr(s->out, "stopped by    asleep\n"))
		fail_msg("%s", s->out);
	long long n = test_sql_int(path, "SELECT instructions FROM run");
	assert_true(n > 0 && n < 100);
	/* --cycles too, and the replay ends where the recording did. */
	test_record(s, path, sizeof path, "sleep_forever.db", "tests/firmware/sleep_forever.elf "
		    "--cycles 1G");
	assert_int_equal(test_sql_int(path, "SELECT instructions FROM run"), n);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay '%s'", test_avrr(), path), 0);
}

static void test_missing_timer_mode_is_reported(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "pwm_reserved.db", "tests/firmware/pwm_reserved.elf "
		    "--instructions 2M");
	const char *want = "avrr record: warning: timer 1: TCCR1A/TCCR1B select WGM mode 13, "
			   "which is reserved on the atmega328p: the timer counts as in normal mode; "
			   "lost output: OC1A (PB1)\n";
	const char *p = strstr(s->out, want);
	if (!p || strstr(p + strlen(want), "warning"))
		fail_msg("expected the warning once:\n%s", s->out);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM run"), 1);
}

static void test_sigterm_ends_record_at_once(void **state)
{
	scratch *s = *state;
	time_t t0 = time(NULL);
	int rc = test_run(s->out, sizeof s->out,
			  "%s record traces/funcsheap.elf --stimuli traces/funcsheap.stim "
			  "--instructions 2G -o '%s/big.db' & p=$!; sleep 0.3; kill -TERM $p; wait $p",
			  test_avrr(), s->dir);
	assert_int_equal(rc, 143);
	assert_true(time(NULL) - t0 < 5);
	assert_int_equal(test_run(s->out, sizeof s->out, "ls -A '%s'", s->dir), 0);
	assert_string_equal(s->out, "");
}

static void test_five_mcus_replay_exactly(void **state)
{
	scratch *s = *state;
	static const char *const fws[] = { "atmega328p", "atmega88", "atmega644", "atmega2560",
					   "attiny85" };
	for (size_t f = 0; f < sizeof fws / sizeof *fws; f++) {
		char path[256], name[64], want[64];
		snprintf(name, sizeof name, "%s.db", fws[f]);
		test_record(s, path, sizeof path, name, "tests/firmware/%s.elf "
			    "--stimuli tests/firmware/%s.stim --instructions 1M", fws[f], fws[f]);
		if (test_run(s->out, sizeof s->out, "%s fingerprint '%s' --fp "
			     "'full:sel=all+cycles:16,ra=16,width=64'", test_avrr(), path))
			fail_msg("fingerprint %s: %s", fws[f], s->out);
		/* The MCU came from the ELF; the default configuration was stored. */
		char q[128];
		snprintf(q, sizeof q, "SELECT count(*) FROM run WHERE mcu = '%s'", fws[f]);
		assert_int_equal(test_sql_int(path, q), 1);
		assert_int_equal(test_sql_int(path, "SELECT count(*) FROM fp_configs WHERE name = 'default'"),
				 1);
		long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
		long long vectors = test_sql_int(path, "SELECT count(DISTINCT vector) FROM interrupts");
		long long reads = test_sql_int(path, "SELECT count(*) FROM events WHERE type = 4");
		if (irqs < 200 || vectors < 2 || reads == 0)
			fail_msg("%s: %lld interrupts of %lld vectors, %lld input reads", fws[f], irqs,
				 vectors, reads);
		/* An echo: what went out of UDR0 (0xC6) is what came in, in order. */
		if (strcmp(fws[f], "attiny85")) {
			char in[8192], out[8192];
			assert_int_equal(test_run(in, sizeof in, "sqlite3 '%s' \"SELECT value FROM "
						  "events WHERE type = 4 AND addr = 198 ORDER BY seq\"",
						  path), 0);
			assert_int_equal(test_run(out, sizeof out, "sqlite3 '%s' \"SELECT value FROM "
						  "events WHERE type = 5 AND addr = 198 ORDER BY seq\"",
						  path), 0);
			if (strlen(out) < 200 || strncmp(in, out, strlen(out)))
				fail_msg("%s: echoed\n%.200s\nof\n%.200s", fws[f], out, in);
		}
		snprintf(want, sizeof want, "injected             %lld\n", irqs);
		static const char *const cfgs[] = { "default", "full" };
		for (int c = 0; c < 2; c++) {
			int rc = test_run(s->out, sizeof s->out, "%s replay '%s' --fp %s", test_avrr(),
					  path, cfgs[c]);
			if (rc || !strstr(s->out, want) || !strstr(s->out, "missed               0\n"))
				fail_msg("%s --fp %s: status %d\n%s", fws[f], cfgs[c], rc, s->out);
		}
		unlink(path);
	}
}

/* A 22-bit PC pushes 3 bytes: the backtrace reads them so. */
static void test_atmega2560_backtrace(void **state)
{
	scratch *s = *state;
	char path[256], want[128];
	test_record(s, path, sizeof path, "atmega2560.db", "tests/firmware/atmega2560.elf "
		    "--stimuli tests/firmware/atmega2560.stim --instructions 200k");
	long long icount = test_sql_int(path, "SELECT min(icount) FROM interrupts WHERE vector = 21");
	long long ra = test_sql_int(path, "SELECT ra FROM interrupts WHERE vector = 21 ORDER BY idx "
			       "LIMIT 1");
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'break on_tick\\ncontinue\\n"
				  "where\\n' | %s shell '%s'", test_avrr(), path), 0);
	snprintf(want, sizeof want, "interrupt 21 (TIMER0_COMPA_vect) taken at 0x%04llx main+", ra);
	if (!strstr(s->out, want))
		fail_msg("no '%s' in:\n%s", want, s->out);
	snprintf(want, sizeof want, "[icount %lld]", icount);
	if (!strstr(s->out, want))
		fail_msg("no '%s' in:\n%s", want, s->out);
	/* `break irq` stops where `info irqs` says the interrupt came. */
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'break irq 21\\ncontinue\\n' | "
				  "%s shell '%s'", test_avrr(), path), 0);
	snprintf(want, sizeof want, "Breakpoint 1, interrupt TIMER0_COMPA_vect\nicount=%lld pc=0x", icount);
	if (!strstr(s->out, want))
		fail_msg("no '%s' in:\n%s", want, s->out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_watchdog_reset_replays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_forever_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_timer_mode_is_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigterm_ends_record_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_five_mcus_replay_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atmega2560_backtrace, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
