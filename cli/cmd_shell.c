/*
 * cmd_shell.c — `avrr shell`: the interactive replay debugger (shell/), on a
 * recording, or on a firmware recorded first with `avrr record`'s options.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../shell/ui.h"

enum { OPT_FP = 256, OPT_MATCH, OPT_WINDOW, OPT_CHECKPOINT };

int cmd_shell(int argc, char **argv)
{
	static const struct option own[] = {
		{ "fp", required_argument, NULL, OPT_FP },
		{ "match", required_argument, NULL, OPT_MATCH },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "checkpoint-memory", required_argument, NULL, OPT_CHECKPOINT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	ui_options o = { .engine.replay = { .match = RP_MATCH_SEQUENCE, .interrupted = &cli_interrupted } };
	cli_record r = { 0 };
	const char *fps[CLI_MAX_FP];
	unsigned nfp = 0;
	char record_opt[64] = "";
	int c, li, rc;
	if (cli_options_merge(own, opts, CLI_MAX_OPTIONS))
		return cli_fail("shell", "internal: too many options");
	opterr = 0;
	optind = 1;
	while (li = -1, (c = getopt_long(argc, argv, ":hx:o:", opts, &li)) != -1) {
		switch (c) {
		case OPT_FP:
			/* a stored configuration's name with a recording, a SPEC
			 * to record under with a firmware: decided below */
			if (nfp == CLI_MAX_FP)
				return cli_fail("shell", "at most %d --fp", CLI_MAX_FP);
			fps[nfp++] = optarg;
			break;
		case OPT_MATCH:
			if (cli_parse_match("shell", optarg, &o.engine.replay.match))
				return EXIT_BAD_INPUT;
			break;
		case OPT_WINDOW:
			if (cli_parse_window("shell", optarg, &o.engine.replay.window))
				return EXIT_BAD_INPUT;
			break;
		case OPT_CHECKPOINT:
			if (cli_parse_checkpoint_memory("shell", optarg, &o.engine.checkpoint_mb))
				return EXIT_BAD_INPUT;
			break;
		case 'x':
			o.script = optarg;
			break;
		case 'h': return cli_help("shell");
		case ':': return cli_fail("shell", "%s needs a value", argv[optind - 1]);
		default:
			if (c == '?' || !cli_record_is_option(c))
				return cli_fail("shell", "unknown option '%s'; see 'avrr shell --help'",
						argv[optind - 1]);
			if (!record_opt[0])
				snprintf(record_opt, sizeof record_opt, "%s%s", li >= 0 ? "--" : "-",
					 li >= 0 ? opts[li].name : "o");
			if ((rc = cli_record_option("shell", &r, c, optarg)))
				return rc;
		}
	}
	if (optind != argc - 1)
		return cli_fail("shell", "expected one RUN.db or FIRMWARE.elf; see 'avrr shell --help'");
	const char *path = argv[optind];
	if (cli_is_elf(path)) {
		for (unsigned i = 0; i < nfp; i++)
			if ((rc = cli_record_option("shell", &r, 'F', fps[i])))
				return rc;
	} else if (nfp > 1) {
		return cli_fail("shell", "one --fp NAME: the stored configuration to replay with");
	} else if (nfp) {
		o.engine.replay.fp_name = fps[0];
	}
	cli_target t;
	if ((rc = cli_target_open("shell", path, &r, record_opt[0] ? record_opt : NULL, &t)))
		return rc;
	o.engine.db_path = t.db;
	o.recorded = t.recorded;
	cli_catch_signals();
	rc = ui_run(&o);
	cli_target_close(&t);
	return rc;
}
