/*
 * test_conformance_sleep.c — sleep modes and power reduction against the
 * datasheets: which clocks each sleep mode stops, and so which modules
 * freeze and which interrupts can wake the CPU; the wake-up's timing; each
 * PRR bit stopping its module, which resumes where it stood.  Each
 * firmware of tests/chip/sleep_*.c runs on its MCU and clock, and every
 * number checked is worked out here from the datasheet, never taken from
 * a run.  tests/chip/README.md has the table.  The ATmega328P datasheet's
 * (7810D) chapters "Power Management and Sleep Modes" (its table "Active
 * Clock Domains and Wake-up Sources in the Different Sleep Modes", and
 * "Power Reduction Register"), "System Clock and Clock Options" (the clock
 * domains, the start-up times) and "Reset and Interrupt Handling"
 * ("Interrupt Response Time"); the ATmega2560's (2549Q) chapter "Power
 * Management and Sleep Modes" says the same for PRR0/PRR1.
 *
 * The arithmetic.
 *  - The table: idle stops clk_CPU and clk_FLASH only; ADC Noise
 *    Reduction also clk_I/O (clk_ADC and clk_ASY run); power-save and
 *    extended standby all but clk_ASY; power-down and standby all.  A
 *    module whose clock stops stands: the timers on clk_I/O (Timer2 on
 *    clk_ASY with AS2), the ADC on clk_ADC, the SPI on clk_I/O; the
 *    watchdog runs on its own 128 kHz oscillator, the EEPROM on its own.
 *  - A stopped timer keeps its count and its prescaler's phase: with the
 *    clock stopped from cycle s to cycle r, a timer clock edge due at
 *    s + d comes at r + d.  So a count at cycle x is the count of "clock
 *    time" tau(x) = x less every stop before x (a stop is [s, r)), with the
 *    prescaler's edges at multiples of N of clock time from reset (the
 *    timers' arithmetic, test_conformance).  PRTIMn stops timer n alone:
 *    Timer0/1's prescaler is shared and runs on (§17: it is clocked by
 *    clk_I/O), so timer n counts again at the prescaler's next edge;
 *    Timer2's prescaler is its own (§18.10) and stands with it
 *    ("operation will continue like before the shutdown").
 *  - The wake-up ("Interrupt Response Time"): "If an interrupt occurs when
 *    the MCU is in sleep mode, the interrupt execution response time is
 *    increased by four clock cycles.  This increase comes in addition to
 *    the start-up time from the selected sleep mode."  The response is
 *    four cycles, then the vector's JMP three.  The start-up time from
 *    power-down, power-save, standby and extended standby is six clocks
 *    with the factory fuses (the calibrated RC oscillator, SUT 10: "6 CK"
 *    from power-down and power-save); from idle and ADC Noise Reduction
 *    none.  The clocks run again after the start-up ("Sleep Modes": "The
 *    MCU is then halted for four cycles in addition to the start-up
 *    time").  So an interrupt raised at cycle W in power-down has its
 *    handler's first instruction at W + 6 + 4 + 4 + 3, in idle at
 *    W + 4 + 4 + 3; the clocks stand from the sleep to W + 6.
 *  - The watchdog's timeout: 2048 << WDP cycles of 128 kHz, 125 CPU
 *    cycles each at 16 MHz: 256,000 at WDP 0, counted from the write that
 *    starts it (test_conformance_wdt).
 *  - The ADC (§24.4): a conversion starts at the first rising ADC clock
 *    edge after its start (edges at N/2 + kN cycles from ADEN's write) and
 *    ends 13 ADC clocks later, 25 for the first after ADEN.  In ADC Noise
 *    Reduction "If the ADC is enabled, a conversion starts automatically
 *    when this mode is entered": at the first edge after SLEEP.
 *  - The SPI (§19): a master byte takes 8 SCK periods, 8·128 cycles at
 *    fosc/128.
 *
 * simavr's core stores at the start of the storing instruction: the cycles
 * of writes here are those.  A read by IN is at its report's OUT less 1,
 * by LDS less 2 (the firmware reads and reports back to back).
 *
 * Each test collects every mismatch before it fails.
 */
#include "tests/testlib.h"

#include <sim_avr.h>

#include "tests/chip/probe.h"
/* sim/'s inside: this test pokes a register the firmware reads (GPIOR0). */
#include "sim/sim_impl.h"

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define MHZ16 16000000u

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

typedef unsigned long long ull;

