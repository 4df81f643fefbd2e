/*
 * test_conformance_wdt.c — the watchdog (sim/periph_wdt.c) against the
 * datasheets' arithmetic: each firmware of tests/chip/wdt_*.c runs in a
 * sim opened with its MCU and clock, and its interrupts, resets and
 * register reports are checked against numbers worked out by hand.
 *
 * A timeout is (2048 << WDP) cycles of the 128 kHz oscillator, so at
 * 16 MHz 2048 << WDP times 125 CPU cycles (WDP 0: 256,000 = 16 ms); on
 * the ATmega16, 16K << WDP cycles of a 1 MHz one (8 CPU cycles each at
 * 8 MHz).  The counter runs from the write that starts the watchdog (or
 * the WDR, or the reset); an interrupt or a reset comes at the first
 * instruction boundary at or after the timeout: SLACK cycles at most.
 */
#include "tests/testlib.h"

#include <sim_avr.h>

/* sim/'s inside: this test pokes a register the firmware reads (GPIOR0). */
#include "sim/sim_impl.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

enum { SLACK = 6, MAX_EVENTS = 512 };

/* A write of a watched register. */
typedef struct wwrite {
	uint16_t addr;
	uint8_t v;
	uint64_t cycle;
} wwrite;

/* What a run saw. */
typedef struct wrun {
	firmware *fw;
	sim *s;
	unsigned nirq, nreset, nw;
	uint64_t irq[MAX_EVENTS];
	uint8_t vec[MAX_EVENTS];
	uint64_t reset[MAX_EVENTS];
	wwrite w[MAX_EVENTS];
	char warnings[4096];
} wrun;

static void on_irq(void *ud, const sim_irq_point *p)
{
	wrun *r = ud;
	if (r->nirq < MAX_EVENTS) {
		r->irq[r->nirq] = p->cycle;
		r->vec[r->nirq] = p->vector;
	}
	r->nirq++;
}

static void on_reset(void *ud)
{
	wrun *r = ud;
	if (r->nreset < MAX_EVENTS)
		r->reset[r->nreset] = sim_cycle(r->s);
	r->nreset++;
}

/* At the start of the storing instruction, before the store. */
static void on_write(void *ud, uint16_t addr, uint8_t v)
{
	wrun *r = ud;
	if (r->nw < MAX_EVENTS)
		r->w[r->nw++] = (wwrite){ addr, v, sim_cycle(r->s) };
}

static void on_warn(void *ud, const char *text)
{
	wrun *r = ud;
	size_t n = strlen(r->warnings);
	snprintf(r->warnings + n, sizeof r->warnings - n, "%s\n", text);
}

/* A fresh run of tests/chip/NAME.elf on `mcu` at `hz`, the writes of the
 * data addresses in watch[] (0-ended) recorded. */
static wrun *wrun_open(const char *name, const char *mcu, uint32_t hz, const uint16_t *watch)
{
	wrun *r = calloc(1, sizeof *r);
	avrr_err err = { "" };
	char path[128];
	snprintf(path, sizeof path, "tests/chip/%s.elf", name);
	assert_non_null(r);
	if (fw_load_file(path, &r->fw, &err) || sim_open(r->fw, mcu, hz, &r->s, &err))
		fail_msg("%s: %s", path, err.msg);
	for (; *watch; watch++)
		if (sim_watch_write(r->s, *watch, &err))
			fail_msg("%s", err.msg);
	sim_set_hooks(r->s, &(sim_hooks){ .ud = r, .on_irq = on_irq, .on_reset = on_reset,
					  .on_write = on_write });
	return r;
}

static void wrun_to(wrun *r, uint64_t cycle)
{
	assert_int_equal(sim_run(r->s, 0, cycle, NULL), SIM_STOP_LIMIT);
	sim_check_modes(r->s, on_warn, r);
}

static void wrun_close(wrun *r)
{
	sim_close(r->s);
	fw_free(r->fw);
	free(r);
}

/* The values written to addr, "%02x" each, space-separated. */
static const char *values(const wrun *r, uint16_t addr)
{
	static char buf[2048];
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < r->nw && n + 4 < sizeof buf; i++)
		if (r->w[i].addr == addr)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%02x", n ? " " : "",
					      r->w[i].v);
	return buf;
}

