/*
 * test_stimuli_devices.c — the stimuli's `i2c` and `spi` devices
 * (docs/stimuli.md, sim/stim_bus.c): a firmware reading and writing
 * sensors on both buses (tests/chip/bus_devices.c) reads what the file
 * says, the TWI statuses are the datasheet's, malformed device lines are
 * told by FILE:LINE:COL, and a recording replays exactly.
 *
 * Every expected byte is the file's (STIM below): a register's value as
 * the file gives it, or as the firmware last wrote it; or the fill byte an
 * SPI device shifts back during an address or a write.  Every expected
 * status is the ATmega328P datasheet's (7810D, §22.7 "Transmission Modes",
 * Tables 22-2 and 22-3): 0x08 START sent, 0x10 repeated START sent, 0x18
 * SLA+W sent and ACK received, 0x20 SLA+W sent and NACK received, 0x28
 * data sent and ACK received, 0x40 SLA+R sent and ACK received, 0x48
 * SLA+R sent and NACK received, 0x50 data received and ACK returned,
 * 0x58 data received and NACK returned.
 */
#include "tests/testlib.h"

#include <avr_ioport.h>
#include <avr_spi.h>
#include <avr_twi.h>
#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>

#include "sim/stimuli.h"
#include "tests/chip/probe.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

#define ELF "tests/chip/bus_devices.elf"
#define MHZ16 16000000u

/* simavr 1.6 never frees its IRQs and their hooks (avr_terminate leaves
 * them): LeakSanitizer ignores what it allocates, not what we do. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libsimavr.so\n";
}

/* The devices of tests/chip/bus_devices.c: an MPU-6050 (WHO_AM_I 0x68,
 * a 6-byte accelerometer reading at 0x3b, PWR_MGMT_1 asleep at 0x40,
 * GYRO_CONFIG 0x18), an HMC5883L (identification "H43"), a BMP280 (id
 * 0x58, dig_T1..T3 at 0x88), a DS3234 (control/status 0x88). */
static const char STIM[] =
	"# tests/chip/bus_devices.c's sensors\n"
	"i2c 0x68 reg 0x75 0x68 reg 0x3b 0xfc 0x18 0x00 0x9c 0x40 0x1c reg 0x6b 0x40 reg 0x1b 0x18\n"
	"i2c 0x1e reg 0x0a \"H43\"\n"
	"spi B2 bit7 read fill 0xff reg 0xd0 0x58 reg 0x88 0x70 0x6b 0x43 0x67 0x18 0xfc\n"
	"spi B1 bit7 write fill 0x00 reg 0x0f 0x88\n";

/* What the firmware writes to PORTD, each device's answers in its order,
 * worked out from STIM. */
static const char WANT_BYTES[] =
	/* MPU-6050: WHO_AM_I; the burst from 0x3b; 0x6b as written (01);
	 * 0x19 and 0x1a as written (07 03); SLA+R alone reads at the pointer
	 * the last read left, 0x1b */
	"68 fc 18 00 9c 40 1c 01 07 03 18 "
	/* HMC5883L: 'H' '4' '3' */
	"48 34 33 "
	/* BMP280 (fill ff): 0xd0 → fill, 58; 0x88 → fill, six bytes; 0x74
	 * (write 0xf4) → fill, fill; 0xf4 → fill, 27 as written; 0xd0 alone
	 * → fill; 0xf4 after the deselect → fill (an address again), 27 */
	"ff 58 ff 70 6b 43 67 18 fc ff ff ff 27 ff ff 27 "
	/* DS3234 (fill 00, bit 7 set writes): 0x0f → fill, 88; 0x80 (write
	 * 0x00) → fill, fill; 0x00 → fill, 45 as written */
	"00 88 00 00 00 45";

/* The TWI statuses the firmware reads, in order, as the datasheet has
 * them for each transfer it makes. */