/* The wake-up's parts (see the header). */
enum { STARTUP = 6, HALT = 4, RESPONSE = 4, JMP = 3, WDT16MS = 256000 };

/* 0.1 s at 16 MHz: the window. */
enum { TENTH = 1600000 };

/* SMCR's SM2:0 (bits 3:1). */
enum { SM_IDLE = 0x00, SM_ADC = 0x02, SM_PDOWN = 0x04, SM_PSAVE = 0x06, SM_RES4 = 0x08,
       SM_RES5 = 0x0a, SM_STANDBY = 0x0c, SM_EXT_STANDBY = 0x0e };

/* ---- the clock stops ------------------------------------------------- */

enum { STOPS_MAX = 64 };

/* The intervals [from, to) a clock stood. */
typedef struct stops {
	unsigned n;
	uint64_t from[STOPS_MAX], to[STOPS_MAX];
} stops;

static void stop_add(stops *st, uint64_t from, uint64_t to)
{
	assert_true(st->n < STOPS_MAX);
	st->from[st->n] = from;
	st->to[st->n++] = to;
}

/* The clock's time at cycle x: x less the time it stood before. */
static uint64_t tau(const stops *st, uint64_t x)
{
	uint64_t t = x;
	for (unsigned i = 0; i < st->n; i++)
		if (st->to[i] <= x)
			t -= st->to[i] - st->from[i];
		else if (st->from[i] <= x)
			t -= x - st->from[i];
	return t;
}

/* A timer at clk/n started by a write at cycle w (before any stop): its
 * count at cycle x, of `bits` bits. */
static uint32_t count_at(const stops *st, unsigned n, uint64_t w, uint64_t x, unsigned bits)
{
	uint64_t edges = tau(st, x) / n - tau(st, w) / n;
	return (uint32_t)(edges & ((1ull << bits) - 1));
}

/* ---- runs ------------------------------------------------------------ */

/* tests/chip/NAME.elf on mcu at 16 MHz, GPIOR0 set to `arg` before the
 * run (the firmware's parameter), the registers regs[] watched, run for
 * `cycles` (or until it sleeps with nothing to wake it). */
static probe *run(const char *name, const char *mcu, uint8_t arg, uint64_t cycles,
		  const char *const *regs)
{
	char path[128];
	snprintf(path, sizeof path, "tests/chip/%s.elf", name);
	probe *p = probe_open(path, mcu, MHZ16);
	p->s->avr->data[probe_reg(p, "GPIOR0")] = arg;
	for (; regs && *regs; regs++)
		probe_watch(p, *regs, NULL);
	probe_run(p, cycles);
	return p;
}

#define REGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The cycle of the i-th write of `name` (from 0). */
static uint64_t write_at(probe *p, const char *name, unsigned i)
{
	probe_series *s = probe_writes(p, name);
	if (i >= s->n)
		fail_msg("%s: %u writes of %s, no write %u", p->elf, s->n, name, i);
	return s->cycle[i];
}

/* The watchdog's start: the write of WDCE | WDE that follows
 * wdt_disable()'s two writes. */
static uint64_t wdt_start(probe *p)
{
	return write_at(p, "WDTCSR", 2);
}

/* ---- power-down and standby ------------------------------------------ */

/* sleep_pdown in mode sm: the watchdog alone wakes the CPU, every 16 ms:
 * floor(1,600,000 / 256,000) = 6 wakes in 0.1 s, each handler's first
 * instruction at W + 6 + 4 + 4 + 3; no timer overflows; each timer's
 * count read in the handler is its count of clock time, the clock
 * standing from each sleep to W + 6. */
