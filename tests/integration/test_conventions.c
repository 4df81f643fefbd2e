/*
 * test_conventions.c — what a user meets around the commands themselves:
 *  - every --json output names its schema and validates against
 *    docs/json/NAME.schema.json (python3's jsonschema, draft 2020-12), and
 *    the schemas do reject a wrong document (no "schema", an unknown key);
 *  - the manual page docs/avrr.1 renders without a warning (man --warnings,
 *    groff -ww), has a section per command `avrr --help` lists holding each
 *    option that command's --help lists, and is what scripts/gen-man.py
 *    makes from the --help today;
 *  - the bash completion completes `avrr re` to record and replay, `avrr
 *    record --st` to --stimuli, and knows every command and every option;
 *  - no --help, doc, result or script names a paper by an internal label
 *    ("seed 004") rather than its authors and title.
 */
#include "tests/testlib.h"

#include <limits.h>
#include <unistd.h>

#define MAX_CMDS 32

static char big[1 << 18];

typedef struct fixture {
	test_scratch s;
	char cmds[MAX_CMDS][32];  /* the commands `avrr --help` lists */
	int ncmds;
} fixture;

static int setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!(*state = f))
		return -1;
	if (test_run(f->s.out, sizeof f->s.out, "%s --help", test_avrr()))
		return -1;
	const char *p = strstr(f->s.out, "\ncommands:\n");
	if (!p)
		return -1;
	for (p += 11; !strncmp(p, "   ", 3) && f->ncmds < MAX_CMDS; p = strchr(p, '\n') + 1)
		sscanf(p, "%31s", f->cmds[f->ncmds++]);
	return f->ncmds >= 14 ? 0 : -1;
}

/* ------------------------------------------------------------ JSON */

/* Validates the JSON in file `json` against docs/json/NAME.schema.json and
 * checks its "schema" is NAME/1; the exit status of the check. */
static int validate(fixture *f, const char *json, const char *name)
{
	return test_run(f->s.out, sizeof f->s.out,
			"python3 -c 'import json,sys,jsonschema\n"
			"v = jsonschema.Draft202012Validator\n"
			"s = json.load(open(sys.argv[1])); v.check_schema(s)\n"
			"d = json.load(open(sys.argv[2]))\n"
			"v(s).validate(d)\n"
			"assert d[\"schema\"] == sys.argv[3] + \"/1\", d[\"schema\"]' "
			"docs/json/%s.schema.json '%s' '%s'", name, json, name);
}

/* Runs avrr ARGS (its JSON into DIR/OUT) and validates it. */
static void check_json(fixture *f, const char *args, const char *out, const char *name)
{
	char path[400];
	snprintf(path, sizeof path, "%s/%s", f->s.dir, out);
	int rc = test_run(f->s.out, sizeof f->s.out, "%s %s > '%s'", test_avrr(), args, path);
	if (rc != 0 && rc != 1)  /* replay --fp b diverges: still JSON */
		fail_msg("avrr %s: status %d: %s", args, rc, f->s.out);
	if (validate(f, path, name))
		fail_msg("avrr %s: not valid against %s: %s", args, name, f->s.out);
}

