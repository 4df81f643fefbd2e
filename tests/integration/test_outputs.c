/*
 * test_outputs.c — no command loses a file: every command that writes one
 * (record, strip, export --vcd, analyze --folded, sweep -o, sweep merge -o,
 * tracer -o, instrument -o) refuses an output that is one of its inputs
 * (by name, as ./NAME, through a symlink or a hard link), refuses to
 * replace an existing file that is not what it writes unless --force, and
 * record refuses a stop condition of 0.  Each refusal must be exactly one
 * line, exit status 2, and leave every file byte for byte as it was and the
 * directory without anything new.  Positive controls: an output of the
 * command's own kind, and an empty file, are replaced; --force replaces
 * anything; raw bytes (export --uart) are replaced only under avrr's mark.
 * And `record` removes the hidden temporaries of dead processes
 * beside its output (kill -9 leaves them) while a live process's stays.
 */
#include "tests/testlib.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fixture {
	test_scratch s;
	char avrr[PATH_MAX];  /* absolute: commands run in dir */
} fixture;

/* The whole file, malloc'ed, its size in *n; NULL if there is none. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n == cap && !(buf = realloc(buf, cap = cap ? cap * 2 : 65536)))
			fail_msg("out of memory");
		size_t r = fread(buf + *n, 1, cap - *n, f);
		if (!r)
			break;
		*n += r;
	}
	fclose(f);
	return buf;
}

/* `ls -A` of the directory, for "nothing new". */
static void listing(fixture *f, char *buf, size_t n)
{
	assert_int_equal(test_run(buf, n, "ls -A '%s'", f->s.dir), 0);
}

/* Runs avrr ARGS in the fixture's directory, with avrr as $A for ARGS
 * that chain commands; its status. */
static int run(fixture *f, const char *args)
{
	return test_run(f->s.out, sizeof f->s.out, "cd '%s' && A='%s' && \"$A\" %s", f->s.dir, f->avrr,
			args);
}

static int setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!(*state = f) || !realpath(test_avrr(), f->avrr))
		return -1;
	char out[256];
	/* fw.elf and fw.stim, a link of each kind to the firmware, a text
	 * file, a short recording. */
	if (test_run(out, sizeof out, "cp traces/funcsheap.elf '%s/fw.elf' && cp traces/funcsheap.stim "
		     "'%s/fw.stim' && cd '%s' && ln -s fw.elf sym.elf && ln fw.elf hard.elf && "
		     "echo 'my notes' > notes.txt", f->s.dir, f->s.dir, f->s.dir))
		return -1;
	return run(f, "record fw.elf --stimuli fw.stim --instructions 20k -o run.db > /dev/null");
}

/* avrr ARGS must print exactly `line` and exit 2, leaving `keep` (a file
 * in the directory) byte-identical and the directory as it was. */
static void refused(fixture *f, const char *args, const char *line, const char *keep)
{
	char path[512], before[2048], after[2048];
	snprintf(path, sizeof path, "%s/%s", f->s.dir, keep);
	size_t n0, n1;
	char *b0 = slurp(path, &n0);
	if (!b0)
		fail_msg("%s: missing before the run", keep);
	listing(f, before, sizeof before);
	int rc = run(f, args);
	char want[1024];
	snprintf(want, sizeof want, "%s\n", line);
	if (rc != 2 || strcmp(f->s.out, want))
		fail_msg("avrr %s: status %d, output '%s'; expected 2, '%s'", args, rc, f->s.out, line);
	char *b1 = slurp(path, &n1);
	if (!b1 || n0 != n1 || memcmp(b0, b1, n0))
		fail_msg("avrr %s: %s changed (%zu -> %zu bytes)", args, keep, n0, b1 ? n1 : 0);
	listing(f, after, sizeof after);
	assert_string_equal(before, after);
	free(b0);
	free(b1);
}