static void pdown(check *c, uint8_t sm)
{
	probe *p = run("sleep_pdown", M328, sm, TENTH,
		       REGS("WDTCSR", "TCCR0B", "TCCR1B", "TCCR2B", "GPIOR0", "GPIOR1", "GPIOR2"));
	uint64_t w0 = wdt_start(p);
	probe_series *first = probe_writes(p, "GPIOR0"), *g1 = probe_writes(p, "GPIOR1");
	probe_series *g2 = probe_writes(p, "GPIOR2");
	unsigned want = (TENTH - (unsigned)w0) / WDT16MS;
	ck(c, want == 6, "%s: the arithmetic gives %u wakes, not 6", p->elf, want);
	ck(c, probe_entries(p, "WDT_vect")->n == want, "sm %02x: %u watchdog entries, want %u", sm,
	   probe_entries(p, "WDT_vect")->n, want);
	static const char *const timers[] = { "TIMER0_OVF_vect", "TIMER1_OVF_vect",
					      "TIMER2_OVF_vect" };
	for (unsigned i = 0; i < 3; i++)
		ck(c, probe_raises(p, timers[i])->n == 0, "sm %02x: %u %s raises, want 0", sm,
		   probe_raises(p, timers[i])->n, timers[i]);
	ck(c, p->sleep.n == want + 1 && p->wake.n == want, "sm %02x: %u sleeps, %u wakes", sm,
	   p->sleep.n, p->wake.n);
	stops st = { .n = 0 };
	for (unsigned k = 1; k <= want && k <= p->sleep.n; k++) {
		uint64_t w = w0 + (uint64_t)k * WDT16MS;
		stop_add(&st, p->sleep.ev[k - 1].cycle, w + STARTUP);
		if (k > first->n)
			break;
		ck(c, first->cycle[k - 1] == w + STARTUP + HALT + RESPONSE + JMP,
		   "sm %02x: wake %u: the handler's first instruction at %llu, want %llu "
		   "(timeout %llu + 6 + 4 + 4 + 3)", sm, k, (ull)first->cycle[k - 1],
		   (ull)(w + STARTUP + HALT + RESPONSE + JMP), (ull)w);
	}
	uint64_t t0 = write_at(p, "TCCR0B", 0), t1 = write_at(p, "TCCR1B", 0);
	uint64_t t2 = write_at(p, "TCCR2B", 0);
	for (unsigned k = 0; k < want && 3 * k + 2 < g1->n && k < g2->n; k++) {
		uint64_t x0 = g1->cycle[3 * k] - 1, x1 = g1->cycle[3 * k + 1] - 2;
		uint64_t x2 = g2->cycle[k] - 2;
		uint32_t tc1 = g1->value[3 * k + 1] | (uint32_t)g1->value[3 * k + 2] << 8;
		ck(c, g1->value[3 * k] == count_at(&st, 64, t0, x0, 8),
		   "sm %02x: wake %u: TCNT0 %u, want %u (clk/64, standing while asleep)", sm, k + 1,
		   g1->value[3 * k], count_at(&st, 64, t0, x0, 8));
		ck(c, tc1 == count_at(&st, 1, t1, x1, 16),
		   "sm %02x: wake %u: TCNT1 %u, want %u (clk/1)", sm, k + 1, tc1,
		   count_at(&st, 1, t1, x1, 16));
		ck(c, g2->value[k] == count_at(&st, 8, t2, x2, 8),
		   "sm %02x: wake %u: TCNT2 %u, want %u (clk/8)", sm, k + 1, g2->value[k],
		   count_at(&st, 8, t2, x2, 8));
	}
	probe_close(p);
}

static void test_power_down_and_standby(void **state)
{
	(void)state;
	check c = { .len = 0 };
	pdown(&c, SM_PDOWN);
	pdown(&c, SM_STANDBY);
	ck_done(&c);
}

/* ---- idle, SE, reserved modes ----------------------------------------- */

/* The k-th overflow (k >= 1) of an 8-bit timer at clk/n started at cycle
 * w, its clock never stopped: the edge where its count leaves 255. */
static uint64_t tov8(unsigned n, uint64_t w, unsigned k)
{
	return (w / n + 256ull * k) * n;
}

/* sleep_idle in mode sm (idle, or a reserved mode slept as idle): Timer0
 * counts on in idle and wakes the CPU at each overflow, the handler's
 * first instruction 4 + 4 + 3 cycles after it (no start-up time); before
 * that, a SLEEP with SE clear did nothing: the next instruction at the
 * next cycle. */