/* The cycle of the i-th write to addr (i from 0). */
static uint64_t write_cycle(const wrun *r, uint16_t addr, unsigned i)
{
	for (unsigned k = 0; k < r->nw; k++)
		if (r->w[k].addr == addr && !i--)
			return r->w[k].cycle;
	fail_msg("no write %u of 0x%x", i, addr);
	return 0;
}

/* That `got` is the boundary after the timeout at `due`. */
static void assert_at(uint64_t got, uint64_t due, const char *what, unsigned k)
{
	if (got < due || got > due + SLACK)
		fail_msg("%s %u at cycle %llu, not %llu..%llu", what, k, (unsigned long long)got,
			 (unsigned long long)due, (unsigned long long)due + SLACK);
}

/* The k-th timeout after `start`: k * osc * hz / f_osc CPU cycles, rounded
 * up to a whole cycle. */
static uint64_t timeout(uint64_t start, unsigned k, uint64_t osc, uint64_t hz, uint64_t f_osc)
{
	return start + (k * osc * hz + f_osc - 1) / f_osc;
}

/* ATmega328P data addresses. */
enum { M328_PORTB = 0x25, M328_PORTC = 0x28, M328_PORTD = 0x2b, M328_GPIOR0 = 0x3e,
       M328_MCUSR = 0x54, M328_WDTCSR = 0x60, M328_WDT_VECT = 6 };

/* Interrupt mode at WDP wdp on the ATmega328P at hz for `cycles`:
 * `want` interrupts, each at its multiple of the period, WDIE still set
 * in each ISR (WDTCSR = WDIE | WDP there, WDIF cleared by the entry). */
static void interrupt_mode(unsigned wdp, uint32_t hz, uint64_t cycles, unsigned want)
{
	static const uint16_t watch[] = { M328_PORTB, M328_WDTCSR, 0 };
	wrun *r = wrun_open("wdt_int", "atmega328p", hz, watch);
	r->s->avr->data[M328_GPIOR0] = (uint8_t)wdp;
	wrun_to(r, cycles);
	assert_int_equal(r->nreset, 0);
	assert_int_equal(r->nirq, want);
	/* The counter starts with the write of WDCE and WDE (WDE = 1 runs it),
	 * the third: wdt_disable() wrote two. */
	uint64_t start = write_cycle(r, M328_WDTCSR, 2);
	uint8_t report = (uint8_t)(0x40 | (wdp & 7) | (wdp & 8 ? 0x20 : 0));
	for (unsigned k = 1; k <= r->nirq; k++) {
		assert_int_equal(r->vec[k - 1], M328_WDT_VECT);
		assert_at(r->irq[k - 1], timeout(start, k, 2048u << wdp, hz, 128000), "interrupt", k);
	}
	char want_ports[2048] = "";
	for (unsigned k = 0; k < want; k++)
		snprintf(want_ports + strlen(want_ports), sizeof want_ports - strlen(want_ports),
			 "%s%02x", k ? " " : "", report);
	assert_string_equal(values(r, M328_PORTB), want_ports);
	assert_int_equal(sim_live_data(r->s)[M328_WDTCSR], report);
	/* Interrupt mode is what an unprogrammed WDTON fuse allows: said once
	 * (wdt_disable() before stopped no running watchdog). */
	assert_string_equal(r->warnings, "watchdog: the program puts the watchdog in interrupt mode, "
			    "which the atmega328p allows with its WDTON fuse unprogrammed, as avrr "
			    "takes it (it reads no fuses); with WDTON programmed the watchdog would "
			    "stay on in system reset mode\n");
	wrun_close(r);
}

static void test_interrupt_mode_16ms(void **state)
{
	(void)state;
	/* 1,000 ms / 16 ms = 62.5: 62 interrupts in a second (the 63rd at
	 * 16,128,000), where simavr 1.6 gives one. */
	interrupt_mode(0, 16000000, 16000000, 62);
	/* At 14.7456 MHz a 128 kHz cycle is 115.2 CPU cycles, a timeout
	 * 235,929.6: the k-th at ceil(k * 235,929.6) from the start, no
	 * drift; 62 in a second again. */
	interrupt_mode(0, 14745600, 14745600, 62);
}

