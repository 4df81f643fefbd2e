/*
 * test_conformance_spi.c — the SPI (sim/periph_spi.c) against the
 * datasheets: each firmware of tests/chip/spi_*.c runs on its MCU and
 * clock, with a device on simavr's SPI IRQs where it needs one, and every
 * number checked is worked out here from the datasheet, never taken from
 * a run.  Sections are the ATmega328P datasheet's (7810D) §19 "SPI –
 * Serial Peripheral Interface"; the ATmega2560's (2549Q) §21 and the
 * ATmega16's (2466T) "Serial Peripheral Interface – SPI" say the same.
 *
 * The arithmetic.  A master byte is 8 SCK periods; SCK is fosc / 4, 16,
 * 64, 128 by SPR1:0, twice as fast with SPI2X (Table 19-5), so a byte
 * written to SPDR at cycle w ends at w + 8·{4, 16, 64, 128} (SPI2X:
 * 8·{2, 8, 32, 64}), where SPIF rises (§19.5.2 "When a serial transfer is
 * complete, the SPIF Flag is set").  The firmware sleeps while a byte is
 * under way, so SPIF's raise lands on its own cycle; where it polls, on
 * the first instruction boundary at or after it (SLACK cycles at most).
 * The write's cycle is the storing instruction's start, as the probe
 * reports it.
 *
 * The device: a listener on SPI_IRQ_OUTPUT that notes each byte the chip
 * sends, with its cycle, and answers on SPI_IRQ_INPUT with its complement
 * (a slave shifts its answer in as the master's byte goes out).  In slave
 * mode the test is the master: a byte raised on SPI_IRQ_INPUT is one
 * clocked in at that cycle.
 */
#include "tests/testlib.h"

#include <avr_ioport.h>
#include <avr_spi.h>
#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>

#include "tests/chip/probe.h"
/* sim/'s inside: this test drives simavr's SPI and pin IRQs. */
#include "sim/sim_impl.h"

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define M16 "atmega16"
#define MHZ16 16000000u
#define MHZ8 8000000u

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

enum { SLACK = 4, DEV_MAX = 64 };

typedef unsigned long long ull;

/* ---- the device on the SPI IRQs -------------------------------------- */

typedef struct dev {
	sim *s;
	avr_irq_t *in, *out;
	int answer;              /* answer each byte with its complement */
	unsigned n;
	uint64_t cycle[DEV_MAX];
	uint8_t byte[DEV_MAX];
} dev;

static void dev_on_output(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	dev *d = param;
	if (d->n < DEV_MAX) {
		d->cycle[d->n] = sim_cycle(d->s);
		d->byte[d->n++] = (uint8_t)value;
	}
	if (d->answer)
		avr_raise_irq(d->in, ~value & 0xff);
}

static void dev_attach(dev *d, probe *p, int answer)
{
	*d = (dev){ .s = p->s, .answer = answer };
	d->in = avr_io_getirq(p->s->avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_INPUT);
	d->out = avr_io_getirq(p->s->avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT);
	assert_non_null(d->in);
	assert_non_null(d->out);
	avr_irq_register_notify(d->out, dev_on_output, d);
}

/* The master (slave mode's test): clocks in[i] in at cycle at[i], from a
 * cycle timer (a run's cycle limit is not exact while the CPU sleeps). */
typedef struct master {
	dev *d;
	const uint64_t *at;
	const uint8_t *in;
	unsigned n, next;
} master;

static avr_cycle_count_t master_clock(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr;
	(void)when;
	master *m = param;
	avr_raise_irq(m->d->in, m->in[m->next++]);
	return m->next < m->n ? m->at[m->next] : 0;
}

static void master_start(master *m, dev *d, const uint64_t *at, const uint8_t *in, unsigned n)
{
	*m = (master){ .d = d, .at = at, .in = in, .n = n };
	avr_t *avr = d->s->avr;
	avr_cycle_timer_register(avr, at[0] - avr->cycle, master_clock, m);
}

/* A pin's levels as simavr's pin IRQ carries them (what the outside world
 * drives too, which sim_observe_pins, the chip's own, leaves out): each
 * change, with its cycle. */
