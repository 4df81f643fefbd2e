/*
 * test_frames.c — frames at every instruction of every interrupt handler,
 * checked against the shadow call stack, on tests/firmware/isr_frames.elf
 * (a plain handler calling a function chain, an ISR_NOBLOCK one with a
 * frame pointer, an 80-byte frame that re-enables interrupts, a naked one
 * and an empty one, nesting inside each other), and on atmega88.elf
 * (handlers nested in an ISR_NOBLOCK tick) and atmega2560.elf (3-byte
 * return addresses).
 *
 *  - The shell: stepping from the entry of the first interrupt of each
 *    vector to its reti (and through every interrupt nested in it), at
 *    each instruction `frame K` for every K `where` lists lands on the
 *    frame `where` names: an interrupt's frame on the interrupted pc (and
 *    says it is an interrupt of that vector), a call's on its return
 *    address, and past main the C runtime's frame that called it.  On
 *    isr_frames every instruction of every handler is visited.
 *  - avr-gdb through `avrr gdb`, at the same positions: `bt` lists the
 *    frames where names, each at its pc, down to main.
 *  - dwarf/cfi.c's rows: the saved registers and CFA offsets of a
 *    handler's prologue and epilogue, instruction by instruction, as the
 *    code pushes and pops them.
 *  - `break VECTOR_vect`, and avr-gdb's way round its internal error on a
 *    condition over a variable in a register pair.
 */
#include "tests/testlib.h"

#include <inttypes.h>

#include "dwarf/cfi.h"
#include "sim/avr_decode.h"

#define ELF "tests/firmware/isr_frames.elf"
#define STIM "tests/firmware/isr_frames.stim"
#define MAX_WINDOWS 16

typedef struct window {
	uint64_t from, to;    /* entry icount .. its reti's icount */
} window;

#define MAX_DEPTH 12

typedef struct where_line {
	int kind;             /* 0 none, 'i' interrupt, 'c' call, 'm' main's start-up */
	uint32_t from;
	unsigned vector;
	unsigned line;        /* the source line where names, 0 none */
	char name[32];        /* an interrupt's vector name */
} where_line;

/* What the shell's where said at one position. */
typedef struct position {
	uint32_t pc;
	where_line wl[MAX_DEPTH + 1];
} position;

/* A firmware the frame tests run on. */
typedef struct subject {
	const char *elf, *stim, *length;
	unsigned pc_bytes;
	int every_insn;       /* its first interrupts run every handler instruction */
} subject;

typedef struct fixture {
	test_scratch s;
	const subject *sub;
	char db[256];
	firmware *fw;
	cfi_table *cfi;
	window w[MAX_WINDOWS];
	unsigned nw;
	position *pos;        /* each position the shell stepped to, in order */
	unsigned npos;
} fixture;

/* The first interrupt of each vector, entry to reti. */
static void find_windows(fixture *f)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT e.icount, (SELECT min(r.icount) FROM events r WHERE r.type = 3 "
		"AND r.ctx = e.ctx AND r.icount > e.icount) FROM events e WHERE e.type = 2 "
		"AND e.seq = (SELECT min(seq) FROM events x WHERE x.type = 2 AND x.ctx = e.ctx) "
		"ORDER BY e.icount", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && f->nw < MAX_WINDOWS) {
		window w = { (uint64_t)sqlite3_column_int64(st, 0),
			     (uint64_t)sqlite3_column_int64(st, 1) };
		/* one window for nested ones */
		if (f->nw && w.from <= f->w[f->nw - 1].to) {
			if (w.to > f->w[f->nw - 1].to)
				f->w[f->nw - 1].to = w.to;
		} else {
			f->w[f->nw++] = w;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static int setup(void **state, const subject *sub)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!f)
		return -1;
	*state = f;
	f->sub = sub;
	test_record(&f->s, f->db, sizeof f->db, "frames.db", "%s --stimuli %s --instructions %s --quiet",
		    sub->elf, sub->stim, sub->length);
	avrr_err err;
	if (fw_load_file(sub->elf, &f->fw, &err) || cfi_build(f->fw, sub->pc_bytes, &f->cfi, &err))
		fail_msg("%s", err.msg);
	find_windows(f);
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	cfi_free(f->cfi);
	free(f->pos);
	fw_free(f->fw);
	return test_fixture_teardown(state);
}

