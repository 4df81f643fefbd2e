/*
 * test_shapes.c — firmware shapes, written here the way real firmware is
 * written, each recorded with `avrr record`, checked against numbers
 * worked out by hand (never against a run's own output) and replayed
 * exactly.  The firmware is tests/chip/shape_*.c (ATmega328P at 16 MHz,
 * built without simavr's section: --mcu and --freq are given).  Where a
 * check needs exact pin edges, which a recording does not hold, the same
 * firmware also runs under the sim API (tests/chip/probe.h:
 * sim_observe_pins, the writes of chosen registers with their cycles).
 *
 * The arithmetic rests on the timer model's conventions (test_conformance.c):
 * the prescaler runs free from reset, so at clk/N the timer clock's edges
 * fall on multiples of N, and a timer started by a write at cycle w first
 * counts at edge(w, N, 1), edge k being (w / N + k) * N; a flag or a
 * compare output changes at the edge where the count leaves the value
 * compared.
 *
 *  - stepper (shape_stepper.c): Timer1 CTC at clk/1 started with OCR1A = 0
 *    — a match at the first edge, w + 1 — whose first COMPA entry writes
 *    OCR1A = 1999 at cycle wo: from then on a match every (1999 + 1) * 1
 *    = 2000 cycles, at wo + 2000 k.  STEP is OC1A set on the match, so step
 *    1 rises at w + 1 and step k + 1 at wo + 2000 k, exactly; the ISR ends
 *    each pulse with FOC1A (COM1A = clear), one fall per step.  250 steps,
 *    then Timer1 stops: 250 rises in all, the steps before a cycle X are
 *    1 + #{k >= 1: wo + 2000 k < X}.  The ISR does sei() around its
 *    planner, so Timer0's overflow (clk/64, every 256 * 64 = 16384 cycles,
 *    at edge(w0, 64, 256 k)) nests in it: a TIMER0_OVF entry between a
 *    TIMER1_COMPA entry and its RETI.
 *  - servo (shape_servo.c): Timer1 fast PWM, TOP = ICR1 = 39999 (WGM 14)
 *    at clk/8: period (39999 + 1) * 8 = 320,000 cycles (20 ms); OC1A
 *    non-inverting rises at each TOP -> BOTTOM (with TOV1), at
 *    edge(w, 8, 40000 k), k >= 1, and falls (OCR1A + 1) * 8 later: OCR1A =
 *    2999 gives 24,000 (1.5 ms); the third TOV1's ISR writes 3999, which
 *    the double buffer takes at the next BOTTOM: widths 24000, 24000,
 *    24000, 32000, 32000.  TOV1: 4 in the 0.08 s after the start (the 4th
 *    at edge 160,000 = w + 1,280,000 at most).  OCF1A comes where each
 *    pulse falls (and once in the first, low period), and both interrupts
 *    read PINB, which follows OC1A: high at TOV1, low at OCF1A.
 *  - rtos (shape_rtos.c): three tasks switched round-robin by a naked
 *    watchdog ISR in interrupt mode (WDIE = 1, WDE = 0, WDP = 0): a tick
 *    every 2048 cycles of the 128 kHz oscillator, 2048 * 125 = 256,000
 *    CPU cycles = 16 ms, counted from the write that starts the watchdog
 *    (4 cycles before the firmware's marker write of PORTC): the k-th at
 *    start + 256,000 k, entered within SLACK cycles (the instruction under
 *    way); in one second (16e6 cycles) 1 s / 16 ms = 62.5, 62 ticks.
 *    Each switched-in task writes PORTB once (1 << task, round-robin: 01
 *    02 04 ...), so PORTB is written ticks + 1 times; each tick's ISR
 *    reports WDTCSR on PORTC: 0x40, WDIE still set (simavr 1.6 cleared it
 *    and ticked once).
 */
#include "tests/testlib.h"

#include "tests/chip/probe.h"

#include <sim_avr.h>

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;
typedef unsigned long long ull;

#define M328 "atmega328p"
#define MHZ16 16000000u
#define RECORD_OPTS "--mcu atmega328p --freq 16000000 -q"

