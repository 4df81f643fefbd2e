/*
 * test_chip.c — where simavr 1.6 and the datasheet part ways, put right
 * in sim/ (docs/chip.md): each firmware's recording is checked against numbers
 * worked out from the datasheet, and replays exactly.
 *  - pinx_write: a write of 1 to PINB5 toggles PORTB5 and is a PORTB write
 *    (OUT, SBI, STS); SBI/CBI read no input; on the ATmega16 PINx are
 *    read-only and such writes do nothing.
 *  - twi_absent: a TWI master addressing nobody reads the datasheet's
 *    status codes, 0x08, 0x20, 0x10, 0x48, each address byte taking 9 SCL
 *    periods.
 *  - uart_burst: back-to-back bytes each make one RX interrupt, a frame
 *    (10 bits of (UBRR + 1) * 16 cycles) apart, and the whole data space
 *    tells the interrupt points from the polling loop's turns.
 *  - pwm_pc: phase-correct PWM on Timers 1 and 2 counts its interrupts as
 *    the datasheet's period 2 * TOP * prescaler gives them, OC1A and OC2B
 *    are high 2 * OCR * prescaler cycles a period; pwm_phase (Timer 1 at
 *    clk/1) too; pwm_pfc: phase-and-frequency-correct PWM takes OCR1B's
 *    buffer at BOTTOM; a mode nothing simulates warns naming the lost pins, and
 *    says nothing when no pin and no interrupt is lost.
 */
#include "tests/testlib.h"

#include <unistd.h>


#include "sim/sim.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;


/* Replays path with each --fp/--match option set in turn: exact, with
 * `irqs` interrupts injected. */
static void replays_exactly(scratch *s, const char *path, long long irqs, const char *const *opts,
			    size_t nopts)
{
	char want[64];
	snprintf(want, sizeof want, "injected             %lld\n", irqs);
	for (size_t i = 0; i < nopts; i++) {
		int rc = test_run(s->out, sizeof s->out, "%s replay '%s' %s", test_avrr(), path,
				  opts[i]);
		if (rc || !strstr(s->out, want) || !strstr(s->out, "diverged             no\n") ||
		    !strstr(s->out, "missed               0\n"))
			fail_msg("replay %s %s: status %d\n%s", path, opts[i], rc, s->out);
	}
}

/* The values of the events of one type and address, in log order, as
 * "%02x " each. */
static void event_values(const char *path, int type, int addr, char *out, size_t n)
{
	if (test_run(out, n, "sqlite3 '%s' \"SELECT group_concat(printf('%%02x', value), ' ') "
		     "FROM (SELECT value FROM events WHERE type = %d AND addr = %d ORDER BY seq)\"",
		     path, type, addr))
		fail_msg("sqlite3: %s", out);
}

enum { EV_READ = 4, EV_WRITE = 5 };

static void test_pin_writes_toggle_port(void **state)
{
	scratch *s = *state;
	char path[256], got[512], want[512] = "01";
	test_record(s, path, sizeof path, "pinx_write.db", "tests/firmware/pinx_write.elf "
		    "--instructions 10000");
	/* PORTB (0x25) = 0x01, then 30 toggles of bit 5 (10 OUT, 10 SBI, 10
	 * STS): 0x21, 0x01, ... and back to 0x01; then 5 CBI write a 0 to
	 * PINB5: five writes of PORTB unchanged. */
	for (int i = 0; i < 30; i++)
		strcat(want, i % 2 ? " 01" : " 21");
	for (int i = 0; i < 5; i++)
		strcat(want, " 01");
	strcat(want, "\n");
	event_values(path, EV_WRITE, 0x25, got, sizeof got);
	assert_string_equal(got, want);
	/* No input read: SBI/CBI on PINB (0x23) write a bit. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 4"), 0);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events"), 1 + 36);
	static const char *const opts[] = { "" };
	replays_exactly(s, path, 0, opts, 1);

	/* The ATmega16's PINx are read-only: only PORTB = 0x01 (0x38) is written. */
	test_record(s, path, sizeof path, "pinx_write_m16.db", "tests/firmware/pinx_write_m16.elf "
		    "--instructions 10000");
	event_values(path, EV_WRITE, 0x38, got, sizeof got);
	assert_string_equal(got, "01\n");
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events"), 2);
	replays_exactly(s, path, 0, opts, 1);
}

