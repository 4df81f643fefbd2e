/*
 * cmd_tracer.c — `avrr tracer FIRMWARE.elf --fp SPEC -o tracer.h`: writes
 * the device-side tracer for one configuration (fingerprint/tracer.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fingerprint/tracer.h"
#include "sim/sim.h"
#include "util/file.h"

int cmd_tracer(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fp", required_argument, NULL, 'F' },
		{ "mcu", required_argument, NULL, 'm' },
		{ "board", required_argument, NULL, 'b' },
		{ "slots", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'X' },
		{ "log", required_argument, NULL, 'L' },
		{ "baud", required_argument, NULL, 'B' },
		{ "ring", required_argument, NULL, 'R' },
		{ "send-masked", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = FP_DEFAULT_NAME ":" FP_DEFAULT_SPEC, *mcu = NULL, *out = NULL;
	uint64_t slots = FP_TRACER_SLOTS, baud = 0, ring = FP_LOG_RING;
	fp_tracer_log log = { .sink = FP_LOG_NONE, .ring = FP_LOG_RING };
	cli_board board = { 0 };
	int force = 0, c;
	cli_getopt g;
	cli_getopt_begin(&g, "tracer", argc, argv, ":ho:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'F': spec = optarg; break;
		case 'm': board.mcu = optarg; break;
		case 'b':
			if (cli_board_set("tracer", &board, optarg))
				return EXIT_BAD_INPUT;
			break;
		case 's':
			if (cli_parse_u64("tracer", "--slots", optarg, &slots))
				return EXIT_BAD_INPUT;
			break;
		case 'o': out = optarg; break;
		case 'L':
			if (fp_log_sink_parse(optarg, 0, &log))
				return cli_fail("tracer", "--log: '%s'; give uart, uart1..uart3, spi or "
						"func", optarg);
			break;
		case 'M': log.masked = 1; break;
		case 'B':
			if (cli_parse_u64("tracer", "--baud", optarg, &baud))
				return EXIT_BAD_INPUT;
			break;
		case 'R':
			if (cli_parse_u64("tracer", "--ring", optarg, &ring))
				return EXIT_BAD_INPUT;
			break;
		case 'X': force = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !out)
		return cli_fail("tracer", "usage: avrr tracer FIRMWARE.elf [--fp SPEC] -o tracer.h");
	if (!slots || slots > 1024)
		return cli_fail("tracer", "--slots: %llu; give 1..1024", (unsigned long long)slots);
	if (ring > 255)
		return cli_fail("tracer", "--ring: %llu; give at most 255", (unsigned long long)ring);
	if (baud > 4000000)
		return cli_fail("tracer", "--baud: %llu; give at most 4000000", (unsigned long long)baud);
	if ((baud || ring != FP_LOG_RING || log.masked) && log.sink == FP_LOG_NONE)
		return cli_fail("tracer", "--baud, --ring and --send-masked are the device log's: give --log SINK");
	if (baud && log.sink != FP_LOG_UART)
		return cli_fail("tracer", "--baud is the UART sink's: give --log uart");
	log.baud = (uint32_t)baud;
	log.ring = (unsigned)ring;
	const char *in = argv[optind];
	if (cli_check_output("tracer", "-o", out, &in, 1, CLI_OUT_HEADER, force) ||
	    cli_board_mcu("tracer", &board, &mcu))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	firmware *fw = NULL;
	sim *s = NULL;
	fp_config cfg;
	int rc = EXIT_BAD_INPUT;
	if (fw_load_file(argv[optind], &fw, &err) || sim_open(fw, mcu, cli_board_clock(fw, &board), &s, &err) ||
	    fp_parse(spec, sim_names(s), fw, sim_data_size(s), FP_DEFAULT_NAME, &cfg, &err)) {
		cli_fail("tracer", "%s", err.msg);
		goto done;
	}
	if (!sim_names(s)) {
		cli_fail("tracer", "%s: no register tables for %s", argv[optind], sim_mcu(s));
		goto done;
	}
	fp_timer_write t1;
	if (fp_counter_bytes(&cfg, FP_COUNT_CYCLES) &&
	    fp_tracer_timer_writes(fw, sim_names(s), 1, &t1, 1)) {
		char spec_text[600];
		fp_format(&cfg, spec_text, sizeof spec_text);
		cli_fail("tracer", "%s: writes %s at 0x%05x, but %s counts cycles with Timer1, "
			 "which must be the tracer's: give --fp a spec without cycles:K, such as "
			 "'sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32' (docs/device.md)",
			 argv[optind], t1.reg, (unsigned)t1.pc, spec_text);
		goto done;
	}
	char tmp[4096];
	FILE *f = util_open_temp(out, tmp, sizeof tmp);
	if (!f) {
		cli_fail("tracer", "%s: %s", out, strerror(errno));
		goto done;
	}
	int bad = fp_tracer_write_log(&cfg, sim_names(s), (unsigned)slots, &log, f, &err);
	if (util_close_temp(f, tmp, out, !bad)) {
		if (bad)
			cli_fail("tracer", "%s", err.msg);
		else
			cli_fail("tracer", "%s: %s", out, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	sim_close(s);
	fw_free(fw);
	return rc;
}