static void test_output_is_an_input(void **state)
{
	fixture *f = *state;
	refused(f, "record fw.elf -o fw.elf",
		"avrr record: -o fw.elf: is the input 'fw.elf'; refusing to write over it", "fw.elf");
	refused(f, "record fw.elf -o ./fw.elf",
		"avrr record: -o ./fw.elf: is the input 'fw.elf'; refusing to write over it", "fw.elf");
	refused(f, "record fw.elf -o sym.elf",
		"avrr record: -o sym.elf: is the input 'fw.elf'; refusing to write over it", "fw.elf");
	refused(f, "record fw.elf -o hard.elf",
		"avrr record: -o hard.elf: is the input 'fw.elf'; refusing to write over it", "fw.elf");
	refused(f, "record sym.elf -o fw.elf",
		"avrr record: -o fw.elf: is the input 'sym.elf'; refusing to write over it", "fw.elf");
	refused(f, "record fw.elf --stimuli fw.stim -o fw.stim",
		"avrr record: -o fw.stim: is the input 'fw.stim'; refusing to write over it",
		"fw.stim");
	refused(f, "strip run.db -o run.db",
		"avrr strip: -o run.db: is the input 'run.db'; refusing to write over it", "run.db");
	refused(f, "strip ./run.db -o run.db",
		"avrr strip: -o run.db: is the input './run.db'; refusing to write over it", "run.db");
	refused(f, "export run.db --vcd run.db",
		"avrr export: --vcd run.db: is the input 'run.db'; refusing to write over it", "run.db");
	refused(f, "analyze run.db profile --folded run.db",
		"avrr analyze: --folded run.db: is the input 'run.db'; refusing to write over it",
		"run.db");
	refused(f, "sweep run.db -o run.db",
		"avrr sweep: -o run.db: is the input 'run.db'; refusing to write over it", "run.db");
	refused(f, "sweep merge notes.txt -o notes.txt",
		"avrr sweep: -o notes.txt: is the input 'notes.txt'; refusing to write over it",
		"notes.txt");
	refused(f, "tracer fw.elf -o fw.elf",
		"avrr tracer: -o fw.elf: is the input 'fw.elf'; refusing to write over it", "fw.elf");
	refused(f, "instrument fw.elf -o ./fw.elf",
		"avrr instrument: -o ./fw.elf: is the input 'fw.elf'; refusing to write over it",
		"fw.elf");
	/* --force does not make an input an output. */
	refused(f, "record fw.elf -o fw.elf --force",
		"avrr record: -o fw.elf: is the input 'fw.elf'; refusing to write over it", "fw.elf");
}

static void test_foreign_file_needs_force(void **state)
{
	fixture *f = *state;
	refused(f, "record fw.elf -o notes.txt", "avrr record: -o notes.txt: exists and is not an "
		"avrr recording; use --force to replace it", "notes.txt");
	refused(f, "strip run.db -o notes.txt", "avrr strip: -o notes.txt: exists and is not an "
		"avrr recording; use --force to replace it", "notes.txt");
	refused(f, "export run.db --vcd notes.txt", "avrr export: --vcd notes.txt: exists and is "
		"not a VCD avrr export wrote; use --force to replace it", "notes.txt");
	refused(f, "analyze run.db profile --folded notes.txt", "avrr analyze: --folded notes.txt: "
		"exists and is not folded stacks; use --force to replace it", "notes.txt");
	refused(f, "sweep run.db -o notes.txt", "avrr sweep: -o notes.txt: exists and is not a CSV "
		"avrr sweep wrote; use --force to replace it", "notes.txt");
	refused(f, "tracer fw.elf -o notes.txt", "avrr tracer: -o notes.txt: exists and is not a "
		"tracer.h avrr tracer wrote; use --force to replace it", "notes.txt");
	refused(f, "instrument fw.elf -o notes.txt", "avrr instrument: -o notes.txt: exists and is "
		"not an ELF avrr instrument wrote, nor a traced build (with avrr_sic); use --force "
		"to replace it", "notes.txt");
	/* Another firmware, and an SQLite file that is not avrr's. */
	char out[256];
	assert_int_equal(test_run(out, sizeof out, "cp traces/adcapp.elf '%s/other.elf'", f->s.dir), 0);
	refused(f, "record fw.elf -o other.elf", "avrr record: -o other.elf: exists and is not an "
		"avrr recording; use --force to replace it", "other.elf");
	char path[400];
	snprintf(path, sizeof path, "%s/foreign.db", f->s.dir);
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
				      " PRAGMA user_version = 4;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	refused(f, "strip run.db -o foreign.db", "avrr strip: -o foreign.db: exists and is not an "
		"avrr recording; use --force to replace it", "foreign.db");
}

static void test_zero_stop_condition(void **state)
{
	fixture *f = *state;
	refused(f, "record fw.elf --instructions 0 -o new.db",
		"avrr record: --instructions: 0 would record nothing; give at least 1", "fw.elf");
	refused(f, "record fw.elf --cycles 0 -o new.db",
		"avrr record: --cycles: 0 would record nothing; give at least 1", "fw.elf");
	refused(f, "record fw.elf --interrupts 0 -o new.db",
		"avrr record: --interrupts: 0 would record nothing; give at least 1", "fw.elf");
	refused(f, "record fw.elf --instructions 0x0 -o run.db",
		"avrr record: --instructions: 0 would record nothing; give at least 1", "run.db");
}

