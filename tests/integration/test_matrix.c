/*
 * test_matrix.c — every documented option of record, replay (the oracle
 * and an import's replay among them), fingerprint, analyze, shell (batch:
 * commands on stdin; and on a firmware, with record's options) and export,
 * alone with each of its value forms and in every pair, on a small
 * recording.  Each run must exit 0 or 1 (a replay that went wrong), or 2
 * with exactly one line "avrr CMD: ..."; never a signal, a timeout, a
 * sanitizer's report or the oracle's "BUG".
 *
 * The options are read from each command's --help (its usage lines and its
 * option column), so a new option is in the matrix as soon as it is
 * documented: the test fails until the table below gives its values, and
 * fails on a table entry no --help documents.  Spec forms of --fp are one
 * list, SPECS, run by record, fingerprint and the oracle.
 */
#include "tests/testlib.h"

#include <ctype.h>

/* Placeholders in the table: {fw} {stim} the firmware and its stimuli,
 * {db} the recording, {imp} an import of a device log, {copy} a fresh copy
 * of the recording (fingerprint adds to it), {out} a fresh output path,
 * {dir} the scratch directory, {script} a file of shell commands, {spec}
 * each of SPECS in turn. */
#define FW "traces/adcapp.elf"
#define STIM "traces/adcapp.stim"

/* The fingerprint spec forms (docs/fingerprints.md), good and bad. */
static const char *const SPECS[] = {
	"sel=SREG",
	"none",
	"fast:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=8,width=16",
	"all:sel=all,hash=jenkins,ra=16,width=64",
	"rr:sel=SREG+r24,hash=rr,marker=var:adc_n,ra=6,width=16",
	"rr2:sel=r24,hash=rr,marker=0x0-0x100:modular+0x100-0x4000:knuth,ra=2,width=20",
	"rr3:sel=SREG,hash=rr,width=12",
	"m:sel=0x60-0x7f+stack:4+TCNT1L,hash=modular,ra=0,width=8",
	"t:sel=r24+var:adc_acc,hash=twomod,ra=3,width=12",
	"k:sel=cycles:16+sic:8,hash=knuth,ra=4,width=32",
	"s:sel=sic:32,ra=0,width=32",
	"w:sel=0x60,ra=32,width=64",
	"bad:sel=",
	"sel=PORTQ",
	"sel=SREG,hash=nope",
	"sel=SREG,width=0",
	"sel=SREG,ra=65",
	"sel=cycles:33",
	"sel=var:no_such_var",
};
#define NSPECS (sizeof SPECS / sizeof SPECS[0])

/* A command as the matrix runs it. */
typedef struct cmdspec {
	const char *key;         /* the table's name for it */
	const char *help;        /* whose --help lists its options */
	const char *run;         /* the avrr command run */
	const char *bases[2];    /* the operands (and required options) */
	const char *tail;        /* appended unless an option in `unless` is given */
	const char *unless;
	int pairs;               /* also every pair of options */
	int batch;               /* the shell's commands on stdin */
} cmdspec;

static const cmdspec CMDS[] = {
	{ "record", "record", "record", { "{fw} -o {out}.db" }, "--instructions 5k",
	  " --instructions --cycles --interrupts --help ", 1, 0 },
	{ "replay", "replay", "replay", { "{db}" }, NULL, NULL, 1, 0 },
	{ "fingerprint", "fingerprint", "fingerprint", { "{copy}" }, NULL, NULL, 1, 0 },
	{ "analyze", "analyze", "analyze", { "{db} races", "{db} profile" }, NULL, NULL, 1, 0 },
	{ "shell", "shell", "shell", { "{db}" }, NULL, NULL, 1, 1 },
	/* `avrr shell FIRMWARE.elf [avrr record's options]`: each alone */
	{ "shell-elf", "record", "shell", { "{fw}" }, "--instructions 5k",
	  " --instructions --cycles --interrupts --help ", 0, 1 },
	{ "export", "export", "export", { "{db}" }, NULL, NULL, 1, 0 },
};
#define NCMDS (sizeof CMDS / sizeof CMDS[0])

