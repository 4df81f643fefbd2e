/*
 * test_view.c — unit tests for shell/view.{h,c}: exact output of `info
 * registers`, `info io`, `x` (every format and unit, gdb's sticky defaults,
 * strings, disassembly), `print`, `disassemble` (including a walk that must
 * retry to stay aligned) and address expressions, over traces/adcapp.elf
 * with a data space filled by hand; and the errors, which print nothing.
 *
 * Expected text comes from outside avrr: instruction text from
 * `avr-objdump -d traces/adcapp.elf` (mnemonic and operands; objdump's own
 * "; 61" comments are not part of ours), addresses from `avr-nm -S`, and the
 * initial .data bytes from `avr-objdump -s -j .data`.
 */
#include "tests/testlib.h"

#include "shell/view.h"

#define FW_PATH "traces/adcapp.elf"
#define DATA_SIZE 0x460u /* ATmega16: registers, I/O, 1 KiB SRAM */

/* traces/adcapp.elf, from avr-nm -S: */
#define VMIN 0x60        /* uint16_t, 2 bytes, .data (initial 0xffff) */
#define EE_REC 0x78      /* uint8_t[5] */
#define SEQ 0x84         /* uint16_t */
#define TX_BUF 0x8c      /* uint8_t[128] */
#define DATA_LOAD 0x836  /* __data_load_start: .data's image in flash */
#define DATA_LEN 0x16    /* __data_load_end - __data_load_start */

