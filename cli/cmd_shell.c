/*
 * cmd_shell.c — `avrr shell`: the interactive replay debugger (shell/), on a
 * recording, or on a firmware recorded first with `avrr record`'s options.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "shell/ui.h"

int cmd_shell(int argc, char **argv)
{
	static const struct option own[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	ui_options o = { 0 };
	cli_replay p = { 0 };
	cli_record r = { 0 };
	cli_getopt g;
	char record_opt[64] = "";
	int c, rc;
	if (cli_options_join(opts, CLI_MAX_OPTIONS, own, cli_replay_options, cli_travel_options,
			     cli_record_options, NULL))
		return cli_fail("shell", "internal: too many options");
	cli_getopt_begin(&g, "shell", argc, argv, ":hx:o:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'x':
			o.script = optarg;
			break;
		case CLI_OPT_FP:
		case CLI_OPT_MATCH:
		case CLI_OPT_WINDOW:
		case CLI_OPT_CHECKPOINT_MEMORY:
			if ((rc = cli_replay_option("shell", &p, c, optarg)))
				return rc;
			break;
		default:
			if (!record_opt[0])
				snprintf(record_opt, sizeof record_opt, "%s%s", g.index >= 0 ? "--" : "-",
					 g.index >= 0 ? opts[g.index].name : "o");
			if ((rc = cli_record_option("shell", &r, c, optarg)))
				return rc;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("shell", "expected one RUN.db or FIRMWARE.elf; see 'avrr shell --help'");
	const char *path = argv[optind];
	if ((rc = cli_replay_finish("shell", &p, cli_is_elf(path) ? &r : NULL)))
		return rc;
	o.engine.replay = p.ro;
	o.engine.replay.interrupted = &cli_interrupted;
	o.engine.checkpoint_mb = p.checkpoint_mb;
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