/* Each option's value forms, '|' between them; "" for a flag.  base, when
 * set, replaces the command's operands (an import's own options). */
typedef struct optvals {
	const char *help;        /* the --help it is documented in */
	const char *name;
	const char *values;
	const char *base;
} optvals;

static const optvals VALUES[] = {
	{ "record", "--output", "{out}.db", NULL },
	{ "record", "--mcu", "atmega16|atmega328p|nosuch", NULL },
	{ "record", "--freq", "8M|1|0|x", NULL },
	{ "record", "--board", "uno|nosuch", NULL },
	{ "record", "--stimuli", "{stim}|{dir}/missing.stim|{fw}", NULL },
	{ "record", "--seed", "7|0x10|-1", NULL },
	{ "record", "--instructions", "1|5k|0|1x", NULL },
	{ "record", "--cycles", "10k|0", NULL },
	{ "record", "--interrupts", "3|0", NULL },
	{ "record", "--contexts", "", NULL },
	{ "record", "--fp", "{spec}", NULL },
	{ "record", "--json", "", NULL },
	{ "record", "--console", "", NULL },
	{ "record", "--quiet", "", NULL },
	{ "record", "--force", "", NULL },
	{ "record", "--help", "", NULL },
	{ "replay", "--fp", "default|fast|nosuch|sel=SREG", NULL },
	{ "replay", "--match", "set|sequence|bogus", NULL },
	{ "replay", "--window", "1|4|0", NULL },
	{ "replay", "--until", "100|0|999999999", NULL },
	{ "replay", "--keep-going", "", NULL },
	{ "replay", "--mcu", "atmega16|atmega328p|nosuch", NULL },
	{ "replay", "--freq", "8M|16M|x", NULL },
	{ "replay", "--board", "uno|nosuch", NULL },
	{ "replay", "--oracle", "", NULL },
	{ "replay", "--json", "", NULL },
	{ "replay", "--help", "", NULL },
	{ "replay", "--uart-out", "{out}.uart", "{imp}" },
	{ "replay", "--log-out", "{out}.log", "{imp}" },
	{ "replay", "--state-out", "{out}.state", "{imp}" },
	{ "replay", "--log-reg", "GPIOR0|UDR0|NOPE", "{imp}" },
	{ "replay", "--instructions", "100k|0|x", "{imp}" },
	{ "replay", "--force", "", "{imp}" },
	{ "fingerprint", "--fp", "{spec}", NULL },
	{ "fingerprint", "--help", "", NULL },
	{ "analyze", "--fp", "default|fast|nosuch", NULL },
	{ "analyze", "--match", "set|sequence|bogus", NULL },
	{ "analyze", "--window", "1|4|0", NULL },
	{ "analyze", "--json", "", NULL },
	{ "analyze", "--folded", "{out}.folded|{dir}", NULL },
	{ "analyze", "--force", "", NULL },
	{ "analyze", "--help", "", NULL },
	{ "shell", "--fp", "default|fast|nosuch", NULL },
	{ "shell", "--match", "set|sequence|bogus", NULL },
	{ "shell", "--window", "1|4|0", NULL },
	{ "shell", "--checkpoint-memory", "1|256|0", NULL },
	{ "shell", "-x", "{script}|{dir}/missing.gdb", NULL },
	{ "shell", "-o", "{out}.db", "{fw} --instructions 5k" },
	{ "shell", "--help", "", NULL },
	{ "export", "--vcd", "{out}.vcd|{dir}", NULL },
	{ "export", "--var", "adc_n|adc_acc|nosuch", NULL },
	{ "export", "--uart", "0|1|4", NULL },
	{ "export", "--output", "{out}.bin|-", NULL },
	{ "export", "--json", "", NULL },
	{ "export", "--force", "", NULL },
	{ "export", "--help", "", NULL },
};
#define NVALUES (sizeof VALUES / sizeof VALUES[0])

