/*
 * cmd_import.c — `avrr import DUMP --elf FW.elf -o RUN.db`: a device log
 * (docs/device.md) and the ELF that ran become a recording with no ground
 * truth and no stimuli.  The workflow is device/import.c; here, the
 * options and what the import says.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "device/import.h"

int cmd_import(int argc, char **argv)
{
	static const struct option own[] = {
		{ "elf", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "allow-gaps", no_argument, NULL, 'g' },
		{ "log-reg", required_argument, NULL, 'r' },
		{ "instructions", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	if (cli_options_join(opts, CLI_MAX_OPTIONS, own, cli_board_options, NULL))
		return cli_fail("import", "internal: too many options");
	devimport_opts o = { 0 };
	cli_board board = { 0 };
	int force = 0, c, rc;
	cli_getopt g;
	cli_getopt_begin(&g, "import", argc, argv, ":ho:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'e': o.elf_path = optarg; break;
		case 'o': o.out = optarg; break;
		case 'g': o.allow_gaps = 1; break;
		case 'r': o.log_reg = optarg; break;
		case 'n':
			if (cli_parse_u64("import", "--instructions", optarg, &o.max_instructions))
				return EXIT_BAD_INPUT;
			break;
		case 'X': force = 1; break;
		default:
			if ((rc = cli_board_option("import", &board, c, optarg)))
				return rc;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !o.elf_path || !o.out)
		return cli_fail("import", "usage: avrr import DUMP --elf FW.elf -o RUN.db");
	if (cli_board_mcu("import", &board, &o.mcu))
		return EXIT_BAD_INPUT;
	o.frequency = cli_board_frequency(&board);
	o.dump_path = argv[optind];
	const char *inputs[] = { o.dump_path, o.elf_path };
	if (cli_check_output("import", "-o", o.out, inputs, 2, CLI_OUT_RECORDING, force))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	devimport_result r;
	if (devimport_run(&o, &r, &err))
		return cli_fail("import", "%s", err.msg);
	if (r.gap)
		fprintf(stderr, "import: %s: imported up to byte %zu (block %u), where the device "
			"lost %u items; %zu items after it left out\n", o.dump_path, r.gap_offset,
			r.gap_block, r.gap_lost, r.gap_left_out);
	if (!r.positioned)
		fprintf(stderr, "import: %s: its replay stopped: %s; stored without positions: only "
			"avrr replay replays it\n", o.dump_path, r.stopped);
	printf("import: %s: %u blocks, %zu interrupts, %zu input reads -> %s\n", o.dump_path,
	       r.blocks, r.interrupts, r.reads, o.out);
	printf("import: %zu bytes: header %zu, block heads and CRCs %zu, interrupts %zu, "
	       "reads %zu, losses %zu\n", r.dump_bytes, r.bytes.header, r.bytes.blocks,
	       r.bytes.interrupts, r.bytes.reads, r.bytes.loss);
	if (r.positioned)
		printf("import: positions from its replay: %llu instructions, %zu interrupts (%llu "
		       "of them the tracer's own %s overflows), %llu input reads, %zu events\n",
		       (unsigned long long)r.instructions, r.replay_interrupts,
		       (unsigned long long)r.overflows, r.ovf_timer, (unsigned long long)r.replay_reads,
		       r.events);
	return 0;
}