static void test_interrupt_mode_1s(void **state)
{
	(void)state;
	/* WDP 6: 128K cycles, 1.024 s = 16,384,000 cycles: two in 3 s
	 * (48,000,000), the third due at 49,152,000. */
	interrupt_mode(6, 16000000, 48000000, 2);
	/* WDP 9 (WDP3 | WDP0): 1024K cycles, 8.192 s: one in 10 s. */
	interrupt_mode(9, 16000000, 160000000, 1);
}

static void test_system_reset_mode(void **state)
{
	(void)state;
	static const uint16_t watch[] = { M328_PORTB, M328_PORTC, M328_WDTCSR, 0 };
	wrun *r = wrun_open("wdt_sysreset", "atmega328p", 16000000, watch);
	wrun_to(r, 40000000);
	/* WDP 4: 32K cycles, 256 ms = 4,096,000 cycles after the enable;
	 * then WDE forced on by WDRF at WDP 0: 256,000 after that reset;
	 * then WDRF cleared and the watchdog stopped: no more. */
	assert_int_equal(r->nreset, 2);
	assert_at(r->reset[0], timeout(write_cycle(r, M328_WDTCSR, 0), 1, 2048u << 4, 16000000,
				       128000), "reset", 1);
	assert_at(r->reset[1], timeout(r->reset[0], 1, 2048, 16000000, 128000), "reset", 2);
	assert_int_equal(r->nirq, 0);
	/* MCUSR: PORF at power-on; PORF and WDRF after each watchdog reset
	 * (only a power-on or a 0 written clears a flag). */
	assert_string_equal(values(r, M328_PORTB), "01 09 09");
	/* WDTCSR: 0 at power-on; WDE (0x08, WDP 0) after the reset, and
	 * still after the sequence wrote 0 with WDRF set; then 0. */
	assert_string_equal(values(r, M328_PORTC), "00 08 08 08 00");
	assert_int_equal(sim_live_data(r->s)[M328_WDTCSR], 0);
	assert_string_equal(r->warnings, "watchdog: the program stops the watchdog, which the "
			    "atmega328p allows with its WDTON fuse unprogrammed, as avrr takes it (it "
			    "reads no fuses); with WDTON programmed the watchdog would stay on in "
			    "system reset mode\n");
	wrun_close(r);
}

static void test_interrupt_then_reset(void **state)
{
	(void)state;
	static const uint16_t watch[] = { M328_PORTB, M328_PORTC, M328_WDTCSR, 0 };
	wrun *r = wrun_open("wdt_intreset", "atmega328p", 16000000, watch);
	wrun_to(r, 16000000);
	uint64_t start = write_cycle(r, M328_WDTCSR, 0);
	/* WDP 0: the interrupt 16 ms after the enable, the reset 16 ms later. */
	assert_int_equal(r->nirq, 1);
	assert_int_equal(r->vec[0], M328_WDT_VECT);
	assert_at(r->irq[0], timeout(start, 1, 2048, 16000000, 128000), "interrupt", 1);
	assert_int_equal(r->nreset, 1);
	assert_at(r->reset[0], timeout(start, 2, 2048, 16000000, 128000), "reset", 1);
	/* In the ISR, WDIE and WDIF were cleared by the entry: WDE alone. */
	assert_string_equal(values(r, M328_PORTB), "08");
	assert_string_equal(values(r, M328_PORTC), "01 09");
	wrun_close(r);
}

static void test_timed_sequence(void **state)
{
	(void)state;
	static const uint16_t watch[] = { M328_PORTB, 0 };
	wrun *r = wrun_open("wdt_sequence", "atmega328p", 16000000, watch);
	/* Two seconds: a watchdog left running at 512 ms would reset. */
	wrun_to(r, 32000000);
	assert_string_equal(values(r, M328_PORTB), "0d 0d 0d 1d 0d 00");
	assert_int_equal(r->nreset, 0);
	wrun_close(r);
}

