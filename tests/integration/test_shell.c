/*
 * test_shell.c — `avrr shell` driven by scripts over the bundled firmware.
 *
 *  - A scripted session prints exactly fixtures/shell_session.out.  Its
 *    facts were checked independently: main is at 0x3e0 and g_led at data
 *    0x75 (avr-nm), 0x3e0 is funcsheap.c:160 (avr-addr2line), g_led is 0
 *    until the first INT0 sets it to 1 and becomes 3 one Johnson step later
 *    (funcsheap.c), and the replay of this configuration is exact.
 *  - Going backward is exact: for random icounts, `goto` from later on gives
 *    the same registers, I/O, SRAM and call stack as stepping forward from
 *    the start.
 *  - Under a small --checkpoint-memory cap on a 3*10^7-instruction
 *    recording (about 10 MB of checkpoints uncapped), `info checkpoints`
 *    stays under the cap, fewer checkpoints are kept, and reverse-stepi and
 *    goto show the same state as uncapped.
 *  - Travel replays the run about once, whatever its length: `goto END`
 *    from the start replays exactly END instructions and lays checkpoints
 *    ever sparser (about 8 ln(END / 2^22) past the first eight, not one
 *    every 2^19); `reverse-continue` from there back to a watch written
 *    in adcapp's init() (TIMSK, 0 -> OCIE1A: ATmega16 datasheet) sends
 *    one scout per checkpoint and replays the run once more, not more.
 *  - reverse-stepi right after a goto takes over the engine's spare, laid
 *    2^10 instructions short of the goto's end: it replays 2^10 - 1
 *    instructions, forks nothing, and the count of checkpoints stays (the
 *    spare leaves it, the engine that asked joins it).  The next ones
 *    have no spare and resume from the one laid 2^14 short of the goto's
 *    end, laying nothing on so short a hop; a long goto back lays a
 *    spare again, which the reverse-stepi after it takes.  It arrives at
 *    the state a forward goto gives.
 *  - A motion that checks only value watches hears only of the steps that
 *    change the call stack or a watched byte (the sim's step filter): it
 *    stops where the same motion stops when a code breakpoint (never hit)
 *    makes it hear of every step, forward and backward, with the same
 *    registers and call stack.
 *  - Bad commands, addresses and symbols are one line each and the shell
 *    goes on; bad arguments to the command itself exit 2.
 */
#include "tests/testlib.h"

#include <math.h>

typedef test_scratch scratch;

#define FLAGS "flags:sel=SPL+SPH+SREG+TIFR+GIFR+UCSRA+ADCSRA+r24+r25+r30,width=32"
#define LENGTH 1200000


static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_scripted_session_is_exact(void **state)
{
	scratch *s = *state;
	char db[256];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d --fp '%s'", LENGTH, FLAGS);
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "%s shell '%s' --fp flags --match sequence "
				  "-x tests/integration/fixtures/shell_session.gdb",
				  test_avrr(), db), 0);
	assert_string_equal(s->out, read_file("tests/integration/fixtures/shell_session.out"));
}

/* The text between the n-th "==" line of out and the next "--" line. */
static const char *section(const char *out, int n, size_t *len)
{
	const char *p = out;
	for (int i = 0; i <= n; i++) {
		p = strstr(p, "==\n");
		assert_non_null(p);
		p += 3;
	}
	const char *end = strstr(p, "--\n");
	assert_non_null(end);
	*len = (size_t)(end - p);
	return p;
}