/* Whether pc is an instruction of a handler (not a vector slot). */
static const cfi_row *isr_row(const fixture *f, uint32_t pc)
{
	const cfi_row *r = cfi_at(f->cfi, pc);
	return r && r->interrupt && r->func && r->pc == pc ? r : NULL;
}

static void test_shell_frames_at_every_handler_instruction(void **state)
{
	fixture *f = *state;
	assert_true(f->nw >= 3);
	char script[512];
	snprintf(script, sizeof script, "%s/frames.gdb", f->s.dir);
	FILE *out = fopen(script, "w");
	assert_non_null(out);
	unsigned steps = 0;
	for (unsigned i = 0; i < f->nw; i++) {
		fprintf(out, "goto %" PRIu64 "\n", f->w[i].from);
		for (uint64_t k = f->w[i].from; k <= f->w[i].to + 1; k++, steps++) {
			if (k > f->w[i].from)
				fprintf(out, "stepi\n");
			fprintf(out, "where\n");
			for (unsigned d = 1; d <= 8; d++)
				fprintf(out, "frame %u\n", d);
		}
	}
	fclose(out);
	char cmd[2048], result[256];
	snprintf(result, sizeof result, "%s/frames.out", f->s.dir);
	snprintf(cmd, sizeof cmd, "%s shell '%s' -x '%s' > '%s' 2>&1", test_avrr(), f->db, script,
		 result);
	assert_int_equal(system(cmd), 0);

	FILE *in = fopen(result, "r");
	assert_non_null(in);
	char line[1024];
	where_line wl[MAX_DEPTH + 1];
	memset(wl, 0, sizeof wl);
	unsigned isr_insns = 0, checked = 0, bad = 0, ninsn = 0;
	uint32_t pc0 = 0;
	char first_bad[2048] = "";
	unsigned char *seen = calloc(f->fw->flash_size, 1);
	assert_non_null(seen);
	f->pos = calloc(steps, sizeof *f->pos);
	assert_non_null(f->pos);
	unsigned pending = 0;      /* a frame K whose "    0x..." line comes next */
	while (fgets(line, sizeof line, in)) {
		unsigned long long ic;
		unsigned k, v, pc;
		char rest[600];
		if (sscanf(line, "icount=%llu pc=0x%x", &ic, &pc) == 2) {
			/* the motion's stop line, then where's own */
			pc0 = pc;
			if (ninsn % 2 && ninsn / 2 < steps) {
				/* where's own: the table is complete */
				f->pos[ninsn / 2].pc = pc0;
			}
			if (ninsn && ninsn % 2 == 0 && ninsn / 2 <= steps)
				memcpy(f->pos[ninsn / 2 - 1].wl, wl, sizeof wl);
			memset(wl, 0, sizeof wl);
			ninsn++;
			if (isr_row(f, pc)) {
				seen[pc] = 1;
				isr_insns++;
			}
			continue;
		}
		char vname[32];
		if (sscanf(line, "#%u  interrupt %u (%31[^)]) taken at 0x%x", &k, &v, vname, &pc) == 4 &&
		    k <= MAX_DEPTH) {
			wl[k] = (where_line){ 'i', pc, v, 0, "" };
			snprintf(wl[k].name, sizeof wl[k].name, "%s", vname);
			const char *at = strstr(line, ".c:");
			if (at)
				wl[k].line = (unsigned)atoi(at + 3);
			continue;
		}
		if (sscanf(line, "#%u  called from 0x%x", &k, &pc) == 2 && k <= MAX_DEPTH) {
			avr_insn insn;
			assert_int_equal(avr_decode(f->fw->flash, f->fw->flash_size, pc, &insn), 0);
			wl[k] = (where_line){ 'c', pc + 2u * insn.words, 0, 0, "" };
			continue;
		}
		int end = 0;
		if (sscanf(line, "#%u  main, the outermost%n", &k, &end) == 1 && end &&
		    k <= MAX_DEPTH) {
			wl[k] = (where_line){ 'm', 0, 0, 0, "" };
			continue;
		}
		const char *why = NULL;
		if (pending) {
			k = pending;
			pending = 0;
			if (sscanf(line, "    0x%x in %599s", &pc, rest) != 2 || pc != wl[k].from)
				why = "the interrupted frame's pc";
			else
				checked++;
		} else if (sscanf(line, "#%u  <interrupt %*s (vector %u)", &k, &v) == 2) {
			if (k > MAX_DEPTH || wl[k].kind != 'i' || wl[k].vector != v)
				why = "an interrupt frame where was none";
			else
				pending = k;
		} else if (sscanf(line, "#%u  0x%x in", &k, &pc) == 2) {
			/* past main: the C runtime's frame that called it */
			if (k > MAX_DEPTH || (wl[k].kind != 'c' && wl[k].kind != 'm') ||
			    (wl[k].kind == 'c' && wl[k].from != pc))
				why = "a caller's frame pc";
			else
				checked++;
		} else if (sscanf(line, "No frame at level %u.", &k) == 1) {
			if (k <= MAX_DEPTH && (wl[k].kind == 'i' || wl[k].kind == 'c'))
				why = "no frame where one is";
		} else if (!(line[0] >= '1' && line[0] <= '9' && strchr(line, '\t'))) {
			why = "not a frame";   /* a source line aside */
		}
		if (why) {
			if (!bad++)
				snprintf(first_bad, sizeof first_bad,
					 "%s at pc 0x%x (step %u): %s", why, pc0, ninsn, line);
		}
	}
	fclose(in);
	if (ninsn == 2 * steps)
		memcpy(f->pos[steps - 1].wl, wl, sizeof wl);
	f->npos = steps;
	unsigned total = 0, missed = 0;
	unsigned nrows;
	const cfi_row *rows = cfi_rows(f->cfi, &nrows);
	char missing[256] = "";
	for (unsigned i = 0; i < nrows; i++)
		if (rows[i].interrupt && rows[i].func) {
			total++;
			if (!seen[rows[i].pc] && !missed++)
				snprintf(missing, sizeof missing, "0x%x", rows[i].pc);
		}
	free(seen);
	/* each position prints two lines: the motion's and where's */
	print_message("# shell: %u positions, %u of them in handlers, covering %u of the %u "
		      "handler instructions; %u frames checked, %u wrong\n",
		      steps, isr_insns / 2, total - missed, total, checked, bad);
	if (bad)
		fail_msg("%u wrong frames; the first: %s", bad, first_bad);
	assert_int_equal(ninsn, 2 * steps);
	if (missed && f->sub->every_insn)
		fail_msg("%u handler instructions never stepped, the first at %s", missed, missing);
	assert_true(checked > steps);
}