static void idle(check *c, uint8_t sm, const char *want_warn)
{
	probe *p = run("sleep_idle", M328, sm, TENTH, REGS("TCCR0B", "GPIOR0", "GPIOR1"));
	probe_series *g1 = probe_writes(p, "GPIOR1"), *first = probe_writes(p, "GPIOR0");
	ck(c, g1->n == 2 && g1->cycle[1] == g1->cycle[0] + 2,
	   "sm %02x: SLEEP with SE clear: GPIOR1 written %u times, at %llu and %llu (want 1 + 1 "
	   "cycles apart: OUT, SLEEP)", sm, g1->n, (ull)g1->cycle[0],
	   (ull)(g1->n > 1 ? g1->cycle[1] : 0));
	uint64_t w = write_at(p, "TCCR0B", 0);
	unsigned want = 0;
	while (tov8(64, w, want + 1) < TENTH)
		want++;
	ck(c, want == 97, "the arithmetic gives %u overflows in 0.1 s, not 97", want);
	ck(c, first->n == want, "sm %02x: %u Timer0 overflow entries in 0.1 s, want %u", sm,
	   first->n, want);
	for (unsigned k = 1; k <= want && k <= first->n; k++)
		ck(c, first->cycle[k - 1] == tov8(64, w, k) + HALT + RESPONSE + JMP,
		   "sm %02x: overflow %u at %llu: the handler's first instruction at %llu, want %llu "
		   "(+ 4 + 4 + 3)", sm, k, (ull)tov8(64, w, k), (ull)first->cycle[k - 1],
		   (ull)(tov8(64, w, k) + HALT + RESPONSE + JMP));
	const char *wn = probe_warnings(p);
	ck(c, !strcmp(wn, want_warn), "sm %02x: warnings:\n%s", sm, wn);
	probe_close(p);
}

static void test_idle_se_and_reserved_modes(void **state)
{
	(void)state;
	check c = { .len = 0 };
	idle(&c, SM_IDLE, "");
	static const char reserved[] =
		"atmega328p: SLEEP in a reserved sleep mode (SM bits): slept as idle\n";
	idle(&c, SM_RES4, reserved);
	idle(&c, SM_RES5, reserved);
	ck_done(&c);
}

/* ---- ADC Noise Reduction --------------------------------------------- */

/* The first rising ADC clock edge after cycle w, the prescaler reset at
 * cycle o: edges at o + n/2 + kn (test_conformance_adc). */
static uint64_t adc_edge(uint64_t o, unsigned n, uint64_t w)
{
	uint64_t e0 = o + n / 2;
	return w < e0 ? e0 : e0 + ((w - e0) / n + 1) * n;
}

/* sleep_adc: each sleep in ADC Noise Reduction starts a conversion at the
 * next ADC clock edge; it ends 25 ADC clocks later (the first) or 13, and
 * its interrupt wakes the CPU (4 + 4 + 3 to the handler).  The handler
 * and the loop take less than an ADC clock, so each later conversion
 * starts one ADC clock after the one before ended: 14·128 = 1792 cycles
 * apart.  In 0.1 s: 1 + floor((1,600,000 − 1 − end₁) / 1792).  Timer0
 * stands while the CPU sleeps: no overflow. */
static void test_adc_noise_reduction(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("sleep_adc", M328, 0, TENTH, REGS("ADCSRA", "GPIOR0"));
	uint64_t aden = write_at(p, "ADCSRA", 0);
	probe_series *first = probe_writes(p, "GPIOR0");
	uint64_t end = adc_edge(aden, 128, p->sleep.ev[0].cycle) + 25 * 128;
	unsigned want = 1 + (unsigned)((TENTH - 1 - end) / (14 * 128));
	ck(&c, want >= 890 && want <= 892, "the arithmetic gives %u conversions", want);
	ck(&c, first->n == want, "%u ADC entries in 0.1 s, want %u", first->n, want);
	for (unsigned k = 0; k < first->n && k < p->sleep.n; k++) {
		uint64_t start = adc_edge(aden, 128, p->sleep.ev[k].cycle);
		uint64_t due = start + (k ? 13 : 25) * 128;
		if (k)
			ck(&c, due == end + 14 * 128, "conversion %u: the sleep at %llu, %llu cycles "
			   "after the last one ended (want < 128)", k + 1, (ull)p->sleep.ev[k].cycle,
			   (ull)(p->sleep.ev[k].cycle - end));
		end = due;
		ck(&c, first->cycle[k] == due + HALT + RESPONSE + JMP,
		   "conversion %u ends at %llu: the handler's first instruction at %llu, want %llu",
		   k + 1, (ull)due, (ull)first->cycle[k], (ull)(due + HALT + RESPONSE + JMP));
	}
	ck(&c, probe_raises(p, "TIMER0_OVF_vect")->n == 0, "%u Timer0 overflows, want 0",
	   probe_raises(p, "TIMER0_OVF_vect")->n);
	const char *wn = probe_warnings(p);
	ck(&c, !strcmp(wn, ""), "warnings:\n%s", wn);
	probe_close(p);
	ck_done(&c);
}

/* ---- Timer2 on its crystal in every mode ------------------------------ */

