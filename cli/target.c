/*
 * target.c — what a debugging command opens: a recording, or a firmware
 * recorded first with record's options (cli_target_open, cli.h).  Apart
 * from util.c, whose helpers every command uses, because it runs the
 * recorder (cmd_record.c's cli_record_run), which uses those helpers:
 * util.c calls nothing above it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_target_open(const char *cmd, const char *path, cli_record *r, const char *record_opt,
		    cli_target *t)
{
	memset(t, 0, sizeof *t);
	if (access(path, F_OK) != 0)  /* missing, before the options it would allow */
		return cli_fail(cmd, "%s: %s", path, strerror(errno));
	if (!cli_is_elf(path)) {
		if (record_opt)
			return cli_fail(cmd, "%s is for recording a FIRMWARE.elf first; %s is not an ELF",
					record_opt, path);
		snprintf(t->db, sizeof t->db, "%s", path);
		return 0;
	}
	if (r->o.out_path) {
		snprintf(t->db, sizeof t->db, "%s", r->o.out_path);
	} else {
		/* A temporary recording, named after the firmware, in a directory
		 * of its own (the recorder writes a .tmp beside it first). */
		const char *base = getenv("TMPDIR");
		snprintf(t->dir, sizeof t->dir, "%s/avrr-run-XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(t->dir)) {
			int e = errno;
			t->dir[0] = 0;
			return cli_fail(cmd, "cannot make a directory for the recording: %s", strerror(e));
		}
		const char *name = strrchr(path, '/');
		name = name ? name + 1 : path;
		size_t len = strlen(name);
		if (len > 4 && !strcmp(name + len - 4, ".elf"))
			len -= 4;
		if (len > 200)
			len = 200;
		snprintf(t->db, sizeof t->db, "%s/%.*s.db", t->dir, (int)len, name);
		r->o.out_path = t->db;
	}
	int rc = cli_record_run(cmd, r, path);
	if (rc) {
		cli_target_close(t);
		return rc;
	}
	t->recorded = 1;
	if (isatty(2))
		fprintf(stderr, "avrr %s: recorded %s into %s%s\n", cmd, path, t->db,
			t->dir[0] ? " (removed at the end; -o RUN.db keeps it)" : "");
	return 0;
}

void cli_target_close(cli_target *t)
{
	if (!t->dir[0])
		return;
	unlink(t->db);
	rmdir(t->dir);
	t->dir[0] = 0;
}
