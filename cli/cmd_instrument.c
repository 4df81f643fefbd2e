/*
 * cmd_instrument.c — `avrr instrument TRACED.elf -o OUT.elf`: the post-link
 * rewrite that keeps the device's software instruction counter for a
 * sic:K tracer (fingerprint/instrument.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "device/devlog.h"
#include "fingerprint/instrument.h"
#include "sim/sim.h"
#include "util/file.h"

int cmd_instrument(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mcu", required_argument, NULL, 'm' },
		{ "board", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'X' },
		{ "log-loads", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mcu = NULL, *out = NULL;
	cli_board board = { 0 };
	int force = 0, loads = 0, c;
	cli_getopt g;
	cli_getopt_begin(&g, "instrument", argc, argv, ":ho:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'm': board.mcu = optarg; break;
		case 'b':
			if (cli_board_set("instrument", &board, optarg))
				return EXIT_BAD_INPUT;
			break;
		case 'o': out = optarg; break;
		case 'X': force = 1; break;
		case 'L': loads = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !out)
		return cli_fail("instrument", "usage: avrr instrument TRACED.elf -o OUT.elf");
	const char *in = argv[optind];
	if (cli_check_output("instrument", "-o", out, &in, 1, CLI_OUT_ELF, force) ||
	    cli_board_mcu("instrument", &board, &mcu))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	firmware *fw = NULL;
	sim *s = NULL;
	fp_instrument_device dev;
	fp_instrument_stats st;
	int rc = EXIT_BAD_INPUT;
	if (fw_load_file(argv[optind], &fw, &err) || sim_open(fw, mcu, cli_board_clock(fw, &board), &s, &err)) {
		cli_fail("instrument", "%s", err.msg);
		goto done;
	}
	sim_flash_layout(s, &dev.flash_size, &dev.vectors_end);
	uint8_t inputs[FP_INPUT_SPACE];
	dev.inputs = s->names && devlog_inputs(s->names, inputs) ? inputs : NULL;
	dev.log_loads = loads;
	if (!dev.vectors_end) {
		cli_fail("instrument", "%s: no vector table known for %s", fw->path, s->mcu);
		goto done;
	}
	char tmp[4096];
	FILE *f = util_open_temp(out, tmp, sizeof tmp);
	if (!f) {
		cli_fail("instrument", "%s: %s", out, strerror(errno));
		goto done;
	}
	fflush(f);
	int bad = fp_instrument(fw->elf, fw->elf_size, fw->path, &dev, fileno(f), &st, &err);
	if (!bad)
		cli_mark_output(f, CLI_OUT_ELF);
	if (util_close_temp(f, tmp, out, !bad)) {
		if (bad)
			cli_fail("instrument", "%s", err.msg);
		else
			cli_fail("instrument", "%s: %s", out, strerror(errno));
		goto done;
	}
	if (st.reads)
		printf("input reads logged: %u\n", st.reads);
	if (st.loads)
		printf("loads through a pointer tested at run time: %u\n", st.loads);
	if (st.counter_bytes)
		printf("counted transfers instrumented: %u; jumps lengthened to reach: %u; .text: %u -> "
		       "%u bytes; a %u-byte counter, +%u cycles per transfer with interrupts on\n",
		       st.sites, st.relaxed, (unsigned)st.text_before, (unsigned)st.text_after,
		       st.counter_bytes, st.cycles_per_transfer);
	else
		printf(".text: %u -> %u bytes; jumps lengthened to reach: %u\n",
		       (unsigned)st.text_before, (unsigned)st.text_after, st.relaxed);
	rc = 0;
done:
	sim_close(s);
	fw_free(fw);
	return rc;
}
