/*
 * test_scope.c — the shell's variables across compilation units, C++
 * objects and watches on members and elements, on two many-unit builds:
 * tests/firmware/shellmulti (three C files and an assembly one),
 * tests/firmware/shellcpp and the Arduino sketch serial_echo (the core's
 * HardwareSerial).
 *
 * Where the expected text comes from:
 *  - shellmulti's values are its initializers in tests/firmware/shellmulti/
 *    (tank = { 3, 1, 0 }, history = { { 9, 8, 7 }, { 1, 2, 3, 4 }, 500 },
 *    buf = { 10 .. 17 }, main.c's count 42, clock.c's 7, tank.c's global
 *    mode 5, clock.c's static mode 9, asmvar.S's asm_counter 0x1234), at
 *    main's entry before any interrupt (sei comes after); addresses from
 *    avr-nm -S tests/firmware/shellmulti.elf (link order clock.c, main.c,
 *    tank.c, asmvar.S: clock.c's mode 0x800100 and count 0x800101, buf
 *    0x800102, main.c's count 0x80010a, tank.c's mode 0x80010b, history
 *    0x80010c, tank 0x800115, asm_counter 0x800118, millis_count
 *    0x80011a); a pointer printed with /x shows its 16 bits, as avr-gdb
 *    does;
 *  - the watches' stops follow main's loop: tank_step gets clock.c's count
 *    (7, odd) and adds 1 to tank.level (3 -> 4) before tank.c:11's test;
 *    main writes buf[42 & 7 = 2] first and buf[3] the turn after, with
 *    the level then 4;
 *  - the C++ lines are compared with stock avr-gdb's on the same recording
 *    (`avrr gdb -batch`), and HardwareSerial's size (157 bytes) and its
 *    base (Stream) are the Arduino core's;
 *  - every member the race analysis cuts Serial and shellmulti's history
 *    into (dwarf/members.h) is where the shell's print says it is, with
 *    its size; history.n is at history + 7 (tank.h: 3 + 4 bytes before
 *    it) in the DWARF 2 build, tests/firmware/shellmulti_dwarf2.elf.
 */
#include "tests/testlib.h"

#include "dwarf/members.h"
#include "shell/expr.h"

#define MULTI "tests/firmware/shellmulti.elf"
#define ECHO "tests/firmware/arduino/serial_echo.elf"
#define CPP "tests/firmware/shellcpp.elf"

typedef struct fixture {
	test_scratch s;
	char multi[256], echo[256], cpp[256];
	char gdb[65536];
} fixture;

static int group_setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!f)
		return -1;
	if (test_try_record(&f->s, f->multi, sizeof f->multi, "multi.db",
			    MULTI " --instructions 100k") ||
	    test_try_record(&f->s, f->echo, sizeof f->echo, "echo.db",
			    ECHO " --board uno --stimuli tests/firmware/arduino/serial_echo/"
			    "serial_echo.stim --instructions 2M") ||
	    test_try_record(&f->s, f->cpp, sizeof f->cpp, "cpp.db",
			    CPP " --mcu atmega328p --freq 16M --instructions 100k")) {
		fprintf(stderr, "%s", f->s.out);
		test_fixture_free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static const char *script(fixture *f, const char *text)
{
	static char path[300];
	snprintf(path, sizeof path, "%s/cmds", f->s.dir);
	test_write_text(path, text);
	return path;
}

/* The shell's output for `text` on recording db, into f->s.out. */
static void shell(fixture *f, const char *db, const char *text)
{
	const char *x = script(f, text);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s shell '%s' -x '%s'", test_avrr(),
				  db, x), 0);
}

/* The shell answers cmds (which print 12345 first) on db exactly as
 * avr-gdb does from that $1 on, avr-gdb's detach line aside; the shell's
 * output stays in f->s.out. */
