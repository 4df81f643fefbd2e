/*
 * recording.h — what the two recording harnesses do with a file once it
 * is on disk: open it (which validates it whole), and if it passes, read
 * every table as the commands do and replay its first instructions.  A
 * file that passes validation must load and replay without a crash.
 */
#ifndef AVRR_FUZZ_RECORDING_H
#define AVRR_FUZZ_RECORDING_H

#include <unistd.h>

#include "db/db.h"
#include "replayer/replayer.h"

#define FUZZ_REPLAY_INSTRUCTIONS 5000

/* A per-process scratch path on tmpfs, for the file under test. */
static inline const char *fuzz_scratch_path(void)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof path, "/dev/shm/avrr-fuzz-%ld.db", (long)getpid());
	return path;
}

static inline void fuzz_load_recording(const char *path)
{
	db *d;
	avrr_err err;
	if (db_open(path, 0, &d, &err))
		return;
	db_run run;
	if (!db_get_run(d, &run, &err))
		db_run_free(&run);
	uint8_t *elf;
	size_t n;
	if (!db_get_firmware(d, &elf, &n, &err))
		free(elf);
	trace_event *ev;
	if (!db_load_events(d, &ev, &n, &err))
		free(ev);
	db_interrupt *q;
	if (!db_load_interrupts(d, &q, &n, &err))
		free(q);
	uint64_t vectors[256], types[TRACE_COUNT];
	db_count_vectors(d, vectors, &err);
	db_count_event_types(d, types, &err);
	db_fp_config *cfg;
	size_t ncfg;
	if (!db_load_fp_configs(d, &cfg, &ncfg, &err)) {
		for (size_t i = 0; i < ncfg; i++) {
			db_fingerprint *f;
			if (!db_load_fingerprints(d, cfg[i].id, 1, &f, &n, &err))
				free(f);
		}
		free(cfg);
	}
	db_close(d);
	replay *r;
	rp_options o = { .match = RP_MATCH_SEQUENCE };
	if (!rp_open(path, &o, &r, &err)) {
		rp_run(r, FUZZ_REPLAY_INSTRUCTIONS);
		rp_close(r);
	}
}

#endif
