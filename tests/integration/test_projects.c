/*
 * test_projects.c — firmware shaped as real projects are, through record,
 * the shell, avr-gdb, the race analysis and the replay:
 *
 *  - tests/firmware/multi/, a pump controller of five units built by its
 *    own plain Makefile with no AVR_MCU section, for the ATmega328P and
 *    the ATmega2560: ISRs in three files (a Timer1 tick that lets the
 *    others nest in it, USART RX, INT0 with a debounce that nests the
 *    tick), a `static uint8_t count` in clock.c and in buttons.c, and a
 *    struct tank defined in tank.c and used extern elsewhere;
 *  - tests/firmware/arduino/flow_meter, an arduino-mk sketch with Serial,
 *    attachInterrupt and millis().
 *
 * Lines are found in the sources by the marker comments they carry, so the
 * expectations follow the firmware.  Last, each goes through the device
 * loop from its finished ELF, with no source change.
 */
#include "tests/testlib.h"

#include <ctype.h>

#define MULTI "tests/firmware/multi/"
#define FLOW "tests/firmware/arduino/flow_meter"
#define CORE "/usr/share/arduino/hardware/arduino/avr/cores/arduino/"

/* Each recording lasts 4,800,000 cycles: 300 ms at 16 MHz. */
#define CYCLES 4800000

/* One build of the pump controller. */
typedef struct pump {
	const char *mcu;
	const char *elf;
	const char *stim;
	const char *target;  /* record's options that name MCU and clock */
	int tick, rx;        /* TIMER1_COMPA's and USART(0)_RX's vector numbers */
	const char *rx_name;
} pump;

/* avr-libc's iom328p.h and iomxx0_1.h: TIMER1_COMPA is vector 11 on the
 * ATmega328P, 17 on the ATmega2560; USART_RX 18, USART0_RX 25; INT0 is 1
 * on both.  The 328P build names its target as an Arduino user would, the
 * 2560 build as a plain Makefile user would. */
static const pump PUMPS[] = {
	{ "atmega328p", MULTI "pump_atmega328p.elf", MULTI "atmega328p.stim", "--board uno",
	  11, 18, "USART_RX_vect" },
	{ "atmega2560", MULTI "pump_atmega2560.elf", MULTI "atmega2560.stim",
	  "--mcu atmega2560 --freq 16000000", 17, 25, "USART0_RX_vect" },
};

typedef struct fixture {
	test_scratch s;
	char db[2][256];          /* the pumps' recordings, as PUMPS */
	char summary[2][1 << 16]; /* and what record printed */
	char flow_db[256];
	char flow_summary[1 << 16];
	char out[1 << 16];
} fixture;

static int record_one(fixture *f, char *db, size_t n, char *summary, const char *name,
		      const char *args)
{
	int rc = test_try_record(&f->s, db, n, name, "%s --cycles %d --quiet", args, CYCLES);
	memcpy(summary, f->s.out, sizeof f->s.out);
	if (rc)
		fprintf(stderr, "record %s: status %d\n%s", name, rc, f->s.out);
	return rc;
}

static int setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!(*state = f))
		return -1;
	for (int i = 0; i < 2; i++) {
		char name[64], args[512];
		snprintf(name, sizeof name, "pump_%s.db", PUMPS[i].mcu);
		snprintf(args, sizeof args, "%s %s --stimuli %s", PUMPS[i].elf, PUMPS[i].target,
			 PUMPS[i].stim);
		if (record_one(f, f->db[i], sizeof f->db[i], f->summary[i], name, args))
			return -1;
	}
	return record_one(f, f->flow_db, sizeof f->flow_db, f->flow_summary, "flow.db",
			  FLOW ".elf --board uno --stimuli " FLOW "/flow_meter.stim");
}

/* ---- helpers --------------------------------------------------------- */

/* The number of the first (last, if last) line of path holding marker. */
static int src_line_of(const char *path, const char *marker, int last)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		fail_msg("cannot open %s", path);
	char line[512];
	int n = 0, found = 0;
	while (fgets(line, sizeof line, fp)) {
		n++;
		if (strstr(line, marker) && (!found || last)) {
			found = n;
			if (!last)
				break;
		}
	}
	fclose(fp);
	if (!found)
		fail_msg("no '%s' in %s", marker, path);
	return found;
}

static int src_line(const char *path, const char *marker)
{
	return src_line_of(path, marker, 0);
}

/* Runs `avrr shell DB` with text on its standard input; output in out. */
static int shell(fixture *f, const char *db, const char *text)
{
	char path[300];
	snprintf(path, sizeof path, "%s/cmds.txt", f->s.dir);
	test_write_text(path, text);
	return test_run(f->out, sizeof f->out, "%s shell '%s' < '%s'", test_avrr(), db, path);
}

/* Runs `avrr gdb DB -batch -x SCRIPT` (stock avr-gdb); output in out. */
static int gdb(fixture *f, const char *db, const char *text)
{
	char path[300];
	snprintf(path, sizeof path, "%s/cmds.gdb", f->s.dir);
	test_write_text(path, text);
	return test_run(f->out, sizeof f->out, "%s gdb '%s' -batch -x '%s'", test_avrr(), db, path);
}

/* The count record's summary gives the vector named name: the line
 * "  NUM NAME   COUNT". */
static long summary_count(const char *summary, const char *name)
{
	char key[64];
	snprintf(key, sizeof key, " %s ", name);
	const char *p = strstr(summary, key);
	if (!p)
		fail_msg("no %s in the summary:\n%s", name, summary);
	return strtol(p + strlen(key), NULL, 10);
}

/* The value of the $N = ... line of out, as text up to its end. */
static const char *value_of(const char *out, int n, char *buf, size_t size)
{
	char key[16];
	snprintf(key, sizeof key, "$%d = ", n);
	const char *p = strstr(out, key);
	if (!p)
		fail_msg("no %s in:\n%s", key, out);
	p += strlen(key);
	size_t len = strcspn(p, "\n");
	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), p);
	return buf;
}

