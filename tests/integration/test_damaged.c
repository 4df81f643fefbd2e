/*
 * test_damaged.c — a recording is untrusted input: damaged and hand-edited
 * files, through the real avrr binary ($AVRR_BIN).
 *
 * One real recording (funcsheap, 200,000 instructions, with contexts) is
 * damaged in one way per case by SQL, as a user with the sqlite3 shell
 * would: values wider than their fingerprint's bits, negative and huge run
 * lengths, text in integer columns, a missing fingerprint row, event and
 * interrupt chunks cut short, overlong, misplaced or missing, control bytes
 * in a spec, an added index, a dropped table, a replaced view, a log edited
 * through its view to break its rules (test_edit_log), a firmware copy that
 * is not the run's, a truncated file.
 * For each, `info`, `info --json` and `replay` must all print the same one
 * line "avrr CMD: PATH: damaged recording: WHAT (TABLE, row N)" and exit 2:
 * never a summary, never a divergence, never a crash (the sanitizer run
 * checks that).  Every other command that reads a recording refuses it the
 * same way and leaves no output file behind.  Control bytes from the input
 * (a spec, a stimuli line, a stored path) reach the terminal escaped.
 */
#include "tests/edit_log.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct damage {
	const char *sql;
	const char *what;  /* after "damaged recording: " */
} damage;