typedef struct pin_watch {
	sim *s;
	int level;               /* -1 before the first */
	unsigned n;
	uint64_t cycle[DEV_MAX];
	uint8_t to[DEV_MAX];
} pin_watch;

static void pin_watch_on(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	pin_watch *w = param;
	int level = (value & 0xff) != 0;
	if (level == w->level || w->n == DEV_MAX)
		return;
	w->level = level;
	w->cycle[w->n] = sim_cycle(w->s);
	w->to[w->n++] = (uint8_t)level;
}

static void pin_watch_attach(pin_watch *w, sim *s, char port, unsigned bit)
{
	*w = (pin_watch){ .s = s, .level = -1 };
	avr_irq_t *irq = avr_io_getirq(s->avr, AVR_IOCTL_IOPORT_GETIRQ(port), (int)bit);
	assert_non_null(irq);
	avr_irq_register_notify(irq, pin_watch_on, w);
}

/* ---- runs ------------------------------------------------------------ */

static probe *open_fw(const char *name, const char *mcu, uint32_t hz)
{
	char path[128];
	snprintf(path, sizeof path, "tests/chip/%s.elf", name);
	return probe_open(path, mcu, hz);
}

/* The values written to a report register, as "07 05 ...". */
static void report_string(probe *p, const char *reg, char *out, size_t n)
{
	probe_series *s = probe_writes(p, reg);
	size_t len = 0;
	out[0] = 0;
	for (unsigned i = 0; i < s->n && len + 4 < n; i++)
		len += (size_t)snprintf(out + len, n - len, i ? " %02x" : "%02x", s->value[i]);
}

static void ck_report(check *c, probe *p, const char *reg, const char *want)
{
	char got[256];
	report_string(p, reg, got, sizeof got);
	ck(c, !strcmp(got, want), "%s: %s read back \"%s\", want \"%s\"", p->elf, reg, got, want);
}

/* The raises of SPI_STC_vect must be at want[0..n): exactly, or where
 * slack[i] is not 0 (a polled byte) within [want[i], want[i] + slack[i]). */
static void ck_raises(check *c, probe *p, const uint64_t *want, const unsigned *slack, unsigned n)
{
	probe_series *got = probe_raises(p, "SPI_STC_vect");
	ck(c, got->n == n, "%s: %u SPIF raises, want %u", p->elf, got->n, n);
	for (unsigned i = 0; i < n && i < got->n; i++) {
		unsigned sl = slack ? slack[i] : 0;
		ck(c, sl ? got->cycle[i] >= want[i] && got->cycle[i] < want[i] + sl
			 : got->cycle[i] == want[i],
		   "%s: SPIF raise %u at cycle %llu, want %llu%s", p->elf, i + 1,
		   (ull)got->cycle[i], (ull)want[i], sl ? " (+ slack)" : "");
	}
}

/* The bytes the device saw go out, and their cycles (as ck_raises). */
static void ck_sent(check *c, probe *p, const dev *d, const uint64_t *when, const unsigned *slack,
		    const uint8_t *bytes, unsigned n)
{
	ck(c, d->n == n, "%s: %u bytes out on SPI_IRQ_OUTPUT, want %u", p->elf, d->n, n);
	for (unsigned i = 0; i < n && i < d->n; i++) {
		unsigned sl = slack ? slack[i] : 0;
		ck(c, d->byte[i] == bytes[i], "%s: byte %u out is 0x%02x, want 0x%02x", p->elf,
		   i + 1, d->byte[i], bytes[i]);
		ck(c, sl ? d->cycle[i] >= when[i] && d->cycle[i] < when[i] + sl
			 : d->cycle[i] == when[i],
		   "%s: byte %u out at cycle %llu, want %llu%s", p->elf, i + 1, (ull)d->cycle[i],
		   (ull)when[i], sl ? " (+ slack)" : "");
	}
}

/* ---- master: the byte time ------------------------------------------- */

/* Eight bytes, SPR1:0 = 0..3 without then with SPI2X: each SPIF raise at
 * its SPDR write + 8 SCK periods, each byte out then, each answer read. */
