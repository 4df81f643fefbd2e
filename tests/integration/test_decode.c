/*
 * test_decode.c — the AVR decoder against avr-objdump.
 *
 * Every instruction avr-objdump prints is decoded at the same address and
 * must agree exactly in length, mnemonic and operand text (whitespace
 * normalised, objdump's "; comment" dropped, except that its "undefined"
 * remark must match insn.undefined).  Sources of instructions:
 *   - all 65536 first words, each followed by a varying second word, as a
 *     raw binary (avr-objdump -b binary -m avr5);
 *   - the bundled firmware: every .elf in traces/;
 *   - tests/integration/fixtures/decode_fixture.c built with avr-gcc for an
 *     ATmega16, an ATmega128 (elpm, jmp/call) and an ATmega2560 (eicall).
 * Also: the ELF loader's errors, and decoding of truncated or garbage input.
 */
#include "tests/testlib.h"

#include <glob.h>
#include <unistd.h>

#include "sim/avr_decode.h"
#include "sim/firmware.h"
#include "util/err.h"

#define FIXTURE_SRC "tests/integration/fixtures/decode_fixture.c"

/* Mismatches reported before a comparison gives up. */
#define MAX_REPORTS 20

struct tally {
	unsigned long compared;    /* instructions compared */
	unsigned long mismatches;
	unsigned long seen[AVR_OP_COUNT_];
};

/* Collapses whitespace runs to one space and trims both ends, in place. */
static void normalise(char *s)
{
	char *w = s;
	int space = 0;
	for (char *r = s; *r; r++) {
		if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') {
			space = 1;
			continue;
		}
		if (space && w != s)
			*w++ = ' ';
		space = 0;
		*w++ = *r;
	}
	*w = 0;
}

/* One instruction line of avr-objdump -d: "  addr:\tbytes\tmnem\tops\t; c".
 * Returns 0 for other lines (headers, labels, data shown as bytes). */
struct objline {
	uint32_t addr;
	int nbytes;
	char mnem[32];
	char ops[128];
	char comment[128];
};

static int parse_objdump_line(char *line, struct objline *o)
{
	char *p = line;
	while (*p == ' ')
		p++;
	char *end;
	unsigned long a = strtoul(p, &end, 16);
	if (end == p || end[0] != ':' || end[1] != '\t')
		return 0;
	char *bytes = end + 2;
	char *tab = strchr(bytes, '\t');
	if (!tab)
		return 0; /* an object dumped as bytes + ASCII */
	*tab = 0;
	o->addr = (uint32_t)a;
	o->nbytes = 0;
	for (char *b = bytes; *b;) {
		if (b[0] == ' ') {
			b++;
			continue;
		}
		o->nbytes++;
		b += b[1] ? 2 : 1;
	}
	char *rest = tab + 1;
	char *semi = strchr(rest, ';');
	o->comment[0] = 0;
	if (semi) {
		snprintf(o->comment, sizeof o->comment, "%s", semi + 1);
		normalise(o->comment);
		*semi = 0;
	}
	char *mt = strchr(rest, '\t');
	if (mt)
		*mt = 0;
	snprintf(o->mnem, sizeof o->mnem, "%s", rest);
	normalise(o->mnem);
	snprintf(o->ops, sizeof o->ops, "%s", mt ? mt + 1 : "");
	normalise(o->ops);
	return o->mnem[0] != 0;
}

/* Runs cmd (an avr-objdump invocation) and compares each instruction it
 * lists with avr_decode on code.  Adds to t; returns the popen/exit status
 * problem as -1, else 0. */