/* avr-gdb through `avrr gdb` at the same positions: `bt` lists the frames
 * the shell's where names, each at its pc (an interrupted frame at the
 * interrupted pc, a caller at the return address), down to main; an
 * interrupted frame comes under a line `<interrupt VECTOR> ()` and shows
 * the source line of its own pc, as where does. */
static void test_gdb_frames_at_every_handler_instruction(void **state)
{
	fixture *f = *state;
	char out[256];
	if (test_run(out, sizeof out, "command -v avr-gdb") != 0)
		skip();
	assert_true(f->npos > 0);   /* the shell's test ran first */
	char script[512], result[256], cmd[2048];
	snprintf(script, sizeof script, "%s/frames-gdb.gdb", f->s.dir);
	snprintf(result, sizeof result, "%s/frames-gdb.out", f->s.dir);
	FILE *sc = fopen(script, "w");
	assert_non_null(sc);
	fputs("python\n"
	      "def avrr_dump():\n"
	      "    try:\n"
	      "        text = gdb.execute('bt', to_string=True)\n"
	      "    except gdb.error as e:\n"
	      "        text = 'ERROR %s\\n' % e\n"
	      "    gdb.write('@@\\n' + text)\n"
	      "end\n", sc);
	for (unsigned i = 0; i < f->nw; i++)
		fprintf(sc, "monitor goto %" PRIu64 "\n"
			    "maintenance flush register-cache\n"
			    "python avrr_unwinder.forget()\n"
			    "python avrr_dump()\n"
			    "python\n"
			    "for i in range(%" PRIu64 "):\n"
			    "    gdb.execute('stepi', to_string=True)\n"
			    "    avrr_dump()\n"
			    "end\n", f->w[i].from, f->w[i].to + 1 - f->w[i].from);
	fclose(sc);
	snprintf(cmd, sizeof cmd, "%s gdb '%s' -batch -x '%s' > '%s' 2>&1", test_avrr(), f->db,
		 script, result);
	assert_int_equal(system(cmd), 0);
	FILE *in = fopen(result, "r");
	assert_non_null(in);
	char line[1024], first_bad[1200] = "";
	int idx = -1;
	unsigned depth = 0, checked = 0, bad = 0, in_isr = 0, marks = 0;
	char mark[64] = "";       /* the <interrupt NAME> line just seen */
	for (;;) {
		char *got = fgets(line, sizeof line, in);
		if (!got || !strcmp(line, "@@\n")) {
			if (idx >= 0 && (unsigned)idx < f->npos) {
				/* the frames where lists, main's start-up aside */
				unsigned want = 0;
				for (unsigned k = 1; k <= MAX_DEPTH; k++)
					if (f->pos[idx].wl[k].kind == 'i' || f->pos[idx].wl[k].kind == 'c')
						want = k;
				if (depth != want + 1 && !bad++)
					snprintf(first_bad, sizeof first_bad,
						 "position %d (pc 0x%x): %u frames, where has %u", idx,
						 f->pos[idx].pc, depth, want + 1);
				in_isr += isr_row(f, f->pos[idx].pc) != NULL;
			}
			if (!got)
				break;
			idx++;
			depth = 0;
			continue;
		}
		if (idx < 0 || (unsigned)idx >= f->npos)
			continue;
		unsigned k, pc;
		if (sscanf(line, "<interrupt %63[^>]> ()", mark) == 1)
			continue;
		if (!strncmp(line, "ERROR", 5) || !strncmp(line, "Backtrace stopped", 17)) {
			if (!bad++)
				snprintf(first_bad, sizeof first_bad, "position %d (pc 0x%x): %s", idx,
					 f->pos[idx].pc, line);
			continue;
		}
		if (sscanf(line, "#%u", &k) != 1)
			continue;
		depth = k + 1;
		const position *p = &f->pos[idx];
		int ok;
		if (k == 0)
			ok = sscanf(line, "#0  0x%x in", &pc) != 1 || pc == p->pc;
		else
			ok = k <= MAX_DEPTH && sscanf(line, "#%*u  0x%x in", &pc) == 1 &&
			     (p->wl[k].kind == 'i' || p->wl[k].kind == 'c') && pc == p->wl[k].from;
		if (ok && k && k <= MAX_DEPTH && p->wl[k].kind == 'i') {
			/* the interrupt on a line of its own, then the code it
			 * stopped at the line of its own pc */
			const char *at = strstr(line, ".c:");
			ok = !strcmp(mark, p->wl[k].name) &&
			     (!p->wl[k].line || (at && (unsigned)atoi(at + 3) == p->wl[k].line));
			marks += ok;
		} else if (ok && *mark) {
			ok = 0;   /* an interrupt line where was none */
		}
		mark[0] = 0;
		if (ok)
			checked++;
		else if (!bad++)
			snprintf(first_bad, sizeof first_bad, "position %d (pc 0x%x): %s", idx, p->pc,
				 line);
	}
	fclose(in);
	print_message("# avr-gdb: %d positions, %u of them in handlers; %u frames checked (%u "
		      "under an <interrupt> line), %u wrong\n", idx + 1, in_isr, checked, marks, bad);
	if (bad)
		fail_msg("%u wrong; the first: %s", bad, first_bad);
	assert_int_equal((unsigned)(idx + 1), f->npos);
}

