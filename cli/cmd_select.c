/* cmd_select.c — `avrr select`: frequency-based selection (Gracioli & Fischmeister, LCTES 2009, §4.1). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/freqsel.h"

static double share(uint32_t uses, uint64_t total)
{
	return total ? 100.0 * uses / (double)total : 0;
}

static int print_json(const firmware *fw, const freqsel_counts *c, const uint8_t *gp, int ngp,
		      const uint16_t *io, int nio, const mcu_names *names, const char *sel)
{
	json_t *jgp = json_array(), *jio = json_array();
	for (int i = 0; i < ngp; i++) {
		char reg[8];
		snprintf(reg, sizeof reg, "r%u", gp[i]);
		json_array_append_new(jgp, json_pack("{s:s,s:I}", "register", reg, "uses",
						     (json_int_t)c->gp[gp[i]]));
	}
	for (int i = 0; i < nio; i++)
		json_array_append_new(jio, json_pack("{s:s?,s:i,s:I}", "register",
						     ioregs_name(names, io[i]), "address", io[i],
						     "uses", (json_int_t)c->io[io[i]]));
	json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:o,s:o,s:s}", "schema", "avrr-select/1",
			      "firmware", fw->path, "mcu", fw->mcu,
			      "instructions", (json_int_t)c->insns, "counted", (json_int_t)c->counted,
			      "gp", jgp, "io", jio, "selector", sel);
	char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s)
		return cli_fail("select", "out of memory");
	puts(s);
	free(s);
	return 0;
}

static void print_text(const firmware *fw, const freqsel_counts *c, const uint8_t *gp, int ngp,
		       const uint16_t *io, int nio, const mcu_names *names, const char *sel)
{
	uint64_t gp_total = 0, io_total = 0;
	for (int i = 0; i < ngp; i++)
		gp_total += c->gp[gp[i]];
	for (int i = 0; i < nio; i++)
		io_total += c->io[io[i]];
	printf("firmware  %s (%s)\n", fw->path, fw->mcu[0] ? fw->mcu : "MCU unknown");
	printf("code      %u instructions decoded, %u of them in the counted list\n\n", c->insns,
	       c->counted);
	printf("GP registers        uses   share\n");
	for (int i = 0; i < ngp; i++)
		printf("  %2d  r%-10u %6u  %5.1f%%\n", i + 1, gp[i], c->gp[gp[i]],
		       share(c->gp[gp[i]], gp_total));
	printf("\nI/O registers       uses   share\n");
	for (int i = 0; i < nio; i++) {
		const char *name = ioregs_name(names, io[i]);
		char label[32];
		snprintf(label, sizeof label, "%s (0x%02x)", name ? name : "?", io[i]);
		printf("  %2d  %-11s %6u  %5.1f%%\n", i + 1, label, c->io[io[i]],
		       share(c->io[io[i]], io_total));
	}
	printf("\nselector  sel=%s\n", sel);
}

int cmd_select(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gp", required_argument, NULL, 'g' },
		{ "io", required_argument, NULL, 'i' },
		{ "mcu", required_argument, NULL, 'm' },
		{ "board", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t kgp = 3, kio = 3;
	const char *mcu = NULL;
	cli_board board = { 0 };
	int json = 0, c;
	cli_getopt g;
	cli_getopt_begin(&g, "select", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'g':
			if (cli_parse_u64("select", "--gp", optarg, &kgp))
				return EXIT_BAD_INPUT;
			if (kgp > 32)
				return cli_fail("select", "--gp: %s is more than the 32 GP registers", optarg);
			break;
		case 'i':
			if (cli_parse_u64("select", "--io", optarg, &kio))
				return EXIT_BAD_INPUT;
			if (kio > 224)
				return cli_fail("select", "--io: %s is more than there are I/O registers", optarg);
			break;
		case 'm': board.mcu = optarg; break;
		case 'b':
			if (cli_board_set("select", &board, optarg))
				return EXIT_BAD_INPUT;
			break;
		case 'j': json = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("select", "usage: avrr select FIRMWARE.elf [--gp K] [--io K] [--json]");
	if (cli_board_mcu("select", &board, &mcu))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	firmware *fw = NULL;
	if (fw_load_file(argv[optind], &fw, &err))
		return cli_fail("select", "%s", err.msg);
	if (mcu && fw->mcu[0] && strcasecmp(mcu, fw->mcu)) {
		cli_fail("select", "%s: built for the %s (its %s), not the %s asked for", fw->path,
			 fw->mcu, fw->mcu_from, mcu);
		fw_free(fw);
		return EXIT_BAD_INPUT;
	}
	const mcu_names *names = ioregs_lookup(mcu ? mcu : fw->mcu);
	if (mcu && !names) {
		fw_free(fw);
		return cli_fail("select", "--mcu: unknown MCU '%s'", mcu);
	}
	freqsel_counts counts;
	uint8_t gp[32];
	uint16_t io[256];
	char sel[1024];
	int rc = 0;
	if (freqsel_count(fw->flash, fw->code_end, &counts) ||
	    fp_frequency_selector(fw, names, (int)kio, (int)kgp, NULL, sel, sizeof sel)) {
		rc = cli_fail("select", "%s: cannot decode the code", argv[optind]);
	} else {
		int ngp = freqsel_rank_gp(&counts, gp, 32);
		int nio = freqsel_rank_io(&counts, ioregs_io_end(names), io, 256);
		if (json)
			rc = print_json(fw, &counts, gp, ngp, io, nio, names, sel);
		else
			print_text(fw, &counts, gp, ngp, io, nio, names, sel);
	}
	fw_free(fw);
	return rc;
}