static void same_as_avr_gdb(fixture *f, const char *db, const char *cmds)
{
	const char *x = script(f, cmds);
	assert_int_equal(test_run(f->gdb, sizeof f->gdb, "%s gdb '%s' -batch -x '%s'", test_avrr(),
				  db, x), 0);
	shell(f, db, cmds);
	char *g = strstr(f->gdb, "$1 = 12345\n");
	assert_non_null(g);
	char *end = strstr(g, "[Inferior 1");
	if (end)
		*end = 0;
	const char *mine = strstr(f->s.out, "$1 = 12345\n");
	assert_non_null(mine);
	assert_string_equal(mine, g);
}

/* A global defined in another unit prints wherever the current one
 * declares it extern (issue: `<optimized out>`, "Attempt to take address
 * of value not located in memory"). */
static void test_extern_globals(void **state)
{
	fixture *f = *state;
	shell(f, f->multi, "break main\ncontinue\np tank\np &tank\np millis_count\np &millis_count\n"
	      "p history\np/x history\np history.last.alarm\np buf\np buf[3]\np &buf[3]\n"
	      "whatis tank\nwhatis buf[3]\nptype history\n");
	test_assert_contains(f->s.out,
		"$1 = {level = 3 '\\003', valve = 1 '\\001', alarm = 0 '\\000'}\n"
		"$2 = (struct tank *) 0x800115 <tank>\n"
		"$3 = 0\n"
		"$4 = (volatile uint32_t *) 0x80011a <millis_count>\n"
		"$5 = {last = {level = 9 '\\t', valve = 8 '\\b', alarm = 7 '\\a'}, "
		"bytes = \"\\001\\002\\003\\004\", n = 500}\n"
		"$6 = {last = {level = 0x9, valve = 0x8, alarm = 0x7}, bytes = {0x1, 0x2, 0x3, 0x4}, "
		"n = 0x1f4}\n"
		"$7 = 7 '\\a'\n"
		"$8 = \"\\n\\v\\f\\r\\016\\017\\020\\021\"\n"
		"$9 = 13 '\\r'\n");
	test_assert_contains(f->s.out, "$10 = (uint8_t *) 0x800105 <buf+3> \"\\r\\016\\017\\020\\021");
	test_assert_contains(f->s.out,
		"type = struct tank\n"
		"type = uint8_t\n"
		"type = struct log {\n"
		"    struct tank last;\n"
		"    uint8_t bytes[4];\n"
		"    uint16_t n;\n"
		"}\n");
}

/* A variable only assembly defines: main.c's extern declaration, placed
 * by its ELF symbol as gdb places it. */
static void test_extern_without_dwarf(void **state)
{
	fixture *f = *state;
	shell(f, f->multi, "break main\ncontinue\np/x asm_counter\np &asm_counter\n"
	      "whatis asm_counter\n");
	test_assert_contains(f->s.out, "$1 = 0x1234\n"
			     "$2 = (volatile uint16_t *) 0x800118 <asm_counter>\n"
			     "type = volatile uint16_t\n");
}

/* Two statics named count: the current unit's, as gdb chooses; a global
 * mode and another unit's static mode: the global where the current unit
 * has neither, the static in its own unit. */
static void test_statics_by_scope(void **state)
{
	fixture *f = *state;
	shell(f, f->multi, "break main\nbreak clock_count\ncontinue\np count\np/x &count\n"
	      "p mode\np/x &mode\ncontinue\np count\np/x &count\np mode\np/x &mode\n");
	const char *main_at = strstr(f->s.out, "main at main.c:");
	const char *clock_at = strstr(f->s.out, "clock_count at clock.c:");
	assert_non_null(main_at);
	assert_non_null(clock_at);
	test_assert_contains(main_at, "$1 = 42 '*'\n$2 = 0x10a\n$3 = 5 '\\005'\n$4 = 0x10b\n");
	test_assert_contains(clock_at, "$5 = 7 '\\a'\n$6 = 0x101\n$7 = 9 '\\t'\n$8 = 0x100\n");
}