/* Runs that no single option or pair makes: the oracle over every spec. */
static const struct {
	const char *cmd, *args;
} EXTRA[] = {
	{ "replay", "{db} --oracle --fp {spec}" },
	{ "replay", "{db} --oracle --match sequence --fp {spec} --json" },
	{ "replay", "{db} --oracle --fp default --fp fast --fp {spec}" },
	{ "analyze", "{db} races --fp fast --match set --window 2 --json" },
	{ "export", "{db} --vcd {out}.vcd --var adc_n --var adc_acc --json" },
	{ "export", "{db} --uart 0 -o {out}.bin --json --force" },
};

/* What the shell runs, on stdin or with -x. */
static const char SCRIPT[] =
	"info registers\nstepi\nstepi 10\nnext\nstep\nwhere\nbreak main\ncontinue\n"
	"reverse-stepi\nreverse-continue\ngoto 2000\nprint adc_n\nprint/x adc_acc\n"
	"x/8xb 0x60\ninfo interrupts\ninfo uart\nerrors\nwatch adc_n\ncontinue\n"
	"reverse-continue\ndelete\nfinish\nup\ndown\ninfo frame\ncontinue\nquit\n";

#define MAX_OPTS 32
#define MAX_FAIL 12

typedef struct fixture {
	test_scratch s;
	char db[256], imp[256], script[256];
	unsigned seq;            /* for {out} and {copy} */
	unsigned runs;
	char fails[MAX_FAIL][800];
	unsigned nfail;
} fixture;

static char big[1 << 20];

/* ------------------------------------------------------------ --help */

/* Adds the option tokens of `text` (up to n bytes) to names. */
static void add_tokens(const char *text, size_t n, char names[][40], int *count,
		       char alias[][2][40], int *nalias, int column)
{
	char shortname[40] = "";
	for (size_t i = 0; i < n; i++) {
		if (text[i] != '-' || (i && !strchr(" [", text[i - 1])))
			continue;
		size_t j = i + 1 + (text[i + 1] == '-');
		if (j >= n || !isalpha((unsigned char)text[j]))
			continue;
		char tok[40];
		size_t k = 0;
		for (size_t p = i; p < n && (isalnum((unsigned char)text[p]) || text[p] == '-') &&
		     k < sizeof tok - 1; p++)
			tok[k++] = text[p];
		tok[k] = 0;
		i += k - 1;
		if (tok[1] != '-' && strlen(tok) != 2)
			continue;  /* "-1" or such, not an option */
		/* "-o, --output": one option; the long name stands for both */
		if (column && tok[1] != '-') {
			snprintf(shortname, sizeof shortname, "%s", tok);
		} else if (column && *shortname && *nalias < MAX_OPTS) {
			snprintf(alias[*nalias][0], 40, "%s", shortname);
			snprintf(alias[(*nalias)++][1], 40, "%s", tok);
			*shortname = 0;
		}
		int dup = 0;
		for (int m = 0; m < *count; m++)
			dup |= !strcmp(names[m], tok);
		if (!dup && *count < MAX_OPTS)
			snprintf(names[(*count)++], 40, "%s", tok);
	}
}

/* The options `avrr CMD --help` documents: in its usage lines (up to the
 * first blank line) and in its option column (a line that starts with a
 * few spaces and '-', up to the first two spaces after the names). */
static int documented(const char *cmd, char names[][40])
{
	char help[16384];
	if (test_run(help, sizeof help, "%s %s --help", test_avrr(), cmd))
		fail_msg("avrr %s --help failed: %s", cmd, help);
	int count = 0, nalias = 0;
	char alias[MAX_OPTS][2][40];
	const char *usage_end = strstr(help, "\n\n");
	add_tokens(help, usage_end ? (size_t)(usage_end - help) : strlen(help), names, &count,
		   alias, &nalias, 0);
	for (const char *l = help; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t ind = strspn(l, " ");
		if (ind < 2 || ind > 8 || l[ind] != '-')
			continue;
		const char *end = strstr(l + ind, "  "), *nl = strchr(l, '\n');
		if (!end || (nl && end > nl))
			end = nl ? nl : l + strlen(l);
		add_tokens(l, (size_t)(end - l), names, &count, alias, &nalias, 1);
	}
	/* a short name with a long one is the long one */
	int out = 0;
	for (int m = 0; m < count; m++) {
		int is_alias = 0;
		for (int a = 0; a < nalias; a++)
			is_alias |= !strcmp(names[m], alias[a][0]);
		if (!is_alias)
			memmove(names[out++], names[m], 40);
	}
	return out;
}

