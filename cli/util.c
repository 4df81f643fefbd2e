/* util.c — option parsing and error reporting shared by the subcommands. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "db/db.h"
#include "fingerprint/tracer.h"
#include "sim/board.h"

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
	/* After a recording (avrr shell FIRMWARE.elf), Ctrl-C is the shell's
	 * again: never the recorder's hard exit. */
	hard = 0;
	hard_remove[0] = 0;
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

int cli_board_set(const char *cmd, cli_board *t, const char *name)
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

int cli_board_mcu(const char *cmd, const cli_board *t, const char **mcu)
{
	if (t->mcu && t->board_mcu && strcasecmp(t->mcu, t->board_mcu))
		return cli_fail(cmd, "--mcu %s contradicts --board %s, an %s", t->mcu, t->board_name,
				t->board_mcu);
	*mcu = t->mcu ? t->mcu : t->board_mcu;
	return 0;
}

uint32_t cli_board_clock(const firmware *fw, const cli_board *t)
{
	if (t->board_frequency)
		return t->board_frequency;
	return fw->frequency ? fw->frequency : 16000000;
}

/* Up to n - 1 bytes of the file's start, NUL-terminated; how many, or -1. */
static ssize_t read_head(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len < n - 1) {
		ssize_t r = read(fd, buf + len, n - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = 0;
	return (ssize_t)len;
}

/* Folded stacks: every line "STACK COUNT", COUNT decimal digits. */
static int is_folded(const char *text, size_t len)
{
	if (strlen(text) != len)
		return 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *sp = end;
		while (sp > p && sp[-1] >= '0' && sp[-1] <= '9')
			sp--;
		if (sp == end || sp <= p + 1 || sp[-1] != ' ')
			return 0;
		p = nl ? nl + 1 : end;
	}
	return 1;
}

/* Whether the NUL-terminated `name` is among the bytes (a string table). */
static int has_name(const char *buf, size_t n, const char *name)
{
	size_t k = strlen(name) + 1;
	for (const char *p = buf; (p = memchr(p, name[0], n - (size_t)(p - buf))); p++)
		if ((size_t)(buf + n - p) >= k && !memcmp(p, name, k))
			return 1;
	return 0;
}

#define STARTS(buf, lit) (!strncmp((buf), (lit), sizeof(lit) - 1))

/* The mark avrr leaves on the files whose bytes cannot say who wrote them
 * (raw UART bytes, a device log, an ELF): an extended attribute naming
 * the kind, set on the temporary file before it is renamed into place, so
 * it is there exactly when the whole file is.  A file system that keeps
 * no extended attributes loses the mark, and then only the content counts:
 * the rule errs towards refusing, never towards overwriting. */
#define MARK_ATTR "user.avrr.output"
static const char *const mark_tag[] = {
	[CLI_OUT_RECORDING] = "recording", [CLI_OUT_CSV] = "csv", [CLI_OUT_VCD] = "vcd",
	[CLI_OUT_HEADER] = "header", [CLI_OUT_FOLDED] = "folded", [CLI_OUT_ELF] = "elf",
	[CLI_OUT_DEVLOG] = "devlog", [CLI_OUT_STATE] = "state", [CLI_OUT_RAW] = "uart",
};

void cli_mark_output(FILE *f, cli_output_kind kind)
{
	if (f && fflush(f) == 0)
		(void)fsetxattr(fileno(f), MARK_ATTR, mark_tag[kind], strlen(mark_tag[kind]), 0);
}

int cli_output_marked(const char *path, cli_output_kind kind)
{
	char v[32];
	ssize_t n = getxattr(path, MARK_ATTR, v, sizeof v);
	return n == (ssize_t)strlen(mark_tag[kind]) && !memcmp(v, mark_tag[kind], (size_t)n);
}

/* Whether the file is one of `kind`: what avrr itself writes there. */
static int is_kind(const char *path, cli_output_kind kind)
{
	if (kind == CLI_OUT_RECORDING)
		return db_is_recording(path);
	/* An ELF's symbol names may lie anywhere in it: firmware is small. */
	size_t cap = kind == CLI_OUT_ELF || kind == CLI_OUT_FOLDED ? 16u << 20 : 256;
	char *buf = malloc(cap);
	ssize_t n = buf ? read_head(path, buf, cap) : -1;
	int yes = 0;
	switch (kind) {
	case CLI_OUT_CSV:
		yes = n > 0 && (STARTS(buf, "recording,config,selector,") ||
				STARTS(buf, "# avrr sweep shard "));
		break;
	case CLI_OUT_VCD:
		yes = n > 0 && STARTS(buf, "$version avrr $end\n");
		break;
	case CLI_OUT_HEADER:
		yes = n > 0 && STARTS(buf, "/*\n * tracer.h \u2014 avrr's device-side tracer");
		break;
	case CLI_OUT_FOLDED:
		yes = n > 0 && (size_t)n < cap - 1 && is_folded(buf, (size_t)n);
		break;
	case CLI_OUT_ELF:
		yes = n > 20 && !memcmp(buf, "\x7f" "ELF", 4) && buf[18] == 83 /* EM_AVR */ &&
		      has_name(buf, (size_t)n, "avrr_sic");
		break;
	case CLI_OUT_DEVLOG:
		yes = n >= 4 && !memcmp(buf, FP_LOG_MAGIC, 4);
		break;
	case CLI_OUT_STATE:
		yes = n > 0 && STARTS(buf, "pc 0x");
		break;
	case CLI_OUT_RECORDING:
	case CLI_OUT_RAW:
		break;
	}
	free(buf);
	return yes;
}

static const char *const kind_name[] = {
	[CLI_OUT_RECORDING] = "an avrr recording",
	[CLI_OUT_CSV] = "a CSV avrr sweep wrote",
	[CLI_OUT_VCD] = "a VCD avrr export wrote",
	[CLI_OUT_HEADER] = "a tracer.h avrr tracer wrote",
	[CLI_OUT_FOLDED] = "folded stacks",
	[CLI_OUT_ELF] = "an ELF avrr instrument wrote, nor a traced build (with avrr_sic)",
	[CLI_OUT_DEVLOG] = "a device log",
	[CLI_OUT_STATE] = "a state avrr device or replay wrote",
	[CLI_OUT_RAW] = "a UART capture avrr wrote",
};

int cli_check_output(const char *cmd, const char *opt, const char *out,
		     const char *const *inputs, int n, cli_output_kind kind, int force)
{
	struct stat so, si;
	if (stat(out, &so) != 0)
		return 0;  /* nothing there to lose; the writer reports a bad path */
	char ro[PATH_MAX], ri[PATH_MAX];
	int have_ro = realpath(out, ro) != NULL;
	for (int i = 0; i < n; i++) {
		if (!inputs[i])
			continue;
		int same = stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev &&
			   si.st_ino == so.st_ino;
		same = same || (have_ro && realpath(inputs[i], ri) && !strcmp(ro, ri));
		if (same)
			return cli_fail(cmd, "%s %s: is the input '%s'; refusing to write over it",
					opt, out, inputs[i]);
	}
	if (S_ISDIR(so.st_mode) || force || (S_ISREG(so.st_mode) && so.st_size == 0) ||
	    (S_ISREG(so.st_mode) && (cli_output_marked(out, kind) || is_kind(out, kind))))
		return 0;
	return cli_fail(cmd, "%s %s: exists and is not %s; use --force to replace it", opt, out,
			kind_name[kind]);
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

int cli_is_elf(const char *path)
{
	unsigned char magic[4] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(magic, 1, sizeof magic, f);
	fclose(f);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}
