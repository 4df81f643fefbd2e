/*
 * test_vcd_pins.c — `avrr export --vcd` traces the pins the firmware
 * drives, with the datasheet's timing to the cycle.  Each VCD is first
 * read by GTKWave's own converter (vcd2fst must accept it), then parsed
 * here: a pin's edges, in ns at 16 MHz, go back to cycles exactly (a
 * cycle is 62.5 ns, the file's ns are floor(cycle * 62.5)).
 *
 *  - pin_toggle (ATmega328P): Timer 1 CTC interrupts every (999+1)*8 =
 *    8000 cycles; its ISR toggles PB5 by PINB = _BV(PB5) (OUT, 1 cycle)
 *    and PB0 by an SBI on PINB.  Every half-period of both is 8000 cycles,
 *    one edge per recorded interrupt, PB0's a cycle after PB5's; and the
 *    SBI toggles PB0 alone (simavr 1.6's read-modify-write would toggle
 *    PB5 back whenever it read 1).
 *  - pwm_fast (ATmega328P): Timer 0 fast PWM at clk/8, period 256*8 =
 *    2048 cycles: OC0A non-inverting with OCR0A = 63 is high (63+1)*8 =
 *    512 cycles, OC0B inverting with OCR0B = 191 low (191+1)*8 = 1536,
 *    both starting at BOTTOM together; Timer 1 fast PWM 8-bit at clk/64,
 *    OC1A with OCR1A = 31: period 256*64 = 16384, high (31+1)*64 = 2048;
 *    Timer 2 CTC (OCR2A = 99, clk/32) toggles OC2A and OC2B every
 *    (99+1)*32 = 3200 cycles, OC2B (OCR2B = 49) (99-49)*32 = 1600 cycles
 *    before OC2A; main's PORTD writes (PD7) move none of them.
 */
#include "tests/testlib.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

#define FREQ 16000000ull
#define MAX_EDGES 4096

/* One pin's waveform: its changes after the reset values, in cycles. */
typedef struct wave {
	char name[8];
	char id[8];
	int declared;
	int reset;                  /* '0', '1' or 'z' */
	unsigned n;
	uint64_t cycle[MAX_EDGES];
	char level[MAX_EDGES];
} wave;

static uint64_t ns_to_cycle(uint64_t ns)
{
	return (ns * FREQ + 999999999ull) / 1000000000ull;
}


/* Exports db as a VCD, checks GTKWave converts it, and reads the waves of
 * the pins named (PB5 ...) under pins.portX. */
static void export(scratch *s, const char *db, wave *w, unsigned nw)
{
	char vcd[300], fst[300];
	snprintf(vcd, sizeof vcd, "%s/run.vcd", s->dir);
	snprintf(fst, sizeof fst, "%s/run.fst", s->dir);
	if (test_run(s->out, sizeof s->out, "%s export '%s' --vcd '%s'", test_avrr(), db, vcd))
		fail_msg("export: %s", s->out);
	assert_int_equal(test_run(s->out, sizeof s->out, "vcd2fst '%s' '%s'", vcd, fst), 0);
	FILE *f = fopen(vcd, "r");
	assert_non_null(f);
	char line[512], scope[4][64];
	int depth = 0, defs = 1, dump = 0;
	uint64_t t = 0;
	while (fgets(line, sizeof line, f)) {
		char name[64], id[8];
		line[strcspn(line, "\n")] = 0;
		if (defs) {
			if (sscanf(line, "$scope module %31s $end", name) == 1 && depth < 4)
				snprintf(scope[depth++], sizeof scope[0], "%s", name);
			else if (!strcmp(line, "$upscope $end"))
				depth--;
			else if (!strcmp(line, "$enddefinitions $end"))
				defs = 0;
			else if (sscanf(line, "$var wire 1 %7s %63s $end", id, name) == 2 && depth == 3 &&
				 !strcmp(scope[1], "pins"))
				for (unsigned i = 0; i < nw; i++)
					if (!strcmp(name, w[i].name) && scope[2][4] == name[1] &&
					    !strncmp(scope[2], "port", 4)) {
						snprintf(w[i].id, sizeof w[i].id, "%s", id);
						w[i].declared = 1;
					}
			continue;
		}
		if (line[0] == '#') {
			uint64_t next = strtoull(line + 1, NULL, 10);
			assert_true(next >= t);  /* time never goes back */
			t = next;
		} else if (!strcmp(line, "$dumpvars")) {
			dump = 1;
		} else if (!strcmp(line, "$end")) {
			dump = 0;
		} else if (strchr("01zx", line[0]) && line[0]) {
			for (unsigned i = 0; i < nw; i++) {
				if (!w[i].declared || strcmp(line + 1, w[i].id))
					continue;
				if (dump) {
					w[i].reset = line[0];
				} else {
					assert_true(w[i].n < MAX_EDGES);
					w[i].cycle[w[i].n] = ns_to_cycle(t);
					w[i].level[w[i].n++] = line[0];
				}
			}
		}
	}
	fclose(f);
	for (unsigned i = 0; i < nw; i++)
		if (!w[i].declared)
			fail_msg("pin %s is not in the VCD", w[i].name);
}

