/* cmd_shell.c — `avrr shell`: the interactive replay debugger (shell/). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../shell/ui.h"

int cmd_shell(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fp", required_argument, NULL, 'F' },
		{ "match", required_argument, NULL, 'm' },
		{ "window", required_argument, NULL, 'w' },
		{ "checkpoint-memory", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ui_options o = { .engine.replay = { .match = RP_MATCH_SEQUENCE, .interrupted = &cli_interrupted } };
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hx:", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			o.engine.replay.fp_name = optarg;
			break;
		case 'm':
			if (cli_parse_match("shell", optarg, &o.engine.replay.match))
				return EXIT_BAD_INPUT;
			break;
		case 'w':
			if (cli_parse_window("shell", optarg, &o.engine.replay.window))
				return EXIT_BAD_INPUT;
			break;
		case 'C':
			if (cli_parse_checkpoint_memory("shell", optarg, &o.engine.checkpoint_mb))
				return EXIT_BAD_INPUT;
			break;
		case 'x':
			o.script = optarg;
			break;
		case 'h': return cli_help("shell");
		case ':': return cli_fail("shell", "%s needs a value", argv[optind - 1]);
		default: return cli_fail("shell", "unknown option '%s'; see 'avrr shell --help'",
					 argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_fail("shell", "expected one RUN.db; see 'avrr shell --help'");
	o.engine.db_path = argv[optind];
	cli_catch_signals();
	return ui_run(&o);
}