static const optvals *values_of(const char *help, const char *name)
{
	for (size_t i = 0; i < NVALUES; i++)
		if (!strcmp(VALUES[i].help, help) && !strcmp(VALUES[i].name, name))
			return &VALUES[i];
	return NULL;
}

/* ------------------------------------------------------------ runs */

/* Replaces the placeholders of `in` into out; spec is {spec}'s value. */
static void expand(fixture *f, const char *in, const char *spec, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (const char *p = in; *p && len < n - 1;) {
		char v[600];
		const char *close = *p == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			out[len++] = *p++;
			out[len] = 0;
			continue;
		}
		size_t k = (size_t)(close - p + 1);
		if (!strncmp(p, "{fw}", k))
			snprintf(v, sizeof v, "%s", FW);
		else if (!strncmp(p, "{stim}", k))
			snprintf(v, sizeof v, "%s", STIM);
		else if (!strncmp(p, "{db}", k))
			snprintf(v, sizeof v, "'%s'", f->db);
		else if (!strncmp(p, "{imp}", k))
			snprintf(v, sizeof v, "'%s'", f->imp);
		else if (!strncmp(p, "{script}", k))
			snprintf(v, sizeof v, "'%s'", f->script);
		else if (!strncmp(p, "{dir}", k))
			snprintf(v, sizeof v, "%s", f->s.dir);
		else if (!strncmp(p, "{out}", k))
			snprintf(v, sizeof v, "%s/o%u", f->s.dir, ++f->seq);
		else if (!strncmp(p, "{spec}", k))
			snprintf(v, sizeof v, "'%s'", spec);
		else if (!strncmp(p, "{copy}", k)) {
			snprintf(v, sizeof v, "%s/c%u.db", f->s.dir, ++f->seq);
			char cp[1024];
			if (test_run(cp, sizeof cp, "cp '%s' '%s'", f->db, v))
				fail_msg("cp: %s", cp);
		} else
			fail_msg("unknown placeholder in '%s'", in);
		len += (size_t)snprintf(out + len, n - len, "%s", v);
		if (len >= n)
			len = n - 1;
		p = close + 1;
	}
}

/* Whether the run's output ends in anything but a clean exit. */
static const char *bad_run(int rc, const char *out, const char *cmd)
{
	if (rc < 0 || rc > 2)
		return rc == 124 ? "timed out" : "died (a signal, or an exit status above 2)";
	if (strstr(out, "Sanitizer") || strstr(out, "runtime error"))
		return "a sanitizer's report";
	if (strstr(out, "BUG"))
		return "a BUG line";
	if (rc == 2) {
		char prefix[64];
		snprintf(prefix, sizeof prefix, "avrr %s: ", cmd);
		const char *nl = strchr(out, '\n');
		if (strncmp(out, prefix, strlen(prefix)) || !nl || nl[1])
			return "status 2 without exactly one line 'avrr CMD: ...'";
		if (strstr(out, "\\n"))
			return "a line break escaped into its one line";
	}
	return NULL;
}