static void test_backward_equals_forward(void **state)
{
	scratch *s = *state;
	char db[256], back[256], fwd[256];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d --fp '%s'", LENGTH, FLAGS);
	snprintf(back, sizeof back, "%s/back.gdb", s->dir);
	snprintf(fwd, sizeof fwd, "%s/fwd.gdb", s->dir);
	FILE *b = fopen(back, "w"), *f = fopen(fwd, "w");
	assert_non_null(b);
	assert_non_null(f);
	srand(4);
	enum { N = 6 };
	for (int i = 0; i < N; i++) {
		unsigned k = 1 + (unsigned)rand() % (LENGTH - 2);
		/* Backward: from the end (past every checkpoint), and from one
		 * instruction later. */
		fprintf(b, "goto %d\ngoto %u\necho ==\ninfo registers\nx/1120xb 0\nwhere\necho --\n",
			i % 2 ? LENGTH : k + 1, k);
		fprintf(f, "run\nstepi %u\necho ==\ninfo registers\nx/1120xb 0\nwhere\necho --\n", k);
	}
	fclose(b);
	fclose(f);
	static char out_back[sizeof s->out * 16], out_fwd[sizeof s->out * 16];
	assert_int_equal(test_run(out_back, sizeof out_back, "%s shell '%s' --fp flags --match "
				  "sequence -x '%s'", test_avrr(), db, back), 0);
	assert_int_equal(test_run(out_fwd, sizeof out_fwd, "%s shell '%s' --fp flags --match "
				  "sequence -x '%s'", test_avrr(), db, fwd), 0);
	for (int i = 0; i < N; i++) {
		size_t lb, lf;
		const char *sb = section(out_back, i, &lb), *sf = section(out_fwd, i, &lf);
		assert_true(lb > 1120 * 4);  /* a whole dump */
		assert_int_equal(lb, lf);
		assert_memory_equal(sb, sf, lb);
	}
}

/* The checkpoints and their memory in MB from every `info checkpoints` in
 * out (at most `max`); returns how many there were. */
static int checkpoint_lines(const char *out, unsigned *count, double *mb, double *cap, int max)
{
	int n = 0;
	for (const char *p = out; n < max && (p = strstr(p, " checkpoints, ")) != NULL; p++) {
		const char *line = p;
		while (line > out && line[-1] != '\n')
			line--;
		assert_int_equal(sscanf(line, "%u checkpoints, %lf MB of at most %lf MB", &count[n],
					&mb[n], &cap[n]), 3);
		n++;
	}
	return n;
}

/* Drops the `info checkpoints` lines from out: they differ with the cap. */
static void strip_checkpoints(char *out)
{
	char *w = out;
	for (char *r = out; *r;) {
		char *nl = strchr(r, '\n');
		size_t len = nl ? (size_t)(nl - r) + 1 : strlen(r);
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)len, r);
		if (!strstr(line, " checkpoints, ") && strncmp(line, "  icount ", 9) &&
		    strncmp(line, "travel so far: ", 15)) {
			memmove(w, r, len);
			w += len;
		}
		r += len;
	}
	*w = 0;
}