static void want_statuses(char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
#define ADD(s) (len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", s))
	/* i2c_read(n): START, SLA+W, pointer, repeated START, SLA+R, n bytes */
	static const unsigned reads[] = { 1, 6 };
	for (unsigned r = 0; r < 2; r++) {
		ADD("08 18 28 10 40");
		for (unsigned i = 1; i < reads[r]; i++)
			ADD("50");
		ADD("58");
	}
	ADD("08 18 28 28");                 /* write 0x6b = 01 */
	ADD("08 18 28 10 40 58");           /* read 0x6b */
	ADD("08 18 28 28 28");              /* write 0x19, 0x1a */
	ADD("08 18 28 10 40 50 58");        /* read 0x19, 0x1a */
	ADD("08 40 58");                    /* SLA+R alone, one byte */
	ADD("08 18 28 10 40 50 50 58");     /* HMC5883L: three bytes */
	ADD("08 20 08 48");                 /* 0x50: SLA+W NACK, SLA+R NACK */
#undef ADD
}

/* The values of one register's writes, as "%02x" each, space-separated. */
static void writes_string(probe *p, const char *reg, char *out, size_t n)
{
	probe_series *s = probe_writes(p, reg);
	size_t len = 0;
	out[0] = 0;
	for (unsigned i = 0; i < s->n && len + 4 < n; i++)
		len += (size_t)snprintf(out + len, n - len, i ? " %02x" : "%02x", s->value[i]);
}

/* ---- the firmware reads what the file says ---------------------------- */

static void test_firmware_reads_the_registers(void **state)
{
	(void)state;
	probe *p = probe_open(ELF, "atmega328p", MHZ16);
	probe_stimuli(p, STIM);
	probe_watch(p, "PORTD", "GPIOR0", "GPIOR1", NULL);
	probe_run(p, 50000);
	char got[1024], want[1024];
	writes_string(p, "GPIOR0", got, sizeof got);
	if (strcmp(got, "01"))
		fail_msg("%s did not finish: GPIOR0 \"%s\"", ELF, got);
	writes_string(p, "PORTD", got, sizeof got);
	if (strcmp(got, WANT_BYTES))
		fail_msg("bytes read\n  got:  %s\n  want: %s", got, WANT_BYTES);
	writes_string(p, "GPIOR1", got, sizeof got);
	want_statuses(want, sizeof want);
	if (strcmp(got, want))
		fail_msg("TWI statuses\n  got:  %s\n  want: %s", got, want);
	probe_close(p);
}

/* ---- record, replay ----------------------------------------------------- */

/* The values of the events of one type and data address, in log order. */
static void event_values(const char *path, int type, int addr, char *out, size_t n)
{
	if (test_run(out, n, "sqlite3 '%s' \"SELECT group_concat(printf('%%02x', value), ' ') "
		     "FROM (SELECT value FROM events WHERE type = %d AND addr = %d ORDER BY seq)\"",
		     path, type, addr))
		fail_msg("sqlite3: %s", out);
	size_t len = strlen(out);
	if (len && out[len - 1] == '\n')
		out[len - 1] = 0;
}

enum { EV_READ = 4, EV_WRITE = 5, PORTD_ADDR = 0x2b, TWSR_ADDR = 0xb9, TWDR_ADDR = 0xbb };

static void test_record_then_replay_is_exact(void **state)
{
	scratch *s = *state;
	char stim[256], path[256], got[2048], want[1024];
	snprintf(stim, sizeof stim, "%s/bus.stim", s->dir);
	test_write_text(stim, STIM);
	test_record(s, path, sizeof path, "bus.db", ELF " --mcu atmega328p --freq 16000000 "
		    "--stimuli '%s' --cycles 50k", stim);
	/* What the devices answered is in the log: the firmware's reads of
	 * TWSR and TWDR (inputs, which a replay feeds back), and the PORTD
	 * writes made of them (outputs, which a replay checks). */
	event_values(path, EV_WRITE, PORTD_ADDR, got, sizeof got);
	if (strcmp(got, WANT_BYTES))
		fail_msg("recorded PORTD\n  got:  %s\n  want: %s", got, WANT_BYTES);
	event_values(path, EV_READ, TWSR_ADDR, got, sizeof got);
	want_statuses(want, sizeof want);
	/* TWSR & 0xf8, and TWPS is 0: the register reads as its status. */
	if (strcmp(got, want))
		fail_msg("recorded TWSR reads\n  got:  %s\n  want: %s", got, want);
	/* The I2C bytes: each TWDR read, the first 14 bytes WANT_BYTES has. */
	event_values(path, EV_READ, TWDR_ADDR, got, sizeof got);
	assert_int_equal(strlen(got), 14 * 3 - 1);
	assert_int_equal(strncmp(got, WANT_BYTES, 14 * 3 - 1), 0);
	long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
	if (irqs < 5)
		fail_msg("only %lld Timer0 interrupts recorded", irqs);
	/* The first interrupts come while the bus is busy: one lands between
	 * the first and the last PORTD write. */
	assert_true(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE cycle < "
				 "(SELECT max(cycle) FROM events WHERE type = 5 AND addr = 43)") > 0);
	static const char *const opts[] = { "", "--match set" };
	for (size_t i = 0; i < 2; i++) {
		char wanted[64];
		snprintf(wanted, sizeof wanted, "injected             %lld\n", irqs);
		int rc = test_run(s->out, sizeof s->out, "%s replay '%s' %s", test_avrr(), path,
				  opts[i]);
		if (rc || !strstr(s->out, wanted) || !strstr(s->out, "diverged             no\n") ||
		    !strstr(s->out, "missed               0\n"))
			fail_msg("replay %s: status %d\n%s", opts[i], rc, s->out);
	}
}

