/*
 * options.c — the option loop every command runs, and the replay options
 * (--fp, --match, --window, --checkpoint-memory) that replay, shell, serve,
 * gdb and analyze share, and the board options (--mcu, --board, --freq)
 * of every command that runs a firmware: one table and one parser each,
 * as cmd_record.c has for the record options, so that the commands say a
 * bad option the same way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "db/db.h"
#include "timeline/travel.h"

void cli_getopt_begin(cli_getopt *g, const char *cmd, int argc, char **argv,
		      const char *shortopts, const struct option *opts)
{
	*g = (cli_getopt){ .cmd = cmd, .argc = argc, .argv = argv, .shortopts = shortopts,
			   .opts = opts, .index = -1 };
	opterr = 0;  /* the messages are ours */
	optind = 1;
}

/* The command's first operand — its input — as getopt would find it: not
 * an option, nor an option's value; an unknown option is taken to have
 * one when a word follows it if `valued`.  NULL when there is none, or it
 * is "-". */
static const char *first_operand(const cli_getopt *g, int valued)
{
	for (int i = 1; i < g->argc; i++) {
		const char *a = g->argv[i];
		if (!strcmp(a, "--"))
			return i + 1 < g->argc ? g->argv[i + 1] : NULL;
		if (a[0] != '-')
			return a;
		if (!a[1])
			return NULL;
		if (a[1] == '-') {
			if (strchr(a, '='))
				continue;
			const struct option *o = g->opts;
			while (o->name && strcmp(o->name, a + 2))
				o++;
			if (o->name ? o->has_arg == required_argument
				    : valued && i + 1 < g->argc && g->argv[i + 1][0] != '-')
				i++;
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			const char *s = strchr(g->shortopts, *c);
			if (s && *c != ':' && s[1] == ':') {
				i += !c[1];  /* "-o OUT", not "-oOUT" */
				break;
			}
		}
	}
	return NULL;
}

int cli_getopt_next(cli_getopt *g)
{
	g->index = -1;
	g->at = optind;
	int c = getopt_long(g->argc, g->argv, g->shortopts, g->opts, &g->index);
	switch (c) {
	case -1:
		return 0;
	case 'h':
		g->rc = cli_help(g->cmd);
		return -1;
	case ':':
		g->rc = cli_fail(g->cmd, "%s needs a value", g->argv[optind - 1]);
		return -1;
	case '?':
		if (g->pass_unknown)
			return c;
		/* The option may be one the input would have made valid (an
		 * import's --state-out): a missing input is said first — when
		 * it is the input whether the option takes a value or not. */
		const char *in = first_operand(g, 0);
		if (in && in == first_operand(g, 1) && access(in, F_OK) != 0) {
			g->rc = cli_fail(g->cmd, "%s: %s", in, strerror(errno));
			return -1;
		}
		g->rc = cli_fail(g->cmd, "unknown option '%s'; see 'avrr %s --help'",
				 g->argv[optind - 1], g->cmd);
		return -1;
	default:
		return c;
	}
}

int cli_options_join(struct option *out, size_t n, ...)
{
	va_list ap;
	size_t k = 0;
	int rc = 0;
	va_start(ap, n);
	for (const struct option *t; !rc && (t = va_arg(ap, const struct option *));)
		for (const struct option *o = t; o->name; o++) {
			if (k + 1 >= n) {
				rc = -1;
				break;
			}
			out[k++] = *o;
		}
	va_end(ap);
	out[k] = (struct option){ NULL, 0, NULL, 0 };
	return rc;
}

const struct option cli_board_options[] = {
	{ "mcu", required_argument, NULL, 'm' },
	{ "board", required_argument, NULL, 'b' },
	{ "freq", required_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
};

int cli_board_option(const char *cmd, cli_board *t, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 'm':
		t->mcu = arg;
		return 0;
	case 'b':
		return cli_board_set(cmd, t, arg);
	case 'f':
		if (cli_parse_u64(cmd, "--freq", arg, &v))
			return EXIT_BAD_INPUT;
		if (v == 0 || v > 1000000000)
			return cli_fail(cmd, "--freq: %s Hz is not a plausible AVR clock", arg);
		t->freq = (uint32_t)v;
		return 0;
	default:
		return cli_fail(cmd, "internal: '%c' is not a board option", c);
	}
}