static void test_twi_status_codes(void **state)
{
	scratch *s = *state;
	char path[256], got[512];
	test_record(s, path, sizeof path, "twi_absent.db", "tests/firmware/twi_absent.elf "
		    "--instructions 100000");
	/* START sent, SLA+W NACK, repeated START sent, SLA+R NACK: the
	 * statuses the firmware read from TWSR (0xb9, an input) and wrote to
	 * PORTB (0x25). */
	event_values(path, EV_READ, 0xb9, got, sizeof got);
	assert_string_equal(got, "08 20 10 48\n");
	event_values(path, EV_WRITE, 0x25, got, sizeof got);
	assert_string_equal(got, "08 20 10 48\n");
	/* An address byte and its acknowledge: 9 SCL periods of 16 + 2 *
	 * TWBR (72) * 4^0 = 160 cycles, 1440 cycles from the TWCR write that
	 * follows the TWDR write (an STS, 2 cycles) to TWINT; the polling
	 * loop sees it within its 10 cycles and the PORTB write comes 3
	 * cycles after. */
	for (int sla = 0xa0; sla <= 0xa1; sla++) {
		char q[512];
		snprintf(q, sizeof q, "SELECT (SELECT min(cycle) FROM events WHERE type = 5 AND "
			 "addr = 37 AND seq > w.seq) - w.cycle FROM events w WHERE type = 5 AND "
			 "addr = 187 AND value = %d", sla);
		long long d = test_sql_int(path, q);
		if (d < 1440 || d > 1440 + 2 + 10 + 3)
			fail_msg("SLA 0x%02x: status %lld cycles after TWDR, not 1440..1455", sla, d);
	}
	static const char *const opts[] = { "" };
	replays_exactly(s, path, 0, opts, 1);
}

