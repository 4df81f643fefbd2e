/*
 * test_conformance_adc.c — the ADC against the datasheets: each firmware
 * of tests/chip/adc_*.c runs on its MCU and clock with its inputs from a
 * stimuli script, and every number checked is worked out here from the
 * datasheet's arithmetic, never taken from a run.  tests/chip/README.md
 * has the table.  Sections are the ATmega328P datasheet's (7810D) §24
 * "Analog-to-Digital Converter"; the ATmega2560's (2549Q) §26 and the
 * ATmega16's (2466T) "Analog to Digital Converter" say the same.
 *
 * The arithmetic (§24.4 "Prescaling and Conversion Timing", Table 24-1).
 * The ADC clock is the CPU clock divided by N (ADPS: 2, 2, 4, ..., 128).
 * The prescaler is reset while ADEN is 0 and counts from the write that
 * sets it; the ADC clock's rising edges fall N/2 + kN cycles after a
 * reset (k >= 0).  A conversion started by writing ADSC starts at the
 * first rising edge after the write ("the conversion starts at the
 * following rising edge of the ADC clock cycle") and ends 13 ADC clocks
 * later, 25 for the first after ADEN; the sample-and-hold is 1.5 (13.5)
 * clocks after the start.  An auto trigger resets the prescaler (after 3
 * CPU cycles of synchronisation logic) and the conversion ends 13.5
 * clocks after that (the table's 2 to sample-and-hold, 13.5 in all).  In
 * free running the next conversion starts as one ends: 13 clocks apart.
 * The result of a single-ended conversion is Vin · 1024 / Vref (§24.7),
 * at most 1023.  MUX and REFS follow ADMUX until the conversion starts
 * and are then held (§24.5: "continuously updated until a conversion is
 * started"); ADLAR shows at once (§24.9.1).  ADCL read locks the data
 * register until ADCH is read: a conversion ending meanwhile is lost
 * (§24.9.3).  ADIF is cleared by writing 1 (§24.9.2).
 *
 * simavr's core stores at the start of the storing instruction: the
 * cycles of writes here are those.  Firmware that sleeps until the ADC
 * interrupt sees the flag raised at its own cycle; a polling loop sees
 * it at the first instruction boundary after, at most 2 cycles late.
 *
 * Each test collects every mismatch before it fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <avr_adc.h>
#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>

#include "tests/chip/probe.h"
#include "tests/testlib.h"
/* sim/'s inside: this test pokes a register the firmware reads (GPIOR2). */
#include "sim/sim_impl.h"

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define M16 "atmega16"
#define MHZ16 16000000u
#define MHZ8 8000000u

typedef unsigned long long ull;

/* ---- the datasheet's arithmetic -------------------------------------- */

/* The first rising ADC clock edge after cycle w, the prescaler reset at
 * cycle o: edges at o + n/2 + kn. */
static uint64_t next_edge(uint64_t o, unsigned n, uint64_t w)
{
	uint64_t e0 = o + n / 2;
	return w < e0 ? e0 : e0 + ((w - e0) / n + 1) * n;
}

/* A single-ended result: Vin · 1024 / Vref, at most 1023 (§24.7). */
static unsigned result(unsigned mv, unsigned vref)
{
	unsigned r = mv * 1024u / vref;
	return r > 1023 ? 1023 : r;
}

/* Timer clock edge k of a timer started at cycle w at clk/n (the
 * prescaler free-running from reset: the timers' arithmetic, checked by
 * test_conformance). */
static uint64_t timer_edge(uint64_t w, unsigned n, uint64_t k)
{
	return (w / n + k) * n;
}

/* ---- runs ------------------------------------------------------------ */

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

#define REGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The 16-bit results written through lo and hi, in order. */
static unsigned results(probe *p, const char *lo, const char *hi, unsigned *out, unsigned max)
{
	probe_series *l = probe_writes(p, lo), *h = probe_writes(p, hi);
	unsigned n = l->n < h->n ? l->n : h->n;
	n = n < max ? n : max;
	for (unsigned i = 0; i < n; i++)
		out[i] = l->value[i] | (unsigned)h->value[i] << 8;
	return l->n == h->n ? n : (unsigned)-1;
}

