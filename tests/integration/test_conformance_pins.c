/*
 * test_conformance_pins.c — the pins (sim/periph_port.c) and the external
 * and pin change interrupts (sim/periph_extint.c) against the datasheets:
 * each firmware of tests/chip/{pins,pcint,int,clocks}_*.c and
 * int0_wake.c runs on its MCU and clock, its pins driven by an inline
 * stimuli script, and every number checked is worked out here from the
 * datasheet, never taken from a run.  Sections are the ATmega328P's
 * (ATmega48A/PA/88A/PA/168A/PA/328/P, 8271): §10 "Power Management and
 * Sleep Modes" (Table 10-1, active clock domains and wake-up sources),
 * §13 "External Interrupts" (EICRA, EIMSK, EIFR, PCICR, PCIFR, PCMSKn),
 * §14 "I/O-Ports" (Table 14-1 "Port Pin Configurations", MCUCR's PUD);
 * the ATmega2560's (2549Q) §11, §13 (the alternate functions of Ports E,
 * J and K) and §15; the ATmega16's (2466T) "External Interrupts" (MCUCR,
 * MCUCSR's ISC2, GICR, GIFR) and SFIOR's PUD; the ATmega644's
 * "Alternate Functions of Port B" (PB2: INT2).
 *
 * The arithmetic.  A stimulus changes its pin at its own cycle; a flag
 * (INTFn, PCIFn) rises at that cycle, from the pin's edge — the chip's
 * synchroniser adds a few clocks, which avrr does not model, so a raise
 * is checked within [t, t + SLACK].  A low level requests INTn from the
 * next instruction on.  Each handler ends well before the next change
 * (changes are hundreds of cycles apart), so every change is one entry.
 */
#include "tests/testlib.h"

#include "sim/periph.h"
#include "tests/chip/probe.h"
/* sim/'s inside: this test sets the peripherals' clocks (periphs_set_clocks). */
#include "sim/sim_impl.h"

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define M16 "atmega16"
#define M644 "atmega644"
#define MHZ16 16000000u
#define MHZ8 8000000u

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

enum { SLACK = 4, WANT_MAX = 256 };

typedef unsigned long long ull;

static probe *open_fw(const char *name, const char *mcu, uint32_t hz)
{
	char path[128];
	snprintf(path, sizeof path, "tests/chip/%s.elf", name);
	return probe_open(path, mcu, hz);
}

/* The values written to a report register, as "07 05 ...". */
static void ck_report(check *c, probe *p, const char *reg, const char *want)
{
	probe_series *s = probe_writes(p, reg);
	char got[256];
	size_t len = 0;
	got[0] = 0;
	for (unsigned i = 0; i < s->n && len + 4 < sizeof got; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, i ? " %02x" : "%02x",
					s->value[i]);
	ck(c, !strcmp(got, want), "%s: %s read back \"%s\", want \"%s\"", p->elf, reg, got, want);
}