/* The hex address after "taken at 0x" in the where line of frame #n. */
static unsigned long taken_at(const char *out, int n)
{
	char key[32];
	snprintf(key, sizeof key, "#%d  interrupt ", n);
	const char *p = strstr(out, key);
	if (!p || !(p = strstr(p, "taken at 0x")))
		fail_msg("no frame #%d taken at an address in:\n%s", n, out);
	return strtoul(p + strlen("taken at 0x"), NULL, 16);
}

/* Where needle starts in the text from p to eol, or NULL. */
static const char *line_has(const char *p, const char *eol, const char *needle)
{
	size_t n = strlen(needle);
	for (; p + n <= eol; p++)
		if (!strncmp(p, needle, n))
			return p;
	return NULL;
}

/* The end of the frame that starts at p ("#N  ..."): the next line that
 * starts another frame or a position, or the end.  A frame may take more
 * than one line (an interrupt's, then the code it interrupted). */
static const char *frame_end(const char *p)
{
	const char *e = strchr(p, '\n');
	while (e && e[1] && e[1] != '#' && strncmp(e + 1, "icount=", 7))
		e = strchr(e + 1, '\n');
	return e ? e : p + strlen(p);
}

/* An ELF symbol's value, from avr-nm. */
static unsigned long symbol(const char *elf, const char *name)
{
	char out[256];
	if (test_run(out, sizeof out, "avr-nm '%s' | awk '$3 == \"%s\" { print $1 }'", elf, name) ||
	    !isxdigit((unsigned char)out[0]))
		fail_msg("no symbol %s in %s: %s", name, elf, out);
	return strtoul(out, NULL, 16);
}

/* ---- the pump: record ------------------------------------------------ */

/* No AVR_MCU section: the ELF names its MCU only in avr-libc's deviceinfo
 * note and its clock nowhere, so record asks for both, and refuses a
 * board the note contradicts. */
static void test_pump_needs_its_mcu_and_clock(void **state)
{
	fixture *f = *state;
	char path[300];
	assert_int_equal(test_try_record(&f->s, path, sizeof path, "x.db", MULTI
					 "pump_atmega328p.elf --stimuli " MULTI "atmega328p.stim"), 2);
	test_assert_contains(f->s.out, "avrr record: " MULTI "pump_atmega328p.elf: the ELF names "
			     "no clock (no .mmcu section; an Arduino build never does); pass "
			     "--freq HZ or --board NAME");
	assert_int_equal(test_try_record(&f->s, path, sizeof path, "x.db", MULTI
					 "pump_atmega328p.elf --board mega"), 2);
	test_assert_contains(f->s.out, "avrr record: " MULTI "pump_atmega328p.elf: built for the "
			     "atmega328p (its deviceinfo note), not the atmega2560 asked for\n");
}

/* 300 ms of the pump.  Timer 1 at 16 MHz / 64 with OCR1A 249 matches
 * every 16000 cycles from clock_init(), a few hundred cycles in: matches
 * 1..299 fall inside 4,800,000 cycles, the 300th just after.  The tick
 * lets every other interrupt in (ISR_NOBLOCK) and the button's debounce
 * keeps interrupts on, so none is lost.  The button (every 50 ms from
 * 20 ms, jitter 5 ms) rises at 20, 70, ..., 270 ms: 6 presses.  The UART
 * gets "f?" every 40 ms from 10 ms (jitter 2 ms: 8 times, the last byte
 * by 293.1 ms) and "d" at 85, 185, 285 ms: 19 bytes. */
static void pump_records(fixture *f, int i)
{
	const pump *p = &PUMPS[i];
	char want[96];
	snprintf(want, sizeof want, "mcu           %s at 16000000 Hz\n", p->mcu);
	test_assert_contains(f->summary[i], want);
	test_assert_contains(f->summary[i], "cycles        4800000 (0.300000 s at 16000000 Hz)\n");
	assert_int_equal(summary_count(f->summary[i], "TIMER1_COMPA_vect"), 299);
	assert_int_equal(summary_count(f->summary[i], "INT0_vect"), 6);
	assert_int_equal(summary_count(f->summary[i], p->rx_name), 19);
	test_assert_contains(f->summary[i], "interrupts    324\n");
}
static void test_pump_records_328p(void **state) { pump_records(*state, 0); }
static void test_pump_records_2560(void **state) { pump_records(*state, 1); }

/* ---- the pump: the shell --------------------------------------------- */

/* The 4th tick, stopped on its first line (after the prologue): 3 ms have
 * been counted, clock.c's count has gone 10, 9, 8, 7, and buttons.c's is
 * still 0 (no press before 15 ms), so `p count` shows clock.c's.  The
 * first 'f' comes at 8 ms at the earliest: the tank is all zeros. */
static void pump_shell_tick(fixture *f, int i)
{
	const pump *p = &PUMPS[i];
	int tick = src_line(MULTI "clock.c", "tick: millis");
	char text[512], want[128];
	snprintf(text, sizeof text, "break clock.c:%d\ncontinue\ncontinue\ncontinue\ncontinue\n"
		 "where\np count\np millis_count\np tank\np presses\np rx_count\n", tick);
	assert_int_equal(shell(f, f->db[i], text), 0);
	test_assert_contains(f->out, "Breakpoint 1 at 0x");
	snprintf(want, sizeof want, "\nBreakpoint 1, clock.c:%d\n", tick);
	test_assert_contains(f->out, want);
	snprintf(want, sizeof want, "\n#1  interrupt %d (TIMER1_COMPA_vect) taken at 0x", p->tick);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, "\n#2  main, the outermost frame: entered from the C runtime's "
			     "start-up [icount ");
	test_assert_contains(f->out, "\n$1 = 7 '\\a'\n$2 = 3\n$3 = {level = 0 '\\000', valve = 0 "
			     "'\\000', alarm = 0 '\\000'}\n$4 = 0\n$5 = 0\n");
}
static void test_pump_shell_tick_328p(void **state) { pump_shell_tick(*state, 0); }
static void test_pump_shell_tick_2560(void **state) { pump_shell_tick(*state, 1); }

