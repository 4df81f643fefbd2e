/*
 * test_devlog.c — the device log's format, version 2 (docs/device.md),
 * byte by byte: a stream written here from the format's tables, with its
 * CRCs computed by avr-libc's own arithmetic for _crc_ccitt_update (the
 * C equivalent <util/crc16.h> documents, not devlog_crc's bit loop), is
 * parsed by devlog_parse into exactly its items: fingerprints as LEB128
 * differences, a run of reads, a loss; and each malformed item is refused
 * with its line.
 */
#include "tests/testlib.h"

#include "device/devlog.h"
#include "fingerprint/tracer.h"

/* avr-libc's documented equivalent of _crc_ccitt_update. */
static uint16_t ref_crc(uint16_t crc, uint8_t data)
{
	data ^= (uint8_t)crc;
	data ^= (uint8_t)(data << 4);
	return (uint16_t)((((uint16_t)data << 8) | (crc >> 8)) ^ (uint8_t)(data >> 4) ^
			  ((uint16_t)data << 3));
}

static uint16_t ref_crc_of(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;
	for (size_t i = 0; i < n; i++)
		crc = ref_crc(crc, p[i]);
	return crc;
}

#define SPEC "sel=cycles:32,ra=0,width=32"

/* The header of docs/device.md for the atmega16 and SPEC, 4-byte
 * fingerprints sent as differences mod 2^32, reads folded into interrupt
 * items or not; a hash of 1..32.  Returns its length. */
static size_t put_header(uint8_t *d, uint8_t fold)
{
	size_t n = 0;
	memcpy(d, "AVRL", 4);
	n = 4;
	d[n++] = 2;                       /* version */
	d[n++] = 8;
	memcpy(d + n, "atmega16", 8);
	n += 8;
	d[n++] = (uint8_t)strlen(SPEC);
	d[n++] = 0;
	memcpy(d + n, SPEC, strlen(SPEC));
	n += strlen(SPEC);
	d[n++] = 4;                       /* bytes per fingerprint */
	d[n++] = 32;                      /* differences mod 2^32 */
	d[n++] = fold;
	for (int i = 1; i <= 32; i++)
		d[n++] = (uint8_t)i;
	uint16_t crc = ref_crc_of(d, n);
	d[n++] = (uint8_t)crc;
	d[n++] = (uint8_t)(crc >> 8);
	return n;
}

/* A block: marker, sequence, length, the payload, CRC of sequence,
 * length and payload.  Returns its length. */
static size_t put_block(uint8_t *d, uint8_t seq, const uint8_t *payload, uint8_t len)
{
	d[0] = 0xa5;
	d[1] = seq;
	d[2] = len;
	memcpy(d + 3, payload, len);
	uint16_t crc = ref_crc_of(d + 1, 2u + len);
	d[3 + len] = (uint8_t)crc;
	d[4 + len] = (uint8_t)(crc >> 8);
	return 5u + len;
}

static void test_crc_is_avr_libcs(void **state)
{
	(void)state;
	/* CRC-16/MCRF4XX (reflected 0x1021, init 0xffff, no final xor), the
	 * catalogue's check value for "123456789" */
	const uint8_t check[] = "123456789";
	assert_int_equal(ref_crc_of(check, 9), 0x6f91);
	assert_int_equal(devlog_crc(0xffff, check, 9), 0x6f91);
	uint8_t all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)(i * 37 + 11);
	assert_int_equal(devlog_crc(0xffff, all, sizeof all), ref_crc_of(all, sizeof all));
}

