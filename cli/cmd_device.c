/*
 * cmd_device.c — `avrr device FW.elf --stimuli S --log-out DUMP`: the
 * stand-in for a chip (docs/device.md; the workflow is device/standin.c).
 * Here: the options, the output files (written whole or not at all), and
 * what the run says.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "db/db.h"
#include "device/standin.h"
#include "util/file.h"

int cmd_device(int argc, char **argv)
{
	static const struct option own[] = {
		{ "stimuli", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "log-out", required_argument, NULL, 'l' },
		{ "uart-out", required_argument, NULL, 'u' },
		{ "state-out", required_argument, NULL, 't' },
		{ "log-reg", required_argument, NULL, 'r' },
		{ "instructions", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'X' },
		{ "stats", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	if (cli_options_join(opts, CLI_MAX_OPTIONS, own, cli_board_options, NULL))
		return cli_fail("device", "internal: too many options");
	const char *log_out = NULL, *uart_out = NULL;
	cli_board board = { 0 };
	devstandin_opts o = { .instructions = DEVSTANDIN_DEFAULT_INSTRUCTIONS };
	int force = 0, c, rc;
	cli_getopt g;
	cli_getopt_begin(&g, "device", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 's': o.stim_path = optarg; break;
		case 'S':
			if (cli_parse_u64("device", "--seed", optarg, &o.seed))
				return EXIT_BAD_INPUT;
			o.seed_given = 1;
			break;
		case 'l': log_out = optarg; break;
		case 'u': uart_out = optarg; break;
		case 't': o.state_out = optarg; break;
		case 'r': o.log_reg = optarg; break;
		case 'X': force = 1; break;
		case 'T': o.stats = 1; break;
		case 'n':
			if (cli_parse_u64("device", "--instructions", optarg, &o.instructions))
				return EXIT_BAD_INPUT;
			break;
		default:
			if ((rc = cli_board_option("device", &board, c, optarg)))
				return rc;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !log_out)
		return cli_fail("device", "usage: avrr device FW.elf [--stimuli S] --log-out DUMP");
	if (!o.instructions || o.instructions > DB_MAX_INSTRUCTIONS)
		return cli_fail("device", "--instructions: give 1..%llu",
				(unsigned long long)DB_MAX_INSTRUCTIONS);
	if (cli_board_mcu("device", &board, &o.mcu))
		return EXIT_BAD_INPUT;
	o.frequency = cli_board_frequency(&board);
	o.elf_path = argv[optind];
	const char *inputs[] = { o.elf_path, o.stim_path };
	int ninputs = o.stim_path ? 2 : 1;
	if (cli_check_output("device", "--log-out", log_out, inputs, ninputs, CLI_OUT_DEVLOG,
			     force) ||
	    (uart_out && cli_check_output("device", "--uart-out", uart_out, inputs, ninputs,
					  CLI_OUT_RAW, force)) ||
	    (o.state_out && cli_check_output("device", "--state-out", o.state_out, inputs, ninputs,
					     CLI_OUT_STATE, force)))
		return EXIT_BAD_INPUT;
	char ltmp[4096], utmp[4096];
	if (!(o.log = util_open_temp(log_out, ltmp, sizeof ltmp)))
		return cli_fail("device", "%s: %s", log_out, strerror(errno));
	if (uart_out && !(o.uart = util_open_temp(uart_out, utmp, sizeof utmp))) {
		util_close_temp(o.log, ltmp, log_out, 0);
		return cli_fail("device", "%s: %s", uart_out, strerror(errno));
	}
	avrr_err err = { "" };
	devstandin_result r;
	rc = devstandin_run(&o, &r, &err) ? cli_fail("device", "%s", err.msg) : 0;
	if (!rc) {
		cli_mark_output(o.log, CLI_OUT_DEVLOG);
		cli_mark_output(o.uart, CLI_OUT_RAW);
	}
	if (util_close_temp(o.log, ltmp, log_out, !rc) && !rc)
		rc = cli_fail("device", "%s: %s", log_out, strerror(errno));
	if (o.uart && util_close_temp(o.uart, utmp, uart_out, !rc) && !rc)
		rc = cli_fail("device", "%s: %s", uart_out, strerror(errno));
	if (rc)
		return rc;
	printf("device: %llu instructions, %llu cycles; log %llu bytes, other UART %llu bytes\n",
	       (unsigned long long)r.end_icount, (unsigned long long)r.end_cycle,
	       (unsigned long long)r.log_bytes, (unsigned long long)r.uart_bytes);
	/* A firmware with the log that wrote nothing to the register watched
	 * sends it elsewhere: the capture is empty, and the import would say
	 * only that it is not a log. */
	if (r.has_log && !r.log_bytes)
		fprintf(stderr, "avrr device: warning: the firmware wrote nothing to %s (%s), the "
			"register captured: if its sink writes another, give --log-reg NAME\n",
			r.log_reg, r.log_reg_from);
	if (o.stats)
		printf("stats: interrupts %llu, trace cycles %llu, log cycles %llu, of which "
		       "sending %llu; reads %llu, read cycles %llu, append cycles %llu\n",
		       (unsigned long long)r.interrupts, (unsigned long long)r.trace_cycles,
		       (unsigned long long)r.log_cycles, (unsigned long long)r.send_cycles,
		       (unsigned long long)r.reads, (unsigned long long)r.read_cycles,
		       (unsigned long long)r.put_cycles);
	if (o.stats && r.ld_calls)
		printf("stats: loads below 0x200 %llu, their test's cycles %llu\n",
		       (unsigned long long)r.ld_calls, (unsigned long long)r.ld_cycles);
	return 0;
}
