/*
 * test_extint.c — external and pin-change interrupts fire as the datasheet
 * says (sim/periph_extint.c), counted against the stimuli's own arithmetic.
 *
 *  - int0_busy (ATmega328P, INT0 on rising edges, PD2 at rest low): no
 *    INT0 before the first edge — simavr 1.6 alone fired 13,793 there —
 *    and then one per rising edge, each within its pulse's jitter window;
 *  - funcsheap (ATmega16, MCUCR = ISC01|ISC00): one INT0 per press;
 *  - pcint_rest: PCINT0 on the two changes of PB0, not on the two drives
 *    to the level it already has;
 *  - int0_level: INT0 in low-level mode still fires again and again while
 *    PD2 is low, and never while it is high.
 */
#include "tests/testlib.h"

#include <stdio.h>
#include <unistd.h>

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;


/* The pulses of `pin PB every P start T jitter J pulse W` (in cycles)
 * that surely start before cycle `end`, i.e. T + kP + J < end; the test
 * asserts that no pulse can start on either side of it (T + kP - J < end
 * <= T + kP + J), so the count is exact whatever the seed. */
static long long pulses_before(long long t, long long p, long long j, long long end)
{
	long long k = 0;
	while (t + k * p + j < end)
		k++;
	assert_false(t + k * p - j < end);
	return k;
}

/* int0_busy.stim at 16 MHz: pin D2 every 100ms start 50ms jitter 10ms. */
#define MS 16000LL
#define T0 (50 * MS)
#define P0 (100 * MS)
#define J0 (10 * MS)

static void test_no_int0_before_the_first_edge(void **state)
{
	scratch *s = *state;
	char path[256];
	/* 37.5 ms: the first press comes at 40 ms at the earliest. */
	test_record(s, path, sizeof path, "run.db", "tests/firmware/int0_busy.elf "
		    "--stimuli tests/firmware/int0_busy.stim --cycles 600000");
	assert_int_equal(pulses_before(T0, P0, J0, 600000), 0);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), 0);
}

static void test_one_int0_per_rising_edge(void **state)
{
	scratch *s = *state;
	char path[256], q[256];
	const long long end = 1100 * MS;
	test_record(s, path, sizeof path, "run.db", "tests/firmware/int0_busy.elf "
		    "--stimuli tests/firmware/int0_busy.stim --cycles 17600000");
	long long n = pulses_before(T0, P0, J0, end);
	assert_int_equal(n, 11);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), n);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector = 1"), n);
	/* The k-th within the k-th press's window: T + kP - J to T + kP + J,
	 * entered within a few cycles of the edge (an instruction, at most
	 * the 2 after SEI/RETI that simavr 1.6 runs). */
	for (long long k = 0; k < n; k++) {
		snprintf(q, sizeof q, "SELECT cycle FROM interrupts WHERE idx = %lld", k + 1);
		long long c = test_sql_int(path, q);
		assert_in_range(c, T0 + k * P0 - J0, T0 + k * P0 + J0 + 16);
	}
}

/* funcsheap.stim: pin D2 every 1ms start 1ms jitter 200us pulse 40us, at
 * 8 MHz; INT0 on rising edges by the ATmega16's MCUCR. */
static void test_int0_on_the_atmega16(void **state)
{
	scratch *s = *state;
	char path[256];
	const long long ms = 8000, end = 100 * ms + ms / 2;
	test_record(s, path, sizeof path, "run.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --cycles 804000");
	long long n = pulses_before(ms, ms, ms / 5, end);
	assert_int_equal(n, 100);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector = 1"), n);
	assert_true(test_sql_int(path, "SELECT min(cycle) FROM interrupts WHERE vector = 1") >=
		    ms - ms / 5);
}

static void test_pcint_only_on_changes(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "run.db", "tests/firmware/pcint_rest.elf "
		    "--stimuli tests/firmware/pcint_rest.stim --cycles 100000");
	/* PCINT0 is vector 3 on the ATmega328P; the changes at 2 and 4 ms. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), 2);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector = 3"), 2);
	assert_in_range(test_sql_int(path, "SELECT cycle FROM interrupts WHERE idx = 1"),
			2 * MS, 2 * MS + 16);
	assert_in_range(test_sql_int(path, "SELECT cycle FROM interrupts WHERE idx = 2"),
			4 * MS, 4 * MS + 16);
}

static void test_level_mode_while_low_only(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "run.db", "tests/firmware/int0_level.elf "
		    "--stimuli tests/firmware/int0_level.stim --cycles 64000");
	/* Low from reset to 1 ms and from 2 to 3 ms: interrupts in each; high
	 * from 1 to 2 ms and from 3 ms: none, once the ISR that was entered
	 * has run (a few dozen cycles). */
	assert_true(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE cycle < 16000") > 100);
	assert_true(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE cycle >= 32000 AND "
				 "cycle < 48000") > 100);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE (cycle >= 16000 "
				      "AND cycle < 32000) OR cycle >= 48000"), 0);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector != 1"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_int0_before_the_first_edge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_int0_per_rising_edge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_int0_on_the_atmega16, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pcint_only_on_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_mode_while_low_only, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