/* sleep_async in mode sm: Timer2's crystal runs in every mode but
 * power-down and standby: its overflows, 256 crystal cycles = 125,000 CPU
 * cycles apart from the PSRASY write, wake the CPU 12 times in 0.1 s (the
 * 13th due at + 1,625,000), with the start-up time from power-save and
 * extended standby; in power-down and standby none (nothing wakes it).
 * Timer0 (clk_I/O) overflows in idle only. */
static void async(check *c, uint8_t sm, int crystal, int startup, int io)
{
	probe *p = run("sleep_async", M328, sm, TENTH,
		       REGS("GTCCR", "TCCR0B", "GPIOR1", "GPIOR2"));
	uint64_t psr = write_at(p, "GTCCR", 0), w0 = write_at(p, "TCCR0B", 0);
	probe_series *t2 = probe_writes(p, "GPIOR1"), *t0 = probe_writes(p, "GPIOR2");
	unsigned want = 0;
	while (crystal && psr + 125000ull * (want + 1) < TENTH)
		want++;
	ck(c, !crystal || want == 12, "the arithmetic gives %u overflows", want);
	ck(c, t2->n == want, "sm %02x: %u Timer2 entries, want %u", sm, t2->n, want);
	for (unsigned k = 1; k <= want && k <= t2->n; k++) {
		uint64_t tov = psr + 125000ull * k;
		uint64_t due = tov + (startup ? STARTUP : 0) + HALT + RESPONSE + JMP;
		ck(c, t2->cycle[k - 1] == due, "sm %02x: Timer2 overflow %u at %llu: the handler at "
		   "%llu, want %llu", sm, k, (ull)tov, (ull)t2->cycle[k - 1], (ull)due);
	}
	unsigned want0 = 0;
	while (io && tov8(64, w0, want0 + 1) < TENTH)
		want0++;
	ck(c, t0->n == want0, "sm %02x: %u Timer0 entries, want %u", sm, t0->n, want0);
	probe_close(p);
}

static void test_timer2_asynchronous_in_each_mode(void **state)
{
	(void)state;
	check c = { .len = 0 };
	async(&c, SM_IDLE, 1, 0, 1);
	async(&c, SM_ADC, 1, 0, 0);
	async(&c, SM_PSAVE, 1, 1, 0);
	async(&c, SM_EXT_STANDBY, 1, 1, 0);
	async(&c, SM_PDOWN, 0, 0, 0);
	async(&c, SM_STANDBY, 0, 0, 0);
	ck_done(&c);
}

/* ---- the EEPROM in power-down ---------------------------------------- */

/* sleep_eeprom: the write (EEPE set at e) ends at e + 54,400 (3.4 ms, on
 * the EEPROM's own oscillator), asleep; EE_READY does not wake the CPU
 * from power-down: it is due when the watchdog's timeout W wakes it, at
 * W + 6, and its handler runs after the watchdog's (vector 6 before 22). */
static void test_eeprom_ready_in_power_down(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = run("sleep_eeprom", M328, 0, 300000, REGS("WDTCSR", "GPIOR1", "GPIOR2"));
	uint64_t w = wdt_start(p) + WDT16MS;
	probe_series *wdt = probe_writes(p, "GPIOR1"), *ready = probe_writes(p, "GPIOR2");
	probe_series *raised = probe_raises(p, "EE_READY_vect");
	ck(&c, wdt->n == 1 && wdt->cycle[0] == w + STARTUP + HALT + RESPONSE + JMP,
	   "%u watchdog entries, the first at %llu, want 1 at %llu", wdt->n,
	   (ull)(wdt->n ? wdt->cycle[0] : 0), (ull)(w + STARTUP + HALT + RESPONSE + JMP));
	/* (A level: raised again as its vector is entered, until the handler
	 * clears EERIE.) */
	ck(&c, raised->n && raised->cycle[0] == w + STARTUP,
	   "EE_READY first raised at %llu, want %llu (the wake-up, not the write's end at "
	   "3.4 ms)", (ull)(raised->n ? raised->cycle[0] : 0), (ull)(w + STARTUP));
	ck(&c, ready->n == 1 && wdt->n && ready->cycle[0] > wdt->cycle[0],
	   "%u EE_READY entries, the first at %llu (after the watchdog's?)", ready->n,
	   (ull)(ready->n ? ready->cycle[0] : 0));
	uint32_t size = 0;
	const uint8_t *ee = sim_eeprom(p->s, &size);
	ck(&c, ee && size && ee[0] == 0x5a, "EEPROM byte 0 is 0x%02x, want 0x5a",
	   ee && size ? ee[0] : 0);
	probe_close(p);
	ck_done(&c);
}
/* ---- PRR --------------------------------------------------------------- */

