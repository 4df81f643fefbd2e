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

/* A way in which the recording is not the chip's run: said once, on its
 * own line, clearing a progress line first. */
static void warn(void *ud, const char *text)
{
	cli_progress_end(ud);
	fprintf(stderr, "avrr record: warning: %s\n", text);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
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
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	rec_options o = { 0 };
	const char *specs[CLI_MAX_FP];
	cli_progress prog;
	cli_progress_start(&prog, "recording");
	int json = 0, c;
	uint64_t freq = 0;
	cli_target target = { 0 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out_path = optarg; break;
		case 'm': target.mcu = optarg; break;
		case 'b':
			if (cli_target_board("record", &target, optarg))
				return EXIT_BAD_INPUT;
			break;
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
	if (cli_target_mcu("record", &target, &o.mcu))
		return EXIT_BAD_INPUT;
	if (!freq)
		freq = target.board_frequency;
	o.firmware_path = argv[optind];
	o.fp_specs = specs;
	o.frequency = (uint32_t)freq;
	if (!o.max_instructions && !o.max_cycles && !o.max_interrupts)
		o.max_instructions = 10000000;
	if ((o.max_instructions != 0) + (o.max_cycles != 0) + (o.max_interrupts != 0) > 1)
		return cli_fail("record", "give one of --instructions, --cycles, --interrupts");
	o.interrupted = &cli_interrupted;
	o.progress = cli_progress_show;
	o.progress_ud = &prog;
	o.warn = warn;
	o.warn_ud = &prog;

	char tmp[4096];
	cli_catch_signals_hard(db_temp_path(o.out_path, tmp, sizeof tmp) ? NULL : tmp);
	avrr_err err = { "" };
	int interrupted = 0;
	int rc = rec_record(&o, &interrupted, &err);
	cli_progress_end(&prog);
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
