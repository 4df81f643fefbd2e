/*
 * cmd_devreplay.c — `avrr replay RUN.db` of a recording `avrr import` made
 * (device/devreplay.h): interrupts from the device's fingerprints, exact
 * or a loud stop naming the first that never matched.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "device/devreplay.h"
#include "util/file.h"

int cmd_replay_device(int argc, char **argv)
{
	static const struct option own[] = {
		{ "uart-out", required_argument, NULL, 'u' },
		{ "log-out", required_argument, NULL, 'l' },
		{ "state-out", required_argument, NULL, 't' },
		{ "instructions", required_argument, NULL, 'n' },
		{ "log-reg", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	if (cli_options_join(opts, CLI_MAX_OPTIONS, own, cli_board_options, NULL))
		return cli_fail("replay", "internal: too many options");
	const char *uart_out = NULL, *log_out = NULL;
	devreplay_opts o = { 0 };
	cli_board board = { 0 };
	int force = 0, c;
	cli_getopt g;
	cli_getopt_begin(&g, "replay", argc, argv, ":h", opts);
	g.pass_unknown = 1;  /* said with the options an import takes */
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'u': uart_out = optarg; break;
		case 'l': log_out = optarg; break;
		case 't': o.state_out = optarg; break;
		case 'n':
			if (cli_parse_u64("replay", "--instructions", optarg, &o.max_instructions))
				return EXIT_BAD_INPUT;
			break;
		case 'X': force = 1; break;
		case 'r': o.log_reg = optarg; break;
		case '?': return cli_fail("replay", "unknown option '%s' for an imported recording "
					  "(--uart-out, --log-out, --state-out, --instructions, "
					  "--log-reg, --mcu, --board, --freq)", argv[optind - 1]);
		case 'm':
		case 'b':
		case 'f':
			if (cli_board_option("replay", &board, c, optarg))
				return EXIT_BAD_INPUT;
			break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("replay", "usage: avrr replay RUN.db [--uart-out F] [--log-out F] "
				"[--state-out F] [--log-reg NAME] [--instructions N] [--mcu NAME | "
				"--board NAME] [--freq HZ]");
	const char *in = argv[optind];
	if (cli_board_agrees("replay", &board, in))
		return EXIT_BAD_INPUT;
	if ((uart_out && cli_check_output("replay", "--uart-out", uart_out, &in, 1, CLI_OUT_RAW,
					  force)) ||
	    (log_out && cli_check_output("replay", "--log-out", log_out, &in, 1, CLI_OUT_DEVLOG,
					 force)) ||
	    (o.state_out && cli_check_output("replay", "--state-out", o.state_out, &in, 1,
					     CLI_OUT_STATE, force)))
		return EXIT_BAD_INPUT;
	char ut[4096], lt[4096];
	if (uart_out && !(o.uart_out = util_open_temp(uart_out, ut, sizeof ut)))
		return cli_fail("replay", "%s: %s", uart_out, strerror(errno));
	if (log_out && !(o.log_out = util_open_temp(log_out, lt, sizeof lt))) {
		util_close_temp(o.uart_out, ut, uart_out, 0);
		return cli_fail("replay", "%s: %s", log_out, strerror(errno));
	}
	avrr_err err = { "" };
	devreplay_result res;
	int bad = devreplay_run(in, &o, &res, &err);
	int rc = bad ? cli_fail("replay", "%s", err.msg) : res.diverged ? 1 : 0;
	if (!bad) {
		cli_mark_output(o.uart_out, CLI_OUT_RAW);
		cli_mark_output(o.log_out, CLI_OUT_DEVLOG);
	}
	if (o.uart_out && util_close_temp(o.uart_out, ut, uart_out, !bad) && !bad)
		rc = cli_fail("replay", "%s: %s", uart_out, strerror(errno));
	if (o.log_out && util_close_temp(o.log_out, lt, log_out, !bad) && !bad)
		rc = cli_fail("replay", "%s: %s", log_out, strerror(errno));
	if (bad)
		return rc;
	if (res.diverged)
		printf("replay: diverged: %s\n", res.why);
	printf("replay: %llu instructions, %llu of %llu device interrupts re-created, %llu of "
	       "%llu input reads fed%s\n", (unsigned long long)res.instructions,
	       (unsigned long long)res.injected, (unsigned long long)res.expected,
	       (unsigned long long)res.reads, (unsigned long long)res.reads_expected,
	       res.diverged ? "" : ": every item of the log matched");
	if (res.overflows)
		printf("replay: the tracer's own %s overflow handler entered %llu times, as "
		       "%s overflowed (it logs nothing)\n", res.ovf_timer,
		       (unsigned long long)res.overflows, res.ovf_timer);
	return rc;
}