static void test_json_outputs_validate(void **state)
{
	fixture *f = *state;
	char args[1024], db[300], stripped[300], race[300];
	snprintf(db, sizeof db, "%s/r.db", f->s.dir);
	snprintf(stripped, sizeof stripped, "%s/s.db", f->s.dir);
	snprintf(race, sizeof race, "%s/race.db", f->s.dir);
	snprintf(args, sizeof args, "record traces/funcsheap.elf --stimuli traces/funcsheap.stim "
		 "--instructions 50k --fp 'default:sel=cycles:16,ra=8,width=24' "
		 "--fp 'b:sel=SREG+SPL,hash=modular,width=16' -o '%s' --json", db);
	check_json(f, args, "record.json", "avrr-info");
	snprintf(args, sizeof args, "info '%s' --json", db);
	check_json(f, args, "info.json", "avrr-info");
	snprintf(args, sizeof args, "strip '%s' -o '%s' && %s info '%s' --json", db, stripped,
		 test_avrr(), stripped);
	check_json(f, args, "info-stripped.json", "avrr-info");
	check_json(f, "select traces/funcsheap.elf --json", "select.json", "avrr-select");
	snprintf(args, sizeof args, "replay '%s' --json", db);
	check_json(f, args, "replay.json", "avrr-replay");
	snprintf(args, sizeof args, "replay '%s' --fp b --json", db);
	check_json(f, args, "replay-diverged.json", "avrr-replay");
	snprintf(args, sizeof args, "replay '%s' --json", stripped);
	check_json(f, args, "replay-stripped.json", "avrr-replay");
	snprintf(args, sizeof args, "replay '%s' --oracle --json", db);
	check_json(f, args, "oracle.json", "avrr-oracle");
	snprintf(args, sizeof args, "record tests/firmware/race_tick.elf --instructions 1M -o '%s' "
		 "> /dev/null && %s analyze '%s' races --json", race, test_avrr(), race);
	check_json(f, args, "races.json", "avrr-races");
	snprintf(args, sizeof args, "analyze '%s' profile --json", race);
	check_json(f, args, "profile.json", "avrr-profile");
	snprintf(args, sizeof args, "export '%s' --vcd '%s/x.vcd' --json", db, f->s.dir);
	check_json(f, args, "export.json", "avrr-export");
	snprintf(args, sizeof args, "export '%s' --uart 0 -o '%s/uart0.bin' --json", db, f->s.dir);
	check_json(f, args, "export-uart.json", "avrr-export-uart");

	/* The races file holds a race, so its items were checked too. */
	char path[400];
	snprintf(path, sizeof path, "%s/races.json", f->s.dir);
	json_t *o = json_load_file(path, 0, NULL);
	assert_non_null(o);
	assert_int_equal(json_array_size(json_object_get(o, "races")), 1);
	json_decref(o);

	/* The schemas can fail: without "schema", with a key they do not know,
	 * with a count that is not a number. */
	static const char *const edits[] = {
		"del d[\"schema\"]", "d[\"surprise\"] = 1", "d[\"interrupts\"] = \"many\"",
	};
	for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
		char bad[400];
		snprintf(bad, sizeof bad, "%s/bad.json", f->s.dir);
		snprintf(path, sizeof path, "%s/info.json", f->s.dir);
		assert_int_equal(test_run(f->s.out, sizeof f->s.out, "python3 -c 'import json,sys\n"
					  "d = json.load(open(sys.argv[1])); %s\n"
					  "json.dump(d, open(sys.argv[2], \"w\"))' '%s' '%s'", edits[i],
					  path, bad), 0);
		if (validate(f, bad, "avrr-info") == 0)
			fail_msg("the info schema accepted a document after: %s", edits[i]);
	}
}

/* ------------------------------------------------------------ man page */

/* The long and short options on the option lines of `avrr CMD --help`
 * ("  -o, --output FILE   ..." and "      --json   ..."), one a line. */
static void help_options(const char *cmd, char *buf, size_t n)
{
	if (test_run(buf, n, "%s %s --help | sed -n 's/^\\(  -.\\|      --[a-z]\\)/&/p' | "
		     "sed 's/^ *//; s/   .*//' | grep -o -- '--[a-z][a-z-]*' | sort -u", test_avrr(),
		     cmd))
		fail_msg("avrr %s --help: no options found", cmd);
}

static void test_man_page(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->s.out, sizeof f->s.out,
				  "MANWIDTH=80 man -l --warnings docs/avrr.1 2>&1 >/dev/null"), 0);
	assert_string_equal(f->s.out, "");
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "groff -ww -z -man docs/avrr.1"), 0);
	assert_string_equal(f->s.out, "");
	/* It renders: the NAME line, and the record section's first option. */
	assert_int_equal(test_run(big, sizeof big, "MANWIDTH=80 man -l docs/avrr.1 2>/dev/null"), 0);
	assert_non_null(strstr(big, "avrr - record/replay debugger for interrupt-driven AVR "
				    "firmware"));
	assert_non_null(strstr(big, "   avrr record\n       avrr record FIRMWARE.elf -o RUN.db"));

	char *page = NULL;
	size_t n = 0;
	FILE *fp = fopen("docs/avrr.1", "r");
	assert_non_null(fp);
	assert_true(getdelim(&page, &n, 0, fp) > 0);
	fclose(fp);
	for (int i = 0; i < f->ncmds; i++) {
		char head[64];
		snprintf(head, sizeof head, ".SS \"avrr %s\"\n", f->cmds[i]);
		char *sec = strstr(page, head);
		if (!sec) {
			fail_msg("docs/avrr.1: no section for '%s'", f->cmds[i]);
			return;
		}
		char *end = strstr(sec + 1, "\n.S");  /* the next .SS or .SH */
		size_t len = end ? (size_t)(end - sec) : strlen(sec);
		char opts[4096];
		help_options(f->cmds[i], opts, sizeof opts);
		for (char *o = strtok(opts, "\n"); o; o = strtok(NULL, "\n")) {
			char roff[80] = "", *q = roff;  /* --keep-going is \-\-keep\-going */
			for (const char *c = o; *c && q < roff + sizeof roff - 3; c++)
				q += *c == '-' ? sprintf(q, "\\-") : sprintf(q, "%c", *c);
			char save = sec[len];
			sec[len] = 0;
			int found = strstr(sec, roff) != NULL;
			sec[len] = save;
			if (!found)
				fail_msg("docs/avrr.1: the '%s' section lacks %s", f->cmds[i], o);
		}
	}
	free(page);
	/* Up to date with the --help it is made from. */
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "python3 scripts/gen-man.py %s | "
				  "diff docs/avrr.1 - && echo same", test_avrr()), 0);
	assert_string_equal(f->s.out, "same\n");
}

