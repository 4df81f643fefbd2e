/*
 * test_cli_errors.c — bad input to the real avrr binary ($AVRR_BIN).
 *
 * For every kind of bad input to `avrr record`, `info`, `fingerprint` and
 * `select` (missing, wrong-kind and foreign files, unknown MCU, unwritable
 * output, malformed numbers, options, stimuli files and fingerprint
 * specs) it checks that the exit
 * status is exactly 2, that the output (stdout+stderr) is exactly one line
 * "avrr CMD: ..." naming the offending path, option or value, and that the
 * scratch directory holds nothing new: no output file, no temporary.
 * Positive controls (a real recording, `info --json` checked field by field
 * against sha256sum, --help) make sure the cases can fail the other way, and
 * a recording interrupted by SIGINT must exit 130 and leave nothing.
 * A missing input is said before any option it would have made valid,
 * and a refusal of a firmware comes without the warnings about it.
 * Each test runs in a fresh temporary directory D.
 */
#include "tests/testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIRMWARE "traces/funcsheap.elf"
#define MAX_KEEP 8

/* ------------------------------------------------------------ scaffolding */

typedef struct fixture {
	test_scratch s;          /* D, and the output of the last run */
	char keep[MAX_KEEP][64]; /* entries of D the test made itself */
	int nkeep;
} fixture;

static int setup(void **state)
{
	*state = test_fixture_new(sizeof(fixture));
	return *state ? 0 : -1;
}

/* D/name, in a static buffer per call site's needs. */
static const char *in_dir(const fixture *f, const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", f->s.dir, name);
	return buf;
}

