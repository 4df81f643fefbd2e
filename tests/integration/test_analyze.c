/*
 * test_analyze.c — analyses on the replay, checked against answers known
 * from the firmware and the recording:
 *
 *  - race_tick (ATmega328P): main reads the 16-bit tick its timer ISR
 *    increments, in two loads.  `analyze races` names tick, both places,
 *    and witnesses: exactly the recorded interrupts whose return address is
 *    the second load, and at each the replay (and the shell) is inside the
 *    ISR.  With ATOMIC_BLOCK (race_tick_atomic) there is no race at all.
 *    On races_enable, a read while the writer's own source is disabled
 *    (TIMSKn) is none either: four races of eight split reads.
 *  - profile: spin() costs a hand-counted 7 cycles a call, exactly; the
 *    per-vector counts are avrr info's, on race_tick and funcsheap; the
 *    folded stacks add up to the instruction cycles.  The stack's deepest
 *    point has, frame for frame, the backtrace the shell's `where` gives
 *    there: on race_tick an interrupt taken on spin's first instruction,
 *    on the ATmega2560 the CALL of on_tick inside an ISR.
 *  - export --vcd: GTKWave's own reader (vcd2fst, fst2vcd) reads the file
 *    back with one rising and one falling edge per interrupt, and tick's
 *    last value is the number of interrupts.
 *  - a replay that goes wrong fails the analysis; bad arguments are refused.
 */
#include "tests/edit_log.h"

#include <jansson.h>
#include <sqlite3.h>
#include <unistd.h>

#include "replayer/replayer.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

#define TIMER0_OVF 16  /* on the ATmega328P */

static char big[1 << 18];


/* Runs an avrr command that prints JSON, and parses it. */
static json_t *run_json(const char *fmt, const char *path, const char *what)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, fmt, test_avrr(), path, what);
	int rc = test_run(big, sizeof big, "%s 2>/dev/null", cmd);
	if (rc)
		fail_msg("%s: exit %d: %s", cmd, rc, big);
	json_error_t e;
	json_t *o = json_loads(big, 0, &e);
	if (!o)
		fail_msg("%s: not JSON (%s): %s", cmd, e.text, big);
	return o;
}

static void test_seeded_race_is_witnessed(void **state)
{
	scratch *s = *state;
	char path[256], q[256];
	test_record(s, path, sizeof path, "race.db", "tests/firmware/race_tick.elf "
		    "--instructions 1M");
	json_t *o = run_json("%s analyze '%s' %s --json", path, "races");
	json_t *races = json_object_get(o, "races");
	assert_int_equal(json_array_size(races), 1);
	assert_int_equal(json_array_size(json_object_get(o, "potential")), 0);
	json_t *r = json_array_get(races, 0);
	assert_string_equal(test_json_str(r, "variable"), "tick");
	assert_int_equal(test_json_int(r, "size"), 2);
	assert_string_equal(test_json_str(r, "kind"), "split read");
	assert_string_equal(test_json_str(r, "context"), "main");
	json_t *other = json_object_get(r, "other");
	assert_string_equal(test_json_str(other, "context"), "TIMER0_OVF_vect");
	assert_string_equal(test_json_str(other, "access"), "write");
	/* Both halves are the one line `return tick;`, the write `tick++;`. */
	assert_string_equal(test_json_str(json_object_get(r, "first"), "where"), "race_tick.c:35");
	assert_string_equal(test_json_str(json_object_get(r, "second"), "where"), "race_tick.c:35");
	assert_string_equal(test_json_str(json_object_get(other, "at"), "where"), "race_tick.c:23");
	long long first = test_json_int(json_object_get(r, "first"), "pc");
	long long second = test_json_int(json_object_get(r, "second"), "pc");
	assert_int_equal(second, first + 4);  /* two LDS */
	/* The witnesses are exactly the interrupts taken with the second load
	 * next: the recording says how many. */
	snprintf(q, sizeof q, "SELECT count(*) FROM events WHERE type = 2 AND value = %lld", second);
	long long expected = test_sql_int(path, q);
	assert_true(expected > 0);
	assert_int_equal(test_json_int(r, "witness_count"), expected);
	json_t *w = json_object_get(r, "witnesses");
	assert_true(json_array_size(w) >= 1);
	snprintf(q, sizeof q, "SELECT min(icount) FROM events WHERE type = 2 AND value = %lld",
		 second);
	long long witness = json_integer_value(json_array_get(w, 0));
	assert_int_equal(witness, test_sql_int(path, q));

	/* At the witness the replay is inside the ISR, its return address the
	 * second half. */
	replay *rp;
	avrr_err err = { "" };
	rp_options opt = { .match = RP_MATCH_SEQUENCE };
	if (rp_open(path, &opt, &rp, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(rp_run(rp, (uint64_t)witness), RP_LIMIT);
	assert_int_equal(sim_running_vector(rp_sim(rp)), TIMER0_OVF);
	assert_int_equal(sim_stacked_pc(rp_sim(rp)), second);
	rp_close(rp);
	/* And so the shell shows it. */
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'goto %lld\\nwhere\\n' | %s shell '%s'",
				  witness, test_avrr(), path), 0);
	snprintf(q, sizeof q, "icount=%lld pc=0x0040", witness);
	assert_non_null(strstr(s->out, q));
	snprintf(q, sizeof q, "#1  interrupt 16 (TIMER0_OVF_vect) taken at 0x%04llx main+", second);
	if (!strstr(s->out, q))
		fail_msg("no '%s' in: %s", q, s->out);
	json_decref(o);
}

