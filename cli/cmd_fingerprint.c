/* cmd_fingerprint.c — `avrr fingerprint`: add configurations to a recording. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "rerun/fingerprints.h"

int cmd_fingerprint(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fp", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *specs[CLI_MAX_FP];
	unsigned nspecs = 0;
	int c;
	cli_getopt g;
	cli_getopt_begin(&g, "fingerprint", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'F':
			if (nspecs == CLI_MAX_FP)
				return cli_fail("fingerprint", "at most %d --fp configurations", CLI_MAX_FP);
			specs[nspecs++] = optarg;
			break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("fingerprint", "usage: avrr fingerprint RUN.db --fp SPEC [--fp SPEC ...]");
	if (!nspecs)
		return cli_fail("fingerprint", "no configuration given; use --fp SPEC");
	for (unsigned i = 0; i < nspecs; i++)
		if (!strcmp(specs[i], RERUN_FP_NONE))
			return cli_fail("fingerprint", "--fp %s keeps no fingerprint (record's way to "
					"record none): give a configuration to add", RERUN_FP_NONE);
	cli_catch_signals_hard(NULL);
	avrr_err err = { "" };
	int rerun = 0;
	if (rec_add_fingerprints(argv[optind], specs, nspecs, &cli_interrupted, &rerun, &err)) {
		fprintf(stderr, "avrr fingerprint: %s\n", err.msg);
		return cli_interrupted ? EXIT_INTERRUPTED : EXIT_BAD_INPUT;
	}
	printf("added %u configuration%s to %s (%s)\n", nspecs,
		nspecs == 1 ? "" : "s", argv[optind],
		rerun ? "re-ran the recording; it matched" : "from the stored contexts");
	return 0;
}