/* Runs `avrr c->run ARGS` (placeholders expanded). */
static void run(fixture *f, const cmdspec *c, const char *args, const char *spec)
{
	char line[4096], cmd[4600];
	expand(f, args, spec, line, sizeof line);
	snprintf(cmd, sizeof cmd, "timeout 120 %s %s %s%s'%s'", test_avrr(), c->run, line,
		 " < ", c->batch ? f->script : "/dev/null");
	int rc = test_run(big, sizeof big, "%s", cmd);
	f->runs++;
	if (getenv("AVRR_MATRIX_LOG"))  /* every run, to see what the matrix covers */
		printf("# %d: avrr %s %s: %.120s\n", rc, c->run, line, big);
	const char *why = bad_run(rc, big, c->run);
	if (why && f->nfail < MAX_FAIL) {
		char first[200];
		snprintf(first, sizeof first, "%.199s", big);
		snprintf(f->fails[f->nfail++], sizeof f->fails[0], "avrr %s %.300s: %s (exit %d): %s",
			 c->run, line, why, rc, first);
	} else if (why) {
		f->nfail++;
	}
}

/* The value forms of an option: n of them into v (a flag has one, ""). */
static int forms(const optvals *o, char v[][160])
{
	int n = 0;
	for (const char *p = o->values;; n++) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		snprintf(v[n], 160, "%.*s", (int)len, p);
		if (!bar || n == 15)
			return n + 1;
		p = bar + 1;
	}
}

/* " NAME VALUE" into buf (value "" for a flag); a {spec} value is run
 * once per spec by the caller. */
static void option_text(const char *name, const char *value, char *buf, size_t n)
{
	snprintf(buf, n, " %.39s%s%.159s", name, *value ? " " : "", value);
}

static void run_combo(fixture *f, const cmdspec *c, const char *base, const char *opts,
		      const char *names)
{
	char args[3000];
	int tail = c->tail != NULL;
	if (tail) {
		char nm[64];
		for (const char *p = names; *p;) {
			size_t k = strcspn(p, " ");
			snprintf(nm, sizeof nm, " %.*s ", (int)k, p);
			if (k && strstr(c->unless, nm))
				tail = 0;
			p += k + (p[k] == ' ');
		}
	}
	snprintf(args, sizeof args, "%s%s%s%s", base, opts, tail ? " " : "", tail ? c->tail : "");
	if (strstr(args, "{spec}")) {
		for (size_t s = 0; s < NSPECS; s++)
			run(f, c, args, SPECS[s]);
	} else {
		run(f, c, args, "");
	}
}

static void test_matrix(void **state)
{
	fixture *f = *state;
	char missing[2048] = "";
	unsigned singles = 0, pairs = 0, extras = 0;
	/* Every table entry is documented somewhere. */
	for (size_t i = 0; i < NVALUES; i++) {
		char names[MAX_OPTS][40];
		int n = documented(VALUES[i].help, names), found = 0;
		for (int k = 0; k < n; k++)
			found |= !strcmp(names[k], VALUES[i].name);
		if (!found)
			fail_msg("the matrix gives values for %s's %s, which its --help does not "
				 "document", VALUES[i].help, VALUES[i].name);
	}
	for (size_t ci = 0; ci < NCMDS; ci++) {
		const cmdspec *c = &CMDS[ci];
		char names[MAX_OPTS][40];
		int n = documented(c->help, names);
		const optvals *ov[MAX_OPTS];
		for (int k = 0; k < n; k++)
			if (!(ov[k] = values_of(c->help, names[k])))
				snprintf(missing + strlen(missing), sizeof missing - strlen(missing),
					 " %s %s", c->help, names[k]);
		if (*missing)
			continue;
		for (int b = 0; b < 2 && c->bases[b]; b++) {
			/* each option with each of its values */
			for (int k = 0; k < n; k++) {
				char v[16][160], o[400];
				int nv = forms(ov[k], v);
				for (int j = 0; j < nv; j++) {
					option_text(names[k], v[j], o, sizeof o);
					unsigned before = f->runs;
					run_combo(f, c, ov[k]->base ? ov[k]->base : c->bases[b], o, names[k]);
					singles += f->runs - before;
				}
			}
			if (!c->pairs)
				continue;
			/* every pair, each with its first value */
			for (int k = 0; k < n; k++)
				for (int m = k + 1; m < n; m++) {
					char v1[16][160], v2[16][160], o1[400], o2[400], o[800], nm[100];
					forms(ov[k], v1);
					forms(ov[m], v2);
					option_text(names[k], v1[0], o1, sizeof o1);
					option_text(names[m], v2[0], o2, sizeof o2);
					snprintf(o, sizeof o, "%s%s", o1, o2);
					snprintf(nm, sizeof nm, "%s %s", names[k], names[m]);
					const char *base = ov[k]->base ? ov[k]->base
						   : ov[m]->base ? ov[m]->base : c->bases[b];
					/* a {spec} pair once, with the first spec */
					char one[900];
					snprintf(one, sizeof one, "%s", o);
					char *sp = strstr(one, "{spec}");
					if (sp) {
						char rest[900];
						snprintf(rest, sizeof rest, "%s", sp + 6);
						snprintf(sp, sizeof one - (size_t)(sp - one), "'%s'%s",
							 SPECS[0], rest);
					}
					unsigned before = f->runs;
					run_combo(f, c, base, one, nm);
					pairs += f->runs - before;
				}
		}
	}
	if (*missing)
		fail_msg("documented options without values in test_matrix.c's table:%s", missing);
	for (size_t i = 0; i < sizeof EXTRA / sizeof EXTRA[0]; i++) {
		const cmdspec *c = NULL;
		for (size_t ci = 0; ci < NCMDS && !c; ci++)
			if (!strcmp(CMDS[ci].key, EXTRA[i].cmd))
				c = &CMDS[ci];
		unsigned before = f->runs;
		run_combo(f, c, EXTRA[i].args, "", "");
		extras += f->runs - before;
	}
	printf("# matrix: %u runs (%u single options and values, %u pairs, %u more), "
	       "%u unclean\n", f->runs, singles, pairs, extras, f->nfail);
	if (f->nfail) {
		for (unsigned i = 0; i < f->nfail && i < MAX_FAIL; i++)
			printf("# %s\n", f->fails[i]);
		fail_msg("%u of %u runs did not end cleanly", f->nfail, f->runs);
	}
}