/* Arduino's Wire, interrupt-driven (TWIE) where bus_devices.c polls: with
 * a device at 0x42 its SLA+W and byte are acknowledged, and
 * endTransmission() returns 0 (success), where with none it returns 2
 * (address NACK: test_arduino's test_wire_no_slave_is_address_nack). */
static void test_wire_library_is_acknowledged(void **state)
{
	scratch *s = *state;
	char stim[256], path[256];
	snprintf(stim, sizeof stim, "%s/wire.stim", s->dir);
	test_write_text(stim, "i2c 0x42\n");
	test_record(s, path, sizeof path, "wire.db", "tests/firmware/arduino/wire_master.elf "
		    "--board mega --stimuli '%s' --instructions 10M", stim);
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'goto 9999999\\nprint result\\n' | "
				  "%s shell '%s'", test_avrr(), path), 0);
	if (!strstr(s->out, "\n$1 = 0 '\\000'\n"))
		fail_msg("endTransmission() did not return 0:\n%s", s->out);
	/* Its statuses, read in the TWI interrupt: 0x18 and 0x28, never a
	 * NACK. */
	assert_true(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 4 AND "
				 "addr = 185 AND value = 24") > 0);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 4 AND "
				      "addr = 185 AND value IN (32, 48)"), 0);
}

/* ---- the parser ------------------------------------------------------- */