/* watch on a member, an element and a whole struct: the object's address
 * and size, the values in its type. */
static void test_member_watches(void **state)
{
	fixture *f = *state;
	shell(f, f->multi, "break main\ncontinue\nwatch tank.level\nwatch buf[3]\ncontinue\n"
	      "continue\n");
	test_assert_contains(f->s.out,
		"Watchpoint 2: tank.level (1 byte at 0x115)\n"
		"Watchpoint 3: buf[3] (1 byte at 0x105)\n"
		"Watchpoint 2: tank.level\nOld value = 3 '\\003'\nNew value = 4 '\\004'\n");
	test_assert_contains(f->s.out, "at tank.c:11\n");
	test_assert_contains(f->s.out,
		"Watchpoint 3: buf[3]\nOld value = 13 '\\r'\nNew value = 4 '\\004'\n");
	shell(f, f->multi, "break main\ncontinue\nwatch tank\ncontinue\n");
	test_assert_contains(f->s.out,
		"Watchpoint 2: tank (3 bytes at 0x115)\n"
		"Watchpoint 2: tank\n"
		"Old value = {level = 3 '\\003', valve = 1 '\\001', alarm = 0 '\\000'}\n"
		"New value = {level = 4 '\\004', valve = 1 '\\001', alarm = 0 '\\000'}\n");
	/* Not an object in memory: gdb's words. */
	shell(f, f->multi, "break main\ncontinue\nwatch tank.level + 1\n");
	test_assert_contains(f->s.out, "Cannot watch constant value");
}

/* C++: a class's members through its bases, whatis and ptype, as avr-gdb
 * prints them on the same recording. */
static void test_cplus_matches_avr_gdb(void **state)
{
	fixture *f = *state;
	static const char cmds[] =
		"break serialEvent\ncontinue\np 12345\np Serial._rx_buffer_head\n"
		"p Serial._rx_buffer_tail\np Serial._timeout\np Serial.write_error\n"
		"p &Serial\np sizeof(Serial)\nwhatis Serial\nwhatis &Serial\n"
		"whatis Serial._rx_buffer_head\nptype Serial._rx_buffer_head\np echoed\n"
		"ptype Serial\nptype Stream\n";
	same_as_avr_gdb(f, f->echo, cmds);
	test_assert_contains(f->s.out, "$7 = 157\ntype = HardwareSerial\n");
	test_assert_contains(f->s.out, "type = class HardwareSerial : public Stream {\n");
	test_assert_contains(f->s.out, "type = class Stream : public Print {\n");
}

/* Checks that every leaf dwarf/members.h cuts variable `var` of ELF path
 * into is where `print &VAR.PATH` says it is, with its size; returns the
 * leaves checked ("_vptr.Print", no C name, left out). */
static size_t members_agree(const char *path, const char *var, uint32_t *addr_of,
			    const char *member, uint32_t *member_addr)
{
	firmware *fw;
	dwinfo *d;
	avrr_err err;
	src_members t;
	assert_int_equal(fw_load_file(path, &fw, &err), 0);
	assert_int_equal(dwi_open(fw, &d, &err), 0);
	assert_int_equal(members_of(d, fw->path, &t, &err), 0);
	const fw_symbol *sym = fw_find_symbol(fw, var);
	assert_non_null(sym);
	*addr_of = sym->addr;
	static uint8_t data[0x900];
	mview m = { data, sizeof data, fw, NULL, 0, 0 };
	dw_mem mem = expr_mem(&m);
	dw_frame fr;
	dw_frame0(d, &mem, 0, &fr);
	xctx c = { &m, d, &fr, NULL, 0, 0 };
	size_t n, checked = 0;
	const src_member *leaf = members_in(&t, sym->addr, sym->size, &n);
	assert_true(n > 0);
	char text[300];
	uint32_t addr;
	unsigned size;
	dtype ty;
	for (size_t i = 0; i < n; i++) {
		if (strstr(leaf[i].path, "_vptr"))
			continue;
		snprintf(text, sizeof text, "%s%s", var, leaf[i].path);
		if (expr_lvalue(&c, text, &addr, &size, &ty, &err))
			fail_msg("%s: %s", text, err.msg);
		if (addr != leaf[i].addr || size != leaf[i].size)
			fail_msg("%s: print says %u bytes at 0x%x, members %u at 0x%x", text, size,
				 addr, leaf[i].size, leaf[i].addr);
		checked++;
	}
	snprintf(text, sizeof text, "%s%s", var, member);
	if (expr_lvalue(&c, text, member_addr, &size, &ty, &err))
		fail_msg("%s: %s", text, err.msg);
	members_free(&t);
	dwi_close(d);
	fw_free(fw);
	return checked;
}