/* A vector's name, as ISR() names it and where prints it, breaks on its
 * handler; a vector the firmware has no handler for says so. */
static void test_break_on_a_vector_name(void **state)
{
	fixture *f = *state;
	char script[512];
	snprintf(script, sizeof script, "%s/vector.gdb", f->s.dir);
	FILE *sc = fopen(script, "w");
	assert_non_null(sc);
	fputs("break TIMER2_COMPA_vect\nbreak USART_RX_vect\nbreak NOPE_vect\ncontinue\n", sc);
	fclose(sc);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s shell '%s' -x '%s'", test_avrr(),
				  f->db, script), 0);
	assert_string_equal(f->s.out,
			    "Breakpoint 1 at 0x0272: __vector_7 at isr_frames.c:66\n"
			    "USART_RX_vect (vector 18) has no handler in the firmware\n"
			    "no symbol \"NOPE_vect\" in the firmware\n"
			    "Breakpoint 1, TIMER2_COMPA_vect\n"
			    "icount=8846 pc=0x0272 __vector_7 at isr_frames.c:66\n");
}

/* avr-gdb's way round its internal error on a condition over a variable
 * in a register pair (docs/gdb.md): cast it first, or copy it into a
 * convenience variable. */
static void test_gdb_condition_over_a_register_pair(void **state)
{
	fixture *f = *state;
	char out[256];
	if (test_run(out, sizeof out, "command -v avr-gdb") != 0)
		skip();
	assert_int_equal(test_run(f->s.out, sizeof f->s.out,
				  "%s gdb '%s' -batch -ex 'break isr_frames.c:44 if (int)c > 700' "
				  "-ex c -ex 'p c' -ex 'set var $c = c' -ex 'p $c > 700'",
				  test_avrr(), f->db), 0);
	if (!strstr(f->s.out, "Breakpoint 1, mix (n=n@entry=4 '\\004') at tests/firmware/isr_frames.c:44\n"
			      "44\t\t\tc = (uint16_t)(c + a + step(b));\n"
			      "$1 = 1295\n"
			      "$2 = 1\n"))
		fail_msg("avr-gdb said:\n%s", f->s.out);
	assert_null(strstr(f->s.out, "internal-error"));
}