/* The first press, stopped at `presses++`: buttons.c's count is 1, presses
 * still 0.  clock.c's count is 10 - millis_count % 10 (or 10), which the
 * test checks is not 1, else the stop would not tell the two apart. */
static void pump_shell_press(fixture *f, int i)
{
	int line = src_line(MULTI "buttons.c", "button: pressed");
	char text[256], want[128], v[64];
	snprintf(text, sizeof text, "break buttons.c:%d\ncontinue\nwhere\np count\np presses\n"
		 "p millis_count\n", line);
	assert_int_equal(shell(f, f->db[i], text), 0);
	snprintf(want, sizeof want, "\nBreakpoint 1, buttons.c:%d\n", line);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, "\n#1  interrupt 1 (INT0_vect) taken at 0x");
	test_assert_contains(f->out, " main, the outermost frame: entered from the C runtime's "
			     "start-up [icount ");
	assert_string_equal(value_of(f->out, 1, v, sizeof v), "1 '\\001'");
	assert_string_equal(value_of(f->out, 2, v, sizeof v), "0");
	long ms = strtol(value_of(f->out, 3, v, sizeof v), NULL, 10);
	assert_true(ms >= 15 && ms <= 25 + 3);   /* the first press, 20 +- 5 ms, 2 ms debounce */
	assert_int_not_equal(ms % 10 ? 10 - ms % 10 : 10, 1);
}
static void test_pump_shell_press_328p(void **state) { pump_shell_press(*state, 0); }
static void test_pump_shell_press_2560(void **state) { pump_shell_press(*state, 1); }

/* The debounce (2 ms = 32000 cycles, interrupts on) always holds a tick
 * (every 16000 cycles): the first tick after the second press's handler
 * starts is nested in it, and `finish` returns into the debounce. */
static void pump_shell_nested(fixture *f, int i)
{
	const pump *p = &PUMPS[i];
	int debounce = src_line(MULTI "buttons.c", "button: debounce");
	int tick = src_line(MULTI "clock.c", "tick: millis");
	char text[256], want[128];
	snprintf(text, sizeof text, "break buttons.c:%d\ncontinue\ncontinue\ndelete\n"
		 "break clock.c:%d\ncontinue\nwhere\nfinish\n", debounce, tick);
	assert_int_equal(shell(f, f->db[i], text), 0);
	snprintf(want, sizeof want, "\n#1  interrupt %d (TIMER1_COMPA_vect) taken at 0x", p->tick);
	test_assert_contains(f->out, want);
	const char *nested = strstr(f->out, want);
	test_assert_contains(nested, " __vector_1+0x");
	test_assert_contains(nested, "\n#2  interrupt 1 (INT0_vect) taken at 0x");
	test_assert_contains(nested, " main, the outermost frame");
	/* finish: the position line, back in INT0's handler */
	const char *fin = strstr(nested, "outermost frame");
	fin = strchr(fin, '\n') + 1;
	if (strncmp(fin, "icount=", 7) || !strstr(fin, " __vector_1+0x"))
		fail_msg("finish did not return into INT0's handler:\n%s", f->out);
}
static void test_pump_shell_nested_328p(void **state) { pump_shell_nested(*state, 0); }
static void test_pump_shell_nested_2560(void **state) { pump_shell_nested(*state, 1); }

/* `up` from an ISR's body selects the interrupted code, the frame `where`
 * calls #1, at the address it was taken at. */
static void test_pump_shell_up_from_isr_body(void **state)
{
	fixture *f = *state;
	int press = src_line(MULTI "buttons.c", "button: pressed");
	char text[256];
	snprintf(text, sizeof text, "break buttons.c:%d\ncontinue\nwhere\nup\nup\nup\n", press);
	assert_int_equal(shell(f, f->db[0], text), 0);
	unsigned long pc = taken_at(f->out, 1);
	/* the first press comes while main sends a report: uart_put polling
	 * UDRE, at the line where names */
	const char *at = strstr(strstr(f->out, "\n#1  interrupt "), " at uart.c:");
	assert_non_null(at);
	char line[32];
	snprintf(line, sizeof line, "%.*s", (int)strcspn(at + 4, " \n"), at + 4);
	const char *up = strstr(f->out, "main, the outermost frame");
	up = strchr(up, '\n') + 1;
	const char *end = frame_end(up);
	char a8[16], a4[16];
	snprintf(a8, sizeof a8, "0x%08lx", pc);
	snprintf(a4, sizeof a4, "0x%04lx", pc);
	if (strncmp(up, "#1  ", 4) || !line_has(up, end, "uart_put") || !line_has(up, end, line) ||
	    !(line_has(up, end, a8) || line_has(up, end, a4)))
		fail_msg("up is not uart_put at %s, %s:\n%s", a8, line, f->out);
	test_assert_contains(up, "report");
	test_assert_contains(up, " at main.c:");
	if (strstr(f->out, "__vectors"))
		fail_msg("a frame in the vector table:\n%s", f->out);
}

/* Every instruction of a tick, from the vector to the RETI: frame 1 is
 * main, where the tick was taken. */