static void test_wdr_restarts_count(void **state)
{
	(void)state;
	static const uint16_t watch[] = { M328_PORTB, M328_PORTC, 0 };
	wrun *r = wrun_open("wdt_wdr", "atmega328p", 16000000, watch);
	wrun_to(r, 16000000);
	/* Twenty WDRs 10 ms apart hold off a 16 ms watchdog; the reset
	 * comes 16 ms after the last (an OUT then the WDR, a cycle later). */
	assert_string_equal(values(r, M328_PORTB),
			    "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14");
	assert_int_equal(r->nreset, 1);
	uint64_t wdr = write_cycle(r, M328_PORTB, 19) + 1;
	assert_at(r->reset[0], timeout(wdr, 1, 2048, 16000000, 128000), "reset", 1);
	assert_string_equal(values(r, M328_PORTC), "ff");
	wrun_close(r);
}

static void test_wdif(void **state)
{
	(void)state;
	static const uint16_t watch[] = { M328_PORTB, M328_PORTC, M328_PORTD, M328_WDTCSR, 0 };
	wrun *r = wrun_open("wdt_flags", "atmega328p", 16000000, watch);
	wrun_to(r, 2000000);
	/* WDIF set by the timeout with I clear, cleared by a 1; set again at
	 * the next timeout; kept with WDIE cleared (the watchdog stops). */
	assert_string_equal(values(r, M328_PORTB), "c0 40 c0 80");
	/* The first report within the polling loop's turn of the timeout. */
	uint64_t start = write_cycle(r, M328_WDTCSR, 0);
	uint64_t due = timeout(start, 1, 2048, 16000000, 128000);
	uint64_t seen = write_cycle(r, M328_PORTB, 0);
	assert_true(seen >= due && seen <= due + 12);
	/* WDIE set with WDIF set: the interrupt is taken at the sei (the
	 * instruction after it runs first: simavr takes it after two, an
	 * RJMP each), long before any timeout.  That write started the stopped watchdog
	 * afresh: in interrupt mode it goes on every 16 ms from there, WDIE
	 * set in each ISR. */
	uint64_t sei = write_cycle(r, M328_PORTD, 0);
	if (!r->nirq || r->irq[0] <= sei || r->irq[0] > sei + 8)
		fail_msg("%u interrupts, the first at %llu; sei at %llu", r->nirq,
			 (unsigned long long)r->irq[0], (unsigned long long)sei + 1);
	uint64_t restart = write_cycle(r, M328_WDTCSR, 4);
	assert_int_equal(r->nirq, 1 + (2000000 - restart) / 256000);
	for (unsigned k = 1; k < r->nirq; k++)
		assert_at(r->irq[k], timeout(restart, k, 2048, 16000000, 128000), "interrupt", k);
	char want[64] = "40";
	for (unsigned k = 1; k < r->nirq; k++)
		strcat(want, " 40");
	assert_string_equal(values(r, M328_PORTC), want);
	wrun_close(r);
}

static void test_atmega16(void **state)
{
	(void)state;
	/* ATmega16 data addresses: PORTB, PORTC, WDTCR. */
	enum { PORTB = 0x38, PORTC = 0x35, WDTCR = 0x41 };
	static const uint16_t watch[] = { PORTB, PORTC, WDTCR, 0 };
	wrun *r = wrun_open("wdt_m16", "atmega16", 8000000, watch);
	wrun_to(r, 16000000);
	/* MCUCSR: PORF; the 0xaa before the WDR; PORF and WDRF. */
	assert_string_equal(values(r, PORTB), "01 aa 09");
	/* WDTCR: 0; 0x0f (bits 7-5 reserved); WDE stays on a plain 0 but
	 * WDP is free (0x08); WDP 1 (0x09); after the watchdog reset 0
	 * (stopped: no WDRF override on this part); 0x08; stopped by the
	 * WDTOE sequence (0x00). */
	assert_string_equal(values(r, PORTC), "00 0f 08 09 00 08 00");
	/* WDP 1: 32K cycles of the 1 MHz oscillator, 32.768 ms = 262,144
	 * cycles at 8 MHz after the WDR; no interrupt (none on this part),
	 * and no second reset. */
	assert_int_equal(r->nirq, 0);
	assert_int_equal(r->nreset, 1);
	uint64_t wdr = write_cycle(r, PORTB, 1) + 1;
	assert_at(r->reset[0], timeout(wdr, 1, 32768, 8000000, 1000000), "reset", 1);
	/* No WDTON fuse on the ATmega16: nothing to warn of. */
	assert_string_equal(r->warnings, "");
	wrun_close(r);
}