/* The j-th overflow (j >= 1) of a timer of `bits` bits at clk/n started at
 * cycle w and stopped from p to q by its PRR bit.  On the shared
 * prescaler (own 0) the count stands while the prescaler's edges go on at
 * multiples of n: it counts again at the first edge after q.  On a
 * prescaler of its own (own 1, Timer2's) the prescaler stands too: an edge
 * due at p + d comes at q + d. */
static uint64_t tov_held(unsigned n, unsigned bits, uint64_t w, uint64_t p, uint64_t q, int own,
			 unsigned j)
{
	uint64_t e = (w / n + ((uint64_t)j << bits)) * n;  /* never stopped */
	if (e <= p)
		return e;
	if (own)
		return e + (q - p);
	/* counts before p: p/n − w/n; the rest from the first edge after q */
	return ((uint64_t)j << bits) * n - (p / n - w / n) * n + q / n * n;
}

/* The raises of `vector` at or before p, in (p, q], and after q. */
static void split(probe_series *r, uint64_t p, uint64_t q, unsigned *before, unsigned *held)
{
	*before = *held = 0;
	for (unsigned i = 0; i < r->n; i++) {
		if (r->cycle[i] <= p)
			(*before)++;
		else if (r->cycle[i] <= q)
			(*held)++;
	}
}

/* sleep_prr's timer cases: no overflow while the bit is set; the ones
 * before as if never stopped; the ones after (asleep: at their own cycles)
 * where the count resumes. */
static void prr_timer(check *c, uint8_t which, const char *tccr, const char *vector,
		      unsigned n, unsigned bits, int own, uint64_t cycles)
{
	probe *p = run("sleep_prr", M328, which, cycles, REGS(tccr, "PRR"));
	uint64_t w = write_at(p, tccr, 0), pr = write_at(p, "PRR", 0), q = write_at(p, "PRR", 1);
	probe_series *r = probe_raises(p, vector);
	unsigned before, held, want_before = 0, want = 0;
	while (tov_held(n, bits, w, pr, q, own, want_before + 1) <= pr)
		want_before++;
	while (tov_held(n, bits, w, pr, q, own, want + 1) < cycles)
		want++;
	split(r, pr, q, &before, &held);
	ck(c, held == 0, "%s: %u overflows while its PRR bit was set (%llu to %llu), want 0", vector,
	   held, (ull)pr, (ull)q);
	ck(c, before == want_before, "%s: %u overflows before the PRR bit, want %u", vector, before,
	   want_before);
	ck(c, r->n == want, "%s: %u overflows in all, want %u", vector, r->n, want);
	for (unsigned j = want_before + 1; j <= want && j <= r->n; j++)
		ck(c, r->cycle[j - 1] == tov_held(n, bits, w, pr, q, own, j),
		   "%s: overflow %u at %llu, want %llu", vector, j, (ull)r->cycle[j - 1],
		   (ull)tov_held(n, bits, w, pr, q, own, j));
	probe_close(p);
}

/* sleep_prr's ADC and SPI cases: the flag that was due at `due` (from the
 * start at cycle `start`) comes q − p later. */
static void prr_flag(check *c, uint8_t which, const char *reg, const char *vector,
		     uint64_t (*due)(uint64_t start))
{
	probe *p = run("sleep_prr", M328, which, 40000, REGS(reg, "PRR"));
	uint64_t w = write_at(p, reg, 0), pr = write_at(p, "PRR", 0), q = write_at(p, "PRR", 1);
	probe_series *r = probe_raises(p, vector);
	uint64_t want = due(w) + (q - pr);
	ck(c, pr < due(w), "%s: PRR written at %llu, after the flag was due (%llu)", vector,
	   (ull)pr, (ull)due(w));
	ck(c, r->n == 1 && r->cycle[0] == want, "%s: %u raises, the first at %llu, want one at "
	   "%llu (due at %llu, held %llu cycles)", vector, r->n, (ull)(r->n ? r->cycle[0] : 0),
	   (ull)want, (ull)due(w), (ull)(q - pr));
	probe_close(p);
}

/* ADEN and ADSC in one write at a: the prescaler reset then, the
 * conversion from the first edge (a + 64) for 25 ADC clocks. */
static uint64_t adc_due(uint64_t a)
{
	return a + 64 + 25 * 128;
}

