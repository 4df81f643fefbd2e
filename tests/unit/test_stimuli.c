/*
 * test_stimuli.c — stimuli files end to end: parse errors by their exact
 * "FILE:LINE:COL: message", and a real simavr atmega16 at 8 MHz driven by
 * attached scripts, observed through its own IRQs (a UART through its
 * input IRQ, where sim/periph_uart.c takes each frame) while the test
 * advances the cycle counter timer by timer.  What the receiver then does
 * with a frame is tests/integration/test_conformance_uart.c's.
 */
#include "tests/testlib.h"

#include <math.h>

#include <avr_adc.h>
#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_io.h>
#include <sim_irq.h>

#include "sim/stimuli.h"

#define FREQ 8000000u /* 1 us = 8 cycles */

/* ------------------------------------------------------------ scaffolding */

/* simavr 1.6 never frees its IRQs and their hooks (avr_terminate leaves
 * them), so LeakSanitizer is told to ignore allocations made inside it;
 * leaks of our own still fail the run.  Unused without ASan. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libsimavr.so\n";
}

static avr_t *core(void)
{
	avr_t *avr = avr_make_mcu_by_name("atmega16");
	assert_non_null(avr);
	assert_int_equal(avr_init(avr), 0);
	avr->frequency = FREQ;
	avr->log = LOG_NONE;
	return avr;
}

static void core_free(avr_t *avr)
{
	avr_terminate(avr);
	free(avr);
}

/* What an observed IRQ received, and at which cycle. */
typedef struct obs {
	avr_t *avr;
	size_t n;
	uint64_t cycle[256];
	uint32_t val[256];
} obs;

static void obs_notify(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	obs *o = param;
	if (o->n < 256) {
		o->cycle[o->n] = o->avr->cycle;
		o->val[o->n++] = value;
	}
}

static void observe(avr_t *avr, avr_irq_t *irq, obs *o)
{
	assert_non_null(irq);
	memset(o, 0, sizeof *o);
	o->avr = avr;
	avr_irq_register_notify(irq, obs_notify, o);
}

static avr_irq_t *pin_irq(avr_t *avr, char port, int bit)
{
	return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}

/* Advances the core to `limit`, stopping the clock at each timer's cycle so
 * observers see the exact cycle an event fires at. */
static void run_until(avr_t *avr, uint64_t limit)
{
	while (avr->cycle_timers.timer && avr->cycle_timers.timer->when <= limit) {
		if (avr->cycle < avr->cycle_timers.timer->when)
			avr->cycle = avr->cycle_timers.timer->when;
		avr_cycle_timer_process(avr);
	}
	if (avr->cycle < limit)
		avr->cycle = limit;
}

/* Starts a conversion of single-ended channel ch as simavr would, and
 * returns the millivolts the script answered with. */
static uint32_t convert(avr_t *avr, unsigned ch)
{
	union {
		avr_adc_mux_t mux;
		uint32_t v;
	} e;
	memset(&e, 0, sizeof e);
	e.mux.kind = ADC_MUX_SINGLE;
	e.mux.src = ch;
	avr_irq_t *trig = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER);
	avr_irq_t *in = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + ch);
	in->value = 0xdeadbeef;
	avr_raise_irq(trig, e.v);
	return in->value;
}

static stim_script *parse_ok(const char *text)
{
	stim_script *s = NULL;
	avrr_err err = { "" };
	int r = stim_parse(text, "t.stim", &s, &err);
	if (r)
		fail_msg("unexpected parse error: %s", err.msg);
	assert_non_null(s);
	return s;
}

static stim_runtime *attach_ok(const stim_script *s, avr_t *avr, uint64_t seed)
{
	stim_runtime *rt = NULL;
	avrr_err err = { "" };
	if (stim_attach(s, avr, seed, &rt, &err))
		fail_msg("unexpected attach error: %s", err.msg);
	assert_non_null(rt);
	return rt;
}

/* ------------------------------------------------------------------ parse */

