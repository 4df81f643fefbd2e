/*
 * test_conformance.c — the timers against the datasheets: each firmware
 * of tests/chip runs on its MCU and clock, and every cycle checked is
 * worked out here from the datasheet's arithmetic, never taken from a
 * run.  tests/chip/README.md has the table: behaviour, rule and section,
 * test, firmware.  Sections are the ATmega328P datasheet's (7810D):
 * §14 I/O-Ports, §15 Timer/Counter0, §16 Timer/Counter1, §17 the
 * Timer/Counter0 and 1 prescalers, §18 Timer/Counter2, §30 Register
 * Summary; the ATmega2560's (2549Q) and ATmega16's (2466T) chapters of
 * the same titles say the same for their timers.
 *
 * The arithmetic.  The prescaler runs free from reset (§17.1, "the
 * prescaler is free running"), so at clk/N the timer clock's edges fall
 * on multiples of N; a timer started by a TCCRnB write at cycle w counts
 * first at the next edge after w: edge k is (w / N + k) * N.  A flag or a
 * compare output changes at the edge where the count leaves the value
 * compared (§15.8, §16.10 "Timer/Counter Timing Diagrams": OCFnx is set
 * one timer clock after TCNTn equals OCRnx, TOV as MAX -> BOTTOM, or TOP
 * -> BOTTOM in fast PWM; for the dual-slope modes the diagrams put ICFn
 * at TOP and the update at TOP on the TOP -> TOP-1 edge, so here the
 * BOTTOM events fall on BOTTOM -> 1, which centres a non-inverting pulse
 * on TOV).  So for a single-slope count from 0 with TOP t the count
 * leaves v at edges v + 1 + (t + 1) j; for a dual-slope one (a period of
 * P = 2t edges) it leaves v upwards at v + 1 + P j, downwards at
 * P - v + 1 + P j, TOP at t + 1 + P j, BOTTOM at 1 + P j.  The firmware
 * sleeps in idle mode between its handlers, so a flag's raise lands on
 * its edge; pin changes carry their own exact cycles.
 *
 * Behaviours (ATmega328P at 16 MHz unless named):
 *  - normal mode: TOVn every (MAX+1)·N, OCFnx as the count leaves OCRnx,
 *    on the free-running prescaler's grid: Timer0 at clk/8, Timer1 at
 *    clk/1, Timer2 at clk/32 (§15.7.1, §16.9.1, §18.7.1);
 *  - CTC: period (OCRnA+1)·N at TOP 0, 1 and 999 on the toggling OC0A,
 *    OC2A, OC1A (§15.7.2); TOP from ICR1 with ICF1 at TOP (mode 12,
 *    §16.9.2); no TOV below MAX; OCR1A written below TCNT1: the count
 *    runs to 0xFFFF, wraps with TOV1, then matches (§16.9.2); the
 *    headline: OCR1A = 0 at clk/1, 999 from the first interrupt on, 1000
 *    ± 1 interrupts in 10^6 cycles;
 *  - fast PWM 8/9/10-bit (modes 5-7), TOP ICR1 (14), TOP OCR1A (15, OC1A
 *    toggling), Timer0 mode 3, Timer2 mode 7: period (TOP+1)·N,
 *    non-inverting high (OCR+1)·N, inverting low (OCR+1)·N, OCR = BOTTOM
 *    a one-clock spike, OCR = TOP constantly high (§15.7.3, §16.9.3);
 *  - phase-correct (Timer0 mode 1, Timer1 modes 2 and 10, Timer2 mode 5)
 *    and phase-and-frequency-correct (mode 8): period 2·TOP·N,
 *    non-inverting high 2·OCR·N around BOTTOM, ICF1/OCF2A at TOP, OCR =
 *    TOP constantly high (§15.7.4, §16.9.4, §16.9.5);
 *  - OCR double-buffering: fast PWM and PFC take a new OCRnx at BOTTOM,
 *    phase-correct at TOP (§16.7 and the WGM table's "Update of OCR1x
 *    at"); ICR1 as TOP is not buffered (§16.9.3);
 *  - input capture on ICP1 (PB0, driven by stimuli): ICR1 takes TCNT1 on
 *    the edge ICES1 selects, and only then (§16.6);
 *  - FOCnx: OCnx changes as at a match, no flag, the CTC count is not
 *    cleared; ignored in the PWM modes (§15.5.1, §16.7.1);
 *  - TCNT writes: a TCNT1 write blocks the match at the next timer clock
 *    (§16.7.2; the headline: OCR1A = 0, clk/8, TCNT1 = 0 written, the next
 *    OCF1A only after the wrap, 65536·8 cycles on); a TCNT2 reload in the
 *    overflow handler leaves the prescaler's phase: periods of exactly
 *    (256 - 6)·64 = 16000 cycles;
 *  - PSRSYNC resets the prescaler of Timers 0 and 1, PSRASY Timer2's
 *    (§17.2, §17.4.1, §18.11);
 *  - TIFR1: writing 1 clears that flag only; SBI too, as §30's note says
 *    of this part ("CBI and SBI instructions will only operate on the
 *    specified bit");
 *  - a toggling OC0A leaves PORTD alone, PIND reads the pin, OC0A, and
 *    the pin goes back to PORTD6 when OC0A is disconnected (§15.6,
 *    §14.2.4);
 *  - ATmega2560: Timer3 CTC with OC3C, Timer4 fast PWM TOP ICR4 with OC4B
 *    and OC4C, Timer5 phase-correct TOP OCR5A (mode 11) with OC5C, PFC
 *    mode 9 taking OCR5C at BOTTOM, PSRSYNC on Timers 3 and 5 and not 2,
 *    FOC3C, TIFR3;
 *  - ATmega16 at 8 MHz: Timer0 CTC and fast PWM through TCCR0 and OC0,
 *    FOC0; Timer2 phase-correct through TCCR2 and its reload; Timer1 mode
 *    14; SFIOR's PSR10 and PSR2; the one TIFR of all three timers.
 *
 * Each test collects every mismatch before it fails, so one run tells all
 * that a model gets wrong in a behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/chip/probe.h"

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define M16 "atmega16"
#define MHZ16 16000000u
#define MHZ8 8000000u

typedef unsigned long long ull;

/* ---- the datasheet's arithmetic -------------------------------------- */

/* Timer clock edge k (k >= 1) of a timer started at cycle w at clk/n: the
 * free-running prescaler's edges fall on multiples of n, and the first
 * one after w is the first the timer counts. */
static uint64_t edge(uint64_t w, unsigned n, uint64_t k)
{
	return (w / n + k) * n;
}

static void want_add(probe_series *w, uint64_t cycle, uint8_t value)
{
	assert_true(w->n < PROBE_MAX);
	w->cycle[w->n] = cycle;
	w->value[w->n++] = value;
}

/* Sorts by cycle (insertion: the lists are short and nearly sorted). */
static void want_sort(probe_series *w)
{
	for (unsigned i = 1; i < w->n; i++)
		for (unsigned j = i; j > 0 && w->cycle[j - 1] > w->cycle[j]; j--) {
			uint64_t c = w->cycle[j];
			uint8_t v = w->value[j];
			w->cycle[j] = w->cycle[j - 1];
			w->value[j] = w->value[j - 1];
			w->cycle[j - 1] = c;
			w->value[j - 1] = v;
		}
}

/* Events at edges first + period * j (j >= 0) of a timer started at w at
 * clk/n, those before cycle `to`: a flag's raises. */
static probe_series *want_every(probe *p, uint64_t w, unsigned n, uint64_t first,
				uint64_t period, uint64_t to)
{
	probe_series *s = probe_series_new(p);
	for (uint64_t k = first; edge(w, n, k) < to; k += period)
		want_add(s, edge(w, n, k), 0);
	return s;
}

/* A compare output's changes: high from edge rise + period * j, low from
 * edge fall + period * j (j >= 0), those before `to`.  A change to the
 * level the output already has is no change: the output starts low. */