/* SPDR written at w, fosc/128: 8 SCK periods. */
static uint64_t spi_due(uint64_t w)
{
	return w + 8 * 128;
}

static void test_prr_stops_each_module(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* PRTIM0: Timer0 at clk/64 held ~100,000 cycles, where it would
	 * overflow 6 times. */
	prr_timer(&c, 0, "TCCR0B", "TIMER0_OVF_vect", 64, 8, 0, 300000);
	/* PRTIM1: Timer1 at clk/1 held ~160,000 cycles (2 overflows). */
	prr_timer(&c, 1, "TCCR1B", "TIMER1_OVF_vect", 1, 16, 0, 500000);
	/* PRTIM2: Timer2 at clk/8, synchronous, held ~100,000 (48). */
	prr_timer(&c, 2, "TCCR2B", "TIMER2_OVF_vect", 8, 8, 1, 150000);
	/* PRADC: the first conversion, held ~10,000 cycles from ~1,000 in. */
	prr_flag(&c, 3, "ADCSRA", "ADC_vect", adc_due);
	/* PRSPI: a master byte at fosc/128, held ~5,000 cycles from ~200 in. */
	prr_flag(&c, 4, "SPDR", "SPI_STC_vect", spi_due);
	ck_done(&c);
}

/* sleep_m2560_prr: Timers 1, 3, 4, 5 at clk/1 (16-bit: 65,536 cycles an
 * overflow); PRR0's PRTIM1 and PRR1's PRTIM3 and PRTIM5 hold theirs for
 * ~160,000 cycles, Timer4 runs on.  Overflows may come while another's
 * handler runs: each raise within SLACK cycles after its due cycle. */
/* PRTWI freezes the byte under way: SLA+W's 9 SCL periods (16 + 2·72 =
 * 160 cycles each) from the TWCR write, plus the span PRTWI was set;
 * TWINT's poll reports within SLACK of it, with the NACK status 0x20. */
static void test_prtwi_freezes_a_byte(void **state)
{
	(void)state;
	enum { SLACK = 8 };
	probe *p = probe_open("tests/chip/twi_prr.elf", "atmega328p", 16000000u);
	probe_watch(p, "TWCR", "PRR", "GPIOR0", NULL);
	probe_run(p, 20000);
	probe_series *twcr = probe_writes(p, "TWCR"), *prr = probe_writes(p, "PRR");
	probe_series *done = probe_writes(p, "GPIOR0");
	assert_int_equal(twcr->n, 2);
	assert_int_equal(prr->n, 2);
	assert_int_equal(done->n, 1);
	assert_int_equal(done->value[0], 0x20);
	uint64_t twint = twcr->cycle[1] + 9 * 160 + (prr->cycle[1] - prr->cycle[0]);
	assert_true(prr->cycle[1] < twcr->cycle[1] + 9 * 160);  /* frozen mid-byte */
	if (done->cycle[0] < twint || done->cycle[0] > twint + SLACK)
		fail_msg("TWINT seen at %llu, due at %llu", (unsigned long long)done->cycle[0],
			 (unsigned long long)twint);
	probe_close(p);
}

static void test_m2560_prr0_prr1(void **state)
{
	(void)state;
	enum { SLACK = 12, CYCLES = 600000 };
	check c = { .len = 0 };
	probe *p = run("sleep_m2560_prr", M2560, 0, CYCLES,
		       REGS("TCCR1B", "TCCR3B", "TCCR4B", "TCCR5B", "PRR0", "PRR1"));
	static const struct {
		const char *tccr, *vector, *prr;
	} t[] = {
		{ "TCCR1B", "TIMER1_OVF_vect", "PRR0" }, { "TCCR3B", "TIMER3_OVF_vect", "PRR1" },
		{ "TCCR4B", "TIMER4_OVF_vect", NULL },   { "TCCR5B", "TIMER5_OVF_vect", "PRR1" },
	};
	for (unsigned i = 0; i < 4; i++) {
		uint64_t w = write_at(p, t[i].tccr, 0), pr = CYCLES, q = CYCLES;
		if (t[i].prr) {
			pr = write_at(p, t[i].prr, 0);
			q = write_at(p, t[i].prr, 1);
		}
		probe_series *r = probe_raises(p, t[i].vector);
		unsigned want = 0, before, held;
		while (tov_held(1, 16, w, pr, q, 0, want + 1) < CYCLES)
			want++;
		split(r, pr, q, &before, &held);
		ck(&c, held == 0, "%s: %u overflows while held", t[i].vector, held);
		ck(&c, r->n == want, "%s: %u overflows, want %u", t[i].vector, r->n, want);
		for (unsigned j = 1; j <= want && j <= r->n; j++) {
			uint64_t due = tov_held(1, 16, w, pr, q, 0, j);
			ck(&c, r->cycle[j - 1] >= due && r->cycle[j - 1] <= due + SLACK,
			   "%s: overflow %u at %llu, want %llu (+ %u)", t[i].vector, j,
			   (ull)r->cycle[j - 1], (ull)due, SLACK);
		}
	}
	probe_close(p);
	ck_done(&c);
}
/* ---- warnings ----------------------------------------------------------- */

