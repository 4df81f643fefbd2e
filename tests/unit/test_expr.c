/*
 * test_expr.c — unit tests for shell/expr.{h,c} and dwarf/debuginfo.{h,c}: the
 * expression parser (precedence, promotions, casts, postfix chains), gdb's
 * value shapes, arguments in registers and implicit values at a pc, and
 * the errors (one line, with the column for syntax), over
 * tests/firmware/sensors.elf with a data space filled by hand.
 *
 * Addresses from avr-nm -S tests/firmware/sensors.elf; struct sensor's
 * layout from its declaration (id @0, last @1, offset @3, samples @5);
 * expected numbers are C's arithmetic at AVR's sizes (int: 2 bytes).
 */
#include "tests/testlib.h"

#include "shell/expr.h"

#define FW_PATH "tests/firmware/sensors.elf"
#define DATA_SIZE 0x900u   /* ATmega328P: registers, I/O, 2 KiB SRAM */
#define A_CURRENT 0x100
#define A_SENSORS 0x102
#define A_PRESSES 0x114
#define A_LINE 0x115
#define A_HISTORY 0x12d
#define A_UPTIME 0x135

typedef struct fixture {
	firmware *fw;
	dwinfo *dw;
	uint8_t data[DATA_SIZE];
	mview m;
	dw_frame f;
	xctx c;
	char out[1024];
	avrr_err err;
} fixture;

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	avrr_err err;
	if (!f || fw_load_file(FW_PATH, &f->fw, &err) || dwi_open(f->fw, &f->dw, &err))
		return -1;
	static const struct { uint8_t id; unsigned last; int offset; uint8_t samples; } S[] = {
		{ 10, 1234, -3, 5 }, { 20, 719, 5, 200 }, { 30, 0xffff, 0, 0 },
	};
	for (unsigned i = 0; i < 3; i++) {
		uint8_t *s = f->data + A_SENSORS + 6 * i;
		s[0] = S[i].id;
		put16(s + 1, S[i].last);
		put16(s + 3, (unsigned)S[i].offset & 0xffff);
		s[5] = S[i].samples;
	}
	put16(f->data + A_CURRENT, A_SENSORS + 6);         /* &sensors[1] */
	f->data[A_PRESSES] = 7;
	memcpy(f->data + A_LINE, "S2=719\n", 7);
	for (unsigned i = 0; i < 4; i++)
		put16(f->data + A_HISTORY + 2 * i, 100 * (i + 1));
	put16(f->data + A_UPTIME, 0x5678);
	put16(f->data + A_UPTIME + 2, 0x1234);             /* uptime = 0x12345678 */
	f->data[0x5d] = 0xf6;                               /* SP = 0x8f6 */
	f->data[0x5e] = 0x08;
	f->m = (mview){ f->data, DATA_SIZE, f->fw, ioregs_lookup("atmega328p"), 0, 0 };
	{ dw_mem mem = expr_mem(&f->m); dw_frame0(f->dw, &mem, f->m.pc, &f->f); }
	f->c = (xctx){ .m = &f->m, .d = f->dw, .f = &f->f };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	dwi_close(f->dw);
	fw_free(f->fw);
	free(f);
	return 0;
}

/* "/FMT EXPR" as print takes it; the value's text, or "ERR: message". */
static const char *print(fixture *f, const char *args)
{
	char fmt;
	const char *expr;
	xval v;
	if (expr_format(args, &fmt, &expr, &f->err) || expr_eval(&f->c, expr, &v, &f->err)) {
		snprintf(f->out, sizeof f->out, "ERR: %s", f->err.msg);
		return f->out;
	}
	FILE *out = fmemopen(f->out, sizeof f->out, "w");
	assert_non_null(out);
	int rc = expr_print(out, &f->c, &v, fmt, 1, &f->err);
	fclose(out);
	if (rc)
		snprintf(f->out, sizeof f->out, "ERR: %s", f->err.msg);
	return f->out;
}

