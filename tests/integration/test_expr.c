/*
 * test_expr.c — the shell's typed expressions, frames, locals, list and
 * display on tests/firmware/sensors.elf (DWARF 4), at the fifth call of
 * format_line in a recording of it.
 *
 * The expected text never comes from the shell's own printing:
 *  - values are decoded here from the raw bytes `x/..xb` dumps in the same
 *    session, with struct sensor's layout (id @0, last @1, offset @3,
 *    samples @5, 6 bytes) and the addresses avr-nm -S gives;
 *  - arguments, locals and the caller's frame are compared with stock
 *    avr-gdb's output on the same recording (`avrr gdb -batch`), past two
 *    known differences in the frame line (gdb's path as compiled, and its
 *    entry values "slot=slot@entry=5");
 *  - source lines are read here from tests/firmware/sensors.c;
 *    format_line starts at line 71, report's call is at line 91
 *    (avr-addr2line -e tests/firmware/sensors.elf 0xa6 0x152), the call
 *    returns to 0x154 (avr-objdump -d: `call 0xa6` at 0x150).
 */
#include "tests/testlib.h"

#include <ctype.h>

#define FW "tests/firmware/sensors.elf"
#define SRC "tests/firmware/sensors.c"

/* avr-nm -S tests/firmware/sensors.elf (data addresses less 0x800000). */
#define A_CURRENT 0x100
#define A_SENSORS 0x102
#define A_PRESSES 0x114
#define A_LINE 0x115
#define A_HISTORY 0x12d
#define A_UPTIME 0x135
#define SENSOR_SIZE 6

typedef struct fixture {
	test_scratch s;
	char db[256];
	char gdb[65536];
} fixture;

static int group_setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!f)
		return -1;
	if (test_try_record(&f->s, f->db, sizeof f->db, "sensors.db", FW " --stimuli "
			    "tests/firmware/sensors.stim --instructions 2M")) {
		fprintf(stderr, "%s", f->s.out);
		test_fixture_free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* Commands that reach the fifth call of format_line. */
#define TO_FIFTH_CALL "break format_line\ncontinue\ncontinue\ncontinue\ncontinue\ncontinue\n"

static const char *script(fixture *f, const char *name, const char *text)
{
	static char path[300];
	snprintf(path, sizeof path, "%s/%s", f->s.dir, name);
	test_write_text(path, text);
	return path;
}

/* The shell's output for `text`, into f->s.out. */
static void shell(fixture *f, const char *text)
{
	const char *x = script(f, "cmds.shell", text);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s shell '%s' -x '%s'", test_avrr(),
				  f->db, x), 0);
}

/* What follows `marker` in text (the test fails without it). */
static const char *after(const char *text, const char *marker)
{
	const char *p = strstr(text, marker);
	if (!p)
		fail_msg("no \"%s\" in:\n%s", marker, text);
	return p + strlen(marker);
}

/* Reads the bytes of an x/NNxb dump that starts at `text` ("0x102
 * <sensors>:\t0x0a\t..." lines) into b, checking its first address.
 * Returns where the dump ends. */
static const char *dump(const char *text, unsigned addr, uint8_t *b, unsigned n)
{
	unsigned got = 0, a;
	const char *p = text;
	while (got < n) {
		if (sscanf(p, "0x%x", &a) != 1)
			fail_msg("not a dump line: %.60s", p);
		if (!got)
			assert_int_equal(a, addr);
		p = strchr(p, ':') + 1;
		while (*p == '\t') {
			unsigned v;
			assert_int_equal(sscanf(p + 1, "0x%x", &v), 1);
			b[got++] = (uint8_t)v;
			p += 5;
		}
		assert_int_equal(*p, '\n');
		p++;
	}
	return p;
}

/* gdb's char: 30 '\036', 83 'S', 10 '\n'. */
static const char *gdb_char(unsigned v, int is_signed, char *buf, size_t n)
{
	int shown = is_signed && v >= 128 ? (int)v - 256 : (int)v;
	if (v == '\n')
		snprintf(buf, n, "%d '\\n'", shown);
	else if (isprint((int)v) && v != '\\' && v != '\'')
		snprintf(buf, n, "%d '%c'", shown, (char)v);
	else
		snprintf(buf, n, "%d '\\%03o'", shown, v);
	return buf;
}