static void test_checkpoint_memory_cap(void **state)
{
	scratch *s = *state;
	enum { LONG = 30000000 };
	char db[256], script[256];
	snprintf(db, sizeof db, "%s/long.db", s->dir);
	snprintf(script, sizeof script, "%s/cap.gdb", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "%s record traces/funcsheap.elf --stimuli traces/funcsheap.stim "
				  "--instructions %d -o '%s'", test_avrr(), LONG, db), 0);
	FILE *f = fopen(script, "w");
	assert_non_null(f);
	/* To the end, back one, far back (past the thinned span), forward
	 * again and back a little: each with the whole state.  To the end
	 * under a breakpoint (on the reset vector, never reached again): a
	 * motion that could stop anywhere lays a checkpoint every interval,
	 * where a plain goto lays few, and the cap thins them. */
	fprintf(f, "break 0\ncontinue\ndelete\ninfo checkpoints\nreverse-stepi\ninfo registers\nwhere\n"
		   "goto 12345\ninfo checkpoints\ninfo registers\nx/256xb 0x60\nwhere\n"
		   "goto %d\nreverse-stepi 1000\ninfo checkpoints\ninfo registers\n"
		   "x/256xb 0x60\nwhere\n", LONG - 1000000);
	fclose(f);
	static char capped[sizeof s->out * 8], free_run[sizeof s->out * 8];
	assert_int_equal(test_run(capped, sizeof capped, "%s shell '%s' --checkpoint-memory 4 -x '%s'",
				  test_avrr(), db, script), 0);
	assert_int_equal(test_run(free_run, sizeof free_run, "%s shell '%s' -x '%s'", test_avrr(),
				  db, script), 0);
	unsigned nc[3], nf[3];
	double mc[3], mf[3], cc[3], cf[3];
	assert_int_equal(checkpoint_lines(capped, nc, mc, cc, 3), 3);
	assert_int_equal(checkpoint_lines(free_run, nf, mf, cf, 3), 3);
	for (int i = 0; i < 3; i++) {
		assert_true(cc[i] == 4 && cf[i] == 256);
		if (mc[i] > 4)
			fail_msg("info checkpoints %d: %.1f MB over the cap of 4 MB", i, mc[i]);
	}
	assert_true(nc[0] < nf[0]);  /* the cap thinned them */
	strip_checkpoints(capped);
	strip_checkpoints(free_run);
	assert_non_null(strstr(capped, "icount=29999999 "));
	assert_non_null(strstr(capped, "icount=12345 "));
	assert_string_equal(capped, free_run);
}

/* The n-th `travel so far` line of out. */
static void travel_line(const char *out, int n, unsigned long long *replayed,
			unsigned long long *scouts, unsigned long long *laid)
{
	const char *p = out;
	for (int i = 0; i <= n; i++) {
		p = strstr(p + (i > 0), "travel so far: ");
		assert_non_null(p);
	}
	assert_int_equal(sscanf(p, "travel so far: %llu instructions replayed, %llu scouts, "
				"%llu checkpoints laid", replayed, scouts, laid), 3);
}

static void test_travel_replays_the_run_once(void **state)
{
	scratch *s = *state;
	enum { LONG = 20000000, INTERVAL = 1 << 19, SPARSE = 8 };
	char db[256], script[256];
	snprintf(db, sizeof db, "%s/adc.db", s->dir);
	snprintf(script, sizeof script, "%s/travel.gdb", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "%s record traces/adcapp.elf --stimuli traces/adcapp.stim "
				  "--instructions %d -o '%s'", test_avrr(), LONG, db), 0);
	FILE *f = fopen(script, "w");
	assert_non_null(f);
	/* TIMSK is data address 0x59 on the ATmega16 (I/O 0x39 + 0x20). */
	fprintf(f, "goto %d\ninfo checkpoints\nwatch 0x59\nreverse-continue\n"
		   "info checkpoints\n", LONG);
	fclose(f);
	static char out[sizeof s->out * 4];
	assert_int_equal(test_run(out, sizeof out, "%s shell '%s' -x '%s'", test_avrr(), db, script), 0);
	unsigned long long replayed, scouts, laid, replayed2, scouts2, laid2;
	travel_line(out, 0, &replayed, &scouts, &laid);
	travel_line(out, 1, &replayed2, &scouts2, &laid2);
	unsigned nck[2];
	double mb[2], cap[2];
	assert_int_equal(checkpoint_lines(out, nck, mb, cap, 2), 2);

	/* To the end: the run once, and its checkpoints: icount 0, one at
	 * every interval while the gap 1/SPARSE of the way is below it (the
	 * first SPARSE intervals), then each at least 9/8 of the last, and one
	 * NEAR_BACK short of the end.  One every interval would be 39. */
	assert_int_equal(replayed, LONG);
	assert_int_equal(scouts, 0);
	double sparse = ceil(log((double)LONG / (SPARSE * INTERVAL)) / log(9.0 / 8.0));
	if (laid > 1 + SPARSE + (unsigned long long)sparse + 1)
		fail_msg("goto %d laid %llu checkpoints, more than %.0f", LONG, laid, 2 + SPARSE + sparse);
	assert_int_equal(nck[0], laid);

	/* Back to init's write of TIMSK: a scout from every checkpoint (the
	 * write is before the first past 0), which together replay the run
	 * once more, and the copy from icount 0 replays to just before the
	 * write (gdb's convention backward: Old value is the later one). */
	const char *hit = strstr(out, "Old value = 16\nNew value = 0\nicount=");
	assert_non_null(hit);
	unsigned long long at = strtoull(hit + strlen("Old value = 16\nNew value = 0\nicount="),
					 NULL, 10);
	assert_true(at > 0 && at < INTERVAL);
	/* The scout from checkpoint c looks at c+1 .. up to the next one, the
	 * last at up to LONG - 1: together the positions 1 .. LONG - 1; each
	 * runs one instruction more, as a watch stops before its access (a
	 * write at the next checkpoint stops at the one before it). */
	assert_int_equal(scouts2, nck[0]);
	assert_int_equal(replayed2 - replayed - at, LONG - 1 + scouts2);
}

