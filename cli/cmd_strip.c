/* cmd_strip.c — `avrr strip`: a copy of a recording without ground truth. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "db/db.h"

int cmd_strip(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int force = 0, c;
	cli_getopt g;
	cli_getopt_begin(&g, "strip", argc, argv, ":o:h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'X': force = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("strip", "usage: avrr strip RUN.db -o DEVICE.db");
	if (!out)
		return cli_fail("strip", "no output given; use -o DEVICE.db");
	/* The copy is renamed over -o: onto RUN.db it would drop the ground
	 * truth in place. */
	const char *in = argv[optind];
	if (cli_check_output("strip", "-o", out, &in, 1, CLI_OUT_RECORDING, force))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	if (db_strip(argv[optind], out, &err))
		return cli_fail("strip", "%s", err.msg);
	return 0;
}