/* Creates D/name with `text` and records it as expected in D. */
static void make_file(fixture *f, const char *name, const char *text)
{
	char path[400];
	FILE *fp = fopen(in_dir(f, name, path, sizeof path), "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	assert_true(f->nkeep < MAX_KEEP);
	snprintf(f->keep[f->nkeep++], sizeof f->keep[0], "%s", name);
}

static void make_dir(fixture *f, const char *name)
{
	char path[400];
	assert_int_equal(mkdir(in_dir(f, name, path, sizeof path), 0755), 0);
	assert_true(f->nkeep < MAX_KEEP);
	snprintf(f->keep[f->nkeep++], sizeof f->keep[0], "%s", name);
}

/* A small SQLite database that is not a recording. */
static void make_foreign_sqlite(fixture *f, const char *name)
{
	char path[400];
	sqlite3 *h = NULL;
	assert_int_equal(sqlite3_open(in_dir(f, name, path, sizeof path), &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE x(y); INSERT INTO x VALUES (1)", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(h), SQLITE_OK);
	assert_true(f->nkeep < MAX_KEEP);
	snprintf(f->keep[f->nkeep++], sizeof f->keep[0], "%s", name);
}

/* Asserts that dir holds exactly the entries in keep[0..nkeep). */
static void assert_dir_holds(const char *dir, char keep[][64], int nkeep)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		int known = 0;
		for (int i = 0; i < nkeep; i++)
			known |= !strcmp(e->d_name, keep[i]);
		if (!known) {
			closedir(d);
			fail_msg("%s: unexpected '%s' left behind", dir, e->d_name);
		}
		n++;
	}
	closedir(d);
	assert_int_equal(n, nkeep);
}

static void assert_nothing_new(fixture *f)
{
	assert_dir_holds(f->s.dir, f->keep, f->nkeep);
}

/* Asserts f->s.out is exactly one line, starting with `prefix`. */
static void assert_one_line(const fixture *f, const char *prefix)
{
	size_t len = strlen(f->s.out);
	if (len == 0 || f->s.out[len - 1] != '\n' || strchr(f->s.out, '\n') != f->s.out + len - 1)
		fail_msg("not exactly one line: '%s'", f->s.out);
	if (strncmp(f->s.out, prefix, strlen(prefix)) != 0)
		fail_msg("'%s' does not start with '%s'", f->s.out, prefix);
}

/* Runs `avrr ARGS` and checks: status 2, one line "avrr CMD: ...",
 * mentioning each non-NULL needle, nothing new in D. */
static void expect_bad(fixture *f, const char *cmd, const char *args, const char *needle1,
		       const char *needle2)
{
	int rc = test_run(f->s.out, sizeof f->s.out, "%s %s %s", test_avrr(), cmd, args);
	char prefix[32];
	snprintf(prefix, sizeof prefix, "avrr %s: ", cmd);
	if (rc != 2)
		fail_msg("avrr %s %s: exit status %d, not 2; output '%s'", cmd, args, rc, f->s.out);
	assert_one_line(f, prefix);
	if (needle1)
		test_assert_contains(f->s.out, needle1);
	if (needle2)
		test_assert_contains(f->s.out, needle2);
	assert_nothing_new(f);
}

/* `avrr record FIRMWARE -o D/x.db EXTRA` must fail. */
static void expect_bad_record(fixture *f, const char *firmware, const char *extra,
			      const char *needle1, const char *needle2)
{
	char args[1024];
	snprintf(args, sizeof args, "'%s' -o '%s/x.db' %s", firmware, f->s.dir, extra);
	expect_bad(f, "record", args, needle1, needle2);
}

/* Records D/x.db (1000 instructions) and keeps it. */
static void record_ok(fixture *f)
{
	int rc = test_run(f->s.out, sizeof f->s.out, "%s record %s -o '%s/x.db' --instructions 1000",
			  test_avrr(), FIRMWARE, f->s.dir);
	if (rc != 0)
		fail_msg("avrr record: exit status %d; output '%s'", rc, f->s.out);
	assert_true(f->nkeep < MAX_KEEP);
	snprintf(f->keep[f->nkeep++], sizeof f->keep[0], "x.db");
	assert_nothing_new(f);
}

/* ------------------------------------------------------------ record: files */

static void test_record_firmware_missing(void **state)
{
	fixture *f = *state;
	char fw[400];
	in_dir(f, "nope.elf", fw, sizeof fw);
	expect_bad_record(f, fw, "", fw, "No such file or directory");
}

static void test_record_firmware_directory(void **state)
{
	fixture *f = *state;
	char fw[400];
	make_dir(f, "fwdir");
	in_dir(f, "fwdir", fw, sizeof fw);
	expect_bad_record(f, fw, "", fw, "directory");
}

static void test_record_firmware_text(void **state)
{
	fixture *f = *state;
	char fw[400];
	make_file(f, "fw.elf", "this is not an ELF file, it is text\n");
	in_dir(f, "fw.elf", fw, sizeof fw);
	expect_bad_record(f, fw, "", fw, "not an ELF file");
}

static void test_record_firmware_empty(void **state)
{
	fixture *f = *state;
	char fw[400];
	make_file(f, "empty.elf", "");
	in_dir(f, "empty.elf", fw, sizeof fw);
	expect_bad_record(f, fw, "", fw, "not an ELF file");
}

static void test_record_firmware_other_arch(void **state)
{
	fixture *f = *state;
	expect_bad_record(f, "/bin/true", "", "/bin/true", "not AVR");
}

static void test_record_unknown_mcu(void **state)
{
	fixture *f = *state;
	expect_bad_record(f, FIRMWARE, "--mcu atmega9999", "unknown MCU 'atmega9999'", NULL);
	/* ... naming every MCU simavr has, aliases too. */
	expect_bad_record(f, FIRMWARE, "--mcu atmega9999", "atmega328/atmega328p", NULL);
	/* An MCU other than the one the ELF was built for. */
	expect_bad_record(f, FIRMWARE, "--mcu attiny13", "traces/funcsheap.elf: built for the "
			  "atmega16 (its .mmcu section), not the attiny13 asked for", NULL);
	expect_bad_record(f, FIRMWARE, "--board uno", "traces/funcsheap.elf: built for the "
			  "atmega16 (its .mmcu section), not the atmega328p asked for", NULL);
	expect_bad_record(f, FIRMWARE, "--board uno --mcu atmega16",
			  "--mcu atmega16 contradicts --board uno, an atmega328p", NULL);
	expect_bad_record(f, FIRMWARE, "--board zero", "--board: unknown board 'zero'; known: "
			  "uno, nano, pro-mini", NULL);
	/* Static data larger than the part's SRAM: 2100 bytes of .bss from
	 * 0x100 end at 0x100 + 2100 = 0x934, past the ATmega328P's RAMEND. */
	expect_bad_record(f, "tests/firmware/bigdata.elf", "", "tests/firmware/bigdata.elf: its "
			  "static data (.data, .bss, .noinit) ends at 0x934, past the atmega328p's "
			  "RAMEND 0x8ff", NULL);
	/* Output that cannot be written is an error, not a silent success. */
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s select %s > /dev/full", test_avrr(),
				  FIRMWARE), 2);
	assert_non_null(strstr(f->s.out, "avrr select: writing the output: No space left on device"));
}

