/*
 * test_freqsel.c — unit tests for fingerprint/freqsel.{h,c}: exact counts on
 * hand-assembled code (every counting rule of freqsel.h: aliases once,
 * pairs and pointers as both registers, implicit lpm operands, I/O by data
 * address, instructions outside the paper's list ignored), ranking order and
 * ties, malformed input, and a sanity check on avr-gcc output: r24 and SREG
 * rank near the top, as in the paper's Fig. 4.
 */
#include "tests/testlib.h"

#include <glob.h>
#include <unistd.h>

#include "fingerprint/freqsel.h"
#include "sim/firmware.h"

#define FIXTURE_SRC "tests/integration/fixtures/decode_fixture.c"

/* Hand-assembled; each word stored little-endian. */
static const uint16_t prog[] = {
	0xe081,         /* ldi r24, 0x01          r24 */
	0xe090,         /* ldi r25, 0x00          r25 */
	0x0f88,         /* add r24, r24 (lsl)     r24 once */
	0x2411,         /* eor r1, r1 (clr)       r1 once */
	0xb60f,         /* in r0, 0x3f            r0, SREG 0x5f */
	0xb7cd,         /* in r28, 0x3d           r28, SPL 0x5d */
	0xb7de,         /* in r29, 0x3e           r29, SPH 0x5e */
	0xbe0f,         /* out 0x3f, r0           not counted */
	0x01fc,         /* movw r30, r24          r30 r31 r24 r25 */
	0x9181,         /* ld r24, Z+             r24 r30 r31 */
	0x819a,         /* ldd r25, Y+2           r25 r28 r29 */
	0x9622,         /* adiw r28, 0x02         r28 r29 */
	0x9180, 0x005f, /* lds r24, 0x005F        r24, 0x5f */
	0x9120, 0x0100, /* lds r18, 0x0100        r18 (SRAM, no I/O) */
	0x9ac3,         /* sbi 0x18, 3            0x38 */
	0x98c3,         /* cbi 0x18, 3            0x38 */
	0x9380, 0x0060, /* sts 0x0060, r24        not counted */
	0x938f,         /* push r24               not counted */
	0xcfff,         /* rjmp .-2               not counted */
	0x95c8,         /* lpm                    r0 r30 r31 (implicit) */
	0x9186,         /* elpm r24, Z            not counted */
	0x9582,         /* swap r24               r24 */
	0x9f89,         /* mul r24, r25           not counted */
	0x1789,         /* cp r24, r25            not counted */
	0xef8f,         /* ldi r24, 0xFF (ser)    r24 */
};
#define PROG_INSNS 25
#define PROG_COUNTED 18

static uint8_t *assemble(const uint16_t *w, size_t n, size_t extra)
{
	uint8_t *b = malloc(2 * n + extra);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		b[2 * i] = (uint8_t)w[i];
		b[2 * i + 1] = (uint8_t)(w[i] >> 8);
	}
	for (size_t i = 0; i < extra; i++)
		b[2 * n + i] = 0xe0; /* a stray odd byte */
	return b;
}

static void test_exact_counts(void **state)
{
	(void)state;
	size_t nw = sizeof prog / sizeof prog[0];
	uint8_t *code = assemble(prog, nw, 1);
	freqsel_counts c;
	assert_int_equal(freqsel_count(code, (uint32_t)(2 * nw + 1), &c), 0);
	assert_int_equal(c.insns, PROG_INSNS);
	assert_int_equal(c.counted, PROG_COUNTED);

	uint32_t want_gp[32] = { 0 };
	want_gp[24] = 7; /* ldi, add, movw, ld, lds, swap, ser */
	want_gp[25] = 3; /* ldi, movw, ldd */
	want_gp[28] = 3; /* in, ldd Y, adiw */
	want_gp[29] = 3;
	want_gp[30] = 3; /* movw, ld Z, lpm */
	want_gp[31] = 3;
	want_gp[0] = 2;  /* in, lpm */
	want_gp[1] = 1;
	want_gp[18] = 1;
	for (int r = 0; r < 32; r++) {
		if (c.gp[r] != want_gp[r])
			print_error("r%d: %u, want %u\n", r, c.gp[r], want_gp[r]);
		assert_int_equal(c.gp[r], want_gp[r]);
	}
	uint32_t want_io[256] = { 0 };
	want_io[0x5f] = 2; /* in r0, 0x3f; lds r24, 0x005f */
	want_io[0x5d] = 1;
	want_io[0x5e] = 1;
	want_io[0x38] = 2; /* sbi, cbi */
	for (int a = 0; a < 256; a++) {
		if (c.io[a] != want_io[a])
			print_error("io 0x%02x: %u, want %u\n", a, c.io[a], want_io[a]);
		assert_int_equal(c.io[a], want_io[a]);
	}
	free(code);
}