static probe_series *want_pulses(probe *p, uint64_t w, unsigned n, uint64_t rise, uint64_t fall,
				 uint64_t period, uint64_t to)
{
	probe_series *s = probe_series_new(p);
	for (uint64_t k = rise; edge(w, n, k) < to; k += period)
		want_add(s, edge(w, n, k), 1);
	for (uint64_t k = fall; edge(w, n, k) < to; k += period)
		want_add(s, edge(w, n, k), 0);
	want_sort(s);
	probe_series *out = probe_series_new(p);
	uint8_t level = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (s->value[i] != level)
			want_add(out, s->cycle[i], level = s->value[i]);
	return out;
}

/* A toggling output's changes at the given cycles, starting low. */
static probe_series *toggles_at(probe *p, const probe_series *at)
{
	probe_series *s = probe_series_new(p);
	for (unsigned i = 0; i < at->n; i++)
		want_add(s, at->cycle[i], (uint8_t)((i + 1) & 1));
	return s;
}

/* The cycles a CTC timer (TOP top, clk/n, started at w from count 0)
 * leaves TOP before `to`, its prescaler reset at cycle `reset` (0: never):
 * from a reset at r its edges fall at r + n * k; an edge at r itself
 * comes before the writing instruction. */
static probe_series *ctc_matches(probe *p, uint64_t w, unsigned n, unsigned top, uint64_t reset,
				 uint64_t to)
{
	probe_series *s = probe_series_new(p);
	uint64_t origin = 0, e = edge(w, n, 1);
	unsigned count = 0;
	while (e < to) {
		if (reset && reset < e && origin != reset) {
			origin = reset;
			e = reset + n;
			continue;
		}
		if (count == top) {
			want_add(s, e, 0);
			count = 0;
		} else {
			count++;
		}
		e += n;
	}
	return s;
}

/* The part of s in [from, to). */
static probe_series *between(probe *p, const probe_series *s, uint64_t from, uint64_t to)
{
	probe_series *out = probe_series_new(p);
	for (unsigned i = 0; i < s->n; i++)
		if (s->cycle[i] >= from && s->cycle[i] < to)
			want_add(out, s->cycle[i], s->value[i]);
	return out;
}

/* got and want, each taken in [from, to), must be the same events (and
 * levels, if `levels`): the first few differences are told. */
static void ck_events(check *c, const char *what, const probe_series *got_all,
		      const probe_series *want_all, uint64_t from, uint64_t to, int levels)
{
	unsigned gi = 0, wi = 0, ng = 0, nw = 0;
	for (unsigned i = 0; i < got_all->n; i++)
		ng += got_all->cycle[i] >= from && got_all->cycle[i] < to;
	for (unsigned i = 0; i < want_all->n; i++)
		nw += want_all->cycle[i] >= from && want_all->cycle[i] < to;
	const probe_series *g = got_all, *w = want_all;
	unsigned wrong = 0;
	for (;;) {
		while (gi < g->n && (g->cycle[gi] < from || g->cycle[gi] >= to))
			gi++;
		while (wi < w->n && (w->cycle[wi] < from || w->cycle[wi] >= to))
			wi++;
		if (gi == g->n && wi == w->n)
			break;
		if (gi < g->n && wi < w->n && g->cycle[gi] == w->cycle[wi] &&
		    (!levels || g->value[gi] == w->value[wi])) {
			gi++, wi++;
			continue;
		}
		if (wrong++ < 3) {
			char gs[64] = "none", ws[64] = "none";
			if (gi < g->n)
				snprintf(gs, sizeof gs, levels ? "%llu (level %u)" : "%llu",
					 (ull)g->cycle[gi], g->value[gi]);
			if (wi < w->n)
				snprintf(ws, sizeof ws, levels ? "%llu (level %u)" : "%llu",
					 (ull)w->cycle[wi], w->value[wi]);
			ck(c, 0, "%s: got %s, want %s (%u got, %u wanted in [%llu, %llu))", what, gs,
			   ws, ng, nw, (ull)from, (ull)to);
		}
		/* Go on past what is extra or missing, else past both (moved). */
		if (gi < g->n && wi < w->n && wi + 1 < w->n && w->cycle[wi + 1] == g->cycle[gi])
			wi++;
		else if (gi < g->n && wi < w->n && gi + 1 < g->n && g->cycle[gi + 1] == w->cycle[wi])
			gi++;
		else if (gi < g->n && wi < w->n)
			gi++, wi++;
		else if (gi < g->n)
			gi++;
		else
			wi++;
	}
	if (wrong > 3)
		ck(c, 0, "%s: ... %u differences in all", what, wrong);
}

/* The first write of register `reg` at or after `from` with all of `bits`. */
#define WRITE_AT(p, reg, bits, from) probe_write_cycle(p, reg, bits, from)

/* The cycle of the i-th write of register `reg` (0 first; -1 the last). */
static uint64_t nth_write(probe *p, const char *reg, int i)
{
	probe_series *s = probe_writes(p, reg);
	if (i < 0)
		i += (int)s->n;
	if (i < 0 || (unsigned)i >= s->n)
		fail_msg("%s: %u writes of %s, not the one looked for", p->elf, s->n, reg);
	return s->cycle[i];
}

/* High (or low) times of a pin: each pulse's start and end. */
typedef struct pulse {
	uint64_t start, end;
} pulse;

static unsigned pulses(const probe_series *pin, uint8_t level, pulse *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i + 1 < pin->n && n < max; i++)
		if (pin->value[i] == level && pin->value[i + 1] != level)
			out[n++] = (pulse){ pin->cycle[i], pin->cycle[i + 1] };
	return n;
}

/* Checks the widths of the pulses around a register write at cycle w:
 * those ending before w are `before` wide, the one under way at w is
 * `during`, then come after[0..nafter). */
static void ck_widths_around(check *c, const char *what, const probe_series *pin, uint64_t w,
			     uint64_t before, uint64_t during, const uint64_t *after,
			     unsigned nafter)
{
	pulse ps[512];
	unsigned n = pulses(pin, 1, ps, 512), i = 0;
	unsigned seen_before = 0;
	for (; i < n && ps[i].end < w; i++) {
		ck(c, ps[i].end - ps[i].start == before, "%s: pulse at %llu is %llu wide, want %llu",
		   what, (ull)ps[i].start, (ull)(ps[i].end - ps[i].start), (ull)before);
		seen_before++;
	}
	ck(c, seen_before >= 2, "%s: %u whole pulses before the write at %llu, want 2 or more",
	   what, seen_before, (ull)w);
	if (i == n || ps[i].start > w) {
		ck(c, 0, "%s: no pulse under way at the write (cycle %llu)", what, (ull)w);
		return;
	}
	ck(c, ps[i].end - ps[i].start == during,
	   "%s: the pulse under way at the write (%llu) is %llu wide, want %llu", what, (ull)w,
	   (ull)(ps[i].end - ps[i].start), (ull)during);
	for (unsigned k = 0; k < nafter; k++) {
		if (++i == n) {
			ck(c, 0, "%s: only %u pulses after the write, want %u", what, k, nafter);
			return;
		}
		ck(c, ps[i].end - ps[i].start == after[k],
		   "%s: pulse %u after the write (at %llu) is %llu wide, want %llu", what, k + 1,
		   (ull)ps[i].start, (ull)(ps[i].end - ps[i].start), (ull)after[k]);
	}
}

/* The values written to a report register, as a string "07 05 ...". */
static void report_string(probe *p, const char *reg, char *out, size_t n)
{
	probe_series *s = probe_writes(p, reg);
	size_t len = 0;
	out[0] = 0;
	for (unsigned i = 0; i < s->n && len + 4 < n; i++)
		len += (size_t)snprintf(out + len, n - len, i ? " %02x" : "%02x", s->value[i]);
}

/* A run of firmware tests/chip/NAME.elf: opened with the registers whose
 * writes a check counts from, then run for `cycles`. */
static probe *run(const char *name, const char *mcu, uint32_t hz, uint64_t cycles,
		  const char *stim, const char *const *regs)
{
	char path[128];
	snprintf(path, sizeof path, "tests/chip/%s.elf", name);
	probe *p = probe_open(path, mcu, hz);
	for (; regs && *regs; regs++)
		probe_watch(p, *regs, NULL);
	if (stim)
		probe_stimuli(p, stim);
	probe_run(p, cycles);
	return p;
}

static void end(probe *p)
{
	probe_close(p);
}

#define REGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- normal mode ----------------------------------------------------- */