typedef struct fixture {
	firmware *fw;
	uint8_t data[DATA_SIZE];
	mview m;
	char *text;          /* what the last call printed */
	size_t len;
	avrr_err err;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	avrr_err err;
	if (!f || fw_load_file(FW_PATH, &f->fw, &err))
		return -1;
	/* r0..r31 = 0, 3, 6, ...; .data as __do_copy_data leaves it (avr-objdump
	 * -s -j .data: ff ff "adcapp ready\r\n" 00 "?\r\n" 00 00). */
	for (unsigned i = 0; i < 32; i++)
		f->data[i] = (uint8_t)(3 * i);
	memcpy(f->data + VMIN, f->fw->flash + DATA_LOAD, DATA_LEN);
	f->data[0x38] = 0x70;            /* PORTB */
	f->data[0x5d] = 0x5d;            /* SPL */
	f->data[0x5e] = 0x04;            /* SPH: SP = 0x45d */
	f->data[0x5f] = 0x82;            /* SREG: I and Z */
	f->data[SEQ] = 0x11;             /* seq = 17 */
	for (unsigned i = 0; i < 5; i++)
		f->data[EE_REC + i] = (uint8_t)(i + 1);
	f->data[0x100] = SEQ;            /* a pointer to seq, inside tx_buf */
	f->m = (mview){ f->data, DATA_SIZE, f->fw, ioregs_lookup("atmega16"), 0x34a, 1000 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	fw_free(f->fw);
	free(f->text);
	free(f);
	return 0;
}

/* A stream whose text lands in f->text when closed. */
static FILE *capture(fixture *f)
{
	free(f->text);
	f->text = NULL;
	FILE *out = open_memstream(&f->text, &f->len);
	assert_non_null(out);
	memset(&f->err, 0, sizeof f->err);
	return out;
}

static void x_ok(fixture *f, view_xstate *st, const char *fmt, const char *expr,
		 const char *want)
{
	FILE *out = capture(f);
	int rc = view_examine(out, &f->m, fmt, expr, st, &f->err);
	fclose(out);
	if (rc)
		fail_msg("x%s %s: %s", fmt, expr, f->err.msg);
	assert_string_equal(f->text, want);
}

/* An error, with nothing printed and the sticky state untouched. */
static void x_fails(fixture *f, view_xstate *st, const char *fmt, const char *expr,
		    const char *msg)
{
	view_xstate before = *st;
	FILE *out = capture(f);
	int rc = view_examine(out, &f->m, fmt, expr, st, &f->err);
	fclose(out);
	assert_int_equal(rc, -1);
	assert_string_equal(f->err.msg, msg);
	assert_string_equal(f->text, "");
	assert_memory_equal(&before, st, sizeof before);
}

static void p_ok(fixture *f, const char *expr, const char *want)
{
	FILE *out = capture(f);
	int rc = view_print(out, &f->m, expr, &f->err);
	fclose(out);
	if (rc)
		fail_msg("print %s: %s", expr, f->err.msg);
	assert_string_equal(f->text, want);
}

static void p_fails(fixture *f, const char *expr, const char *msg)
{
	FILE *out = capture(f);
	int rc = view_print(out, &f->m, expr, &f->err);
	fclose(out);
	assert_int_equal(rc, -1);
	assert_string_equal(f->err.msg, msg);
	assert_string_equal(f->text, "");
}

/* ---- info registers, info io ------------------------------------------- */

static void test_registers(void **state)
{
	fixture *f = *state;
	FILE *out = capture(f);
	view_registers(out, &f->m);
	fclose(out);
	assert_non_null(strstr(f->text, "r0             0x00     0\n"
					"r1             0x03     3\n"));
	assert_non_null(strstr(f->text, "\nr24            0x48     72\n"));
	/* The tail, whole: SREG 0x82 is I (bit 7) and Z (bit 1); the pc is
	 * 4 bytes into main (0x346). */
	const char *tail =
		"r31            0x5d     93\n"
		"SREG           0x82     [ I Z ]\n"
		"SP             0x045d   0x45d\n"
		"PC             0x00034a main+0x4\n";
	size_t lt = strlen(tail);
	assert_true(f->len > lt);
	assert_string_equal(f->text + f->len - lt, tail);
	/* 32 registers + SREG + SP + PC, one per line. */
	unsigned lines = 0;
	for (const char *p = f->text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 35);

	f->data[0x5f] = 0;
	out = capture(f);
	view_registers(out, &f->m);
	fclose(out);
	assert_non_null(strstr(f->text, "\nSREG           0x00     [ ]\n"));
}

static void test_io(void **state)
{
	fixture *f = *state;
	FILE *out = capture(f);
	view_io(out, &f->m);
	fclose(out);
	/* avr-libc's iom16.h: TWBR is I/O 0x00 (data 0x20), SREG 0x3f (0x5f);
	 * UBRRH and UCSRC share 0x40. */
	const char *head = "TWBR    0x20  0x00\nTWSR    0x21  0x00\n";
	assert_memory_equal(f->text, head, strlen(head));
	assert_non_null(strstr(f->text, "\nPORTB   0x38  0x70\n"));
	assert_non_null(strstr(f->text, "\nADCSRA  0x26  0x00\n"));
	assert_non_null(strstr(f->text, "\nUBRRH   0x40  0x00\nUCSRC   0x40  0x00\n"));
	const char *tail = "SPL     0x5d  0x5d\nSPH     0x5e  0x04\nSREG    0x5f  0x82\n";
	assert_string_equal(f->text + f->len - strlen(tail), tail);
	unsigned lines = 0;
	for (const char *p = f->text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, f->m.names->nregs);

	f->m.names = NULL;
	out = capture(f);
	view_io(out, &f->m);
	fclose(out);
	assert_string_equal(f->text, "");
}

/* ---- x ------------------------------------------------------------------ */

static void test_x_bytes_and_sticky(void **state)
{
	fixture *f = *state;
	view_xstate st = { 0 };
	x_ok(f, &st, "/4xb", "0x60", "0x60 <vmin>:\t0xff\t0xff\t0x61\t0x64\n");
	/* A bare x repeats count, format and unit after the last address. */
	x_ok(f, &st, "", "", "0x64:\t0x63\t0x61\t0x70\t0x70\n");
	/* A format resets the count to 1; the unit sticks. */
	x_ok(f, &st, "/x", "", "0x68:\t0x20\n");
	/* 8 bytes per line; labels name the covering variable. */
	x_ok(f, &st, "/10xb", "ee_rec",
	     "0x78 <ee_rec>:\t0x01\t0x02\t0x03\t0x04\t0x05\t0x00\t0x00\t0x00\n"
	     "0x80 <vmax>:\t0x00\t0x00\n");
	/* The '/' may be left out; blanks around expr are ignored. */
	x_ok(f, &st, "2ub", "  seq  ", "0x84 <seq>:\t17\t0\n");
	/* Zero-initialised state: x, bytes, count 1, from data address 0. */
	view_xstate fresh = { 0 };
	x_ok(f, &fresh, "", "", "0x0:\t0x00\n");
	x_ok(f, &fresh, "", "", "0x1:\t0x03\n");
}

static void test_x_formats_and_units(void **state)
{
	fixture *f = *state;
	view_xstate st = { 0 };
	/* Little-endian halfwords: ff ff -> 0xffff = -1, 61 64 -> 0x6461. */
	x_ok(f, &st, "/2dh", "vmin", "0x60 <vmin>:\t-1\t25697\n");
	x_ok(f, &st, "/2xh", "vmin", "0x60 <vmin>:\t0xffff\t0x6461\n");
	x_ok(f, &st, "/x", "", "0x64:\t0x6163\n");         /* unit h sticks */
	x_ok(f, &st, "/2xw", "vmin", "0x60 <vmin>:\t0x6461ffff\t0x70706163\n");
	x_ok(f, &st, "/xg", "vmin", "0x60 <vmin>:\t0x707061636461ffff\n");
	x_ok(f, &st, "/5xw", "0x60",
	     "0x60 <vmin>:\t0x6461ffff\t0x70706163\t0x61657220\t0x0a0d7964\n"
	     "0x70:\t0x0a0d3f00\n");
	x_ok(f, &st, "/3xg", "0x60",
	     "0x60 <vmin>:\t0x707061636461ffff\t0x0a0d796461657220\n"
	     "0x70:\t0x000000000a0d3f00\n");
	x_ok(f, &st, "/4ub", "0x60", "0x60 <vmin>:\t255\t255\t97\t100\n");
	x_ok(f, &st, "/4db", "0x60", "0x60 <vmin>:\t-1\t-1\t97\t100\n");
	x_ok(f, &st, "/3ob", "0x60", "0x60 <vmin>:\t0377\t0377\t0141\n");
	x_ok(f, &st, "/ob", "0x70", "0x70:\t0\n");
	x_ok(f, &st, "/2tb", "0x61", "0x61 <vmin+1>:\t11111111\t01100001\n");
	x_ok(f, &st, "/th", "0x62", "0x62:\t0110010001100001\n");
	/* c takes bytes whatever the last unit; C escapes, signed values. */
	x_ok(f, &st, "/2xh", "0x60", "0x60 <vmin>:\t0xffff\t0x6461\n");
	x_ok(f, &st, "/3c", "0x62", "0x62:\t97 'a'\t100 'd'\t99 'c'\n");
	x_ok(f, &st, "/3c", "0x6e", "0x6e:\t13 '\\r'\t10 '\\n'\t0 '\\000'\n");
	x_ok(f, &st, "/c", "0x60", "0x60 <vmin>:\t-1 '\\377'\n");
	/* a: 2-byte pointers, labelled by the variable they point into. */
	x_ok(f, &st, "/a", "0x100", "0x100 <tx_buf+116>:\t0x84 <seq>\n");
	/* Code in flash, labelled by code symbols (avr-objdump: main starts
	 * cf 93 df 93 cd b7 de b7). */
	x_ok(f, &st, "/8xb", "main",
	     "0x346 <main>:\t0xcf\t0x93\t0xdf\t0x93\t0xcd\t0xb7\t0xde\t0xb7\n");
	x_ok(f, &st, "/xh", "$pc", "0x34a <main+4>:\t0xb7cd\n");
	x_ok(f, &st, "", "", "0x34c <main+6>:\t0xb7de\n");  /* stays in flash */
}

static void test_x_addresses(void **state)
{
	fixture *f = *state;
	view_xstate st = { 0 };
	x_ok(f, &st, "/xb", "PORTB", "0x38:\t0x70\n");
	x_ok(f, &st, "/xb", "&seq", "0x84 <seq>:\t0x11\n");
	x_ok(f, &st, "/xb", "seq+1", "0x85 <seq+1>:\t0x00\n");
	x_ok(f, &st, "/xb", "ee_rec + 0x2", "0x7a <ee_rec+2>:\t0x03\n");
	x_ok(f, &st, "/xb", "0x800084", "0x84 <seq>:\t0x11\n");  /* avr-gcc's data address */
	x_ok(f, &st, "/xb", "132", "0x84 <seq>:\t0x11\n");
	x_ok(f, &st, "/2xb", "$sp", "0x45d:\t0x00\t0x00\n");
	x_ok(f, &st, "/xb", "$sp+2", "0x45f:\t0x00\n");
}

static void test_x_strings(void **state)
{
	fixture *f = *state;
	view_xstate st = { 0 };
	/* .data after vmin: "adcapp ready\r\n" then "?\r\n" (send_line's). */
	x_ok(f, &st, "/s", "0x62", "0x62:\t\"adcapp ready\\r\\n\"\n");
	x_ok(f, &st, "", "", "0x71:\t\"?\\r\\n\"\n");
	x_ok(f, &st, "/2s", "0x62", "0x62:\t\"adcapp ready\\r\\n\"\n0x71:\t\"?\\r\\n\"\n");
	/* After a string, x continues with bytes. */
	x_ok(f, &st, "/x", "", "0x75:\t0x00\n");
	/* The same string in flash, in .data's load image after _etext (a
	 * bare number would be a data address). */
	x_ok(f, &st, "/s", "_etext+2", "0x838 <_etext+2>:\t\"adcapp ready\\r\\n\"\n");
	/* A quote and a non-printable byte. */
	f->data[0x200] = '"';
	f->data[0x201] = 0x1b;
	f->data[0x202] = 'A';
	x_ok(f, &st, "/s", "0x200", "0x200:\t\"\\\"\\033A\"\n");
	/* Longer than 200 characters: cut with "..." after the quote (as gdb
	 * does); the next x goes on from there. */
	memset(f->data + 0x300, 'z', 0x100);
	char want[512];
	snprintf(want, sizeof want, "0x300:\t\"%.200s\"...\n", f->data + 0x300);
	x_ok(f, &st, "/s", "0x300", want);
	snprintf(want, sizeof want, "0x3c8:\t\"%.56s\"\n", f->data + 0x300);
	x_ok(f, &st, "", "", want);
}

static void test_x_instructions(void **state)
{
	fixture *f = *state;
	view_xstate st = { 0 };
	/* avr-objdump -d: 346 push r28; 348 push r29; 34a in r28, 0x3d. */
	x_ok(f, &st, "/3i", "main",
	     "   0x346 <main>:\tpush\tr28\n"
	     "   0x348 <main+2>:\tpush\tr29\n"
	     "=> 0x34a <main+4>:\tin\tr28, 0x3d\n");
	/* 34c in r29, 0x3e; 34e subi r28, 0x41; 350 sbc r29, r1. */
	x_ok(f, &st, "", "",
	     "   0x34c <main+6>:\tin\tr29, 0x3e\n"
	     "   0x34e <main+8>:\tsubi\tr28, 0x41\n"
	     "   0x350 <main+10>:\tsbc\tr29, r1\n");
	/* A bare number is a flash address for i.  376 call 0x7e2
	 * <eeprom_read_word> (2 words); 37a cpi r24, 0xC3; 37c sbci r25, 0xA5;
	 * 37e breq .+22 ; 0x396 <main+0x50>. */
	x_ok(f, &st, "/4i", "0x376",
	     "   0x376 <main+48>:\tcall\t0x7e2\t; 0x7e2 <eeprom_read_word>\n"
	     "   0x37a <main+52>:\tcpi\tr24, 0xC3\n"
	     "   0x37c <main+54>:\tsbci\tr25, 0xA5\n"
	     "   0x37e <main+56>:\tbreq\t.+22\t; 0x396 <main+80>\n");
	x_ok(f, &st, "/i", "$pc", "=> 0x34a <main+4>:\tin\tr28, 0x3d\n");
	/* 4: jmp 0x8e ; 0x8e <__bad_interrupt> (the vector table). */
	x_ok(f, &st, "/i", "4", "   0x4 <__vectors+4>:\tjmp\t0x8e\t; 0x8e <__bad_interrupt>\n");
	/* x/i then x/x: the unit from before x/i still applies. */
	x_ok(f, &st, "/xh", "vmin", "0x60 <vmin>:\t0xffff\n");
	x_ok(f, &st, "/i", "main", "   0x346 <main>:\tpush\tr28\n");
	x_ok(f, &st, "/x", "", "0x348 <main+2>:\t0x93df\n");
}

static void test_x_errors(void **state)
{
	fixture *f = *state;
	view_xstate st = { 0 };
	x_ok(f, &st, "/4xb", "0x60", "0x60 <vmin>:\t0xff\t0xff\t0x61\t0x64\n");
	x_fails(f, &st, "/q", "0x60", "bad format 'q'");
	x_fails(f, &st, "/4xbz", "0x60", "bad format 'z'");
	x_fails(f, &st, "/4xb", "foo", "no symbol \"foo\" in the firmware");
	x_fails(f, &st, "/4xb", "&foo", "no symbol \"foo\" in the firmware");
	x_fails(f, &st, "/4xb", "0x9999", "cannot access address 0x9999");
	x_fails(f, &st, "/4xb", "0x12zz", "bad address \"0x12zz\"");
	x_fails(f, &st, "/4xb", "vmin+q", "bad offset \"q\" in \"vmin+q\"");
	x_fails(f, &st, "/4xb", "vmin-0x1000000",
		"bad offset \"0x1000000\" in \"vmin-0x1000000\"");
	/* The last byte of data space is 0x45f: a run past it fails whole. */
	x_fails(f, &st, "/4xb", "0x45e", "cannot access address 0x460");
	x_fails(f, &st, "/2xg", "0x458", "cannot access address 0x460");
	x_fails(f, &st, "/xb", "vmin-0x100", "cannot access address -0xa0");
	/* Flash ends after .data's load image: 0x836 + 0x16 = 0x84c. */
	x_fails(f, &st, "/4xb", "_etext+20", "cannot access address 0x84c");
	x_fails(f, &st, "/i", "0x347", "cannot disassemble at odd address 0x347");
	x_fails(f, &st, "/3i", "0x84a", "cannot access address 0x84c");
	/* Still continuing after the last good x. */
	x_ok(f, &st, "", "", "0x64:\t0x63\t0x61\t0x70\t0x70\n");
}

static void test_address(void **state)
{
	fixture *f = *state;
	const mview *m = &f->m;
	uint32_t a = 0;
	int code = -1;
	avrr_err err;
	assert_int_equal(view_address(m, "main", 0, &a, &code, &err), 0);
	assert_int_equal(a, 0x346);
	assert_int_equal(code, 1);
	assert_int_equal(view_address(m, "main+4", 0, &a, &code, &err), 0);
	assert_int_equal(a, 0x34a);
	assert_int_equal(view_address(m, "vmin", 1, &a, &code, &err), 0);
	assert_int_equal(a, VMIN);
	assert_int_equal(code, 0);
	assert_int_equal(view_address(m, "0x60", 0, &a, &code, &err), 0);
	assert_int_equal(code, 0);
	assert_int_equal(view_address(m, "0x60", 1, &a, &code, &err), 0);
	assert_int_equal(a, 0x60);
	assert_int_equal(code, 1);
	assert_int_equal(view_address(m, "0x800060", 1, &a, &code, &err), 0);
	assert_int_equal(code, 0);
	assert_int_equal(view_address(m, "$pc", 0, &a, &code, &err), 0);
	assert_int_equal(a, 0x34a);
	assert_int_equal(code, 1);
	assert_int_equal(view_address(m, "$sp", 1, &a, &code, &err), 0);
	assert_int_equal(a, 0x45d);
	assert_int_equal(code, 0);
	assert_int_equal(view_address(m, "SREG", 1, &a, &code, &err), 0);
	assert_int_equal(a, 0x5f);
	assert_int_equal(code, 0);
	assert_int_equal(view_address(m, "", 0, &a, &code, &err), -1);
	assert_string_equal(err.msg, "missing address");
	assert_int_equal(view_address(m, "0x4000", 1, &a, &code, &err), -1);
	assert_string_equal(err.msg, "cannot access address 0x4000");
}

/* ---- print -------------------------------------------------------------- */

static void test_print(void **state)
{
	fixture *f = *state;
	p_ok(f, "vmin", "vmin = 65535 (0xffff)\n");
	p_ok(f, "seq", "seq = 17 (0x0011)\n");
	p_ok(f, " ee_head ", "ee_head = 0 (0x00)\n");
	p_ok(f, "ee_rec", "ee_rec = {0x01, 0x02, 0x03, 0x04, 0x05}\n");
	p_ok(f, "r3", "r3 = 9 (0x09)\n");
	p_ok(f, "$r31", "$r31 = 93 (0x5d)\n");
	p_ok(f, "PORTB", "PORTB = 112 (0x70)\n");
	p_ok(f, "$pc", "$pc = 0x34a <main+4>\n");
	p_ok(f, "$sp", "$sp = 1117 (0x045d)\n");
	p_ok(f, "$sreg", "$sreg = 130 (0x82) [ I Z ]\n");
	p_ok(f, "main", "main = 0x346 <main>\n");
	/* 128 bytes: all shown (gdb's limit is 200). */
	FILE *out = capture(f);
	assert_int_equal(view_print(out, &f->m, "tx_buf", &f->err), 0);
	fclose(out);
	assert_int_equal(f->len, strlen("tx_buf = {}\n") + 4 * 128 + 2 * 127);
	assert_non_null(strstr(f->text, "0x00, 0x84, 0x00")); /* 0x100 = tx_buf[116] */

	p_fails(f, "foo", "no symbol \"foo\" in the firmware");
	p_fails(f, "r32", "no symbol \"r32\" in the firmware");
	p_fails(f, "", "missing expression");
}

/* ---- disassemble -------------------------------------------------------- */

static void test_disassemble(void **state)
{
	fixture *f = *state;
	FILE *out = capture(f);
	view_disassemble(out, &f->m, 2, 2);
	fclose(out);
	assert_string_equal(f->text,
		"Dump of assembler code around pc 0x34a (main+0x4):\n"
		"   0x346 <main>:\tpush\tr28\n"
		"   0x348 <main+2>:\tpush\tr29\n"
		"=> 0x34a <main+4>:\tin\tr28, 0x3d\n"
		"   0x34c <main+6>:\tin\tr29, 0x3e\n"
		"   0x34e <main+8>:\tsubi\tr28, 0x41\n"
		"End of assembler dump.\n");

	/* avr-objdump: 398 ldi r25, 0x00; 39a call 0x7d2 <eeprom_read_byte>;
	 * 39e cpi r24, 0x60; 3a0 brcc .+6 ; 0x3a8; 3a2 sts 0x007D, r24;
	 * 3a6 rjmp .+4 ; 0x3ac. */
	f->m.pc = 0x3a2;
	out = capture(f);
	view_disassemble(out, &f->m, 4, 1);
	fclose(out);
	assert_string_equal(f->text,
		"Dump of assembler code around pc 0x3a2 (main+0x5c):\n"
		"   0x398 <main+82>:\tldi\tr25, 0x00\n"
		"   0x39a <main+84>:\tcall\t0x7d2\t; 0x7d2 <eeprom_read_byte>\n"
		"   0x39e <main+88>:\tcpi\tr24, 0x60\n"
		"   0x3a0 <main+90>:\tbrcc\t.+6\t; 0x3a8 <main+98>\n"
		"=> 0x3a2 <main+92>:\tsts\t0x007D, r24\n"
		"   0x3a6 <main+96>:\trjmp\t.+4\t; 0x3ac <main+102>\n"
		"End of assembler dump.\n");

	/* No instructions before or after: just the pc's. */
	f->m.pc = 0x346;
	out = capture(f);
	view_disassemble(out, &f->m, 0, 0);
	fclose(out);
	assert_string_equal(f->text,
		"Dump of assembler code around pc 0x346 (main):\n"
		"=> 0x346 <main>:\tpush\tr28\n"
		"End of assembler dump.\n");
}

/* Without symbols, decoding starts a little before the pc; where that start
 * runs over the pc (through a 2-word jmp), the walk starts one word later. */
static void test_disassemble_alignment(void **state)
{
	(void)state;
	/* 0: jmp (0x940c, 0x940c) 4: jmp (0x940c, 0x0000)... read from 0 it
	 * steps over 6; read from 2 the jmp at 2 covers 2-5 and 6 is a nop. */
	static uint8_t flash[] = { 0x0c, 0x94, 0x0c, 0x94, 0x0c, 0x94, 0x00, 0x00,
				   0x08, 0x95 };
	firmware fw = { 0 };
	fw.path = "synthetic";
	fw.flash = flash;
	fw.flash_size = sizeof flash;
	fw.code_end = sizeof flash;
	uint8_t data[0x60] = { 0 };
	mview m = { data, sizeof data, &fw, NULL, 6, 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	view_disassemble(out, &m, 2, 1);
	fclose(out);
	/* jmp's target is its second word times 2: 0x940c * 2 = 0x12818. */
	assert_string_equal(text,
		"Dump of assembler code around pc 0x6 (0x0006):\n"
		"   0x2:\tjmp\t0x12818\t; 0x12818\n"
		"=> 0x6:\tnop\n"
		"   0x8:\tret\n"
		"End of assembler dump.\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_bytes_and_sticky, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_formats_and_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_instructions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disassemble, setup, teardown),
		cmocka_unit_test(test_disassemble_alignment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