/* The rows of TIMER2_COMPA's handler: an 80-byte frame set up through Y. */
static void test_rows_follow_the_prologue_and_epilogue(void **state)
{
	fixture *f = *state;
	const fw_symbol *s = fw_find_symbol(f->fw, "__vector_7");
	assert_non_null(s);
	const cfi_row *r = cfi_at(f->cfi, s->addr);
	assert_non_null(r);
	/* at the entry: the return address on top, nothing saved */
	assert_int_equal(r->base, CFI_SP);
	assert_int_equal(r->off, 2);
	assert_true(r->interrupt);
	/* push r1; push r0; in r0, SREG; push r0; eor r1, r1: after them r1
	 * at CFA-2, r0 at CFA-3 and SREG at CFA-4 (what avr-gcc's own
	 * .debug_frame leaves out) */
	r = cfi_at(f->cfi, s->addr + 10);
	assert_non_null(r);
	assert_int_equal(r->off, 5);
	assert_int_equal(r->saved[1], 2);
	assert_int_equal(r->saved[0], 3);
	assert_int_equal(r->saved[CFI_SREG], 4);
	/* every instruction has a row up to the reti, where SP + 2 again */
	unsigned n = 0, on_y = 0;
	uint32_t pc = s->addr;
	avr_insn in;
	for (;;) {
		r = cfi_at(f->cfi, pc);
		assert_non_null(r);
		assert_int_equal(r->func, s->addr);
		on_y += r->base == CFI_Y;
		n++;
		assert_int_equal(avr_decode(f->fw->flash, f->fw->flash_size, pc, &in), 0);
		if (in.op == AVR_OP_RETI)
			break;
		pc += 2u * in.words;
	}
	assert_int_equal(r->base, CFI_SP);
	assert_int_equal(r->off, 2);
	for (unsigned k = 0; k <= CFI_SREG; k++)
		assert_int_equal(r->saved[k], 0);
	/* SP is half-written (out SPH done, out SPL not) before one
	 * instruction of the prologue and two of the epilogue (out SREG in
	 * between): Y holds the CFA there */
	assert_int_equal(on_y, 3);
	/* the naked INT0 handler: push r24; in r24, SREG; push r24 */
	s = fw_find_symbol(f->fw, "__vector_1");
	assert_non_null(s);
	r = cfi_at(f->cfi, s->addr + 12);   /* after subi: SREG differs now */
	assert_non_null(r);
	assert_int_equal(r->off, 4);
	assert_int_equal(r->saved[24], 2);
	assert_int_equal(r->saved[CFI_SREG], 3);
	r = cfi_at(f->cfi, s->addr + 18);   /* pop r24 took SREG back into r24 */
	assert_non_null(r);
	assert_int_equal(r->saved[CFI_SREG], 0);
	assert_int_equal(r->sreg_in, 24 + 1);
	unsigned followed, failed;
	cfi_counts(f->cfi, &followed, &failed);
	assert_int_equal(failed, 0);
}

