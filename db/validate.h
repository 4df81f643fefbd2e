/*
 * validate.h — the one check of a recording's contents, run by db_open.
 *
 * Private to db/.  A recording is untrusted input (people mail them and
 * attach them to bug reports), so before any command reads a row, the file
 * is checked whole: the schema is exactly avrr's, every value has its type
 * and range, and the tables agree with each other.  Everything above db/
 * may then rely on what docs/schema.md promises.
 */
#ifndef AVRR_DB_VALIDATE_H
#define AVRR_DB_VALIDATE_H

#include <sqlite3.h>

#include "util/err.h"
#include "db/db.h"
#include "db/stmts.h"

/* What the check counts on its way, handed back so that a reader need not
 * walk the log again to know them.  Nothing of the log is held: the check
 * reads it a chunk at a time. */
typedef struct db_counts {
	uint64_t nevents;
	uint64_t nirq;       /* irq events */
	int schema_ok;       /* the schema is avrr's, whatever the checks after it found */
} db_counts;

/* Each function's queries are prepared and done with through `stmts`
 * (stmts.h: NULL keeps none). */

/* The event log decoded from event_chunks, malloc'ed; damage the decoding
 * meets (a chunk out of place, cut short, overlong) is reported as in
 * db_validate, but the events' ranges and rules are not checked. */
int db_decode_events(sqlite3 *h, db_stmts *stmts, const char *path, trace_event **out,
		     size_t *n, avrr_err *err);
/* The same decoding a chunk at a time, for a reader that need not hold the
 * log: fn gets each chunk's events (valid during the call only) in seq
 * order; its non-zero return stops the walk as "out of memory". */
int db_each_event_chunk(sqlite3 *h, db_stmts *stmts, const char *path,
			int (*fn)(void *ud, const trace_event *ev, size_t n), void *ud, avrr_err *err);
/* The ground truth (without contexts) from interrupt_chunks, each completed
 * from its irq event in ev; *n is 0 in a stripped recording. */
int db_decode_interrupts(sqlite3 *h, db_stmts *stmts, const char *path, const trace_event *ev,
			 size_t nev, db_interrupt **out, size_t *n, avrr_err *err);

/* The fingerprint chunk in row st, whose columns from `col` on are
 * fingerprint_chunks' count, ra_size, hash_size, key_size, data and keys:
 * its count in *count and, when that fits `cap`, its fingerprints'
 * ra_part, hash_part and input keys in out[0..count) (the rest of each as
 * it was).  NULL, or what is malformed; *count > cap asks for more room. */
const char *db_decode_fp_chunk(sqlite3_stmt *st, int col, db_fingerprint *out, size_t cap,
			       size_t *count);

/* The firmware copy last hashed and its SHA-256 in lower-case hex: a copy
 * of the same bytes has the same digest (db_open_memory_cached's inputs
 * carry one ELF, input after input).  bytes is malloc'ed, its owner's. */
typedef struct db_digest_memo {
	uint8_t *bytes;
	size_t n;
	char hex[65];
} db_digest_memo;

/* Checks the recording open in h against `schema` (the SQL that creates
 * one); on failure err says "PATH: damaged recording: WHAT (TABLE, row N)"
 * and *out is empty.  Two answers a caller may already have, each the one
 * validation would work out (NULL / 0 without):
 * - rows_known: h's sqlite_schema rows were compared whole with those
 *   of a connection validated before with `schema` (imagecache.c), so
 *   comparing them with schema's again would find them the same;
 * - memo: the last firmware digest, used for the same bytes and
 *   replaced by any other's. */
int db_validate(sqlite3 *h, db_stmts *stmts, const char *path, const char *schema,
		int rows_known, db_digest_memo *memo, db_counts *out, avrr_err *err);

#endif