static int compare_with_objdump(const char *cmd, const uint8_t *code,
				uint32_t size, const char *what, struct tally *t)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char line[512];
	struct objline o;
	while (fgets(line, sizeof line, p)) {
		if (!parse_objdump_line(line, &o))
			continue;
		avr_insn in;
		char ops[128];
		int rc = avr_decode(code, size, o.addr, &in);
		if (rc == 0)
			avr_format(&in, ops, sizeof ops);
		else
			snprintf(ops, sizeof ops, "(decode failed)");
		bool undef = strcmp(o.comment, "undefined") == 0;
		t->compared++;
		if (rc == 0 && in.words * 2 == o.nbytes &&
		    strcmp(in.mnemonic, o.mnem) == 0 && strcmp(ops, o.ops) == 0 &&
		    in.undefined == undef) {
			t->seen[in.op]++;
			continue;
		}
		if (t->mismatches++ < MAX_REPORTS)
			print_error("%s 0x%x: objdump \"%s %s\" (%d bytes%s), "
				    "decoder \"%s %s\" (%d bytes%s)\n",
				    what, (unsigned)o.addr, o.mnem, o.ops, o.nbytes,
				    undef ? ", undefined" : "",
				    rc == 0 ? in.mnemonic : "?", ops,
				    rc == 0 ? in.words * 2 : 0,
				    rc == 0 && in.undefined ? ", undefined" : "");
	}
	int st = pclose(p);
	return st == 0 ? 0 : -1;
}

static int have_avr_tools(void)
{
	char out[256];
	return test_run(out, sizeof out, "avr-objdump --version") == 0;
}

/* ---- all first words ---- */

static void test_all_words_match_objdump(void **state)
{
	(void)state;
	assert_true(have_avr_tools());
	char dir[256];
	assert_non_null(test_tmpdir(dir, sizeof dir));

	/* Each word w is followed by a second word, so that 2-word
	 * instructions read a varying address/target; the filler itself
	 * decodes as some instruction too.  A few fixed tails cover zero
	 * targets/addresses. */
	static const uint16_t tail[] = {
		0x940c, 0x0000, 0x940e, 0x0000, 0x9000, 0x0000, 0x93f0, 0xffff,
		0x95f1, 0xffff, 0x940d, 0xffff
	};
	uint32_t n = 65536u * 4 + sizeof tail;
	uint8_t *blob = malloc(n);
	assert_non_null(blob);
	for (uint32_t w = 0; w < 65536; w++) {
		uint16_t w2 = (uint16_t)(w * 40503u + 0x1234u);
		blob[w * 4 + 0] = (uint8_t)w;
		blob[w * 4 + 1] = (uint8_t)(w >> 8);
		blob[w * 4 + 2] = (uint8_t)w2;
		blob[w * 4 + 3] = (uint8_t)(w2 >> 8);
	}
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++) {
		blob[65536u * 4 + 2 * i] = (uint8_t)tail[i];
		blob[65536u * 4 + 2 * i + 1] = (uint8_t)(tail[i] >> 8);
	}
	char path[300];
	snprintf(path, sizeof path, "%s/words.bin", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(blob, 1, n, f), n);
	assert_int_equal(fclose(f), 0);

	char cmd[400];
	snprintf(cmd, sizeof cmd, "avr-objdump -D -b binary -m avr5 '%s'", path);
	struct tally t = { 0 };
	assert_int_equal(compare_with_objdump(cmd, blob, n, "words.bin", &t), 0);
	printf("# all words: %lu instructions compared, %lu mismatches\n",
	       t.compared, t.mismatches);
	/* Each first word once plus each filler word that starts an
	 * instruction: at least 2 * 65536 minus the 2-word ones. */
	assert_true(t.compared > 120000);
	assert_int_equal(t.mismatches, 0);
	for (int op = 0; op < AVR_OP_COUNT_; op++)
		if (!t.seen[op])
			print_error("op %d never seen\n", op);
	for (int op = 0; op < AVR_OP_COUNT_; op++)
		assert_true(t.seen[op] > 0);
	free(blob);
	unlink(path);
	rmdir(dir);
}

/* ---- ELF files ---- */

/* Compares one ELF's .text; returns the number of instructions compared. */
static unsigned long compare_elf(const char *elf, struct tally *t)
{
	firmware *fw = NULL;
	avrr_err err = { { 0 } };
	if (fw_load_file(elf, &fw, &err) != 0) {
		print_error("%s\n", err.msg);
		fail();
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "avr-objdump -d -z -j .text '%s'", elf);
	unsigned long before = t->compared, bad = t->mismatches;
	assert_int_equal(compare_with_objdump(cmd, fw->flash, fw->code_end, elf, t), 0);
	fw_free(fw);
	unsigned long n = t->compared - before;
	printf("# %s: %lu instructions compared, %lu mismatches\n", elf, n,
	       t->mismatches - bad);
	return n;
}