static void test_uart_back_to_back(void **state)
{
	scratch *s = *state;
	char path[256];
	/* Bursts of 10 bytes at 1 ms and 51 ms: 20 bytes in 1M cycles. */
	test_record(s, path, sizeof path, "uart_burst.db", "tests/firmware/uart_burst.elf "
		    "--stimuli tests/firmware/uart_burst.stim --cycles 1M "
		    "--fp 'all:sel=all,ra=16,width=64'");
	/* One RX interrupt (USART_RX, vector 18) per byte, each reading UDR0
	 * (0xc6) once. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), 20);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector = 18"), 20);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 4 AND "
				      "addr = 198"), 20);
	/* Within a burst the reads are a frame apart: 10 bits * (103 + 1) * 16
	 * = 16640 cycles, give or take the cycle or two the instruction being
	 * run when RXC rises delays the interrupt. */
	const char *gaps = "SELECT %s FROM (SELECT cycle - lag(cycle) OVER (ORDER BY seq) d, "
			   "row_number() OVER (ORDER BY seq) n FROM events WHERE type = 4 AND "
			   "addr = 198) WHERE n %% 10 != 1";
	char q[512];
	snprintf(q, sizeof q, gaps, "count(*)");
	assert_int_equal(test_sql_int(path, q), 18);
	snprintf(q, sizeof q, gaps, "min(d)");
	assert_true(test_sql_int(path, q) >= 16640 - 2);
	snprintf(q, sizeof q, gaps, "max(d)");
	assert_true(test_sql_int(path, q) <= 16640 + 2);
	/* Nine frames from a burst's first byte to its last. */
	long long span = test_sql_int(path, "SELECT max(cycle) - min(cycle) FROM (SELECT cycle FROM "
				      "events WHERE type = 4 AND addr = 198 ORDER BY seq LIMIT 10)");
	assert_true(span >= 9 * 16640 - 2 && span <= 9 * 16640 + 2);
	/* The echo: what went out of UDR0 is what came in. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 5 AND "
				      "addr = 198"), 20);
	/* The idle loop's turns differ from the interrupt points (RXC is
	 * clear there): the whole data space replays exactly, even matched
	 * against every recorded fingerprint at once. */
	static const char *const opts[] = { "--fp all --match set", "--fp all", "" };
	replays_exactly(s, path, 20, opts, 3);

	/* 8 data bits, even parity, 2 stop bits (UPM01, USBS0): 12 bits,
	 * 12 * 1664 = 19968 cycles a byte. */
	test_record(s, path, sizeof path, "uart_burst_8e2.db", "tests/firmware/uart_burst_8e2.elf "
		    "--stimuli tests/firmware/uart_burst.stim --cycles 1M");
	snprintf(q, sizeof q, gaps, "min(d)");
	assert_true(test_sql_int(path, q) >= 19968 - 2);
	snprintf(q, sizeof q, gaps, "max(d)");
	assert_true(test_sql_int(path, q) <= 19968 + 2);

	/* The ATmega16, whose UBRRH and UCSRC share an address (URSEL picks):
	 * adcapp sets 38400 baud at 8 MHz (UBRR 12) and 8N1 through URSEL;
	 * "?r" at 1200 ms comes 10 * 13 * 16 = 2080 cycles a byte. */
	snprintf(path, sizeof path, "%s/adcapp.db", s->dir);
	if (test_run(s->out, sizeof s->out, "%s record traces/adcapp.elf --stimuli "
		     "traces/adcapp.stim --cycles 9610000 -o '%s'", test_avrr(), path))
		fail_msg("%s", s->out);
	long long q1 = test_sql_int(path, "SELECT cycle FROM events WHERE type = 4 AND addr = 44 "
				    "AND value = 63 AND cycle >= 9600000");
	long long r1 = test_sql_int(path, "SELECT min(cycle) FROM events WHERE type = 4 AND "
				    "addr = 44 AND cycle > 9600000 AND value = 114");
	assert_true(r1 - q1 >= 2080 - 4 && r1 - q1 <= 2080 + 4);
}

/* Interrupts of vector v in the recording at path. */
static long long irqs_of(const char *path, int v)
{
	char q[128];
	snprintf(q, sizeof q, "SELECT count(*) FROM interrupts WHERE vector = %d", v);
	return test_sql_int(path, q);
}