static void test_atomic_block_has_no_race(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "atomic.db", "tests/firmware/race_tick_atomic.elf "
		    "--instructions 1M");
	json_t *o = run_json("%s analyze '%s' %s --json", path, "races");
	assert_int_equal(json_array_size(json_object_get(o, "races")), 0);
	assert_int_equal(json_array_size(json_object_get(o, "potential")), 0);
	json_decref(o);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s analyze '%s' races", test_avrr(), path),
			 0);
	assert_non_null(strstr(s->out, "no races"));
}

/* races_enable.c: of main's eight split reads of variables an ISR
 * writes, four run while that ISR's own source is off (TOIE0 or OCIE1A
 * cleared): they are no races, the other four are — pos.x, pos.y, pos.z
 * read in phase B against the stepper, ms read in phase A against the
 * tick — each named with its line. */
static void test_disabled_source_is_no_race(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "enable.db", "tests/firmware/races_enable.elf "
		    "--instructions 200k");
	json_t *o = run_json("%s analyze '%s' %s --json", path, "races");
	json_t *all = json_array();
	json_array_extend(all, json_object_get(o, "races"));
	json_array_extend(all, json_object_get(o, "potential"));
	assert_int_equal(json_array_size(all), 4);
	const struct {
		const char *var, *line, *other, *write;
	} want[] = {
		{ "pos.x", "races_enable.c:60", "TIMER0_OVF_vect", "races_enable.c:33" },
		{ "pos.y", "races_enable.c:61", "TIMER0_OVF_vect", "races_enable.c:34" },
		{ "pos.z", "races_enable.c:62", "TIMER0_OVF_vect", "races_enable.c:35" },
		{ "ms", "races_enable.c:56", "TIMER1_COMPA_vect", "races_enable.c:40" },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		json_t *r = NULL;
		for (size_t i = 0; i < json_array_size(all) && !r; i++)
			if (!strcmp(test_json_str(json_array_get(all, i), "variable"), want[k].var))
				r = json_array_get(all, i);
		if (!r)
			fail_msg("no race on %s", want[k].var);
		assert_string_equal(test_json_str(r, "kind"), "split read");
		assert_string_equal(test_json_str(json_object_get(r, "first"), "where"), want[k].line);
		json_t *other = json_object_get(r, "other");
		assert_string_equal(test_json_str(other, "context"), want[k].other);
		assert_string_equal(test_json_str(json_object_get(other, "at"), "where"),
				    want[k].write);
	}
	json_decref(all);
	json_decref(o);
}

static json_t *find_named(json_t *arr, const char *key, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (!strcmp(test_json_str(v, key), name))
			return v;
	fail_msg("no %s '%s'", key, name);
	return NULL;
}

/* The profile's per-vector counts against avrr info's. */
static void check_counts_match_info(const char *path, json_t *prof)
{
	json_t *info = run_json("%s info '%s' %s", path, "--json");
	json_t *want = json_object_get(info, "interrupts_per_vector");
	json_t *got = json_object_get(prof, "interrupts_per_vector");
	assert_int_equal(json_array_size(got), json_array_size(want));
	assert_true(json_array_size(want) > 0);
	for (size_t i = 0; i < json_array_size(want); i++) {
		json_t *a = json_array_get(want, i), *b = json_array_get(got, i);
		assert_int_equal(test_json_int(a, "vector"), test_json_int(b, "vector"));
		assert_string_equal(test_json_str(a, "name"), test_json_str(b, "name"));
		assert_int_equal(test_json_int(a, "count"), test_json_int(b, "count"));
	}
	json_decref(info);
}