/* The cycles of the writes of `name` with all of `bits` set. */
static unsigned writes_with(probe *p, const char *name, uint8_t bits, uint64_t *out,
			    unsigned max)
{
	probe_series *s = probe_writes(p, name);
	unsigned n = 0;
	for (unsigned i = 0; i < s->n && n < max; i++)
		if ((s->value[i] & bits) == bits)
			out[n++] = s->cycle[i];
	return n;
}

static void report_string(probe *p, const char *reg, char *out, size_t n)
{
	probe_series *s = probe_writes(p, reg);
	size_t len = 0;
	out[0] = 0;
	for (unsigned i = 0; i < s->n && len + 4 < n; i++)
		len += (size_t)snprintf(out + len, n - len, i ? " %02x" : "%02x", s->value[i]);
}

enum { ADSC = 0x40, ADEN = 0x80 };

/* ---- polled conversions, ADIF ---------------------------------------- */

/* Six polled conversions of 2.0, 3.0, 4.0, 1.0, 2.5 and 5.0 V against
 * AVcc = 5 V at clk/128: 409, 614, 819, 204, 512, 1023 (§24.7); each
 * ends 13 ADC clocks (1664 cycles) after its start, the first 25 (3200);
 * ADIF written 0 stays set (ADCSRA reads 0x97), written 1 clears (0x87). */
static void test_polled_conversions_and_adif(void **state)
{
	(void)state;
	check c = { .len = 0 };
	static const unsigned mv[] = { 2000, 3000, 4000, 1000, 2500, 5000 };
	probe *p = run("adc_poll", M328, MHZ16, 40000, "adc 0 seq 2000 3000 4000 1000 2500 5000\n",
		       REGS("ADCSRA", "GPIOR0", "GPIOR1", "GPIOR2"));
	unsigned got[8];
	unsigned n = results(p, "GPIOR0", "GPIOR1", got, 8);
	ck(&c, n == 6, "adc_poll: %u results, want 6", n);
	for (unsigned i = 0; i < 6 && i < n; i++)
		ck(&c, got[i] == result(mv[i], 5000), "adc_poll: conversion %u of %u mV gave %u, want %u",
		   i + 1, mv[i], got[i], result(mv[i], 5000));
	char flags[128];
	report_string(p, "GPIOR2", flags, sizeof flags);
	ck(&c, !strcmp(flags, "97 87 97 87 97 87 97 87 97 87 97 87"),
	   "adc_poll: ADCSRA after ADIF written 0, then 1: %s, want 97 87 (x6)", flags);
	uint64_t w[8];
	unsigned nw = writes_with(p, "ADCSRA", ADEN | ADSC, w, 8);
	probe_series *r = probe_raises(p, "ADC_vect");
	ck(&c, nw == 6 && r->n == 6, "adc_poll: %u starts, %u ADIF raises, want 6 and 6", nw,
	   r->n);
	for (unsigned i = 0; i < 6 && i < nw && i < r->n; i++) {
		uint64_t start = next_edge(w[0], 128, w[i]);
		uint64_t end = start + (i ? 13 : 25) * 128;
		ck(&c, r->cycle[i] >= end && r->cycle[i] <= end + 2,
		   "adc_poll: conversion %u written at %llu starts at %llu and ends at %llu, "
		   "%u ADC clocks later; ADIF seen at %llu", i + 1, (ull)w[i], (ull)start, (ull)end,
		   i ? 13 : 25, (ull)r->cycle[i]);
	}
	probe_close(p);
	ck_done(&c);
}

/* The same timing, exactly: the CPU sleeps until the ADC interrupt.  ADEN
 * is written first, then four writes of ADSC at other phases. */
