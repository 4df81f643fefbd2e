/*
 * test_lines.c — unit tests for shell/lines.{h,c}: the line table of
 * adcapp read from its stabs (tests/firmware/adcapp_stabs.elf, what a plain -g
 * gives with Debian's avr-gcc), the same source rebuilt here with -gdwarf-2 and read
 * through libdw, a stripped copy (no rows, no error), and damaged DWARF and
 * stabs (errors).
 */
#include "tests/testlib.h"

#include <gelf.h>
#include <libelf.h>

#include "dwarf/lines.h"

#define FW_PATH "tests/firmware/adcapp_stabs.elf"
/* The Makefile's AVR_FLAGS with -gdwarf-2 for -g: the same code (checked
 * with avr-objcopy -O binary -j .text), so the same expected rows. */
#define DWARF_CC "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL -Os -gdwarf-2 " \
	"-std=gnu11 -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000"

static firmware *load_fw(const char *path)
{
	firmware *fw = NULL;
	avrr_err err = { { 0 } };
	if (fw_load_file(path, &fw, &err))
		fail_msg("fw_load_file: %s", err.msg);
	return fw;
}

static src_lines *load_lines(const firmware *fw)
{
	src_lines *t = NULL;
	avrr_err err = { { 0 } };
	if (lines_load(fw, &t, &err))
		fail_msg("lines_load: %s", err.msg);
	assert_non_null(t);
	return t;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

static unsigned line_of(const src_lines *t, uint32_t pc)
{
	const char *file = NULL;
	unsigned line = 0;
	if (lines_at(t, pc, &file, &line))
		fail_msg("pc 0x%x not covered", pc);
	if (!ends_with(file, "/traces/adcapp.c"))
		fail_msg("pc 0x%x in %s", pc, file);
	return line;
}

static uint32_t addr_of(const src_lines *t, const char *file, unsigned line)
{
	uint32_t a = 0;
	avrr_err err = { { 0 } };
	if (lines_addr(t, file, line, &a, &err))
		fail_msg("lines_addr(%s, %u): %s", file, line, err.msg);
	return a;
}

static void addr_fails(const src_lines *t, const char *file, unsigned line, const char *msg)
{
	uint32_t a = 0;
	avrr_err err = { { 0 } };
	assert_int_equal(lines_addr(t, file, line, &a, &err), -1);
	assert_string_equal(err.msg, msg);
}

/*
 * Expected values, from `avr-addr2line -e tests/firmware/adcapp_stabs.elf ADDR`
 * (stabs)
 * and the same on the -gdwarf-2 build, and from `avr-objdump -d -l` and
 * `avr-objdump --dwarf=decodedline`, whose rows agree on both builds:
 *   0x346 290 (main's first row), 0x35c 264, 0x360 267, 0x396 280,
 *   0x39e 281, 0x3a2 280, 0x11a 126 then 127 at the same address,
 *   0xae 144, 0xb2 144 (is_stmt 0 in DWARF), 0xd2 145, 0xd4 144,
 *   0x3c8 154 (ee_start_record inlined into main; the lowest of 154's
 *   rows), 0x718 188 up to main's end at 0x720.
 */
static void check_adcapp_table(const src_lines *t)
{
	assert_true(lines_available(t));

	/* One source file has code; its full name ends in traces/adcapp.c. */
	assert_non_null(lines_file(t, 0));
	assert_true(ends_with(lines_file(t, 0), "/traces/adcapp.c"));
	assert_null(lines_file(t, 1));

	assert_int_equal(line_of(t, 0x346), 290);
	assert_int_equal(line_of(t, 0x35c), 264);
	assert_int_equal(line_of(t, 0x35e), 264);
	assert_int_equal(line_of(t, 0x3a2), 280);
	assert_int_equal(line_of(t, 0x11a), 127); /* the later row wins, as addr2line */
	assert_int_equal(line_of(t, 0x11c), 127);
	assert_int_equal(line_of(t, 0xb2), 144);
	assert_int_equal(line_of(t, 0x3c8), 154);
	assert_int_equal(line_of(t, 0x71e), 188);

	/* Vectors, __bad_interrupt and libgcc after main have no rows
	 * (addr2line on the stabs build stretches line 188 over libgcc; the
	 * DWARF build and we end at main's end). */
	const char *file = NULL;
	unsigned line = 0;
	assert_int_equal(lines_at(t, 0x0, &file, &line), -1);
	assert_int_equal(lines_at(t, 0x8e, &file, &line), -1);
	assert_int_equal(lines_at(t, 0x720, &file, &line), -1);
	assert_int_equal(lines_at(t, 0x4000, &file, &line), -1);

	assert_true(lines_is_line_start(t, 0x346));
	assert_true(lines_is_line_start(t, 0x35c));
	assert_false(lines_is_line_start(t, 0x35e));  /* inside line 264 */
	assert_true(lines_is_line_start(t, 0x360));
	assert_true(lines_is_line_start(t, 0x11a));
	assert_true(lines_is_line_start(t, 0xae));
	assert_false(lines_is_line_start(t, 0xb2));   /* 144 again */
	assert_true(lines_is_line_start(t, 0xd2));
	assert_true(lines_is_line_start(t, 0xd4));    /* back to 144 from 145 */
	assert_true(lines_is_line_start(t, 0x3a2));   /* back to 280 from 281 */
	assert_false(lines_is_line_start(t, 0x720));
	assert_false(lines_is_line_start(t, 0x0));

	assert_int_equal(addr_of(t, "adcapp.c", 264), 0x35c);
	assert_int_equal(addr_of(t, "traces/adcapp.c", 280), 0x396);
	assert_int_equal(addr_of(t, lines_file(t, 0), 290), 0x346);
	assert_int_equal(addr_of(t, "adcapp.c", 126), 0x11a);
	assert_int_equal(addr_of(t, "adcapp.c", 144), 0xae);
	assert_int_equal(addr_of(t, "adcapp.c", 154), 0x3c8);
	/* 263 is init's "{" and 265-266 a blank line and a comment: the next
	 * lines with code are 264 and 267. */
	assert_int_equal(addr_of(t, "adcapp.c", 263), 0x35c);
	assert_int_equal(addr_of(t, "adcapp.c", 265), 0x360);
	assert_int_equal(addr_of(t, "adcapp.c", 1), 0x168); /* line 70, the first with code */

	addr_fails(t, "adcapp.c", 999, "no line 999 in adcapp.c");
	addr_fails(t, "foo.c", 10, "no source file named foo.c");
	addr_fails(t, "capp.c", 264, "no source file named capp.c"); /* not at a '/' */
}

static void test_stabs(void **state)
{
	(void)state;
	firmware *fw = load_fw(FW_PATH);
	src_lines *t = load_lines(fw);
	check_adcapp_table(t);
	lines_free(t);
	fw_free(fw);
}

static void test_dwarf(void **state)
{
	test_scratch *s = *state;
	char elf[256];
	snprintf(elf, sizeof elf, "%s/adcapp-dwarf.elf", s->dir);
	int rc = test_run(s->out, sizeof s->out, DWARF_CC " -o '%s' traces/adcapp.c", elf);
	if (rc)
		fail_msg("avr-gcc: %s", s->out);
	/* Make sure this really is the DWARF reader's input. */
	test_run(s->out, sizeof s->out, "avr-readelf -S '%s'", elf);
	assert_non_null(strstr(s->out, ".debug_line"));
	assert_null(strstr(s->out, ".stab"));

	firmware *fw = load_fw(elf);
	src_lines *t = load_lines(fw);
	check_adcapp_table(t);
	lines_free(t);
	fw_free(fw);
}

static void test_no_debug_info(void **state)
{
	test_scratch *s = *state;
	char elf[256];
	snprintf(elf, sizeof elf, "%s/adcapp-stripped.elf", s->dir);
	int rc = test_run(s->out, sizeof s->out, "avr-strip -g -o '%s' " FW_PATH, elf);
	if (rc)
		fail_msg("avr-strip: %s", s->out);
	firmware *fw = load_fw(elf);
	src_lines *t = load_lines(fw);
	assert_false(lines_available(t));
	assert_null(lines_file(t, 0));
	const char *file = NULL;
	unsigned line = 0;
	assert_int_equal(lines_at(t, 0x35c, &file, &line), -1);
	assert_false(lines_is_line_start(t, 0x35c));
	addr_fails(t, "adcapp.c", 264, "no source file named adcapp.c");
	lines_free(t);
	fw_free(fw);
}

/* The file offset and size of section `name` in an ELF image. */
static void find_section(uint8_t *bytes, size_t size, const char *name,
			 size_t *off, size_t *len)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)bytes, size);
	assert_non_null(elf);
	size_t shstr;
	assert_int_equal(elf_getshdrstrndx(elf, &shstr), 0);
	Elf_Scn *scn = NULL;
	int found = 0;
	while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		assert_non_null(gelf_getshdr(scn, &sh));
		if (!strcmp(elf_strptr(elf, shstr, sh.sh_name), name)) {
			*off = sh.sh_offset;
			*len = sh.sh_size;
			found = 1;
		}
	}
	elf_end(elf);
	if (!found)
		fail_msg("no section %s", name);
}