/* ------------------------------------------------------------ fixture */

/* The recording (adcapp, 50k instructions, two configurations, the
 * contexts), the shell's script, and an import: arduino_blink traced by
 * its header, run on the stand-in chip, its log imported. */
static int setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!(*state = f))
		return -1;
	const char *a = test_avrr(), *d = f->s.dir;
	snprintf(f->db, sizeof f->db, "%s/base.db", d);
	snprintf(f->imp, sizeof f->imp, "%s/imp.db", d);
	snprintf(f->script, sizeof f->script, "%s/cmds.gdb", d);
	FILE *s = fopen(f->script, "w");
	if (!s || fputs(SCRIPT, s) < 0 || fclose(s))
		return -1;
	if (test_run(f->s.out, sizeof f->s.out, "%s record " FW " --stimuli " STIM " --instructions "
		     "50k --contexts --fp default:sel=cycles:32,ra=0,width=32 --fp "
		     "'fast:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=8,width=16' -o '%s' "
		     "--quiet", a, f->db)) {
		print_error("record: %s\n", f->s.out);
		return -1;
	}
	if (test_run(f->s.out, sizeof f->s.out,
		     "cd '%s' && A='%s' && case $A in /*) ;; *) A=\"$OLDPWD/$A\" ;; esac && "
		     "\"$A\" tracer \"$OLDPWD\"/tests/firmware/arduino_blink.elf --log func --ring 64 "
		     "-o ab.h && avr-gcc -mmcu=atmega328p -DF_CPU=16000000UL -Os "
		     "-I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000 -include ab.h "
		     "-include \"$OLDPWD\"/tests/firmware/log_sink.h -o ab.elf "
		     "\"$OLDPWD\"/tests/firmware/arduino_blink.c && \"$A\" stamp ab.elf && "
		     "\"$A\" device ab.elf --log-reg GPIOR0 --log-out ab.log --instructions 300k && "
		     "\"$A\" import ab.log --elf ab.elf -o imp.db", d, a)) {
		print_error("the import: %s\n", f->s.out);
		return -1;
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_matrix, setup, test_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