/* One timer in normal mode: TOV at edges (MAX+1) j, OCF at OCR + 1 +
 * (MAX+1) j, j >= 0 (and >= 1 for TOV). */
static void ck_normal(check *c, const char *name, const char *tccrb, unsigned n, uint64_t max,
		      const char *ovf, const char *comp, uint64_t ocr, uint64_t cycles)
{
	probe *p = run(name, M328, MHZ16, cycles, NULL, REGS(tccrb));
	uint64_t w = WRITE_AT(p, tccrb, 0, 0);
	char what[96];
	snprintf(what, sizeof what, "%s %s", name, ovf);
	ck_events(c, what, probe_raises(p, ovf), want_every(p, w, n, max + 1, max + 1, cycles), w,
		  cycles, 0);
	snprintf(what, sizeof what, "%s %s", name, comp);
	ck_events(c, what, probe_raises(p, comp), want_every(p, w, n, ocr + 1, max + 1, cycles), w,
		  cycles, 0);
	end(p);
}

static void test_normal_mode_overflow_and_compare(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* Timer0, clk/8: TOV0 every 2048 cycles, OCF0A 101 edges into each. */
	ck_normal(&c, "t0_normal", "TCCR0B", 8, 0xff, "TIMER0_OVF_vect", "TIMER0_COMPA_vect", 100,
		  50000);
	/* Timer1, clk/1 (an edge every cycle): TOV1 every 65536 cycles. */
	ck_normal(&c, "t1_normal", "TCCR1B", 1, 0xffff, "TIMER1_OVF_vect", "TIMER1_COMPB_vect",
		  40000, 300000);
	/* Timer2, clk/32 from its own prescaler: TOV2 every 8192 cycles. */
	ck_normal(&c, "t2_normal", "TCCR2B", 32, 0xff, "TIMER2_OVF_vect", "TIMER2_COMPA_vect", 200,
		  60000);
	ck_done(&c);
}

/* ---- CTC ------------------------------------------------------------- */

static void test_ctc_period_is_top_plus_one(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 40000;
	probe *p = run("ctc_top", M328, MHZ16, C, NULL, REGS("TCCR0B", "TCCR1B", "TCCR2B"));
	uint64_t w0 = WRITE_AT(p, "TCCR0B", 0, 0), w1 = WRITE_AT(p, "TCCR1B", 0, 0);
	uint64_t w2 = WRITE_AT(p, "TCCR2B", 0, 0);
	/* TOP 0 at clk/64: OC0A toggles at every edge, 64 cycles apart. */
	ck_events(&c, "OC0A (PD6), OCR0A 0, clk/64", probe_pin(p, "D6"),
		  toggles_at(p, want_every(p, w0, 64, 1, 1, C)), w0, C, 1);
	/* TOP 1 at clk/8: every second edge, 16 cycles apart. */
	ck_events(&c, "OC2A (PB3), OCR2A 1, clk/8", probe_pin(p, "B3"),
		  toggles_at(p, want_every(p, w2, 8, 2, 2, C)), w2, C, 1);
	/* TOP 999 at clk/1: every 1000 cycles. */
	ck_events(&c, "OC1A (PB1), OCR1A 999, clk/1", probe_pin(p, "B1"),
		  toggles_at(p, want_every(p, w1, 1, 1000, 1000, C)), w1, C, 1);
	end(p);
	ck_done(&c);
}

static void test_ctc_below_max_sets_no_overflow(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 200000;
	probe *p = run("ctc_no_tov", M328, MHZ16, C, NULL, REGS("TCCR0B", "TCCR1B"));
	ck(&c, probe_raises(p, "TIMER0_OVF_vect")->n == 0, "TOV0 raised %u times in CTC, want 0",
	   probe_raises(p, "TIMER0_OVF_vect")->n);
	ck(&c, probe_raises(p, "TIMER1_OVF_vect")->n == 0, "TOV1 raised %u times in CTC, want 0",
	   probe_raises(p, "TIMER1_OVF_vect")->n);
	/* The compare flags do come, one per (TOP+1)·N, counted up to half a
	 * period past the 100th (Timer0) and 30th (Timer1): the two handlers
	 * may delay each other's raise by an instruction, not its count. */
	uint64_t w0 = WRITE_AT(p, "TCCR0B", 0, 0), w1 = WRITE_AT(p, "TCCR1B", 0, 0);
	uint64_t x0 = edge(w0, 8, 201 * 100 + 100), x1 = edge(w1, 1, 5001 * 30 + 2500);
	unsigned n0 = between(p, probe_raises(p, "TIMER0_COMPA_vect"), w0, x0)->n;
	unsigned n1 = between(p, probe_raises(p, "TIMER1_COMPA_vect"), w1, x1)->n;
	ck(&c, n0 == 100, "OCF0A raised %u times in 100.5 periods, want 100", n0);
	ck(&c, n1 == 30, "OCF1A raised %u times in 30.5 periods, want 30", n1);
	end(p);

	ck_done(&c);
}

static void test_ctc_top_from_icr1(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 60000;
	probe *p = run("ctc_icr", M328, MHZ16, C, NULL, REGS("TCCR1B"));
	uint64_t w = WRITE_AT(p, "TCCR1B", 0, 0);
	/* ICR1 = 499 at clk/8: ICF1 as the count leaves 499, every 4000
	 * cycles; OC1A toggles as it leaves OCR1A = 100, 101 edges later. */
	ck_events(&c, "ICF1 (mode 12)", probe_raises(p, "TIMER1_CAPT_vect"),
		  want_every(p, w, 8, 500, 500, C), w, C, 0);
	ck_events(&c, "OC1A (PB1), mode 12", probe_pin(p, "B1"),
		  toggles_at(p, want_every(p, w, 8, 101, 500, C)), w, C, 1);
	end(p);
	ck_done(&c);
}

static void test_ctc_ocr_below_count_wraps_first(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 560000;
	probe *p = run("ctc_below", M328, MHZ16, C, NULL, REGS("TCCR1B", "OCR1AL"));
	uint64_t w = WRITE_AT(p, "TCCR1B", 0, 0);
	uint64_t wo = nth_write(p, "OCR1AL", 1);  /* the second: OCR1A = 100 */
	/* The count was near 600 (> 100), so it runs on to 0xFFFF: TOV1 once,
	 * at edge 65536 from the start; OCF1A only after it, as the count
	 * leaves 100, then every 101 edges. */
	ck_events(&c, "TOV1 (CTC, OCR1A below TCNT1)", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 8, 65536, 1u << 30, C), w, C, 0);
	ck_events(&c, "OCF1A (CTC, OCR1A below TCNT1)", probe_raises(p, "TIMER1_COMPA_vect"),
		  want_every(p, w, 8, 65536 + 101, 101, C), wo, C, 0);
	ck(&c, probe_raises(p, "TIMER1_COMPA_vect")->n == 0 ||
	   probe_raises(p, "TIMER1_COMPA_vect")->cycle[0] > wo,
	   "OCF1A raised before OCR1A was lowered (the count never reached 1000)");
	end(p);
	ck_done(&c);
}

static void test_ctc_headline_thousand_interrupts(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 1000000;
	probe *p = run("ctc_999", M328, MHZ16, C, NULL, REGS("OCR1AL"));
	/* OCR1A = 0 at clk/1 matches at every edge until the first handler
	 * writes 999; from that write on (the count is 0 there, TOP 0 keeps
	 * it so), the count leaves 999 every 1000 cycles: in 10^6 cycles,
	 * 1000 interrupts give or take the start. */
	unsigned n = probe_entries(p, "TIMER1_COMPA_vect")->n;
	ck(&c, n >= 999 && n <= 1001, "TIMER1_COMPA entered %u times in 10^6 cycles, want 1000 ± 1",
	   n);
	uint64_t wo = nth_write(p, "OCR1AL", -1);
	ck_events(&c, "OCF1A after OCR1A = 999", probe_raises(p, "TIMER1_COMPA_vect"),
		  want_every(p, wo, 1, 1000, 1000, C), wo + 1, C, 0);
	end(p);
	ck_done(&c);
}

/* ---- fast PWM -------------------------------------------------------- */

/* Edges per period t + 1; OC non-inverting high from BOTTOM (edge 0 of a
 * period) to leaving OCR (edge ocr + 1); inverting the other way. */