/* A part whose sleep bits avrr has no table for: every SLEEP sleeps as
 * idle, so Timer0 (clk/1) goes on overflowing every 256 cycles and waking
 * the CPU, and that is said once at record time. */
static void test_unknown_part_warns(void **state)
{
	(void)state;
	probe *p = probe_open("tests/chip/sleep_t2313.elf", "attiny2313", MHZ16);
	probe_watch(p, "TCCR0B", NULL);
	probe_run(p, 10000);
	uint64_t start = probe_writes(p, "TCCR0B")->cycle[0];
	unsigned want = (unsigned)((10000 - start) / 256);
	unsigned got = probe_entries(p, "TIMER0_OVF_vect")->n;
	if (got < want - 1 || got > want)
		fail_msg("%u overflows entered, want %u (one may still be on its way)", got, want);
	assert_string_equal(probe_warnings(p), "attiny2313: sleep modes not modelled on this "
			    "part: every SLEEP is idle, SE not honoured, no clock stops\n");
	probe_run(p, 20000);
	assert_string_equal(probe_warnings(p), "");
	probe_close(p);
}

/* sleep_warn: registers written while their module's PRR bit is set (the
 * datasheet: "the I/O registers can not be read or written"; avrr takes
 * the writes), and an auto trigger while the ADC's clock is stopped: each
 * said once. */
static void test_warnings(void **state)
{
	(void)state;
	probe *p = run("sleep_warn", M328, 0, 5000, NULL);
	assert_string_equal(probe_warnings(p),
			    "timer 0: its registers were written while PRTIM0 shut it down: the "
			    "atmega328p's registers of a shut-down module \"can not be read or "
			    "written\", avrr took the writes (in force when the timer runs again)\n"
			    "adc: ADCSRA or ADMUX was written while PRADC shut the ADC down: the "
			    "atmega328p's registers of a shut-down module \"can not be read or "
			    "written\", avrr took the writes (a conversion started then waits for the "
			    "clock)\n"
			    "adc: the auto trigger (Timer0 overflow) rose while the ADC's clock was "
			    "stopped (a sleep mode or PRADC): avrr started no conversion; the "
			    "atmega328p's synchronisation of a trigger without clk_ADC is not "
			    "simulated\n");
	probe_run(p, 10000);
	assert_string_equal(probe_warnings(p), "");
	probe_close(p);
}

/* ---- a recording ------------------------------------------------------ */

/* sleep_wdt8s recorded for 60 s of chip time (960,000,000 cycles): the
 * watchdog at WDP 9 times out every 1,048,576 cycles of 128 kHz = 8.192 s
 * = 131,072,000 CPU cycles, so floor(960,000,000 / 131,072,000) = 7 wakes
 * (the 8th due at 65.5 s); Timer0 (clk/64) stands in power-down: no
 * overflow, where counting on it would give 58,593.  The replay is exact. */
static void test_sleeper_records_and_replays(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "wdt8s.db", "tests/chip/sleep_wdt8s.elf "
		    "--mcu atmega328p --freq 16000000 --cycles 960M");
	assert_int_equal(960000000ull / 131072000ull, 7);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector = 6"), 7);
	test_assert_replay_exact(s, path, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_down_and_standby),
		cmocka_unit_test(test_idle_se_and_reserved_modes),
		cmocka_unit_test(test_adc_noise_reduction),
		cmocka_unit_test(test_timer2_asynchronous_in_each_mode),
		cmocka_unit_test(test_eeprom_ready_in_power_down),
		cmocka_unit_test(test_prr_stops_each_module),
		cmocka_unit_test(test_prtwi_freezes_a_byte),
		cmocka_unit_test(test_m2560_prr0_prr1),
		cmocka_unit_test(test_unknown_part_warns),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test_setup_teardown(test_sleeper_records_and_replays, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