static void test_parse_errors(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "i2c", "t.stim:1:5: missing I2C address (7 bits, 0x08-0x77)" },
		{ "i2c 0x80 reg 0 1", "t.stim:1:5: I2C address '0x80' out of range (0x08-0x77: 7 bits, the others reserved)" },
		{ "i2c 7", "t.stim:1:5: I2C address '7' out of range (0x08-0x77: 7 bits, the others reserved)" },
		{ "i2c 0x6g", "t.stim:1:5: bad integer '0x6g' (expected decimal or 0x hexadecimal)" },
		{ "i2c 0x68\n\ni2c 104", "t.stim:3:5: I2C address 0x68 is already the device's on line 1" },
		{ "i2c 0x68 0x75 0x68", "t.stim:1:10: expected 'reg', got '0x75'" },
		{ "i2c 0x68 reg", "t.stim:1:14: missing register number after 'reg'" },
		{ "i2c 0x68 reg 0x75", "t.stim:1:19: missing bytes (integers 0-255 or strings)" },
		{ "i2c 0x68 reg 0x75 reg 0x76 1", "t.stim:1:19: missing bytes (integers 0-255 or strings)" },
		{ "i2c 0x68 reg 0x100 1", "t.stim:1:14: register '0x100' out of range (0x00-0xff)" },
		{ "i2c 0x68 reg 0x75 256", "t.stim:1:19: byte '256' out of range (0-255)" },
		{ "i2c 0x68 reg 0x75 x", "t.stim:1:19: bad byte 'x' (expected an integer 0-255 or a string)" },
		{ "i2c 0x68 reg 0xfe 1 2 3", "t.stim:1:14: 3 values from register '0xfe' run past the last register, 0xff" },
		{ "i2c 0x68 reg 0x10 1 2 reg 0x11 3", "t.stim:1:27: register 0x11 given twice" },
		{ "i2c 0x68 reg 0x10 \"ab", "t.stim:1:19: unterminated string" },
		{ "spi", "t.stim:1:5: missing chip-select pin (port letter and bit, e.g. B2)" },
		{ "spi B9 bit7 read fill 0", "t.stim:1:5: pin 'B9' is not a port letter A-L and bit 0-7" },
		{ "spi B2", "t.stim:1:8: missing 'bit7'" },
		{ "spi B2 bit6 read fill 0", "t.stim:1:8: expected 'bit7', got 'bit6'" },
		{ "spi B2 bit7", "t.stim:1:13: missing read or write (what bit 7 set in the first byte asks)" },
		{ "spi B2 bit7 set fill 0", "t.stim:1:13: expected read or write, got 'set'" },
		{ "spi B2 bit7 read", "t.stim:1:18: missing 'fill'" },
		{ "spi B2 bit7 read 0xff", "t.stim:1:18: expected 'fill', got '0xff'" },
		{ "spi B2 bit7 read fill", "t.stim:1:23: missing fill byte" },
		{ "spi B2 bit7 read fill 0x100", "t.stim:1:23: fill byte '0x100' out of range (0-255)" },
		{ "spi B2 bit7 read fill 0 reg 0x7f 1 2", "t.stim:1:29: 2 values from register '0x7f' run past the last register, 0x7f" },
		{ "spi B2 bit7 read fill 0 reg 0x50 1 reg 0xd0 2", "t.stim:1:40: register 0x50 given twice (bit 7 of a number is the read/write bit)" },
		{ "spi B2 bit7 read fill 0\nspi b2 bit7 write fill 0", "t.stim:2:5: pin B2 already selects the device on line 1" },
		{ "spi B2 bit7 read fill 0 reg", "t.stim:1:29: missing register number after 'reg'" },
		{ "spi master", "t.stim:1:12: missing 'at' or 'every'" },
		{ "spi master in 1ms rate 1000 1", "t.stim:1:12: expected 'at' or 'every', got 'in'" },
		{ "spi master at", "t.stim:1:15: missing time after 'at'" },
		{ "spi master at 1ms", "t.stim:1:19: missing 'rate'" },
		{ "spi master at 1ms 0x55", "t.stim:1:19: expected 'rate', got '0x55'" },
		{ "spi master at 1ms rate", "t.stim:1:24: missing SCK rate in Hz after 'rate'" },
		{ "spi master at 1ms rate 1M 0x55", "t.stim:1:24: bad integer '1M' (expected decimal or 0x hexadecimal)" },
		{ "spi master at 1ms rate 0 0x55", "t.stim:1:24: zero SCK rate" },
		{ "spi master at 1ms rate 1000000", "t.stim:1:32: missing bytes (integers 0-255 or strings)" },
		{ "spi master at 1ms rate 1000000 256", "t.stim:1:32: byte '256' out of range (0-255)" },
		{ "spi master every 0 rate 1000 1", "t.stim:1:18: zero period" },
		{ "spi master every 1ms jitter 1ms rate 1000 1", "t.stim:1:29: jitter '1ms' must be less than half the period '1ms'" },
		{ "spi master at 1ms bad stop rate 1000 1", "t.stim:1:19: expected 'rate', got 'bad'" },
		{ "I2C 0x68", "t.stim:1:1: unknown directive 'I2C' (expected seed, adc, uart, pin, i2c or spi)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		stim_script *s = (stim_script *)&s; /* must be reset to NULL */
		avrr_err err = { "" };
		int r = stim_parse(cases[i][0], "t.stim", &s, &err);
		if (r == 0 || strcmp(err.msg, cases[i][1]) != 0)
			fail_msg("input %zu \"%s\"\n  got:  %s\n  want: %s", i, cases[i][0],
				 r ? err.msg : "(success)", cases[i][1]);
		assert_null(s);
	}
	/* And what is well formed: any case of the pin's letter, decimal
	 * numbers, no registers at all, strings with escapes, comments, the
	 * edges of the ranges. */
	static const char *const good[] = {
		"i2c 8\ni2c 0x77 # nothing given: every register reads 0\n",
		"i2c 0x68 reg 0 0 reg 255 \"\\xff\" reg 0x10 \"ab\\n\" 3",
		"spi l7 bit7 write fill 255",
		"spi B2 bit7 read fill 0 reg 0x7f 1 reg 0x80 2",
		"spi master at 0 rate 4000000 0\n"
		"spi master every 2ms start 1ms jitter 10us rate 0x100000 \"ab\\n\" 3 # a master\n",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		stim_script *s = NULL;
		avrr_err err = { "" };
		if (stim_parse(good[i], "t.stim", &s, &err))
			fail_msg("\"%s\": %s", good[i], err.msg);
		stim_free(s);
	}
}