static void test_fast_pwm_periods_and_duty(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p;
	uint64_t w;

	/* Timer0 mode 3 at clk/8: OCR0A = 0 a one-clock (8-cycle) spike at
	 * each BOTTOM; OCR0B = MAX high from the first BOTTOM on for good. */
	p = run("fpwm_t0", M328, MHZ16, 30000, NULL, REGS("TCCR0B"));
	w = WRITE_AT(p, "TCCR0B", 0, 0);
	ck_events(&c, "fpwm_t0 TOV0", probe_raises(p, "TIMER0_OVF_vect"),
		  want_every(p, w, 8, 256, 256, 30000), w, 30000, 0);
	ck_events(&c, "fpwm_t0 OC0A (PD6), OCR0A 0", probe_pin(p, "D6"),
		  want_pulses(p, w, 8, 256, 257, 256, 30000), w, 30000, 1);
	ck_events(&c, "fpwm_t0 OC0B (PD5), OCR0B MAX", probe_pin(p, "D5"),
		  want_pulses(p, w, 8, 256, 1u << 30, 1u << 30, 30000), w, 30000, 1);
	end(p);

	/* Timer1 mode 5 (8-bit) at clk/8: period 2048; OC1A high 101 * 8;
	 * OC1B inverting at 200, low 201 * 8. */
	p = run("fpwm8_t1", M328, MHZ16, 30000, NULL, REGS("TCCR1B"));
	w = WRITE_AT(p, "TCCR1B", 0, 0);
	ck_events(&c, "fpwm8_t1 TOV1", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 8, 256, 256, 30000), w, 30000, 0);
	ck_events(&c, "fpwm8_t1 OC1A (PB1)", probe_pin(p, "B1"),
		  want_pulses(p, w, 8, 256, 101, 256, 30000), w, 30000, 1);
	ck_events(&c, "fpwm8_t1 OC1B (PB2) inverting", probe_pin(p, "B2"),
		  want_pulses(p, w, 8, 201, 256, 256, 30000), w, 30000, 1);
	end(p);

	/* Mode 6 (9-bit) at clk/1: period 512; OCR1A = 0 a one-cycle spike,
	 * OCR1B = TOP high for good. */
	p = run("fpwm9_t1", M328, MHZ16, 8000, NULL, REGS("TCCR1B"));
	w = WRITE_AT(p, "TCCR1B", 0, 0);
	ck_events(&c, "fpwm9_t1 TOV1", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 1, 512, 512, 8000), w, 8000, 0);
	ck_events(&c, "fpwm9_t1 OC1A (PB1), OCR1A 0", probe_pin(p, "B1"),
		  want_pulses(p, w, 1, 512, 513, 512, 8000), w, 8000, 1);
	ck_events(&c, "fpwm9_t1 OC1B (PB2), OCR1B TOP", probe_pin(p, "B2"),
		  want_pulses(p, w, 1, 512, 1u << 30, 1u << 30, 8000), w, 8000, 1);
	end(p);

	/* Mode 7 (10-bit) at clk/8: period 8192; OC1A high 512 * 8, OC1B
	 * inverting at 1000, high 23 * 8. */
	p = run("fpwm10_t1", M328, MHZ16, 60000, NULL, REGS("TCCR1B"));
	w = WRITE_AT(p, "TCCR1B", 0, 0);
	ck_events(&c, "fpwm10_t1 TOV1", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 8, 1024, 1024, 60000), w, 60000, 0);
	ck_events(&c, "fpwm10_t1 OC1A (PB1)", probe_pin(p, "B1"),
		  want_pulses(p, w, 8, 1024, 512, 1024, 60000), w, 60000, 1);
	ck_events(&c, "fpwm10_t1 OC1B (PB2) inverting", probe_pin(p, "B2"),
		  want_pulses(p, w, 8, 1001, 1024, 1024, 60000), w, 60000, 1);
	end(p);
	ck_done(&c);
}

static void test_fast_pwm_top_from_icr1_and_ocr1a(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p;
	uint64_t w;
	const uint64_t C = 120000;

	/* Mode 14, ICR1 = 1999 at clk/8: period 16000; TOV1 and ICF1 at the
	 * same TOP -> BOTTOM edge; OC1A high 500 * 8 = 4000. */
	p = run("fpwm_icr_t1", M328, MHZ16, C, NULL, REGS("TCCR1B"));
	w = WRITE_AT(p, "TCCR1B", 0, 0);
	ck_events(&c, "mode 14 TOV1", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 8, 2000, 2000, C), w, C, 0);
	ck_events(&c, "mode 14 ICF1", probe_raises(p, "TIMER1_CAPT_vect"),
		  want_every(p, w, 8, 2000, 2000, C), w, C, 0);
	ck_events(&c, "mode 14 OC1A (PB1)", probe_pin(p, "B1"),
		  want_pulses(p, w, 8, 2000, 500, 2000, C), w, C, 1);
	end(p);

	/* Mode 15, OCR1A = 249 at clk/64: period 16000; OC1A toggles at
	 * each TOP; OC1B high 100 * 64 = 6400; TOV1 and OCF1A together. */
	p = run("fpwm_ocra_t1", M328, MHZ16, C, NULL, REGS("TCCR1B"));
	w = WRITE_AT(p, "TCCR1B", 0, 0);
	ck_events(&c, "mode 15 TOV1", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 64, 250, 250, C), w, C, 0);
	ck_events(&c, "mode 15 OCF1A", probe_raises(p, "TIMER1_COMPA_vect"),
		  want_every(p, w, 64, 250, 250, C), w, C, 0);
	ck_events(&c, "mode 15 OC1A (PB1) toggling", probe_pin(p, "B1"),
		  toggles_at(p, want_every(p, w, 64, 250, 250, C)), w, C, 1);
	ck_events(&c, "mode 15 OC1B (PB2)", probe_pin(p, "B2"),
		  want_pulses(p, w, 64, 250, 100, 250, C), w, C, 1);
	end(p);

	/* Timer2 mode 7, OCR2A = 99 at clk/32: period 3200; OC2B high 25 * 32. */
	p = run("fpwm_t2", M328, MHZ16, 40000, NULL, REGS("TCCR2B"));
	w = WRITE_AT(p, "TCCR2B", 0, 0);
	ck_events(&c, "Timer2 mode 7 TOV2", probe_raises(p, "TIMER2_OVF_vect"),
		  want_every(p, w, 32, 100, 100, 40000), w, 40000, 0);
	ck_events(&c, "Timer2 mode 7 OCF2A", probe_raises(p, "TIMER2_COMPA_vect"),
		  want_every(p, w, 32, 100, 100, 40000), w, 40000, 0);
	ck_events(&c, "Timer2 mode 7 OC2B (PD3)", probe_pin(p, "D3"),
		  want_pulses(p, w, 32, 100, 25, 100, 40000), w, 40000, 1);
	end(p);
	ck_done(&c);
}

/* ---- phase-correct and phase-and-frequency-correct ------------------- */

/* A dual-slope timer (TOP t, period P = 2t edges) from its second period
 * on (its first starts at BOTTOM itself, which a start from count 0 does
 * not leave as a period boundary would): a non-inverting output rises
 * leaving OCR downwards (P - ocr + 1) and falls leaving it upwards
 * (ocr + 1); TOV at BOTTOM -> 1 (1 + P j), the TOP flag at TOP -> TOP-1. */
static void ck_dual(check *c, probe *p, const char *what, const char *tccrb, unsigned n,
		    uint64_t top, const char *ovf, const char *topflag, uint64_t cycles)
{
	uint64_t w = WRITE_AT(p, tccrb, 0, 0), P = 2 * top, from = edge(w, n, P);
	char s[96];
	snprintf(s, sizeof s, "%s TOV (BOTTOM)", what);
	ck_events(c, s, probe_raises(p, ovf), want_every(p, w, n, 1 + P, P, cycles), from, cycles,
		  0);
	if (topflag) {
		snprintf(s, sizeof s, "%s %s (TOP)", what, topflag);
		ck_events(c, s, probe_raises(p, topflag), want_every(p, w, n, top + 1, P, cycles),
			  from, cycles, 0);
	}
}