static void test_conversion_timing(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("adc_sleep", M328, MHZ16, 30000, "adc 0 const 2500\n",
		       REGS("ADCSRA", "GPIOR0", "GPIOR1"));
	uint64_t on[2], w[8];
	ck(&c, writes_with(p, "ADCSRA", ADEN, on, 2) >= 1, "adc_sleep: ADEN never written");
	unsigned nw = writes_with(p, "ADCSRA", ADEN | ADSC, w, 8);
	probe_series *r = probe_raises(p, "ADC_vect");
	ck(&c, nw == 4 && r->n == 4, "adc_sleep: %u starts, %u ADIF raises, want 4 and 4", nw,
	   r->n);
	for (unsigned i = 0; i < 4 && i < nw && i < r->n; i++) {
		uint64_t start = next_edge(on[0], 128, w[i]);
		uint64_t end = start + (i ? 13 : 25) * 128;
		ck(&c, r->cycle[i] == end,
		   "adc_sleep: ADSC written at %llu (phase %llu of the ADC clock): start %llu, "
		   "ADIF at %llu, got %llu", (ull)w[i], (ull)((w[i] - on[0]) % 128), (ull)start,
		   (ull)end, (ull)r->cycle[i]);
	}
	unsigned got[8];
	unsigned n = results(p, "GPIOR0", "GPIOR1", got, 8);
	for (unsigned i = 0; i < n && i < 8; i++)
		ck(&c, got[i] == 512, "adc_sleep: 2.5 V of 5 V gave %u, want 512", got[i]);
	probe_close(p);
	ck_done(&c);
}

/* ---- the channel a conversion uses ----------------------------------- */

/* ADC0 at 1.0 V (204), ADC1 at 4.0 V (819).  A conversion uses the
 * channel selected at its start: an ADMUX write after the start (but
 * before the sample-and-hold) does not change it; one before the start,
 * though after the ADSC write, does (§24.5: ADMUX is safely updated "at
 * least one ADC clock cycle after the trigger event"). */
static void test_mux_latched_at_start(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("adc_mux", M328, MHZ16, 20000, "adc 0 const 1000\nadc 1 const 4000\n",
		       REGS("ADCSRA", "ADMUX", "GPIOR0", "GPIOR1"));
	uint64_t w[4];
	unsigned nw = writes_with(p, "ADCSRA", ADEN | ADSC, w, 4);
	probe_series *m = probe_writes(p, "ADMUX");
	unsigned got[4];
	unsigned n = results(p, "GPIOR0", "GPIOR1", got, 4);
	ck(&c, nw == 3 && m->n == 4 && n == 3, "adc_mux: %u starts, %u ADMUX writes, %u results, "
	   "want 3, 4, 3", nw, m->n, n);
	static const unsigned before[3] = { 0, 1, 0 }, after[3] = { 1, 0, 1 };
	static const unsigned mv[2] = { 1000, 4000 };
	for (unsigned i = 0; i < 3 && nw == 3 && m->n == 4 && n == 3; i++) {
		uint64_t start = next_edge(w[0], 128, w[i]);
		uint64_t sh = start + (i ? 3 : 27) * 128 / 2;
		uint64_t change = m->cycle[i + 1];
		unsigned ch = change < start ? after[i] : before[i];
		ck(&c, got[i] == result(mv[ch], 5000),
		   "adc_mux: conversion %u: ADSC at %llu, start %llu, ADMUX to ADC%u at %llu "
		   "(sample-and-hold at %llu): want ADC%u's %u, got %u", i + 1, (ull)w[i],
		   (ull)start, after[i], (ull)change, (ull)sh, ch, result(mv[ch], 5000), got[i]);
		if (i != 1)
			ck(&c, change > start && change < sh, "adc_mux: conversion %u: the ADMUX write "
			   "at %llu is not between the start %llu and the sample %llu", i + 1,
			   (ull)change, (ull)start, (ull)sh);
		else
			ck(&c, change < start, "adc_mux: conversion 2: the ADMUX write at %llu is not "
			   "before the start %llu", (ull)change, (ull)start);
	}
	probe_close(p);
	ck_done(&c);
}

/* ---- the data register ----------------------------------------------- */

/* ADC0 at 2.0 V (409 = 0x199), ADC1 at 4.0 V (819 = 0x333).  ADCL, ADCH;
 * ADLAR set: ADCH 0x66, ADCL 0x40 at once; ADCL read then ADC1 converted:
 * lost, ADCH and ADCL still ADC0's; then ADC1's. */