/* C++ references, as arguments, a global and a struct's member, and a
 * class with a base: avr-gdb's text on the same recording, and the values
 * of tests/firmware/shellcpp/shellcpp.cpp at account()'s first call
 * (thermo's id 5, offset -3, nothing read yet; total 1000; probe's port 2;
 * avr-nm: total at 0x800103, thermo at 0x80010e). */
static void test_cplus_references(void **state)
{
	fixture *f = *state;
	static const char cmds[] =
		"break account\ncontinue\np 12345\ninfo args\np s\np sum\np s.id_\np thermo\n"
		"p probe\np total_ref\np total_ref + 1\nwhatis total_ref\nwhatis s\nptype Thermo\n"
		"p probe.t.offset\nwhatis probe.t\np &total_ref\np sizeof(s)\np *&s\nwhatis &s\n";
	same_as_avr_gdb(f, f->cpp, cmds);
	test_assert_contains(f->s.out,
		"s = @0x80010e: {_vptr.Sensor = 0x80010b <vtable for Thermo+4>, id_ = 5 '\\005', "
		"reads_ = 0}\n"
		"sum = @0x800103: 1000\n");
	test_assert_contains(f->s.out, "$3 = (volatile uint16_t &) @0x800103: 1000\n");
	test_assert_contains(f->s.out, "{t = @0x80010e, port = 2 '\\002'}\n");
	test_assert_contains(f->s.out, " = 1001\ntype = volatile uint16_t &\ntype = Sensor &\n");
}

/* The race analysis's members and the shell's print agree on every leaf:
 * one reading of the types, through C++ base classes and through DWARF 2's
 * member offsets (DW_OP_plus_uconst, which print once read as 0). */
static void test_members_agree_with_print(void **state)
{
	(void)state;
	uint32_t base, at;
	/* write_error, _timeout, _startMillis, six register pointers,
	 * _written, four indices, two 64-byte buffers. */
	assert_int_equal(members_agree(ECHO, "Serial", &base, "._timeout", &at),
			 3 + 6 + 1 + 4 + 64 + 64);
	/* Print's vtable pointer (2) and write_error (2) come first. */
	assert_int_equal(at, base + 4);
	/* struct log: last (3 bytes), bytes[4], n: 3 + 4 + 1 leaves. */
	assert_int_equal(members_agree("tests/firmware/shellmulti_dwarf2.elf", "history", &base,
				       ".n", &at), 8);
	assert_int_equal(base, 0x10c);
	assert_int_equal(at, 0x10c + 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extern_globals),
		cmocka_unit_test(test_extern_without_dwarf),
		cmocka_unit_test(test_statics_by_scope),
		cmocka_unit_test(test_member_watches),
		cmocka_unit_test(test_cplus_matches_avr_gdb),
		cmocka_unit_test(test_cplus_references),
		cmocka_unit_test(test_members_agree_with_print),
	};
	return cmocka_run_group_tests(tests, group_setup, test_fixture_teardown);
}
