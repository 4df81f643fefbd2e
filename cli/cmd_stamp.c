/*
 * cmd_stamp.c — `avrr stamp FW.elf`: writes the firmware's own SHA-256
 * into its device log header (docs/device.md), in place: the last build
 * step of a firmware built with `avrr tracer --log`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "device/devlog.h"
#include "util/digest.h"
#include "util/file.h"

int cmd_stamp(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_help("stamp");
	if (argc != 2 || argv[1][0] == '-')
		return cli_fail("stamp", "usage: avrr stamp FW.elf");
	const char *path = argv[1];
	avrr_err err = { "" };
	uint8_t *elf = NULL;
	size_t n;
	if (devlog_read_file(path, &elf, &n, &err) || devlog_stamp(elf, n, &err)) {
		free(elf);
		int named = !strncmp(err.msg, path, strlen(path));   /* the message names it */
		return cli_fail("stamp", "%s%s%s", named ? "" : path, named ? "" : ": ", err.msg);
	}
	char tmp[4096];
	FILE *f = util_open_temp(path, tmp, sizeof tmp);
	int wrote = f && fwrite(elf, 1, n, f) == n;
	if (wrote && cli_output_marked(path, CLI_OUT_ELF))   /* instrument's output stays its */
		cli_mark_output(f, CLI_OUT_ELF);
	if (!f || util_close_temp(f, tmp, path, wrote)) {
		free(elf);
		return cli_fail("stamp", "%s: %s", path, strerror(errno));
	}
	uint8_t sha[32];
	char hex[65];
	if (devlog_elf_hash(elf, n, sha, NULL, &err) == 0) {
		digest_hex(sha, hex);
		printf("stamp: %s: %s\n", path, hex);
	}
	free(elf);
	return 0;
}