/* ---- binding to a chip ------------------------------------------------ */

static avr_t *core(const char *mcu)
{
	avr_t *avr = avr_make_mcu_by_name(mcu);
	assert_non_null(avr);
	assert_int_equal(avr_init(avr), 0);
	avr->frequency = MHZ16;
	return avr;
}

static void core_free(avr_t *avr)
{
	avr_terminate(avr);
	free(avr);
}

static void attach_err(const char *mcu, const char *text, const char *want)
{
	stim_script *s = NULL;
	avrr_err err = { "" };
	if (stim_parse(text, "t.stim", &s, &err))
		fail_msg("%s", err.msg);
	avr_t *avr = core(mcu);
	stim_runtime *rt = (stim_runtime *)&rt;
	int r = stim_attach(s, avr, 0, &rt, &err);
	if (r == 0 || strcmp(err.msg, want) != 0)
		fail_msg("%s: \"%s\"\n  got:  %s\n  want: %s", mcu, text, r ? err.msg : "(success)",
			 want);
	assert_null(rt);
	stim_free(s);
	core_free(avr);
}

static void test_attach_errors(void **state)
{
	(void)state;
	/* The ATtiny85 has a USI, neither a TWI nor an SPI. */
	attach_err("attiny85", "# a sensor\ni2c 0x68 reg 0x75 0x68",
		   "t.stim:2:5: this MCU has no TWI (I2C)");
	attach_err("attiny85", "spi B2 bit7 read fill 0", "t.stim:1:5: this MCU has no SPI");
	attach_err("atmega328p", "spi B2 bit7 read fill 0\nspi E2 bit7 read fill 0",
		   "t.stim:2:5: this MCU has no port E");
	/* spi master: no SPI; SCK faster than fosc/4 (16 MHz here); the
	 * bytes of an occurrence longer than the period less twice the
	 * jitter (128 cycles a byte at 1 MHz, 1600 cycles in 100 µs). */
	attach_err("attiny85", "spi master at 0 rate 1000 1", "t.stim:1:5: this MCU has no SPI");
	attach_err("atmega328p", "spi master at 0 rate 4000001 1",
		   "t.stim:1:22: SCK rate 4000001 Hz is faster than a slave takes at 16000000 Hz "
		   "(at most fosc/4, 4000000 Hz)");
	attach_err("atmega328p", "spi master every 100us rate 1000000 1 2 3 4 5 6 7 8 9 10 11 12 13",
		   "t.stim:1:29: 13 bytes at SCK 1000000 Hz take 1664 cycles: more than the period "
		   "'100us' leaves (1600 cycles at 16000000 Hz, less twice the jitter)");
	attach_err("atmega328p", "spi master every 2c rate 4000000 1",
		   "t.stim:1:26: 1 byte at SCK 4000000 Hz takes 32 cycles: more than the period "
		   "'2' leaves (2 cycles at 16000000 Hz, less twice the jitter)");
	attach_err("atmega328p", "spi master every 100us jitter 40us rate 1000000 1 2 3 4 5 6 7 8 9 10 "
		   "11 12", "t.stim:1:41: 12 bytes at SCK 1000000 Hz take 1536 cycles: more than the "
		   "period '100us' leaves (1600 cycles at 16000000 Hz, less twice the jitter)");
}

/* ---- the protocols, message by message ---------------------------------
 *
 * On a bare simavr core the test is the master: it raises what the TWI
 * and the SPI would on their OUTPUT IRQs and notes what the devices
 * answer on INPUT. */

typedef struct answers {
	unsigned n;
	uint32_t v[64];
} answers;

static void on_answer(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	answers *a = param;
	if (a->n < 64)
		a->v[a->n++] = value;
}

/* simavr's peripheral of `kind` on the core. */
static avr_io_t *io_of(avr_t *avr, const char *kind)
{
	for (avr_io_t *io = avr->io_port; io; io = io->next)
		if (io->kind && !strcmp(io->kind, kind))
			return io;
	fail_msg("no %s", kind);
	return NULL;
}