static void test_pump_shell_frames_at_every_isr_instruction(void **state)
{
	fixture *f = *state;
	char text[4096] = "goto irq 1\nwhere\n";
	for (int k = 0; k < 80; k++)
		strcat(text, "stepi\nframe 1\n");
	assert_int_equal(shell(f, f->db[0], text), 0);
	unsigned long pc = taken_at(f->out, 1);
	char a8[16], a4[16];
	snprintf(a8, sizeof a8, "0x%08lx", pc);
	snprintf(a4, sizeof a4, "0x%04lx", pc);
	int checked = 0, left = 0;
	for (const char *p = strstr(f->out, "\nicount="); p; p = strstr(p + 1, "\nicount=")) {
		const char *eol = strchr(p + 1, '\n');
		int in_isr = eol && (line_has(p + 1, eol, "__vector_11") ||
				     line_has(p + 1, eol, "__vectors"));
		if (!in_isr) {
			left = 1;
			break;
		}
		/* frame 1, as where shows it or as gdb does: main where the tick
		 * was taken, never the vector table */
		const char *fr = eol + 1, *end = frame_end(fr);
		if (strncmp(fr, "#1  ", 4) || !line_has(fr, end, "main") ||
		    !line_has(fr, end, " at main.c:") || line_has(fr, end, "__vectors") ||
		    !(line_has(fr, end, a8) || line_has(fr, end, a4)))
			fail_msg("at %.*s: frame 1 is not main at %s:\n%.200s", (int)(eol - p - 1),
				 p + 1, a8, fr);
		checked++;
	}
	assert_true(left);
	assert_true(checked >= 20);
	printf("# %d instructions of the first tick checked\n", checked);
}

/* The shell as gdb users write it. */
static void test_pump_shell_break_on_vector_name(void **state)
{
	fixture *f = *state;
	assert_int_equal(shell(f, f->db[0], "break TIMER1_COMPA_vect\ncontinue\nwhere\n"), 0);
	test_assert_contains(f->out, "Breakpoint 1, ");
	test_assert_contains(f->out, "\n#1  interrupt 11 (TIMER1_COMPA_vect) taken at 0x");
}

/* millis_count goes 0, 1, 2 ... at the line before its increment: the first
 * stop where it is over 100 shows 101; `condition` changes it. */
static void test_pump_shell_conditions(void **state)
{
	fixture *f = *state;
	int tick = src_line(MULTI "clock.c", "tick: millis");
	char text[1024], longer[200];
	memset(longer, '1', 150);   /* "111...1": an expression of 150 characters */
	longer[150] = 0;
	snprintf(text, sizeof text, "break clock.c:%d if millis_count > 100\ncontinue\n"
		 "p millis_count\ncondition 1 millis_count == 250\ncontinue\np millis_count\n"
		 "condition 1 millis_count == 200\nreverse-continue\np millis_count\n"
		 "info breakpoints\ncondition 1 no_such_name > 1\ncontinue\n"
		 "condition 1\ncondition 9 1\ncondition 1 %s\nbreak clock.c:%d if %s\n"
		 "info breakpoints\n", tick, longer, tick, longer);
	assert_int_equal(shell(f, f->db[0], text), 0);
	test_assert_contains(f->out, "\n$1 = 101\n");
	test_assert_contains(f->out, "\n$2 = 250\n");
	/* backward, the condition is judged where the breakpoint would stop */
	test_assert_contains(f->out, "\n$3 = 200\n");
	test_assert_contains(f->out, "\tstop only if millis_count == 200\n");
	/* a condition that cannot be evaluated stops, saying why, as gdb's */
	test_assert_contains(f->out, "Error in testing condition for breakpoint 1:\n"
			     "No symbol \"no_such_name\" in current context.\nBreakpoint 1, ");
	test_assert_contains(f->out, "Breakpoint 1 now unconditional.\n");
	test_assert_contains(f->out, "No breakpoint number 9.\n");
	/* a condition longer than a breakpoint holds is refused, and the
	 * breakpoint it came with is not left behind */
	test_assert_contains(f->out, "condition too long (at most 127 characters)\n"
			     "condition too long (at most 127 characters)\nNum  Type        Address  What\n"
			     "1    breakpoint");
	assert_null(strstr(f->out, "\n2    breakpoint"));
}

/* The level first moves 0 -> 1 in tank_step's fill, the valve open.  A
 * watch stops after the write: avr-gcc -Os stores the level once for
 * both branches, so the next instruction is the next statement's. */
static void test_pump_shell_member_watch(void **state)
{
	fixture *f = *state;
	char want[64];
	assert_int_equal(shell(f, f->db[0], "watch tank.level\ncontinue\np tank.level\np tank.valve\n"),
			 0);
	test_assert_contains(f->out, " tank_step+0x");
	snprintf(want, sizeof want, " at tank.c:%d\n", src_line(MULTI "tank.c", "step: alarm"));
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, "\n$1 = 1 '\\001'\n$2 = 1 '\\001'\n");
}

/* The tank's first change is main's 'f' opening the valve (the level
 * cannot move before: it is 0 and the valve closed); a watch on the whole
 * struct shows its values as structs. */
static void test_pump_shell_struct_watch(void **state)
{
	fixture *f = *state;
	char want[64];
	assert_int_equal(shell(f, f->db[0], "watch tank\ncontinue\n"), 0);
	test_assert_contains(f->out, "\nOld value = {level = 0 '\\000', valve = 0 '\\000', alarm = "
			     "0 '\\000'}\nNew value = {level = 0 '\\000', valve = 1 '\\001', alarm = 0 "
			     "'\\000'}\n");
	snprintf(want, sizeof want, " at main.c:%d\n", src_line(MULTI "main.c", "main: open"));
	test_assert_contains(f->out, want);
}

/* buttons.c declares tank extern (pump.h); the definition's DWARF entry is
 * tank.c's.  At the first press the valve is open (the first 'f' came at
 * 12 ms at the latest, the press counts 2 ms after 15 ms at the earliest)
 * and the level is under ALARM_LEVEL. */
static void test_pump_shell_extern_struct(void **state)
{
	fixture *f = *state;
	int line = src_line(MULTI "buttons.c", "button: pressed");
	char text[256], want[128], v[128];
	snprintf(text, sizeof text, "break buttons.c:%d\ncontinue\np tank\np &tank\np tank.valve\n",
		 line);
	assert_int_equal(shell(f, f->db[0], text), 0);
	value_of(f->out, 1, v, sizeof v);
	if (strncmp(v, "{level = ", 9) || !strstr(v, ", valve = 1 '\\001', alarm = 0 '\\000'}"))
		fail_msg("p tank: %s", v);
	snprintf(want, sizeof want, "(volatile struct tank *) 0x%lx <tank>",
		 symbol(PUMPS[0].elf, "tank"));
	assert_string_equal(value_of(f->out, 2, v, sizeof v), want);
	assert_string_equal(value_of(f->out, 3, v, sizeof v), "1 '\\001'");
}