static void ck_dual_pin(check *c, probe *p, const char *what, const char *pin, const char *tccrb,
			unsigned n, uint64_t top, uint64_t ocr, int inverting, uint64_t cycles)
{
	uint64_t w = WRITE_AT(p, tccrb, 0, 0), P = 2 * top;
	uint64_t up = ocr < top ? ocr + 1 : 1u << 30, down = ocr > 0 ? P - ocr + 1 : 1u << 30;
	probe_series *want = inverting ? want_pulses(p, w, n, up, down, P, cycles)
				       : want_pulses(p, w, n, down, up, P, cycles);
	ck_events(c, what, probe_pin(p, pin), want, w, cycles, 1);
}

static void test_phase_correct_pwm(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p;

	/* Timer0 mode 1 at clk/8: period 2 * 255 * 8 = 4080; OC0A high 2 *
	 * 100 * 8 = 1600 around BOTTOM; OC0B inverting at 200, high 2 * 55
	 * * 8 = 880 around TOP. */
	p = run("pc_t0", M328, MHZ16, 45000, NULL, REGS("TCCR0B"));
	ck_dual(&c, p, "pc_t0", "TCCR0B", 8, 255, "TIMER0_OVF_vect", NULL, 45000);
	ck_dual_pin(&c, p, "pc_t0 OC0A (PD6)", "D6", "TCCR0B", 8, 255, 100, 0, 45000);
	ck_dual_pin(&c, p, "pc_t0 OC0B (PD5) inverting", "D5", "TCCR0B", 8, 255, 200, 1, 45000);
	end(p);

	/* Timer1 mode 2 (9-bit) at clk/8: period 8176; OCR1A = TOP high for
	 * good from the first TOP; OC1B high 2 * 100 * 8. */
	p = run("pc9_t1", M328, MHZ16, 90000, NULL, REGS("TCCR1B"));
	ck_dual(&c, p, "pc9_t1", "TCCR1B", 8, 511, "TIMER1_OVF_vect", NULL, 90000);
	ck_dual_pin(&c, p, "pc9_t1 OC1A (PB1), OCR1A TOP", "B1", "TCCR1B", 8, 511, 511, 0, 90000);
	ck_dual_pin(&c, p, "pc9_t1 OC1B (PB2)", "B2", "TCCR1B", 8, 511, 100, 0, 90000);
	end(p);

	/* Timer1 mode 10, ICR1 = 1000 at clk/8: period 16000, ICF1 at TOP,
	 * 8000 cycles from TOV1; OC1A high 4000. */
	p = run("pc_icr_t1", M328, MHZ16, 170000, NULL, REGS("TCCR1B"));
	ck_dual(&c, p, "pc_icr_t1", "TCCR1B", 8, 1000, "TIMER1_OVF_vect", "TIMER1_CAPT_vect",
		170000);
	ck_dual_pin(&c, p, "pc_icr_t1 OC1A (PB1)", "B1", "TCCR1B", 8, 1000, 250, 0, 170000);
	end(p);

	/* Timer2 mode 5, OCR2A = 200 at clk/32: period 12800, OCF2A at TOP;
	 * OC2B high 2 * 50 * 32 = 3200. */
	p = run("pc_t2", M328, MHZ16, 140000, NULL, REGS("TCCR2B"));
	ck_dual(&c, p, "pc_t2", "TCCR2B", 32, 200, "TIMER2_OVF_vect", "TIMER2_COMPA_vect", 140000);
	ck_dual_pin(&c, p, "pc_t2 OC2B (PD3)", "D3", "TCCR2B", 32, 200, 50, 0, 140000);
	end(p);
	ck_done(&c);
}

static void test_phase_frequency_correct_pwm(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* Mode 8, ICR1 = 1000 at clk/8: period 16000, ICF1 at TOP; OC1A high
	 * 2 * 250 * 8 = 4000 around BOTTOM, OC1B inverting at 900 high 2 *
	 * 100 * 8 = 1600 around TOP. */
	probe *p = run("pfc_t1", M328, MHZ16, 170000, NULL, REGS("TCCR1B"));
	ck_dual(&c, p, "pfc_t1", "TCCR1B", 8, 1000, "TIMER1_OVF_vect", "TIMER1_CAPT_vect", 170000);
	ck_dual_pin(&c, p, "pfc_t1 OC1A (PB1)", "B1", "TCCR1B", 8, 1000, 250, 0, 170000);
	ck_dual_pin(&c, p, "pfc_t1 OC1B (PB2) inverting", "B2", "TCCR1B", 8, 1000, 900, 1, 170000);
	end(p);
	ck_done(&c);
}

/* ---- double buffering ------------------------------------------------ */

static void test_ocr_double_buffered_in_pwm_modes(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p;
	uint64_t w;

	/* Fast PWM, taken at BOTTOM: 41 * 8 until the period after the
	 * write, then 151 * 8. */
	p = run("dbuf_fpwm", M328, MHZ16, 20000, NULL, REGS("OCR1AL"));
	w = nth_write(p, "OCR1AL", 1);
	ck_widths_around(&c, "fast PWM OC1A", probe_pin(p, "B1"), w, 328, 328,
			 (const uint64_t[]){ 1208, 1208 }, 2);
	end(p);

	/* Phase-correct, taken at TOP: written just after BOTTOM, the pulse
	 * under way (around that BOTTOM) stays 2 * 40 * 8, the next is
	 * 2 * 100 * 8. */
	p = run("dbuf_pc", M328, MHZ16, 40000, NULL, REGS("OCR1AL"));
	w = nth_write(p, "OCR1AL", 1);
	ck_widths_around(&c, "phase-correct OC1A", probe_pin(p, "B1"), w, 640, 640,
			 (const uint64_t[]){ 1600, 1600 }, 2);
	end(p);

	/* Phase-and-frequency-correct, taken at BOTTOM: the period under way
	 * keeps 40, so the next pulse is 40 * 8 before its BOTTOM and 100 * 8
	 * after, then 2 * 100 * 8. */
	p = run("dbuf_pfc", M328, MHZ16, 40000, NULL, REGS("OCR1BL"));
	w = nth_write(p, "OCR1BL", 1);
	ck_widths_around(&c, "PFC OC1B", probe_pin(p, "B2"), w, 640, 640,
			 (const uint64_t[]){ 1120, 1600 }, 2);
	end(p);
	ck_done(&c);
}

static void test_icr1_top_not_buffered(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("icr_unbuffered", M328, MHZ16, 60000, NULL, REGS("ICR1L", "TCCR1B"));
	uint64_t w = nth_write(p, "ICR1L", 1);
	uint64_t s = WRITE_AT(p, "TCCR1B", 0, 0);
	probe_series *tov = probe_raises(p, "TIMER1_OVF_vect");
	/* 1000 edges a period until the write, which lands early in the
	 * third; that very period ends as the count leaves 499. */
	probe_series *want = probe_series_new(p);
	for (unsigned k = 1000; edge(s, 8, k) < w; k += 1000)
		want_add(want, edge(s, 8, k), 0);
	uint64_t last = want->n ? (want->cycle[want->n - 1] / 8 - s / 8) : 0;
	for (uint64_t k = last + 500; edge(s, 8, k) < 60000; k += 500)
		want_add(want, edge(s, 8, k), 0);
	ck(&c, want->n >= 3, "the ICR1 write came before the third overflow");
	ck_events(&c, "mode 14 TOV1 around ICR1 = 499", tov, want, s, 60000, 0);
	end(p);
	ck_done(&c);
}

/* ---- input capture --------------------------------------------------- */