static unsigned u16(const uint8_t *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

/* A struct sensor as gdb prints it, from its 6 bytes. */
static void sensor_text(const uint8_t *s, char *buf, size_t n)
{
	char id[32], samples[32];
	snprintf(buf, n, "{id = %s, last = %u, offset = %d, samples = %s}",
		 gdb_char(s[0], 0, id, sizeof id), u16(s + 1), (int16_t)u16(s + 3),
		 gdb_char(s[5], 0, samples, sizeof samples));
}

/* Lines [from, to] of the firmware's source as list prints them. */
static void source_lines(unsigned from, unsigned to, char *buf, size_t n)
{
	FILE *src = fopen(SRC, "r");
	assert_non_null(src);
	char line[512];
	size_t len = 0;
	buf[0] = 0;
	for (unsigned k = 1; fgets(line, sizeof line, src) && k <= to; k++)
		if (k >= from)
			len += (size_t)snprintf(buf + len, n - len, "%u\t%s", k, line);
	fclose(src);
}

/* print, on the raw memory: the values decoded here from x dumps. */
static void test_print_matches_memory(void **state)
{
	fixture *f = *state;
	shell(f, TO_FIFTH_CALL
	      "echo ==memory\n"
	      "x/4xb &uptime\nx/18xb &sensors\nx/2xb &current\nx/8xb &history\n"
	      "x/24xb &line\nx/2xb 0x100\n"
	      "echo ==print\n"
	      "p/x uptime\np sensors[2]\np sensors[1].offset\np *current\np current->id\n"
	      "p history[1] + 1\np current\np line\np/x sensors[0].offset\n"
	      "p sensors[0].last * 2 - 1\np (char)sensors[2].last\np *(uint16_t *)0x100\n"
	      "p/d history\np/t presses\np (uptime + 6) / 4 % 5 == 2 || presses << 2 > 9\n");
	uint8_t up[4], sens[18], cur[2], hist[8], line[24], w100[2];
	const char *p = after(f->s.out, "==memory\n");
	p = dump(p, A_UPTIME, up, 4);
	p = dump(p, A_SENSORS, sens, 18);
	p = dump(p, A_CURRENT, cur, 2);
	p = dump(p, A_HISTORY, hist, 8);
	p = dump(p, A_LINE, line, 24);
	dump(p, 0x100, w100, 2);

	unsigned uptime = up[0] | up[1] << 8 | up[2] << 16 | (unsigned)up[3] << 24;
	unsigned current = u16(cur);
	assert_true(current >= A_SENSORS && (current - A_SENSORS) % SENSOR_SIZE == 0);
	const uint8_t *cs = sens + (current - A_SENSORS);
	/* The state must be one worth printing: a string, samples taken. */
	size_t len = strnlen((const char *)line, sizeof line);
	assert_true(len > 2 && len < sizeof line - 12);
	assert_true(sens[2 * SENSOR_SIZE + 5] > 0);

	char expect[8192], s2[128], sc[128], id[32], ch[32], text[64] = "";
	for (size_t i = 0, k = 0; i < len; i++)
		k += (size_t)snprintf(text + k, sizeof text - k, line[i] == '\n' ? "\\n" : "%c", line[i]);
	sensor_text(sens + 2 * SENSOR_SIZE, s2, sizeof s2);
	sensor_text(cs, sc, sizeof sc);
	snprintf(expect, sizeof expect,
		"$1 = 0x%x\n$2 = %s\n$3 = %d\n$4 = %s\n$5 = %s\n$6 = %u\n"
		"$7 = (struct sensor * volatile) 0x%x <sensors+%u>\n"
		"$8 = \"%s\", '\\000' <repeats %zu times>\n"
		"$9 = 0x%x\n$10 = %d\n$11 = %s\n$12 = %u\n"
		"$13 = {%u, %u, %u, %u}\n",
		uptime, s2, (int16_t)u16(sens + SENSOR_SIZE + 3), sc, gdb_char(cs[0], 0, id, sizeof id),
		u16(hist + 2) + 1, 0x800000 + current, current - A_SENSORS, text,
		sizeof line - len - 1, u16(sens + 3), (int)u16(sens + 1) * 2 - 1,
		gdb_char(sens[2 * SENSOR_SIZE + 1], 1, ch, sizeof ch), u16(w100), u16(hist),
		u16(hist + 2), u16(hist + 4), u16(hist + 6));
	const char *printed = after(f->s.out, "==print\n");
	/* The last two need presses: compare up to them, then decode. */
	assert_memory_equal(printed, expect, strlen(expect));
	const char *rest = printed + strlen(expect);
	unsigned pr;
	char bits[16];
	assert_int_equal(sscanf(rest, "$14 = %15[01]\n", bits), 1);
	pr = (unsigned)strtoul(bits, NULL, 2);
	shell(f, TO_FIFTH_CALL "x/1xb &presses\n");
	uint8_t pb;
	dump(strstr(f->s.out, "0x114 <presses>:"), A_PRESSES, &pb, 1);
	assert_int_equal(pr, pb);
	int truth = ((uptime + 6) / 4 % 5 == 2) || ((pb << 2) > 9);
	char tail[64];
	snprintf(tail, sizeof tail, "$15 = %d\n", truth);
	assert_string_equal(strchr(rest, '\n') + 1, tail);
}

/* Replaces every `from` in s (in place; `to` no longer than `from`). */
static void replace_all(char *s, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to);
	for (char *p = strstr(s, from); p; p = strstr(p + lt, from)) {
		memmove(p + lt, p + lf, strlen(p + lf) + 1);
		memcpy(p, to, lt);
	}
}

