/*
 * cmd_record.c — `avrr record`: parse options, run the recorder, summarise.
 *
 * The record options are also those of `avrr gdb FIRMWARE.elf` and `avrr
 * shell FIRMWARE.elf`, which record before they debug: one table and one
 * parser (cli_record_*) serve all three, so an option added here is theirs
 * too.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "db/db.h"
#include "cli/info.h"
#include "recorder/recorder.h"
#include "trace/uart.h"


const struct option cli_record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "mcu", required_argument, NULL, 'm' },
	{ "board", required_argument, NULL, 'b' },
	{ "freq", required_argument, NULL, 'f' },
	{ "stimuli", required_argument, NULL, 's' },
	{ "seed", required_argument, NULL, 'S' },
	{ "instructions", required_argument, NULL, 'i' },
	{ "cycles", required_argument, NULL, 'c' },
	{ "interrupts", required_argument, NULL, 'I' },
	{ "contexts", no_argument, NULL, 'C' },
	{ "fp", required_argument, NULL, 'F' },
	{ "force", no_argument, NULL, 'X' },
	{ NULL, 0, NULL, 0 },
};

int cli_record_is_option(int c)
{
	for (const struct option *o = cli_record_options; o->name; o++)
		if (o->val == c)
			return 1;
	return 0;
}

int cli_record_option(const char *cmd, cli_record *r, int c, const char *arg)
{
	rec_options *o = &r->o;
	switch (c) {
	case 'o': o->out_path = arg; break;
	case 'm':
	case 'b':
	case 'f':
		return cli_board_option(cmd, &r->board, c, arg);
	case 's': o->stimuli_path = arg; break;
	case 'S':
		if (cli_parse_u64(cmd, "--seed", arg, &o->seed))
			return EXIT_BAD_INPUT;
		o->seed_given = 1;
		break;
	case 'i':
	case 'c': {
		const char *opt = c == 'i' ? "--instructions" : "--cycles";
		uint64_t *v = c == 'i' ? &o->max_instructions : &o->max_cycles;
		if (cli_parse_u64(cmd, opt, arg, v))
			return EXIT_BAD_INPUT;
		if (!*v)
			return cli_fail(cmd, "%s: 0 would record nothing; give at least 1", opt);
		if (*v > DB_MAX_INSTRUCTIONS)
			return cli_fail(cmd, "%s: '%s' is longer than a recording holds "
					"(at most %llu)", opt, arg, DB_MAX_INSTRUCTIONS);
		break;
	}
	case 'I':
		if (cli_parse_u64(cmd, "--interrupts", arg, &o->max_interrupts))
			return EXIT_BAD_INPUT;
		if (!o->max_interrupts)
			return cli_fail(cmd, "--interrupts: 0 would record nothing; give at least 1");
		break;
	case 'C': o->store_contexts = 1; break;
	case 'X': r->force = 1; break;
	case 'F':
		if (o->nfp_specs == CLI_MAX_FP)
			return cli_fail(cmd, "at most %d --fp configurations", CLI_MAX_FP);
		r->specs[o->nfp_specs++] = arg;
		break;
	default:
		return cli_fail(cmd, "internal: '%c' is not a record option", c);
	}
	return 0;
}

/* A way in which the recording is not the chip's run: said once, on its
 * own line, clearing a progress line first. */
static void warn(void *ud, const char *text)
{
	cli_record *r = ud;
	cli_progress_end(&r->prog);
	fprintf(stderr, "avrr %s: warning: %s\n", r->cmd, text);
}

/* One line the firmware sent, as simavr's console shows it, line by line,
 * but named by its UART and escaped (trace/uart.h). */
static void emit(void *ud, const char *line)
{
	const cli_console_uart *u = ud;
	cli_progress_end(&u->r->prog);
	fprintf(stderr, "uart%u: %s\n", u->n, line);
}

static void uart_tx(void *ud, unsigned uart, uint8_t byte)
{
	cli_record *r = ud;
	trace_uart_lines_put(&r->lines[uart], byte);
}

int cli_record_run(const char *cmd, cli_record *r, const char *elf)
{
	rec_options *o = &r->o;
	o->firmware_path = elf;
	o->fp_specs = r->specs;
	if (cli_board_mcu(cmd, &r->board, &o->mcu))
		return EXIT_BAD_INPUT;
	o->frequency = cli_board_frequency(&r->board);
	if (!o->max_instructions && !o->max_cycles && !o->max_interrupts)
		o->max_instructions = 10000000;
	if ((o->max_instructions != 0) + (o->max_cycles != 0) + (o->max_interrupts != 0) > 1)
		return cli_fail(cmd, "give one of --instructions, --cycles, --interrupts");
	const char *inputs[] = { o->firmware_path, o->stimuli_path };
	if (cli_check_output(cmd, "-o", o->out_path, inputs, 2, CLI_OUT_RECORDING, r->force))
		return EXIT_BAD_INPUT;
	r->cmd = cmd;
	cli_progress_start(&r->prog, "recording");
	o->interrupted = &cli_interrupted;
	o->progress = cli_progress_show;
	o->progress_ud = &r->prog;
	o->warn = warn;
	o->warn_ud = r;
	if (r->console) {
		for (unsigned n = 0; n < TRACE_UARTS; n++) {
			r->uart[n] = (cli_console_uart){ r, n };
			trace_uart_lines_init(&r->lines[n], emit, &r->uart[n]);
		}
		o->uart_tx = uart_tx;
		o->uart_tx_ud = r;
	}

	char tmp[4096];
	cli_catch_signals_hard(db_temp_path(o->out_path, tmp, sizeof tmp) ? NULL : tmp);
	avrr_err err = { "" };
	int interrupted = 0;
	int rc = rec_record(o, &interrupted, &err);
	cli_progress_end(&r->prog);
	for (unsigned n = 0; r->console && n < TRACE_UARTS; n++)
		trace_uart_lines_flush(&r->lines[n]);  /* the last line, unended */
	if (rc) {
		fprintf(stderr, "avrr %s: %s\n", cmd, err.msg);
		return interrupted ? EXIT_INTERRUPTED : EXIT_BAD_INPUT;
	}
	return 0;
}


int cmd_record(int argc, char **argv)
{
	static const struct option own[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "console", no_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	cli_record r = { 0 };
	int json = 0, quiet = 0, c, rc;
	cli_getopt g;
	if (cli_options_join(opts, CLI_MAX_OPTIONS, own, cli_record_options, NULL))
		return cli_fail("record", "internal: too many options");
	r.console = isatty(2);
	cli_getopt_begin(&g, "record", argc, argv, ":o:hq", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'j': json = 1; break;
		case 'K': r.console = 1; break;
		case 'q': quiet = 1; break;
		default:
			if ((rc = cli_record_option("record", &r, c, optarg)))
				return rc;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind >= argc)
		return cli_fail("record", "no firmware given; usage: avrr record FIRMWARE.elf -o RUN.db");
	if (optind < argc - 1)
		return cli_fail("record", "one firmware at a time (extra argument '%s')", argv[optind + 1]);
	if (!r.o.out_path)
		return cli_fail("record", "no output given; use -o RUN.db");
	if (quiet)  /* the firmware's chatter only: warnings and progress stay */
		r.console = 0;
	if ((rc = cli_record_run("record", &r, argv[optind])))
		return rc;
	db *d;
	avrr_err err;
	if (db_open_written(r.o.out_path, &d, &err))
		return cli_fail("record", "%s", err.msg);
	rc = info_print(d, r.o.out_path, json, "record");
	db_close(d);
	return rc;
}