static void test_phase_correct_pwm_counts(void **state)
{
	scratch *s = *state;
	char path[256];
	/* The timers start c0 ~ 100 cycles after reset (main's setup); the
	 * run ends at C = 204 * 16000 + 8000 = 3272000 cycles.  TOVn is set
	 * one timer clock after the count is BOTTOM (the datasheet's timing
	 * diagram, "the same renaming applies for modes that set the TOVn
	 * flag at BOTTOM"), so also at the first clock of a timer started
	 * there.  Timer 1 (period 16000): TOV1 at c0 + 16000k, k = 0..204 ->
	 * 205; OCF1A up at
	 * c0 + 2000 + 16000k (k = 0..204: 205) and down at c0 + 14000 +
	 * 16000k (k = 0..203: 204) -> 409; OCF1B at c0 + 6000 + 16000k (205)
	 * and c0 + 10000 + 16000k (204) -> 409.  Timer 2 (period 32640):
	 * TOV2 at c0 + 32640j, j = 0..100 -> 101; OCF2B at c0 + 6400 + 32640j
	 * (j = 0..100: 101) and c0 + 26240 + 32640j (j = 0..99: 100) -> 201. */
	test_record(s, path, sizeof path, "pwm_pc.db", "tests/firmware/pwm_pc.elf --cycles 3272000");
	if (strstr(s->out, "warning"))
		fail_msg("a warning for modes that are simulated:\n%s", s->out);
	assert_int_equal(irqs_of(path, 13), 205);       /* TIMER1_OVF */
	assert_int_equal(irqs_of(path, 11), 409);       /* TIMER1_COMPA */
	assert_int_equal(irqs_of(path, 12), 409);       /* TIMER1_COMPB */
	assert_int_equal(irqs_of(path, 9), 101);        /* TIMER2_OVF */
	assert_int_equal(irqs_of(path, 8), 201);        /* TIMER2_COMPB */
	/* A period apart, give or take the cycles an interrupt waits for the
	 * instruction in progress or for another ISR to return. */
	long long span = test_sql_int(path, "SELECT max(cycle) - min(cycle) FROM interrupts WHERE "
				      "vector = 13");
	assert_true(span >= 204 * 16000 - 100 && span <= 204 * 16000 + 100);
	span = test_sql_int(path, "SELECT max(cycle) - min(cycle) FROM interrupts WHERE vector = 9");
	assert_true(span >= 100 * 32640 - 100 && span <= 100 * 32640 + 100);
	static const char *const opts[] = { "" };
	replays_exactly(s, path, 205 + 409 + 409 + 101 + 201, opts, 1);

	/* pwm_phase: Timer 1 mode 1 (TOP 0xff) at clk/1, a TOV1 each
	 * 2 * 255 = 510 cycles; the ISR and the loop never make it wait
	 * long, so over C cycles floor((C - c0) / 510) overflows. */
	test_record(s, path, sizeof path, "pwm_phase.db", "tests/firmware/pwm_phase.elf "
		    "--cycles 1020000");
	if (strstr(s->out, "warning"))
		fail_msg("%s", s->out);
	long long n = irqs_of(path, 13);
	assert_true(n == 1999 || n == 2000);  /* 1020000 / 510 = 2000, less c0's part */
	span = test_sql_int(path, "SELECT max(cycle) - min(cycle) FROM interrupts");
	assert_true(span >= (n - 1) * 510 - 20 && span <= (n - 1) * 510 + 20);
	replays_exactly(s, path, n, opts, 1);
}

/* Level changes of one pin (a timer's output compare pin), as
 * sim_observe_pins reports them, at their exact cycles. */
typedef struct edges {
	char port;
	uint8_t bit;
	uint64_t cycle[4096];
	uint8_t level[4096];
	unsigned n;
} edges;

/* From the first time the pin is driven high (the timer's output; the
 * DDR write before it only makes the pin an output). */
static void on_pin(void *ud, const sim_pin_change *c)
{
	edges *const *e = ud;
	for (; *e; e++)
		if ((*e)->port == c->port && (*e)->bit == c->bit && (*e)->n < 4096 &&
		    ((*e)->n || c->level == SIM_PIN_HIGH)) {
			(*e)->cycle[(*e)->n] = c->cycle;
			(*e)->level[(*e)->n++] = c->level == SIM_PIN_HIGH;
		}
}

/* The high times of e: each must be `want` give or take the cycles an
 * instruction in progress delays the event (at most 4). */
static void assert_high_times(const edges *e, uint64_t want, unsigned at_least)
{
	unsigned highs = 0;
	for (unsigned i = 0; i + 1 < e->n; i++) {
		if (!e->level[i])
			continue;
		uint64_t d = e->cycle[i + 1] - e->cycle[i];
		if (d + 4 < want || d > want + 4)
			fail_msg("high for %llu cycles, not %llu", (unsigned long long)d,
				 (unsigned long long)want);
		highs++;
	}
	assert_true(highs >= at_least);
}