/* `info registers` and `where` from the first "==" line of out on. */
static const char *after_marker(const char *out)
{
	const char *p = strstr(out, "==\n");
	assert_non_null(p);
	return p;
}

static void test_reverse_stepi_takes_the_spare(void **state)
{
	scratch *s = *state;
	enum { AT = 2000000, MID = 1000000, INTERVAL = 1 << 19, SPARE_BACK = 1 << 10,
	       NEAR_BACK = 1 << 14, N = 6 };
	char db[256], script[256], fwd[256];
	snprintf(db, sizeof db, "%s/adc.db", s->dir);
	snprintf(script, sizeof script, "%s/back.gdb", s->dir);
	snprintf(fwd, sizeof fwd, "%s/fwd.gdb", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "%s record traces/adcapp.elf --stimuli traces/adcapp.stim "
				  "--instructions 3000000 -o '%s'", test_avrr(), db), 0);
	FILE *f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "goto %d\ninfo checkpoints\nreverse-stepi\ninfo checkpoints\n"
		   "reverse-stepi\ninfo checkpoints\nreverse-stepi\ninfo checkpoints\n"
		   "goto %d\ninfo checkpoints\nreverse-stepi\ninfo checkpoints\n"
		   "echo ==\ninfo registers\nwhere\n", AT, MID);
	fclose(f);
	static char out[sizeof s->out * 4], forward[sizeof s->out * 4];
	assert_int_equal(test_run(out, sizeof out, "%s shell '%s' -x '%s'", test_avrr(), db, script), 0);
	unsigned long long replayed[N], scouts[N], laid[N];
	for (int i = 0; i < N; i++)
		travel_line(out, i, &replayed[i], &scouts[i], &laid[i]);
	unsigned nck[N];
	double mb[N], cap[N];
	assert_int_equal(checkpoint_lines(out, nck, mb, cap, N), N);
	/* From the start the run lays one at each of the first multiples of
	 * INTERVAL (1 .. 3 below AT), then one NEAR_BACK short of AT, then
	 * the spare SPARE_BACK short of it. */
	assert_int_equal(replayed[0], AT);
	/* The spare runs to AT - 1: nothing laid, it leaves the list and
	 * the engine that asked joins it. */
	assert_int_equal(replayed[1] - replayed[0], SPARE_BACK - 1);
	assert_int_equal(laid[1], laid[0]);
	assert_int_equal(nck[1], nck[0]);
	/* No spare now: the one NEAR_BACK short of AT runs on, leaving a copy
	 * in its place, and lays nothing on a hop this short; the engine
	 * that asked is one more checkpoint. */
	assert_int_equal(replayed[2] - replayed[1], NEAR_BACK - 2);
	assert_int_equal(laid[2], laid[1]);
	assert_int_equal(nck[2], nck[1] + 1);
	assert_int_equal(replayed[3] - replayed[2], NEAR_BACK - 3);
	assert_int_equal(laid[3], laid[2]);
	assert_int_equal(nck[3], nck[2] + 1);
	/* A long jump back, from INTERVAL: it lays one NEAR_BACK short of
	 * MID and the spare, and the engine that asked stays. */
	assert_int_equal(replayed[4] - replayed[3], MID - INTERVAL);
	assert_int_equal(laid[4], laid[3] + 2);
	assert_int_equal(nck[4], nck[3] + 3);
	/* ... whose spare the reverse-stepi after it takes. */
	assert_int_equal(replayed[5] - replayed[4], SPARE_BACK - 1);
	assert_int_equal(laid[5], laid[4]);
	assert_int_equal(nck[5], nck[4]);
	assert_int_equal(scouts[5], 0);
	f = fopen(fwd, "w");
	assert_non_null(f);
	fprintf(f, "goto %d\necho ==\ninfo registers\nwhere\n", MID - 1);
	fclose(f);
	assert_int_equal(test_run(forward, sizeof forward, "%s shell '%s' -x '%s'", test_avrr(), db,
				  fwd), 0);
	assert_non_null(strstr(after_marker(out), "icount=999999 "));
	assert_string_equal(after_marker(out), after_marker(forward));
}