uint32_t cli_board_frequency(const cli_board *t)
{
	return t->freq ? t->freq : t->board_frequency;
}

int cli_board_agrees(const char *cmd, const cli_board *t, const char *path)
{
	const char *mcu;
	if (cli_board_mcu(cmd, t, &mcu))
		return EXIT_BAD_INPUT;
	uint32_t hz = cli_board_frequency(t);
	if (!mcu && !hz)
		return 0;
	db *d;
	db_run run;
	avrr_err err;
	if (db_open_written(path, &d, &err))
		return cli_fail(cmd, "%s", err.msg);
	if (db_get_run(d, &run, &err)) {
		db_close(d);
		return cli_fail(cmd, "%s", err.msg);
	}
	int rc = 0;
	const char *opt = t->mcu ? "--mcu" : "--board";
	if (mcu && strcasecmp(mcu, run.mcu))
		rc = cli_fail(cmd, "%s %s: %s is a run of the %s", opt, t->mcu ? t->mcu
			      : t->board_name, path, run.mcu);
	else if (hz && hz != run.frequency && t->freq)
		rc = cli_fail(cmd, "--freq %u: %s ran at %u Hz", (unsigned)hz, path,
			      (unsigned)run.frequency);
	else if (hz && hz != run.frequency)
		rc = cli_fail(cmd, "--board %s: %s ran at %u Hz, not the board's %u",
			      t->board_name, path, (unsigned)run.frequency, (unsigned)hz);
	db_run_free(&run);
	db_close(d);
	return rc;
}

const struct option cli_replay_options[] = {
	{ "fp", required_argument, NULL, CLI_OPT_FP },
	{ "match", required_argument, NULL, CLI_OPT_MATCH },
	{ "window", required_argument, NULL, CLI_OPT_WINDOW },
	{ NULL, 0, NULL, 0 },
};

const struct option cli_travel_options[] = {
	{ "checkpoint-memory", required_argument, NULL, CLI_OPT_CHECKPOINT_MEMORY },
	{ NULL, 0, NULL, 0 },
};

int cli_replay_option(const char *cmd, cli_replay *p, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case CLI_OPT_FP:
		/* a stored configuration's name with a recording, a SPEC to
		 * record under with a firmware, --oracle's configurations:
		 * the command decides once it knows which */
		if (p->nfp == CLI_MAX_FP)
			return cli_fail(cmd, "at most %d --fp", CLI_MAX_FP);
		p->fps[p->nfp++] = arg;
		return 0;
	case CLI_OPT_MATCH:
		if (!strcmp(arg, "set"))
			p->ro.match = RP_MATCH_SET;
		else if (!strcmp(arg, "sequence"))
			p->ro.match = RP_MATCH_SEQUENCE;
		else
			return cli_fail(cmd, "--match: '%s' is neither 'set' nor 'sequence'", arg);
		p->match_given = 1;
		return 0;
	case CLI_OPT_WINDOW:
		if (cli_parse_u64(cmd, "--window", arg, &v))
			return EXIT_BAD_INPUT;
		if (v < 1 || v > 1024)
			return cli_fail(cmd, "--window: %s is not in 1..1024", arg);
		p->ro.window = (unsigned)v;
		return 0;
	case CLI_OPT_CHECKPOINT_MEMORY:
		if (cli_parse_u64(cmd, "--checkpoint-memory", arg, &v))
			return EXIT_BAD_INPUT;
		if (v < 1 || v > TRAVEL_MEMORY_MB_MAX)
			return cli_fail(cmd, "--checkpoint-memory: %s is not in 1..%u (MB)", arg,
					TRAVEL_MEMORY_MB_MAX);
		p->checkpoint_mb = (unsigned)v;
		return 0;
	default:
		return cli_fail(cmd, "internal: %d is not a replay option", c);
	}
}

int cli_replay_finish(const char *cmd, cli_replay *p, cli_record *rec)
{
	if (!p->match_given)
		p->ro.match = RP_MATCH_SEQUENCE;
	if (rec) {
		for (unsigned i = 0; i < p->nfp; i++) {
			int rc = cli_record_option(cmd, rec, 'F', p->fps[i]);
			if (rc)
				return rc;
		}
	} else if (p->nfp > 1) {
		return cli_fail(cmd, "one --fp NAME: the stored configuration to replay with");
	} else if (p->nfp) {
		p->ro.fp_name = p->fps[0];
	}
	return 0;
}