static void test_data_register(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("adc_data", M328, MHZ16, 20000, "adc 0 const 2000\nadc 1 const 4000\n",
		       REGS("GPIOR0", "GPIOR1"));
	char lo[64], hi[64];
	report_string(p, "GPIOR0", lo, sizeof lo);
	report_string(p, "GPIOR1", hi, sizeof hi);
	ck(&c, !strcmp(lo, "99 40 99 99 33"), "adc_data: ADCL reads %s, want 99 40 99 99 33", lo);
	ck(&c, !strcmp(hi, "01 66 01 01 03"), "adc_data: ADCH reads %s, want 01 66 01 01 03", hi);
	probe_close(p);
	ck_done(&c);
}

/* ---- auto trigger ---------------------------------------------------- */

/* Timer0 at clk/64 overflows every 256 · 64 = 16384 cycles (from the
 * prescaler's grid: edge 256j after the TCCR0B write); each overflow
 * starts a conversion ending 3 + 13.5 · 128 = 1731 cycles later (the
 * first, after ADEN, 3 + 25.5 · 128 = 3267): 97 conversions in 0.1 s, each
 * of 3.0 V: 614. */
static void test_auto_trigger_timer0_overflow(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t limit = MHZ16 / 10;
	probe *p = run("adc_t0ovf", M328, MHZ16, limit, "adc 0 const 3000\n",
		       REGS("TCCR0B", "GPIOR0", "GPIOR1"));
	uint64_t w = probe_write_cycle(p, "TCCR0B", 0x03, 0);
	uint64_t want[128];
	unsigned nwant = 0;
	for (uint64_t j = 1; nwant < 128; j++) {
		uint64_t end = timer_edge(w, 64, 256 * j) + 3 + (j == 1 ? 51 : 27) * 128 / 2;
		if (end >= limit)
			break;
		want[nwant++] = end;
	}
	probe_series *r = probe_entries(p, "ADC_vect"), *a = probe_raises(p, "ADC_vect");
	ck(&c, nwant == 97, "arithmetic: %u conversions, want 97", nwant);
	ck(&c, a->n == nwant, "adc_t0ovf: %u conversions in 0.1 s, want %u", a->n, nwant);
	ck(&c, r->n == nwant, "adc_t0ovf: %u ADC interrupts, want %u", r->n, nwant);
	for (unsigned i = 0; i < a->n && i < nwant; i++)
		ck(&c, a->cycle[i] == want[i], "adc_t0ovf: conversion %u ends at %llu, want %llu", i + 1,
		   (ull)a->cycle[i], (ull)want[i]);
	unsigned got[128];
	unsigned n = results(p, "GPIOR0", "GPIOR1", got, 128);
	for (unsigned i = 0; i < n && i < 128; i++)
		ck(&c, got[i] == 614, "adc_t0ovf: result %u is %u, want 614", i + 1, got[i]);
	probe_close(p);
	ck_done(&c);
}

/* Every other auto trigger (ADTS 2, 3, 5, 6, 7; the analog comparator is
 * not simulated and warns): each rising edge of the source's flag starts
 * a conversion ending 3 + 13.5 · 128 = 1731 cycles later (3 + 25.5 · 128
 * = 3267 for the first after ADEN), the trigger's edges spaced more than
 * a conversion apart.  Their counts in 0.1 s (1,600,000 cycles): INT0
 * from PD2's falling edges at 6, 16, ..., 96 ms: 10; Timer0's compare A
 * at clk/64, OCR0A 100: the first 101 · 64 cycles after the start, then
 * every 256 · 64 = 16,384: 1 + floor((1,600,000 − 6,464 − ~100) / 16,384)
 * = 98; Timer1's compare B in CTC at clk/8, TOP 19999, OCR1B 5000: the
 * first at 5001 · 8, then every 160,000: 10; Timer1's overflow at clk/1:
 * every 65,536: 24; the capture of PB0's rising edges every 5 ms from
 * 1 ms: 20. */