static void test_ranking(void **state)
{
	(void)state;
	size_t nw = sizeof prog / sizeof prog[0];
	uint8_t *code = assemble(prog, nw, 0);
	freqsel_counts c;
	assert_int_equal(freqsel_count(code, (uint32_t)(2 * nw), &c), 0);
	free(code);

	uint8_t regs[32];
	static const uint8_t want_regs[] = { 24, 25, 28, 29, 30, 31, 0, 1, 18 };
	int n = freqsel_rank_gp(&c, regs, 32);
	assert_int_equal(n, (int)sizeof want_regs);
	assert_memory_equal(regs, want_regs, sizeof want_regs);
	assert_int_equal(freqsel_rank_gp(&c, regs, 2), 2);
	assert_int_equal(regs[0], 24);
	assert_int_equal(regs[1], 25);
	assert_int_equal(freqsel_rank_gp(&c, regs, 0), 0);

	uint16_t io[256];
	static const uint16_t want_io[] = { 0x38, 0x5f, 0x5d, 0x5e };
	n = freqsel_rank_io(&c, 0x60, io, 256);
	assert_int_equal(n, 4);
	assert_memory_equal(io, want_io, sizeof want_io);
	/* io_end excludes the upper part, and is clamped to 0x100 */
	assert_int_equal(freqsel_rank_io(&c, 0x40, io, 256), 1);
	assert_int_equal(io[0], 0x38);
	assert_int_equal(freqsel_rank_io(&c, 0xffff, io, 256), 4);
}

static void test_ties_and_extended_io(void **state)
{
	(void)state;
	freqsel_counts c;
	memset(&c, 0, sizeof c);
	c.gp[31] = 5;
	c.gp[2] = 5;
	c.gp[17] = 9;
	c.io[0xc6] = 3; /* UDR0 on an ATmega328P: extended I/O */
	c.io[0x5f] = 3;
	c.io[0x10] = 50; /* below 0x20: never an I/O register */
	uint8_t regs[32];
	assert_int_equal(freqsel_rank_gp(&c, regs, 32), 3);
	assert_int_equal(regs[0], 17);
	assert_int_equal(regs[1], 2);
	assert_int_equal(regs[2], 31);
	uint16_t io[4];
	assert_int_equal(freqsel_rank_io(&c, 0x100, io, 4), 2);
	assert_int_equal(io[0], 0x5f);
	assert_int_equal(io[1], 0xc6);
}

static void test_malformed(void **state)
{
	(void)state;
	freqsel_counts c;
	assert_int_equal(freqsel_count(NULL, 0, &c), 0);
	assert_int_equal(c.insns, 0);
	assert_int_equal(freqsel_count(NULL, 4, &c), -1);
	uint8_t one[1] = { 0x81 };
	assert_int_equal(freqsel_count(one, 1, NULL), -1);
	assert_int_equal(freqsel_count(one, 1, &c), 0);
	assert_int_equal(c.insns, 0);
	/* A 2-word lds whose address word is missing is a .word: not counted. */
	uint8_t *lds = malloc(2);
	assert_non_null(lds);
	lds[0] = 0x80;
	lds[1] = 0x91;
	assert_int_equal(freqsel_count(lds, 2, &c), 0);
	assert_int_equal(c.insns, 1);
	assert_int_equal(c.counted, 0);
	free(lds);
	/* Pseudo-random garbage in an exact-size heap block: no overreads. */
	uint32_t n = 4097;
	uint8_t *g = malloc(n);
	assert_non_null(g);
	uint32_t x = 2463534242u;
	for (uint32_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		g[i] = (uint8_t)x;
	}
	assert_int_equal(freqsel_count(g, n, &c), 0);
	assert_true(c.insns >= n / 4 && c.insns <= n / 2);
	uint32_t total = 0;
	for (int r = 0; r < 32; r++)
		total += c.gp[r];
	assert_true(total > 0);
	free(g);
	/* freqsel_add ignores what it is not given */
	freqsel_add(NULL, NULL);
	freqsel_add(&c, NULL);
	assert_false(freqsel_counts_insn(NULL));
}

/* r24 is avr-gcc's first argument/return register and SREG is saved by
 * every ISR prologue, so both must rank near the top. */
static void check_elf(const char *elf)
{
	firmware *fw = NULL;
	avrr_err err = { { 0 } };
	if (fw_load_file(elf, &fw, &err) != 0)
		fail_msg("%s", err.msg);
	freqsel_counts c;
	assert_int_equal(freqsel_count(fw->flash, fw->code_end, &c), 0);
	fw_free(fw);
	uint8_t regs[32];
	uint16_t io[256];
	int ng = freqsel_rank_gp(&c, regs, 32);
	int ni = freqsel_rank_io(&c, 0x60, io, 256); /* ATmega16: no ext. I/O */
	printf("# %s: %u instructions, %u counted; top r%d r%d r%d, I/O 0x%02x\n",
	       elf, c.insns, c.counted, regs[0], regs[1], regs[2], io[0]);
	assert_true(c.insns > 300);
	assert_true(ng >= 3 && ni >= 1);
	assert_true(regs[0] == 24 || regs[1] == 24);
	assert_int_equal(io[0], 0x5f);
}

static void test_avr_gcc_output(void **state)
{
	(void)state;
	char dir[256], elf[320], out[4096];
	assert_non_null(test_tmpdir(dir, sizeof dir));
	snprintf(elf, sizeof elf, "%s/fixture.elf", dir);
	int rc = test_run(out, sizeof out,
			  "avr-gcc -mmcu=atmega16 -Os -g -std=gnu11 -o '%s' %s",
			  elf, FIXTURE_SRC);
	if (rc != 0)
		fail_msg("avr-gcc failed: %s", out);
	check_elf(elf);
	unlink(elf);
	rmdir(dir);

	glob_t g;
	if (glob("traces/*.elf", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			check_elf(g.gl_pathv[i]);
		globfree(&g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_counts),
		cmocka_unit_test(test_ranking),
		cmocka_unit_test(test_ties_and_extended_io),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_avr_gcc_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
