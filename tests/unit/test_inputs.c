/*
 * test_inputs.c — the one rule of what an input read is
 * (fingerprint/inputs.h, docs/device.md "Input reads"), on instructions
 * encoded here from the instruction set manual and decoded by avr_decode,
 * as the rewriters and the replays see them: a whole-byte read of an input
 * register is one; a skip on one bit is one only for a bit the outside
 * world drives (RXC, a pin), not for one the simulation re-creates (UDRE,
 * TXC); the read of SBI/CBI is none.
 */
#include "tests/testlib.h"

#include "fingerprint/inputs.h"
#include "sim/avr_decode.h"
#include "sim/ioregs.h"

/* Encodings (AVR instruction set manual). */
static uint16_t sbis(unsigned io, unsigned b) { return (uint16_t)(0x9b00 | io << 3 | b); }
static uint16_t sbic(unsigned io, unsigned b) { return (uint16_t)(0x9900 | io << 3 | b); }
static uint16_t sbi(unsigned io, unsigned b) { return (uint16_t)(0x9a00 | io << 3 | b); }
static uint16_t in_(unsigned rd, unsigned io)
{
	return (uint16_t)(0xb000 | (io & 0x30) << 5 | rd << 4 | (io & 0x0f));
}

typedef struct part {
	const mcu_names *names;
	uint8_t map[FP_INPUT_SPACE];
} part;

static void load(part *p, const char *mcu)
{
	p->names = ioregs_lookup(mcu);
	assert_non_null(p->names);
	assert_true(devlog_inputs(p->names, p->map) > 0);
}

static int addr_of(const part *p, const char *name)
{
	int a = ioregs_addr(p->names, name);
	if (a < 0)
		fail_msg("no %s", name);
	return a;
}

/* devlog_input_insn on the words w0, w1 decoded: the address, or -1. */
static int judge(const part *p, uint16_t w0, uint16_t w1)
{
	uint8_t flash[4] = { (uint8_t)w0, (uint8_t)(w0 >> 8), (uint8_t)w1, (uint8_t)(w1 >> 8) };
	avr_insn in;
	assert_int_equal(avr_decode(flash, sizeof flash, 0, &in), 0);
	return devlog_input_insn(p->map, &in);
}

/* The map holds the table's outside bits. */
static void test_map_holds_outside_bits(void **state)
{
	(void)state;
	part p;
	load(&p, "atmega328p");
	assert_int_equal(p.map[addr_of(&p, "UCSR0A")], 0x9c);
	assert_int_equal(p.map[addr_of(&p, "PIND")], 0xff);
	assert_int_equal(p.map[addr_of(&p, "UDR0")], 0xff);
	assert_int_equal(p.map[addr_of(&p, "TCNT0")], 0);
	assert_int_equal(p.map[addr_of(&p, "UCSR0B")], 0);
}

/* The ATmega128's UCSR0A is in the I/O space (0x0b), so a skip can test
 * it: RXC0 (7), FE0 (4), DOR0 (3), UPE0 (2) come from the line; UDRE0 (5)
 * and TXC0 (6) from the transmitter, and U2X0, MPCM0 (1, 0) are the
 * program's own settings. */
static void test_skips_on_ucsr0a(void **state)
{
	(void)state;
	part p;
	load(&p, "atmega128");
	int a = addr_of(&p, "UCSR0A");
	assert_int_equal(a, 0x2b);
	unsigned io = (unsigned)a - 0x20;
	assert_int_equal(judge(&p, sbis(io, 7), 0), a);   /* RXC0 */
	assert_int_equal(judge(&p, sbic(io, 7), 0), a);
	assert_int_equal(judge(&p, sbis(io, 4), 0), a);   /* FE0 */
	assert_int_equal(judge(&p, sbis(io, 3), 0), a);   /* DOR0 */
	assert_int_equal(judge(&p, sbic(io, 2), 0), a);   /* UPE0 */
	assert_int_equal(judge(&p, sbis(io, 5), 0), -1);  /* UDRE0 */
	assert_int_equal(judge(&p, sbic(io, 5), 0), -1);
	assert_int_equal(judge(&p, sbis(io, 6), 0), -1);  /* TXC0 */
	assert_int_equal(judge(&p, sbis(io, 1), 0), -1);  /* U2X0 */
	assert_int_equal(judge(&p, sbis(io, 0), 0), -1);  /* MPCM0 */
	/* the whole byte: an input read, whatever bit the code then tests */
	assert_int_equal(judge(&p, in_(24, io), 0), a);
	/* a bit written: its read reaches no register of the program's */
	assert_int_equal(judge(&p, sbi(io, 6), 0), -1);
}