static void test_input_capture_on_selected_edge(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* Pin edges 20 cycles past a clk/64 edge, so the few cycles of the
	 * pin's synchroniser and edge detector (§16.6.1) never cross a timer
	 * clock: ICR1 holds the count at the pin edge exactly. */
	static const char stim[] = "pin B0 at 64020 high\n"
				   "pin B0 at 96020 low\n"
				   "pin B0 at 128020 high\n"
				   "pin B0 at 160020 low\n"
				   "pin B0 at 192020 high\n";
	probe *p = run("icp_t1", M328, MHZ16, 200000, stim, REGS("TCCR1B", "GPIOR0", "GPIOR1"));
	uint64_t w = WRITE_AT(p, "TCCR1B", 0, 0);
	/* Rising edges while ICES1 is set (the first two), then falling: the
	 * edges at 64020, 128020 and 160020; count = edges in (w, T]. */
	static const uint64_t at[] = { 64020, 128020, 160020 };
	probe_series *lo = probe_writes(p, "GPIOR0"), *hi = probe_writes(p, "GPIOR1");
	ck(&c, lo->n == 3 && hi->n == 3, "%u captures reported, want 3 (rising, rising, falling)",
	   lo->n);
	for (unsigned i = 0; i < 3 && i < lo->n && i < hi->n; i++) {
		unsigned got = lo->value[i] | hi->value[i] << 8;
		unsigned want = (unsigned)(at[i] / 64 - w / 64);
		ck(&c, got == want, "capture %u (pin edge at %llu): ICR1 = %u, want %u", i + 1,
		   (ull)at[i], got, want);
	}
	/* ICF1 within the synchroniser's few cycles of each edge taken: the
	 * datasheet gives no exact delay, so 4 cycles of slack. */
	probe_series *icf = probe_raises(p, "TIMER1_CAPT_vect");
	for (unsigned i = 0; i < 3; i++) {
		int found = 0;
		for (unsigned k = 0; k < icf->n; k++)
			found |= icf->cycle[k] >= at[i] && icf->cycle[k] <= at[i] + 4;
		ck(&c, found, "no ICF1 within 4 cycles of the edge at %llu", (ull)at[i]);
	}
	for (unsigned k = 0; k < icf->n; k++)
		ck(&c, !((icf->cycle[k] >= 96020 && icf->cycle[k] <= 96024) ||
			 icf->cycle[k] >= 192020),
		   "ICF1 raised at %llu, on an edge of the other direction", (ull)icf->cycle[k]);
	end(p);
	ck_done(&c);
}

/* ---- FOC ------------------------------------------------------------- */

static void test_force_output_compare(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 80000;
	/* Timer0 CTC at 199, clk/64: OC0A toggles every 12800 cycles and at
	 * each FOC0A strobe; OCF0A only at the matches, which the strobes do
	 * not move (no clear of the count). */
	probe *p = run("foc_t0", M328, MHZ16, C, NULL, REGS("TCCR0B"));
	uint64_t w = WRITE_AT(p, "TCCR0B", 0, 0);
	uint64_t f1 = WRITE_AT(p, "TCCR0B", 0x80, 0), f2 = WRITE_AT(p, "TCCR0B", 0x80, f1 + 1);
	probe_series *matches = want_every(p, w, 64, 200, 200, C);
	ck_events(&c, "OCF0A with FOC0A strobes", probe_raises(p, "TIMER0_COMPA_vect"), matches, w,
		  C, 0);
	probe_series *at = probe_series_new(p);
	for (unsigned i = 0; i < matches->n; i++)
		want_add(at, matches->cycle[i], 0);
	want_add(at, f1, 0);
	want_add(at, f2, 0);
	want_sort(at);
	ck_events(&c, "OC0A (PD6) with FOC0A strobes", probe_pin(p, "D6"), toggles_at(p, at), w, C,
		  1);
	end(p);

	/* Timer1 stopped: FOC1A sets OC1A (COM1A = 3), is ignored in fast
	 * PWM, clears it (COM1A = 2); OCF1A stays clear. */
	p = run("foc_t1", M328, MHZ16, 5000, NULL, REGS("TCCR1C", "GPIOR0"));
	probe_series *foc = probe_writes(p, "TCCR1C");
	ck(&c, foc->n == 3, "%u FOC1A strobes written, want 3", foc->n);
	if (foc->n == 3) {
		probe_series *want = probe_series_new(p);
		want_add(want, foc->cycle[0], 1);
		want_add(want, foc->cycle[2], 0);
		ck_events(&c, "OC1A (PB1) under FOC1A", probe_pin(p, "B1"), want, foc->cycle[0], 5000,
			  1);
	}
	char r[64];
	report_string(p, "GPIOR0", r, sizeof r);
	ck(&c, !strcmp(r, "00"), "TIFR1 after the strobes: %s, want 00", r);
	ck(&c, probe_raises(p, "TIMER1_COMPA_vect")->n == 0, "OCF1A raised by FOC1A");
	end(p);
	ck_done(&c);
}

/* ---- TCNT writes ----------------------------------------------------- */

static void test_tcnt_write_blocks_next_match(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 600000;
	/* OCR1A = 0, clk/8, TCNT1 = 0 written at w: the edge after w would
	 * leave 0 and match, but is blocked; the count then wraps, and the
	 * first OCF1A is 65536 edges after that blocked one:
	 * w < raise - 65536 * 8 <= w + 8. */
	probe *p = run("tcnt_block", M328, MHZ16, C, NULL, REGS("TCNT1L"));
	uint64_t w = WRITE_AT(p, "TCNT1L", 0, 0);
	ck_events(&c, "OCF1A after TCNT1 = 0", probe_raises(p, "TIMER1_COMPA_vect"),
		  want_every(p, w, 8, 1 + 65536, 65536, C), w, C, 0);
	end(p);
	ck_done(&c);
}

static void test_tcnt_reload_keeps_prescaler_phase(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 200000;
	/* Timer2 clk/64, reloaded to 6 before the edge after each overflow:
	 * (256 - 6) * 64 = 16000 cycles a period, exactly. */
	probe *p = run("t2_reload", M328, MHZ16, C, NULL, REGS("TCCR2B"));
	uint64_t w = WRITE_AT(p, "TCCR2B", 0, 0);
	ck_events(&c, "TOV2 with TCNT2 = 6 reloads", probe_raises(p, "TIMER2_OVF_vect"),
		  want_every(p, w, 64, 256, 250, C), w, C, 0);
	end(p);
	ck_done(&c);
}

/* ---- prescaler resets ------------------------------------------------ */

/* The toggles of a CTC output whose prescaler may be reset at `reset`. */
static void ck_ctc_reset(check *c, probe *p, const char *what, const char *pin, uint64_t w,
			 unsigned n, unsigned top, uint64_t reset, uint64_t cycles)
{
	ck_events(c, what, probe_pin(p, pin), toggles_at(p, ctc_matches(p, w, n, top, reset, cycles)),
		  w, cycles, 1);
}

static void test_prescaler_reset(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 40000;
	probe *p = run("psr", M328, MHZ16, C, NULL, REGS("TCCR0B", "TCCR1B", "TCCR2B", "GTCCR"));
	uint64_t ws = WRITE_AT(p, "GTCCR", 0x01, 0), wa = WRITE_AT(p, "GTCCR", 0x02, 0);
	/* Between edges, or a reset would move nothing. */
	ck(&c, ws % 64 && wa % 64, "the prescaler resets at %llu and %llu fall on edges", (ull)ws,
	   (ull)wa);
	ck_ctc_reset(&c, p, "OC0A (PD6), Timer0 clk/64, PSRSYNC", "D6", WRITE_AT(p, "TCCR0B", 0, 0),
		     64, 9, ws, C);
	ck_ctc_reset(&c, p, "OC1A (PB1), Timer1 clk/256, PSRSYNC", "B1",
		     WRITE_AT(p, "TCCR1B", 0, 0), 256, 4, ws, C);
	ck_ctc_reset(&c, p, "OC2A (PB3), Timer2 clk/64, PSRASY", "B3", WRITE_AT(p, "TCCR2B", 0, 0),
		     64, 24, wa, C);
	end(p);
	ck_done(&c);
}

/* ---- flags and pins -------------------------------------------------- */

static void test_tifr_write_one_clears_that_flag(void **state)
{
	(void)state;
	check c = { .len = 0 };
	char r[64];
	/* TOV1|OCF1A|OCF1B = 07; OCF1A written: 05; 0 written: 05; SBI TOV1:
	 * 04; OCF1B written: 00. */
	probe *p = run("tifr_clear", M328, MHZ16, 80000, NULL, REGS("GPIOR0"));
	report_string(p, "GPIOR0", r, sizeof r);
	ck(&c, !strcmp(r, "07 05 05 04 00"), "TIFR1 read back %s, want 07 05 05 04 00", r);
	end(p);
	ck_done(&c);
}