/* Raises msg on the TWI's OUTPUT; the device's answer, or 0 for none. */
static uint32_t twi_say(avr_t *avr, answers *a, uint8_t msg, uint8_t sla, uint8_t data)
{
	unsigned before = a->n;
	avr_raise_irq(io_of(avr, "twi")->irq + TWI_IRQ_OUTPUT, avr_twi_irq_msg(msg, sla, data));
	assert_true(a->n <= before + 1);
	return a->n > before ? a->v[before] : 0;
}

static void test_i2c_protocol(void **state)
{
	(void)state;
	stim_script *s = NULL;
	avrr_err err = { "" };
	if (stim_parse("i2c 0x68 reg 0xff 0xaa reg 0x00 0xbb\ni2c 0x69 reg 0x00 0x22", "t.stim", &s,
		       &err))
		fail_msg("%s", err.msg);
	avr_t *avr = core("atmega328p");
	stim_runtime *rt = NULL;
	if (stim_attach(s, avr, 0, &rt, &err))
		fail_msg("%s", err.msg);
	answers a = { 0 };
	avr_irq_register_notify(io_of(avr, "twi")->irq + TWI_IRQ_INPUT, on_answer, &a);
	const uint32_t ack = avr_twi_irq_msg(TWI_COND_ACK, 0xd0, 1);
	/* SLA+W, pointer 0xff, repeated START, SLA+R: 0xff then 0x00 (the
	 * pointer wraps). */
	assert_int_equal(twi_say(avr, &a, TWI_COND_START, 0xd0, 0), ack);
	assert_int_equal(twi_say(avr, &a, TWI_COND_WRITE, 0xd0, 0xff), ack);
	assert_int_equal(twi_say(avr, &a, TWI_COND_START, 0xd1, 0),
			 avr_twi_irq_msg(TWI_COND_ACK, 0xd1, 1));
	assert_int_equal(twi_say(avr, &a, TWI_COND_READ | TWI_COND_ACK, 0xd1, 0),
			 avr_twi_irq_msg(TWI_COND_READ, 0xd1, 0xaa));
	assert_int_equal(twi_say(avr, &a, TWI_COND_READ, 0xd1, 0),
			 avr_twi_irq_msg(TWI_COND_READ, 0xd1, 0xbb));
	twi_say(avr, &a, TWI_COND_STOP, 0xd1, 1);
	/* Nobody at 0x50: no acknowledge.  The device at 0x69 has its own
	 * map and pointer (0 at power-on). */
	assert_int_equal(twi_say(avr, &a, TWI_COND_START, 0xa0, 0), 0);
	assert_int_equal(twi_say(avr, &a, TWI_COND_START, 0xd3, 0),
			 avr_twi_irq_msg(TWI_COND_ACK, 0xd3, 1));
	assert_int_equal(twi_say(avr, &a, TWI_COND_READ, 0xd3, 0),
			 avr_twi_irq_msg(TWI_COND_READ, 0xd3, 0x22));
	/* A write is stored: pointer 0x10, 0x55 0x66, read back from 0x10. */
	twi_say(avr, &a, TWI_COND_START, 0xd0, 0);
	assert_int_equal(twi_say(avr, &a, TWI_COND_WRITE, 0xd0, 0x10), ack);
	assert_int_equal(twi_say(avr, &a, TWI_COND_WRITE | TWI_COND_ACK, 0xd0, 0x55), ack);
	assert_int_equal(twi_say(avr, &a, TWI_COND_WRITE, 0xd0, 0x66), ack);
	twi_say(avr, &a, TWI_COND_START, 0xd0, 0);
	twi_say(avr, &a, TWI_COND_WRITE, 0xd0, 0x10);
	twi_say(avr, &a, TWI_COND_START, 0xd1, 0);
	assert_int_equal(twi_say(avr, &a, TWI_COND_READ | TWI_COND_ACK, 0xd1, 0),
			 avr_twi_irq_msg(TWI_COND_READ, 0xd1, 0x55));
	assert_int_equal(twi_say(avr, &a, TWI_COND_READ, 0xd1, 0),
			 avr_twi_irq_msg(TWI_COND_READ, 0xd1, 0x66));
	/* After STOP, a byte for 0x68 that no START addressed is not taken. */
	twi_say(avr, &a, TWI_COND_STOP, 0xd1, 1);
	assert_int_equal(twi_say(avr, &a, TWI_COND_READ, 0xd1, 0), 0);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

/* Shifts byte out to the SPI's devices; their answer, or -1 for none. */
static int spi_say(avr_t *avr, answers *a, uint8_t byte)
{
	unsigned before = a->n;
	avr_raise_irq(io_of(avr, "spi")->irq + SPI_IRQ_OUTPUT, byte);
	assert_true(a->n <= before + 1);
	return a->n > before ? (int)(a->v[before] & 0xff) : -1;
}

static void cs(avr_t *avr, char port, unsigned bit, int level)
{
	avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit), (uint32_t)level);
}

