/*
 * test_conformance_core.c — the AVR core's timing against the datasheet
 * (ATmega328P 7810D §6.7 "Reset and Interrupt Handling", §6.7.1
 * "Interrupt Response Time", §9 "Power Management and Sleep Modes", the
 * instruction set manual's cycle counts), on tests/chip/core_*.c:
 *
 *  - "the instruction following SEI will be executed before any pending
 *    interrupts" and after RETI "execute one more instruction before any
 *    pending interrupt is served";
 *  - "The interrupt execution response for all the enabled AVR
 *    interrupts is four clock cycles minimum" (five on the ATmega2560,
 *    whose PC is three bytes: 2549Q §7.8.1): the vector's JMP starts
 *    four cycles after the interrupt point;
 *  - cycles: OUT 1, SBI 2, JMP 3, RETI 4 (5 with a 3-byte PC), a skip 1
 *    not taken, 2 over a 1-word instruction, 3 over a 2-word one;
 *  - SLEEP with SE clear does nothing ("the SE bit must be written to
 *    logic one to make the MCU enter the sleep mode when the SLEEP
 *    instruction is executed").
 * A write's cycle is the storing instruction's first, as probe.h reports.
 */
#include "tests/testlib.h"

#include "tests/chip/probe.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

typedef unsigned long long ull;

enum { OUT = 1, SBI = 2, JMP = 3, RETI = 4, RESPONSE = 4 };

/* Two interrupts pending at SEI: the OUT after SEI runs, then compare A
 * is entered; after its RETI the next OUT runs, then the overflow. */
static void test_sei_and_reti_shadow_and_response(void **state)
{
	(void)state;
	probe *p = probe_open("tests/chip/core_irq.elf", "atmega328p", 16000000u);
	probe_watch(p, "GPIOR0", NULL);
	probe_run(p, 20000);
	probe_series *w = probe_writes(p, "GPIOR0");
	static const uint8_t values[] = { 1, 0x81, 2, 0x82, 3 };
	assert_int_equal(w->n, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(w->value[i], values[i]);
	uint64_t a = w->cycle[0];
	uint64_t compa = a + OUT, compa_sbi = compa + RESPONSE + JMP;
	uint64_t back = compa_sbi + SBI + RETI, ovf = back + OUT;
	uint64_t ovf_sbi = ovf + RESPONSE + JMP;
	uint64_t want[] = { a, compa_sbi, back, ovf_sbi, ovf_sbi + SBI + RETI };
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(w->cycle[i], want[i]);
	probe_series *e1 = probe_entries(p, "TIMER0_COMPA_vect");
	probe_series *e2 = probe_entries(p, "TIMER0_OVF_vect");
	assert_int_equal(e1->n, 1);
	assert_int_equal(e2->n, 1);
	assert_int_equal(e1->cycle[0], compa);
	assert_int_equal(e2->cycle[0], ovf);
	probe_close(p);
}

/* The ATmega2560: a five-cycle response and a five-cycle RETI. */
static void test_m2560_response_five_cycles(void **state)
{
	(void)state;
	probe *p = probe_open("tests/chip/core_m2560_irq.elf", "atmega2560", 16000000u);
	probe_watch(p, "GPIOR0", NULL);
	probe_run(p, 20000);
	probe_series *w = probe_writes(p, "GPIOR0");
	assert_int_equal(w->n, 3);
	assert_int_equal(w->value[0], 1);
	assert_int_equal(w->value[1], 0x81);
	assert_int_equal(w->value[2], 2);
	uint64_t a = w->cycle[0], sbi = a + OUT + 5 + JMP;
	assert_int_equal(w->cycle[1], sbi);
	assert_int_equal(w->cycle[2], sbi + SBI + 5);
	probe_close(p);
}

/* Each skip taken over one word lands on the word after it, in 2
 * cycles; over LDS, STS, JMP, CALL (2 words) in 3; not taken, 1. */
static void test_skips_over_adiw_sbiw_one_word(void **state)
{
	(void)state;
	probe *p = probe_open("tests/chip/core_skip.elf", "atmega328p", 16000000u);
	probe_watch(p, "GPIOR1", "GPIOR2", NULL);
	probe_run(p, 2000);
	probe_series *mark = probe_writes(p, "GPIOR1"), *out = probe_writes(p, "GPIOR2");
	assert_int_equal(mark->n, 13);
	assert_int_equal(out->n, 12);
	for (unsigned i = 0; i < 11; i++) {
		/* cases 6, 8, 9, 10 skip LDS, STS, JMP, CALL: 2 words */
		unsigned skip = i == 5 || i == 7 || i == 8 || i == 9 ? 3 : 2;
		assert_int_equal(out->value[i], 0x41 + i);
		/* marker OUT, LDI r24, the skip */
		assert_int_equal(out->cycle[i], mark->cycle[i] + OUT + 1 + skip);
	}
	/* not taken: the skip's 1 cycle, then the LDI's */
	assert_int_equal(out->value[11], 0x4d);
	assert_int_equal(out->cycle[11], mark->cycle[11] + OUT + 1 + 1 + 1);
	probe_close(p);
}

static void test_sleep_without_se_runs_on(void **state)
{
	(void)state;
	probe *p = probe_open("tests/chip/core_se.elf", "atmega328p", 16000000u);
	probe_watch(p, "GPIOR0", NULL);
	probe_run(p, 2000);
	probe_series *w = probe_writes(p, "GPIOR0");
	assert_int_equal(w->n, 2);
	assert_int_equal(w->value[1], 2);
	assert_int_equal(w->cycle[1], w->cycle[0] + OUT + 1);  /* SLEEP: 1 cycle */
	probe_close(p);
}

/* TOV0 every 256 cycles at clk/1 from the TCCR0B write (the prescaler
 * is bypassed): each poll sees it at most a poll loop (SLACK) after its
 * edge; cleared while pending, it is raised again, and the third is
 * entered once at SEI. */
static void test_flag_raised_again_after_clearing(void **state)
{
	(void)state;
	enum { SLACK = 8 };
	probe *p = probe_open("tests/chip/core_reraise.elf", "atmega328p", 16000000u);
	probe_watch(p, "TCCR0B", "GPIOR0", "GPIOR1", NULL);
	probe_run(p, 5000);
	uint64_t start = probe_writes(p, "TCCR0B")->cycle[0];
	probe_series *w = probe_writes(p, "GPIOR0");
	assert_int_equal(w->n, 2);
	for (unsigned i = 0; i < 2; i++) {
		uint64_t tov = start + 1 + 256 * (i + 1);  /* the STS's cycle, then 256 each */
		assert_true(w->cycle[i] >= tov && w->cycle[i] <= tov + SLACK);
	}
	assert_int_equal(probe_entries(p, "TIMER0_OVF_vect")->n, 1);
	assert_int_equal(probe_writes(p, "GPIOR1")->n, 1);
	probe_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sei_and_reti_shadow_and_response, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_m2560_response_five_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skips_over_adiw_sbiw_one_word, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_without_se_runs_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flag_raised_again_after_clearing, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