static void test_filtered_motions_match_every_step(void **state)
{
	scratch *s = *state;
	char db[256], filtered[256], every[256];
	snprintf(db, sizeof db, "%s/adc.db", s->dir);
	snprintf(filtered, sizeof filtered, "%s/filtered.gdb", s->dir);
	snprintf(every, sizeof every, "%s/every.gdb", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out,
				  "%s record traces/adcapp.elf --stimuli traces/adcapp.stim "
				  "--instructions 3000000 -o '%s'", test_avrr(), db), 0);
	/* seq: written by main at each reading; tx_head by the UART code,
	 * in and out of interrupts. */
	const char *motions = "echo ==\ncontinue\nwhere\ncontinue\nwhere\ninfo registers\ngoto 2900000\n"
			      "reverse-continue\nwhere\nreverse-continue\ninfo registers\nwhere\n";
	FILE *f = fopen(filtered, "w"), *g = fopen(every, "w");
	assert_non_null(f);
	assert_non_null(g);
	fprintf(f, "goto 1000000\nwatch seq\nwatch tx_head\n%s", motions);
	fprintf(g, "goto 1000000\nwatch seq\nwatch tx_head\nbreak 0\n%s", motions);
	fclose(f);
	fclose(g);
	static char a[sizeof s->out * 4], b[sizeof s->out * 4];
	assert_int_equal(test_run(a, sizeof a, "%s shell '%s' -x '%s'", test_avrr(), db, filtered), 0);
	assert_int_equal(test_run(b, sizeof b, "%s shell '%s' -x '%s'", test_avrr(), db, every), 0);
	const char *ma = strstr(a, "==\n"), *mb = strstr(b, "==\n");
	assert_non_null(ma);
	assert_non_null(mb);
	assert_non_null(strstr(ma, "Watchpoint 1: seq"));
	assert_string_equal(ma, mb);
}