static void test_byte_time_at_each_rate(void **state)
{
	(void)state;
	static const unsigned div[8] = { 4, 16, 64, 128, 2, 8, 32, 64 };
	check c = { .len = 0 };
	probe *p = open_fw("spi_rate", M328, MHZ16);
	dev d;
	dev_attach(&d, p, 1);
	probe_watch(p, "SPDR", "GPIOR0", "GPIOR1", NULL);
	probe_run(p, 20000);
	probe_series *w = probe_writes(p, "SPDR");
	assert_int_equal(w->n, 8);
	uint64_t want[8];
	uint8_t bytes[8];
	for (unsigned i = 0; i < 8; i++) {
		want[i] = w->cycle[i] + 8 * div[i];
		bytes[i] = (uint8_t)(0x10 + i);
	}
	ck_raises(&c, p, want, NULL, 8);
	ck_sent(&c, p, &d, want, NULL, bytes, 8);
	ck(&c, probe_entries(p, "SPI_STC_vect")->n == 8, "%s: %u SPI_STC entries, want 8", p->elf,
	   probe_entries(p, "SPI_STC_vect")->n);
	/* In the handler SPSR has SPIF cleared by the entry; SPDR is the
	 * device's answer (the complement). */
	ck_report(&c, p, "GPIOR0", "00 00 00 00 01 01 01 01");
	ck_report(&c, p, "GPIOR1", "ef ee ed ec eb ea e9 e8");
	probe_close(p);
	ck_done(&c);
}

/* ---- SPIF, WCOL, SPDR reads ------------------------------------------ */