static void test_arithmetic(void **state)
{
	fixture *f = *state;
	static const char *const T[][2] = {
		{ "1 + 2 * 3", "7" },
		{ "(1 + 2) * 3", "9" },
		{ "7 / 2", "3" },
		{ "-7 / 2", "-3" },
		{ "-7 % 3", "-1" },
		{ "1 << 4 | 1", "17" },
		{ "0x100 >> 4", "16" },
		{ "5 & 3 ^ 8", "9" },               /* & binds tighter than ^ */
		{ "1 < 2 == 1", "1" },
		{ "3 > 4 || 2 >= 2 && !0", "1" },
		{ "~0", "-1" },
		{ "-1 < 1", "1" },
		{ "32767 + 1", "-32768" },          /* int is 16 bits */
		{ "32768", "32768" },               /* ... so this is a long */
		{ "uptime", "305419896" },
		{ "uptime + 1", "305419897" },
		{ "-uptime", "3989547400" },        /* unsigned long */
		{ "uptime - uptime - 1 < 0", "0" },
		{ "presses * 1000", "7000" },       /* uint8_t promotes to int */
		{ "presses - 8", "-1" },
		{ "history[1] + 1", "201" },
		{ "history[3] / history[0]", "4" },
		{ "sensors[0].offset * 3", "-9" },
		{ "sensors[1].last % 7 == 719 % 7", "1" },
		{ "'A' + 1", "66" },
		{ "sizeof(sensors)", "18" },
		{ "sizeof sensors[0]", "6" },
		{ "sizeof(struct sensor)", "6" },
		{ "current - &sensors[0]", "1" },
		{ "*(current + 1)", "{id = 30 '\\036', last = 65535, offset = 0, samples = 0 '\\000'}" },
	};
	for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
		const char *got = print(f, T[i][0]);
		if (strcmp(got, T[i][1]))
			fail_msg("p %s: got \"%s\", want \"%s\"", T[i][0], got, T[i][1]);
	}
}

static void test_shapes_and_formats(void **state)
{
	fixture *f = *state;
	static const char *const T[][2] = {
		{ "/x uptime", "0x12345678" },
		{ "/d sensors[0].offset", "-3" },
		{ "/u sensors[0].offset", "65533" },
		{ "/x sensors[0].offset", "0xfffd" },
		{ "/o 8", "010" },
		{ "/t 10", "1010" },
		{ "/t 0", "0" },
		{ "/c 65", "65 'A'" },
		{ "/x presses", "0x7" },
		{ "/d presses", "7" },
		{ "sensors[0]", "{id = 10 '\\n', last = 1234, offset = -3, samples = 5 '\\005'}" },
		{ "sensors[1].samples", "200 '\\310'" },
		{ "/x sensors[1]", "{id = 0x14, last = 0x2cf, offset = 0x5, samples = 0xc8}" },
		{ "history", "{100, 200, 300, 400}" },
		{ "/x history", "{0x64, 0xc8, 0x12c, 0x190}" },
		{ "line", "\"S2=719\\n\", '\\000' <repeats 16 times>" },
		{ "line[1]", "50 '2'" },
		{ "&line", "(char (*)[24]) 0x800115 <line>" },
		{ "&line[3]", "0x800118 <line+3> \"719\\n\"" },
		{ "&uptime", "(volatile uint32_t *) 0x800135 <uptime>" },
		{ "current", "(struct sensor * volatile) 0x800108 <sensors+6>" },
		{ "*current", "{id = 20 '\\024', last = 719, offset = 5, samples = 200 '\\310'}" },
		{ "current->last", "719" },
		{ "(*current).offset", "5" },
		{ "&sensors[2]", "(struct sensor *) 0x80010e <sensors+12>" },
		{ "&sensors[2].last", "(uint16_t *) 0x80010f <sensors+13>" },
		{ "*(uint16_t *)0x12f", "200" },
		{ "*(uint16_t *)0x80012f", "200" },
		{ "(char)65", "65 'A'" },
		{ "(unsigned char)-1", "255 '\\377'" },
		{ "(uint8_t)300", "44 ','" },
		{ "(int16_t)sensors[2].last", "-1" },
		{ "$r0", "0" },
		{ "$sp", "2294" },
		{ "$pc", "(void (*)()) 0x0 <__vectors>" },
	};
	for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
		const char *got = print(f, T[i][0]);
		if (strcmp(got, T[i][1]))
			fail_msg("p%s%s: got \"%s\", want \"%s\"", T[i][0][0] == '/' ? "" : " ", T[i][0],
				 got, T[i][1]);
	}
}

/* format_line's arguments at its first instruction: id in r24, value in
 * r22:r23, buf a constant (DW_OP_addr; DW_OP_stack_value), n with no
 * location there (its list starts at 0xbe). */
static void test_arguments_in_registers(void **state)
{
	fixture *f = *state;
	f->m.pc = 0xa6;
	f->data[24] = 20;
	f->data[22] = 0xcf;
	f->data[23] = 0x02;
	{ dw_mem mem = expr_mem(&f->m); dw_frame0(f->dw, &mem, f->m.pc, &f->f); }
	assert_string_equal(print(f, "id"), "20 '\\024'");
	assert_string_equal(print(f, "value"), "719");
	assert_string_equal(print(f, "value + id"), "739");
	assert_string_equal(print(f, "buf"), "0x800115 <line> \"S2=719\\n\"");
	assert_string_equal(print(f, "buf[2]"), "61 '='");
	assert_string_equal(print(f, "n"), "<optimized out>");
	assert_string_equal(print(f, "n + 1"), "ERR: value has been optimized out");
	/* A global the function does not shadow is still seen. */
	assert_string_equal(print(f, "presses"), "7 '\\a'");
	f->m.pc = 0;
	{ dw_mem mem = expr_mem(&f->m); dw_frame0(f->dw, &mem, f->m.pc, &f->f); }
	assert_string_equal(print(f, "value"), "ERR: No symbol \"value\" in current context.");
}