static void test_record_output_in_missing_directory(void **state)
{
	fixture *f = *state;
	char args[600], out[400];
	in_dir(f, "no-such-dir/x.db", out, sizeof out);
	snprintf(args, sizeof args, "%s -o '%s'", FIRMWARE, out);
	expect_bad(f, "record", args, out, NULL);

	snprintf(args, sizeof args, "%s -o /nonexistent-dir/x.db", FIRMWARE);
	expect_bad(f, "record", args, "/nonexistent-dir/x.db", NULL);
	struct stat sb;
	assert_int_not_equal(stat("/nonexistent-dir", &sb), 0);
}

static void test_record_output_is_directory(void **state)
{
	fixture *f = *state;
	char args[600], out[400];
	make_dir(f, "outdir");
	in_dir(f, "outdir", out, sizeof out);
	snprintf(args, sizeof args, "%s -o '%s'", FIRMWARE, out);
	expect_bad(f, "record", args, out, "is a directory");
	assert_dir_holds(out, NULL, 0);
}

static void test_record_stimuli_malformed(void **state)
{
	fixture *f = *state;
	char stim[400], args[600], where[450];
	make_file(f, "bad.stim", "# fine so far\nadc 0 square 1 2\n");
	in_dir(f, "bad.stim", stim, sizeof stim);
	snprintf(args, sizeof args, "--instructions 1000 --stimuli '%s'", stim);
	expect_bad_record(f, FIRMWARE, args, NULL, NULL);
	/* "avrr record: FILE:LINE:COL: message", at the 's' of 'square'. */
	snprintf(where, sizeof where, "avrr record: %s:2:7: ", stim);
	assert_one_line(f, where);
	test_assert_contains(f->s.out, "square");
}

static void test_record_stimuli_missing(void **state)
{
	fixture *f = *state;
	char stim[400], args[600];
	in_dir(f, "none.stim", stim, sizeof stim);
	snprintf(args, sizeof args, "--stimuli '%s'", stim);
	expect_bad_record(f, FIRMWARE, args, stim, "No such file or directory");
}

/* ------------------------------------------------------------ record: options */