/* The shell's call stack at icount, innermost first, in the profile's
 * terms: the function at each frame's pc, and an interrupt's vector name
 * between the handler and the function it interrupted. */
static size_t shell_backtrace(scratch *s, const char *path, long long icount, char fr[][64],
			      size_t max)
{
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'goto %lld\\nwhere\\n' | "
				  "%s shell '%s'", icount, test_avrr(), path), 0);
	size_t n = 0;
	for (char *save, *l = strtok_r(s->out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char a[64], b[64];
		if (n + 2 > max)
			fail_msg("more than %zu frames", max);
		if (sscanf(l, "icount=%*u pc=%*x %63[^+ ]", a) == 1) {
			n = 0;  /* goto's position line, then where's */
			snprintf(fr[n++], 64, "%s", a);
		} else if (sscanf(l, "#%*u interrupt %*u (%63[^)]) taken at %*x %63[^+ ]", a, b) == 2) {
			snprintf(fr[n++], 64, "%s", a);
			snprintf(fr[n++], 64, "%s", b);
		} else if (sscanf(l, "#%*u called from %*x %63[^+ ]", a) == 1) {
			snprintf(fr[n++], 64, "%s", a);
		} else if (strstr(l, " main, the outermost frame: entered from the C runtime's "
				  "start-up [icount ")) {
			continue;  /* main is named by the frame before */
		} else {
			fail_msg("where: unexpected line '%s'", l);
		}
	}
	return n;
}

/* The profile's backtrace of the deepest stack is the shell's there, in
 * full. */
static void check_deepest_is_shells(scratch *s, const char *path, json_t *stack)
{
	char fr[32][64];
	size_t n = shell_backtrace(s, path, test_json_int(stack, "icount"), fr, 32);
	json_t *bt = json_object_get(stack, "backtrace");
	int same = json_array_size(bt) == n;
	for (size_t i = 0; same && i < n; i++)
		same = !strcmp(json_string_value(json_array_get(bt, i)), fr[i]);
	if (same)
		return;
	char got[1024] = "", want[1024] = "";
	for (size_t i = 0; i < json_array_size(bt) && i < 8; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), " %.63s",
			 json_string_value(json_array_get(bt, i)));
	for (size_t i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof want - strlen(want), " %.63s", fr[i]);
	fail_msg("deepest stack at icount %lld: the profile says%s, the shell%s",
		 test_json_int(stack, "icount"), got, want);
}

static void test_profile_is_exact(void **state)
{
	scratch *s = *state;
	char path[256], folded[300];
	test_record(s, path, sizeof path, "race.db", "tests/firmware/race_tick.elf "
		    "--instructions 1M");
	snprintf(folded, sizeof folded, "%s/race.folded", s->dir);
	char fmt[400];
	snprintf(fmt, sizeof fmt, "%%s analyze '%%s' %%s --json --folded '%s'", folded);
	json_t *o = run_json(fmt, path, "profile");
	json_t *spin = find_named(json_object_get(o, "functions"), "name", "spin");
	long long calls = test_json_int(spin, "calls");
	assert_true(calls > 1000);
	assert_int_equal(test_json_int(spin, "self"), 7 * calls);  /* 3 NOPs and a RET */
	assert_int_equal(test_json_int(spin, "total"), 7 * calls);
	/* Every call of spin is a CALL at one place in main: the recording's
	 * instruction count cannot tell, but the ISR count can be checked. */
	check_counts_match_info(path, o);
	json_t *v = json_array_get(json_object_get(o, "interrupts_per_vector"), 0);
	json_t *d = json_object_get(v, "duration");
	assert_int_equal(test_json_int(d, "min"), test_json_int(d, "max"));  /* tick++ takes the same each time */
	assert_int_equal(test_json_int(v, "total"), test_json_int(v, "count") * test_json_int(d, "min"));
	/* The folded stacks add up to the cycles of every instruction. */
	FILE *f = fopen(folded, "r");
	assert_non_null(f);
	char line[512];
	long long sum = 0, spin_line = -1;
	while (fgets(line, sizeof line, f)) {
		char *sp = strrchr(line, ' ');
		assert_non_null(sp);
		sum += atoll(sp + 1);
		if (!strncmp(line, "__do_clear_bss;main;spin ", 25))
			spin_line = atoll(sp + 1);
	}
	fclose(f);
	assert_int_equal(sum, test_json_int(o, "instruction_cycles"));
	assert_int_equal(spin_line, 7 * calls);
	/* The stack's deepest: inside the ISR, over spin (whose return
	 * address it adds), over main.  The first time, the interrupt comes
	 * right after the CALL, before spin's first instruction. */
	json_t *stack = json_object_get(o, "stack");
	json_t *bt = json_object_get(stack, "backtrace");
	assert_string_equal(json_string_value(json_array_get(bt, 0)), "__vector_16");
	assert_string_equal(json_string_value(json_array_get(bt, 1)), "TIMER0_OVF_vect");
	check_deepest_is_shells(s, path, stack);
	assert_string_equal(json_string_value(json_array_get(bt, 2)), "spin");
	assert_int_equal(test_json_int(stack, "bytes"), 0x8ff - test_json_int(stack, "lowest_sp"));
	json_decref(o);
}

