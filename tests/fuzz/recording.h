/*
 * recording.h — what the two recording harnesses do with a recording's
 * bytes: open them from memory (db_open_memory, which validates them
 * whole, as db_open does a file), and if they pass, read every table as
 * the commands do and replay its first 5,000 instructions (all of the
 * seed's 3,000) on the same connection.  A recording that passes
 * validation must load and replay without a crash.
 *
 * From memory rather than a file, and validated once rather than twice
 * (by the loaders' open and again by rp_open's): the same avrr code, with
 * no file written or opened.  Through db_open_memory_cached: an input
 * whose header and schema rows are those of one opened before is read
 * through that connection, its schema parsed once and its queries
 * prepared once; the replay's firmware, the same ELF input after input,
 * is parsed once (fw_cache) (tests/fuzz/README.md has the speeds).
 */
#ifndef AVRR_FUZZ_RECORDING_H
#define AVRR_FUZZ_RECORDING_H

#include <sqlite3.h>

#include "db/db.h"
#include "replayer/replayer.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_REPLAY_INSTRUCTIONS 5000

/* The process's connections kept between inputs: libFuzzer gives
 * LLVMFuzzerTestOneInput nowhere else to keep them. */
static inline db_image_cache *fuzz_image_cache(void)
{
	static db_image_cache *cache;
	if (!cache)
		fuzz_require((cache = db_image_cache_new()) != NULL, "out of memory");
	return cache;
}

/* The firmware kept between inputs: most carry the seed's ELF, which a
 * replay would otherwise parse again for each (sim/firmware.h). */
static inline fw_cache *fuzz_fw_cache(void)
{
	static fw_cache *cache;
	if (!cache)
		fuzz_require((cache = fw_cache_new()) != NULL, "out of memory");
	return cache;
}

/* libFuzzer's set-up, before SQLite is first used: no count of SQLite's
 * memory.  Each allocation would otherwise take a lock and ask ASan's
 * allocator the block's size, at every malloc and free; avrr reads no
 * such count (sqlite3_memory_used, a heap limit), so nothing an input
 * reaches changes, and fuzz_recording's inputs, whose schema SQLite
 * parses anew, allocate mostly in that parse (tests/fuzz/README.md). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_require(sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK,
		     "SQLite is in use before the harness set it up");
	return 0;
}

static inline void fuzz_load_recording(const uint8_t *data, size_t size)
{
	db *d;
	avrr_err err;
	if (db_open_memory_cached(fuzz_image_cache(), "fuzz-input.db", data, size, &d, &err))
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
	/* The loaders above took what validation decoded: the replay decodes
	 * the log again from its chunks (db_decode_events). */
	replay *r;
	rp_options o = { .match = RP_MATCH_SEQUENCE, .fw_cache = fuzz_fw_cache() };
	if (!rp_open_db(d, &o, &r, &err)) {
		rp_run(r, FUZZ_REPLAY_INSTRUCTIONS);
		rp_close(r);
	}
}

#endif