static void test_record_bad_numbers(void **state)
{
	fixture *f = *state;
	static const struct {
		const char *opt, *value;
	} cases[] = {
		{ "--instructions", "abc" },
		{ "--instructions", "-5" },
		{ "--instructions", "''" },
		{ "--cycles", "1x" },
		{ "--cycles", "99999999999G" }, /* overflows 64 bits */
		{ "--interrupts", "1.5" },
		{ "--freq", "0" },
		{ "--seed", "99999999999999999999999" },
		/* longer than a recording may hold: its validation refuses that */
		{ "--instructions", "1000000000001" },
		{ "--cycles", "2000G" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char extra[128];
		snprintf(extra, sizeof extra, "%s %s", cases[i].opt, cases[i].value);
		/* The message quotes the value ('' for the empty one). */
		expect_bad_record(f, FIRMWARE, extra, cases[i].opt, cases[i].value);
	}
}

static void test_record_no_output(void **state)
{
	fixture *f = *state;
	expect_bad(f, "record", FIRMWARE " --instructions 1000", "-o", NULL);
}

static void test_record_output_needs_value(void **state)
{
	fixture *f = *state;
	expect_bad(f, "record", FIRMWARE " -o", "-o", NULL);
}

static void test_record_no_firmware(void **state)
{
	fixture *f = *state;
	char args[400];
	snprintf(args, sizeof args, "-o '%s/x.db'", f->s.dir);
	expect_bad(f, "record", args, "firmware", NULL);
	expect_bad(f, "record", "", "firmware", NULL);
}

static void test_record_two_firmwares(void **state)
{
	fixture *f = *state;
	expect_bad_record(f, FIRMWARE, "traces/adcapp.elf", "traces/adcapp.elf", NULL);
}

static void test_record_unknown_option(void **state)
{
	fixture *f = *state;
	expect_bad_record(f, FIRMWARE, "--bogus", "--bogus", NULL);
	expect_bad_record(f, FIRMWARE, "-z", "-z", NULL);  /* -q is --quiet */
}

static void test_record_two_stop_conditions(void **state)
{
	fixture *f = *state;
	expect_bad_record(f, FIRMWARE, "--instructions 1000 --cycles 5000", "--instructions",
			  "--cycles");
	expect_bad_record(f, FIRMWARE, "--cycles 5000 --interrupts 3", "--cycles", "--interrupts");
}

/* ------------------------------------------------------------ fingerprints */

/* A malformed --fp names its bad token; nothing is written. */
static void test_record_bad_fingerprint_spec(void **state)
{
	fixture *f = *state;
	expect_bad_record(f, FIRMWARE, "--fp 'sel=SREG+r99'", "'r99'", NULL);
	expect_bad_record(f, FIRMWARE, "--fp 'sel=SREG,hash=sha1'", "'sha1'", NULL);
	expect_bad_record(f, FIRMWARE, "--fp 'sel=TIFR,ra=12,width=8'", "ra=12", "width=8");
	expect_bad_record(f, FIRMWARE, "--fp 'sel=var:no_such_var'", "no_such_var", NULL);
	expect_bad_record(f, FIRMWARE, "--fp 'sel=SREG,width=65'", "width=65", NULL);
	expect_bad_record(f, FIRMWARE, "--fp 'a:sel=SREG' --fp 'a:sel=SPL'", "'a' given twice", NULL);
	expect_bad_record(f, FIRMWARE, "--fp", "--fp", "needs a value");
}

static void test_fingerprint_bad_input(void **state)
{
	fixture *f = *state;
	char args[600];
	snprintf(args, sizeof args, "'%s/none.db' --fp sel=SREG", f->s.dir);
	expect_bad(f, "fingerprint", args, "none.db", "No such file or directory");
	record_ok(f);
	snprintf(args, sizeof args, "'%s/x.db'", f->s.dir);
	expect_bad(f, "fingerprint", args, "--fp", NULL);
	snprintf(args, sizeof args, "'%s/x.db' --fp 'sel=SREG+PORTQ'", f->s.dir);
	expect_bad(f, "fingerprint", args, "'PORTQ'", NULL);
	snprintf(args, sizeof args, "'%s/x.db' --fp 'default:sel=SREG'", f->s.dir);
	expect_bad(f, "fingerprint", args, "'default' is already there", NULL);
	/* record's "none" is no configuration to add, nor one for the oracle
	 * to evaluate (its empty index crashed replay --oracle: SIGSEGV). */
	snprintf(args, sizeof args, "'%s/x.db' --fp none", f->s.dir);
	expect_bad(f, "fingerprint", args, "--fp none keeps no fingerprint", NULL);
	snprintf(args, sizeof args, "'%s/x.db' --oracle --fp none", f->s.dir);
	expect_bad(f, "replay", args, "--fp none keeps no fingerprint", NULL);
}

/* A missing input is said as missing, before the options it would have
 * made valid (an import's --state-out, a firmware's --stimuli), wherever
 * it stands among them. */
static void test_missing_input_before_options(void **state)
{
	fixture *f = *state;
	char args[1200], want[600];
	snprintf(want, sizeof want, "avrr replay: %s/run.db: No such file or directory\n", f->s.dir);
	snprintf(args, sizeof args, "'%s/run.db' --state-out '%s/s'", f->s.dir, f->s.dir);
	expect_bad(f, "replay", args, NULL, NULL);
	assert_string_equal(f->s.out, want);
	snprintf(args, sizeof args, "--state-out '%s/s' '%s/run.db'", f->s.dir, f->s.dir);
	expect_bad(f, "replay", args, NULL, NULL);
	assert_string_equal(f->s.out, want);
	const char *front[] = { "shell", "gdb" };
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof args, "'%s/nope.elf' --stimuli '%s/s'", f->s.dir, f->s.dir);
		expect_bad(f, front[i], args, NULL, NULL);
		snprintf(want, sizeof want, "avrr %s: %s/nope.elf: No such file or directory\n",
			 front[i], f->s.dir);
		assert_string_equal(f->s.out, want);
	}
	/* Where the unknown option may have taken the missing file as its
	 * value, the option is what is said. */
	snprintf(args, sizeof args, "--bogus '%s/nope.db' races", f->s.dir);
	expect_bad(f, "analyze", args, "unknown option '--bogus'", NULL);
	/* On a recording that is there, the option is what is wrong. */
	record_ok(f);
	snprintf(args, sizeof args, "'%s/x.db' --state-out '%s/s'", f->s.dir, f->s.dir);
	expect_bad(f, "replay", args, NULL, NULL);
	snprintf(want, sizeof want, "avrr replay: --state-out is for a recording avrr import made, "
		 "which %s/x.db is not\n", f->s.dir);
	assert_string_equal(f->s.out, want);
}