/* The ATmega2560's deepest stack is reached by the CALL of on_tick in the
 * timer ISR: its return address is on_tick's frame. */
static void test_profile_deepest_after_call(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "m2560.db", "tests/firmware/atmega2560.elf "
		    "--stimuli tests/firmware/atmega2560.stim --instructions 200k");
	json_t *o = run_json("%s analyze '%s' %s --json", path, "profile");
	json_t *stack = json_object_get(o, "stack");
	check_deepest_is_shells(s, path, stack);
	assert_string_equal(json_string_value(json_array_get(json_object_get(stack, "backtrace"), 0)),
			    "on_tick");
	json_decref(o);
}

static void test_profile_funcsheap_counts(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "fh.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions 1M");
	json_t *o = run_json("%s analyze '%s' %s --json", path, "profile");
	check_counts_match_info(path, o);
	/* func_a calls func_b calls func_c: totals nest. */
	json_t *funcs = json_object_get(o, "functions");
	json_t *a = find_named(funcs, "name", "func_a"), *b = find_named(funcs, "name", "func_b");
	json_t *c = find_named(funcs, "name", "func_c");
	assert_int_equal(test_json_int(a, "total"), test_json_int(a, "self") + test_json_int(b, "total"));
	assert_true(test_json_int(b, "total") > test_json_int(c, "total"));
	check_deepest_is_shells(s, path, json_object_get(o, "stack"));
	json_decref(o);
}

static void test_vcd_reads_back(void **state)
{
	scratch *s = *state;
	char path[256], vcd[300], fst[300];
	test_record(s, path, sizeof path, "race.db", "tests/firmware/race_tick.elf "
		    "--instructions 200k");
	snprintf(vcd, sizeof vcd, "%s/race.vcd", s->dir);
	snprintf(fst, sizeof fst, "%s/race.fst", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export '%s' --vcd '%s' --var tick",
				  test_avrr(), path, vcd), 0);
	long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
	assert_true(irqs > 100);
	/* GTKWave's reader converts it, and writes it back out. */
	assert_int_equal(test_run(s->out, sizeof s->out, "vcd2fst '%s' '%s' >/dev/null", vcd, fst),
			 0);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "fst2vcd '%s'", fst);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[256], wire[8] = "", tick[8] = "";
	long long rise = 0, fall = 0, last_tick = -1;
	int defs = 1;
	while (fgets(line, sizeof line, p)) {
		char id[8], name[64];
		if (defs && sscanf(line, "$var wire 1 %7s %63s", id, name) == 2 &&
		    !strcmp(name, "TIMER0_OVF_vect"))
			snprintf(wire, sizeof wire, "%s", id);
		if (defs && sscanf(line, "$var reg 16 %7s %63s", id, name) == 2 && !strcmp(name, "tick"))
			snprintf(tick, sizeof tick, "%s", id);
		if (strstr(line, "$enddefinitions"))
			defs = 0;
		if (defs || !*wire)
			continue;
		line[strcspn(line, "\n")] = 0;
		if ((line[0] == '1' || line[0] == '0') && !strcmp(line + 1, wire))
			++*(line[0] == '1' ? &rise : &fall);
		char bits[40];
		if (sscanf(line, "b%39s %7s", bits, id) == 2 && !strcmp(id, tick))
			last_tick = strtoll(bits, NULL, 2);
	}
	assert_int_equal(pclose(p), 0);
	assert_true(*wire && *tick);
	assert_int_equal(rise, irqs);
	assert_int_equal(fall, irqs + 1);  /* and its value at time 0 */
	assert_int_equal(last_tick, irqs);
}

