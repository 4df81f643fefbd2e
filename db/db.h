/*
 * db.h — the recording store: one SQLite file per recording.
 *
 * Only this module talks to SQLite.  The schema is documented in
 * docs/schema.md and versioned: PRAGMA application_id marks the file as
 * avrr's, PRAGMA user_version holds DB_SCHEMA_VERSION.  Bump the version, and
 * document the change, whenever a table or the meaning of a column changes;
 * db_open() refuses other versions and foreign files.
 *
 * A new recording is built in a temporary file beside its final path, in
 * batched transactions, and renamed into place by db_finish() only when it is
 * complete: a recording that was killed leaves no file that looks finished.
 */
#ifndef AVRR_DB_H
#define AVRR_DB_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"
#include "util/err.h"

#define DB_SCHEMA_VERSION 6
/* The SQL that creates a recording's tables and views, the event kinds'
 * numbers in it taken from trace/event.h's table (the same pointer on
 * every call). */
const char *db_schema_sql(void);
#define DB_APPLICATION_ID 0x41565252 /* "AVRR" */

/* Bytes of an interrupt's context digest: its XXH3-64 (util/digest.h),
 * little-endian.  Among a million distinct contexts, two share one with
 * odds of about 1 in 37 million. */
#define DB_DIGEST_SIZE 8

/* The longest run a recording may hold (and `avrr record` makes): about
 * three hours of simulation, so a damaged length cannot run away. */
#define DB_MAX_INSTRUCTIONS 1000000000000ull

typedef struct db db;

/* What stopped the run, as stored in the recording's stop_reason. */
#define DB_STOP_INSTRUCTIONS "instructions"
#define DB_STOP_CYCLES       "cycles"
#define DB_STOP_INTERRUPTS   "interrupts"
#define DB_STOP_CPU_DONE     "cpu-done"    /* slept with interrupts off */
#define DB_STOP_ASLEEP       "asleep"      /* slept with no interrupt enabled to wake it */
#define DB_STOP_CPU_CRASHED  "cpu-crashed"


/* Ground truth of one interrupt, for scoring only. */
typedef struct db_interrupt {
	uint64_t idx;     /* 1-based, in order of entry */
	uint64_t icount;
	uint64_t cycle;
	uint32_t vector;
	uint32_t ra;      /* byte address of the next instruction */
	uint32_t sp;      /* before the push */
	uint8_t digest[DB_DIGEST_SIZE];  /* XXH3-64(context || ra as 4 bytes LE), LE */
	const uint8_t *context;  /* data space bytes, or NULL */
	uint32_t context_size;
} db_interrupt;

/* A fingerprint configuration as stored: the spec without its name. */
typedef struct db_fp_config {
	uint32_t id;
	char name[64];
	char spec[512];
} db_fp_config;

/* The fingerprint of the n-th interrupt under a configuration. */
typedef struct db_fingerprint {
	uint32_t config;
	uint64_t n;              /* 1-based: the n-th irq event */
	uint32_t vector;
	uint64_t ra_part, hash_part;
	/* Ground truth, for scoring only: a 64-bit key of the selector's bytes
	 * g(s) (equal keys = equal inputs), and, when loaded, the interrupt's
	 * context digest. */
	uint64_t input_key;
	int has_input_key;
	uint8_t digest[DB_DIGEST_SIZE];
	int has_digest;
} db_fingerprint;

/* The interrupt_rule of an import of a device log (device/devreplay.h):
 * the device's own run, which the simulation only follows. */
#define DB_DEVICE_LOG_RULE "device-log"

/* The run's metadata; strings are owned by the struct after db_get_run. */
typedef struct db_run {
	char *firmware_path;
	char *firmware_sha256;
	char *mcu;
	uint32_t frequency;
	uint64_t seed;
	char *stimuli_path;      /* NULL when recorded without stimuli */
	char *stimuli;
	char *tool_version;
	char *interrupt_rule;    /* the simulation's rules (sim.h), or DB_DEVICE_LOG_RULE */
	uint32_t data_size;      /* bytes of data space in a context */
	uint64_t instructions;
	uint64_t cycles;
	uint64_t transfers;      /* counted control transfers (sim_transfers) */
	/* The longest interrupt-free stretches (gaps): from an interrupt
	 * point, or a reset, to the next interrupt point.  The longest in
	 * cycles and the longest in counted transfers (they may differ), each
	 * with the icounts it runs from and to; all 0 without interrupts. */
	uint64_t gap_cycles, gap_cycles_from, gap_cycles_to;
	uint64_t gap_transfers, gap_transfers_from, gap_transfers_to;
	char *stop_reason;
	int has_ground_truth;
	char *created;           /* ISO-8601 UTC */
} db_run;

void db_run_free(db_run *r);

/* The temporary a new recording at `path` is built in, by this process,
 * until db_finish renames it: "DIR/.NAME.tmp-PID".  Returns -1 if it does
 * not fit in n bytes. */
int db_temp_path(const char *path, char *buf, size_t n);