static void test_traces_elfs_match_objdump(void **state)
{
	(void)state;
	assert_true(have_avr_tools());
	glob_t g;
	int rc = glob("traces/*.elf", 0, NULL, &g);
	if (rc != 0) {
		/* Before the bundled firmware exists the fixture test alone
		 * covers the decoder; once its sources exist, a missing
		 * build is an error. */
		glob_t src;
		int have_src = glob("traces/*.c", 0, NULL, &src) == 0;
		if (have_src)
			globfree(&src);
		if (have_src)
			fail_msg("traces/*.c exist but no traces/*.elf: run make firmware");
		printf("# no traces/*.elf or traces/*.c yet; fixture test covers the decoder\n");
		return;
	}
	struct tally t = { 0 };
	for (size_t i = 0; i < g.gl_pathc; i++)
		assert_true(compare_elf(g.gl_pathv[i], &t) > 100);
	printf("# traces: %zu ELF files, %lu instructions compared\n",
	       g.gl_pathc, t.compared);
	globfree(&g);
	assert_int_equal(t.mismatches, 0);
}

static void test_fixture_elfs_match_objdump(void **state)
{
	(void)state;
	assert_true(have_avr_tools());
	static const char *const mcus[] = { "atmega16", "atmega128", "atmega2560" };
	char dir[256];
	assert_non_null(test_tmpdir(dir, sizeof dir));
	struct tally t = { 0 };
	for (size_t i = 0; i < sizeof mcus / sizeof mcus[0]; i++) {
		char elf[320], out[4096];
		snprintf(elf, sizeof elf, "%s/fixture_%s.elf", dir, mcus[i]);
		int rc = test_run(out, sizeof out,
				  "avr-gcc -mmcu=%s -Os -g -std=gnu11 -Wall -o '%s' %s",
				  mcus[i], elf, FIXTURE_SRC);
		if (rc != 0)
			fail_msg("avr-gcc for %s failed: %s", mcus[i], out);
		struct tally one = { 0 };
		assert_true(compare_elf(elf, &one) > 500);
		t.compared += one.compared;
		t.mismatches += one.mismatches;
		for (int op = 0; op < AVR_OP_COUNT_; op++)
			t.seen[op] += one.seen[op];
		if (strcmp(mcus[i], "atmega128") == 0)
			assert_true(one.seen[AVR_OP_ELPM] > 0);
		if (strcmp(mcus[i], "atmega2560") == 0)
			assert_true(one.seen[AVR_OP_EICALL] > 0);
		unlink(elf);
	}
	rmdir(dir);
	printf("# fixtures: %lu instructions compared\n", t.compared);
	assert_int_equal(t.mismatches, 0);
	/* The fixture is only useful if it really spreads over the set. */
	static const enum avr_op want[] = {
		AVR_OP_JMP, AVR_OP_CALL, AVR_OP_RJMP, AVR_OP_RCALL, AVR_OP_ICALL,
		AVR_OP_IJMP, AVR_OP_LDS, AVR_OP_STS, AVR_OP_LD, AVR_OP_LDD,
		AVR_OP_ST, AVR_OP_STD, AVR_OP_LPM, AVR_OP_MUL, AVR_OP_MULS,
		AVR_OP_MULSU, AVR_OP_MOVW, AVR_OP_ADIW, AVR_OP_SBIW, AVR_OP_IN,
		AVR_OP_OUT, AVR_OP_SBIC, AVR_OP_SBIS, AVR_OP_BRBS, AVR_OP_BRBC,
		AVR_OP_RETI, AVR_OP_PUSH, AVR_OP_POP, AVR_OP_SWAP, AVR_OP_ASR
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_true(t.seen[want[i]] > 0);
}

/* ---- decoder details not visible through objdump ---- */

static void put16(uint8_t *b, uint16_t w)
{
	b[0] = (uint8_t)w;
	b[1] = (uint8_t)(w >> 8);
}

static void test_fields(void **state)
{
	(void)state;
	uint8_t b[4];
	avr_insn in;
	char ops[64];

	put16(b, 0xe081); /* ldi r24, 0x01 */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_LDI);
	assert_int_equal(in.rd, 24);
	assert_int_equal(in.imm, 1);
	assert_int_equal(avr_insn_operand_regs(&in), 1u << 24);

	put16(b, 0x9631); /* adiw r30, 0x01 */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_ADIW);
	assert_int_equal(avr_insn_operand_regs(&in), 3u << 30);

	put16(b, 0x01fc); /* movw r30, r24 */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(avr_insn_operand_regs(&in), (3u << 30) | (3u << 24));

	put16(b, 0x9181); /* ld r24, Z+ */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_LD);
	assert_int_equal(in.ptr, 'Z');
	assert_int_equal(in.ptr_mode, AVR_PTR_POSTINC);
	assert_int_equal(avr_insn_operand_regs(&in), (1u << 24) | (3u << 30));

	put16(b, 0xb60f); /* in r0, 0x3f */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_IN);
	assert_int_equal(avr_insn_io(&in), 0x5f);

	put16(b, 0x9f89); /* mul r24, r25: r1:r0 implicit */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(avr_insn_operand_regs(&in), 3u << 24);
	assert_int_equal(avr_insn_all_regs(&in), (3u << 24) | 3u);

	put16(b, 0x95c8); /* lpm: r0 and Z implicit */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(avr_insn_operand_regs(&in), 0);
	assert_int_equal(avr_insn_all_regs(&in), 1u | (3u << 30));

	put16(b, 0x9180); /* lds r24, 0x005f */
	put16(b + 2, 0x005f);
	assert_int_equal(avr_decode(b, 4, 0, &in), 0);
	assert_int_equal(in.words, 2);
	assert_int_equal(in.data, 0x5f);
	assert_int_equal(avr_insn_io(&in), 0x5f);
	put16(b + 2, 0x0100);
	assert_int_equal(avr_decode(b, 4, 0, &in), 0);
	assert_int_equal(avr_insn_io(&in), -1);

	put16(b, 0xcffe); /* rjmp .-4 at 0x10 */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.rel, -4);
	avr_format(&in, ops, sizeof ops);
	assert_string_equal(ops, ".-4");

	put16(b, 0xf409); /* brne .+2 */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_BRBC);
	assert_int_equal(in.bit, 1);
	assert_int_equal(in.target, 4);
	assert_string_equal(in.mnemonic, "brne");
}