static void ck_entries(check *c, probe *p, const char *vect, unsigned want)
{
	unsigned n = probe_entries(p, vect)->n;
	ck(c, n == want, "%s: %u entries of %s, want %u", p->elf, n, vect, want);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The raises of `vect` must be at want[0..n) (in any order given), each
 * within [want, want + SLACK]. */
static void ck_raises(check *c, probe *p, const char *vect, uint64_t *want, unsigned n)
{
	qsort(want, n, sizeof *want, cmp_u64);
	probe_series *got = probe_raises(p, vect);
	ck(c, got->n == n, "%s: %u raises of %s, want %u", p->elf, got->n, vect, n);
	for (unsigned i = 0; i < n && i < got->n; i++)
		ck(c, got->cycle[i] >= want[i] && got->cycle[i] <= want[i] + SLACK,
		   "%s: %s raise %u at cycle %llu, want %llu (+%d)", p->elf, vect, i + 1,
		   (ull)got->cycle[i], (ull)want[i], SLACK);
}

/* The clocks of a sleep mode that stops clk_IO (power-down: only the
 * asynchronous modules run), or of the CPU awake. */
static void set_clocks(probe *p, int power_down)
{
	periph_clocks c = { .running = CLOCK_IO | CLOCK_ADC | CLOCK_ASY, .stopped = 0,
			    .mode = SLEEP_AWAKE };
	if (power_down)
		c = (periph_clocks){ .running = 0, .stopped = 0, .mode = SLEEP_POWER_DOWN };
	periphs_set_clocks(p->s->periphs, &c);
}

/* ---- flags: written 1 clears, 0 does nothing --------------------------- */

/* §13.2.3 EIFR, §13.2.5 PCIFR: "the flag can be cleared by writing a
 * logical one to it"; §30 note: SBI "will only operate on the specified
 * bit".  A flag cleared so is an interrupt no longer requested. */
static void test_pcifr_eifr_write_one_clears(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("pins_flags", M328, MHZ16);
	probe_watch(p, "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, "pin B0 at 1000 low\npin C0 at 1000 low\npin D2 at 1000 low\n"
			 "pin D3 at 1000 low\n");
	probe_run(p, 20000);
	/* PCIF1:0 set; 0 written: both; PCIF0 written 1: PCIF1; SBI
	 * PCIF1: none.  INTF1:0 set; 0 written: both; SBI INTF1: INTF0. */
	ck_report(&c, p, "GPIOR0", "03 03 02 00 03 03 01");
	uint64_t at[1] = { 1000 };
	const char *v[] = { "PCINT0_vect", "PCINT1_vect", "INT0_vect", "INT1_vect" };
	for (unsigned i = 0; i < 4; i++) {
		at[0] = 1000;
		ck_raises(&c, p, v[i], at, 1);
	}
	/* Only INT0 was still requested when I was set; its entry cleared
	 * INTF0, so EIFR reads 0 in its handler. */
	ck_entries(&c, p, "INT0_vect", 1);
	ck_entries(&c, p, "INT1_vect", 0);
	ck_entries(&c, p, "PCINT0_vect", 0);
	ck_entries(&c, p, "PCINT1_vect", 0);
	ck_report(&c, p, "GPIOR1", "00");
	probe_close(p);
	ck_done(&c);
}

/* 2560 §15.2.4 EIFR, §15.2.6 PCIFR: the same rule for its three pin
 * change flags (PCIF1 from PE0's PCINT8, PCIF2 from PK0's PCINT16) and
 * INTF7. */
static void test_m2560_pcifr_eifr(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("pins_flags_m2560", M2560, MHZ16);
	probe_watch(p, "GPIOR0", NULL);
	probe_stimuli(p, "pin B0 at 1000 low\npin E0 at 1000 low\npin K0 at 1000 low\n"
			 "pin D0 at 1000 low\npin E7 at 1000 low\n");
	probe_run(p, 20000);
	ck_report(&c, p, "GPIOR0", "07 07 05 01 81 81 01");
	ck_entries(&c, p, "PCINT0_vect", 1);
	ck_entries(&c, p, "PCINT1_vect", 0);
	ck_entries(&c, p, "PCINT2_vect", 0);
	ck_entries(&c, p, "INT0_vect", 1);
	ck_entries(&c, p, "INT7_vect", 0);
	probe_close(p);
	ck_done(&c);
}

/* m16 "GIFR": INTF1 (bit 7), INTF0 (6), INTF2 (5), each "cleared by
 * writing a logical one to it". */
static void test_m16_gifr(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("pins_gifr_m16", M16, MHZ8);
	probe_watch(p, "PORTC", NULL);
	probe_stimuli(p, "pin D2 at 1000 low\npin D3 at 1000 low\npin B2 at 1000 low\n");
	probe_run(p, 20000);
	ck_report(&c, p, "PORTC", "e0 e0 60");
	ck_entries(&c, p, "INT0_vect", 1);
	ck_entries(&c, p, "INT1_vect", 0);
	ck_entries(&c, p, "INT2_vect", 1);
	probe_close(p);
	ck_done(&c);
}

/* ---- the ATmega2560's pin change interrupts ---------------------------- */

/* 2560 §13.3 (Ports E, J, K), §15.2.5-8: PE0 is PCINT8, PJ6:0 PCINT15:9
 * (PCMSK1, PCI1), PK7:0 PCINT23:16 (PCMSK2, PCI2); PJ7 and PE1 have no
 * pin change interrupt.  Each pin toggles every 8000 cycles from its
 * own start, 400 cycles after the pin before: ten changes each by cycle
 * 80500, so ten raises and ten entries per pin: 80 of PCINT1, 80 of
 * PCINT2. */
static void test_m2560_pcint_ports_e_j_k(void **state)
{
	(void)state;
	static const char *const pin[] = { "E0", "J0", "J1", "J2", "J3", "J4", "J5", "J6",
					   "K0", "K1", "K2", "K3", "K4", "K5", "K6", "K7",
					   "J7", "E1" };
	enum { NPIN = 18, CHANGES = 10, PERIOD = 8000, FIRST = 1000, STRIDE = 400, END = 80500 };
	check c = { .len = 0 };
	probe *p = open_fw("pcint_m2560", M2560, MHZ16);
	char script[2048];
	size_t len = 0;
	uint64_t want1[WANT_MAX], want2[WANT_MAX];
	unsigned n1 = 0, n2 = 0;
	for (unsigned i = 0; i < NPIN; i++) {
		uint64_t start = FIRST + STRIDE * i;
		len += (size_t)snprintf(script + len, sizeof script - len,
					"pin %s every %u start %llu toggle\n", pin[i], PERIOD,
					(ull)start);
		/* the first change after END comes later than END */
		assert_true(start + CHANGES * PERIOD > END && start + (CHANGES - 1) * PERIOD < END);
		for (unsigned k = 0; k < CHANGES; k++) {
			if (i < 8)
				want1[n1++] = start + (uint64_t)k * PERIOD;
			else if (i < 16)
				want2[n2++] = start + (uint64_t)k * PERIOD;
		}
	}
	probe_stimuli(p, script);
	probe_run(p, END);
	ck_raises(&c, p, "PCINT1_vect", want1, n1);
	ck_raises(&c, p, "PCINT2_vect", want2, n2);
	ck_entries(&c, p, "PCINT1_vect", 80);
	ck_entries(&c, p, "PCINT2_vect", 80);
	probe_close(p);
	ck_done(&c);
}

/* ---- INTn -------------------------------------------------------------- */

/* int_m2560's sense modes, 2560 Table 15-1 (EICRA) and 15-3 (EICRB):
 * 2 falling, 3 rising, 1 any change. */
static const uint8_t m2560_sense[8] = { 2, 3, 1, 2, 3, 1, 2, 3 };

/* Pulses on PD3:0 and PE7:4, 10000 cycles apart, 2000 wide, each pin 500
 * cycles after the one before: five rises and five falls each by cycle
 * 47000.  power_down: clk_IO stopped from the start. */
static void run_m2560_int(check *c, int power_down)
{
	static const char *const pin[8] = { "D0", "D1", "D2", "D3", "E4", "E5", "E6", "E7" };
	enum { PULSES = 5, PERIOD = 10000, WIDTH = 2000, FIRST = 1000, STRIDE = 500, END = 47000 };
	probe *p = open_fw("int_m2560", M2560, MHZ16);
	if (power_down)
		set_clocks(p, 1);
	char script[1024];
	size_t len = 0;
	for (unsigned n = 0; n < 8; n++)
		len += (size_t)snprintf(script + len, sizeof script - len,
					"pin %s every %u start %u pulse %u\n", pin[n], PERIOD,
					FIRST + STRIDE * n, WIDTH);
	probe_stimuli(p, script);
	probe_run(p, END);
	for (unsigned n = 0; n < 8; n++) {
		uint64_t want[2 * PULSES];
		unsigned k = 0;
		uint64_t start = FIRST + STRIDE * n;
		assert_true(start + (PULSES - 1) * PERIOD + WIDTH < END && start + PULSES * PERIOD > END);
		/* 2560 §15 (EICRA): "Edges on INT3..INT0 are registered
		 * asynchronously"; INT7:4 (EICRB) are sampled with clk_IO:
		 * Table 11-1, "for INT7:4, only level interrupt". */
		int seen = !power_down || n < 4;
		for (unsigned i = 0; seen && i < PULSES; i++) {
			uint64_t rise = start + (uint64_t)i * PERIOD, fall = rise + WIDTH;
			if (m2560_sense[n] != 2)
				want[k++] = rise;
			if (m2560_sense[n] != 3)
				want[k++] = fall;
		}
		char vect[16];
		snprintf(vect, sizeof vect, "INT%u_vect", n);
		ck_raises(c, p, vect, want, k);
		ck_entries(c, p, vect, k);
	}
	probe_close(p);
}

/* 2560 §15.2.1-3: INT0-7 on PD3:0 and PE7:4, each in its own mode. */
static void test_m2560_int0_to_int7(void **state)
{
	(void)state;
	check c = { .len = 0 };
	run_m2560_int(&c, 0);
	ck_done(&c);
}

/* 644 "Alternate Functions of Port B": INT2 is PB2 (PB3 is AIN1/OC0A).
 * Falling edges (EICRA ISC21): the five falls of PB2's pulses, none of
 * PB3's; each handler reads EIFR 0 (the entry cleared INTF2). */
static void test_m644_int2_on_pb2(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("int2_m644", M644, MHZ16);
	probe_watch(p, "GPIOR0", NULL);
	probe_stimuli(p, "pin B2 every 10000 start 1000 pulse 2000\n"
			 "pin B3 every 10000 start 6000 pulse 2000\n");
	probe_run(p, 47000);
	uint64_t want[5];
	for (unsigned i = 0; i < 5; i++)
		want[i] = 1000 + 2000 + 10000 * (uint64_t)i;
	ck_raises(&c, p, "INT2_vect", want, 5);
	ck_entries(&c, p, "INT2_vect", 5);
	ck_report(&c, p, "GPIOR0", "00 00 00 00 00");
	probe_close(p);
	ck_done(&c);
}

/* ---- the pins ---------------------------------------------------------- */

/* Table 14-1: DDxn 0, PORTxn 1, PUD 0 is "Input, pull-up": "Pxn will
 * source current if ext. pulled low" — the outside driver sets the
 * level, and a PORTB write (PORTB0 kept 1) changes nothing of it.  So
 * after the outside world pulls PB0 low, none of the 1000 reads is high
 * and PB0 changes twice (low at 10000, high at 200000 when let go: the
 * pull-up): two pin change interrupts.  PB1 an output low reads low
 * (§14.2.4: PINxn is the pin, which the chip drives), whatever the
 * outside drives. */
static void test_driver_beats_pullup(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("pins_pullup", M328, MHZ16);
	probe_watch(p, "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	probe_stimuli(p, "pin B0 at 10000 low\npin B1 at 10000 high\npin B0 at 200000 release\n");
	probe_run(p, 300000);
	ck_report(&c, p, "GPIOR1", "00 00");
	ck_report(&c, p, "GPIOR0", "01 00 01");
	uint64_t want[2] = { 10000, 200000 };
	ck_raises(&c, p, "PCINT0_vect", want, 2);
	ck_entries(&c, p, "PCINT0_vect", 2);
	ck_report(&c, p, "GPIOR2", "01 02");
	probe_close(p);
	ck_done(&c);
}

/* §14.4.1 MCUCR, PUD: "the pull-ups in the I/O ports are disabled even
 * if the DDxn and PORTxn Registers are configured to enable the pull-ups"
 * (Table 14-1: PUD 1 is tri-state).  With PUD set PB0 and PB1 read 0
 * (nothing pulls them: they stay as at reset, avrr's rule for a floating
 * pin, docs/stimuli.md); PUD cleared: 0x03, one pin change on PB0 at
 * that write; PB1 pulled low: 0x01; PUD set again: PB0 floats, keeping
 * its level (no pin change), PB1 still driven. */
static void test_pud(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("pins_pud", M328, MHZ16);
	probe_watch(p, "GPIOR0", "GPIOR2", "MCUCR", NULL);
	probe_stimuli(p, "pin B1 at 20000 low\n");
	probe_run(p, 40000);
	ck_report(&c, p, "GPIOR0", "00 03 01 01");
	probe_series *m = probe_writes(p, "MCUCR");
	assert_int_equal(m->n, 3);
	uint64_t want[1] = { m->cycle[1] };
	ck_raises(&c, p, "PCINT0_vect", want, 1);
	ck_report(&c, p, "GPIOR2", "01");
	probe_close(p);
	ck_done(&c);
}

/* m16 "SFIOR", PUD (bit 2): the same table. */
static void test_m16_pud_in_sfior(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("pins_pud_m16", M16, MHZ8);
	probe_watch(p, "PORTC", NULL);
	probe_stimuli(p, "pin B1 at 20000 low\n");
	probe_run(p, 40000);
	ck_report(&c, p, "PORTC", "00 03 01");
	probe_close(p);
	ck_done(&c);
}

/* ---- sleep -------------------------------------------------------------- */

/* §10.5 Power-down: "only an external reset, ... an external level
 * interrupt on INT0 or INT1, or a pin change interrupt can wake up the
 * MCU"; §13.2.3: INTF0 "is always cleared when INT0 is configured as a
 * level interrupt" — a stale flag written away first changes nothing.
 * PD2 low from 100000 to 180000 (5 ms, longer than any start-up time the
 * fuses select at 16 MHz): one INT0, while PD2 is low, then the program
 * runs on. */
static void test_int0_level_wakes_from_power_down(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("int0_wake", M328, MHZ16);
	probe_watch(p, "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, "pin D2 at 100000 low\npin D2 at 180000 high\n");
	probe_run(p, 300000);
	probe_series *e = probe_entries(p, "INT0_vect");
	ck(&c, e->n == 1, "%s: %u INT0 entries, want 1", p->elf, e->n);
	if (e->n)
		ck(&c, e->cycle[0] >= 100000 && e->cycle[0] < 180000,
		   "%s: INT0 entered at %llu, want while PD2 is low [100000, 180000)", p->elf,
		   (ull)e->cycle[0]);
	ck_report(&c, p, "GPIOR1", "01");
	ck_report(&c, p, "GPIOR0", "01");
	probe_series *g = probe_writes(p, "GPIOR0");
	if (g->n && e->n)
		ck(&c, g->cycle[0] > e->cycle[0], "%s: awake at %llu, before INT0 (%llu)", p->elf,
		   (ull)g->cycle[0], (ull)e->cycle[0]);
	probe_close(p);
	ck_done(&c);
}

/* Table 10-1: with clk_IO stopped (power-down here, set by the test from
 * 10000 to 50000) only INT1:0's low level and the pin change interrupts
 * wake the chip; §13: "recognition of falling or rising edge interrupts
 * on INT0 or INT1 requires the presence of an I/O clock", "pin change
 * interrupts on PCINT23..0 are detected asynchronously".  So PD2's fall
 * at 20000 is not seen and the one at 60000 is; PD3's low level at
 * 25000 is (once: the handler disables INT1); PB0's change at 40000 is. */
static void test_clocks_m328(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("clocks_m328", M328, MHZ16);
	probe_stimuli(p, "pin D2 at 20000 low\npin D2 at 30000 high\npin D3 at 25000 low\n"
			 "pin D3 at 35000 high\npin B0 at 40000 low\npin D2 at 60000 low\n");
	probe_run(p, 10000);
	set_clocks(p, 1);
	probe_run(p, 50000);
	set_clocks(p, 0);
	probe_run(p, 80000);
	uint64_t int0[1] = { 60000 }, int1[1] = { 25000 }, pc0[1] = { 40000 };
	ck_raises(&c, p, "INT0_vect", int0, 1);
	ck_raises(&c, p, "INT1_vect", int1, 1);
	ck_raises(&c, p, "PCINT0_vect", pc0, 1);
	ck_entries(&c, p, "INT0_vect", 1);
	ck_entries(&c, p, "INT1_vect", 1);
	ck_entries(&c, p, "PCINT0_vect", 1);
	const char *warn = probe_warnings(p);
	ck(&c, !strcmp(warn,
		       "extint: EICRA selects INT0's falling edge, and PD2 went low while the CPU "
		       "slept in power-down, where clk_IO is stopped: the chip sees INT0's edges "
		       "only with clk_IO running (only its low level wakes it), so neither it nor "
		       "avrr took one; when the clock runs again the chip's sampled edge detector "
		       "may take the new level for an edge, avrr does not\n"
		       "extint: INT1's low level (EICRA) woke the CPU from power-down: the chip "
		       "takes INT1 only if PD3 is still low at the end of its start-up time (the "
		       "SUT and CKSEL fuses); avrr takes it once awake, whether or not the level "
		       "lasted\n"),
	   "%s: warnings:\n%s", p->elf, warn);
	probe_close(p);
	ck_done(&c);
}

/* m16 "Power Management and Sleep Modes" (wake-up sources: "INT2, INT1,
 * INT0" with INT1 and INT0 level only) and MCUCSR's ISC2: "INT2 is
 * activated asynchronously".  PD2's fall at 20000 (clk_IO stopped) is not
 * seen, the one at 60000 is; PB2's at 40000 is.  The INT2 handler changes
 * ISC2 with INT2 enabled: "an interrupt can occur" — warned. */
static void test_clocks_m16(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("clocks_m16", M16, MHZ8);
	probe_stimuli(p, "pin D2 at 20000 low\npin D2 at 30000 high\npin B2 at 40000 low\n"
			 "pin D2 at 60000 low\n");
	probe_run(p, 10000);
	set_clocks(p, 1);
	probe_run(p, 50000);
	set_clocks(p, 0);
	probe_run(p, 80000);
	uint64_t int0[1] = { 60000 }, int2[1] = { 40000 };
	ck_raises(&c, p, "INT0_vect", int0, 1);
	ck_raises(&c, p, "INT2_vect", int2, 1);
	const char *warn = probe_warnings(p);
	ck(&c, !strcmp(warn,
		       "extint: MCUCR selects INT0's falling edge, and PD2 went low while the CPU "
		       "slept in power-down, where clk_IO is stopped: the chip sees INT0's edges "
		       "only with clk_IO running (only its low level wakes it), so neither it nor "
		       "avrr took one; when the clock runs again the chip's sampled edge detector "
		       "may take the new level for an edge, avrr does not\n"
		       "extint: MCUCSR changed ISC2 with INT2 enabled in GICR: the chip can raise "
		       "INT2 on that write (its datasheet: disable INT2 first), avrr raises none\n"),
	   "%s: warnings:\n%s", p->elf, warn);
	probe_close(p);
	ck_done(&c);
}

/* 2560 Table 11-1 ("for INT7:4, only level interrupt") and §15.2.1
 * ("edges on INT3..INT0 are registered asynchronously"): with clk_IO
 * stopped throughout, INT3:0 see every edge of their mode, INT7:4 none. */
static void test_m2560_clocks(void **state)
{
	(void)state;
	check c = { .len = 0 };
	run_m2560_int(&c, 1);
	ck_done(&c);
}

/* ---- what is not modelled, and replay ---------------------------------- */

/* INT0's handler disables it: one entry. */
static void ck_entries_once(probe *p, const char *vect)
{
	check c = { .len = 0 };
	ck_entries(&c, p, vect, 1);
	ck_done(&c);
}

static void test_warnings(void **state)
{
	(void)state;
	probe *p = open_fw("pins_warn", M328, MHZ16);
	probe_stimuli(p, "pin B1 at 1000 low\n");
	probe_run(p, 5000);
	assert_string_equal(probe_warnings(p),
			    "the pins: DDRB makes PB1 an output driven high while the stimuli "
			    "drive it low: on the chip the two drivers fight (a short, the level "
			    "undefined); avrr gives the chip's output\n"
			    "the pins: DIDR0 = 0x01 disables digital input buffers, which avrr does "
			    "not model: the pins' PINx bits read their levels where the chip's read "
			    "0\n"
			    "extint: INT0's low level (EICRA) was taken on PD2, an input nothing "
			    "drives (no stimulus, no pull-up): its level is undefined on the chip; "
			    "avrr holds it at the level it last had, low, so INT0 is requested for "
			    "as long as it is enabled\n");
	ck_entries_once(p, "INT0_vect");
	probe_run(p, 10000);
	assert_string_equal(probe_warnings(p), "");  /* each said once */
	probe_close(p);
}

/* int_m2560 recorded with its pulses and replayed: its 50 interrupts
 * (15 falling, 15 rising, 20 any change) are injected where they were
 * taken, and the replay is exact. */
static void test_replays_exactly(void **state)
{
	scratch *s = *state;
	char path[256], stim[256];
	snprintf(stim, sizeof stim, "%s/int.stim", s->dir);
	static const char *const pin[8] = { "D0", "D1", "D2", "D3", "E4", "E5", "E6", "E7" };
	char script[1024];
	size_t len = 0;
	for (unsigned n = 0; n < 8; n++)
		len += (size_t)snprintf(script + len, sizeof script - len,
					"pin %s every 10000 start %u pulse 2000\n", pin[n], 1000 + 500 * n);
	test_write_text(stim, script);
	test_record(s, path, sizeof path, "int.db", "tests/chip/int_m2560.elf --mcu atmega2560 "
		    "--freq 16000000 --stimuli '%s' --cycles 47000", stim);
	test_assert_replay_exact(s, path, 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcifr_eifr_write_one_clears),
		cmocka_unit_test(test_m2560_pcifr_eifr),
		cmocka_unit_test(test_m16_gifr),
		cmocka_unit_test(test_m2560_pcint_ports_e_j_k),
		cmocka_unit_test(test_m2560_int0_to_int7),
		cmocka_unit_test(test_m644_int2_on_pb2),
		cmocka_unit_test(test_driver_beats_pullup),
		cmocka_unit_test(test_pud),
		cmocka_unit_test(test_m16_pud_in_sfior),
		cmocka_unit_test(test_int0_level_wakes_from_power_down),
		cmocka_unit_test(test_clocks_m328),
		cmocka_unit_test(test_clocks_m16),
		cmocka_unit_test(test_m2560_clocks),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test_setup_teardown(test_replays_exactly, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
