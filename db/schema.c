/*
 * schema.c — the store's schema as SQL text (docs/schema.md), with the
 * event kinds' numbers filled in from trace/event.h, and the SQL views'
 * byte arithmetic (see dbint.h for the split of db/).
 */
#include "db/dbint.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/imagecache.h"
#include "util/grow.h"
#include "db/chunk.h"
#include "db/validate.h"

/* The byte at 1-based position `pos` of blob `b`, in plain SQL: SQLite has
 * no function for it, so through its two hex digits. */
#define SQL_BYTE(b, pos)                                                          \
	"(instr('123456789ABCDEF', substr(hex(substr(" b ", " pos ", 1)), 1, 1)) * 16" \
	" + instr('123456789ABCDEF', substr(hex(substr(" b ", " pos ", 1)), 2, 1)))"

/* The little-endian number of w (0 to 8) bytes at position pos of blob b,
 * in plain SQL; OR, not +, so the top byte's bit 63 wraps as in C rather
 * than turning the sum into a REAL. */
#define SQL_LE_BYTE(b, pos, w, k, shift) \
	"(CASE WHEN " w " > " k " THEN " SQL_BYTE(b, pos " + " k) " << " shift " ELSE 0 END)"
#define SQL_LE(b, pos, w)                                                              \
	"(" SQL_LE_BYTE(b, pos, w, "0", "0") " | " SQL_LE_BYTE(b, pos, w, "1", "8") " | "   \
	SQL_LE_BYTE(b, pos, w, "2", "16") " | " SQL_LE_BYTE(b, pos, w, "3", "24") " | "      \
	SQL_LE_BYTE(b, pos, w, "4", "32") " | " SQL_LE_BYTE(b, pos, w, "5", "40") " | "      \
	SQL_LE_BYTE(b, pos, w, "6", "48") " | " SQL_LE_BYTE(b, pos, w, "7", "56") ")"

/* The varint being read is complete with byte b, and its value. */
#define SQL_END "b < 128"
#define SQL_V "(acc + ((b & 127) << shift))"

/* The schema, with the event kinds' numbers left as %s (and the type
 * field's width as %d) for schema_build to fill in from trace/event.h. */