/* Whether the file at `path` is an avrr recording, judged from its first
 * 100 bytes as db_open judges it: SQLite's magic string, PRAGMA
 * application_id DB_APPLICATION_ID and a PRAGMA user_version of 1 or more
 * (any schema version: an older recording is still one).  1 yes, 0 no (or
 * unreadable); a caller about to replace the file asks this first. */
int db_is_recording(const char *path);

/* Removes the temporaries "DIR/.NAME.tmp-PID" beside `path` left by
 * processes that no longer exist (kill -9, a crash): kill(PID, 0) fails
 * with ESRCH.  Those of live processes stay.  Returns how many it removed. */
int db_remove_stale_temps(const char *path);

/* Starts a new recording that will become `path`. */
int db_create(const char *path, db **out, avrr_err *err);
/* Commits, closes and renames into place.  Frees d in every case. */
int db_finish(db *d, avrr_err *err);
/* Closes and deletes the temporary file.  Frees d. */
void db_discard(db *d);

/* Opens an existing recording, read-only unless `writable`.  Refuses a file
 * that is not an avrr recording or has a newer schema, and validates the
 * whole file (docs/schema.md): anything out of type, range or agreement is
 * "PATH: damaged recording: WHAT (TABLE, row N)".  Changes to a writable
 * recording take effect at db_commit; db_close abandons the rest. */
int db_open(const char *path, int writable, db **out, avrr_err *err);
/* Opens, read-only, a recording held in memory: the n bytes at `bytes`,
 * an image of a recording's file, which must stay as they are until
 * db_close (SQLite reads its pages there, without a copy).  Validated as
 * db_open validates a file, with the same messages, `name` standing for
 * the path in them.  For callers that hold a recording's bytes rather than
 * a file: the fuzz harnesses (tests/fuzz/recording.h), which would
 * otherwise write every input to a file. */
int db_open_memory(const char *name, const void *bytes, size_t n, db **out, avrr_err *err);

/* Opening many images in turn, as a fuzzer does (tests/fuzz/recording.h):
 * each exactly as db_open_memory opens it, but SQLite's parse of the
 * schema, most of opening a small recording, is kept with its connection
 * for the next image with the same schema (the same size, the same
 * header and the same rows of sqlite_schema: the same parse), and only
 * connections to images that opened and validated are kept, a few at a
 * time (db/imagecache.h).  SQLite reads a copy, but the bytes must stay
 * until db_close as db_open_memory's must (for db_open_again).  db_close
 * gives the connection back; the cache must outlive what it opened, and
 * serves one thread.  NULL when out of memory.  A NULL cache opens as
 * db_open_memory does. */
typedef struct db_image_cache db_image_cache;
db_image_cache *db_image_cache_new(void);
void db_image_cache_free(db_image_cache *c);
int db_open_memory_cached(db_image_cache *c, const char *name, const void *bytes, size_t n,
			  db **out, avrr_err *err);
/* How many opens reused a kept connection, for tests. */
uint64_t db_image_cache_reused(const db_image_cache *c);

/* The path (or db_open_memory's name) a recording was opened as, for
 * messages about it. */
const char *db_name(const db *d);
/* Another read-only connection to the recording d has open and validated,
 * e.g. for a second reading thread; it is not validated again. */
int db_open_again(const db *d, db **out, avrr_err *err);
/* Opens, read-only, the recording this process has just written and
 * finished (db_finish), without validating it: a second full read of a
 * file the recorder wrote costs a twentieth of the recording's time and
 * memory growing with its length. */
int db_open_written(const char *path, db **out, avrr_err *err);
int db_commit(db *d, avrr_err *err);
void db_close(db *d);

/* The file's PRAGMA user_version. */
int db_schema_version(const db *d);

int db_put_run(db *d, const db_run *r, avrr_err *err);
int db_get_run(db *d, db_run *r, avrr_err *err);

int db_put_firmware(db *d, const char *sha256, const void *elf, size_t n, avrr_err *err);
/* The firmware copy kept in the recording; *elf is malloc'ed. */
int db_get_firmware(db *d, uint8_t **elf, size_t *n, avrr_err *err);

/* An import's device log (docs/device.md) and the register it was sent
 * to.  Get: *log_reg and *data malloc'ed, or NULL (n 0) when the
 * recording has none. */
int db_put_device_log(db *d, const char *log_reg, const void *data, size_t n, avrr_err *err);
int db_get_device_log(db *d, char **log_reg, uint8_t **data, size_t *n, avrr_err *err);

/* Queue rows for writing (the context, if any, is copied).  Writes happen
 * in batches, possibly on another thread: an add may report the failure of
 * an earlier row, and db_finish reports any failure not yet reported. */
int db_add_interrupt(db *d, const db_interrupt *irq, avrr_err *err);
int db_add_event(db *d, const trace_event *ev, avrr_err *err);

/* Stores a configuration and gives its id; refuses a name already there. */
int db_add_fp_config(db *d, const char *name, const char *spec, uint32_t *id, avrr_err *err);
/* Queued like the rows above. */
int db_add_fingerprint(db *d, const db_fingerprint *f, avrr_err *err);
int db_load_fp_configs(db *d, db_fp_config **out, size_t *n, avrr_err *err);
/* One configuration's fingerprints in order of n; with_digests, each with
 * its interrupt's context digest when the ground truth is there (a join
 * that costs more than the rest). */