/* avrr ARGS must succeed. */
static void ok(fixture *f, const char *args)
{
	int rc = run(f, args);
	if (rc)
		fail_msg("avrr %s: status %d, output '%s'", args, rc, f->s.out);
}

/* What a command writes itself, and an empty file, it replaces without
 * --force; --force replaces anything else. */
static void test_own_kind_and_force(void **state)
{
	fixture *f = *state;
	ok(f, "record fw.elf --instructions 5000 -o run.db > /dev/null");
	char db[512];
	snprintf(db, sizeof db, "%s/run.db", f->s.dir);
	assert_int_equal(test_sql_int(db, "SELECT instructions FROM run"), 5000);
	ok(f, "strip run.db -o dev.db && \"$A\" strip run.db -o dev.db");
	ok(f, "tracer fw.elf -o t.h && \"$A\" tracer fw.elf --slots 8 -o t.h");
	ok(f, "export run.db --vcd r.vcd > /dev/null && \"$A\" export run.db --vcd r.vcd > /dev/null");
	ok(f, "analyze run.db profile --folded s.folded > /dev/null && "
	      "\"$A\" analyze run.db profile --folded s.folded > /dev/null");
	ok(f, "sweep run.db --width 8 --ra 0 --hash modular --selector SREG --jobs 1 -o r.csv && "
	      "\"$A\" sweep run.db --width 8 --ra 0 --hash modular --selector SREG --jobs 1 -o r.csv");
	ok(f, "--version > /dev/null && : > empty.db && \"$A\" record fw.elf --instructions 1000 "
	      "-o empty.db > /dev/null");
	ok(f, "record fw.elf --instructions 1000 -o notes.txt --force > /dev/null");
	ok(f, "info notes.txt > /dev/null");
	ok(f, "--version > /dev/null && echo text > other.txt && \"$A\" tracer fw.elf -o other.txt "
	      "--force && head -c 2 other.txt");
	assert_string_equal(f->s.out, "/*");
}

/* Raw bytes say nothing of who wrote them: export --uart marks its file
 * (user.avrr.output), so a re-run replaces it; a copy of the same bytes,
 * which has no mark, and any other file are refused; a file marked as
 * another kind (a device log) is refused too. */
static void test_raw_output_mark(void **state)
{
	fixture *f = *state;
	char out[1024], path[512], v[16];
	assert_int_equal(test_run(out, sizeof out, "cp traces/adcapp.elf traces/adcapp.stim '%s'",
				  f->s.dir), 0);
	ok(f, "record adcapp.elf --stimuli adcapp.stim --instructions 200k -o a.db > /dev/null");
	ok(f, "export a.db --uart 0 -o u.bin > /dev/null");
	snprintf(path, sizeof path, "%s/u.bin", f->s.dir);
	ssize_t n = getxattr(path, "user.avrr.output", v, sizeof v);
	if (n < 0 && errno == ENOTSUP)
		skip();  /* no extended attributes here: only --force replaces */
	assert_int_equal(n, 4);
	assert_memory_equal(v, "uart", 4);
	ok(f, "export a.db --uart 0 -o u.bin > /dev/null");
	/* 123 bytes: adcapp's banner and readings in its first 200k. */
	assert_int_equal(test_run(out, sizeof out, "wc -c < '%s'", path), 0);
	assert_string_equal(out, "123\n");
	assert_int_equal(test_run(out, sizeof out, "cd '%s' && cp u.bin copy.bin", f->s.dir), 0);
	refused(f, "export a.db --uart 0 -o copy.bin", "avrr export: -o copy.bin: exists and is not "
		"a UART capture avrr wrote; use --force to replace it", "copy.bin");
	refused(f, "export a.db --uart 0 -o notes.txt", "avrr export: -o notes.txt: exists and is "
		"not a UART capture avrr wrote; use --force to replace it", "notes.txt");
	snprintf(path, sizeof path, "%s/copy.bin", f->s.dir);
	assert_int_equal(setxattr(path, "user.avrr.output", "devlog", 6, 0), 0);
	refused(f, "export a.db --uart 0 -o copy.bin", "avrr export: -o copy.bin: exists and is not "
		"a UART capture avrr wrote; use --force to replace it", "copy.bin");
	ok(f, "export a.db --uart 0 -o copy.bin --force > /dev/null");
}