/* ---- the pump: avr-gdb ---------------------------------------------- */

/* Stock avr-gdb: a breakpoint on the tick's first instruction (the line of
 * its opening brace, before the prologue, where avr-gcc's frame
 * information is right) and at the first press; the globals of three
 * units and each unit's count. */
static void pump_gdb(fixture *f, int i)
{
	int brace = src_line(MULTI "clock.c", "ISR(TIMER1_COMPA_vect") + 1;
	int press = src_line(MULTI "buttons.c", "button: pressed");
	char text[512], want[160], v[128];
	snprintf(text, sizeof text, "break clock.c:%d\ncontinue\ncontinue\ncontinue\ncontinue\nbt\n"
		 "print count\nprint millis_count\nprint tank\nprint presses\ndelete\n"
		 "break buttons.c:%d\ncontinue\nprint count\nprint presses\nprint tank\n"
		 "print rx_count\n", brace, press);
	assert_int_equal(gdb(f, f->db[i], text), 0);
	snprintf(want, sizeof want, "Breakpoint 1, __vector_%d () at clock.c:%d\n", PUMPS[i].tick,
		 brace);
	test_assert_contains(f->out, want);
	snprintf(want, sizeof want, "#0  __vector_%d () at clock.c:%d\n", PUMPS[i].tick, brace);
	test_assert_contains(f->out, want);
	test_assert_contains(strstr(f->out, want), "\n#1  0x");
	test_assert_contains(strstr(f->out, want), " in main () at main.c:");
	test_assert_contains(f->out, "\n$1 = 7 '\\a'\n$2 = 3\n$3 = {level = 0 '\\000', valve = 0 "
			     "'\\000', alarm = 0 '\\000'}\n$4 = 0\n");
	snprintf(want, sizeof want, "Breakpoint 2, __vector_1 () at buttons.c:%d\n", press);
	test_assert_contains(f->out, want);
	assert_string_equal(value_of(f->out, 5, v, sizeof v), "1 '\\001'");
	assert_string_equal(value_of(f->out, 6, v, sizeof v), "0");
	value_of(f->out, 7, v, sizeof v);
	if (strncmp(v, "{level = ", 9) || !strstr(v, ", valve = 1 '\\001', alarm = 0 '\\000'}"))
		fail_msg("print tank: %s", v);
	/* "f?" at 10 +- 2 ms: two bytes before the first press counts */
	assert_string_equal(value_of(f->out, 8, v, sizeof v), "2");
}
static void test_pump_gdb_328p(void **state) { pump_gdb(*state, 0); }
static void test_pump_gdb_2560(void **state) { pump_gdb(*state, 1); }

/* The frames `where` names, in order, in gdb's bt: each function (gdb's
 * " in FUNC (") and its file; a call's line too.  An interrupted frame's
 * line may differ: gdb looks a caller's line up at pc - 1, and an
 * interrupt's return address may begin a line. */
static void assert_bt_has_frames(const char *bt, const char *where)
{
	const char *at = bt;
	for (const char *p = strstr(where, "\n#"); p; p = strstr(p + 1, "\n#")) {
		const char *eol = strchr(p + 1, '\n');
		const char *loc = NULL;   /* the last " at ": the frame's FILE:LINE */
		for (const char *q = p + 1; (q = line_has(q, eol, " at ")); q++)
			loc = q;
		if (!loc || !strncmp(loc, " at 0x", 6))
			continue;   /* main's own line: the outermost frame */
		const char *fn = line_has(p + 1, eol, " 0x");   /* "0xADDR FUNC+0xOFF" */
		assert_non_null(fn);
		fn = strchr(fn + 1, ' ') + 1;
		char func[96], file[96], fl[128];
		snprintf(func, sizeof func, " in %.*s (", (int)strcspn(fn, "+( "), fn);
		snprintf(fl, sizeof fl, "%.*s", (int)strcspn(loc + 4, " \n"), loc + 4);
		snprintf(file, sizeof file, "%.*s", (int)strcspn(fl, ":"), fl);
		const char *q = strstr(at, func);
		if (!q)
			fail_msg("gdb's bt lacks%s) (as the shell's where has it), in order:\n%s", func,
				 bt);
		const char *qe = q + strcspn(q, "\n");
		if (!line_has(q, qe, line_has(p + 1, eol, "called from") ? fl : file))
			fail_msg("gdb's bt has%s) not at %s:\n%s", func, fl, bt);
		at = qe;
	}
	if (strstr(bt, "?? ()") || strstr(bt, "Backtrace stopped"))
		fail_msg("gdb's bt is broken:\n%s", bt);
}

/* In the body of INT0's handler, gdb's bt reaches main through the
 * interrupted uart_put and report, as the shell's where does. */
static void test_pump_gdb_bt_in_isr_body(void **state)
{
	fixture *f = *state;
	int press = src_line(MULTI "buttons.c", "button: pressed");
	static char where[1 << 16];
	char text[128];
	snprintf(text, sizeof text, "break buttons.c:%d\ncontinue\nwhere\n", press);
	assert_int_equal(shell(f, f->db[0], text), 0);
	memcpy(where, f->out, sizeof where);
	snprintf(text, sizeof text, "break buttons.c:%d\ncontinue\nbt\nfinish\n", press);
	assert_int_equal(gdb(f, f->db[0], text), 0);
	assert_bt_has_frames(f->out, strstr(where, "\n#1"));
	test_assert_contains(f->out, " in main () at main.c:");
	/* finish: out of the handler, back in uart_put where it was taken */
	const char *fin = strstr(f->out, " in main () at main.c:");
	test_assert_contains(strchr(fin, '\n'), " in uart_put (");
}