static const damage CASES[] = {
	/* run lengths that would make a replay run without end */
	{ "UPDATE run SET instructions = -5", "run.instructions is out of range (run, row 1)" },
	{ "UPDATE run SET instructions = 4611686018427387904",
	  "run.instructions is out of range (run, row 1)" },
	{ "UPDATE run SET cycles = 100", "run.cycles is out of range (run, row 1)" },
	/* a gap that is not within the run */
	{ "UPDATE run SET gap_cycles = cycles + 1", "run.gap_cycles is out of range (run, row 1)" },
	{ "UPDATE run SET gap_cycles_from = 10, gap_cycles_to = 9",
	  "run.gap_cycles_to is out of range (run, row 1)" },
	{ "UPDATE run SET gap_transfers_to = instructions + 1",
	  "run.gap_transfers_to is out of range (run, row 1)" },
	/* values of the wrong type, which SQLite keeps as they are */
	{ "UPDATE run SET data_size = 'big'", "run.data_size is of the wrong type (run, row 1)" },
	{ "UPDATE run SET mcu = 'atmega16;'", "run.mcu is malformed (run, row 1)" },
	{ "UPDATE run SET stop_reason = 'bored'", "run.stop_reason is malformed (run, row 1)" },
	/* the event log's chunks, damaged as bytes */
	{ "UPDATE event_chunks SET data = 'abc' WHERE first = 1",
	  "an event chunk with a bad count or no data (event_chunks, row 1)" },
	{ "UPDATE event_chunks SET count = 0 WHERE first = 1",
	  "an event chunk with a bad count or no data (event_chunks, row 1)" },
	{ "UPDATE event_chunks SET data = substr(data, 1, 5) WHERE first = 1",
	  "an event is cut short or has an overlong number (event_chunks, row 1)" },
	{ "UPDATE event_chunks SET data = x'01ffffffffffffffffffff01' WHERE first = 1",
	  "an event is cut short or has an overlong number (event_chunks, row 1)" },
	{ "UPDATE event_chunks SET count = count - 1 WHERE first = 1",
	  "the chunk has bytes after its last event (event_chunks, row 1)" },
	{ "UPDATE event_chunks SET data = x'0100000000' WHERE first = 1",
	  "the chunk's first event does not name its context (event_chunks, row 1)" },
	{ "UPDATE event_chunks SET first = 2 WHERE first = 1",
	  "event_chunks.first is not the next event, 1 (event_chunks, row 2)" },
	{ "DELETE FROM event_chunks WHERE first = 65",
	  "event_chunks.first is not the next event, 65 (event_chunks, row 129)" },
	{ "DELETE FROM event_chunks", "the log is empty (events)" },
	/* ground truth */
	{ "UPDATE interrupt_chunks SET data = substr(data, 1, 15) WHERE first = 1",
	  "an interrupt chunk whose data is not 10 bytes per interrupt (interrupt_chunks, row 1)" },
	{ "UPDATE contexts SET data = x'00' WHERE idx = 1",
	  "interrupt 1 has a context of 1 bytes, not 1120 (contexts, row 1)" },
	{ "INSERT INTO contexts VALUES (9999, x'00')", "a context of no interrupt (contexts, row 9999)" },
	{ "DELETE FROM interrupt_chunks WHERE first = 129",
	  "128 interrupts for 140 irq events (interrupts)" },
	{ "DELETE FROM interrupt_chunks WHERE first = 65",
	  "interrupt_chunks.first is not the next interrupt, 65 (interrupt_chunks, row 129)" },
	{ "INSERT INTO interrupt_chunks SELECT 141, 1, substr(data, 1, 10) FROM interrupt_chunks"
	  " WHERE first = 1", "interrupt 141 has no irq event (interrupts, row 141)" },
	{ "UPDATE run SET has_ground_truth = 0",
	  "ground truth in a stripped recording (interrupts, row 1)" },
	/* fingerprints and their configurations */
	{ "UPDATE fingerprint_chunks SET keys = 'k' WHERE first = 1",
	  "a chunk of configuration 'default' with a bad count, field size or type"
	  " (fingerprint_chunks, row 1)" },
	{ "UPDATE fingerprint_chunks SET data = substr(data, 1, 5) WHERE first = 1",
	  "a chunk of configuration 'default' with data of other than ra_size + hash_size bytes"
	  " per fingerprint (fingerprint_chunks, row 1)" },
	{ "UPDATE fingerprint_chunks SET keys = substr(keys, 2) WHERE first = 1",
	  "a chunk of configuration 'default' with keys other than 8 bytes, then key_size bytes per"
	  " fingerprint (fingerprint_chunks, row 1)" },
	{ "UPDATE fingerprint_chunks SET first = 2 WHERE first = 1",
	  "configuration 'default' has no fingerprint for interrupt 1 (fingerprints, row 1)" },
	{ "UPDATE fp_configs SET id = -1", "fp_configs.id is out of range (fp_configs, row -1)" },
	{ "UPDATE fp_configs SET spec = 'sel=r24' || char(27) || '[2J'",
	  "configuration 'default' has a spec of other than up to 511 printable characters"
	  " (fp_configs, row 1)" },
	{ "UPDATE fp_configs SET name = 'x' || char(10) || 'y'",
	  "fp_configs.name is not a name of up to 63 letters, digits, '_', '-' and '.'"
	  " (fp_configs, row 1)" },
	{ "UPDATE fp_configs SET spec = 'sel=r24,ra=40'",
	  "configuration 'default': bad fingerprint spec 'sel=r24,ra=40': 'ra=40': ra takes 0 to"
	  " 32 bits (fp_configs, row 1)" },
	/* the schema and the firmware */
	{ "CREATE INDEX extra ON event_chunks(count)", "an extra index 'extra' (sqlite_schema, row 1)" },
	{ "DROP TABLE contexts", "table 'contexts' is missing (sqlite_schema, row 4)" },
	{ "ALTER TABLE event_chunks ADD COLUMN x",
	  "table 'event_chunks' is not avrr's (sqlite_schema, row 6)" },
	{ "DROP VIEW events; CREATE VIEW events AS SELECT 1",
	  "view 'events' is not avrr's (sqlite_schema, row 13)" },
	{ "UPDATE firmware SET elf = x'00'",
	  "the firmware copy does not match its SHA-256 (firmware, row 1)" },
	{ "DELETE FROM firmware", "the firmware copy is missing (firmware)" },
	{ "UPDATE firmware SET elf = x''", "the firmware copy is empty (firmware, row 1)" },
	{ "INSERT INTO firmware VALUES ('x', x'00')", "more than one firmware copy (firmware)" },
	{ "UPDATE event_types SET name = 'x' WHERE type = 7",
	  "the event types are not avrr's (event_types, row 7)" },
	{ "DELETE FROM run", "no run metadata (run)" },
};

/* The event log and the fingerprints, edited as rows of their views
 * (test_edit_log).  A fingerprint's vector is no case: the view takes it
 * from the log, so it cannot disagree with its interrupt's. */