/* Loads `path` with byte `at` of `section` set to `value`, and expects
 * lines_load to fail with a message starting with `prefix`. */
static void expect_damaged(const char *path, const char *section, size_t at,
			   uint8_t value, const char *prefix)
{
	firmware *orig = load_fw(path);
	uint8_t *bytes = malloc(orig->elf_size);
	assert_non_null(bytes);
	memcpy(bytes, orig->elf, orig->elf_size);
	size_t off = 0, len = 0;
	find_section(bytes, orig->elf_size, section, &off, &len);
	assert_true(at < len);
	bytes[off + at] = value;

	firmware *fw = NULL;
	avrr_err err = { { 0 } };
	if (fw_load_memory(bytes, orig->elf_size, "bad.elf", &fw, &err))
		fail_msg("fw_load_memory: %s", err.msg);
	src_lines *t = (src_lines *)1;
	assert_int_equal(lines_load(fw, &t, &err), -1);
	assert_null(t);
	if (strncmp(err.msg, prefix, strlen(prefix)))
		fail_msg("got \"%s\", expected \"%s...\"", err.msg, prefix);
	fw_free(fw);
	fw_free(orig);
	free(bytes);
}

static void test_damaged_dwarf(void **state)
{
	test_scratch *s = *state;
	char elf[256];
	snprintf(elf, sizeof elf, "%s/adcapp-dwarf.elf", s->dir);
	if (test_run(s->out, sizeof s->out, DWARF_CC " -o '%s' traces/adcapp.c", elf))
		fail_msg("avr-gcc: %s", s->out);
	/* Byte 4 of the first line program header is its version (2). */
	expect_damaged(elf, ".debug_line", 4, 77, "bad.elf: damaged DWARF line table (");
	/* The same in the bundled ELF's own (empty) avr-libc unit. */
	expect_damaged(FW_PATH, ".debug_line", 4, 77, "bad.elf: damaged DWARF line table (");
}

static void test_damaged_stabs(void **state)
{
	(void)state;
	/* Entry 1 (after the header entry: the N_SO naming the directory)
	 * pointing far past .stabstr: its n_strx's top byte is byte 12 + 3. */
	expect_damaged(FW_PATH, ".stab", 15, 0x7f,
		       "bad.elf: damaged .stab section (string offset");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stabs),
		cmocka_unit_test_setup_teardown(test_dwarf, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_no_debug_info, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_damaged_dwarf, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test(test_damaged_stabs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