/* gdb's bt at every instruction of the first tick ends in main. */
static void test_pump_gdb_frames_at_every_isr_instruction(void **state)
{
	fixture *f = *state;
	/* goto prints its frame; the bts come after the mark */
	char text[4096] = "goto irq 1\necho ==bt==\\n\nbt\n";
	for (int k = 0; k < 60; k++)
		strcat(text, "stepi\nbt\n");
	assert_int_equal(gdb(f, f->db[0], text), 0);
	if (strstr(f->out, "?? ()") || strstr(f->out, "Backtrace stopped") ||
	    strstr(f->out, "corrupt stack"))
		fail_msg("a broken backtrace:\n%s", f->out);
	/* each bt while in the vector or the handler, up to the first after it */
	int checked = 0, left = 0;
	const char *mark = strstr(f->out, "==bt==\n");
	assert_non_null(mark);
	for (const char *p = strstr(mark, "\n#0  "); p; p = strstr(p + 1, "\n#0  ")) {
		const char *eol = strchr(p + 1, '\n'), *next = strstr(p + 1, "\n#0  ");
		if (!eol)
			break;
		if (!line_has(p, eol, "__vector_11") && !line_has(p, eol, "__vectors")) {
			left = 1;
			break;
		}
		const char *end = next ? next : p + strlen(p);
		if (!line_has(eol, end, " in main () at main.c:"))
			fail_msg("bt does not reach main:\n%.*s", (int)(end - p), p);
		checked++;
	}
	assert_true(left);
	assert_true(checked >= 20);
	printf("# %d instructions of the first tick checked\n", checked);
}

/* ---- the pump: races and replay ---------------------------------------- */

/* report() reads the 2-byte presses with interrupts on while INT0's
 * handler writes it: a true torn read, never witnessed (2 loads apart).
 * It runs once per report that gets as far as "P=": the '?' replies at
 * about 11, 51, 91, 131, 171, 211, 251 ms and the 100 ms ones, taken at
 * 109 and 229 ms because a reply (some 18 ms of 9600 baud) is going out
 * when millis() reaches 100 and 200: 9, the reply at 291 ms reaching "P="
 * only past 300 ms.  buttons_init() clears presses with interrupts on
 * but INT0 still masked in EIMSK: no race, as INT0 cannot come. */
static void pump_races(fixture *f, int i)
{
	char want[1024];
	unsigned long addr = symbol(PUMPS[i].elf, "presses") & 0xffff;
	int rc = test_run(f->out, sizeof f->out, "%s analyze '%s' races", test_avrr(), f->db[i]);
	assert_int_equal(rc, 0);
	int read = src_line(MULTI "main.c", "main: presses");
	int write = src_line(MULTI "buttons.c", "button: pressed");
	snprintf(want, sizeof want, "potential races, never witnessed in this run:\n"
			 "presses (0x%04lx, 2 bytes): split read in main at main.c:%d .. main.c:%d, "
			 "9 times\n  against the write in INT0_vect at buttons.c:%d\n",
			 addr, read, read, write);
	assert_string_equal(f->out, want);
}
static void test_pump_races_328p(void **state) { pump_races(*state, 0); }
static void test_pump_races_2560(void **state) { pump_races(*state, 1); }

static void assert_replays_exactly(fixture *f, const char *db, int irqs)
{
	char a[64], b[64];
	int rc = test_run(f->out, sizeof f->out, "%s replay '%s'", test_avrr(), db);
	snprintf(a, sizeof a, "injected             %d\n", irqs);
	snprintf(b, sizeof b, "correct              %d\n", irqs);
	if (rc || !strstr(f->out, a) || !strstr(f->out, b) ||
	    !strstr(f->out, "missed               0\n") || !strstr(f->out, "diverged             no\n"))
		fail_msg("replay: status %d, %d interrupts recorded\n%s", rc, irqs, f->out);
}
static void test_pump_replays_exactly_328p(void **state)
{
	fixture *f = *state;
	assert_replays_exactly(f, f->db[0], 299 + 6 + 19);
}
static void test_pump_replays_exactly_2560(void **state)
{
	fixture *f = *state;
	assert_replays_exactly(f, f->db[1], 299 + 6 + 19);
}

/* ---- the sketch ------------------------------------------------------ */

/* Pulses every 2 ms from 1 ms (jitter 300 us): 150 by 299.3 ms.  millis()
 * is Timer 0's overflow, every 64 x 256 = 16384 cycles from init(), a few
 * thousand cycles in: 292 in 4,800,000 cycles (292.97 periods).  One 'r'
 * (at 120 ms; the next at 370). */
static void test_flow_records(void **state)
{
	fixture *f = *state;
	test_assert_contains(f->flow_summary, "mcu           atmega328p at 16000000 Hz\n");
	assert_int_equal(summary_count(f->flow_summary, "INT0_vect"), 150);
	assert_int_equal(summary_count(f->flow_summary, "TIMER0_OVF_vect"), 292);
	assert_int_equal(summary_count(f->flow_summary, "USART_RX_vect"), 1);
	const char *p = strstr(f->flow_summary, "\ninterrupts    ");
	assert_non_null(p);
	assert_replays_exactly(f, f->flow_db, (int)strtol(p + 15, NULL, 10));
}

/* onPulse is called from the core's INT0 handler (WInterrupts.c, through
 * intFunc[]), which interrupted loop(): where reaches main.  At the first
 * pulse nothing has been counted; at the 'r' (120 ms) the report of
 * millis() 100 was the last, and the total has just been cleared. */