static void test_each_auto_trigger_source(void **state)
{
	(void)state;
	static const struct {
		uint8_t adts;
		const char *vector, *stim;
		unsigned want;
	} src[] = {
		{ 2, "INT0_vect", "adc 0 const 3000\npin D2 every 10ms start 1ms pulse 5ms\n", 10 },
		{ 3, "TIMER0_COMPA_vect", "adc 0 const 3000\n", 98 },
		{ 5, "TIMER1_COMPB_vect", "adc 0 const 3000\n", 10 },
		{ 6, "TIMER1_OVF_vect", "adc 0 const 3000\n", 24 },
		{ 7, "TIMER1_CAPT_vect", "adc 0 const 3000\npin B0 every 5ms start 1ms pulse 100us\n",
		  20 },
	};
	check c = { .len = 0 };
	const uint64_t limit = MHZ16 / 10;
	for (size_t k = 0; k < sizeof src / sizeof *src; k++) {
		probe *p = probe_open("tests/chip/adc_triggers.elf", M328, MHZ16);
		probe_watch(p, "GPIOR0", "GPIOR1", NULL);
		probe_stimuli(p, src[k].stim);
		p->s->avr->data[probe_reg(p, "GPIOR2")] = src[k].adts;
		probe_run(p, limit);
		probe_series *t = probe_raises(p, src[k].vector), *a = probe_raises(p, "ADC_vect");
		ck(&c, t->n == src[k].want, "ADTS %u: %u trigger events in 0.1 s, want %u",
		   src[k].adts, t->n, src[k].want);
		unsigned n = 0;  /* triggers whose conversion ends within the run */
		for (unsigned i = 0; i < t->n; i++)
			n += t->cycle[i] + (i ? 1731 : 3267) < limit;
		ck(&c, a->n == n, "ADTS %u: %u conversions, want %u", src[k].adts, a->n, n);
		for (unsigned i = 0; i < a->n && i < t->n; i++)
			ck(&c, a->cycle[i] == t->cycle[i] + (i ? 1731 : 3267),
			   "ADTS %u: conversion %u ends at %llu, want %llu", src[k].adts, i + 1,
			   (ull)a->cycle[i], (ull)(t->cycle[i] + (i ? 1731 : 3267)));
		unsigned got[128];
		unsigned m = results(p, "GPIOR0", "GPIOR1", got, 128);
		for (unsigned i = 0; i < m; i++)
			ck(&c, got[i] == 614, "ADTS %u: result %u is %u, want 614", src[k].adts, i + 1,
			   got[i]);
		probe_close(p);
	}
	ck_done(&c);
}

/* Free running: ADSC written with ADEN and ADATE at w: the first ends at
 * w + 64 + 25 · 128, each next 13 · 128 = 1664 later; ADC0's sequence 1, 2,
 * 3, 4 V gives 204, 409, 614, 819 in turn; ADSC stays 1 (ADCSRA 0xef in
 * the handler, ADIF cleared by the entry). */
static void test_free_running(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t limit = 40000;
	probe *p = run("adc_free", M328, MHZ16, limit, "adc 0 seq 1000 2000 3000 4000\n",
		       REGS("ADCSRA", "GPIOR0", "GPIOR1", "GPIOR2"));
	uint64_t w = probe_write_cycle(p, "ADCSRA", ADEN | ADSC, 0);
	probe_series *r = probe_raises(p, "ADC_vect");
	unsigned nwant = 0;
	for (uint64_t end = w + 64 + 25 * 128; end < limit; end += 13 * 128)
		nwant++;
	ck(&c, r->n == nwant, "adc_free: %u conversions, want %u", r->n, nwant);
	for (unsigned i = 0; i < r->n && i < nwant; i++) {
		uint64_t end = w + 64 + 25 * 128 + (uint64_t)i * 13 * 128;
		ck(&c, r->cycle[i] == end, "adc_free: conversion %u ends at %llu, want %llu", i + 1,
		   (ull)r->cycle[i], (ull)end);
	}
	static const unsigned mv[4] = { 1000, 2000, 3000, 4000 };
	unsigned got[64];
	unsigned n = results(p, "GPIOR0", "GPIOR1", got, 64);
	ck(&c, n + 1 >= nwant && n <= nwant, "adc_free: %u results, want %u", n, nwant);
	for (unsigned i = 0; i < n && i < 64; i++)
		ck(&c, got[i] == result(mv[i % 4], 5000), "adc_free: result %u is %u, want %u", i + 1,
		   got[i], result(mv[i % 4], 5000));
	probe_series *s = probe_writes(p, "GPIOR2");
	for (unsigned i = 0; i < s->n; i++)
		ck(&c, s->value[i] == 0xef, "adc_free: ADCSRA in the handler %02x, want ef",
		   s->value[i]);
	probe_close(p);
	ck_done(&c);
}