static void test_compare_output_leaves_port_register(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 16000;
	probe *p = run("oc_port", M328, MHZ16, C, NULL, REGS("TCCR0B", "TCCR0A", "GPIOR0", "GPIOR1"));
	uint64_t w = WRITE_AT(p, "TCCR0B", 0, 0);
	probe_series *port = probe_writes(p, "GPIOR0"), *pin = probe_writes(p, "GPIOR1");
	/* PORTD stays 0x40 whatever OC0A does. */
	ck(&c, port->n >= 10, "%u compare handlers ran, want 10 or more", port->n);
	for (unsigned i = 0; i < port->n; i++)
		ck(&c, port->value[i] == 0x40, "PORTD read %02x in handler %u, want 40", port->value[i],
		   i + 1);
	/* PIND6 is OC0A after each toggle: 1, 0, 1, 0, 1, 0; then, OC0A
	 * disconnected in the sixth handler, PORTD6: 1 from then on. */
	for (unsigned i = 0; i < pin->n; i++) {
		unsigned want = i < 6 ? !(i & 1) : 1;
		ck(&c, (pin->value[i] >> 6 & 1) == want, "PIND6 read %u in report %u, want %u",
		   pin->value[i] >> 6 & 1, i + 1, want);
	}
	/* The pin: toggles every 100 * 8 cycles, six times; then back to
	 * PORTD6 (high) at the disconnecting write, and still. */
	probe_series *want = toggles_at(p, want_every(p, w, 8, 100, 100, edge(w, 8, 601)));
	uint64_t wd = WRITE_AT(p, "TCCR0A", 0, w);
	want_add(want, wd, 1);
	ck_events(&c, "PD6 under OC0A, then PORTD6", probe_pin(p, "D6"), want, w, C, 1);
	end(p);
	ck_done(&c);
}

/* ---- ATmega2560 ------------------------------------------------------ */

static void test_m2560_timer3_ctc_with_oc3c(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 60000;
	probe *p = run("m2560_t3_ctc", M2560, MHZ16, C, NULL, REGS("TCCR3B"));
	uint64_t w = WRITE_AT(p, "TCCR3B", 0, 0);
	/* TOP 999 at clk/8: OC3A toggles as the count leaves 999, OC3C and
	 * OCF3C as it leaves 499, 500 edges earlier in each period. */
	ck_events(&c, "OC3A (PE3)", probe_pin(p, "E3"),
		  toggles_at(p, want_every(p, w, 8, 1000, 1000, C)), w, C, 1);
	ck_events(&c, "OC3C (PE5)", probe_pin(p, "E5"),
		  toggles_at(p, want_every(p, w, 8, 500, 1000, C)), w, C, 1);
	ck_events(&c, "OCF3C", probe_raises(p, "TIMER3_COMPC_vect"),
		  want_every(p, w, 8, 500, 1000, C), w, C, 0);
	end(p);
	ck_done(&c);
}

static void test_m2560_timer4_fast_pwm_icr4(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 120000;
	probe *p = run("m2560_t4_fpwm", M2560, MHZ16, C, NULL, REGS("TCCR4B"));
	uint64_t w = WRITE_AT(p, "TCCR4B", 0, 0);
	/* ICR4 = 1999, clk/8: period 16000; OC4C high 500 * 8; OC4B
	 * inverting at 999, low 1000 * 8. */
	ck_events(&c, "TOV4", probe_raises(p, "TIMER4_OVF_vect"), want_every(p, w, 8, 2000, 2000, C),
		  w, C, 0);
	ck_events(&c, "ICF4", probe_raises(p, "TIMER4_CAPT_vect"),
		  want_every(p, w, 8, 2000, 2000, C), w, C, 0);
	ck_events(&c, "OC4C (PH5)", probe_pin(p, "H5"), want_pulses(p, w, 8, 2000, 500, 2000, C), w,
		  C, 1);
	ck_events(&c, "OC4B (PH4) inverting", probe_pin(p, "H4"),
		  want_pulses(p, w, 8, 1000, 2000, 2000, C), w, C, 1);
	end(p);
	ck_done(&c);
}

static void test_m2560_timer5_phase_correct_and_pfc(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* Mode 11, OCR5A = 1000 at clk/8: period 16000, OCF5A at TOP; OC5C
	 * high 2 * 250 * 8 = 4000 around BOTTOM. */
	probe *p = run("m2560_t5_pc", M2560, MHZ16, 170000, NULL, REGS("TCCR5B"));
	ck_dual(&c, p, "Timer5 mode 11", "TCCR5B", 8, 1000, "TIMER5_OVF_vect", "TIMER5_COMPA_vect",
		170000);
	ck_dual_pin(&c, p, "Timer5 mode 11 OC5C (PL5)", "L5", "TCCR5B", 8, 1000, 250, 0, 170000);
	end(p);

	/* Mode 9, OCR5A = 255: OCR5C taken at BOTTOM, as dbuf_pfc. */
	p = run("m2560_t5_pfc_dbuf", M2560, MHZ16, 40000, NULL, REGS("OCR5CL"));
	uint64_t w = nth_write(p, "OCR5CL", 1);
	ck_widths_around(&c, "Timer5 mode 9 OC5C", probe_pin(p, "L5"), w, 640, 640,
			 (const uint64_t[]){ 1120, 1600 }, 2);
	end(p);
	ck_done(&c);
}

static void test_m2560_prescaler_reset(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 30000;
	probe *p = run("m2560_psr", M2560, MHZ16, C, NULL, REGS("TCCR3B", "TCCR5B", "TCCR2B", "GTCCR"));
	uint64_t ws = WRITE_AT(p, "GTCCR", 0x01, 0);
	ck(&c, ws % 64 != 0, "the PSRSYNC write at %llu falls on an edge", (ull)ws);
	ck_ctc_reset(&c, p, "OC3A (PE3), Timer3 clk/64, PSRSYNC", "E3", WRITE_AT(p, "TCCR3B", 0, 0),
		     64, 9, ws, C);
	ck_ctc_reset(&c, p, "OC5A (PL3), Timer5 clk/256, PSRSYNC", "L3",
		     WRITE_AT(p, "TCCR5B", 0, 0), 256, 4, ws, C);
	ck_ctc_reset(&c, p, "OC2A (PB4), Timer2 clk/64, not PSRSYNC's", "B4",
		     WRITE_AT(p, "TCCR2B", 0, 0), 64, 24, 0, C);
	end(p);
	ck_done(&c);
}

static void test_m2560_foc3c_and_tifr3(void **state)
{
	(void)state;
	check c = { .len = 0 };
	char r[64];
	probe *p = run("m2560_foc", M2560, MHZ16, 5000, NULL, REGS("TCCR3C", "GPIOR0"));
	probe_series *foc = probe_writes(p, "TCCR3C");
	ck(&c, foc->n == 2, "%u FOC3C strobes written, want 2", foc->n);
	if (foc->n == 2) {
		probe_series *want = probe_series_new(p);
		want_add(want, foc->cycle[0], 1);
		want_add(want, foc->cycle[1], 0);
		ck_events(&c, "OC3C (PE5) under FOC3C", probe_pin(p, "E5"), want, foc->cycle[0], 5000,
			  1);
	}
	report_string(p, "GPIOR0", r, sizeof r);
	ck(&c, !strcmp(r, "00"), "TIFR3 after the strobes: %s, want 00", r);
	ck(&c, probe_raises(p, "TIMER3_COMPC_vect")->n == 0, "OCF3C raised by FOC3C");
	end(p);

	/* TOV3|OCF3A|OCF3B|OCF3C = 0f; OCF3C written: 07; SBI OCF3A: 05. */
	p = run("m2560_tifr", M2560, MHZ16, 80000, NULL, REGS("GPIOR0"));
	report_string(p, "GPIOR0", r, sizeof r);
	ck(&c, !strcmp(r, "0f 07 05"), "TIFR3 read back %s, want 0f 07 05", r);
	end(p);
	ck_done(&c);
}

/* ---- ATmega16 -------------------------------------------------------- */