static void test_wrong_replay_fails_analysis(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "race.db", "tests/firmware/race_tick.elf "
		    "--instructions 200k");
	/* The 10th PORTB write recorded another value: the replay diverges
	 * there, and an analysis of it would not be of the recorded run. */
	test_edit_log(path, "UPDATE events SET value = (value + 1) % 256 WHERE seq = (SELECT seq"
		      " FROM events WHERE type = 5 ORDER BY seq LIMIT 1 OFFSET 9)");
	const char *cmds[] = { "analyze '%s' races", "analyze '%s' profile",
			       "export '%s' --vcd '%s.vcd'" };
	for (size_t i = 0; i < 3; i++) {
		char args[600];
		snprintf(args, sizeof args, cmds[i], path, path);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s %s", test_avrr(), args), 1);
		if (!strstr(s->out, "the replay diverged at icount"))
			fail_msg("%s: %s", args, s->out);
	}
	char vcd[300];
	snprintf(vcd, sizeof vcd, "%s.vcd", path);
	assert_int_equal(access(vcd, F_OK), -1);  /* nothing half-written */
}

static void test_bad_arguments(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "race.db", "tests/firmware/race_tick.elf "
		    "--instructions 10k");
	static const struct { const char *args, *msg; } cases[] = {
		{ "analyze '%s' bogus", "avrr analyze: unknown analysis 'bogus'; there are races "
					"and profile" },
		{ "analyze '%s'", "avrr analyze: usage: avrr analyze RUN.db races|profile" },
		{ "analyze '%s' races --folded x", "avrr analyze: --folded is the profile's" },
		/* The replay options, parsed as avrr replay parses them. */
		{ "analyze '%s' races --fp nosuch", "avrr analyze: no fingerprint configuration "
						    "'nosuch' in the recording (see avrr info)\n" },
		{ "analyze '%s' races --match nope", "avrr analyze: --match: 'nope' is neither 'set' "
						     "nor 'sequence'\n" },
		{ "analyze '%s' profile --window 0", "avrr analyze: --window: 0 is not in 1..1024\n" },
		{ "analyze '%s' races --fp default --fp default", "avrr analyze: one --fp NAME: the "
		  "stored configuration to replay with\n" },
		/* analyze never travels back: no checkpoints to bound */
		{ "analyze '%s' races --checkpoint-memory 8", "avrr analyze: unknown option "
		  "'--checkpoint-memory'; see 'avrr analyze --help'\n" },
		{ "export '%s'", "avrr export: usage: avrr export RUN.db --vcd OUT.vcd" },
		{ "export '%s' --vcd /tmp/x.vcd --var nosuch", "avrr export: --var nosuch: no "
							      "variable of that name in the firmware" },
		{ "analyze /nonexistent.db races", "avrr analyze: /nonexistent.db: " },
		/* Refused before the run: nothing to write the stacks to. */
		{ "analyze '%s' profile --folded /nonexistent/f.txt", "avrr analyze: --folded "
		  "/nonexistent/f.txt: No such file or directory" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char args[600];
		snprintf(args, sizeof args, cases[i].args, path);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s %s", test_avrr(), args), 2);
		if (strncmp(s->out, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("%s: got: %s", args, s->out);
	}
	/* The stored configuration named, with set matching or a window: a
	 * faithful replay either way, so the same report as by default. */
	char plain[sizeof s->out];
	assert_int_equal(test_run(plain, sizeof plain, "%s analyze '%s' races", test_avrr(), path), 0);
	assert_non_null(strstr(plain, "tick (0x0100, 2 bytes): split read in main"));
	assert_int_equal(test_run(s->out, sizeof s->out, "%s analyze '%s' races --fp default "
				  "--match set", test_avrr(), path), 0);
	assert_string_equal(s->out, plain);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s analyze '%s' races --window 4",
				  test_avrr(), path), 0);
	assert_string_equal(s->out, plain);
	/* An output the export cannot create fails it (1: the run was fine). */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export '%s' --vcd /nonexistent/x.vcd",
				  test_avrr(), path), 1);
	assert_string_equal(s->out, "avrr export: /nonexistent/x.vcd: No such file or directory\n");
	/* A variable wider than one signal: adcapp's 128-byte tx_buf. */
	test_record(s, path, sizeof path, "adc.db", "traces/adcapp.elf "
		    "--stimuli traces/adcapp.stim --instructions 10k");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export '%s' --vcd '%s/a.vcd' "
				  "--var tx_buf", test_avrr(), path, s->dir), 2);
	assert_string_equal(s->out, "avrr export: --var tx_buf: 128 bytes; at most 8 make one "
			    "signal\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seeded_race_is_witnessed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disabled_source_is_no_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_block_has_no_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_is_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_deepest_after_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_funcsheap_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcd_reads_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_replay_fails_analysis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