/* ---- other parts ----------------------------------------------------- */

/* ATmega2560: MUX5 selects ADC8-15.  ADC8 at 3.0 V (614), ADC15 at 1.5 V
 * (307), ADC0 at 2.0 V (409).  Differential, gain 1 (2560 §26.7: ADC =
 * (Vpos - Vneg) · 512 / Vref in two's complement): ADC0 - ADC1 with ADC1
 * at 1.0 V gives 102 (102.4 rounded down); ADC0 - ADC2 with ADC2 at 3.0 V
 * gives -103 (-102.4 rounded down), 0x399 in ten bits.  The stimuli drive
 * ADC0-2; ADC8 and ADC15 are given on simavr's input IRQs directly, as
 * the stimuli would. */
static void test_m2560_channels_8_to_15(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/adc_m2560.elf", M2560, MHZ16);
	probe_watch(p, "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, "adc 0 const 2000\nadc 1 const 1000\nadc 2 const 3000\n"
		      "adc 8 const 3000\nadc 15 const 1500\n");
	probe_run(p, 30000);
	unsigned got[8];
	unsigned n = results(p, "GPIOR0", "GPIOR1", got, 8);
	static const unsigned want[5] = { 614, 307, 409, 102, 1024 - 103 };
	static const char *const ch[5] = { "ADC8", "ADC15", "ADC0", "ADC0 - ADC1", "ADC0 - ADC2" };
	ck(&c, n == 5, "adc_m2560: %u results, want 5", n);
	for (unsigned i = 0; i < 5 && i < n; i++)
		ck(&c, got[i] == want[i], "adc_m2560: %s gave 0x%03x, want 0x%03x", ch[i], got[i],
		   want[i]);
	probe_close(p);
	ck_done(&c);
}

/* ATmega16 at 8 MHz, clk/64: the 1.22 V bandgap (MUX 11110) reads
 * 1220 · 1024 / 5000 = 249; SBI ADCSRA, ADIE writes ADIF back as 1 and
 * clears it (ADCSRA 0x8e, no interrupt); ADTS = 100 in SFIOR, written
 * with PSR10: Timer0 (clk/64) counts c0 edges before the write (the
 * multiples of 64 in (TCCR0 write, SFIOR write]) and overflows 64 · (256j
 * - c0) cycles after it; each overflow starts a conversion of ADC0 (1.0
 * V: 204) ending 3 + 13.5 · 64 = 867 cycles later. */
static void test_m16_sfior_trigger(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t limit = 200000;
	probe *p = run("adc_m16", M16, MHZ8, limit, "adc 0 const 1000\n",
		       REGS("ADCSRA", "TCCR0", "SFIOR", "PORTA", "PORTB", "PORTC"));
	unsigned got[64];
	unsigned n = results(p, "PORTA", "PORTC", got, 64);
	ck(&c, n >= 1 && got[0] == result(1220, 5000), "adc_m16: the bandgap gave %u, want %u",
	   n ? got[0] : 0, result(1220, 5000));
	char b[16];
	report_string(p, "PORTB", b, sizeof b);
	ck(&c, !strcmp(b, "8e"), "adc_m16: ADCSRA after SBI ADIE: %s, want 8e", b);
	uint64_t wt = probe_write_cycle(p, "TCCR0", 0x03, 0);
	uint64_t ws = probe_write_cycle(p, "SFIOR", 0x81, 0);
	uint64_t c0 = ws / 64 - wt / 64;
	uint64_t want[64];
	unsigned nwant = 0;
	for (uint64_t j = 1; nwant < 64; j++) {
		uint64_t end = ws + 64 * (256 * j - c0) + 3 + 27 * 64 / 2;
		if (end >= limit)
			break;
		want[nwant++] = end;
	}
	probe_series *e = probe_entries(p, "ADC_vect"), *r = probe_raises(p, "ADC_vect");
	/* The first raise is the bandgap conversion's (polled). */
	ck(&c, r->n == nwant + 1, "adc_m16: %u ADIF raises, want %u (the bandgap's and %u "
	   "triggered)", r->n, nwant + 1, nwant);
	ck(&c, e->n == nwant, "adc_m16: %u ADC interrupts, want %u", e->n, nwant);
	for (unsigned i = 0; i + 1 < r->n && i < nwant; i++)
		ck(&c, r->cycle[i + 1] == want[i], "adc_m16: triggered conversion %u ends at %llu, "
		   "want %llu", i + 1, (ull)r->cycle[i + 1], (ull)want[i]);
	for (unsigned i = 1; i < n; i++)
		ck(&c, got[i] == 204, "adc_m16: triggered result %u is %u, want 204", i, got[i]);
	probe_close(p);
	ck_done(&c);
}