static void test_spi_protocol(void **state)
{
	(void)state;
	stim_script *s = NULL;
	avrr_err err = { "" };
	if (stim_parse("spi B2 bit7 read fill 0xff reg 0x7f 0x12 reg 0x00 0x34\n"
		       "spi B1 bit7 write fill 0x00 reg 0x00 0x21 reg 0x7f 0x56", "t.stim", &s, &err))
		fail_msg("%s", err.msg);
	avr_t *avr = core("atmega328p");
	stim_runtime *rt = NULL;
	if (stim_attach(s, avr, 0, &rt, &err))
		fail_msg("%s", err.msg);
	answers a = { 0 };
	avr_irq_register_notify(io_of(avr, "spi")->irq + SPI_IRQ_INPUT, on_answer, &a);
	const avr_spi_t *sp = (const avr_spi_t *)io_of(avr, "spi");
	const uint8_t spe = (uint8_t)(sp->spe.mask << sp->spe.bit);
	const uint8_t mstr = (uint8_t)(sp->mstr.mask << sp->mstr.bit);
	avr->data[sp->r_spcr] = spe | mstr;
	/* Nobody selected: nobody answers. */
	assert_int_equal(spi_say(avr, &a, 0xff), -1);
	/* B2 low: 0xff reads 0x7f, then 0x00 (the pointer wraps). */
	cs(avr, 'B', 2, 0);
	assert_int_equal(spi_say(avr, &a, 0xff), 0xff);
	assert_int_equal(spi_say(avr, &a, 0x00), 0x12);
	assert_int_equal(spi_say(avr, &a, 0x00), 0x34);
	/* The same level again changes nothing (PORTB writes raise it). */
	cs(avr, 'B', 2, 0);
	assert_int_equal(spi_say(avr, &a, 0x00), 0x00);
	/* B1 low too: both take the bytes, the first in the file answers. */
	cs(avr, 'B', 1, 0);
	assert_int_equal(spi_say(avr, &a, 0x00), 0x00);
	cs(avr, 'B', 2, 1);
	/* B1 alone: its address byte was the 0x00 above, a read of register
	 * 0x00 (bit 7 clear reads for it). */
	assert_int_equal(spi_say(avr, &a, 0xaa), 0x21);
	cs(avr, 'B', 1, 1);
	/* B1: 0xff writes 0x7f (its bit 7 set writes), answering the fill. */
	cs(avr, 'B', 1, 0);
	assert_int_equal(spi_say(avr, &a, 0xff), 0x00);
	assert_int_equal(spi_say(avr, &a, 0x99), 0x00);
	cs(avr, 'B', 1, 1);
	cs(avr, 'B', 1, 0);
	spi_say(avr, &a, 0x7f);
	assert_int_equal(spi_say(avr, &a, 0x00), 0x99);
	/* A chip reset ends the transfer (the next byte would read 0x00,
	 * 0x21): B1, still low, takes an address again. */
	stim_rearm(rt);
	assert_int_equal(spi_say(avr, &a, 0x7f), 0x00);
	assert_int_equal(spi_say(avr, &a, 0x00), 0x99);
	/* The chip a slave: its bytes are no master's. */
	avr->data[sp->r_spcr] = spe;
	assert_int_equal(spi_say(avr, &a, 0x00), -1);
	stim_detach(rt);
	stim_free(s);
	core_free(avr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_firmware_reads_the_registers),
		cmocka_unit_test_setup_teardown(test_record_then_replay_is_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wire_library_is_acknowledged, setup, teardown),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_attach_errors),
		cmocka_unit_test(test_i2c_protocol),
		cmocka_unit_test(test_spi_protocol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