static void test_parse_doc_example(void **state)
{
	(void)state;
	const char *text =
		"# adcapp.stim — a sensor, a control station, a push button\n"
		"seed 7\n"
		"adc 0 sine 500 4500 period 20ms         # channel 0\n"
		"adc 1 random 0 5000\n"
		"uart 0 at 1ms \"hello\\n\"\n"
		"uart 0 every 4ms start 2ms jitter 300us \"r\"\n"
		"pin D2 every 1ms start 500us jitter 100us pulse 40us   # INT0\n";
	stim_script *s = parse_ok(text);
	assert_true(stim_default_seed(s) == 7);
	avr_t *avr = core();
	stim_runtime *rt = attach_ok(s, avr, stim_default_seed(s));
	assert_non_null(stim_state(rt));
	assert_true(stim_state_size(rt) > 0);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

static void test_parse_lexical(void **state)
{
	(void)state;
	/* CRLF, tabs, comments glued to tokens, hex, every unit, escapes, a '#'
	 * inside a string, blank and comment-only lines. */
	const char *text =
		"\r\n"
		"   # nothing\n"
		"\tseed\t0x1F# comment\r\n"
		"adc 15 seq 1 0x2 3\n"
		"uart 3 at 0x1c \"#\\x41\\t\\\\\\\"\" 0 255 0xff\n"
		"pin L7 every 2s start 0 jitter 1c toggle\n"
		"pin a0 at 5us low";
	stim_script *s = parse_ok(text);
	assert_true(stim_default_seed(s) == 31);
	stim_free(s);

	s = parse_ok("");
	assert_true(stim_default_seed(s) == 0);
	stim_free(s);
	s = parse_ok("seed 18446744073709551615");
	assert_true(stim_default_seed(s) == UINT64_MAX);
	stim_free(s);
}

static void test_parse_errors(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "foo 1", "t.stim:1:1: unknown directive 'foo' (expected seed, adc, uart, pin, i2c or spi)" },
		{ "\n# x\nadc 0 square 1", "t.stim:3:7: unknown ADC source 'square' (expected const, seq, random, sine or saw)" },
		{ "adc 0 const 4x", "t.stim:1:13: bad integer '4x' (expected decimal or 0x hexadecimal)" },
		{ "uart 0 at 4xs 1", "t.stim:1:11: bad time '4xs' (expected an integer with unit c, us, ms or s)" },
		{ "adc 16 const 1", "t.stim:1:5: ADC channel 16 out of range (0-15)" },
		{ "uart 4 at 1 1", "t.stim:1:6: UART 4 out of range (0-3)" },
		{ "pin Q9 at 1 high", "t.stim:1:5: pin 'Q9' is not a port letter A-L and bit 0-7" },
		{ "pin D8 at 1 high", "t.stim:1:5: pin 'D8' is not a port letter A-L and bit 0-7" },
		{ "uart 0 at 1 1 256", "t.stim:1:15: byte '256' out of range (0-255)" },
		{ "uart 0 at 1 x", "t.stim:1:13: bad byte 'x' (expected an integer 0-255 or a string)" },
		{ "uart 0 at 1 \"abc", "t.stim:1:13: unterminated string" },
		{ "uart 0 at 1 \"a\\\"", "t.stim:1:13: unterminated string" },
		{ "uart 0 at 1 \"a\\qb\"", "t.stim:1:15: bad escape '\\q' in string (expected \\n, \\r, \\t, \\\\, \\\" or \\xNN)" },
		{ "uart 0 at 1 \"\\x4g\"", "t.stim:1:14: bad escape '\\x4g' in string (expected \\n, \\r, \\t, \\\\, \\\" or \\xNN)" },
		{ "adc 0 const", "t.stim:1:13: missing millivolts" },
		{ "adc", "t.stim:1:5: missing ADC channel" },
		{ "pin D2 at 1ms  # c", "t.stim:1:15: missing level (high, low or release)" },
		{ "uart 0 at 1ms", "t.stim:1:15: missing bytes (integers 0-255 or strings)" },
		{ "seed 1 2", "t.stim:1:8: unexpected '2' after the directive" },
		{ "adc 0 const 5 5", "t.stim:1:15: unexpected '5' after the directive" },
		{ "seed 1\nseed 2", "t.stim:2:1: seed given twice (first on line 1)" },
		{ "pin D2 every 1ms jitter 500us toggle", "t.stim:1:25: jitter '500us' must be less than half the period '1ms'" },
		{ "uart 0 every 10 jitter 5 1", "t.stim:1:24: jitter '5' must be less than half the period '10'" },
		{ "adc 0 random 500 100", "t.stim:1:18: MAX 100 is less than MIN 500" },
		{ "uart 0 every 0ms 1", "t.stim:1:14: zero period" },
		{ "adc 2 saw 0 1 period 0", "t.stim:1:22: zero period" },
		{ "pin D2 every 1ms pulse 0us", "t.stim:1:24: zero pulse width" },
		{ "seed 18446744073709551616", "t.stim:1:6: integer '18446744073709551616' is too large" },
		{ "uart 0 at 18446744073709551615s 1", "t.stim:1:11: time '18446744073709551615s' is too large" },
		{ "seed 0x", "t.stim:1:6: bad integer '0x' (expected decimal or 0x hexadecimal)" },
		{ "adc 0 sine 0 5000 freq 1ms", "t.stim:1:19: expected 'period', got 'freq'" },
		{ "adc 0 const 65536", "t.stim:1:13: millivolts 65536 out of range (0-65535)" },
		{ "uart 0 soon 1", "t.stim:1:8: expected 'at' or 'every', got 'soon'" },
		{ "uart 0 at 1 bad 1", "t.stim:1:17: expected stop or parity after 'bad', got '1'" },
		{ "uart 0 at 1 bad", "t.stim:1:17: missing stop or parity after 'bad'" },
		{ "uart 0 at 1 bad stop bad stop 1", "t.stim:1:26: 'bad stop' given twice" },
		{ "uart 0 at 1 bad stop", "t.stim:1:22: missing bytes (integers 0-255 or strings)" },
		{ "pin D2 every 1ms high", "t.stim:1:18: expected toggle or pulse, got 'high'" },
		{ "pin D2 every 1ms start 1 start 2 toggle", "t.stim:1:26: 'start' given twice" },
		{ "ADC 0 const 1", "t.stim:1:1: unknown directive 'ADC' (expected seed, adc, uart, pin, i2c or spi)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		stim_script *s = (stim_script *)&s; /* must be reset to NULL */
		avrr_err err = { "" };
		int r = stim_parse(cases[i][0], "t.stim", &s, &err);
		if (r == 0 || strcmp(err.msg, cases[i][1]) != 0)
			fail_msg("input %zu \"%s\"\n  got:  %s\n  want: %s", i,
				 cases[i][0], r ? err.msg : "(success)", cases[i][1]);
		assert_null(s);
		assert_null(strchr(err.msg, '\n'));
	}
}