static void test_known_block(void **state)
{
	(void)state;
	static const uint8_t payload[] = {
		0x01, 0x64,                         /* vector 1, +100: 100 */
		0x03, 0x80, 0x80, 0x01,             /* vector 3, +16384 (3 bytes): 16484 */
		0x82, 0x11, 0x22, 0x33,             /* a run of 3 reads */
		0xc0, 0x02, 0x00,                   /* 2 items lost */
		0x05, 0xff, 0xff, 0xff, 0xff, 0x0f, /* vector 5, +0xffffffff: 16483 */
	};
	uint8_t d[256];
	size_t h = put_header(d, 0);
	/* the format's table: 4 + 1 + 1 + 8 + 2 + 27 + 1 + 1 + 1 + 32 + 2 */
	assert_int_equal(h, 80);
	size_t n = h + put_block(d + h, 0, payload, sizeof payload);
	assert_int_equal(n, 80 + 5 + 19);
	devlog l;
	avrr_err err = { "" };
	if (devlog_parse(d, n, &l, &err))
		fail_msg("parse: %s", err.msg);
	assert_int_equal(l.version, 2);
	assert_string_equal(l.mcu, "atmega16");
	assert_string_equal(l.spec, SPEC);
	assert_int_equal(l.fp_bytes, 4);
	assert_int_equal(l.delta_bits, 32);
	assert_int_equal(l.fold, 0);
	assert_int_equal(l.blocks, 1);
	assert_int_equal(l.nitems, 7);
	static const struct { uint8_t kind, vector, value; uint16_t lost; uint64_t fp; size_t at; }
	want[] = {
		{ DEVLOG_ITEM_FP, 1, 0, 0, 100, 83 },
		{ DEVLOG_ITEM_FP, 3, 0, 0, 16484, 85 },
		{ DEVLOG_ITEM_READ, 0, 0x11, 0, 0, 90 },
		{ DEVLOG_ITEM_READ, 0, 0x22, 0, 0, 91 },
		{ DEVLOG_ITEM_READ, 0, 0x33, 0, 0, 92 },
		{ DEVLOG_ITEM_LOSS, 0, 0, 2, 0, 93 },
		{ DEVLOG_ITEM_FP, 5, 0, 0, 16483, 96 },
	};
	for (size_t i = 0; i < 7; i++) {
		const devlog_item *it = &l.items[i];
		assert_int_equal(it->kind, want[i].kind);
		assert_int_equal(it->vector, want[i].vector);
		assert_int_equal(it->value, want[i].value);
		assert_int_equal(it->lost, want[i].lost);
		assert_int_equal(it->fp, want[i].fp);
		assert_int_equal(it->offset, want[i].at);
		assert_int_equal(it->block, 0);
	}
	assert_int_equal(l.bytes.header, 80);
	assert_int_equal(l.bytes.blocks, 5);
	assert_int_equal(l.bytes.interrupts, 2 + 4 + 6);
	assert_int_equal(l.bytes.reads, 4);
	assert_int_equal(l.bytes.loss, 3);
	devlog_free(&l);
	/* one bit flipped in the payload: the block's CRC catches it */
	d[h + 3 + 7] ^= 0x10;
	assert_int_equal(devlog_parse(d, n, &l, &err), -1);
	assert_string_equal(err.msg, "byte 80 (block 0): the block's CRC does not match: damaged");
}

/* Reads folded into the interrupt item before them (an MCU whose vectors
 * are all below 32): the vector is the first byte's low 5 bits, bits 5-6
 * count the reads whose values follow the difference. */
static void test_folded_reads(void **state)
{
	(void)state;
	static const uint8_t payload[] = {
		0x4e, 0xa5, 0x09, 0x12, 0x03,       /* vector 14, +1189, 2 reads */
		0x6e, 0x05, 0x01, 0x02, 0x03,       /* vector 14, +5, 3 reads */
		0x81, 0x04, 0x05,                   /* a run of 2 more */
		0x09, 0x7f,                         /* vector 9, +127, none */
	};
	uint8_t d[256];
	size_t h = put_header(d, 1);
	size_t n = h + put_block(d + h, 0, payload, sizeof payload);
	devlog l;
	avrr_err err = { "" };
	if (devlog_parse(d, n, &l, &err))
		fail_msg("parse: %s", err.msg);
	assert_int_equal(l.fold, 1);
	assert_int_equal(l.nitems, 10);
	static const struct { uint8_t kind, vector, value; uint64_t fp; size_t at; } want[] = {
		{ DEVLOG_ITEM_FP, 14, 0, 1189, 83 },
		{ DEVLOG_ITEM_READ, 0, 0x12, 0, 86 },
		{ DEVLOG_ITEM_READ, 0, 0x03, 0, 87 },
		{ DEVLOG_ITEM_FP, 14, 0, 1194, 88 },
		{ DEVLOG_ITEM_READ, 0, 0x01, 0, 90 },
		{ DEVLOG_ITEM_READ, 0, 0x02, 0, 91 },
		{ DEVLOG_ITEM_READ, 0, 0x03, 0, 92 },
		{ DEVLOG_ITEM_READ, 0, 0x04, 0, 94 },
		{ DEVLOG_ITEM_READ, 0, 0x05, 0, 95 },
		{ DEVLOG_ITEM_FP, 9, 0, 1321, 96 },
	};
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(l.items[i].kind, want[i].kind);
		assert_int_equal(l.items[i].vector, want[i].vector);
		assert_int_equal(l.items[i].value, want[i].value);
		assert_int_equal(l.items[i].fp, want[i].fp);
		assert_int_equal(l.items[i].offset, want[i].at);
	}
	/* interrupt bytes: the first byte and the difference; reads: values
	 * and the run's first byte */
	assert_int_equal(l.bytes.interrupts, 3 + 2 + 2);
	assert_int_equal(l.bytes.reads, 2 + 3 + 3);
	devlog_free(&l);
	/* unfolded, the same first byte 0x4e is vector 78 */
	h = put_header(d, 0);
	n = h + put_block(d + h, 0, payload, 3);
	if (devlog_parse(d, n, &l, &err))
		fail_msg("parse unfolded: %s", err.msg);
	assert_int_equal(l.nitems, 1);
	assert_int_equal(l.items[0].vector, 0x4e);
	devlog_free(&l);
	/* folded: 0x20 is vector 0 (none), and reads past the block's end */
	static const uint8_t bad1[] = { 0x20, 0x01 }, bad2[] = { 0x4e, 0x05, 0x01 };
	h = put_header(d, 1);
	n = h + put_block(d + h, 0, bad1, sizeof bad1);
	assert_int_equal(devlog_parse(d, n, &l, &err), -1);
	assert_string_equal(err.msg, "byte 83 (block 0): unknown item 0x20");
	n = h + put_block(d + h, 0, bad2, sizeof bad2);
	assert_int_equal(devlog_parse(d, n, &l, &err), -1);
	assert_string_equal(err.msg, "byte 85 (block 0): 2 reads cut by the block's end");
}