static const damage LOG_CASES[] = {
	/* values wider than the default configuration (ra=0, width=32) */
	{ "UPDATE fingerprints SET hash_part = -1 WHERE n = 3",
	  "fingerprint 3 of configuration 'default' is wider than its ra=0 and 32 more bits"
	  " (fingerprints, row 3)" },
	{ "UPDATE fingerprints SET hash_part = 4294967296 WHERE n = 3",
	  "fingerprint 3 of configuration 'default' is wider than its ra=0 and 32 more bits"
	  " (fingerprints, row 3)" },
	{ "UPDATE fingerprints SET ra_part = 1 WHERE n = 3",
	  "fingerprint 3 of configuration 'default' is wider than its ra=0 and 32 more bits"
	  " (fingerprints, row 3)" },
	{ "DELETE FROM fingerprints WHERE n = 4",
	  "configuration 'default' has no fingerprint for interrupt 4 (fingerprints, row 4)" },
	{ "INSERT INTO fingerprints VALUES (7, 1, 1, 0, 0, NULL)",
	  "a fingerprint of configuration 7, which fp_configs lacks (fingerprints, row 141)" },
	{ "INSERT INTO fingerprints VALUES (1, 141, 1, 0, 0, NULL)",
	  "configuration 'default' has no fingerprint for interrupt 141 (fingerprints, row 141)" },
	{ "UPDATE events SET addr = 200, ctx = 200 WHERE seq = 2",
	  "events.ctx is out of range (events, row 2)" },
	{ "UPDATE events SET type = 5 WHERE seq = 1",
	  "the log does not start with a reset (events, row 1)" },
	{ "UPDATE events SET ctx = 0 WHERE seq = 6",
	  "an event in a context that is not running (events, row 6)" },
	{ "UPDATE events SET type = 3, addr = 1, value = 0 WHERE seq = 6",
	  "a reti from an interrupt that is not running (events, row 7)" },
	/* the log's last event (375 in all) */
	{ "UPDATE events SET icount = 300000 WHERE seq = 375",
	  "events.icount is out of range (events, row 375)" },
	{ "UPDATE events SET cycle = cycle - 100 WHERE seq = 375",
	  "events.cycle is out of range (events, row 375)" },
	{ "UPDATE events SET addr = 2000 WHERE seq = 6",
	  "a register access outside the data space or wider than a byte (events, row 6)" },
};

typedef struct fixture {
	test_scratch s;
	char base[192];   /* the undamaged recording */
	char path[192];   /* the damaged copy */
} fixture;

