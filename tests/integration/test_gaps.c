/*
 * test_gaps.c — a cycle counter that outlasts the gaps between interrupts,
 * and the warning when one does not.
 *
 * int0_busy (ATmega328P at 16 MHz) takes a button press on INT0 every
 * 100 ms (± 10 ms) and spins in between on a loop whose state repeats
 * every 256 turns: only the cycle count tells its turns apart.  Recorded
 * for 10^8 instructions (about 11 s), the default configuration (32 bits
 * of cycles, a period of 2^32 cycles, 268 s here) replays it exactly, and
 * `cycles:16` (a period of 65,536 cycles, 4 ms) is fooled in the first gap
 * — a false loop positive, exit status 1 — and `record` said so: one
 * warning naming the stretch and a configuration that covers it.
 * int0_slow, the same at 20 MHz with presses 10 s apart, for 100 M cycles:
 * the default replays its 2 s gap before the first press, which 24 bits
 * (0.84 s) do not cover.  A run with no interrupt has no gap at all.
 */
#include "tests/testlib.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fingerprint/fingerprint.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

#define C16 "sel=cycles:16,ra=8,width=24"
#define C24 "sel=cycles:24,ra=8,width=32"

/* Records tests/firmware/FW.elf on FW.stim for `limit`, with the
 * fingerprints `fps`, to path; fails unless record exits 0. */

/* The one warning line `record` printed, or NULL. */
static const char *warning_in(const char *out)
{
	const char *w = strstr(out, "avrr record: warning: ");
	if (w)
		assert_null(strstr(w + 1, "avrr record: warning: "));
	return w;
}

static void test_busy_gaps_of_100ms(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "busy.db", "tests/firmware/int0_busy.elf "
		    "--stimuli tests/firmware/int0_busy.stim --instructions 100M "
		    "--fp 'default:" FP_DEFAULT_SPEC "' --fp 'c16:" C16 "'");
	/* The warning names cycles:16, the longest gap and a cover; not the
	 * default (it would add "(and 1 more configuration)"). */
	const char *w = warning_in(s->out);
	assert_non_null(w);
	long long from = test_sql_int(path, "SELECT gap_cycles_from FROM run");
	long long to = test_sql_int(path, "SELECT gap_cycles_to FROM run");
	long long gap = test_sql_int(path, "SELECT gap_cycles FROM run");
	/* Presses 80 to 120 ms apart, 40 to 60 ms for the first. */
	assert_in_range(gap, 80 * 16000, 120 * 16000 + 16);
	char want[512];
	snprintf(want, sizeof want, "avrr record: warning: c16:" C16 ": the interrupt-free stretch "
		 "from icount %lld to %lld lasts %lld cycles (%.3f s at 16000000 Hz), longer than "
		 "cycles:16 tells apart (2^16): a loop in it can replay as a false interrupt; "
		 "sel=cycles:21,ra=8,width=29 covers it\n", from, to, gap, gap / 16e6);
	assert_true(gap >= 1 << 20 && gap < 1 << 21);   /* hence cycles:21 */
	if (strncmp(w, want, strlen(want)))
		fail_msg("warning:\n%s\nwanted:\n%s", w, want);
	/* avrr info shows it; --json as a field. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info '%s'", test_avrr(), path), 0);
	assert_non_null(strstr(s->out, want + strlen("avrr record: ")));
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info '%s' --json", test_avrr(), path),
			 0);
	json_t *info = json_loads(s->out, 0, NULL);
	assert_non_null(info);
	want[strlen(want) - 1] = 0;
	assert_string_equal(test_json_str(info, "gap_warning"),
			    want + strlen("avrr record: warning: "));
	assert_int_equal(test_json_int(json_object_get(info, "longest_gap"), "cycles"), gap);
	long long irqs = test_json_int(info, "interrupts");
	json_decref(info);
	/* 10^8 instructions of about 1.75 cycles: some 11 s, 100 ms apart. */
	assert_in_range(irqs, 100, 120);

	/* The default replays it exactly. */
	json_t *o = test_replay_json(s, path, "--fp default", 0);
	assert_int_equal(test_json_int(o, "instructions"), 100000000);
	assert_int_equal(test_json_int(o, "interrupts_recorded"), irqs);
	assert_int_equal(test_json_int(o, "injected"), irqs);
	assert_int_equal(test_json_int(o, "correct"), irqs);
	assert_int_equal(test_json_int(o, "false_loop") + test_json_int(o, "false_ra") +
			 test_json_int(o, "missed"), 0);
	json_decref(o);
	/* cycles:16 stops in the first gap, before the first interrupt: the
	 * loop passes the same (PC, count mod 2^16) again. */
	o = test_replay_json(s, path, "--fp c16", 1);
	assert_int_equal(test_json_int(o, "injected"), 0);
	assert_int_equal(test_json_int(o, "false_loop"), 1);
	json_t *d = json_object_get(o, "divergence");
	assert_true(strncmp(test_json_str(d, "expected"), "interrupt 1 ", 12) == 0);
	assert_true(strncmp(test_json_str(d, "actual"), "a false loop positive", 21) == 0);
	assert_true(test_json_int(d, "icount") <
		    test_sql_int(path, "SELECT icount FROM interrupts WHERE idx = 1"));
	json_decref(o);
}