/* A firmware that names no MCU and has no DWARF: the refusal alone, not
 * after a warning about its debug info. */
static void test_fatal_before_warning(void **state)
{
	fixture *f = *state;
	make_file(f, "p.c", "#include <avr/io.h>\nint main(void) { DDRB = 1; for (;;) PORTB ^= 1; }\n");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cd '%s' && avr-gcc -mmcu=atmega328p -Os -o p0.elf p.c && "
		 "avr-objcopy -R .note.gnu.avr.deviceinfo p0.elf p.elf && rm p0.elf", f->s.dir);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s", cmd), 0);
	snprintf(f->keep[f->nkeep++], sizeof f->keep[0], "p.elf");
	char args[1200];
	snprintf(args, sizeof args, "'%s/p.elf' -o '%s/p.db'", f->s.dir, f->s.dir);
	expect_bad(f, "record", args, "the ELF names no MCU", NULL);
	snprintf(args, sizeof args, "'%s/p.elf' < /dev/null", f->s.dir);
	expect_bad(f, "shell", args, "the ELF names no MCU", NULL);
	/* With the MCU given it records, and then warns. */
	snprintf(args, sizeof args, "%s record '%s/p.elf' --mcu atmega328p --freq 1M "
		 "--instructions 1000 -o '%s/p.db' 2>&1 >/dev/null", test_avrr(), f->s.dir, f->s.dir);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s", args), 0);
	test_assert_contains(f->s.out, "p.elf has no DWARF debug info for its code");
}

static void test_select_bad_input(void **state)
{
	fixture *f = *state;
	char elf[400], args[600];
	in_dir(f, "none.elf", elf, sizeof elf);
	expect_bad(f, "select", elf, elf, "No such file or directory");
	make_file(f, "t.elf", "not an ELF\n");
	in_dir(f, "t.elf", elf, sizeof elf);
	expect_bad(f, "select", elf, elf, NULL);
	snprintf(args, sizeof args, "%s --gp 33", FIRMWARE);
	expect_bad(f, "select", args, "--gp", "33");
	expect_bad(f, "select", "", "usage", NULL);
}

static void test_strip_bad_input(void **state)
{
	fixture *f = *state;
	char args[600];
	snprintf(args, sizeof args, "'%s/none.db' -o '%s/dev.db'", f->s.dir, f->s.dir);
	expect_bad(f, "strip", args, "none.db", "No such file or directory");
	record_ok(f);
	snprintf(args, sizeof args, "'%s/x.db'", f->s.dir);
	expect_bad(f, "strip", args, "-o", NULL);
	snprintf(args, sizeof args, "'%s/x.db' -o '%s'", f->s.dir, f->s.dir);
	expect_bad(f, "strip", args, f->s.dir, "is a directory");
	snprintf(args, sizeof args, "'%s/x.db' -o '%s/no/such/dir/dev.db'", f->s.dir, f->s.dir);
	expect_bad(f, "strip", args, "dev.db", "cannot write here");
}

/* ------------------------------------------------------------ info */

static void test_info_missing(void **state)
{
	fixture *f = *state;
	char db[400];
	in_dir(f, "none.db", db, sizeof db);
	expect_bad(f, "info", db, db, "No such file or directory");
}