static const char SCHEMA_FMT[] =
	"PRAGMA application_id = 1096176210;" /* DB_APPLICATION_ID */
	"PRAGMA user_version = 6;"            /* DB_SCHEMA_VERSION */
	"CREATE TABLE run ("
	" id INTEGER PRIMARY KEY CHECK (id = 1),"
	" firmware_path TEXT NOT NULL, firmware_sha256 TEXT NOT NULL,"
	" mcu TEXT NOT NULL, frequency INTEGER NOT NULL, seed INTEGER NOT NULL,"
	" stimuli_path TEXT, stimuli TEXT, tool_version TEXT NOT NULL,"
	" interrupt_rule TEXT NOT NULL, data_size INTEGER NOT NULL,"
	" instructions INTEGER NOT NULL, cycles INTEGER NOT NULL,"
	" stop_reason TEXT NOT NULL, has_ground_truth INTEGER NOT NULL,"
	" created TEXT NOT NULL, transfers INTEGER NOT NULL,"
	" gap_cycles INTEGER NOT NULL, gap_cycles_from INTEGER NOT NULL,"
	" gap_cycles_to INTEGER NOT NULL, gap_transfers INTEGER NOT NULL,"
	" gap_transfers_from INTEGER NOT NULL, gap_transfers_to INTEGER NOT NULL);"
	"CREATE TABLE firmware (sha256 TEXT PRIMARY KEY, elf BLOB NOT NULL);"
	/* An import's device log, as the device sent it, and the register it
	 * went to (cmd_import.c); no row in a simulated recording. */
	"CREATE TABLE device_log (id INTEGER PRIMARY KEY CHECK (id = 1),"
	" log_reg TEXT NOT NULL, data BLOB NOT NULL);"
	"CREATE TABLE event_types (type INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"INSERT INTO event_types VALUES %s;"
	"CREATE TABLE event_chunks (first INTEGER PRIMARY KEY, count INTEGER NOT NULL,"
	" data BLOB NOT NULL);"
	"CREATE TABLE interrupt_chunks (first INTEGER PRIMARY KEY, count INTEGER NOT NULL,"
	" data BLOB NOT NULL);"
	"CREATE TABLE contexts (idx INTEGER PRIMARY KEY, data BLOB NOT NULL);"
	"CREATE TABLE fp_configs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" spec TEXT NOT NULL);"
	"CREATE TABLE fingerprint_chunks ("
	" config INTEGER NOT NULL REFERENCES fp_configs(id), first INTEGER NOT NULL,"
	" count INTEGER NOT NULL, ra_size INTEGER NOT NULL, hash_size INTEGER NOT NULL,"
	" key_size INTEGER NOT NULL, data BLOB NOT NULL, keys BLOB,"
	" PRIMARY KEY (config, first)) WITHOUT ROWID;"
	/* One row per event, decoded from event_chunks (chunk.c) one byte per
	 * step: `field` is the varint being read (0 head, 1 dicount, 2 dextra,
	 * 3 pc, 4 addr, 5 value), `done` marks the step that completes an event. */
	"CREATE VIEW events (seq, prev, ctx, type, icount, cycle, pc, addr, value) AS"
	" WITH RECURSIVE walk (data, n, pos, b, field, acc, shift, seq, ctx, type, icount,"
	"  extra, pc, addr, value, done) AS ("
	"  SELECT data, length(data), 0, " SQL_BYTE("data", "1") ", 0, 0, 0, first - 1, 0, 0, 0,"
	"   0, 0, 0, 0, 0 FROM event_chunks"
	"  UNION ALL SELECT data, n, pos + 1, " SQL_BYTE("data", "pos + 2") ","
	"   CASE WHEN NOT " SQL_END " THEN field"
	"    WHEN (field = 3 AND %s) OR field = 5 THEN 0 ELSE field + 1 END,"
	"   CASE WHEN " SQL_END " THEN 0 ELSE " SQL_V " END,"
	"   CASE WHEN " SQL_END " THEN 0 ELSE shift + 7 END,"
	"   seq + (field = 0 AND " SQL_END "),"
	"   CASE WHEN field = 0 AND " SQL_END " AND " SQL_V " >= %d THEN (" SQL_V " >> %d) - 1"
	"    ELSE ctx END,"
	"   CASE WHEN field = 0 AND " SQL_END " THEN " SQL_V " & %d ELSE type END,"
	"   icount + CASE WHEN field = 1 AND " SQL_END " THEN " SQL_V " ELSE 0 END,"
	"   extra + CASE WHEN field = 2 AND " SQL_END " THEN CASE WHEN " SQL_V " & 1"
	"    THEN -(" SQL_V " >> 1) - 1 ELSE " SQL_V " >> 1 END ELSE 0 END,"
	"   CASE WHEN field = 3 AND " SQL_END " THEN " SQL_V " * 2 ELSE pc END,"
	"   CASE WHEN field = 4 AND " SQL_END " THEN " SQL_V " WHEN field = 0 THEN 0 ELSE addr END,"
	"   CASE WHEN field = 5 AND " SQL_END " THEN " SQL_V " WHEN field = 0 THEN 0 ELSE value END,"
	"   " SQL_END " AND ((field = 3 AND %s) OR field = 5)"
	"  FROM walk WHERE pos < n)"
	" SELECT seq, coalesce(lag(seq) OVER (PARTITION BY ctx ORDER BY seq), 0), ctx, type,"
	"  icount, icount + extra, pc, CASE WHEN %s THEN ctx ELSE addr END,"
	"  CASE WHEN %s THEN pc ELSE value END"
	" FROM walk WHERE done ORDER BY seq;"
	/* One row per interrupt: the stored part from interrupt_chunks, the
	 * rest from its irq event. */
	"CREATE VIEW interrupts (idx, icount, cycle, vector, ra, sp, digest, context) AS"
	" SELECT n, icount, cycle, ctx, pc,"
	"  (SELECT " SQL_BYTE("data", "10 * (n - first) + 1") " + 256 * "
	SQL_BYTE("data", "10 * (n - first) + 2") " FROM interrupt_chunks"
	"   WHERE first <= n ORDER BY first DESC LIMIT 1),"
	"  (SELECT substr(data, 10 * (n - first) + 3, 8) FROM interrupt_chunks"
	"   WHERE first <= n ORDER BY first DESC LIMIT 1),"
	"  (SELECT data FROM contexts WHERE idx = n)"
	" FROM (SELECT row_number() OVER (ORDER BY seq) AS n, icount, cycle, ctx, pc"
	"  FROM events WHERE %s)"
	" WHERE n <= (SELECT coalesce(sum(count), 0) FROM interrupt_chunks);"
	/* One row per fingerprint, decoded from fingerprint_chunks (chunk.h):
	 * fixed-width fields, picked by offset; the vector is the n-th irq
	 * event's. */
	"CREATE VIEW fingerprints (config, n, vector, ra_part, hash_part, input_key) AS"
	" WITH RECURSIVE each (config, first, count, rs, hs, ks, data, keys, i) AS ("
	"  SELECT config, first, count, ra_size, hash_size, key_size, data, keys, 0"
	"  FROM fingerprint_chunks"
	"  UNION ALL SELECT config, first, count, rs, hs, ks, data, keys, i + 1 FROM each"
	"  WHERE i + 1 < count),"
	" irqs (n, vector) AS (SELECT row_number() OVER (ORDER BY seq), ctx FROM events"
	"  WHERE %s)"
	/* Merged with the irq events by n and sorted, not joined: SQLite
	 * would scan the irq events once per fingerprint. */
	" SELECT config, n, vector, ra_part, hash_part, input_key FROM ("
	"  SELECT config, n, max(vector) OVER (PARTITION BY n) AS vector, ra_part, hash_part,"
	"   input_key FROM ("
	"   SELECT config, first + i AS n, NULL AS vector,"
	"    " SQL_LE("data", "(rs + hs) * i + 1", "rs") " AS ra_part,"
	"    " SQL_LE("data", "(rs + hs) * i + rs + 1", "hs") " AS hash_part,"
	/* The first key XOR this one's bytes, as (a | b) & ~(a & b). */
	"    CASE WHEN keys IS NOT NULL THEN (" SQL_LE("keys", "1", "8") " | "
	SQL_LE("keys", "ks * i + 9", "ks") ") & ~(" SQL_LE("keys", "1", "8") " & "
	SQL_LE("keys", "ks * i + 9", "ks") ") END AS input_key"
	"   FROM each UNION ALL SELECT NULL, n, vector, NULL, NULL, NULL FROM irqs))"
	" WHERE config IS NOT NULL ORDER BY config, n;";