/* The ATmega328P's vectors and data addresses the checks name. */
enum { V_WDT = 6, V_T1_COMPA = 11, V_T1_OVF = 13, V_T0_OVF = 16 };
enum { A_PINB = 0x23, A_PORTB = 0x25, A_PORTC = 0x28, A_WDTCSR = 0x60 };
enum { EV_IRQ = 2, EV_RETI = 3, EV_READ = 4, EV_WRITE = 5 };

/* Timer clock edge k of a timer started at cycle w at clk/n. */
static uint64_t edge(uint64_t w, unsigned n, uint64_t k)
{
	return (w / n + k) * n;
}

/* The rows of query q (at most max, ncols integer columns each, into
 * out[row * ncols + col]); their count. */
static unsigned rows(const char *path, const char *q, long long *out, unsigned max,
		     unsigned ncols)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	if (sqlite3_prepare_v2(h, q, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", q, sqlite3_errmsg(h));
	unsigned n = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == max)
			fail_msg("%s: more than %u rows", q, max);
		for (unsigned c = 0; c < ncols; c++)
			out[n * ncols + c] = sqlite3_column_int64(st, (int)c);
		n++;
	}
	if (rc != SQLITE_DONE)
		fail_msg("%s: %s", q, sqlite3_errmsg(h));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

/* The values of the events of one type and address, in log order, as
 * "%02x " each (no newline). */