int db_load_fingerprints(db *d, uint32_t config, int with_digests, db_fingerprint **out,
			 size_t *n, avrr_err *err);
/* The same, a chunk at a time, without holding them: fn gets each chunk's
 * fingerprints (valid during the call only) in order of n; its non-zero
 * return stops the walk and is returned with fn's err. */
int db_each_fingerprint(db *d, uint32_t config, int with_digests,
			int (*fn)(void *ud, const db_fingerprint *f, size_t n, avrr_err *err),
			void *ud, avrr_err *err);

/* One read transaction over the reads that follow, until db_read_end: for
 * a walk of many chunks, each of which, read alone, takes and drops the
 * file's lock and looks for a hot journal (two thirds of the system calls
 * of the oracle's load).  Does nothing where a transaction is open. */
int db_read_begin(db *d, avrr_err *err);
void db_read_end(db *d);

/* The chunk of configuration `config`'s fingerprints that holds the n-th:
 * its fingerprints n = *first .. *first + *count - 1 in *buf (grown, *cap
 * its room), each with config, n, ra_part, hash_part and input key (not
 * its vector or digest).  For a reader that needs a few at a time (a
 * replay under sequence matching).  0, or -1 (err).  No read transaction
 * is left open. */
int db_fingerprint_chunk(db *d, uint32_t config, uint64_t n, db_fingerprint **buf, size_t *cap,
			 uint64_t *first, size_t *count, avrr_err *err);

/* Calls fn for every ground-truth interrupt in order, with its stored
 * context (context NULL when none; valid during the call only); stops at
 * fn's first non-zero return, which is returned with fn's err. */
int db_each_context(db *d, int (*fn)(void *ud, const db_interrupt *q, avrr_err *err),
		    void *ud, avrr_err *err);
/* How many interrupts have a stored context. */
int db_count_contexts(db *d, uint64_t *n, avrr_err *err);

/* The ground truth's context digests in order of interrupt, read a chunk
 * at a time, for a reader that must not hold them decoded (a re-run as
 * long as the recording, rerun_fingerprints).  Reads and a
 * writer's rows may alternate: each read waits for the batches handed to
 * the writer. */
typedef struct db_digests db_digests;
int db_digests_open(db *d, db_digests **out, avrr_err *err);
/* Interrupt n's context digest into dg, n ascending from call to call:
 * 0, 1 when the recording keeps none for it (stripped, or n past its
 * ground truth), -1 (err). */
int db_digest_at(db_digests *g, uint64_t n, uint8_t dg[DB_DIGEST_SIZE], avrr_err *err);
void db_digests_close(db_digests *g);  /* NULL: nothing */

/* All events in seq order; *out is malloc'ed (NULL when there are none). */
int db_load_events(db *d, trace_event **out, size_t *n, avrr_err *err);
/* The log a chunk at a time, for a reader that must not hold it whole
 * (through db/cursor.h's db_events, which keeps last_of_ctx): decodes the
 * chunk that starts at event seq `first` into *buf (grown, *cap its
 * room), *count its events.
 * last_of_ctx carries each context's last seq from the previous chunk
 * (all zero before the first; chunk.h), which gives each event its prev.
 * Returns 0, 1 when no chunk starts there (the end of the log), or -1
 * (err).  No read transaction is left open: a forked copy of d reads on.
 * Amid a writer's rows, it waits for the batches handed to the writer. */
int db_event_chunk(db *d, uint64_t first, uint64_t last_of_ctx[256], trace_event **buf,
		   size_t *cap, size_t *count, avrr_err *err);
/* Every event in seq order, a chunk at a time: fn gets each chunk's
 * events (valid during the call only); its non-zero return stops the walk
 * as "out of memory". */
int db_each_event(db *d, int (*fn)(void *ud, const trace_event *ev, size_t n), void *ud,
		  avrr_err *err);
/* How many events and irq events the log has (counted by db_open's
 * validation, else now, by a walk over the chunks). */
int db_log_counts(db *d, uint64_t *nevents, uint64_t *nirq, avrr_err *err);
/* All ground-truth interrupts in order (context pointers are NULL). */
int db_load_interrupts(db *d, db_interrupt **out, size_t *n, avrr_err *err);

/* Counts: interrupts per vector (from the event log, so a stripped
 * recording counts too) and events per type. */
int db_count_vectors(db *d, uint64_t counts[256], avrr_err *err);
int db_count_event_types(db *d, uint64_t counts[TRACE_COUNT], avrr_err *err);

/* Writes a copy of the recording at path to out without its ground truth
 * (interrupts, input keys), as a device would have logged it.  out appears
 * only when complete, and is never the recording itself. */
int db_strip(const char *path, const char *out, avrr_err *err);

/* For tests: fail the Nth write from now (1 = the next) with an I/O error,
 * as a full disk would.  0 disables. */
void db_fail_after(db *d, unsigned n);

#endif