static const subject ISR_FRAMES = { ELF, STIM, "30k", 2, 1 };
/* ISR_NOBLOCK timer tick with the UART's handlers nested in it, the
 * watchdog's; and a part with a 22-bit PC (3-byte return addresses). */
static const subject M88 = { "tests/firmware/atmega88.elf", "tests/firmware/atmega88.stim",
			     "200k", 2, 0 };
static const subject M2560 = { "tests/firmware/atmega2560.elf",
			       "tests/firmware/atmega2560.stim", "100k", 3, 0 };

static int setup_isr_frames(void **state)
{
	return setup(state, &ISR_FRAMES);
}

static int setup_m88(void **state)
{
	return setup(state, &M88);
}

static int setup_m2560(void **state)
{
	return setup(state, &M2560);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_follow_the_prologue_and_epilogue),
		cmocka_unit_test(test_shell_frames_at_every_handler_instruction),
		cmocka_unit_test(test_gdb_frames_at_every_handler_instruction),
		cmocka_unit_test(test_break_on_a_vector_name),
		cmocka_unit_test(test_gdb_condition_over_a_register_pair),
	};
	const struct CMUnitTest others[] = {
		cmocka_unit_test(test_shell_frames_at_every_handler_instruction),
		cmocka_unit_test(test_gdb_frames_at_every_handler_instruction),
	};
	/* FRAMES_ONLY=test_name: one test (the stepping ones take minutes) */
	if (getenv("FRAMES_ONLY"))
		cmocka_set_test_filter(getenv("FRAMES_ONLY"));
	int rc = cmocka_run_group_tests_name("isr_frames", tests, setup_isr_frames, teardown);
	rc |= cmocka_run_group_tests_name("atmega88", others, setup_m88, teardown);
	rc |= cmocka_run_group_tests_name("atmega2560", others, setup_m2560, teardown);
	return rc;
}