static void event_values(const char *path, int type, int addr, char *out, size_t n)
{
	long long v[64];
	char q[256];
	snprintf(q, sizeof q, "SELECT value FROM events WHERE type = %d AND addr = %d ORDER BY seq",
		 type, addr);
	unsigned k = rows(path, q, v, 64, 1);
	size_t len = 0;
	out[0] = 0;
	for (unsigned i = 0; i < k && len + 4 < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%02llx", i ? " " : "", (ull)v[i]);
}

/* `avrr replay` must replay path exactly: every one of its interrupts
 * injected where recorded, none missed, no divergence. */
static void replays_exactly(scratch *s, const char *path)
{
	long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
	char want[64];
	snprintf(want, sizeof want, "injected             %lld\n", irqs);
	int rc = test_run(s->out, sizeof s->out, "%s replay '%s'", test_avrr(), path);
	if (rc || !strstr(s->out, want) || !strstr(s->out, "diverged             no\n") ||
	    !strstr(s->out, "missed               0\n"))
		fail_msg("replay %s: status %d, want %lld injected:\n%s", path, rc, irqs, s->out);
}

/* ---- the stepper ----------------------------------------------------- */

enum { STEP_PERIOD = 2000, NSTEPS = 250 };

static void test_stepper(void **state)
{
	scratch *s = *state;
	/* 250 steps 2000 cycles apart end by ~500,000 cycles. */
	const uint64_t C = 600000;

	/* The pin, exactly. */
	probe *p = probe_open("tests/chip/shape_stepper.elf", M328, MHZ16);
	probe_watch(p, "TCCR0B", "TCCR1B", "OCR1AL", "TCCR1C", NULL);
	probe_run(p, C);
	uint64_t w = probe_write_cycle(p, "TCCR1B", 0x01, 0);  /* CS10: clk/1 */
	uint64_t w0 = probe_write_cycle(p, "TCCR0B", 0x03, 0); /* clk/64 */
	probe_series *ocr = probe_writes(p, "OCR1AL");
	/* main's OCR1A = 0, then the first entry's 1999 (0x07cf). */
	assert_int_equal(ocr->n, 2);
	assert_int_equal(ocr->value[1], 0xcf);
	uint64_t wo = ocr->cycle[1];
	probe_series *pin = probe_pin(p, "B1");
	probe_series *foc = probe_writes(p, "TCCR1C");
	uint64_t rise[NSTEPS + 1], fall[NSTEPS + 1];
	unsigned nrise = 0, nfall = 0;
	/* (The DDRB write before the start drives the pin low: a change
	 * from undriven, not counted.) */
	for (unsigned i = 0; i < pin->n; i++) {
		if (pin->cycle[i] <= w)
			continue;
		if (pin->value[i] == SIM_PIN_HIGH && nrise <= NSTEPS)
			rise[nrise++] = pin->cycle[i];
		else if (pin->value[i] == SIM_PIN_LOW && nfall <= NSTEPS)
			fall[nfall++] = pin->cycle[i];
	}
	if (nrise != NSTEPS || nfall != NSTEPS || foc->n != NSTEPS)
		fail_msg("stepper: %u rises, %u falls of PB1, %u FOC1A strobes; want %d of each",
			 nrise, nfall, foc->n, NSTEPS);
	/* Step 1 at the first clk/1 edge after the start (OCR1A = 0), then
	 * every 2000 cycles from the OCR1A write. */
	if (rise[0] != edge(w, 1, 1))
		fail_msg("step 1 rose at %llu, want %llu (TCCR1B written at %llu)", (ull)rise[0],
			 (ull)edge(w, 1, 1), (ull)w);
	for (unsigned k = 1; k < NSTEPS; k++) {
		uint64_t want = wo + (uint64_t)STEP_PERIOD * k;
		if (rise[k] != want)
			fail_msg("step %u rose at %llu, want %llu (OCR1A = 1999 written at %llu)",
				 k + 1, (ull)rise[k], (ull)want, (ull)wo);
		if (k >= 2 && rise[k] - rise[k - 1] != STEP_PERIOD)
			fail_msg("steps %u and %u %llu cycles apart, want %d", k, k + 1,
				 (ull)(rise[k] - rise[k - 1]), STEP_PERIOD);
	}
	/* Each pulse ends at its ISR's FOC1A, before the next step. */
	for (unsigned k = 0; k < NSTEPS; k++) {
		uint64_t next = k + 1 < NSTEPS ? rise[k + 1] : C;
		if (fall[k] <= rise[k] || fall[k] >= next || fall[k] != foc->cycle[k])
			fail_msg("step %u: PB1 fell at %llu, want the FOC1A write at %llu, "
				 "within (%llu, %llu)", k + 1, (ull)fall[k], (ull)foc->cycle[k],
				 (ull)rise[k], (ull)next);
	}
	probe_close(p);

	/* The recording. */
	char path[256], q[512];
	test_record(s, path, sizeof path, "stepper.db", "tests/chip/shape_stepper.elf "
		    RECORD_OPTS " --cycles %llu", (ull)C);
	snprintf(q, sizeof q, "SELECT count(*) FROM interrupts WHERE vector = %d", V_T1_COMPA);
	assert_int_equal(test_sql_int(path, q), NSTEPS);
	/* One PORTC write a step, the count's low six bits. */
	snprintf(q, sizeof q, "SELECT value, cycle FROM events WHERE type = %d AND addr = %d "
		 "ORDER BY seq", EV_WRITE, A_PORTC);
	long long pv[2 * (NSTEPS + 8)];
	assert_int_equal(rows(path, q, pv, NSTEPS + 8, 2), NSTEPS);
	for (unsigned k = 0; k < NSTEPS; k++)
		if (pv[2 * k] != ((k + 1) & 0x3f))
			fail_msg("PORTC write %u is 0x%02llx, want 0x%02x", k + 1, (ull)pv[2 * k],
				 (k + 1) & 0x3f);
	/* Steps before X = wo + 2000 * 100 + 1000 (half a period past step
	 * 101's edge: its ISR's write is well in): 1 + 100. */
	uint64_t X = wo + (uint64_t)STEP_PERIOD * 100 + STEP_PERIOD / 2;
	unsigned in_window = 0;
	for (unsigned k = 0; k < NSTEPS; k++)
		in_window += (uint64_t)pv[2 * k + 1] < X;
	assert_int_equal(in_window, 101);
	/* Timer0's overflows before C: edges 256 k at clk/64 from w0. */
	unsigned want_t0 = 0;
	for (uint64_t k = 1; edge(w0, 64, 256 * k) < C; k++)
		want_t0++;
	snprintf(q, sizeof q, "SELECT count(*) FROM interrupts WHERE vector = %d AND cycle < %llu",
		 V_T0_OVF, (ull)C);
	assert_int_equal(test_sql_int(path, q), want_t0);
	/* Nesting: a TIMER0_OVF entry whose icount falls between a
	 * TIMER1_COMPA entry and that ISR's RETI; never COMPA in COMPA (the
	 * ISR masks OCIE1A before its sei()). */
	snprintf(q, sizeof q, "SELECT type, addr, icount FROM events WHERE type IN (%d, %d) "
		 "ORDER BY seq", EV_IRQ, EV_RETI);
	enum { MAXEV = 2 * (NSTEPS + 64) };
	long long ev[3 * MAXEV];
	unsigned nev = rows(path, q, ev, MAXEV, 3);
	long long compa_entry = -1;
	unsigned nested = 0, t0_total = 0;
	for (unsigned i = 0; i < nev; i++) {
		long long type = ev[3 * i], vec = ev[3 * i + 1], ic = ev[3 * i + 2];
		if (type == EV_IRQ && vec == V_T1_COMPA) {
			if (compa_entry >= 0)
				fail_msg("TIMER1_COMPA entered at icount %lld inside itself (from %lld)",
					 ic, compa_entry);
			compa_entry = ic;
		} else if (type == EV_RETI && vec == V_T1_COMPA) {
			compa_entry = -1;
		} else if (type == EV_IRQ && vec == V_T0_OVF) {
			t0_total++;
			nested += compa_entry >= 0 && ic > compa_entry;
		}
	}
	if (!nested)
		fail_msg("no TIMER0_OVF nested in TIMER1_COMPA (%u overflows)", t0_total);
	print_message("stepper: %d steps, 2000 apart from wo = %llu; %u of %u TIMER0_OVF "
		      "nested in TIMER1_COMPA\n", NSTEPS, (ull)wo, nested, t0_total);
	replays_exactly(s, path);
}

/* ---- the servo ------------------------------------------------------- */

/* The servo's pulse k (k >= 1) rises at TOP -> BOTTOM number k; its OCR1A
 * is 2999 for the first three, 3999 after. */
static uint64_t servo_rise(uint64_t w, unsigned k)
{
	return edge(w, 8, 40000ull * k);
}

static uint64_t servo_width(unsigned k)
{
	return (k <= 3 ? 3000ull : 4000ull) * 8;
}

static void test_servo(void **state)
{
	scratch *s = *state;
	/* The pin through five pulses (the 5th rises at 1,600,000 + w). */
	const uint64_t P = 1700000;
	probe *p = probe_open("tests/chip/shape_servo.elf", M328, MHZ16);
	probe_watch(p, "TCCR1B", NULL);
	probe_run(p, P);
	uint64_t w = probe_write_cycle(p, "TCCR1B", 0x02, 0); /* CS11: clk/8 */
	/* The level changes after the start (the DDRB write before it drives
	 * the pin low from undriven). */
	probe_series *pin = probe_pin(p, "B1");
	unsigned from = 0;
	while (from < pin->n && pin->cycle[from] <= w)
		from++;
	pin->n -= from;
	memmove(pin->cycle, pin->cycle + from, pin->n * sizeof *pin->cycle);
	memmove(pin->value, pin->value + from, pin->n);
	probe_series *tov = probe_raises(p, "TIMER1_OVF_vect");
	unsigned npulse = 0;
	for (unsigned k = 1; servo_rise(w, k) < P; k++)
		npulse++;
	assert_int_equal(npulse, 5);
	if (pin->n != 2 * npulse || tov->n != npulse)
		fail_msg("servo: %u level changes of PB1 and %u TOV1 in %llu cycles, want %u and %u",
			 pin->n, tov->n, (ull)P, 2 * npulse, npulse);
	for (unsigned k = 1; k <= npulse; k++) {
		uint64_t r = servo_rise(w, k), f = r + servo_width(k);
		if (pin->cycle[2 * k - 2] != r || pin->value[2 * k - 2] != SIM_PIN_HIGH ||
		    pin->cycle[2 * k - 1] != f || pin->value[2 * k - 1] != SIM_PIN_LOW)
			fail_msg("pulse %u: PB1 high %llu..%llu (%llu wide), want %llu..%llu (%llu)",
				 k, (ull)pin->cycle[2 * k - 2], (ull)pin->cycle[2 * k - 1],
				 (ull)(pin->cycle[2 * k - 1] - pin->cycle[2 * k - 2]), (ull)r, (ull)f,
				 (ull)servo_width(k));
		if (tov->cycle[k - 1] != r)
			fail_msg("TOV1 %u at %llu, want %llu", k, (ull)tov->cycle[k - 1], (ull)r);
		if (k > 1 && pin->cycle[2 * k - 2] - pin->cycle[2 * k - 4] != 320000)
			fail_msg("period %u: %llu cycles, want 320000", k - 1,
				 (ull)(pin->cycle[2 * k - 2] - pin->cycle[2 * k - 4]));
	}
	/* 4 TOV1 in the 0.08 s (1,280,000 cycles) after the start. */
	unsigned in_80ms = 0;
	for (unsigned i = 0; i < tov->n; i++)
		in_80ms += tov->cycle[i] > w && tov->cycle[i] <= w + 1280000;
	assert_int_equal(in_80ms, 4);
	probe_close(p);

	/* The recording: 1,400,000 cycles (0.0875 s) hold 4 TOV1 and the
	 * 4th pulse's end (at most w + 1,312,000). */
	const uint64_t C = 1400000;
	char path[256], q[256], got[256];
	test_record(s, path, sizeof path, "servo.db", "tests/chip/shape_servo.elf "
		    RECORD_OPTS " --cycles %llu", (ull)C);
	long long ovf[8], cmp[8];
	snprintf(q, sizeof q, "SELECT cycle FROM interrupts WHERE vector = %d AND cycle < %llu "
		 "ORDER BY idx", V_T1_OVF, (ull)C);
	unsigned novf = rows(path, q, ovf, 8, 1);
	snprintf(q, sizeof q, "SELECT cycle FROM interrupts WHERE vector = %d AND cycle < %llu "
		 "ORDER BY idx", V_T1_COMPA, (ull)C);
	unsigned ncmp = rows(path, q, cmp, 8, 1);
	/* TOV1 k at servo_rise(k) < C: k = 1..4; OCF1A at edge 3000 (the low
	 * first period) and at each pulse's end: 5. */
	assert_int_equal(novf, 4);
	assert_int_equal(ncmp, 5);
	/* main sleeps: every entry comes the same few cycles after its flag,
	 * so entry to entry is edge to edge. */
	for (unsigned k = 1; k <= novf; k++) {
		long long width = cmp[k] - ovf[k - 1];
		if ((uint64_t)width != servo_width(k))
			fail_msg("recorded pulse %u: OCF1A entry %lld cycles after TOV1's, want %llu",
				 k, width, (ull)servo_width(k));
		if (k > 1 && ovf[k - 1] - ovf[k - 2] != 320000)
			fail_msg("recorded period %u: %lld cycles, want 320000", k - 1,
				 ovf[k - 1] - ovf[k - 2]);
		if ((uint64_t)ovf[k - 1] < servo_rise(w, k) || (uint64_t)ovf[k - 1] > servo_rise(w, k) + 8)
			fail_msg("TIMER1_OVF %u entered at %lld, TOV1 at %llu", k, ovf[k - 1],
				 (ull)servo_rise(w, k));
	}
	/* PINB follows OC1A: high (0x02) at each TOV1, low at each OCF1A;
	 * PORTC: the period count, 0x10 for OCF1A, 0x20 for PB1 read high. */
	event_values(path, EV_READ, A_PINB, got, sizeof got);
	assert_string_equal(got, "00 02 00 02 00 02 00 02 00");
	event_values(path, EV_WRITE, A_PORTC, got, sizeof got);
	assert_string_equal(got, "10 21 11 22 12 23 13 24 14");
	replays_exactly(s, path);
}

/* ---- the RTOS -------------------------------------------------------- */

enum { TICK = 256000, SLACK = 6 };

static void test_rtos(void **state)
{
	scratch *s = *state;
	const uint64_t C = 16000000; /* one second */
	char path[256], q[256];
	test_record(s, path, sizeof path, "rtos.db", "tests/chip/shape_rtos.elf "
		    RECORD_OPTS " --cycles %llu", (ull)C);
	/* The marker: the watchdog started 4 cycles (an STS) before it. */
	long long pw[2 * 80];
	snprintf(q, sizeof q, "SELECT value, cycle FROM events WHERE type = %d AND addr = %d "
		 "ORDER BY seq", EV_WRITE, A_PORTC);
	unsigned npc = rows(path, q, pw, 80, 2);
	assert_true(npc >= 1);
	assert_int_equal(pw[0], 0x3f);
	uint64_t start = (uint64_t)pw[1] - 4;
	unsigned want = 0;
	for (uint64_t k = 1; start + (uint64_t)TICK * k < C; k++)
		want++;
	/* 1 s / 16 ms = 62.5: 62 ticks, give or take one. */
	assert_true(want >= 61 && want <= 63);
	long long ticks[2 * 80];
	snprintf(q, sizeof q, "SELECT cycle, icount FROM interrupts WHERE vector = %d ORDER BY idx",
		 V_WDT);
	unsigned n = rows(path, q, ticks, 80, 2);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), n);
	if (n != want)
		fail_msg("%u watchdog ticks in one second, want %u (62 ± 1)", n, want);
	for (unsigned k = 1; k <= n; k++) {
		uint64_t due = start + (uint64_t)TICK * k;
		if ((uint64_t)ticks[2 * (k - 1)] < due || (uint64_t)ticks[2 * (k - 1)] > due + SLACK)
			fail_msg("tick %u entered at %lld, due at %llu (start %llu)", k,
				 ticks[2 * (k - 1)], (ull)due, (ull)start);
	}
	/* Each tick's report: WDTCSR with WDIE still set (WDIF cleared by
	 * the entry, WDE clear), the last one too. */
	assert_int_equal(npc, 1 + n);
	for (unsigned k = 1; k < npc; k++)
		if (pw[2 * k] != 0x40)
			fail_msg("tick %u: WDTCSR 0x%02llx in the ISR, want 0x40 (WDIE)", k,
				 (ull)pw[2 * k]);
	/* A task switch a tick: tasks 0, 1, 2, 0, ... each write PORTB once
	 * when switched in, between the ticks. */
	long long pb[2 * 80];
	snprintf(q, sizeof q, "SELECT value, icount FROM events WHERE type = %d AND addr = %d "
		 "ORDER BY seq", EV_WRITE, A_PORTB);
	unsigned npb = rows(path, q, pb, 80, 2);
	assert_int_equal(npb, n + 1);
	for (unsigned k = 0; k < npb; k++) {
		if (pb[2 * k] != 1 << (k % 3))
			fail_msg("PORTB write %u is 0x%02llx, want task %u's 0x%02x", k,
				 (ull)pb[2 * k], k % 3, 1u << (k % 3));
		if ((k >= 1 && pb[2 * k + 1] < ticks[2 * (k - 1) + 1]) ||
		    (k < n && pb[2 * k + 1] > ticks[2 * k + 1]))
			fail_msg("PORTB write %u at icount %lld is not in its time slice", k,
				 pb[2 * k + 1]);
	}

	/* The same second under the sim API: the watchdog started with the
	 * write of WDCE | WDE, 4 cycles before the marker; WDTCSR at the end
	 * still has WDIE (and only it: WDE clear, WDP 0). */
	probe *p = probe_open("tests/chip/shape_rtos.elf", M328, MHZ16);
	probe_watch(p, "WDTCSR", NULL);
	probe_run(p, C);
	assert_int_equal(probe_write_cycle(p, "WDTCSR", 0x18, 0), start);
	assert_int_equal(probe_entries(p, "WDT_vect")->n, n);
	assert_int_equal(sim_live_data(p->s)[A_WDTCSR], 0x40);
	probe_close(p);
	print_message("rtos: %u ticks (want %u), %u task switches in 1 s, start %llu\n", n, want,
		      npb - 1, (ull)start);
	replays_exactly(s, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stepper, setup, teardown),
		cmocka_unit_test_setup_teardown(test_servo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rtos, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