/* ---- reset, ADEN ---------------------------------------------------- */

/* A watchdog reset during a free-running conversion: the chip's reset
 * leaves the ADC off and its registers 0 (§24.9: initial values), and the
 * conversion under way never ends.  ADEN cleared during a conversion ends
 * it (§24.9.2: "Turning the ADC off while a conversion is in progress,
 * will terminate this conversion"): no ADIF, ADSC 0, ADCSRA reads ADPS
 * alone (0x07). */
static void test_reset_and_aden_off(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("adc_reset", M328, MHZ16, 300000, "adc 0 const 3000\n",
		       REGS("GPIOR0", "GPIOR2"));
	probe_series *boots = probe_writes(p, "GPIOR2");
	ck(&c, boots->n == 2 && (boots->value[1] & 0x08), "adc_reset: %u boots, want 2, the "
	   "second by the watchdog", boots->n);
	char regs[64];
	report_string(p, "GPIOR0", regs, sizeof regs);
	ck(&c, !strcmp(regs, "00 00 00 07"), "adc_reset: ADCSRA, ADCL, ADCH after the reset, "
	   "ADCSRA after ADEN cleared: %s, want 00 00 00 07", regs);
	probe_series *r = probe_raises(p, "ADC_vect");
	unsigned before = 0, after = 0;
	for (unsigned i = 0; i < r->n; i++) {
		if (boots->n == 2 && r->cycle[i] > boots->cycle[1])
			after++;
		else
			before++;
	}
	ck(&c, before > 0, "adc_reset: no conversion ended before the reset");
	ck(&c, after == 0, "adc_reset: %u conversions ended after the reset, want 0", after);
	probe_close(p);
	ck_done(&c);
}

/* ---- what is not simulated ------------------------------------------- */

/* The analog comparator as the trigger: nothing starts, and one warning
 * names the register and the effect lost. */
static void test_unsimulated_trigger_warns(void **state)
{
	(void)state;
	probe *p = run("adc_warn", M328, MHZ16, 20000, NULL, NULL);
	assert_string_equal(probe_warnings(p), "adc: ADCSRB selects the analog comparator as the "
			    "ADC trigger (ADTS 1), which is not simulated: no conversion starts\n");
	assert_string_equal(probe_warnings(p), "");  /* said once */
	assert_int_equal(probe_raises(p, "ADC_vect")->n, 0);
	probe_close(p);
}

/* ---- recording ------------------------------------------------------- */

static void test_replays_exactly(void **state)
{
	test_scratch *s = *state;
	char stim[300], path[256];
	snprintf(stim, sizeof stim, "%s/adc.stim", s->dir);
	test_write_text(stim, "adc 0 saw 0 5000 period 3ms\n");
	test_record(s, path, sizeof path, "adc_t0ovf.db", "tests/chip/adc_t0ovf.elf --mcu "
		    "atmega328p --freq 16000000 --cycles 1600000 --stimuli '%s'", stim);
	/* 97 conversions and as many overflows: an interrupt each. */
	test_assert_replay_exact(s, path, 194);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polled_conversions_and_adif),
		cmocka_unit_test(test_conversion_timing),
		cmocka_unit_test(test_mux_latched_at_start),
		cmocka_unit_test(test_data_register),
		cmocka_unit_test(test_auto_trigger_timer0_overflow),
		cmocka_unit_test(test_each_auto_trigger_source),
		cmocka_unit_test(test_free_running),
		cmocka_unit_test(test_m2560_channels_8_to_15),
		cmocka_unit_test(test_m16_sfior_trigger),
		cmocka_unit_test(test_reset_and_aden_off),
		cmocka_unit_test(test_unsimulated_trigger_warns),
		cmocka_unit_test_setup_teardown(test_replays_exactly, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