static int group_setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!f)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/run.db", f->s.dir);
	if (test_try_record(&f->s, f->base, sizeof f->base, "base.db", "traces/funcsheap.elf "
			    "--stimuli traces/funcsheap.stim --instructions 200000 --contexts")) {
		test_fixture_free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* f->path becomes a copy of the base recording with `sql` applied, to the
 * event log's views when on_log. */
static void damage_copy(fixture *f, const char *sql, int on_log)
{
	char out[256];
	assert_int_equal(test_run(out, sizeof out, "cp %s %s", f->base, f->path), 0);
	if (on_log) {
		test_edit_log(f->path, sql);
		return;
	}
	sqlite3 *h = NULL;
	char *msg = NULL;
	assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
	assert_int_equal(sqlite3_close(h), SQLITE_OK);
}

/* `avrr ARGS` (with %s for the recording) exits 2 and prints exactly
 * "avrr CMD: PATH: damaged recording: WHAT". */
static void expect_refused(fixture *f, const char *cmd, const char *args, const char *what)
{
	char line[1024], argv[512];
	snprintf(argv, sizeof argv, args, f->path);
	int rc = test_run(f->s.out, sizeof f->s.out, "%s %s %s < /dev/null", test_avrr(), cmd, argv);
	snprintf(line, sizeof line, "avrr %s: %s: damaged recording: %s\n", cmd, f->path, what);
	if (rc != 2 || strcmp(f->s.out, line))
		fail_msg("avrr %s %s: exit %d, printed\n%s\nwanted\n%s", cmd, argv, rc, f->s.out, line);
}

static void test_every_damage_is_refused_alike(void **state)
{
	fixture *f = *state;
	/* The undamaged recording is accepted: the cases can fail. */
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s replay %s", test_avrr(), f->base), 0);
	size_t ncases = sizeof CASES / sizeof *CASES, nlog = sizeof LOG_CASES / sizeof *LOG_CASES;
	for (size_t i = 0; i < ncases + nlog; i++) {
		const damage *c = i < ncases ? &CASES[i] : &LOG_CASES[i - ncases];
		damage_copy(f, c->sql, i >= ncases);
		expect_refused(f, "info", "%s", c->what);
		expect_refused(f, "info", "--json %s", c->what);
		expect_refused(f, "replay", "%s", c->what);
	}
}

static int exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* Every command that reads a recording validates it first, and what it
 * would have written does not appear. */
static void test_every_command_refuses(void **state)
{
	fixture *f = *state;
	const char *what = CASES[0].what;
	char out[256], script[256];
	snprintf(out, sizeof out, "%s/out", f->s.dir);
	snprintf(script, sizeof script, "%s/cmds", f->s.dir);
	test_write_text(script, "info registers\n");
	damage_copy(f, CASES[0].sql, 0);
	char args[512];
	expect_refused(f, "replay", "--oracle %s", what);
	snprintf(args, sizeof args, "%%s -x %s", script);
	expect_refused(f, "shell", args, what);
	expect_refused(f, "fingerprint", "%s --fp x:sel=r24", what);
	snprintf(args, sizeof args, "%%s -o %s", out);
	expect_refused(f, "strip", args, what);
	expect_refused(f, "sweep", args, what);
	expect_refused(f, "serve", "%s --port 0", what);
	expect_refused(f, "gdb", "%s -batch", what);
	assert_false(exists(out));
}

/* A file whose pages are cut off is damaged, not foreign. */
static void test_truncated_file(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "head -c 20000 %s > %s", f->base,
				  f->path), 0);
	expect_refused(f, "info", "%s", "database disk image is malformed");
	expect_refused(f, "replay", "%s", "database disk image is malformed");
}

/* Untrusted text in a message (a spec given to replay, a line of a stimuli
 * file) has its control bytes escaped: one line, nothing for a terminal to
 * obey. */
static void test_control_bytes_escaped(void **state)
{
	fixture *f = *state;
	int rc = test_run(f->s.out, sizeof f->s.out, "%s replay %s --fp \"$(printf 'sel=r24\\033[2J\\nx')\"",
			  test_avrr(), f->base);
	assert_int_equal(rc, 2);
	assert_string_equal(f->s.out, "avrr replay: no fingerprint configuration 'sel=r24\\x1b[2J\\nx'"
			    " in the recording (see avrr info)\n");
	char stim[256];
	snprintf(stim, sizeof stim, "%s/bad.stim", f->s.dir);
	test_write_text(stim, "adc 0 const \033]0;owned\007\n");
	unlink(f->path);
	rc = test_run(f->s.out, sizeof f->s.out, "%s record traces/funcsheap.elf --stimuli %s -o %s",
		      test_avrr(), stim, f->path);
	assert_int_equal(rc, 2);
	assert_null(strchr(f->s.out, '\033'));
	assert_null(strchr(f->s.out, '\007'));
	assert_non_null(strstr(f->s.out, "\\x1b]0;owned\\x07"));
	assert_ptr_equal(strchr(f->s.out, '\n'), f->s.out + strlen(f->s.out) - 1);
	assert_false(exists(f->path));

	/* A path may hold any byte but NUL (it is the maker's file name), so
	 * the recording is valid; `info` prints it escaped. */
	damage_copy(f, "UPDATE run SET firmware_path = 'fw' || char(27) || '[2J.elf'", 0);
	rc = test_run(f->s.out, sizeof f->s.out, "%s info %s", test_avrr(), f->path);
	assert_int_equal(rc, 0);
	assert_null(strchr(f->s.out, '\033'));
	assert_non_null(strstr(f->s.out, "\nfirmware      fw\\x1b[2J.elf\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_damage_is_refused_alike),
		cmocka_unit_test(test_every_command_refuses),
		cmocka_unit_test(test_truncated_file),
		cmocka_unit_test(test_control_bytes_escaped),
	};
	return cmocka_run_group_tests(tests, group_setup, test_fixture_teardown);
}