/* Random edits of a valid file must never crash the parser (this test
 * earns its keep under ASan/UBSan). */
static void test_parse_garbage(void **state)
{
	(void)state;
	static const char base[] =
		"seed 7\nadc 0 sine 500 4500 period 20ms\nadc 1 seq 1 2 3\n"
		"uart 0 every 4ms start 2ms jitter 300us \"r\\x41\\n\" 0x10\n"
		"pin D2 every 1ms start 500us jitter 100us pulse 40us\n";
	static const char alphabet[] = "0123456789xcusm \t\n\"\\#abdegprtADQ-";
	uint64_t x = 12345;
	char buf[sizeof base + 64];
	for (int iter = 0; iter < 20000; iter++) {
		memcpy(buf, base, sizeof base);
		size_t len = sizeof base - 1;
		int edits = 1 + (int)((x >> 60) & 7);
		for (int k = 0; k < edits; k++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			size_t at = (size_t)((x >> 33) % len);
			char ch = alphabet[(x >> 20) % (sizeof alphabet - 1)];
			if ((x >> 10) & 1) {
				buf[at] = ch;
			} else if (len + 1 < sizeof buf) {
				memmove(buf + at + 1, buf + at, len - at + 1);
				buf[at] = ch;
				len++;
			}
		}
		if ((x >> 5) % 7 == 0)
			buf[(x >> 40) % len] = 0;
		stim_script *s = NULL;
		avrr_err err;
		if (stim_parse(buf, "g.stim", &s, &err) == 0)
			stim_free(s);
		else
			assert_int_equal(strncmp(err.msg, "g.stim:", 7), 0);
	}
}