static void test_errors(void **state)
{
	fixture *f = *state;
	static const char *const T[][2] = {
		{ "sensors[", "A syntax error in expression at column 9, near `'." },
		{ "sensors[1]x", "A syntax error in expression at column 11, near `x'." },
		{ "1 +", "A syntax error in expression at column 4, near `'." },
		{ "(1 + 2", "A syntax error in expression at column 7, near `'." },
		{ "1 + )", "A syntax error in expression at column 5, near `)'." },
		{ "nosuch", "No symbol \"nosuch\" in current context." },
		{ "sensors[0].nope", "There is no member named nope." },
		{ "uptime.id", "Attempt to extract a component of a value that is not a structure." },
		{ "*presses", "Attempt to take contents of a non-pointer value." },
		{ "uptime / 0", "Division by zero" },
		{ "&(uptime + 1)", "Attempt to take address of value not located in memory." },
		{ "$r32", "No register \"$r32\"." },
		{ "12abc", "Invalid number \"12abc\"." },
		{ "/q uptime", "Undefined output format \"q\"." },
		{ "/xx uptime", "Undefined output format \"xx\"." },
		{ "", "Argument required (expression to compute)." },
		{ "*(uint16_t *)0x8fff", "Cannot access memory at address 0x808fff" },
	};
	for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
		const char *got = print(f, T[i][0]);
		if (strncmp(got, "ERR: ", 5) || strcmp(got + 5, T[i][1]))
			fail_msg("p %s: got \"%s\", want the error \"%s\"", T[i][0], got, T[i][1]);
	}
}

/* The value history keeps what was printed, not where it was. */
static void test_history(void **state)
{
	fixture *f = *state;
	xhist h[4];
	memset(h, 0, sizeof h);
	f->c.hist = h;
	f->c.nhist = 4;
	assert_string_equal(print(f, "$"), "ERR: History is empty.");
	static const char *const kept[] = { "uptime", "sensors[1]", "line", "presses" };
	for (unsigned i = 0; i < 4; i++) {
		xval v;
		assert_int_equal(expr_eval(&f->c, kept[i], &v, &f->err), 0);
		expr_keep(&f->c, &v, i + 1, &h[(i + 1) % 4]);
		f->c.hist_last = i + 1;
	}
	memset(f->data + A_SENSORS, 0xee, 18);    /* the machine moves on */
	f->data[A_UPTIME] = 0;
	static const char *const T[][2] = {
		{ "$", "7 '\\a'" },
		{ "$1", "305419896" },
		{ "$$3 + 1", "305419897" },
		{ "$$", "ERR: $3 is larger than the 16 bytes the shell keeps of a value" },
		{ "$2", "{id = 20 '\\024', last = 719, offset = 5, samples = 200 '\\310'}" },
		{ "$2.last", "719" },
		{ "$5", "ERR: History has not yet reached $5." },
	};
	for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
		const char *got = print(f, T[i][0]);
		if (strcmp(got, T[i][1]))
			fail_msg("p %s: got \"%s\", want \"%s\"", T[i][0], got, T[i][1]);
	}
	expr_keep(&f->c, &(xval){ .t = dt_int(2, 1) }, 5, &h[5 % 4]);  /* pushes $1 out */
	f->c.hist_last = 5;
	assert_string_equal(print(f, "$1"), "ERR: $1 is no longer kept (the shell keeps the last 4 values)");
}

/* An ELF without DWARF types: every expression fails in one line. */
static void test_no_types(void **state)
{
	(void)state;
	firmware *fw;
	dwinfo *dw;
	avrr_err err;
	assert_int_equal(fw_load_file("tests/firmware/funcsheap_stabs.elf", &fw, &err), 0);
	assert_int_equal(dwi_open(fw, &dw, &err), 0);
	assert_false(dwi_has_types(dw));
	uint8_t data[0x460] = { 0 };
	mview m = { data, sizeof data, fw, NULL, 0, 0 };
	dw_frame fr;
	{ dw_mem mem = expr_mem(&m); dw_frame0(dw, &mem, m.pc, &fr); }
	xctx c = { .m = &m, .d = dw, .f = &fr };
	xval v;
	assert_int_equal(expr_eval(&c, "g_led + 1", &v, &err), -1);
	assert_string_equal(err.msg, "no DWARF type information in the firmware (stabs or none); "
			    "typed expressions need a build with -gdwarf-4");
	dwi_close(dw);
	fw_free(fw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_arithmetic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shapes_and_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arguments_in_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test(test_no_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