static void test_info_directory(void **state)
{
	fixture *f = *state;
	expect_bad(f, "info", f->s.dir, f->s.dir, "is a directory");
}

static void test_info_text_file(void **state)
{
	fixture *f = *state;
	char db[400];
	make_file(f, "t.db", "just some text\n");
	in_dir(f, "t.db", db, sizeof db);
	expect_bad(f, "info", db, db, "not an avrr recording");
}

static void test_info_foreign_sqlite(void **state)
{
	fixture *f = *state;
	char db[400];
	make_foreign_sqlite(f, "other.db");
	in_dir(f, "other.db", db, sizeof db);
	expect_bad(f, "info", db, db, "not an avrr recording");
}

static void test_info_newer_schema(void **state)
{
	fixture *f = *state;
	char db[400];
	record_ok(f);
	in_dir(f, "x.db", db, sizeof db);
	sqlite3 *h = NULL;
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(h), SQLITE_OK);
	expect_bad(f, "info", db, db, "newer");
}

static void test_info_usage(void **state)
{
	fixture *f = *state;
	expect_bad(f, "info", "", "usage", NULL);
	char args[600];
	snprintf(args, sizeof args, "'%s/a.db' '%s/b.db'", f->s.dir, f->s.dir);
	expect_bad(f, "info", args, "usage", NULL);
}

static void test_info_unknown_option(void **state)
{
	fixture *f = *state;
	char args[400];
	record_ok(f);
	snprintf(args, sizeof args, "'%s/x.db' --bogus", f->s.dir);
	expect_bad(f, "info", args, "--bogus", NULL);
}

/* ------------------------------------------------------------ positive controls */

static void test_record_and_info_json(void **state)
{
	fixture *f = *state;
	record_ok(f);

	char sha[128];
	assert_int_equal(test_run(sha, sizeof sha, "sha256sum %s", FIRMWARE), 0);
	assert_true(strlen(sha) > 64);
	sha[64] = 0;

	int rc = test_run(f->s.out, sizeof f->s.out, "%s info '%s/x.db' --json", test_avrr(), f->s.dir);
	if (rc != 0)
		fail_msg("avrr info --json: exit status %d; output '%s'", rc, f->s.out);
	json_error_t jerr;
	json_t *o = json_loads(f->s.out, 0, &jerr);
	if (!o)
		fail_msg("not JSON (%s, line %d): '%s'", jerr.text, jerr.line, f->s.out);
	assert_true(json_is_object(o));
	assert_string_equal(json_string_value(json_object_get(o, "mcu")), "atmega16");
	assert_string_equal(json_string_value(json_object_get(o, "firmware_sha256")), sha);
	assert_string_equal(json_string_value(json_object_get(o, "stop_reason")), "instructions");
	assert_int_equal(test_json_int(o, "frequency"), 8000000);
	assert_int_equal(test_json_int(o, "instructions"), 1000);
	/* At least one cycle per instruction; at most four (CALL/RET). */
	json_int_t cycles = test_json_int(o, "cycles");
	assert_in_range(cycles, 1000, 4000);
	assert_in_range(test_json_int(o, "interrupts"), 0, 1000);
	assert_in_range(test_json_int(o, "events"), 1, 10000);
	assert_int_equal(test_json_int(o, "schema_version"), 6) /* DB_SCHEMA_VERSION */;
	/* The totals agree with their breakdowns. */
	json_t *per_type = json_object_get(o, "events_per_type");
	assert_true(json_is_object(per_type));
	assert_int_equal(test_json_int(per_type, "reset"), 1);
	json_int_t sum = 0;
	const char *key;
	json_t *v;
	json_object_foreach(per_type, key, v)
		sum += json_integer_value(v);
	assert_int_equal(sum, test_json_int(o, "events"));
	json_t *per_vec = json_object_get(o, "interrupts_per_vector");
	assert_true(json_is_array(per_vec));
	sum = 0;
	size_t i;
	json_array_foreach(per_vec, i, v)
		sum += test_json_int(v, "count");
	assert_int_equal(sum, test_json_int(o, "interrupts"));
	json_decref(o);
	assert_nothing_new(f);
}