/* Each malformed item, in a block whose CRC is right: its line. */
static void test_bad_items(void **state)
{
	(void)state;
	static const struct { uint8_t payload[8]; uint8_t len; const char *msg; } cases[] = {
		/* 33 bits: 4 x 7 = 28, and 0x1f has 5 more */
		{ { 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f }, 6,
		  "byte 83 (block 0): a difference wider than 32 bits" },
		/* a sixth byte */
		{ { 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 7,
		  "byte 83 (block 0): a difference wider than 32 bits" },
		{ { 0x01, 0x80, 0x80 }, 3, "byte 83 (block 0): interrupt item cut by the block's end" },
		{ { 0x82, 0x11, 0x22 }, 3, "byte 83 (block 0): a run of 3 reads cut by the block's end" },
		{ { 0xc0, 0x01 }, 2, "byte 83 (block 0): loss item cut by the block's end" },
		{ { 0x00, 0x01 }, 2, "byte 83 (block 0): unknown item 0x00" },
		{ { 0x80, 0x01, 0xc1 }, 3, "byte 85 (block 0): unknown item 0xc1" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint8_t d[256];
		size_t h = put_header(d, 0);
		size_t n = h + put_block(d + h, 0, cases[i].payload, cases[i].len);
		devlog l;
		avrr_err err = { "" };
		if (devlog_parse(d, n, &l, &err) != -1 || strcmp(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s'; want '%s'", i, err.msg, cases[i].msg);
	}
}

/* The tracer's choice of coding: differences for a fingerprint that is
 * one counter and nothing else, the ring's bytes otherwise; the largest
 * item is the vector byte and the most bytes either takes. */
static void test_coding_choice(void **state)
{
	(void)state;
	static const struct { const char *spec; unsigned delta, max; } cases[] = {
		{ "sel=cycles:32,ra=0,width=32", 32, 1 + 5 },    /* ceil(32 / 7) */
		{ "sel=cycles:16,ra=8,width=24", 0, 1 + 3 },     /* the return address */
		{ "sel=cycles:16,ra=0,width=16", 16, 1 + 3 },
		{ "sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32", 0, 1 + 4 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fp_config c;
		avrr_err err = { "" };
		const mcu_names *names = ioregs_lookup("atmega16");
		assert_non_null(names);
		if (fp_parse(cases[i].spec, names, NULL, 0x460, "t", &c, &err))
			fail_msg("%s: %s", cases[i].spec, err.msg);
		assert_int_equal(fp_log_delta_bits(&c), cases[i].delta);
		assert_int_equal(fp_log_item_max(&c), cases[i].max);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_is_avr_libcs),
		cmocka_unit_test(test_known_block),
		cmocka_unit_test(test_bad_items),
		cmocka_unit_test(test_folded_reads),
		cmocka_unit_test(test_coding_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