/* ----------------------------------------------------------------- attach */

static void attach_err(const char *text, uint32_t freq, const char *want)
{
	stim_script *s = parse_ok(text);
	avr_t *avr = core();
	avr->frequency = freq;
	stim_runtime *rt = (stim_runtime *)&rt;
	avrr_err err = { "" };
	int r = stim_attach(s, avr, 0, &rt, &err);
	if (r == 0 || strcmp(err.msg, want) != 0)
		fail_msg("script \"%s\"\n  got:  %s\n  want: %s", text,
			 r ? err.msg : "(success)", want);
	assert_null(rt);
	stim_free(s);
	core_free(avr);
}

static void test_attach_errors(void **state)
{
	(void)state;
	attach_err("\nadc 9 const 1", FREQ, "t.stim:2:5: this MCU has no ADC channel 9");
	attach_err("uart 1 at 1 1", FREQ, "t.stim:1:6: this MCU has no UART 1");
	attach_err("pin D0 at 1 high\npin E0 at 1 high", FREQ, "t.stim:2:5: this MCU has no port E");
	/* 10 cycles vs 1 us = 8 cycles: only comparable once the clock is known */
	attach_err("pin D2 every 10c jitter 1us toggle", FREQ,
		   "t.stim:1:25: jitter '1us' must be less than half the period '10' (8 and 10 cycles at 8000000 Hz)");
	attach_err("pin D2 every 1us toggle", 100000, "t.stim:1:14: period '1us' is less than one cycle at 100000 Hz");
	attach_err("pin D2 every 1ms pulse 1us", 100000, "t.stim:1:24: pulse width '1us' is less than one cycle at 100000 Hz");
	attach_err("adc 0 saw 0 1 period 9us", 100000, "t.stim:1:22: period '9us' is less than one cycle at 100000 Hz");
	attach_err("uart 0 at 18446744073709551615us 1", FREQ, "t.stim:1:11: time '18446744073709551615us' is too large at 8000000 Hz");
}

/* UART 0: its frame time (simavr's default: no firmware sets a baud rate
 * here), and its input IRQ, where each frame arrives. */
static avr_uart_t *uart0(avr_t *avr)
{
	for (avr_io_t *port = avr->io_port; port; port = port->next)
		if (port->kind && !strcmp(port->kind, "uart") && ((avr_uart_t *)port)->name == '0')
			return (avr_uart_t *)port;
	fail_msg("no UART 0");
	return NULL;
}

static avr_irq_t *uart0_input(avr_t *avr)
{
	return avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
}