static void test_help(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s --help", test_avrr()), 0);
	test_assert_contains(f->s.out, "usage: avrr");
	test_assert_contains(f->s.out, "record");
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s record --help", test_avrr()), 0);
	test_assert_contains(f->s.out, "usage: avrr record");
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s info --help", test_avrr()), 0);
	test_assert_contains(f->s.out, "usage: avrr info");
}

static void test_unknown_command(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s nosuchcmd", test_avrr()), 2);
	assert_one_line(f, "avrr: ");
	test_assert_contains(f->s.out, "nosuchcmd");
	/* No command at all is a usage error too. */
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s", test_avrr()), 2);
	test_assert_contains(f->s.out, "usage: avrr");
}

/* ------------------------------------------------------------ interruption */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* SIGINT in the middle of a long recording: status 130, one line, and
 * nothing in D — neither the output nor the temporary it was being built
 * in (which the test first sees appear, so the run really was under way). */
static void test_record_interrupted(void **state)
{
	fixture *f = *state;
	char out[400], tmp[400], name[64];
	in_dir(f, "x.db", out, sizeof out);
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		signal(SIGINT, SIG_DFL);
		execl(test_avrr(), "avrr", "record", FIRMWARE, "-o", out, "--instructions", "2G",
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	snprintf(name, sizeof name, ".x.db.tmp-%ld", (long)pid);
	in_dir(f, name, tmp, sizeof tmp);

	/* The temporary appears once db_create ran, after the handler is in. */
	double t0 = now();
	struct stat sb;
	int seen = 0;
	while (!(seen = stat(tmp, &sb) == 0) && now() - t0 < 20 && waitpid(pid, NULL, WNOHANG) == 0)
		sleep_s(0.01);
	sleep_s(0.5);
	int status = 0;
	pid_t w = waitpid(pid, &status, WNOHANG);
	int running = w == 0;
	if (running)
		kill(pid, SIGINT);

	/* Collect its output; give it 20 s to wind down. */
	size_t len = 0;
	char buf[4096];
	t0 = now();
	for (;;) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };
		if (poll(&p, 1, 200) > 0) {
			ssize_t n = read(pipefd[0], buf + len, sizeof buf - 1 - len);
			if (n <= 0)
				break;
			len += (size_t)n;
			if (len == sizeof buf - 1)
				break;
		}
		if (now() - t0 > 20) {
			kill(pid, SIGKILL);
			break;
		}
	}
	buf[len] = 0;
	close(pipefd[0]);
	if (running)
		assert_int_equal(waitpid(pid, &status, 0), pid);

	assert_true(seen);
	assert_true(running); /* 2G instructions do not finish in half a second */
	if (!WIFEXITED(status))
		fail_msg("avrr record did not exit normally (signal %d); output '%s'",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0, buf);
	assert_int_equal(WEXITSTATUS(status), 130);
	snprintf(f->s.out, sizeof f->s.out, "%s", buf);
	assert_one_line(f, "avrr record: ");
	test_assert_contains(f->s.out, "interrupted");
	assert_nothing_new(f);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, test_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_record_firmware_missing),
		T(test_record_firmware_directory),
		T(test_record_firmware_text),
		T(test_record_firmware_empty),
		T(test_record_firmware_other_arch),
		T(test_record_unknown_mcu),
		T(test_record_output_in_missing_directory),
		T(test_record_output_is_directory),
		T(test_record_stimuli_malformed),
		T(test_record_stimuli_missing),
		T(test_record_bad_numbers),
		T(test_record_no_output),
		T(test_record_output_needs_value),
		T(test_record_no_firmware),
		T(test_record_two_firmwares),
		T(test_record_unknown_option),
		T(test_record_two_stop_conditions),
		T(test_record_bad_fingerprint_spec),
		T(test_fingerprint_bad_input),
		T(test_missing_input_before_options),
		T(test_fatal_before_warning),
		T(test_select_bad_input),
		T(test_strip_bad_input),
		T(test_info_missing),
		T(test_info_directory),
		T(test_info_text_file),
		T(test_info_foreign_sqlite),
		T(test_info_newer_schema),
		T(test_info_usage),
		T(test_info_unknown_option),
		T(test_record_and_info_json),
		T(test_help),
		T(test_unknown_command),
		T(test_record_interrupted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