static void test_m16_timer0_single_compare_unit(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("m16_t0_ctc", M16, MHZ8, 20000, NULL, REGS("TCCR0"));
	uint64_t w = WRITE_AT(p, "TCCR0", 0, 0);
	/* CTC, OCR0 = 99, clk/8: OC0 and OCF0 every 800 cycles, no TOV0. */
	ck_events(&c, "m16 OC0 (PB3), CTC", probe_pin(p, "B3"),
		  toggles_at(p, want_every(p, w, 8, 100, 100, 20000)), w, 20000, 1);
	ck_events(&c, "m16 OCF0", probe_raises(p, "TIMER0_COMP_vect"),
		  want_every(p, w, 8, 100, 100, 20000), w, 20000, 0);
	ck(&c, probe_raises(p, "TIMER0_OVF_vect")->n == 0, "m16 TOV0 raised %u times in CTC",
	   probe_raises(p, "TIMER0_OVF_vect")->n);
	end(p);

	/* Fast PWM, OCR0 = 63, clk/8: period 2048, OC0 high 64 * 8. */
	p = run("m16_t0_fpwm", M16, MHZ8, 30000, NULL, REGS("TCCR0"));
	w = WRITE_AT(p, "TCCR0", 0, 0);
	ck_events(&c, "m16 TOV0, fast PWM", probe_raises(p, "TIMER0_OVF_vect"),
		  want_every(p, w, 8, 256, 256, 30000), w, 30000, 0);
	ck_events(&c, "m16 OC0 (PB3), fast PWM", probe_pin(p, "B3"),
		  want_pulses(p, w, 8, 256, 64, 256, 30000), w, 30000, 1);
	end(p);

	/* FOC0, in TCCR0 itself: as foc_t0. */
	const uint64_t C = 80000;
	p = run("m16_foc", M16, MHZ8, C, NULL, REGS("TCCR0"));
	w = WRITE_AT(p, "TCCR0", 0, 0);
	uint64_t f1 = WRITE_AT(p, "TCCR0", 0x80, 0), f2 = WRITE_AT(p, "TCCR0", 0x80, f1 + 1);
	probe_series *matches = want_every(p, w, 64, 200, 200, C);
	ck_events(&c, "m16 OCF0 with FOC0 strobes", probe_raises(p, "TIMER0_COMP_vect"), matches, w,
		  C, 0);
	probe_series *at = probe_series_new(p);
	for (unsigned i = 0; i < matches->n; i++)
		want_add(at, matches->cycle[i], 0);
	want_add(at, f1, 0);
	want_add(at, f2, 0);
	want_sort(at);
	ck_events(&c, "m16 OC0 (PB3) with FOC0 strobes", probe_pin(p, "B3"), toggles_at(p, at), w,
		  C, 1);
	end(p);
	ck_done(&c);
}

static void test_m16_timer2(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* Phase-correct, OCR2 = 100 at clk/32: period 2 * 255 * 32 = 16320,
	 * OC2 high 2 * 100 * 32 = 6400 around BOTTOM. */
	probe *p = run("m16_t2_pc", M16, MHZ8, 180000, NULL, REGS("TCCR2"));
	ck_dual(&c, p, "m16 Timer2 phase-correct", "TCCR2", 32, 255, "TIMER2_OVF_vect", NULL, 180000);
	ck_dual_pin(&c, p, "m16 OC2 (PD7)", "D7", "TCCR2", 32, 255, 100, 0, 180000);
	end(p);

	/* Reloaded to 6 at clk/64: 16000 cycles a period (2 ms at 8 MHz). */
	p = run("m16_t2_reload", M16, MHZ8, 200000, NULL, REGS("TCCR2"));
	uint64_t w = WRITE_AT(p, "TCCR2", 0, 0);
	ck_events(&c, "m16 TOV2 with TCNT2 = 6 reloads", probe_raises(p, "TIMER2_OVF_vect"),
		  want_every(p, w, 64, 256, 250, 200000), w, 200000, 0);
	end(p);
	ck_done(&c);
}

static void test_m16_timer1_fast_pwm_icr1(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 60000;
	probe *p = run("m16_t1_fpwm", M16, MHZ8, C, NULL, REGS("TCCR1B"));
	uint64_t w = WRITE_AT(p, "TCCR1B", 0, 0);
	/* ICR1 = 999 at clk/8: period 8000; OC1A high 250 * 8. */
	ck_events(&c, "m16 TOV1", probe_raises(p, "TIMER1_OVF_vect"),
		  want_every(p, w, 8, 1000, 1000, C), w, C, 0);
	ck_events(&c, "m16 ICF1", probe_raises(p, "TIMER1_CAPT_vect"),
		  want_every(p, w, 8, 1000, 1000, C), w, C, 0);
	ck_events(&c, "m16 OC1A (PD5)", probe_pin(p, "D5"), want_pulses(p, w, 8, 1000, 250, 1000, C),
		  w, C, 1);
	end(p);
	ck_done(&c);
}

static void test_m16_sfior_prescaler_reset(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t C = 20000;
	probe *p = run("m16_psr", M16, MHZ8, C, NULL, REGS("TCCR0", "TCCR1B", "TCCR2", "SFIOR"));
	uint64_t w10 = WRITE_AT(p, "SFIOR", 0x01, 0), w2 = WRITE_AT(p, "SFIOR", 0x02, 0);
	ck(&c, w10 % 64 && w2 % 64, "the prescaler resets at %llu and %llu fall on edges",
	   (ull)w10, (ull)w2);
	ck_ctc_reset(&c, p, "m16 OC0 (PB3), Timer0 clk/64, PSR10", "B3", WRITE_AT(p, "TCCR0", 0, 0),
		     64, 9, w10, C);
	ck_ctc_reset(&c, p, "m16 OC1A (PD5), Timer1 clk/256, PSR10", "D5",
		     WRITE_AT(p, "TCCR1B", 0, 0), 256, 4, w10, C);
	ck_ctc_reset(&c, p, "m16 OC2 (PD7), Timer2 clk/64, PSR2", "D7", WRITE_AT(p, "TCCR2", 0, 0),
		     64, 24, w2, C);
	end(p);
	ck_done(&c);
}

static void test_m16_shared_tifr(void **state)
{
	(void)state;
	check c = { .len = 0 };
	char r[64];
	/* All but ICF1 = df; OCF1A written: cf; TOV0 written: ce. */
	probe *p = run("m16_tifr", M16, MHZ8, 80000, NULL, REGS("PORTC"));
	report_string(p, "PORTC", r, sizeof r);
	ck(&c, !strcmp(r, "df cf ce"), "TIFR read back %s, want df cf ce", r);
	end(p);
	ck_done(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal_mode_overflow_and_compare),
		cmocka_unit_test(test_ctc_period_is_top_plus_one),
		cmocka_unit_test(test_ctc_below_max_sets_no_overflow),
		cmocka_unit_test(test_ctc_top_from_icr1),
		cmocka_unit_test(test_ctc_ocr_below_count_wraps_first),
		cmocka_unit_test(test_ctc_headline_thousand_interrupts),
		cmocka_unit_test(test_fast_pwm_periods_and_duty),
		cmocka_unit_test(test_fast_pwm_top_from_icr1_and_ocr1a),
		cmocka_unit_test(test_phase_correct_pwm),
		cmocka_unit_test(test_phase_frequency_correct_pwm),
		cmocka_unit_test(test_ocr_double_buffered_in_pwm_modes),
		cmocka_unit_test(test_icr1_top_not_buffered),
		cmocka_unit_test(test_input_capture_on_selected_edge),
		cmocka_unit_test(test_force_output_compare),
		cmocka_unit_test(test_tcnt_write_blocks_next_match),
		cmocka_unit_test(test_tcnt_reload_keeps_prescaler_phase),
		cmocka_unit_test(test_prescaler_reset),
		cmocka_unit_test(test_tifr_write_one_clears_that_flag),
		cmocka_unit_test(test_compare_output_leaves_port_register),
		cmocka_unit_test(test_m2560_timer3_ctc_with_oc3c),
		cmocka_unit_test(test_m2560_timer4_fast_pwm_icr4),
		cmocka_unit_test(test_m2560_timer5_phase_correct_and_pfc),
		cmocka_unit_test(test_m2560_prescaler_reset),
		cmocka_unit_test(test_m2560_foc3c_and_tifr3),
		cmocka_unit_test(test_m16_timer0_single_compare_unit),
		cmocka_unit_test(test_m16_timer2),
		cmocka_unit_test(test_m16_timer1_fast_pwm_icr1),
		cmocka_unit_test(test_m16_sfior_prescaler_reset),
		cmocka_unit_test(test_m16_shared_tifr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
