/* util.c — option parsing and error reporting shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../sim/board.h"
#include "../timeline/travel.h"

volatile int cli_interrupted;

/* For cli_catch_signals_hard: the file to remove when the process ends at
 * once, and whether it may.  Written before the handler is installed. */
static char hard_remove[4096];
static volatile sig_atomic_t hard;

static void on_signal(int sig)
{
	/* simavr can spin inside a peripheral where no stop request is looked
	 * at: a second SIGINT, or SIGTERM, ends the process here and now. */
	if (hard && (sig == SIGTERM || cli_interrupted)) {
		if (hard_remove[0])
			unlink(hard_remove);
		_exit(128 + sig);
	}
	cli_interrupted = 1;
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void cli_catch_signals(void)
{
	install();
}

void cli_catch_signals_hard(const char *remove)
{
	snprintf(hard_remove, sizeof hard_remove, "%s", remove ? remove : "");
	hard = 1;
	install();
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
	char raw[2048], line[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	avrr_escape(line, sizeof line, raw);
	fprintf(stderr, "avrr %s: %s\n", cmd, line);
	return EXIT_BAD_INPUT;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t *out)
{
	const char *p = text;
	if (!*p || *p == '-' || *p == '+' || *p == ' ')
		return cli_fail(cmd, "%s: '%s' is not a non-negative integer", opt, text);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 0);
	uint64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (end == p || *end || errno == ERANGE || (mul > 1 && v > UINT64_MAX / mul))
		return cli_fail(cmd, "%s: '%s' is not a non-negative integer", opt, text);
	*out = (uint64_t)v * mul;
	return 0;
}

int cli_target_board(const char *cmd, cli_target *t, const char *name)
{
	const sim_board *b = board_find(name);
	if (!b) {
		char names[512];
		board_names(names, sizeof names);
		return cli_fail(cmd, "--board: unknown board '%s'; known: %s", name, names);
	}
	t->board_name = b->name;
	t->board_mcu = b->mcu;
	t->board_frequency = b->frequency;
	return 0;
}

int cli_target_mcu(const char *cmd, const cli_target *t, const char **mcu)
{
	if (t->mcu && t->board_mcu && strcasecmp(t->mcu, t->board_mcu))
		return cli_fail(cmd, "--mcu %s contradicts --board %s, an %s", t->mcu, t->board_name,
				t->board_mcu);
	*mcu = t->mcu ? t->mcu : t->board_mcu;
	return 0;
}

uint32_t cli_target_clock(const firmware *fw, const cli_target *t)
{
	if (t->board_frequency)
		return t->board_frequency;
	return fw->frequency ? fw->frequency : 16000000;
}

int cli_parse_match(const char *cmd, const char *text, rp_match *out)
{
	if (!strcmp(text, "set"))
		*out = RP_MATCH_SET;
	else if (!strcmp(text, "sequence"))
		*out = RP_MATCH_SEQUENCE;
	else
		return cli_fail(cmd, "--match: '%s' is neither 'set' nor 'sequence'", text);
	return 0;
}

int cli_parse_window(const char *cmd, const char *text, unsigned *out)
{
	uint64_t w;
	if (cli_parse_u64(cmd, "--window", text, &w))
		return EXIT_BAD_INPUT;
	if (w < 1 || w > 1024)
		return cli_fail(cmd, "--window: %s is not in 1..1024", text);
	*out = (unsigned)w;
	return 0;
}

int cli_parse_checkpoint_memory(const char *cmd, const char *text, unsigned *out)
{
	uint64_t mb;
	if (cli_parse_u64(cmd, "--checkpoint-memory", text, &mb))
		return EXIT_BAD_INPUT;
	if (mb < 1 || mb > TRAVEL_MEMORY_MB_MAX)
		return cli_fail(cmd, "--checkpoint-memory: %s is not in 1..%u (MB)", text,
				TRAVEL_MEMORY_MB_MAX);
	*out = (unsigned)mb;
	return 0;
}

int cli_help(const char *cmd)
{
	for (const cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, cmd)) {
			fputs(c->usage, stdout);
			return 0;
		}
	return 0;
}

void cli_progress_start(cli_progress *p, const char *what)
{
	*p = (cli_progress){ .what = what, .tty = isatty(2), .start = time(NULL) };
}

void cli_progress_show(void *ud, uint64_t done, uint64_t total)
{
	cli_progress *p = ud;
	if (!p->tty || !total || time(NULL) - p->start < 1)
		return;
	fprintf(stderr, "\r%s: %3u%%", p->what, (unsigned)(done * 100 / total));
	p->shown = 1;
}

void cli_progress_end(cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}