static void test_flow_shell(void **state)
{
	fixture *f = *state;
	int pulse = src_line(FLOW "/flow_meter.ino", "flow: pulse");
	int reset = src_line(FLOW "/flow_meter.ino", "flow: reset");
	int isr = src_line_of(CORE "WInterrupts.c", "IMPLEMENT_ISR(INT0_vect, EXTERNAL_INT_0)", 1);
	char text[512], want[160];
	snprintf(text, sizeof text, "break flow_meter.ino:%d\ncontinue\nwhere\np pulses\np total\n"
		 "delete\nbreak flow_meter.ino:%d\ncontinue\nwhere\np resets\np total\n"
		 "p lastReport\n", pulse, reset);
	assert_int_equal(shell(f, f->flow_db, text), 0);
	snprintf(want, sizeof want, "\nBreakpoint 1, flow_meter.ino:%d\n", pulse);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, " onPulse()\n#1  called from 0x");
	snprintf(want, sizeof want, " __vector_1+0x");
	test_assert_contains(f->out, want);
	snprintf(want, sizeof want, " at WInterrupts.c:%d [icount ", isr);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, "\n#2  interrupt 1 (INT0_vect) taken at 0x");
	test_assert_contains(f->out, " main, the outermost frame: entered from the C runtime's "
			     "start-up");
	snprintf(want, sizeof want, "handleCommand(int)+0x");
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, "\n$1 = 0\n$2 = 0\nBreakpoint 2 at 0x");
	test_assert_contains(f->out, "\n$3 = 0\n$4 = 0\n$5 = 100\n");
}

/* The same stops in avr-gdb; the RX ring's head has moved once. */
static void test_flow_gdb(void **state)
{
	fixture *f = *state;
	int reset = src_line(FLOW "/flow_meter.ino", "flow: reset");
	int call = src_line(FLOW "/flow_meter.ino", "handleCommand(Serial.read())");
	char text[256], want[160];
	snprintf(text, sizeof text, "break flow_meter.ino:%d\ncontinue\nbt\nprint resets\n"
		 "print lastReport\nprint Serial._rx_buffer_head\n", reset);
	assert_int_equal(gdb(f, f->flow_db, text), 0);
	snprintf(want, sizeof want, "#0  handleCommand (c=114) at flow_meter.ino:%d\n#1  0x", reset);
	test_assert_contains(f->out, want);
	snprintf(want, sizeof want, " in loop () at flow_meter.ino:%d\n#2  0x", call);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, " in main () at " CORE "main.cpp:");
	test_assert_contains(f->out, "\n$1 = 0\n$2 = 100\n$3 = 1 '\\001'\n");
}

/* gdb's bt from onPulse goes through the interrupt to loop() and main. */
static void test_flow_gdb_bt_through_the_interrupt(void **state)
{
	fixture *f = *state;
	int pulse = src_line(FLOW "/flow_meter.ino", "flow: pulse");
	static char where[1 << 16];
	char text[128];
	snprintf(text, sizeof text, "break flow_meter.ino:%d\ncontinue\nwhere\n", pulse);
	assert_int_equal(shell(f, f->flow_db, text), 0);
	memcpy(where, f->out, sizeof where);
	snprintf(text, sizeof text, "break flow_meter.ino:%d\ncontinue\nbt\n", pulse);
	assert_int_equal(gdb(f, f->flow_db, text), 0);
	assert_bt_has_frames(f->out, strstr(where, "\n#1"));
	test_assert_contains(f->out, " in main () at " CORE "main.cpp:");
}

static void test_flow_shell_cxx_objects(void **state)
{
	fixture *f = *state;
	int reset = src_line(FLOW "/flow_meter.ino", "flow: reset");
	char text[256];
	snprintf(text, sizeof text, "break flow_meter.ino:%d\ncontinue\np Serial._rx_buffer_head\n"
		 "p Serial._rx_buffer_tail\nwhatis Serial\n", reset);
	assert_int_equal(shell(f, f->flow_db, text), 0);
	test_assert_contains(f->out, "\n$1 = 1 '\\001'\n$2 = 1 '\\001'\ntype = HardwareSerial\n");
}

/* attachInterrupt() stores the handler in intFunc[0] (2 bytes) with
 * interrupts on, before it unmasks INT0 in EIMSK: not a race on the chip,
 * as INT0 cannot come there. */
static void test_flow_races(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->out, sizeof f->out, "%s analyze '%s' races", test_avrr(),
				  f->flow_db), 0);
	assert_string_equal(f->out, "no races: no shared variable is accessed non-atomically where "
			    "an interrupt could come\n");
}

/* ---- the device loop from the finished ELF ------------------------------ */

/* The device loop as issue 43 asks for it: instrument the ELF as built
 * (no source change, the default spec), stamp it, run it as the device,
 * import its log, replay the import to the device's final state; then the
 * shell and avr-gdb on the import stop at FILE:LINE inside an ISR with
 * source lines, their backtraces reaching main.  The instrumented ELF
 * names its part and clock, and the log its register: device, import and
 * replay take no flags.  target: instrument's options; says: what its
 * line must say. */