/* Arguments, locals, up, down and prints against avr-gdb's on the same
 * recording and position. */
static void test_frames_match_avr_gdb(void **state)
{
	fixture *f = *state;
	static const char cmds[] = TO_FIFTH_CALL
		"p 12345\np/x uptime\np sensors[2]\np sensors[1].offset\np *current\n"
		"p current->id\np history[1] + 1\np current\np line\np buf\np digits\n"
		"info args\ninfo locals\nup\ninfo locals\ninfo args\np s->last\np *s\np slot * 3\n"
		"down\np value\n"
		"whatis current\nwhatis uptime\nptype struct sensor\nptype sensors\nptype current\n"
		"whatis &line\nwhatis uint16_t\nptype uint8_t\nptype uptime\nptype &uptime\n"
		"whatis sensors[1].offset + 1\nwhatis (uint16_t)1\nptype digits\nwhatis buf\n";
	const char *x = script(f, "cmds.gdb", cmds);
	assert_int_equal(test_run(f->gdb, sizeof f->gdb, "%s gdb '%s' -batch -x '%s'", test_avrr(),
				  f->db, x), 0);
	shell(f, cmds);
	char *g = strstr(f->gdb, "$1 = 12345\n");
	assert_non_null(g);
	char *end = strstr(g, "[Inferior 1");
	if (end)
		*end = 0;
	replace_all(g, "tests/firmware/sensors.c", "sensors.c");
	replace_all(g, "slot=slot@entry=", "slot=");
	assert_string_equal(strstr(f->s.out, "$1 = 12345\n"), g);
	/* The frame lines themselves, for the record. */
	char src91[256], src71[256], want[1024];
	source_lines(91, 91, src91, sizeof src91);
	source_lines(71, 71, src71, sizeof src71);
	snprintf(want, sizeof want, "#1  0x00000154 in report (s=0x80010e <sensors+12>, "
		 "slot=5 '\\005') at sensors.c:91\n%s", src91);
	assert_non_null(strstr(f->s.out, want));
	snprintf(want, sizeof want, "#0  format_line (id=30 '\\036', value=208, "
		 "buf=0x800115 <line> \"S2=719\\n\") at sensors.c:71\n%s", src71);
	assert_non_null(strstr(f->s.out, want));
}

/* list, info frame and display: source read here, the frame's addresses
 * from the stack pointer and the bytes on the stack. */