/* The device loop re-run: device's --log-out and --uart-out, the import's
 * replay --uart-out and --log-out, and instrument -o each replace what the
 * same command wrote the run before, without --force. */
static void test_pipeline_rerun(void **state)
{
	fixture *f = *state;
	char out[2048];
	if (test_run(out, sizeof out, "cd '%s' && \"%s\" tracer \"$OLDPWD\"/tests/firmware/"
		     "arduino_blink.elf --log func --ring 64 -o ab.h && avr-gcc -mmcu=atmega328p "
		     "-DF_CPU=16000000UL -Os -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000 "
		     "-Wl,--emit-relocs -include ab.h -include \"$OLDPWD\"/tests/firmware/log_sink.h "
		     "-o ab.elf \"$OLDPWD\"/tests/firmware/arduino_blink.c", f->s.dir, f->avrr))
		fail_msg("build: %s", out);
	const char *twice[] = {
		"instrument ab.elf -o inst.elf > /dev/null",
		"stamp ab.elf > /dev/null",
		"device ab.elf --log-reg GPIOR0 --log-out ab.log --uart-out ab.uart --state-out "
		"ab.state --instructions 300k > /dev/null",
		"import ab.log --elf ab.elf -o ab.db > /dev/null",
		"replay ab.db --log-reg GPIOR0 --uart-out r.uart --log-out r.log --state-out r.state "
		"> /dev/null",
	};
	for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "%s && \"$A\" %s", twice[i], twice[i]);
		ok(f, cmd);
	}
	/* the same bytes both times, and the device's log is the replay's */
	assert_int_equal(test_run(out, sizeof out, "cd '%s' && cmp ab.log r.log && cmp ab.uart "
				  "r.uart", f->s.dir), 0);
}

/* A PID no process has: a child's, once reaped. */
static pid_t dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	assert_true(p > 0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

static int exists(fixture *f, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", f->s.dir, name);
	return access(path, F_OK) == 0;
}

static void test_stale_temporaries_removed(void **state)
{
	fixture *f = *state;
	char dead[64], live[64], other[64];
	pid_t d = dead_pid();
	snprintf(dead, sizeof dead, ".x.db.tmp-%ld", (long)d);
	snprintf(live, sizeof live, ".x.db.tmp-%ld", (long)getpid());
	snprintf(other, sizeof other, ".y.db.tmp-%ld", (long)d);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cd '%s' && touch '%s' '%s' '%s' .x.db.tmp-12ab", f->s.dir, dead,
		 live, other);
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "%s", cmd), 0);
	assert_true(exists(f, dead));
	assert_int_equal(run(f, "record fw.elf --instructions 1000 -o x.db > /dev/null"), 0);
	assert_false(exists(f, dead));    /* its process is gone */
	assert_true(exists(f, live));     /* this test is alive */
	assert_true(exists(f, other));    /* another output's */
	assert_true(exists(f, ".x.db.tmp-12ab"));  /* not a PID */
	assert_true(exists(f, "x.db"));
}

/* The real thing: a record killed with SIGKILL leaves its temporary; the
 * next record beside it removes it. */
static void test_killed_record_cleaned_up(void **state)
{
	fixture *f = *state;
	ok(f, "--version > /dev/null && (\"$A\" record fw.elf --instructions 1G -o k.db > /dev/null & "
	      "p=$!; n=0; while [ ! -e .k.db.tmp-$p ] && [ $n -lt 200 ]; do sleep 0.05; "
	      "n=$((n + 1)); done; kill -9 $p; { wait $p; } 2> /dev/null; ls -A | grep -c '^\\.k\\.db\\.tmp-')");
	assert_string_equal(f->s.out, "1\n");
	ok(f, "record fw.elf --instructions 1000 -o k.db > /dev/null && "
	      "ls -A | grep -c '^\\.k\\.db\\.tmp-'; true");
	assert_string_equal(f->s.out, "0\n");
	assert_true(exists(f, "k.db"));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, test_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_output_is_an_input),
		T(test_foreign_file_needs_force),
		T(test_zero_stop_condition),
		T(test_own_kind_and_force),
		T(test_raw_output_mark),
		T(test_pipeline_rerun),
		T(test_stale_temporaries_removed),
		T(test_killed_record_cleaned_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