/* Bytes arrive one frame apart, each at its stop bit. */
static void test_uart_at(void **state)
{
	(void)state;
	stim_script *s = parse_ok("uart 0 at 1ms \"hi\\n\" 0x7f\n");
	avr_t *avr = core();
	obs o;
	observe(avr, uart0_input(avr), &o);
	stim_runtime *rt = attach_ok(s, avr, 0);
	const uint64_t frame = uart0(avr)->cycles_per_byte;
	assert_true(frame > 1);
	run_until(avr, 7999);
	assert_int_equal(o.n, 0);
	run_until(avr, 8000 + frame - 1);
	assert_int_equal(o.n, 1);
	run_until(avr, 100000);
	assert_int_equal(o.n, 4);
	static const uint32_t want[4] = { 'h', 'i', '\n', 0x7f };
	for (unsigned k = 0; k < 4; k++) {
		assert_int_equal(o.cycle[k], 8000 + k * frame);
		assert_int_equal(o.val[k], want[k]);
	}
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

/* Each byte of an occurrence a frame after the one before; an occurrence
 * of another line in between keeps its own time. */
static void test_uart_every(void **state)
{
	(void)state;
	stim_script *s = parse_ok("uart 0 every 4000c \"ab\"\nuart 0 every 1ms start 2000c 7\n");
	avr_t *avr = core();
	obs o;
	observe(avr, uart0_input(avr), &o);
	stim_runtime *rt = attach_ok(s, avr, 0);
	const uint64_t frame = uart0(avr)->cycles_per_byte;
	assert_true(frame < 1000);
	run_until(avr, 12000 + frame);
	const struct { uint64_t cycle; uint32_t val; } want[] = {
		{ 2000, 7 }, { 4000, 'a' }, { 4000 + frame, 'b' }, { 8000, 'a' },
		{ 8000 + frame, 'b' }, { 10000, 7 }, { 12000, 'a' }, { 12000 + frame, 'b' },
	};
	assert_int_equal(o.n, 8);
	for (size_t k = 0; k < 8; k++) {
		assert_int_equal(o.cycle[k], want[k].cycle);
		assert_int_equal(o.val[k], want[k].val);
	}
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

/* `bad stop` and `bad parity` mark every frame of their line (simavr's
 * frame error flag, UART_INPUT_FE, and the parity flag beside it). */
static void test_uart_bad_frames(void **state)
{
	(void)state;
	stim_script *s = parse_ok("uart 0 at 10 bad stop 1 2\n"
				  "uart 0 at 20000 bad parity bad stop 3\n"
				  "uart 0 at 30000 bad parity 4\n");
	avr_t *avr = core();
	obs o;
	observe(avr, uart0_input(avr), &o);
	stim_runtime *rt = attach_ok(s, avr, 0);
	run_until(avr, 40000);
	static const uint32_t want[4] = { UART_INPUT_FE | 1, UART_INPUT_FE | 2,
					  UART_INPUT_FE | 0x4000 | 3, 0x4000 | 4 };
	assert_int_equal(o.n, 4);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(o.val[k], want[k]);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

static void test_pin_at_and_toggle(void **state)
{
	(void)state;
	stim_script *s = parse_ok("pin B1 at 10 high\npin B1 at 20us low\n"
				  "pin B3 every 1us start 4c toggle\n");
	avr_t *avr = core();
	obs b1, b3;
	observe(avr, pin_irq(avr, 'B', 1), &b1);
	observe(avr, pin_irq(avr, 'B', 3), &b3);
	stim_runtime *rt = attach_ok(s, avr, 0);
	/* a toggled pin starts low, driven at attach */
	assert_int_equal(b3.n, 1);
	assert_int_equal(b3.val[0], 0);
	run_until(avr, 30);
	assert_int_equal(b1.n, 1);
	assert_int_equal(b1.cycle[0], 10);
	assert_int_equal(b1.val[0], 1);
	assert_int_equal(b3.n, 5); /* 4, 12, 20, 28 */
	for (int k = 0; k < 4; k++) {
		assert_int_equal(b3.cycle[1 + k], 4 + 8 * k);
		assert_int_equal(b3.val[1 + k], (k & 1) ? 0 : 1);
	}
	run_until(avr, 200);
	assert_int_equal(b1.n, 2);
	assert_int_equal(b1.cycle[1], 160);
	assert_int_equal(b1.val[1], 0);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

static void test_pin_pulse(void **state)
{
	(void)state;
	stim_script *s = parse_ok("pin D2 every 1ms start 500us pulse 40us\n"
				  "pin D3 every 10 pulse 15\n");
	avr_t *avr = core();
	obs d2, d3;
	observe(avr, pin_irq(avr, 'D', 2), &d2);
	observe(avr, pin_irq(avr, 'D', 3), &d3);
	stim_runtime *rt = attach_ok(s, avr, 0);
	run_until(avr, 3 * 8000);
	/* attach low, then rise at 4000 + 8000k and fall 320 cycles later */
	assert_int_equal(d2.n, 1 + 6);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(d2.cycle[1 + 2 * k], 4000 + 8000 * k);
		assert_int_equal(d2.val[1 + 2 * k], 1);
		assert_int_equal(d2.cycle[2 + 2 * k], 4320 + 8000 * k);
		assert_int_equal(d2.val[2 + 2 * k], 0);
	}
	/* D3's pulses (15) outlast its period (10): they merge into one long
	 * high level (simavr filters the repeated 1s of a pin IRQ). */
	assert_int_equal(d3.n, 2);
	assert_int_equal(d3.val[0], 0);
	assert_int_equal(d3.cycle[1], 10);
	assert_int_equal(d3.val[1], 1);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

static void test_adc(void **state)
{
	(void)state;
	stim_script *s = parse_ok("adc 0 const 1234\n"
				  "adc 1 seq 10 20 30\n"
				  "adc 2 random 100 103\n"
				  "adc 3 sine 500 4500 period 1000c\n"
				  "adc 4 saw 0 1000 period 100\n"
				  "adc 5 const 1\nadc 5 const 2\n");
	avr_t *avr = core();
	stim_runtime *rt = attach_ok(s, avr, 0);
	assert_int_equal(convert(avr, 0), 1234);
	assert_int_equal(convert(avr, 1), 10);
	assert_int_equal(convert(avr, 1), 20);
	assert_int_equal(convert(avr, 1), 30);
	assert_int_equal(convert(avr, 1), 10);
	assert_int_equal(convert(avr, 5), 2); /* the last line wins */
	assert_int_equal(convert(avr, 6), 0xdeadbeef); /* unscripted: untouched */
	int seen[4] = { 0 };
	for (int k = 0; k < 200; k++) {
		uint32_t v = convert(avr, 2);
		assert_in_range(v, 100, 103);
		seen[v - 100]++;
	}
	for (int k = 0; k < 4; k++)
		assert_true(seen[k] > 20);
	/* sine: middle rising at phase 0, max at 1/4, min at 3/4 */
	for (uint64_t c = 0; c < 3000; c += 7) {
		avr->cycle = c;
		double want = 2500 + 2000 * sin(2 * M_PI * (double)(c % 1000) / 1000);
		uint32_t got = convert(avr, 3);
		assert_true(fabs((double)got - want) <= 1.0);
	}
	avr->cycle = 250;
	assert_int_equal(convert(avr, 3), 4500);
	avr->cycle = 750;
	assert_int_equal(convert(avr, 3), 500);
	avr->cycle = 2000;
	assert_int_equal(convert(avr, 3), 2500);
	avr->cycle = 1050;
	assert_int_equal(convert(avr, 4), 500);
	avr->cycle = 1099;
	assert_int_equal(convert(avr, 4), 990);
	avr->cycle = 1100;
	assert_int_equal(convert(avr, 4), 0);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

/* ------------------------------------------------------------ determinism */

/* The first 40 cycles pin `port``bit` changed at, under `text` and seed. */
static void pin_times(const char *text, uint64_t seed, char port, int bit,
		      uint64_t out[40])
{
	stim_script *s = parse_ok(text);
	avr_t *avr = core();
	obs o;
	observe(avr, pin_irq(avr, port, bit), &o);
	stim_runtime *rt = attach_ok(s, avr, seed);
	run_until(avr, 41 * 8000);
	assert_true(o.n >= 41);
	for (int k = 0; k < 40; k++)
		out[k] = o.cycle[1 + k];
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

static void test_jitter_seeds(void **state)
{
	(void)state;
	const char *one = "pin D2 every 1ms jitter 300us toggle\n";
	const char *more = "pin D2 every 1ms jitter 300us toggle\n"
			   "adc 0 random 0 5000\n"
			   "pin D3 every 100us jitter 40us toggle\n";
	uint64_t a[40], b[40], c[40], d[40];
	pin_times(one, 1, 'D', 2, a);
	pin_times(one, 1, 'D', 2, b);
	pin_times(one, 2, 'D', 2, c);
	pin_times(more, 1, 'D', 2, d);
	assert_memory_equal(a, b, sizeof a);
	assert_memory_equal(a, d, sizeof a); /* other lines leave D2's draws alone */
	int same = 0, moved = 0;
	for (int k = 0; k < 40; k++) {
		uint64_t base = 8000 * (uint64_t)(k + 1);
		assert_in_range(a[k], base - 2400, base + 2400);
		assert_in_range(c[k], base - 2400, base + 2400);
		same += a[k] == c[k];
		moved += a[k] != base;
	}
	assert_true(same < 5);
	assert_true(moved > 30);

	/* A jittered first occurrence near cycle 0 never fires before cycle 1. */
	for (uint64_t seed = 0; seed < 20; seed++) {
		stim_script *s = parse_ok("pin C0 every 100 start 0 jitter 49 toggle");
		avr_t *avr = core();
		obs o;
		observe(avr, pin_irq(avr, 'C', 0), &o);
		stim_runtime *rt = attach_ok(s, avr, seed);
		run_until(avr, 1000);
		assert_true(o.n >= 10);
		assert_true(o.cycle[1] >= 1 && o.cycle[1] <= 49);
		for (size_t k = 2; k < o.n; k++)
			assert_true(o.cycle[k] > o.cycle[k - 1]);
		stim_detach(rt);
		stim_free(s);
		core_free(avr);
	}
}

/* Restoring the state block (with simavr's own timer pool) replays the
 * same events and the same random draws. */
static void test_state_checkpoint(void **state)
{
	(void)state;
	stim_script *s = parse_ok("uart 0 every 1ms jitter 400us 1\n"
				  "pin D2 every 3ms jitter 1ms toggle\n"
				  "adc 0 random 0 5000\nadc 1 seq 1 2 3 4 5\n");
	avr_t *avr = core();
	obs u, p;
	observe(avr, uart0_input(avr), &u);
	observe(avr, pin_irq(avr, 'D', 2), &p);
	stim_runtime *rt = attach_ok(s, avr, 99);
	assert_int_equal(stim_state_size(rt) % 8, 0);
	run_until(avr, 5 * 8000);
	convert(avr, 1);

	uint32_t size = stim_state_size(rt);
	void *saved = malloc(size);
	memcpy(saved, stim_state(rt), size);
	avr_cycle_timer_pool_t pool = avr->cycle_timers;
	uint64_t cycle = avr->cycle;
	size_t un = u.n, pn = p.n;
	/* simavr filters a pin IRQ raised to its current value, so the IRQ's
	 * value is part of what a checkpoint must restore. */
	uint32_t d2 = pin_irq(avr, 'D', 2)->value;

	uint32_t adc1[2][6], adc0[2][6];
	uint64_t ucyc[2][8], pcyc[2][4];
	for (int round = 0; round < 2; round++) {
		if (round) {
			memcpy(stim_state(rt), saved, size);
			avr->cycle_timers = pool;
			avr->cycle = cycle;
			pin_irq(avr, 'D', 2)->value = d2;
			u.n = un;
			p.n = pn;
		}
		for (int k = 0; k < 6; k++) {
			adc0[round][k] = convert(avr, 0);
			adc1[round][k] = convert(avr, 1);
		}
		run_until(avr, 15 * 8000);
		assert_true(u.n >= un + 8 && p.n >= pn + 3);
		memcpy(ucyc[round], u.cycle + un, sizeof ucyc[round]);
		memcpy(pcyc[round], p.cycle + pn, 3 * sizeof(uint64_t));
	}
	assert_memory_equal(adc0[0], adc0[1], sizeof adc0[0]);
	assert_memory_equal(adc1[0], adc1[1], sizeof adc1[0]);
	assert_memory_equal(ucyc[0], ucyc[1], sizeof ucyc[0]);
	assert_memory_equal(pcyc[0], pcyc[1], 3 * sizeof(uint64_t));
	assert_int_equal(adc1[0][0], 2); /* one value of the sequence was used */
	free(saved);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_doc_example),
		cmocka_unit_test(test_parse_lexical),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_attach_errors),
		cmocka_unit_test(test_uart_at),
		cmocka_unit_test(test_uart_every),
		cmocka_unit_test(test_uart_bad_frames),
		cmocka_unit_test(test_pin_at_and_toggle),
		cmocka_unit_test(test_pin_pulse),
		cmocka_unit_test(test_adc),
		cmocka_unit_test(test_jitter_seeds),
		cmocka_unit_test(test_state_checkpoint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
