/* cmd_record.c — `avrr record`: parse options, run the recorder, summarise. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../db/db.h"
#include "info.h"
#include "../recorder/recorder.h"
#include "../trace/uart.h"

/* What record says on stderr while it runs: the progress line, warnings
 * and the firmware's UART output, each line clearing the progress first. */
typedef struct console console;
typedef struct console_uart {
	console *c;
	unsigned n;
} console_uart;                              /* what emit is told of a line */
struct console {
	cli_progress prog;
	int on;                                  /* echo the UARTs */
	trace_uart_lines lines[TRACE_UARTS];
	console_uart uart[TRACE_UARTS];
};

/* A way in which the recording is not the chip's run: said once, on its
 * own line, clearing a progress line first. */
static void warn(void *ud, const char *text)
{
	console *c = ud;
	cli_progress_end(&c->prog);
	fprintf(stderr, "avrr record: warning: %s\n", text);
}

/* One line the firmware sent, as simavr's console shows it, line by line,
 * but named by its UART and escaped (trace/uart.h). */
static void emit(void *ud, const char *line)
{
	const console_uart *u = ud;
	cli_progress_end(&u->c->prog);
	fprintf(stderr, "uart%u: %s\n", u->n, line);
}

static void uart_tx(void *ud, unsigned uart, uint8_t byte)
{
	console *c = ud;
	trace_uart_lines_put(&c->lines[uart], byte);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mcu", required_argument, NULL, 'm' },
		{ "freq", required_argument, NULL, 'f' },
		{ "stimuli", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "instructions", required_argument, NULL, 'i' },
		{ "cycles", required_argument, NULL, 'c' },
		{ "interrupts", required_argument, NULL, 'I' },
		{ "contexts", no_argument, NULL, 'C' },
		{ "fp", required_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "console", no_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	rec_options o = { 0 };
	const char *specs[CLI_MAX_FP];
	console con = { .on = isatty(2) };
	cli_progress_start(&con.prog, "recording");
	int json = 0, quiet = 0, c;
	uint64_t freq = 0;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:hq", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out_path = optarg; break;
		case 'm': o.mcu = optarg; break;
		case 'f':
			if (cli_parse_u64("record", "--freq", optarg, &freq))
				return EXIT_BAD_INPUT;
			if (freq == 0 || freq > 1000000000)
				return cli_fail("record", "--freq: %s Hz is not a plausible AVR clock", optarg);
			break;
		case 's': o.stimuli_path = optarg; break;
		case 'S':
			if (cli_parse_u64("record", "--seed", optarg, &o.seed))
				return EXIT_BAD_INPUT;
			o.seed_given = 1;
			break;
		case 'i':
		case 'c': {
			const char *opt = c == 'i' ? "--instructions" : "--cycles";
			uint64_t *v = c == 'i' ? &o.max_instructions : &o.max_cycles;
			if (cli_parse_u64("record", opt, optarg, v))
				return EXIT_BAD_INPUT;
			if (*v > DB_MAX_INSTRUCTIONS)
				return cli_fail("record", "%s: '%s' is longer than a recording holds "
						"(at most %llu)", opt, optarg, DB_MAX_INSTRUCTIONS);
			break;
		}
		case 'I':
			if (cli_parse_u64("record", "--interrupts", optarg, &o.max_interrupts))
				return EXIT_BAD_INPUT;
			break;
		case 'C': o.store_contexts = 1; break;
		case 'F':
			if (o.nfp_specs == CLI_MAX_FP)
				return cli_fail("record", "at most %d --fp configurations", CLI_MAX_FP);
			specs[o.nfp_specs++] = optarg;
			break;
		case 'j': json = 1; break;
		case 'K': con.on = 1; break;
		case 'q': quiet = 1; break;
		case 'h': return cli_help("record");
		case ':': return cli_fail("record", "%s needs a value", argv[optind - 1]);
		default: return cli_fail("record", "unknown option '%s'; see 'avrr record --help'",
					 argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("record", "no firmware given; usage: avrr record FIRMWARE.elf -o RUN.db");
	if (optind < argc - 1)
		return cli_fail("record", "one firmware at a time (extra argument '%s')", argv[optind + 1]);
	if (!o.out_path)
		return cli_fail("record", "no output given; use -o RUN.db");
	o.firmware_path = argv[optind];
	o.fp_specs = specs;
	o.frequency = (uint32_t)freq;
	if (!o.max_instructions && !o.max_cycles && !o.max_interrupts)
		o.max_instructions = 10000000;
	if ((o.max_instructions != 0) + (o.max_cycles != 0) + (o.max_interrupts != 0) > 1)
		return cli_fail("record", "give one of --instructions, --cycles, --interrupts");
	o.interrupted = &cli_interrupted;
	if (quiet)  /* the firmware's chatter only: warnings and progress stay */
		con.on = 0;
	o.progress = cli_progress_show;
	o.progress_ud = &con.prog;
	o.warn = warn;
	o.warn_ud = &con;
	if (con.on) {
		for (unsigned n = 0; n < TRACE_UARTS; n++) {
			con.uart[n] = (console_uart){ &con, n };
			trace_uart_lines_init(&con.lines[n], emit, &con.uart[n]);
		}
		o.uart_tx = uart_tx;
		o.uart_tx_ud = &con;
	}

	char tmp[4096];
	cli_catch_signals_hard(db_temp_path(o.out_path, tmp, sizeof tmp) ? NULL : tmp);
	avrr_err err = { "" };
	int interrupted = 0;
	int rc = rec_record(&o, &interrupted, &err);
	cli_progress_end(&con.prog);
	for (unsigned n = 0; con.on && n < TRACE_UARTS; n++)
		trace_uart_lines_flush(&con.lines[n]);  /* the last line, unended */
	if (rc) {
		fprintf(stderr, "avrr record: %s\n", err.msg);
		return interrupted ? EXIT_INTERRUPTED : EXIT_BAD_INPUT;
	}
	db *d;
	if (db_open_written(o.out_path, &d, &err))
		return cli_fail("record", "%s", err.msg);
	rc = info_print(d, o.out_path, json, "record");
	db_close(d);
	return rc;
}