static void test_list_frame_display(void **state)
{
	fixture *f = *state;
	shell(f, TO_FIFTH_CALL
	      "echo ==list\nlist\nlist\nlist format_line\nup\nlist\ndown\n"
	      "echo ==frame\nx/3xb $sp\ninfo frame\nup\ninfo frame\ndown\n"
	      "echo ==display\nx/4xb &uptime\nx/1xb &presses\ndisplay uptime\n"
	      "display/x presses\ninfo display\nnext\nundisplay 1\nnext\nundisplay 7\n");
	char want[16384], a[2048], b[2048], c[2048];
	/* list: ten lines around 71, the next ten, around 71 again, and
	 * after up ten around report's line 91. */
	source_lines(66, 75, a, sizeof a);
	source_lines(76, 85, b, sizeof b);
	source_lines(86, 95, c, sizeof c);
	char src91[256], src71[256];
	source_lines(91, 91, src91, sizeof src91);
	source_lines(71, 71, src71, sizeof src71);
	snprintf(want, sizeof want, "%s%s%s#1  0x00000154 in report (s=0x80010e <sensors+12>, "
		 "slot=5 '\\005') at sensors.c:91\n%s%s#0  format_line (id=30 '\\036', value=208, "
		 "buf=0x800115 <line> \"S2=719\\n\") at sensors.c:71\n%s==frame\n",
		 a, b, a, src91, c, src71);
	const char *list = after(f->s.out, "==list\n");
	assert_memory_equal(list, want, strlen(want));

	/* info frame: at format_line's first instruction the return address is
	 * the top of the stack (SP+1: high byte, SP+2: low byte of the word
	 * address), so the CFA (the caller's SP) is SP+2; report pushed r17,
	 * r28, r29 at its own entry (CFA-2..-4), then called: its CFA is its SP
	 * plus 5, below which the return address into main sits at CFA-1. */
	unsigned sp, b0, b1, b2;
	const char *fr = after(f->s.out, "==frame\n");
	assert_int_equal(sscanf(fr, "0x%x:\t0x%x\t0x%x\t0x%x\n", &sp, &b0, &b1, &b2), 4);
	assert_int_equal(((b1 << 8) | b2) * 2, 0x154);
	unsigned cfa0 = sp + 2, cfa1 = cfa0 + 5;
	char args0[] = "id=30 '\\036', value=208, buf=0x800115 <line> \"S2=719\\n\"";
	snprintf(want, sizeof want,
		 "Stack level 0, frame at 0x%x:\n"
		 " pc = 0xa6 in format_line (sensors.c:71); saved pc = 0x154\n"
		 " called by frame at 0x%x\n"
		 " source language c.\n"
		 " Arglist at 0x%x, args: %s\n"
		 " Locals at 0x%x, Previous frame's sp is 0x%x\n"
		 " Saved registers:\n"
		 "  pc at 0x%x\n",
		 0x800000 + cfa0, 0x800000 + cfa1, 0x800000 + sp, args0, 0x800000 + sp,
		 0x800000 + cfa0, 0x800000 + sp + 1);
	const char *info = strchr(fr, '\n') + 1;
	assert_memory_equal(info, want, strlen(want));
	info += strlen(want);
	info = strchr(info, '\n') + 1;  /* up's frame line */
	info = strchr(info, '\n') + 1;  /* and its source line */
	unsigned saved_pc = 0;
	assert_int_equal(sscanf(strstr(info, "saved pc = "), "saved pc = 0x%x", &saved_pc), 1);
	snprintf(want, sizeof want,
		 "Stack level 1, frame at 0x%x:\n"
		 " pc = 0x154 in report (sensors.c:91); saved pc = 0x%x\n",
		 0x800000 + cfa1, saved_pc);
	assert_memory_equal(info, want, strlen(want));
	/* main's call of report: avr-objdump -d shows `rcall report` ending there. */
	assert_int_equal(saved_pc, 0x2f6);
	snprintf(want, sizeof want,
		 " source language c.\n Arglist at 0x%x, args: s=0x80010e <sensors+12>, "
		 "slot=5 '\\005'\n Locals at 0x%x, Previous frame's sp is 0x%x\n"
		 " Saved registers:\n  r17 at 0x%x, r28 at 0x%x, r29 at 0x%x, pc at 0x%x\n",
		 0x800000 + cfa0, 0x800000 + cfa0, 0x800000 + cfa1, 0x800000 + cfa1 - 2,
		 0x800000 + cfa1 - 3, 0x800000 + cfa1 - 4, 0x800000 + cfa1 - 1);
	assert_non_null(strstr(info, want));

	/* display: shown at once, then after each stop, in number order. */
	uint8_t up[4], pb;
	const char *d = after(f->s.out, "==display\n");
	d = dump(d, A_UPTIME, up, 4);
	d = dump(d, A_PRESSES, &pb, 1);
	unsigned uptime = up[0] | up[1] << 8 | up[2] << 16 | (unsigned)up[3] << 24;
	unsigned icount1, icount2;
	const char *stop1 = strstr(d, "icount="), *stop2;
	assert_non_null(stop1);
	assert_int_equal(sscanf(stop1, "icount=%u", &icount1), 1);
	stop2 = strstr(stop1 + 1, "icount=");
	assert_non_null(stop2);
	assert_int_equal(sscanf(stop2, "icount=%u", &icount2), 1);
	/* Both stops come after the fifth call's, the last before ==list. */
	unsigned fifth = 0;
	for (const char *at = f->s.out;
	     (at = strstr(at, "icount=")) && at < strstr(f->s.out, "==list"); at++)
		assert_int_equal(sscanf(at, "icount=%u", &fifth), 1);
	assert_true(fifth > 0 && fifth < icount1 && icount1 < icount2);
	snprintf(want, sizeof want,
		 "1: uptime = %u\n2: /x presses = 0x%x\n"
		 "Auto-display expressions now in effect:\nNum Enb Expression\n"
		 "1:   y  uptime\n2:   y  /x presses\n"
		 "icount=%u pc=0x00be format_line.constprop.0+0x18 at sensors.c:76\n"
		 "1: uptime = %u\n2: /x presses = 0x%x\n"
		 "icount=%u pc=0x00c4 format_line.constprop.0+0x1e at sensors.c:77\n"
		 "2: /x presses = 0x%x\n"
		 "No display number 7.\n",
		 uptime, pb, icount1, uptime, pb, icount2, pb);
	assert_string_equal(d, want);
}