/* The schema's text: SCHEMA_FMT with the kinds filled in.  Built once per
 * process and only read after — state written once, like validate.c's
 * rows of it, which it finds by this text's address. */
static char schema_text[sizeof SCHEMA_FMT + 512];
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void schema_build(void)
{
	enum { STORED = 1u << TRACE_ARGS_STORED, RA = 1u << TRACE_ARGS_VECTOR_RA,
	       VECTOR = 1u << TRACE_ARGS_VECTOR | RA };
	char kinds[256], stored[64], vector[64], ra[64];
	size_t at = 0;
	for (int t = 1; t < TRACE_COUNT && at < sizeof kinds; t++)
		at += (size_t)snprintf(kinds + at, sizeof kinds - at, "%s(%d,'%s')",
				       t == 1 ? "" : ",", t, trace_kind_name(t));
	trace_sql_types(STORED, 1, stored, sizeof stored);  /* no addr and value stored */
	trace_sql_types(VECTOR, 0, vector, sizeof vector);  /* addr is the context */
	trace_sql_types(RA, 0, ra, sizeof ra);              /* value is the pc: the irq */
	int n = snprintf(schema_text, sizeof schema_text, SCHEMA_FMT, kinds, stored,
			 TRACE_TYPE_MAX + 1, TRACE_TYPE_BITS, TRACE_TYPE_MAX, stored, vector, ra,
			 ra, ra);
	assert(n > 0 && (size_t)n < sizeof schema_text && at < sizeof kinds);
	(void)n;
}

const char *db_schema_sql(void)
{
	pthread_once(&schema_once, schema_build);
	return schema_text;
}