static void test_errors_are_one_line(void **state)
{
	scratch *s = *state;
	char db[256];
	test_record(s, db, sizeof db, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions %d --fp '%s'", LENGTH, FLAGS);
	static const struct { const char *cmd, *line; } bad[] = {
		{ "frobnicate", "Undefined command: \"frobnicate\".  Try \"help\".\n" },
		{ "re", "Ambiguous command \"re\".\n" },
		{ "x/2xb 0x9999", "cannot access address 0x9999\n" },
		{ "x/2qb 0x60", "bad format 'q'\n" },
		{ "print nosuch", "No symbol \"nosuch\" in current context.\n" },
		{ "break nosuch", "no symbol \"nosuch\" in the firmware\n" },
		{ "break funcsheap.c:9999", "no line 9999 in funcsheap.c\n" },
		{ "watch main", "'main' is in flash, which the firmware cannot write\n" },
		{ "goto 99999999", "icount 99999999 is past the end of the recording (1200000)\n" },
		{ "goto irq 0", "no recorded interrupt '0' (they are numbered from 1)\n" },
		{ "delete 42", "No breakpoint number 42.\n" },
		{ "info nonsense", "Undefined info command \"nonsense\"; try: registers io "
				   "breakpoints irqs events fingerprint divergence checkpoints uart "
				   "frame locals args display\n" },
		{ "reverse-stepi", "Start of recording.\nicount=0 pc=0x0000 __vectors\n" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char expect[512];
		assert_int_equal(test_run(s->out, sizeof s->out,
					  "printf '%%s\\necho ok\\n' '%s' | %s shell '%s'", bad[i].cmd,
					  test_avrr(), db), 0);
		snprintf(expect, sizeof expect, "%sok\n", bad[i].line);
		assert_string_equal(s->out, expect);
	}
	/* The end of the recording is reported as such. */
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'goto %d\\nstepi\\n' | %s shell '%s' --fp flags "
				  "--match sequence", LENGTH, test_avrr(), db), 0);
	assert_non_null(strstr(s->out, "End of recording.\n"));

	/* The command's own bad input: one line, exit 2. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s shell %s/nope.db </dev/null",
				  test_avrr(), s->dir), 2);
	assert_non_null(strstr(s->out, "avrr shell: "));
	assert_non_null(strstr(s->out, "nope.db"));
	assert_null(strchr(strchr(s->out, '\n') + 1, '\n'));
	assert_int_equal(test_run(s->out, sizeof s->out, "%s shell '%s' -x %s/none.gdb", test_avrr(),
				  db, s->dir), 2);
	assert_non_null(strstr(s->out, "none.gdb: No such file or directory"));
	assert_int_equal(test_run(s->out, sizeof s->out, "%s shell '%s' --fp nosuch </dev/null",
				  test_avrr(), db), 2);
	assert_non_null(strstr(s->out, "no fingerprint configuration 'nosuch'"));
	static const struct { const char *args, *line; } usage[] = {
		{ "--match all", "avrr shell: --match: 'all' is neither 'set' nor 'sequence'\n" },
		{ "--window 0", "avrr shell: --window: 0 is not in 1..1024\n" },
		{ "--window x", "avrr shell: --window: 'x' is not a non-negative integer\n" },
		{ "--checkpoint-memory 0",
		  "avrr shell: --checkpoint-memory: 0 is not in 1..1048576 (MB)\n" },
		{ "--checkpoint-memory 2M",
		  "avrr shell: --checkpoint-memory: 2M is not in 1..1048576 (MB)\n" },
		{ "--checkpoint-memory -5",
		  "avrr shell: --checkpoint-memory: '-5' is not a non-negative integer\n" },
		{ "--frob", "avrr shell: unknown option '--frob'; see 'avrr shell --help'\n" },
		{ "-x", "avrr shell: -x needs a value\n" },
	};
	for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
		assert_int_equal(test_run(s->out, sizeof s->out, "%s shell '%s' %s </dev/null",
					  test_avrr(), db, usage[i].args), 2);
		assert_string_equal(s->out, usage[i].line);
	}
	assert_int_equal(test_run(s->out, sizeof s->out, "%s shell </dev/null", test_avrr()), 2);
	assert_string_equal(s->out, "avrr shell: expected one RUN.db or FIRMWARE.elf; see 'avrr shell --help'\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scripted_session_is_exact, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_backward_equals_forward, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_memory_cap, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_travel_replays_the_run_once, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_reverse_stepi_takes_the_spare, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_filtered_motions_match_every_step, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_errors_are_one_line, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