/* The ATmega16's UCSRA, at the same place; a pin is all outside. */
static void test_skips_on_ucsra_and_pins(void **state)
{
	(void)state;
	part p;
	load(&p, "atmega16");
	int a = addr_of(&p, "UCSRA");
	assert_int_equal(judge(&p, sbis((unsigned)a - 0x20, 7), 0), a);
	assert_int_equal(judge(&p, sbis((unsigned)a - 0x20, 5), 0), -1);
	int pind = addr_of(&p, "PIND");
	for (unsigned b = 0; b < 8; b++) {
		assert_int_equal(judge(&p, sbic((unsigned)pind - 0x20, b), 0), pind);
		assert_int_equal(judge(&p, sbis((unsigned)pind - 0x20, b), 0), pind);
	}
	/* not an input at all */
	int tcnt0 = addr_of(&p, "TCNT0");
	assert_int_equal(judge(&p, sbis((unsigned)tcnt0 - 0x20, 0), 0), -1);
	assert_int_equal(judge(&p, in_(24, (unsigned)tcnt0 - 0x20), 0), -1);
}

/* The ATmega328P's UCSR0A is at 0xc0, out of the skips' reach: LDS
 * reads it whole, an input read; SBIC PIND, 2 is one. */
static void test_lds_and_sbic_on_the_328p(void **state)
{
	(void)state;
	part p;
	load(&p, "atmega328p");
	assert_int_equal(judge(&p, 0x9180, 0x00c0), 0xc0);   /* lds r24, UCSR0A */
	assert_int_equal(judge(&p, 0x9180, 0x00c1), -1);     /* lds r24, UCSR0B */
	int pind = addr_of(&p, "PIND");
	assert_int_equal(judge(&p, sbic((unsigned)pind - 0x20, 2), 0), pind);
	assert_int_equal(judge(&p, in_(18, (unsigned)pind - 0x20), 0), pind);
}

/* The replays' form: the instruction at a PC, the address the hook saw.
 * A load through a pointer is judged by its address alone; an undecodable
 * PC by the register. */
static void test_read_at_a_pc(void **state)
{
	(void)state;
	part p;
	load(&p, "atmega128");
	unsigned io = 0x0b;
	uint16_t words[] = { sbis(io, 5), sbis(io, 7), 0x8180 /* ld r24, Z */, sbi(io, 6) };
	uint8_t flash[sizeof words];
	for (size_t i = 0; i < sizeof words / 2; i++) {
		flash[2 * i] = (uint8_t)words[i];
		flash[2 * i + 1] = (uint8_t)(words[i] >> 8);
	}
	firmware fw = { .flash = flash, .flash_size = sizeof flash };
	assert_false(devlog_input_read_at(p.map, &fw, 0, 0x2b));
	assert_true(devlog_input_read_at(p.map, &fw, 2, 0x2b));
	assert_true(devlog_input_read_at(p.map, &fw, 4, 0x2b));
	assert_false(devlog_input_read_at(p.map, &fw, 4, 0x2a));   /* UCSR0B */
	assert_false(devlog_input_read_at(p.map, &fw, 6, 0x2b));
	assert_true(devlog_input_read_at(p.map, &fw, 8, 0x2b));    /* past the flash */
	assert_false(devlog_input_read_at(p.map, &fw, 2, FP_INPUT_SPACE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_holds_outside_bits),
		cmocka_unit_test(test_skips_on_ucsr0a),
		cmocka_unit_test(test_skips_on_ucsra_and_pins),
		cmocka_unit_test(test_lds_and_sbic_on_the_328p),
		cmocka_unit_test(test_read_at_a_pc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