/* ------------------------------------------------------------ completion */

/* COMPREPLY for the words, the cursor on the last, sorted, space-separated. */
static const char *complete(fixture *f, const char *words)
{
	if (test_run(f->s.out, sizeof f->s.out, "bash -c 'source scripts/avrr.bash-completion\n"
		     "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _avrr\n"
		     "printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort | tr \"\\n\" \" \"'", words))
		fail_msg("completing '%s': %s", words, f->s.out);
	return f->s.out;
}

static void test_bash_completion(void **state)
{
	fixture *f = *state;
	assert_string_equal(complete(f, "avrr re"), "record replay ");
	assert_string_equal(complete(f, "avrr record --st"), "--stimuli ");
	assert_string_equal(complete(f, "avrr replay r.db --match s"), "sequence set ");
	assert_string_equal(complete(f, "avrr analyze r.db p"), "profile ");
	assert_string_equal(complete(f, "avrr strip r.db --f"), "--force ");
	assert_string_equal(complete(f, "avrr record traces/funcsheap."), "traces/funcsheap.elf ");
	/* Every command, and each option its --help lists. */
	for (int i = 0; i < f->ncmds; i++) {
		char words[64];
		snprintf(words, sizeof words, "avrr %s", f->cmds[i]);
		if (!strstr(complete(f, words), f->cmds[i]))
			fail_msg("'avrr %s' is not completed: '%s'", f->cmds[i], f->s.out);
		char opts[4096];
		help_options(f->cmds[i], opts, sizeof opts);
		snprintf(words, sizeof words, "avrr %s -", f->cmds[i]);
		char *got = malloc(strlen(complete(f, words)) + 2);
		assert_non_null(got);
		sprintf(got, " %s", f->s.out);
		for (char *o = strtok(opts, "\n"); o; o = strtok(NULL, "\n")) {
			char want[80];
			snprintf(want, sizeof want, " %s ", o);
			if (!strstr(got, want))
				fail_msg("'avrr %s -<TAB>' lacks %s: '%s'", f->cmds[i], o, got);
		}
		free(got);
	}
}

/* ------------------------------------------------------------ the papers */

static void test_papers_by_name(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(big, sizeof big, "%s --help", test_avrr()), 0);
	assert_null(strstr(big, "seed 00"));
	for (int i = 0; i < f->ncmds; i++) {
		assert_int_equal(test_run(big, sizeof big, "%s %s --help", test_avrr(), f->cmds[i]), 0);
		if (strstr(big, "seed 00") || strstr(big, "seed00"))
			fail_msg("avrr %s --help names a paper 'seed 00x'", f->cmds[i]);
	}
	/* grep exits 1: nothing found. */
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "grep -rn 'seed 00\\|seed00' cli docs results "
				  "scripts README.md"), 1);
	assert_int_equal(test_run(big, sizeof big, "%s select --help", test_avrr()), 0);
	assert_non_null(strstr(big, "Gracioli & Fischmeister"));
}

/* docs/layout.md's rule: the folders' include graph has no cycle and no
 * include that goes up a layer, every include is written from the root.
 * The check is scripts/layers.py's; here it must report all zeros. */
static void test_layers(void **state)
{
	fixture *f = *state;
	assert_int_equal(test_run(f->s.out, sizeof f->s.out, "python3 scripts/layers.py ."), 0);
	assert_non_null(strstr(f->s.out, "\ncycles: 0 (strongly connected groups of folders: 0)\n"));
	assert_non_null(strstr(f->s.out, "\nincludes going up a layer (or across, between peers): 0\n"));
	assert_non_null(strstr(f->s.out, "\nincludes not root-relative (\"folder/file.h\"): 0\n"));
	assert_non_null(strstr(f->s.out, "\nincludes from or to a folder outside the layer order: 0\n"));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, test_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_json_outputs_validate),
		T(test_man_page),
		T(test_bash_completion),
		T(test_papers_by_name),
		T(test_layers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