/* Checks that from change `from` on the pin alternates high and low, each
 * high lasting `high` cycles and each low `low` (the first level given). */
static void assert_alternates(const wave *w, unsigned from, char first, uint64_t high,
			      uint64_t low)
{
	assert_true(w->n > from + 4);
	for (unsigned i = from; i < w->n; i++) {
		char want = (i - from) % 2 ? (first == '1' ? '0' : '1') : first;
		if (w->level[i] != want)
			fail_msg("%s: change %u is to %c, not %c", w->name, i, w->level[i], want);
		if (i == from)
			continue;
		uint64_t d = w->cycle[i] - w->cycle[i - 1];
		uint64_t expect = w->level[i - 1] == '1' ? high : low;
		if (d != expect)
			fail_msg("%s: change %u at cycle %llu, %llu after the last; expected %llu",
				 w->name, i, (unsigned long long)w->cycle[i], (unsigned long long)d,
				 (unsigned long long)expect);
	}
}

static void test_pinb_toggles(void **state)
{
	scratch *s = *state;
	char db[256];
	test_record(s, db, sizeof db, "run.db", "tests/firmware/pin_toggle.elf --instructions 200k");
	static wave w[2] = { { .name = "PB5" }, { .name = "PB0" } };
	export(s, db, w, 2);
	long long irqs = test_sql_int(db, "SELECT count(*) FROM interrupts");
	assert_true(irqs > 20);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(w[i].reset, 'z');       /* an input at reset */
		assert_int_equal(w[i].level[0], '0');    /* DDRB makes it an output, low */
		assert_int_equal(w[i].n, 1 + irqs);      /* a toggle per interrupt */
		assert_alternates(&w[i], 1, '1', 8000, 8000);
	}
	for (unsigned k = 1; k < w[0].n; k++)  /* OUT is one cycle, then the SBI */
		assert_int_equal(w[1].cycle[k], w[0].cycle[k] + 1);
}

static void test_timer_outputs(void **state)
{
	scratch *s = *state;
	char db[256];
	test_record(s, db, sizeof db, "run.db", "tests/firmware/pwm_fast.elf --instructions 200k");
	static wave w[6] = { { .name = "PD6" }, { .name = "PD5" }, { .name = "PB3" },
			     { .name = "PD7" }, { .name = "PB1" }, { .name = "PD3" } };
	export(s, db, w, 6);
	const wave *oc0a = &w[0], *oc0b = &w[1], *oc2a = &w[2], *pd7 = &w[3], *oc1a = &w[4];
	const wave *oc2b = &w[5];
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(w[i].reset, 'z');
		assert_int_equal(w[i].level[0], '0');  /* the DDR write: PORT's 0 */
	}
	/* OC0A: low until the first BOTTOM, 2048 cycles after the start, then
	 * high 512, low 2048 - 512. */
	assert_true(oc0a->n > 100);
	assert_alternates(oc0a, 1, '1', 512, 2048 - 512);
	/* OC0B, inverting: set at the first compare match, 1536 cycles after
	 * the start, then high 512 and low 1536 from each BOTTOM. */
	assert_alternates(oc0b, 1, '1', 512, 1536);
	assert_int_equal(oc0a->cycle[1] - oc0b->cycle[1], 2048 - 1536);
	/* OC0A rises and OC0B falls at each BOTTOM on the same cycle. */
	for (unsigned k = 1; k < oc0a->n && k + 1 < oc0b->n; k += 2)
		assert_int_equal(oc0a->cycle[k], oc0b->cycle[k + 1]);
	/* OC1A: high 2048, low 16384 - 2048, from the first BOTTOM on. */
	assert_true(oc1a->n > 20);
	assert_alternates(oc1a, 1, '1', 2048, 16384 - 2048);
	/* OC2A and OC2B toggle every 3200 cycles: the period is 6400. */
	assert_true(oc2a->n > 20);
	assert_alternates(oc2a, 1, '1', 3200, 3200);
	assert_alternates(oc2b, 1, '1', 3200, 3200);
	/* OC2B toggles first: where the run ends it may be one ahead. */
	assert_true(oc2b->n == oc2a->n || oc2b->n == oc2a->n + 1);
	for (unsigned k = 1; k < oc2a->n; k++)
		assert_int_equal(oc2b->cycle[k], oc2a->cycle[k] - 1600);
	/* main did write PORTD meanwhile. */
	assert_true(pd7->n > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pinb_toggles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timer_outputs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