static void device_loop(fixture *f, const char *elf, const char *target, const char *says,
			const char *stim, const char *file, int line, const char *isr)
{
	char traced[300], log[300], uart[300], dstate[300], rstate[300], db[300];
	char text[256], want[160];
	snprintf(traced, sizeof traced, "%s/traced.elf", f->s.dir);
	snprintf(log, sizeof log, "%s/run.log", f->s.dir);
	snprintf(uart, sizeof uart, "%s/uart.txt", f->s.dir);
	snprintf(dstate, sizeof dstate, "%s/device.state", f->s.dir);
	snprintf(rstate, sizeof rstate, "%s/replay.state", f->s.dir);
	snprintf(db, sizeof db, "%s/import.db", f->s.dir);
	if (test_run(f->out, sizeof f->out, "%s instrument %s %s -o '%s' && %s stamp '%s'",
		     test_avrr(), elf, target, traced, test_avrr(), traced) || !strstr(f->out, says))
		fail_msg("instrument, want '%s': %s", says, f->out);
	if (test_run(f->out, sizeof f->out, "%s device '%s' --stimuli %s --log-out '%s' "
		     "--uart-out '%s' --state-out '%s' --instructions 2M", test_avrr(), traced, stim,
		     log, uart, dstate))
		fail_msg("device: %s", f->out);
	if (test_run(f->out, sizeof f->out, "%s import '%s' --elf '%s' -o '%s'", test_avrr(), log,
		     traced, db) || !strstr(f->out, " losses 0\n"))
		fail_msg("import: %s", f->out);
	if (test_run(f->out, sizeof f->out, "%s replay '%s' --state-out '%s'", test_avrr(), db,
		     rstate) || !strstr(f->out, "every item of the log matched"))
		fail_msg("replay of the import: %s", f->out);
	if (test_run(f->out, sizeof f->out, "cmp '%s' '%s'", dstate, rstate))
		fail_msg("the replay's final state is not the device's: %s", f->out);
	snprintf(text, sizeof text, "break %s:%d\ncontinue\nwhere\n", file, line);
	assert_int_equal(shell(f, db, text), 0);
	snprintf(want, sizeof want, "\nBreakpoint 1, %s:%d\n", file, line);
	test_assert_contains(f->out, want);
	snprintf(want, sizeof want, "interrupt 1 (%s) taken at 0x", isr);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, " main, the outermost frame");
	snprintf(text, sizeof text, "break %s:%d\ncontinue\nbt\n", file, line);
	assert_int_equal(gdb(f, db, text), 0);
	snprintf(want, sizeof want, " at %s:%d\n", file, line);
	test_assert_contains(f->out, want);
	test_assert_contains(f->out, " in main () at ");
	if (strstr(f->out, "?? ()") || strstr(f->out, "Backtrace stopped"))
		fail_msg("%s", f->out);
}

/* On the ATmega328P the pump's tick has the one 16-bit timer: the cycle
 * counter has none, and instrument says which write took it. */
static void test_pump_328p_counter_refused(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->out, sizeof f->out, "%s instrument %s --log uart --board uno "
				  "-o '%s/x.elf'", test_avrr(), PUMPS[0].elf, f->s.dir), 2);
	test_assert_contains(f->out, "pump_atmega328p.elf: no 16-bit timer is free for the cycle "
			     "counter (clock_init writes TCCR1B at 0x");
	test_assert_contains(f->out, "): give --fp a spec without cycles:K (docs/device.md)\n");
}

/* The pump's reports use USART0, so on the ATmega2560 the log goes out on
 * USART1; its tick has Timer1, so the counter takes Timer3. */
static void test_pump_device_loop(void **state)
{
	device_loop(*state, PUMPS[1].elf, "--log uart1 --baud 500000 --send-masked --board mega",
		    "(and the reset, and TIMER3_OVF)",
		    PUMPS[1].stim, "buttons.c", src_line(MULTI "buttons.c", "button: pressed"),
		    "INT0_vect");
}

/* On the Uno Serial has the one USART, so the log goes out by SPI; the
 * core reads its registers through pointers (HardwareSerial's _ucsra,
 * _udr), so every load is tested; and init() sets Timer1 up for
 * analogWrite(), which the sketch does not use: the counter takes it. */
static void test_flow_device_loop(void **state)
{
	/* wiring.c's init() writes TCCR1B three times (= 0, CS11, CS10) and
	 * TCCR1A once (WGM10) */
	device_loop(*state, FLOW ".elf", "--log spi --log-loads --send-masked --board uno",
		    "; Timer1 counts the cycles: init()'s 4 writes setting it up for analogWrite() "
		    "are NOPs, so its PWM outputs are off",
		    FLOW "/flow_meter.stim", "flow_meter.ino",
		    src_line(FLOW "/flow_meter.ino", "flow: pulse"), "INT0_vect");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pump_needs_its_mcu_and_clock),
		cmocka_unit_test(test_pump_records_328p),
		cmocka_unit_test(test_pump_records_2560),
		cmocka_unit_test(test_pump_shell_tick_328p),
		cmocka_unit_test(test_pump_shell_tick_2560),
		cmocka_unit_test(test_pump_shell_press_328p),
		cmocka_unit_test(test_pump_shell_press_2560),
		cmocka_unit_test(test_pump_shell_nested_328p),
		cmocka_unit_test(test_pump_shell_nested_2560),
		cmocka_unit_test(test_pump_shell_up_from_isr_body),
		cmocka_unit_test(test_pump_shell_frames_at_every_isr_instruction),
		cmocka_unit_test(test_pump_shell_break_on_vector_name),
		cmocka_unit_test(test_pump_shell_conditions),
		cmocka_unit_test(test_pump_shell_member_watch),
		cmocka_unit_test(test_pump_shell_struct_watch),
		cmocka_unit_test(test_pump_shell_extern_struct),
		cmocka_unit_test(test_pump_gdb_328p),
		cmocka_unit_test(test_pump_gdb_2560),
		cmocka_unit_test(test_pump_gdb_bt_in_isr_body),
		cmocka_unit_test(test_pump_gdb_frames_at_every_isr_instruction),
		cmocka_unit_test(test_pump_races_328p),
		cmocka_unit_test(test_pump_races_2560),
		cmocka_unit_test(test_pump_replays_exactly_328p),
		cmocka_unit_test(test_pump_replays_exactly_2560),
		cmocka_unit_test(test_flow_records),
		cmocka_unit_test(test_flow_shell),
		cmocka_unit_test(test_flow_gdb),
		cmocka_unit_test(test_flow_gdb_bt_through_the_interrupt),
		cmocka_unit_test(test_flow_shell_cxx_objects),
		cmocka_unit_test(test_flow_races),
		cmocka_unit_test(test_pump_328p_counter_refused),
		cmocka_unit_test(test_pump_device_loop),
		cmocka_unit_test(test_flow_device_loop),
	};
	return cmocka_run_group_tests(tests, setup, test_fixture_teardown);
}