/* The default alone: no warning, by record or info. */
static void test_no_warning_for_the_default(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "d.db", "tests/firmware/int0_busy.elf "
		    "--stimuli tests/firmware/int0_busy.stim --cycles 17600000");
	assert_null(strstr(s->out, "warning"));
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info '%s' --json", test_avrr(), path),
			 0);
	json_t *info = json_loads(s->out, 0, NULL);
	assert_non_null(info);
	assert_true(json_is_null(json_object_get(info, "gap_warning")));
	assert_true(test_json_int(json_object_get(info, "longest_gap"), "cycles") > 1 << 20);
	json_decref(info);
}

static void test_seconds_apart_at_20mhz(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "slow.db", "tests/firmware/int0_slow.elf "
		    "--stimuli tests/firmware/int0_slow.stim --cycles 100M "
		    "--fp 'default:" FP_DEFAULT_SPEC "' --fp 'c24:" C24 "'");
	/* One press, at 2 s ± 100 ms: a gap of 40 M cycles from reset,
	 * past 2^24 and well within 2^32. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), 1);
	long long gap = test_sql_int(path, "SELECT gap_cycles FROM run");
	assert_in_range(gap, 38000000, 42000016);
	const char *w = warning_in(s->out);
	assert_non_null(w);
	assert_true(strncmp(w, "avrr record: warning: c24:" C24 ": ", 26 + strlen(C24) + 2) == 0);
	assert_null(strstr(w, "more configuration"));
	assert_non_null(strstr(w, "; sel=cycles:26,ra=6,width=32 covers it\n"));
	json_t *o = test_replay_json(s, path, "--fp default", 0);
	assert_int_equal(test_json_int(o, "correct"), 1);
	json_decref(o);
}

/* A run that no interrupt came in has no gap (a gap runs up to an
 * interrupt point): info says so, not "0 cycles (icount 0 to 0)", and its
 * JSON has null.  funcsheap's first 100 instructions: 147 cycles, 22
 * counted transfers, before its first interrupt. */
static void test_no_interrupt_no_gap(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "none.db", "traces/funcsheap.elf --instructions 100");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info '%s'", test_avrr(), path), 0);
	if (!strstr(s->out, "\nlongest gap   none: no interrupt in the whole run (147 cycles, 22 "
		    "counted transfers), so no point to tell apart\n"))
		fail_msg("info: %s", s->out);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info '%s' --json", test_avrr(), path),
			 0);
	json_t *info = json_loads(s->out, 0, NULL);
	assert_non_null(info);
	assert_int_equal(test_json_int(info, "interrupts"), 0);
	assert_true(json_is_null(json_object_get(info, "longest_gap")));
	json_decref(info);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_busy_gaps_of_100ms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_warning_for_the_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seconds_apart_at_20mhz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_interrupt_no_gap, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