/* The value history: $N is the value as printed, wherever the replay
 * goes afterwards (backward too, where the process is another). */
static void test_history_survives_travel(void **state)
{
	fixture *f = *state;
	shell(f, TO_FIFTH_CALL "echo ==5\nx/4xb &uptime\np uptime\np sensors[0]\n"
	      "reverse-continue\necho ==4\nx/4xb &uptime\np $1\np uptime\np $1 - $\n"
	      "p $2.offset\np $$\np $9\n");
	uint8_t u5[4], u4[4];
	const char *p5 = dump(after(f->s.out, "==5\n"), A_UPTIME, u5, 4);
	const char *p4 = dump(after(f->s.out, "==4\n"), A_UPTIME, u4, 4);
	unsigned up5 = u5[0] | u5[1] << 8 | u5[2] << 16 | (unsigned)u5[3] << 24;
	unsigned up4 = u4[0] | u4[1] << 8 | u4[2] << 16 | (unsigned)u4[3] << 24;
	assert_true(up4 < up5);
	char want[512];
	snprintf(want, sizeof want, "$1 = %u\n", up5);
	assert_memory_equal(p5, want, strlen(want));
	/* sensors[0].offset is -3 from .data's initial values (sensors.c). */
	snprintf(want, sizeof want, "$3 = %u\n$4 = %u\n$5 = %u\n$6 = -3\n$7 = %u\n"
		 "History has not yet reached $9.\n", up5, up4, up5 - up4, up5 - up4);
	assert_string_equal(p4, want);
}

/* x takes C expressions where the shell's own address expressions end:
 * the bytes must be those of the whole dump at the element's offset. */