static void test_phase_correct_pwm_pins(void **state)
{
	(void)state;
	firmware *fw;
	sim *s;
	avrr_err err = { "" };
	if (fw_load_file("tests/firmware/pwm_pc.elf", &fw, &err) ||
	    sim_open(fw, NULL, 0, &s, &err))
		fail_msg("%s", err.msg);
	static edges oc1a, oc2b;
	oc1a = (edges){ .port = 'B', .bit = 1 };
	oc2b = (edges){ .port = 'D', .bit = 3 };
	edges *both[] = { &oc1a, &oc2b, NULL };
	if (sim_observe_pins(s, on_pin, both, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sim_run(s, 0, 3272000, NULL), SIM_STOP_LIMIT);
	/* OC1A: cleared at the up-counting match (count 250), set at the
	 * down-counting one: high 2 * 250 * 8 = 4000 of 16000 cycles; about
	 * 204 periods.  OC2B: high 2 * 100 * 64 = 12800 of 32640; 100. */
	assert_high_times(&oc1a, 4000, 200);
	assert_high_times(&oc2b, 12800, 98);
	sim_close(s);
	fw_free(fw);
}

/* Low times of e, each `a` or `b` (give or take 4 cycles); how many of each. */
static void count_low_times(const edges *e, uint64_t a, uint64_t b, unsigned *na, unsigned *nb)
{
	*na = *nb = 0;
	for (unsigned i = 0; i + 1 < e->n; i++) {
		if (e->level[i])
			continue;
		uint64_t d = e->cycle[i + 1] - e->cycle[i];
		if (d + 4 >= a && d <= a + 4)
			++*na;
		else if (d + 4 >= b && d <= b + 4)
			++*nb;
		else
			fail_msg("low for %llu cycles, neither %llu nor %llu", (unsigned long long)d,
				 (unsigned long long)a, (unsigned long long)b);
	}
}

static void test_phase_frequency_correct_pwm(void **state)
{
	scratch *s = *state;
	char path[256];
	/* Period 2 * 500 * 64 = 64000, C = 20 * 64000 + 32000: TOV1 at c0 +
	 * 64000k, k = 0..20 -> 21 (at BOTTOM: see the phase-correct test);
	 * OCF1A at TOP, c0 + 32000 + 64000k, k = 0..19 -> 20; OCF1B twice a
	 * period: up-matches in periods 0..20 (the last, OCR1B 100, at 6400
	 * < 32000) -> 21, down-matches in 0..19 -> 20: 41. */
	test_record(s, path, sizeof path, "pwm_pfc.db", "tests/firmware/pwm_pfc.elf "
		    "--cycles 1312000");
	assert_int_equal(irqs_of(path, 13), 21);
	assert_int_equal(irqs_of(path, 11), 20);
	assert_int_equal(irqs_of(path, 12), 41);
	static const char *const opts[] = { "" };
	replays_exactly(s, path, 82, opts, 1);

	/* OC1B low, centred on TOP, 2 * (500 - OCR1B) * 64: 51200 where
	 * OCR1B is 100, 25600 where 300.  The first TOV1 comes at the first
	 * clock (BOTTOM), where the buffer takes 100 and the ISR writes 300
	 * for the next BOTTOM: periods run 100, 300, 100, ...  OC1B starts
	 * low and is first set at period 0's down-counting match, so the
	 * lows timed are those of periods 1..19: 100 in 2, 4, ..., 18 (9),
	 * 300 in 1, 3, ..., 19 (10). */
	firmware *fw;
	sim *m;
	avrr_err err = { "" };
	if (fw_load_file("tests/firmware/pwm_pfc.elf", &fw, &err) || sim_open(fw, NULL, 0, &m, &err))
		fail_msg("%s", err.msg);
	static edges oc1b;
	oc1b = (edges){ .port = 'B', .bit = 2 };
	edges *one[] = { &oc1b, NULL };
	if (sim_observe_pins(m, on_pin, one, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sim_run(m, 0, 1312000, NULL), SIM_STOP_LIMIT);
	unsigned n100, n300;
	count_low_times(&oc1b, 51200, 25600, &n100, &n300);
	assert_int_equal(n100, 9);
	assert_int_equal(n300, 10);
	sim_close(m);
	fw_free(fw);
}

static void test_missing_mode_warnings(void **state)
{
	scratch *s = *state;
	char path[256];
	/* Mode 13 is reserved: nothing simulates it.  With OC1A enabled the
	 * warning names it; with no pin and no interrupt, nothing is lost. */
	test_record(s, path, sizeof path, "pwm_reserved.db", "tests/firmware/pwm_reserved.elf "
		    "--instructions 100000");
	const char *want = "avrr record: warning: timer 1: TCCR1A/TCCR1B select WGM mode 13, "
			   "which is reserved on the atmega328p: the timer counts as in normal mode; "
			   "lost output: OC1A (PB1)\n";
	const char *p = strstr(s->out, want);
	if (!p || strstr(p + strlen(want), "warning"))
		fail_msg("expected the warning once:\n%s", s->out);
	test_record(s, path, sizeof path, "pwm_reserved_quiet.db",
		    "tests/firmware/pwm_reserved_quiet.elf --instructions 100000");
	if (strstr(s->out, "warning"))
		fail_msg("a warning where nothing is lost:\n%s", s->out);
}

/* What nothing in sim/ simulates, each said once with the write that
 * selected it (tests/chip/warn_unmodelled.c). */
static void test_unmodelled_features_warned(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "unmodelled.db", "tests/chip/warn_unmodelled.elf "
		    "--mcu atmega328p --freq 16000000 --instructions 100000");
	static const char *const want[] = {
		"avrr record: warning: atmega328p: CLKPR = 0x01 divides the system clock, which is "
		"not simulated: the run keeps the clock it was given (--freq), so every time is "
		"off by the division\n",
		"avrr record: warning: atmega328p: ACSR = 0x08 enables the analog comparator's "
		"interrupt or input capture, which is not simulated: neither ever fires\n",
		"avrr record: warning: atmega328p: TWAR = 0x40 gives the TWI a slave address; the "
		"TWI slave is not simulated: no master on the bus addresses it\n",
		"avrr record: warning: atmega328p: SLEEP in a reserved sleep mode (SM bits): "
		"slept as idle\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const char *p = strstr(s->out, want[i]);
		if (!p || strstr(p + 1, want[i]))
			fail_msg("expected once: %s\nin:\n%s", want[i], s->out);
	}
}

/* Recordings made by the releases before: the one before the timer and
 * watchdog models (fixtures/simavr-1.6-rules.recording: adcapp, 20,000
 * instructions, whose Timer1 tick would now come at other cycles), and
 * the one before sleep, PRR and the core's interrupt timing
 * (fixtures/avrr-sim-2-rules.recording: the same run, whose interrupts
 * would now be entered an instruction earlier and four cycles longer):
 * every command that runs one again refuses it in one line; info still
 * reads it. */
static void test_old_rules_refused(void **state)
{
	scratch *s = *state;
	static const char *const old[][2] = {
		{ "tests/integration/fixtures/simavr-1.6-rules.recording",
		  "simavr-1.6: 2 instructions after SEI/RETI/SREG write" },
		{ "tests/integration/fixtures/avrr-sim-2-rules.recording",
		  "avrr-sim 2 (docs/chip.md); 2 instructions after SEI/RETI/SREG write" },
	};
	/* each command, and what follows the recording on its line */
	static const char *const cmds[][2] = {
		{ "replay", "" }, { "shell", "" }, { "fingerprint", " --fp sel=SREG" },
		{ "analyze", " races" },
	};
	char line[1024];
	for (size_t o = 0; o < sizeof old / sizeof *old; o++) {
		for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
			assert_int_equal(test_run(s->out, sizeof s->out, "%s %s %s%s < /dev/null",
						  test_avrr(), cmds[i][0], old[o][0], cmds[i][1]),
					 2);
			snprintf(line, sizeof line,
				 "avrr %s: %s: recorded under the simulation rules '%s', and this "
				 "avrr simulates '" SIM_INTERRUPT_RULE "': it would not replay as "
				 "it ran; record it again\n",
				 cmds[i][0], old[o][0], old[o][1]);
			assert_string_equal(s->out, line);
		}
		assert_int_equal(test_run(s->out, sizeof s->out, "%s info %s", test_avrr(), old[o][0]),
				 0);
		test_assert_contains(s->out, old[o][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pin_writes_toggle_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_twi_status_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uart_back_to_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phase_correct_pwm_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phase_correct_pwm_pins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phase_frequency_correct_pwm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_rules_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_mode_warnings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmodelled_features_warned, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