static void test_spif_wcol_and_spdr_reads(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("spi_flags", M328, MHZ16);
	dev d;
	dev_attach(&d, p, 1);
	probe_watch(p, "SPDR", "SPCR", "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	probe_run(p, 20000);
	probe_series *w = probe_writes(p, "SPDR");
	assert_int_equal(w->n, 4);  /* a5, 5a (the collision), 3c, 99 */
	probe_series *spcr = probe_writes(p, "SPCR");
	assert_int_equal(spcr->n, 2);
	/* fosc/128: 1024 cycles from each accepted write; 0x5a is lost.  The
	 * last raise is SPIE's, set while SPIF is: the interrupt pending at
	 * that write. */
	uint64_t want[4] = { w->cycle[0] + 1024, w->cycle[2] + 1024, w->cycle[3] + 1024,
			     spcr->cycle[1] };
	static const uint8_t bytes[3] = { 0xa5, 0x3c, 0x99 };
	static const unsigned slack[4] = { SLACK, SLACK, SLACK, 0 };
	ck_raises(&c, p, want, slack, 4);
	ck_sent(&c, p, &d, want, slack, bytes, 3);
	/* WCOL alone during the byte (40); SPIF and WCOL at its end (c0);
	 * cleared by the SPDR read after that SPSR read (00); left set by an
	 * SPDR read with no SPSR read first (80), then cleared (00). */
	ck_report(&c, p, "GPIOR0", "40 c0 00 80 00");
	/* The answer to a5 three times: every read until the next byte
	 * ends; then the answer to 3c twice. */
	ck_report(&c, p, "GPIOR1", "5a 5a 5a c3 c3");
	/* SPIE set while SPIF is: the interrupt at once, whose entry clears
	 * SPIF. */
	ck_report(&c, p, "GPIOR2", "00");
	probe_series *e = probe_entries(p, "SPI_STC_vect");
	ck(&c, e->n == 1, "%s: %u SPI_STC entries, want 1", p->elf, e->n);
	if (e->n)
		ck(&c, e->cycle[0] > spcr->cycle[1] && e->cycle[0] <= spcr->cycle[1] + SLACK,
		   "%s: the SPI entry at %llu, want just after the SPIE write at %llu", p->elf,
		   (ull)e->cycle[0], (ull)spcr->cycle[1]);
	probe_close(p);
	ck_done(&c);
}

/* ---- slave ----------------------------------------------------------- */

/* The test clocks bytes in as the master: each goes out with SPDR's
 * preloaded byte (not the one received), or, not reloaded, the byte
 * received before (the shift register is circular, Figure 19-2); SPIF at
 * the byte's cycle.  With SS driven high the slave ignores the bus. */
static void test_slave_sends_preloaded_byte(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("spi_slave", M328, MHZ16);
	dev d;
	dev_attach(&d, p, 0);
	probe_watch(p, "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, "pin B2 at 50000 high\npin B2 at 70000 low\n");
	/* 0x55 comes while SS is high (50000 to 70000): ignored. */
	static const uint64_t clock[5] = { 10000, 20000, 30000, 60000, 80000 };
	static const uint8_t in[5] = { 0x81, 0x42, 0x17, 0x55, 0x66 };
	static const uint64_t at[4] = { 10000, 20000, 30000, 80000 };
	master m;
	master_start(&m, &d, clock, in, 5);
	probe_run(p, 90000);
	static const uint8_t bytes[4] = { 0x3c, 0xc3, 0x42, 0x17 };
	ck_sent(&c, p, &d, at, NULL, bytes, 4);
	ck_raises(&c, p, at, NULL, 4);
	ck(&c, probe_entries(p, "SPI_STC_vect")->n == 4, "%s: %u SPI_STC entries, want 4", p->elf,
	   probe_entries(p, "SPI_STC_vect")->n);
	ck_report(&c, p, "GPIOR1", "81 42 17 66");
	ck_report(&c, p, "GPIOR0", "81 42 17 66");
	const char *warn = probe_warnings(p);
	ck(&c, !strcmp(warn, "spi: a byte came while SS (PB2) was high: the slave ignored it, as "
		       "the chip does\n"), "%s: warnings:\n%s", p->elf, warn);
	probe_close(p);
	ck_done(&c);
}

/* The stimuli's `spi master` clocks the slave (docs/stimuli.md): SS low
 * at each occurrence T, byte k's last bit in at T + 8·(k+1)·(F_CPU / HZ)
 * (8 SCK periods a byte, §19.2 "the SPI clock generator ... eight clock
 * pulses"), SPIF raised then (§19.5.2), the firmware sleeping so the
 * raise is exact; SS high again with the last byte.  The slave sends the
 * byte it preloaded first, then each one its handler loaded (the
 * complement of the byte before).  Recorded with the file and replayed:
 * exact. */
static void test_slave_clocked_by_a_stimulus(void **state)
{
	scratch *s = *state;
	static const char stim[] =
		"spi master at 10000 rate 1000000 0x81 0x42 0x17\n"
		"spi master every 20000 start 30000 rate 250000 \"ok\"\n";
	check c = { .len = 0 };
	probe *p = open_fw("spi_slave_clocked", M328, MHZ16);
	dev d;
	dev_attach(&d, p, 0);
	pin_watch ss;
	pin_watch_attach(&ss, p->s, 'B', 2);
	probe_watch(p, "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, stim);
	probe_run(p, 60000);
	/* 1 MHz: 16 cycles an SCK period, 128 a byte; 250 kHz: 64, 512. */
	const uint64_t b1 = 8 * (MHZ16 / 1000000), b2 = 8 * (MHZ16 / 250000);
	const uint64_t want[7] = { 10000 + b1, 10000 + 2 * b1, 10000 + 3 * b1,
				   30000 + b2, 30000 + 2 * b2, 50000 + b2, 50000 + 2 * b2 };
	/* 0xa5 preloaded, then the complement of each byte received. */
	static const uint8_t sent[7] = { 0xa5, 0x7e, 0xbd, 0xe8, 0x90, 0x94, 0x90 };
	ck_raises(&c, p, want, NULL, 7);
	ck_sent(&c, p, &d, want, NULL, sent, 7);
	ck(&c, probe_entries(p, "SPI_STC_vect")->n == 7, "%s: %u SPI_STC entries, want 7", p->elf,
	   probe_entries(p, "SPI_STC_vect")->n);
	ck_report(&c, p, "GPIOR0", "81 42 17 6f 6b 6f 6b");
	/* SPSR in the handler: SPIF cleared by the vector's entry, no WCOL. */
	ck_report(&c, p, "GPIOR1", "00 00 00 00 00 00 00");
	/* SS (PB2): high from the start, low at each T, high with the last
	 * byte. */
	const uint64_t edge[7] = { 0, 10000, want[2], 30000, want[4], 50000, want[6] };
	ck(&c, ss.n == 7, "%s: %u SS changes, want 7", p->elf, ss.n);
	for (unsigned i = 0; i < 7 && i < ss.n; i++)
		ck(&c, ss.cycle[i] == edge[i] && ss.to[i] == !(i % 2),
		   "%s: SS change %u at %llu to %u, want %llu to %u", p->elf, i + 1,
		   (ull)ss.cycle[i], ss.to[i], (ull)edge[i], !(i % 2));
	const char *warn = probe_warnings(p);
	ck(&c, !strcmp(warn, ""), "%s: warnings:\n%s", p->elf, warn);
	probe_close(p);
	ck_done(&c);

	char file[256], path[256];
	snprintf(file, sizeof file, "%s/master.stim", s->dir);
	test_write_text(file, stim);
	test_record(s, path, sizeof path, "spi_master.db", "tests/chip/spi_slave_clocked.elf "
		    "--mcu atmega328p --freq 16000000 --stimuli '%s' --cycles 60000", file);
	test_assert_replay_exact(s, path, 7);
}

/* ---- SS in master mode ----------------------------------------------- */

/* SS an input, pulled up: a byte at fosc/16 (128 cycles); the outside
 * world drives SS low at cycle 20000: MSTR cleared, SPIF set then; MSTR
 * set again with SS low: cleared and SPIF set at that write. */
static void test_ss_low_clears_mstr(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("spi_ss", M328, MHZ16);
	probe_watch(p, "SPDR", "SPCR", "GPIOR0", NULL);
	probe_stimuli(p, "pin B2 at 20000 low\n");
	probe_run(p, 40000);
	probe_series *w = probe_writes(p, "SPDR");
	probe_series *spcr = probe_writes(p, "SPCR");
	assert_int_equal(w->n, 1);
	assert_int_equal(spcr->n, 2);
	uint64_t want[3] = { w->cycle[0] + 128, 20000, spcr->cycle[1] };
	ck_raises(&c, p, want, NULL, 3);
	ck(&c, probe_entries(p, "SPI_STC_vect")->n == 3, "%s: %u SPI_STC entries, want 3", p->elf,
	   probe_entries(p, "SPI_STC_vect")->n);
	/* SPIE|SPE|MSTR|SPR0, then MSTR cleared twice. */
	ck_report(&c, p, "GPIOR0", "d1 c1 c1");
	probe_close(p);
	ck_done(&c);
}

/* ---- the ATmega16 and the ATmega2560 ---------------------------------- */

static void test_atmega16(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("spi_m16", M16, MHZ8);
	dev d;
	dev_attach(&d, p, 1);
	probe_watch(p, "SPDR", "PORTC", NULL);
	probe_run(p, 20000);
	probe_series *w = probe_writes(p, "SPDR");
	assert_int_equal(w->n, 3);
	/* fosc/8 (SPR0 with SPI2X): 64; fosc/128: 1024; fosc/4 polled: 32. */
	uint64_t want[3] = { w->cycle[0] + 64, w->cycle[1] + 1024, w->cycle[2] + 32 };
	static const uint8_t bytes[3] = { 0x61, 0x62, 0x63 };
	static const unsigned slack[3] = { 0, 0, SLACK };
	ck_raises(&c, p, want, slack, 3);
	ck_sent(&c, p, &d, want, slack, bytes, 3);
	/* The answers in the handler; after the polled byte SBIS read SPIF
	 * set (80), the SPDR read cleared it (00). */
	ck_report(&c, p, "PORTC", "9e 9d 80 9c 00");
	probe_close(p);
	ck_done(&c);
}

static void test_atmega2560(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("spi_m2560", M2560, MHZ16);
	dev d;
	dev_attach(&d, p, 1);
	probe_watch(p, "SPDR", "GPIOR0", NULL);
	probe_stimuli(p, "pin B0 at 30000 low\n");
	probe_run(p, 40000);
	probe_series *w = probe_writes(p, "SPDR");
	assert_int_equal(w->n, 2);
	/* fosc/64: 512; fosc/2 (SPI2X, SPR 0): 16; SS (PB0) low at 30000. */
	uint64_t want[3] = { w->cycle[0] + 512, w->cycle[1] + 16, 30000 };
	static const uint8_t bytes[2] = { 0x21, 0x22 };
	ck_raises(&c, p, want, NULL, 3);
	ck_sent(&c, p, &d, want, NULL, bytes, 2);
	ck_report(&c, p, "GPIOR0", "d2 d0 c0");
	probe_close(p);
	ck_done(&c);
}

/* ---- reset ----------------------------------------------------------- */

/* A watchdog reset while a byte is under way: the byte never ends (no
 * SPIF, nothing out) and SPCR, SPSR, SPDR read 0 after it (their reset
 * values, §19.5). */
static void test_reset_state(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("spi_reset", M328, MHZ16);
	dev d;
	dev_attach(&d, p, 1);
	probe_watch(p, "SPDR", "GPIOR0", NULL);
	probe_run(p, 300000);
	probe_series *w = probe_writes(p, "SPDR");
	assert_int_equal(w->n, 1);
	ck(&c, probe_raises(p, "SPI_STC_vect")->n == 0, "%s: %u SPIF raises, want none", p->elf,
	   probe_raises(p, "SPI_STC_vect")->n);
	ck(&c, d.n == 0, "%s: %u bytes out, want none", p->elf, d.n);
	ck_report(&c, p, "GPIOR0", "00 00 00");
	/* The reset came while the byte was under way: the program after it
	 * reports before the byte would have ended. */
	probe_series *g = probe_writes(p, "GPIOR0");
	ck(&c, g->n && g->cycle[0] > w->cycle[0] && g->cycle[0] < w->cycle[0] + 1024,
	   "%s: the reset's report at %llu, want within the byte [%llu, %llu)", p->elf,
	   g->n ? (ull)g->cycle[0] : 0ull, (ull)w->cycle[0], (ull)w->cycle[0] + 1024);
	probe_close(p);
	ck_done(&c);
}

/* ---- what is not modelled, and replay ---------------------------------- */

static void test_warnings(void **state)
{
	(void)state;
	probe *p = open_fw("spi_warn", M328, MHZ16);
	probe_run(p, 5000);
	const char *warn = probe_warnings(p);
	assert_string_equal(warn,
			    "spi: the master's bytes, their timing and SPIF are simulated, not its "
			    "SCK and MOSI waveforms: pins PB5 and PB3 show PORTB during a transfer\n"
			    "spi: a master transfer ended with no device answering (no spi device "
			    "of the stimuli selected): SPDR received MISO's level, PB4 low, on every "
			    "bit (0x00)\n"
			    "spi: SPCR makes the SPI a slave, and no master has clocked it yet (a "
			    "stimuli's spi master line would): no byte has arrived, SPIF has not "
			    "risen\n"
			    "spi: SPCR makes the SPI a master with SS (PB2) an input that nothing "
			    "drives (no pull-up, no stimulus): on the atmega328p a low level there "
			    "would clear MSTR and set SPIF; avrr takes it as high\n"
			    "spi: SPCR or SPDR was written while PRSPI (PRR) shut the SPI down: the "
			    "atmega328p's registers of a shut-down module \"can not be read or "
			    "written\", avrr took the writes (a byte written then goes out once "
			    "PRSPI is cleared)\n"
			    "spi: SPCR or SPSR changed the clock (SPR, SPI2X, CPOL, CPHA, DORD) "
			    "during a transfer: the byte kept the rate it began at\n");
	probe_run(p, 10000);
	assert_string_equal(probe_warnings(p), "");  /* each said once */
	probe_close(p);
}

/* spi_rate recorded (no device: MISO's level) and replayed: the eight
 * SPI interrupts are injected where they were taken, and the replay is
 * exact. */
static void test_replays_exactly(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "spi_rate.db", "tests/chip/spi_rate.elf "
		    "--mcu atmega328p --freq 16000000 --cycles 20000");
	test_assert_replay_exact(s, path, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_byte_time_at_each_rate),
		cmocka_unit_test(test_spif_wcol_and_spdr_reads),
		cmocka_unit_test(test_slave_sends_preloaded_byte),
		cmocka_unit_test_setup_teardown(test_slave_clocked_by_a_stimulus, setup, teardown),
		cmocka_unit_test(test_ss_low_clears_mstr),
		cmocka_unit_test(test_atmega16),
		cmocka_unit_test(test_atmega2560),
		cmocka_unit_test(test_reset_state),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test_setup_teardown(test_replays_exactly, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