static void test_x_of_expressions(void **state)
{
	fixture *f = *state;
	shell(f, TO_FIFTH_CALL "echo ==\nx/18xb &sensors\nx/6xb &sensors[1]\nx/6xb current\n"
	      "x/s buf\nx/s &line[3]\nx/2xb &sensors[1].last\nx/2xb &sensors[\n"
	      "display/i $pc\ndisplay/s buf\n");
	uint8_t all[18], one[6], last[2];
	const char *p = dump(after(f->s.out, "==\n"), A_SENSORS, all, 18);
	p = dump(p, A_SENSORS + 6, one, 6);
	assert_memory_equal(one, all + 6, 6);
	/* `current` is an ELF symbol: the shell's x examines its own bytes. */
	uint8_t cur[6];
	p = dump(p, A_CURRENT, cur, 6);
	assert_memory_equal(cur + 2, all, 4);
	static const char str[] = "0x115 <line>:\t\"S2=719\\n\"\n";
	assert_memory_equal(p, str, strlen(str));
	p += strlen(str);
	static const char at3[] = "0x118 <line+3>:\t\"719\\n\"\n";
	assert_memory_equal(p, at3, strlen(at3));
	p += strlen(at3);
	p = dump(p, A_SENSORS + 7, last, 2);
	assert_memory_equal(last, all + 7, 2);
	/* Neither an address nor an expression: the expression's message. */
	/* display/i and display/s: an x each time (avr-objdump -d: push r14
	 * at 0xa6). */
	assert_string_equal(p, "A syntax error in expression at column 10, near `'.\n"
			    "1: x/i $pc\n=> 0xa6 <format_line.constprop.0>:\tpush\tr14\n"
			    "2: x/s buf\n0x115 <line>:\t\"S2=719\\n\"\n");
}

/* Errors: one line each, and the shell goes on. */
static void test_errors(void **state)
{
	fixture *f = *state;
	shell(f, TO_FIFTH_CALL "echo ==\n"
	      "p sensors[\np nosuch\np/q uptime\np 1 +\np sensors[1].nope\np uptime / 0\n"
	      "p *uptime\np (struct nosuch *)0\np sizeof(struct sensor) * 3\nfrobnicate\ndown\nup 9\nframe 9\necho ok\n");
	assert_string_equal(after(f->s.out, "==\n"),
		"A syntax error in expression at column 9, near `'.\n"
		"No symbol \"nosuch\" in current context.\n"
		"Undefined output format \"q\".\n"
		"A syntax error in expression at column 4, near `'.\n"
		"There is no member named nope.\n"
		"Division by zero\n"
		"Attempt to take contents of a non-pointer value.\n"
		"No symbol \"struct nosuch\" in current context.\n"
		"$1 = 18\n"
		"Undefined command: \"frobnicate\".  Try \"help\".\n"
		"Bottom (innermost) frame selected; you cannot go down.\n"
		"#3  0x0000009e in __do_clear_bss ()\n"
		"No frame at level 9.\n"
		"ok\n");
}

/* A firmware with stabs only (Debian's avr-gcc -g): plain names print by
 * their ELF size as before; typed expressions fail in one line. */
static void test_stabs_firmware(void **state)
{
	fixture *f = *state;
	char db[300], out[4096];
	snprintf(db, sizeof db, "%s/fh.db", f->s.dir);
	assert_int_equal(test_run(out, sizeof out, "%s record tests/firmware/funcsheap_stabs.elf --stimuli "
				  "traces/funcsheap.stim --instructions 20k -o '%s'", test_avrr(), db), 0);
	assert_int_equal(test_run(out, sizeof out, "printf 'p g_led\\np/x g_led\\np g_led + 1\\n"
				  "info locals\\ndisplay g_led\\n' | %s shell '%s' 2>/dev/null", test_avrr(),
				  db), 0);
	assert_string_equal(out,
		"g_led = 0 (0x00)\n"
		"no DWARF type information in the firmware (stabs or none); typed expressions "
		"need a build with -gdwarf-4\n"
		"no DWARF type information in the firmware (stabs or none); typed expressions "
		"need a build with -gdwarf-4\n"
		"no DWARF type information in the firmware (stabs or none); locals need a build "
		"with -gdwarf-4\n"
		"no DWARF type information in the firmware (stabs or none); typed expressions "
		"need a build with -gdwarf-4\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_matches_memory),
		cmocka_unit_test(test_frames_match_avr_gdb),
		cmocka_unit_test(test_list_frame_display),
		cmocka_unit_test(test_history_survives_travel),
		cmocka_unit_test(test_x_of_expressions),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_stabs_firmware),
	};
	return cmocka_run_group_tests(tests, group_setup, test_fixture_teardown);
}