static void test_atmega2560(void **state)
{
	(void)state;
	static const uint16_t watch[] = { 0x25, 0x60, 0 };  /* PORTB, WDTCSR */
	wrun *r = wrun_open("wdt_m2560", "atmega2560", 16000000, watch);
	wrun_to(r, 16000000);
	/* WDP 1: 4K cycles, 32 ms = 512,000 cycles: 31 in a second (the 32nd
	 * due at 16,384,000); WDT_vect is vector 12; WDIE | WDP0 in the ISR. */
	assert_int_equal(r->nirq, 31);
	uint64_t start = write_cycle(r, 0x60, 0);
	for (unsigned k = 1; k <= 31; k++) {
		assert_int_equal(r->vec[k - 1], 12);
		assert_at(r->irq[k - 1], timeout(start, k, 4096, 16000000, 128000), "interrupt", k);
	}
	assert_string_equal(values(r, 0x25), "41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 "
			    "41 41 41 41 41 41 41 41 41 41 41 41 41 41");
	assert_int_equal(r->nreset, 0);
	wrun_close(r);
}

static void test_attiny85(void **state)
{
	(void)state;
	static const uint16_t watch[] = { 0x32, 0x41, 0 };  /* GPIOR1, WDTCR */
	wrun *r = wrun_open("wdt_t85", "attiny85", 8000000, watch);
	wrun_to(r, 80000000);
	/* WDP 8 (WDP3, bit 5): 512K cycles, 4.096 s = 32,768,000 cycles at
	 * 8 MHz: two in 10 s, waking the CPU each time; WDT_vect is 12. */
	assert_int_equal(r->nirq, 2);
	uint64_t start = write_cycle(r, 0x41, 0);
	for (unsigned k = 1; k <= 2; k++) {
		assert_int_equal(r->vec[k - 1], 12);
		assert_at(r->irq[k - 1], timeout(start, k, 524288, 8000000, 128000), "interrupt", k);
	}
	assert_string_equal(values(r, 0x32), "60 60");
	wrun_close(r);
}

static void test_reserved_prescaler_warns(void **state)
{
	(void)state;
	static const uint16_t watch[] = { 0 };
	wrun *r = wrun_open("wdt_reserved", "atmega328p", 16000000, watch);
	wrun_to(r, 1000000);
	wrun_to(r, 2000000);  /* a second check says nothing new */
	assert_string_equal(r->warnings,
			    "watchdog: the program puts the watchdog in interrupt mode, which the "
			    "atmega328p allows with its WDTON fuse unprogrammed, as avrr takes it "
			    "(it reads no fuses); with WDTON programmed the watchdog would stay on "
			    "in system reset mode\n"
			    "watchdog: WDTCSR selects WDP 10, which is reserved on the atmega328p: "
			    "it times out as at WDP 9 (1024K cycles, 8 s)\n");
	wrun_close(r);
}

/* Interrupt then reset, recorded and replayed: the entry that clears
 * WDIE is the replay's own (sim_enter_vector), and the replay is exact. */
static void test_replays_exactly(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "wdt_intreset.db", "tests/chip/wdt_intreset.elf "
		    "--mcu atmega328p --freq 16000000 --cycles 2M");
	/* The power-on reset and the watchdog's. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 1"), 2);
	test_assert_replay_exact(s, path, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interrupt_mode_16ms),
		cmocka_unit_test(test_interrupt_mode_1s),
		cmocka_unit_test(test_system_reset_mode),
		cmocka_unit_test(test_interrupt_then_reset),
		cmocka_unit_test(test_timed_sequence),
		cmocka_unit_test(test_wdr_restarts_count),
		cmocka_unit_test(test_wdif),
		cmocka_unit_test(test_atmega16),
		cmocka_unit_test(test_atmega2560),
		cmocka_unit_test(test_attiny85),
		cmocka_unit_test(test_reserved_prescaler_warns),
		cmocka_unit_test_setup_teardown(test_replays_exactly, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