static void test_truncated_and_garbage(void **state)
{
	(void)state;
	uint8_t b[4] = { 0x0c, 0x94, 0x00, 0x00 }; /* jmp 0 */
	avr_insn in;
	char ops[64];
	assert_int_equal(avr_decode(b, 4, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_JMP);
	avr_format(&in, ops, sizeof ops);
	assert_string_equal(ops, "0");
	/* the second word is missing: a .word, one word long */
	assert_int_equal(avr_decode(b, 2, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_WORD);
	assert_int_equal(in.words, 1);
	avr_format(&in, ops, sizeof ops);
	assert_string_equal(ops, "0x940c");
	assert_int_equal(avr_decode(b, 3, 0, &in), 0);
	assert_int_equal(in.op, AVR_OP_WORD);
	/* no whole word, odd address, nothing at all */
	assert_int_equal(avr_decode(b, 1, 0, &in), -1);
	assert_int_equal(avr_decode(b, 4, 1, &in), -1);
	assert_int_equal(avr_decode(b, 4, 4, &in), -1);
	assert_int_equal(avr_decode(b, 4, 3, &in), -1);
	assert_int_equal(avr_decode(NULL, 4, 0, &in), -1);
	assert_int_equal(avr_decode(b, 0, 0, &in), -1);
	assert_int_equal(avr_decode(b, 4, UINT32_MAX - 1, &in), -1);
	/* tiny buffers in exact-size heap blocks so ASan sees overreads */
	for (uint32_t w = 0; w < 65536; w += 7) {
		uint8_t *h = malloc(2);
		assert_non_null(h);
		put16(h, (uint16_t)w);
		assert_int_equal(avr_decode(h, 2, 0, &in), 0);
		assert_true(in.words == 1);
		avr_format(&in, ops, sizeof ops);
		(void)avr_insn_all_regs(&in);
		(void)avr_insn_io(&in);
		free(h);
	}
	/* a small output buffer truncates, it does not overflow */
	put16(b, 0x9180);
	put16(b + 2, 0x1234);
	assert_int_equal(avr_decode(b, 4, 0, &in), 0);
	char tiny[4];
	assert_int_equal(avr_format(&in, tiny, sizeof tiny), (int)strlen("r24, 0x1234"));
	assert_string_equal(tiny, "r24");
}

/* The firmware loader the decoder reads from: clear errors, and never a
 * crash on truncated or corrupted ELFs; what loads decodes throughout. */
static void test_code_load_errors(void **state)
{
	(void)state;
	firmware *fw = (firmware *)1;
	avrr_err err = { { 0 } };
	char dir[256], path[300];
	assert_non_null(test_tmpdir(dir, sizeof dir));

	assert_int_equal(fw_load_file("no/such.elf", &fw, &err), -1);
	assert_null(fw);
	assert_string_equal(err.msg, "no/such.elf: No such file or directory");

	snprintf(path, sizeof path, "%s/x.elf", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not an ELF file\n", f);
	fclose(f);
	assert_int_equal(fw_load_file(path, &fw, &err), -1);
	char want[400];
	snprintf(want, sizeof want, "%s: not an ELF file", path);
	assert_string_equal(err.msg, want);

	/* An empty file and a truncated ELF header. */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(fw_load_file(path, &fw, &err), -1);
	assert_string_equal(err.msg, want);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite("\177ELF\1\1\1", 1, 7, f);
	fclose(f);
	assert_int_equal(fw_load_file(path, &fw, &err), -1);
	assert_true(err.msg[0] != 0);

	/* This test program: an ELF, but for the host. */
	assert_int_equal(fw_load_file("/proc/self/exe", &fw, &err), -1);
	assert_non_null(strstr(err.msg, "/proc/self/exe: ELF for machine 62 (x86-64), not AVR (83)"));

	/* An AVR ELF cut short, or with bytes of its headers overwritten
	 * (xorshift32 picks where and what): an error, never a crash. */
	glob_t g;
	assert_int_equal(glob("traces/*.elf", 0, NULL, &g), 0);
	FILE *in = fopen(g.gl_pathv[0], "rb");
	assert_non_null(in);
	static uint8_t whole[1 << 20], bad[1 << 20];
	size_t n = fread(whole, 1, sizeof whole, in);
	fclose(in);
	globfree(&g);
	int loaded = 0, refused = 0;
	for (size_t cut = 0; cut < n; cut += n / 37 + 1) {
		if (fw_load_memory(whole, cut, "cut.elf", &fw, &err) == 0) {
			loaded++;
			fw_free(fw);
		} else {
			refused++;
			assert_true(err.msg[0] != 0);
		}
	}
	uint32_t x = 2463534242u;
	for (int round = 0; round < 300; round++) {
		memcpy(bad, whole, n);
		for (int k = 0; k < 4; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			size_t at = (k & 1) ? x % n : x % 52; /* half in the ELF header */
			bad[at] = (uint8_t)(x >> 8);
		}
		if (fw_load_memory(bad, n, "bad.elf", &fw, &err) == 0) {
			avr_insn insn;
			for (uint32_t a = 0; a + 1 < fw->code_end; a += 2u * insn.words)
				assert_int_equal(avr_decode(fw->flash, fw->code_end, a, &insn), 0);
			loaded++;
			fw_free(fw);
		} else {
			refused++;
			assert_true(err.msg[0] != 0);
		}
	}
	/* Both outcomes occurred, so both paths were exercised. */
	assert_true(loaded > 0 && refused > 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_words_match_objdump),
		cmocka_unit_test(test_traces_elfs_match_objdump),
		cmocka_unit_test(test_fixture_elfs_match_objdump),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_truncated_and_garbage),
		cmocka_unit_test(test_code_load_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
