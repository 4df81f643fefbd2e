/*
 * db.c — the SQLite store (see db.h and docs/schema.md).
 *
 * Rows are collected in batches and inserted through prepared statements,
 * one transaction per batch.  Once a first batch fills, a writer thread
 * takes over the inserts, so a recording's SQLite work runs on another core
 * than the simulation; three batches rotate between the two threads (one
 * filling, one handed over, one being written), and the connection belongs
 * to exactly one thread at a time.  A recording under construction lives in
 * "DIR/.NAME.tmp-PID" with journaling off: if the process dies, what is left
 * is a hidden temporary, never a file at the path the user asked for.
 */
#include "db/db.h"

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

#define BATCH_EVENTS 8192
#define BATCH_IRQS 2048
#define BATCH_FPS 8192
#define NBATCHES 3

/* Events and interrupts per stored chunk: small enough that the SQL views
 * walk a chunk's blob cheaply, large enough that a row's own overhead is a
 * fraction of a byte per event. */
#define CHUNK_EVENTS 64
#define CHUNK_IRQS 64
/* Fingerprints per chunk, at most: the view picks them by offset, so a
 * long chunk costs SQL nothing more, and the recorder's batches cut them
 * shorter anyway. */
#define CHUNK_FPS 1024

enum { ST_EVENT, ST_IRQ, ST_CONTEXT, ST_FP, ST_COUNT };

typedef struct batch {
	trace_event ev[BATCH_EVENTS];
	unsigned nev;
	db_interrupt irq[BATCH_IRQS];  /* context pointers are set at write time */
	size_t ctx_off[BATCH_IRQS];    /* offset into ctx, or SIZE_MAX for none */
	unsigned nirq;
	uint8_t *ctx;                  /* copied contexts */
	size_t ctx_len, ctx_cap;
	db_fingerprint fp[BATCH_FPS];
	unsigned nfp;
} batch;

struct db {
	sqlite3 *h;
	char *path;          /* the user's path */
	char *tmp;           /* the temporary being built, or NULL */
	const void *image;   /* db_open_memory's bytes (the caller's), or NULL */
	size_t image_size;
	db_image_cache *cache;  /* db_open_memory_cached's, or NULL */
	image_conn *conn;    /* the cache's connection h is, to give back */
	db_stmts *stmts;     /* its statements kept for the next image, or NULL */
	int schema_ok;       /* validation found avrr's schema (what the cache may keep) */
	sqlite3_stmt *st[ST_COUNT];
	unsigned fail_after; /* fault injection for tests; 0 = off */
	int version;         /* the file's schema version */
	int writable;

	batch *fill;         /* filled by the caller's thread */
	batch *handoff;      /* full, waiting for the writer; NULL when empty */
	batch *spare[NBATCHES];
	int nspare;
	pthread_t writer;
	int writer_running;
	int quit;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int failed;   /* set once by whichever thread failed to write */
	avrr_err werr;       /* its message; written before `failed` is set */

	db_counts counts;    /* what validation counted */
	int counted;         /* counts holds them (validated, or opened again) */
	sqlite3_stmt *chunk_at;  /* db_event_chunk's, prepared on first use */
	sqlite3_stmt *fp_chunk_of;  /* db_fingerprint_chunk's, likewise */
	int read_held;             /* db_read_begin's transaction is open */

	/* Decoded once for all configurations' fingerprints: the vector of
	 * each interrupt (from the log), a byte each. */
	uint8_t *irq_vector;
	size_t nirq;
	int have_irq_vector;

	/* A read-only recording's interrupts per vector and events per type,
	 * counted in one pass over the log on first asking (the summary asks
	 * for both, and for the vectors twice). */
	uint64_t vector_counts[256], type_counts[TRACE_COUNT];
	int have_tallies;
};

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

static int sql_err(db *d, avrr_err *err, const char *what)
{
	return avrr_errf(err, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->h));
}

static int exec(db *d, const char *sql, avrr_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		avrr_errf(err, "%s: %s", d->path, msg ? msg : sqlite3_errmsg(d->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static void batch_free(batch *b)
{
	if (b) {
		free(b->ctx);
		free(b);
	}
}

static void db_free(db *d)
{
	if (!d)
		return;
	batch_free(d->fill);
	batch_free(d->handoff);
	for (int i = 0; i < d->nspare; i++)
		batch_free(d->spare[i]);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
	for (int i = 0; i < ST_COUNT; i++)
		stmts_finish(d->stmts, d->st[i]);
	stmts_finish(d->stmts, d->chunk_at);  /* before the close, which refuses while any is open */
	stmts_finish(d->stmts, d->fp_chunk_of);
	if (d->conn)
		image_give_back(d->cache, d->conn, d->schema_ok);
	else
		sqlite3_close(d->h);
	free(d->irq_vector);
	free(d->path);
	free(d->tmp);
	free(d);
}

static db *db_alloc(const char *path, avrr_err *err)
{
	db *d = calloc(1, sizeof *d);
	if (!d || !(d->path = strdup(path))) {
		free(d);
		avrr_errf(err, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	return d;
}

static int prepare(db *d, avrr_err *err)
{
	static const char *const sql[ST_COUNT] = {
		[ST_EVENT] = "INSERT INTO event_chunks VALUES (?,?,?)",
		[ST_IRQ] = "INSERT INTO interrupt_chunks VALUES (?,?,?)",
		[ST_CONTEXT] = "INSERT INTO contexts VALUES (?,?)",
		[ST_FP] = "INSERT INTO fingerprint_chunks VALUES (?,?,?,?,?,?,?,?)",
	};
	for (int i = 0; i < ST_COUNT; i++)
		if (stmts_prepare(d->stmts, d->h, sql[i], &d->st[i]) != SQLITE_OK)
			return sql_err(d, err, "preparing statements");
	return 0;
}

/* "DIR/.NAME.tmp-PID" for "DIR/NAME": beside the target, so the final
 * rename cannot cross file systems, and hidden.  malloc'ed; NULL if out of
 * memory. */
int db_temp_path(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	int w = snprintf(buf, n, "%.*s.%s.tmp-%ld", (int)dirlen, path, path + dirlen,
			 (long)getpid());
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

int db_is_recording(const char *path)
{
	/* The database header (sqlite.org/fileformat.html): the magic string,
	 * then big-endian fields; user_version at 60, application_id at 68. */
	unsigned char h[100];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16))
		return 0;
	uint32_t ver = (uint32_t)h[60] << 24 | (uint32_t)h[61] << 16 | (uint32_t)h[62] << 8 | h[63];
	uint32_t app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
	return app == DB_APPLICATION_ID && ver >= 1 && ver < 0x80000000u;
}

int db_remove_stale_temps(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char dir[4096];
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + 1), path);
	else
		snprintf(dir, sizeof dir, ".");
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t nlen = strlen(name);
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		/* ".NAME.tmp-" and the digits of a PID, nothing else. */
		const char *p = e->d_name;
		if (p[0] != '.' || strncmp(p + 1, name, nlen) || strncmp(p + 1 + nlen, ".tmp-", 5))
			continue;
		p += 1 + nlen + 5;
		if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 9)
			continue;
		long pid = strtol(p, NULL, 10);
		if (pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == -1 && errno == ESRCH) {
			char full[8192];
			snprintf(full, sizeof full, "%s%s", slash ? dir : "", e->d_name);
			removed += unlink(full) == 0;
		}
	}
	closedir(d);
	return removed;
}

static char *temp_path_for(const char *path)
{
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (tmp && db_temp_path(path, tmp, n)) {
		free(tmp);
		tmp = NULL;
	}
	return tmp;
}

int db_create(const char *path, db **out, avrr_err *err)
{
	*out = NULL;
	db *d = db_alloc(path, err);
	if (!d)
		return -1;
	if (!(d->tmp = temp_path_for(path))) {
		db_free(d);
		return avrr_errf(err, "out of memory");
	}
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		db_free(d);
		return avrr_errf(err, "%s: is a directory", path);
	}
	db_remove_stale_temps(path);
	unlink(d->tmp);
	/* One connection, one thread: no mutexes. */
	if (sqlite3_open_v2(d->tmp, &d->h,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		avrr_errf(err, "%s: cannot create: %s", path,
			  d->h ? sqlite3_errmsg(d->h) : "out of memory");
		db_free(d);
		return -1;
	}
	d->writable = 1;
	/* Probe writability now, so a bad -o fails before the run starts. */
	if (exec(d, "PRAGMA journal_mode = OFF;"
		    " PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
		    " PRAGMA cache_size = -256;", err) ||  /* appends: few pages are reused */
	    exec(d, "BEGIN", err) || exec(d, db_schema_sql(), err) || prepare(d, err)) {
		avrr_errf(err, "%s: cannot write here (%s)", path,
			  errno ? strerror(errno) : sqlite3_errmsg(d->h));
		db_discard(d);
		return -1;
	}
	*out = d;
	return 0;
}

/* Records the first write failure, from whichever thread met it. */
static void set_failed(db *d, const avrr_err *e)
{
	if (!atomic_load(&d->failed)) {
		d->werr = *e;
		atomic_store(&d->failed, 1);
	}
}

static int report_failure(db *d, avrr_err *err)
{
	if (err)
		*err = d->werr;
	return -1;
}

static int drain(db *d, avrr_err *err);

static int check_writable(db *d, avrr_err *err)
{
	return d->writable ? 0 : avrr_errf(err, "%s: opened read-only", d->path);
}

/* Runs a bound insert.  Fault injection stands in for a full disk. */
static int step_insert(db *d, sqlite3_stmt *st, avrr_err *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (d->fail_after && --d->fail_after == 0)
		return avrr_errf(err, "%s: disk I/O error (injected)", d->path);
	if (rc != SQLITE_DONE)
		return sql_err(d, err, "writing");
	return 0;
}

/* Stores n (at most CHUNK_EVENTS) consecutive events as one chunk. */
static int insert_events(db *d, const trace_event *ev, unsigned n, avrr_err *err)
{
	uint8_t buf[CHUNK_EVENTS * CHUNK_EVENT_MAX];
	size_t len = chunk_put_events(ev, n, buf);
	if (!len)
		return avrr_errf(err, "%s: event %" PRIu64 "..%" PRIu64 " breaks the log's rules",
				 d->path, ev[0].seq, ev[n - 1].seq);
	sqlite3_stmt *st = d->st[ST_EVENT];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)ev[0].seq);
	sqlite3_bind_int64(st, 2, n);
	sqlite3_bind_blob(st, 3, buf, (int)len, SQLITE_STATIC);
	return step_insert(d, st, err);
}

/* Stores n (at most CHUNK_IRQS) consecutive interrupts as one chunk, and
 * their contexts. */
static int insert_interrupts(db *d, const db_interrupt *q, unsigned n, avrr_err *err)
{
	uint8_t buf[CHUNK_IRQS * CHUNK_IRQ_SIZE];
	for (unsigned i = 0; i < n; i++)
		chunk_put_irq(q[i].sp, q[i].digest, buf + i * CHUNK_IRQ_SIZE);
	sqlite3_stmt *st = d->st[ST_IRQ];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)q[0].idx);
	sqlite3_bind_int64(st, 2, n);
	sqlite3_bind_blob(st, 3, buf, (int)(n * CHUNK_IRQ_SIZE), SQLITE_STATIC);
	int rc = step_insert(d, st, err);
	st = d->st[ST_CONTEXT];
	for (unsigned i = 0; i < n && !rc; i++) {
		if (!q[i].context)
			continue;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)q[i].idx);
		sqlite3_bind_blob(st, 2, q[i].context, (int)q[i].context_size, SQLITE_STATIC);
		rc = step_insert(d, st, err);
	}
	return rc;
}

/* Stores n (at most CHUNK_FPS) consecutive fingerprints of one
 * configuration, all with input keys or all without, as one chunk. */
static int insert_fingerprints(db *d, const db_fingerprint *f, unsigned n, avrr_err *err)
{
	uint8_t data[CHUNK_FPS * 2 * CHUNK_FP_FIELD_MAX];
	uint8_t keys[CHUNK_FP_KEY_BASE + CHUNK_FPS * CHUNK_FP_FIELD_MAX];
	chunk_fp_sizes sz = chunk_fp_sizes_of(f, n);
	if (!f[0].has_input_key)
		sz.key = 0;
	chunk_put_fps(f, n, sz, data, f[0].has_input_key ? keys : NULL);
	sqlite3_stmt *st = d->st[ST_FP];
	sqlite3_bind_int64(st, 1, f[0].config);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)f[0].n);
	sqlite3_bind_int64(st, 3, n);
	sqlite3_bind_int(st, 4, (int)sz.ra);
	sqlite3_bind_int(st, 5, (int)sz.hash);
	sqlite3_bind_int(st, 6, (int)sz.key);
	/* Never a NULL pointer, which SQLite would bind as NULL: all-zero
	 * fields take 0 bytes, and an empty blob is still a blob. */
	sqlite3_bind_blob(st, 7, data, (int)(n * (sz.ra + sz.hash)), SQLITE_STATIC);
	if (f[0].has_input_key)
		sqlite3_bind_blob(st, 8, keys, (int)(CHUNK_FP_KEY_BASE + n * sz.key), SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 8);
	return step_insert(d, st, err);
}

static int by_config_n(const void *a, const void *b)
{
	const db_fingerprint *x = a, *y = b;
	if (x->config != y->config)
		return x->config < y->config ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Stores a batch's fingerprints, which arrive interrupt by interrupt with
 * every configuration's interleaved, as chunks of one configuration each. */
static int insert_fp_batch(db *d, db_fingerprint *f, unsigned n, avrr_err *err)
{
	qsort(f, n, sizeof *f, by_config_n);
	int rc = 0;
	for (unsigned i = 0, k; i < n && !rc && !atomic_load(&d->failed); i = k) {
		for (k = i + 1; k < n && k - i < CHUNK_FPS && f[k].config == f[i].config &&
				f[k].n == f[k - 1].n + 1 && f[k].has_input_key == f[i].has_input_key;
		     k++)
			;
		rc = insert_fingerprints(d, &f[i], k - i, err);
	}
	return rc;
}

/* Inserts a batch's rows; empties the batch.  A new recording commits each
 * batch (its file is a temporary until db_finish); an opened one commits
 * only at db_commit, so a failed addition leaves it as it was.  After a
 * failure nothing more is written, but batches keep being recycled. */
static void write_batch(db *d, batch *b)
{
	avrr_err e = { "" };
	int rc = 0;
	for (unsigned i = 0; i < b->nev && !rc && !atomic_load(&d->failed); i += CHUNK_EVENTS)
		rc = insert_events(d, &b->ev[i], b->nev - i < CHUNK_EVENTS ? b->nev - i : CHUNK_EVENTS,
				   &e);
	for (unsigned i = 0; i < b->nirq; i++)
		b->irq[i].context = b->ctx_off[i] == SIZE_MAX ? NULL : b->ctx + b->ctx_off[i];
	for (unsigned i = 0; i < b->nirq && !rc && !atomic_load(&d->failed); i += CHUNK_IRQS)
		rc = insert_interrupts(d, &b->irq[i], b->nirq - i < CHUNK_IRQS ? b->nirq - i
										: CHUNK_IRQS, &e);
	if (b->nfp && !rc && !atomic_load(&d->failed))
		rc = insert_fp_batch(d, b->fp, b->nfp, &e);
	if (!rc && !atomic_load(&d->failed) && d->tmp)
		rc = exec(d, "COMMIT; BEGIN", &e);
	if (rc)
		set_failed(d, &e);
	b->nev = b->nirq = b->nfp = 0;
	b->ctx_len = 0;
}

static void *writer_main(void *arg)
{
	db *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->handoff && !d->quit)
			pthread_cond_wait(&d->cv, &d->mu);
		if (!d->handoff)
			break;
		batch *b = d->handoff;
		d->handoff = NULL;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		write_batch(d, b);
		pthread_mutex_lock(&d->mu);
		d->spare[d->nspare++] = b;
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Hands the full batch to the writer (starting it on first use) and takes
 * an empty one. */
static int submit(db *d, avrr_err *err)
{
	if (!d->writer_running) {
		for (int i = 0; i < NBATCHES - 1; i++) {
			batch *b = calloc(1, sizeof *b);
			if (!b)
				return avrr_errf(err, "out of memory");
			d->spare[d->nspare++] = b;
		}
		if (pthread_create(&d->writer, NULL, writer_main, d) != 0)
			return avrr_errf(err, "cannot start the writer thread");
		d->writer_running = 1;
	}
	pthread_mutex_lock(&d->mu);
	while (d->handoff || !d->nspare)
		pthread_cond_wait(&d->cv, &d->mu);
	d->handoff = d->fill;
	d->fill = d->spare[--d->nspare];
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	return atomic_load(&d->failed) ? report_failure(d, err) : 0;
}

/* Waits until the writer has written every batch handed to it, so that
 * the caller's thread may use the connection until its next submit: for a
 * read amid writes, without writing the batch being filled or stopping
 * the writer (drain), so that the chunks written are those it would have
 * written without the read. */
static void quiesce(db *d)
{
	if (!d->writer_running)
		return;
	pthread_mutex_lock(&d->mu);
	while (d->handoff || d->nspare < NBATCHES - 1)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

/* Writes every row added so far and returns the connection to the
 * caller's thread.  Reports any write failure. */
static int drain(db *d, avrr_err *err)
{
	if (d->writer_running) {
		if (d->fill && (d->fill->nev || d->fill->nirq || d->fill->nfp)) {
			pthread_mutex_lock(&d->mu);
			while (d->handoff)
				pthread_cond_wait(&d->cv, &d->mu);
			d->handoff = d->fill;
			d->fill = NULL;
			pthread_cond_broadcast(&d->cv);
			pthread_mutex_unlock(&d->mu);
		}
		pthread_mutex_lock(&d->mu);
		d->quit = 1;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->writer, NULL);
		d->writer_running = 0;
		d->quit = 0;
		if (!d->fill && d->nspare)
			d->fill = d->spare[--d->nspare];
	} else if (d->fill && (d->fill->nev || d->fill->nirq || d->fill->nfp)) {
		write_batch(d, d->fill);
	}
	return atomic_load(&d->failed) ? report_failure(d, err) : 0;
}

int db_finish(db *d, avrr_err *err)
{
	int rc = drain(d, err);
	if (!rc)
		rc = exec(d, "COMMIT", err);
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(d->st[i]);
		d->st[i] = NULL;
	}
	/* After a failed COMMIT the connection stays open for db_discard. */
	if (!rc) {
		if (sqlite3_close(d->h) != SQLITE_OK)
			rc = sql_err(d, err, "closing");
		else
			d->h = NULL;
	}
	if (!rc && rename(d->tmp, d->path) != 0)
		rc = avrr_errf(err, "%s: %s", d->path, strerror(errno));
	if (rc) {
		db_discard(d);
		return rc;
	}
	db_free(d);
	return 0;
}

void db_discard(db *d)
{
	if (!d)
		return;
	d->fail_after = 0;
	drain(d, NULL);
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(d->st[i]);
		d->st[i] = NULL;
	}
	sqlite3_close(d->h);
	d->h = NULL;
	if (d->tmp)
		unlink(d->tmp);
	db_free(d);
}

static int pragma_int(db *d, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h, sql, &st) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
	if (!rc)
		*out = sqlite3_column_int64(st, 0);
	stmts_finish(d->stmts, st);
	return rc;
}

/* Connects d to the n bytes at `image`, read-only and without copying
 * them: SQLite's memdb VFS reads its pages from there. */
static int open_image(db *d, const void *image, size_t n)
{
	int rc = sqlite3_open_v2(":memory:", &d->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_deserialize(d->h, "main", (unsigned char *)(uintptr_t)image,
					 (sqlite3_int64)n, (sqlite3_int64)n,
					 SQLITE_DESERIALIZE_READONLY);
	return rc;
}

/* Opens the recording at `path`, or, when image is not NULL, the n bytes
 * there (path then only names it in messages), through `cache` if not
 * NULL. */
static int open_checked(const char *path, const void *image, size_t n, db_image_cache *cache,
			int writable, int validate, db **out, avrr_err *err)
{
	*out = NULL;
	struct stat sb;
	if (!image && stat(path, &sb) != 0)
		return avrr_errf(err, "%s: %s", path, strerror(errno));
	if (!image && S_ISDIR(sb.st_mode))
		return avrr_errf(err, "%s: is a directory", path);
	db *d = db_alloc(path, err);
	if (!d)
		return -1;
	d->image = image;
	d->image_size = n;
	/* Writable: the writer thread inserts while the caller may still be
	 * stepping a SELECT on the same connection (avrr fingerprint reads
	 * contexts as it adds rows), so SQLite must serialize the two. */
	int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX
			     : SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
	d->cache = cache;
	if ((cache ? image_take(cache, image, n, &d->h, &d->conn)
	     : image ? open_image(d, image, n) : sqlite3_open_v2(path, &d->h, flags, NULL)) !=
	    SQLITE_OK) {
		avrr_errf(err, "%s: cannot open: %s", path, d->h ? sqlite3_errmsg(d->h) : "out of memory");
		db_free(d);
		return -1;
	}
	d->stmts = image_stmts(d->conn);
	int64_t app = 0, ver = 0;
	if (pragma_int(d, "PRAGMA application_id", &app) ||
	    pragma_int(d, "PRAGMA user_version", &ver)) {
		/* An SQLite file whose pages are damaged is no foreign file. */
		avrr_errf(err, sqlite3_errcode(d->h) == SQLITE_CORRUPT ? "%s: damaged recording: %s"
			  : "%s: not an avrr recording (%s)", path, sqlite3_errmsg(d->h));
		db_free(d);
		return -1;
	}
	if (app != DB_APPLICATION_ID || ver < 1) {
		avrr_errf(err, "%s: not an avrr recording (an SQLite file of another kind)", path);
		db_free(d);
		return -1;
	}
	if (ver != DB_SCHEMA_VERSION) {
		avrr_errf(err, ver > DB_SCHEMA_VERSION
			  ? "%s: schema version %lld is newer than this avrr reads (%d); upgrade avrr"
			  : "%s: schema version %lld is older than this avrr reads (%d); record it again",
			  path, (long long)ver, DB_SCHEMA_VERSION);
		db_free(d);
		return -1;
	}
	d->version = (int)ver;
	d->writable = writable;
	int bad = validate && db_validate(d->h, d->stmts, path, db_schema_sql(),
					  image_rows_known(d->conn), image_digest_memo(cache),
					  &d->counts, err);
	d->schema_ok = d->counts.schema_ok;
	if (bad || prepare(d, err) ||
	    (writable && exec(d, "BEGIN", err))) {
		db_free(d);
		return -1;
	}
	d->counted = validate;
	*out = d;
	return 0;
}

int db_open(const char *path, int writable, db **out, avrr_err *err)
{
	return open_checked(path, NULL, 0, NULL, writable, 1, out, err);
}

const char *db_name(const db *d)
{
	return d->path;
}

int db_open_memory_cached(db_image_cache *cache, const char *name, const void *bytes, size_t n,
			  db **out, avrr_err *err)
{
	/* An empty image is an empty database, not "no image". */
	static const uint8_t none;
	return open_checked(name, n ? bytes : &none, n, cache, 0, 1, out, err);
}

int db_open_memory(const char *name, const void *bytes, size_t n, db **out, avrr_err *err)
{
	return db_open_memory_cached(NULL, name, bytes, n, out, err);
}

int db_open_again(const db *d, db **out, avrr_err *err)
{
	if (open_checked(d->path, d->image, d->image_size, NULL, 0, 0, out, err))
		return -1;
	(*out)->counts = d->counts;
	(*out)->counted = d->counted;
	return 0;
}

int db_open_written(const char *path, db **out, avrr_err *err)
{
	if (open_checked(path, NULL, 0, NULL, 0, 0, out, err))
		return -1;
	/* Its reader reads each chunk once: a small page cache, so that
	 * memory does not grow with the recording up to SQLite's 2 MB. */
	if (exec(*out, "PRAGMA cache_size = -256;", err)) {
		db_close(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int db_commit(db *d, avrr_err *err)
{
	if (check_writable(d, err) || drain(d, err) || exec(d, "COMMIT; BEGIN", err))
		return -1;
	return 0;
}

void db_close(db *d)
{
	if (d && d->writable && d->h) {
		/* Whatever was not committed is abandoned. */
		d->fail_after = 0;
		atomic_store(&d->failed, 1);
		drain(d, NULL);
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
	}
	db_free(d);
}

int db_schema_version(const db *d)
{
	return d->version;
}

void db_fail_after(db *d, unsigned n)
{
	d->fail_after = n;
}

/* ---- run metadata and firmware -------------------------------------- */

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int db_put_run(db *d, const db_run *r, avrr_err *err)
{
	if (drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h,
			       "INSERT OR REPLACE INTO run VALUES (1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			       "?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_err(d, err, "writing run metadata");
	bind_text(st, 1, r->firmware_path);
	bind_text(st, 2, r->firmware_sha256);
	bind_text(st, 3, r->mcu);
	sqlite3_bind_int64(st, 4, r->frequency);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)r->seed);
	bind_text(st, 6, r->stimuli_path);
	bind_text(st, 7, r->stimuli);
	bind_text(st, 8, r->tool_version);
	bind_text(st, 9, r->interrupt_rule);
	sqlite3_bind_int64(st, 10, r->data_size);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)r->instructions);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)r->cycles);
	bind_text(st, 13, r->stop_reason);
	sqlite3_bind_int(st, 14, r->has_ground_truth);
	bind_text(st, 15, r->created);
	sqlite3_bind_int64(st, 16, (sqlite3_int64)r->transfers);
	const uint64_t gaps[6] = { r->gap_cycles, r->gap_cycles_from, r->gap_cycles_to,
				   r->gap_transfers, r->gap_transfers_from, r->gap_transfers_to };
	for (int i = 0; i < 6; i++)
		sqlite3_bind_int64(st, 17 + i, (sqlite3_int64)gaps[i]);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_err(d, err, "writing run metadata");
	sqlite3_finalize(st);
	return rc;
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

int db_get_run(db *d, db_run *r, avrr_err *err)
{
	memset(r, 0, sizeof *r);
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h,
			  "SELECT firmware_path, firmware_sha256, mcu, frequency, seed,"
			  " stimuli_path, stimuli, tool_version, interrupt_rule, data_size,"
			  " instructions, cycles, stop_reason, has_ground_truth, created,"
			  " transfers, gap_cycles, gap_cycles_from, gap_cycles_to,"
			  " gap_transfers, gap_transfers_from, gap_transfers_to"
			  " FROM run WHERE id = 1", &st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	int rc = 0;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = avrr_errf(err, "%s: damaged recording: no run metadata", d->path);
	} else {
		r->firmware_path = col_text(st, 0);
		r->firmware_sha256 = col_text(st, 1);
		r->mcu = col_text(st, 2);
		r->frequency = (uint32_t)sqlite3_column_int64(st, 3);
		r->seed = (uint64_t)sqlite3_column_int64(st, 4);
		r->stimuli_path = col_text(st, 5);
		r->stimuli = col_text(st, 6);
		r->tool_version = col_text(st, 7);
		r->interrupt_rule = col_text(st, 8);
		r->data_size = (uint32_t)sqlite3_column_int64(st, 9);
		r->instructions = (uint64_t)sqlite3_column_int64(st, 10);
		r->cycles = (uint64_t)sqlite3_column_int64(st, 11);
		r->stop_reason = col_text(st, 12);
		r->has_ground_truth = sqlite3_column_int(st, 13);
		r->created = col_text(st, 14);
		r->transfers = (uint64_t)sqlite3_column_int64(st, 15);
		uint64_t *gaps[6] = { &r->gap_cycles, &r->gap_cycles_from, &r->gap_cycles_to,
				      &r->gap_transfers, &r->gap_transfers_from,
				      &r->gap_transfers_to };
		for (int i = 0; i < 6; i++)
			*gaps[i] = (uint64_t)sqlite3_column_int64(st, 16 + i);
		if (!r->firmware_path || !r->firmware_sha256 || !r->mcu || !r->stop_reason)
			rc = avrr_errf(err, "%s: damaged recording: incomplete run metadata", d->path);
	}
	stmts_finish(d->stmts, st);
	if (rc)
		db_run_free(r);
	return rc;
}

void db_run_free(db_run *r)
{
	free(r->firmware_path);
	free(r->firmware_sha256);
	free(r->mcu);
	free(r->stimuli_path);
	free(r->stimuli);
	free(r->tool_version);
	free(r->interrupt_rule);
	free(r->stop_reason);
	free(r->created);
	memset(r, 0, sizeof *r);
}

int db_put_firmware(db *d, const char *sha256, const void *elf, size_t n, avrr_err *err)
{
	if (drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "INSERT OR REPLACE INTO firmware VALUES (?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(d, err, "writing firmware");
	bind_text(st, 1, sha256);
	sqlite3_bind_blob64(st, 2, elf, n, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_err(d, err, "writing firmware");
	sqlite3_finalize(st);
	return rc;
}

int db_get_firmware(db *d, uint8_t **elf, size_t *n, avrr_err *err)
{
	*elf = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h,
			  "SELECT elf FROM firmware WHERE sha256 = (SELECT firmware_sha256 FROM run)",
			  &st) != SQLITE_OK)
		return sql_err(d, err, "reading firmware");
	int rc = 0;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = avrr_errf(err, "%s: damaged recording: the firmware copy is missing", d->path);
	} else {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		const void *b = sqlite3_column_blob(st, 0);
		*elf = malloc(len ? len : 1);
		if (!*elf)
			rc = avrr_errf(err, "out of memory");
		else if (len)
			memcpy(*elf, b, len);
		*n = len;
	}
	stmts_finish(d->stmts, st);
	return rc;
}

int db_put_device_log(db *d, const char *log_reg, const void *data, size_t n, avrr_err *err)
{
	if (drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "INSERT OR REPLACE INTO device_log VALUES (1,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(d, err, "writing the device log");
	bind_text(st, 1, log_reg);
	sqlite3_bind_blob64(st, 2, n ? data : "", n, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_err(d, err, "writing the device log");
	sqlite3_finalize(st);
	return rc;
}

int db_get_device_log(db *d, char **log_reg, uint8_t **data, size_t *n, avrr_err *err)
{
	*log_reg = NULL;
	*data = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "SELECT log_reg, data FROM device_log", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_err(d, err, "reading the device log");
	int rc = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		const void *b = sqlite3_column_blob(st, 1);
		const unsigned char *reg = sqlite3_column_text(st, 0);
		*data = malloc(len ? len : 1);
		*log_reg = strdup(reg ? (const char *)reg : "");
		if (!*data || !*log_reg) {
			free(*data);
			free(*log_reg);
			*data = NULL;
			*log_reg = NULL;
			rc = avrr_errf(err, "out of memory");
		} else {
			if (len)
				memcpy(*data, b, len);
			*n = len;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- rows ----------------------------------------------------------- */

/* The batch a new row goes into, or NULL (err set) when rows cannot be
 * added: read-only, an earlier write failed, or out of memory. */
static batch *batch_for_row(db *d, avrr_err *err)
{
	if (check_writable(d, err))
		return NULL;
	if (atomic_load(&d->failed)) {
		report_failure(d, err);
		return NULL;
	}
	if (!d->fill && !(d->fill = calloc(1, sizeof *d->fill)))
		avrr_errf(err, "out of memory");
	return d->fill;
}

int db_add_interrupt(db *d, const db_interrupt *q, avrr_err *err)
{
	batch *b = batch_for_row(d, err);
	if (!b)
		return -1;
	b->ctx_off[b->nirq] = SIZE_MAX;
	if (q->context) {
		if (b->ctx_len + q->context_size > b->ctx_cap) {
			size_t cap = (b->ctx_len + q->context_size) * 2;
			uint8_t *n = realloc(b->ctx, cap);
			if (!n)
				return avrr_errf(err, "out of memory");
			b->ctx = n;
			b->ctx_cap = cap;
		}
		memcpy(b->ctx + b->ctx_len, q->context, q->context_size);
		b->ctx_off[b->nirq] = b->ctx_len;
		b->ctx_len += q->context_size;
	}
	b->irq[b->nirq++] = *q;
	return b->nirq == BATCH_IRQS ? submit(d, err) : 0;
}

int db_add_event(db *d, const trace_event *e, avrr_err *err)
{
	batch *b = batch_for_row(d, err);
	if (!b)
		return -1;
	b->ev[b->nev++] = *e;
	return b->nev == BATCH_EVENTS ? submit(d, err) : 0;
}

int db_add_fingerprint(db *d, const db_fingerprint *f, avrr_err *err)
{
	batch *b = batch_for_row(d, err);
	if (!b)
		return -1;
	b->fp[b->nfp++] = *f;
	return b->nfp == BATCH_FPS ? submit(d, err) : 0;
}

int db_add_fp_config(db *d, const char *name, const char *spec, uint32_t *id, avrr_err *err)
{
	if (check_writable(d, err) || drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "INSERT INTO fp_configs (name, spec) VALUES (?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(d, err, "writing a fingerprint configuration");
	bind_text(st, 1, name);
	bind_text(st, 2, spec);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT)
		rc = avrr_errf(err, "%s: a fingerprint configuration named '%s' is already there",
			       d->path, name);
	else if (rc != SQLITE_DONE)
		rc = sql_err(d, err, "writing a fingerprint configuration");
	else
		rc = 0;
	sqlite3_finalize(st);
	if (!rc)
		*id = (uint32_t)sqlite3_last_insert_rowid(d->h);
	return rc;
}

/* Runs `sql` and hands each row to fn; stops at the first non-zero. */
static int each_row(db *d, const char *sql, int (*fn)(sqlite3_stmt *, void *), void *arg,
		    avrr_err *err)
{
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h, sql, &st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	int rc, r = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = fn(st, arg)) != 0)
			break;
	if (!r && rc != SQLITE_DONE)
		r = avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	else if (r)
		r = avrr_errf(err, "out of memory");
	stmts_finish(d->stmts, st);
	return r;
}

/* Loads every row of `sql` into a malloc'ed array of `size`-byte items. */
static int load_all(db *d, const char *sql, int (*fn)(sqlite3_stmt *, void *), size_t size,
		    void **out, size_t *n, avrr_err *err)
{
	growbuf g = { .size = size };
	int rc = drain(d, err) ? -1 : each_row(d, sql, fn, &g, err);
	if (rc) {
		free(g.items);
		g.items = NULL;
		g.n = 0;
	}
	*out = g.items;
	*n = g.n;
	return rc;
}

int db_load_events(db *d, trace_event **out, size_t *n, avrr_err *err)
{
	return drain(d, err) ? -1 : db_decode_events(d->h, d->stmts, d->path, out, n, err);
}

static int append_irq_events(void *ud, const trace_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		trace_event *e = ev[i].type == TRACE_IRQ ? grow(ud) : NULL;
		if (ev[i].type == TRACE_IRQ && !e)
			return -1;
		if (e)
			*e = ev[i];
	}
	return 0;
}

int db_load_interrupts(db *d, db_interrupt **out, size_t *n, avrr_err *err)
{
	/* The irq events are all db_decode_interrupts reads of the log. */
	growbuf g = { .size = sizeof(trace_event) };
	if (drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, append_irq_events, &g, err)) {
		free(g.items);
		return -1;
	}
	int rc = db_decode_interrupts(d->h, d->stmts, d->path, g.items, g.n, out, n, err);
	free(g.items);
	return rc;
}

int db_event_chunk(db *d, uint64_t first, uint64_t last_of_ctx[256], trace_event **buf,
		   size_t *cap, size_t *count, avrr_err *err)
{
	*count = 0;
	quiesce(d);
	if (!d->chunk_at && stmts_prepare(d->stmts, d->h, "SELECT count, data FROM event_chunks"
					  " WHERE first = ?", &d->chunk_at) != SQLITE_OK)
		return avrr_errf(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
	sqlite3_stmt *st = d->chunk_at;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)first);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 1;
	}
	if (rc != SQLITE_ROW) {
		avrr_errf(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
		sqlite3_reset(st);
		return -1;
	}
	/* db_open checked every chunk; these hold for one opened unchecked. */
	int64_t n = sqlite3_column_int64(st, 0);
	const char *why = n < 1 || n > 1 << 16 ? "an event chunk with a bad count" : NULL;
	if (!why && (size_t)n > *cap) {
		trace_event *p = realloc(*buf, (size_t)n * sizeof *p);
		if (!p) {
			sqlite3_reset(st);
			return avrr_errf(err, "out of memory");
		}
		*buf = p;
		*cap = (size_t)n;
	}
	if (!why)
		why = chunk_get_events(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
				       first, (size_t)n, last_of_ctx, *buf);
	/* Reset at once: no read transaction outlives the call, so a fork
	 * (a checkpoint) may read on with its copy of the connection. */
	sqlite3_reset(st);
	if (why)
		return avrr_errf(err, "%s: damaged recording: %s (event_chunks, row %" PRIu64 ")",
				 d->path, why, first);
	*count = (size_t)n;
	return 0;
}

int db_each_event(db *d, int (*fn)(void *ud, const trace_event *ev, size_t n), void *ud,
		  avrr_err *err)
{
	return drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, fn, ud, err) ? -1 : 0;
}

int db_log_counts(db *d, uint64_t *nevents, uint64_t *nirq, avrr_err *err)
{
	if (!d->counted) {
		uint64_t counts[TRACE_COUNT];
		if (db_count_event_types(d, counts, err))
			return -1;
		d->counts = (db_counts){ 0 };
		for (unsigned t = 0; t < TRACE_COUNT; t++)
			d->counts.nevents += counts[t];
		d->counts.nirq = counts[TRACE_IRQ];
		d->counted = 1;
	}
	*nevents = d->counts.nevents;
	*nirq = d->counts.nirq;
	return 0;
}

/* Calls count(counts, event) for every event of the log, a chunk at a
 * time, so that counting a long log holds none of it. */
typedef struct counting {
	void (*count)(uint64_t *, const trace_event *);
	uint64_t *counts;
} counting;

static int count_chunk(void *ud, const trace_event *ev, size_t n)
{
	const counting *c = ud;
	for (size_t i = 0; i < n; i++)
		c->count(c->counts, &ev[i]);
	return 0;
}

static int each_event(db *d, void (*count)(uint64_t *, const trace_event *), uint64_t *counts,
		      avrr_err *err)
{
	counting c = { count, counts };
	return drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, count_chunk, &c, err) ? -1 : 0;
}

/* counts: 256 per vector, then TRACE_COUNT per type. */
static void count_both(uint64_t *counts, const trace_event *e)
{
	if (e->type == TRACE_IRQ && e->addr < 256)
		counts[e->addr]++;
	if (e->type < TRACE_COUNT)
		counts[256 + e->type]++;
}

/* Both tallies, from one pass; kept where the log cannot grow. */
static int tallies(db *d, uint64_t vectors[256], uint64_t types[TRACE_COUNT], avrr_err *err)
{
	if (!d->have_tallies) {
		uint64_t c[256 + TRACE_COUNT] = { 0 };
		if (each_event(d, count_both, c, err))
			return -1;
		memcpy(d->vector_counts, c, sizeof d->vector_counts);
		memcpy(d->type_counts, c + 256, sizeof d->type_counts);
		d->have_tallies = !d->writable;
		if (vectors)
			memcpy(vectors, c, sizeof d->vector_counts);
		if (types)
			memcpy(types, c + 256, sizeof d->type_counts);
		return 0;
	}
	if (vectors)
		memcpy(vectors, d->vector_counts, sizeof d->vector_counts);
	if (types)
		memcpy(types, d->type_counts, sizeof d->type_counts);
	return 0;
}

int db_count_vectors(db *d, uint64_t counts[256], avrr_err *err)
{
	return tallies(d, counts, NULL, err);
}

int db_count_event_types(db *d, uint64_t counts[TRACE_COUNT], avrr_err *err)
{
	return tallies(d, NULL, counts, err);
}

/* ---- fingerprints ----------------------------------------------------- */

static int fp_config_row(sqlite3_stmt *st, void *arg)
{
	db_fp_config *c = grow(arg);
	if (!c)
		return -1;
	const unsigned char *name = sqlite3_column_text(st, 1);
	const unsigned char *spec = sqlite3_column_text(st, 2);
	c->id = (uint32_t)sqlite3_column_int64(st, 0);
	snprintf(c->name, sizeof c->name, "%s", name ? (const char *)name : "");
	snprintf(c->spec, sizeof c->spec, "%s", spec ? (const char *)spec : "");
	return 0;
}

int db_load_fp_configs(db *d, db_fp_config **out, size_t *n, avrr_err *err)
{
	void *rows;
	int rc = load_all(d, "SELECT id, name, spec FROM fp_configs ORDER BY id", fp_config_row,
			  sizeof **out, &rows, n, err);
	*out = rows;
	return rc;
}

/* Fills d->irq_vector from the chunks one at a time. */
static int add_irq_vectors(void *ud, const trace_event *ev, size_t n)
{
	growbuf *g = ud;
	for (size_t i = 0; i < n; i++) {
		uint8_t *v = ev[i].type == TRACE_IRQ ? grow(g) : NULL;
		if (ev[i].type == TRACE_IRQ && !v)
			return -1;
		if (v)
			*v = (uint8_t)ev[i].addr;
	}
	return 0;
}

static int load_irq_vectors(db *d, avrr_err *err)
{
	if (d->have_irq_vector)
		return 0;
	growbuf g = { .size = 1 };
	if (drain(d, err) || db_each_event_chunk(d->h, d->stmts, d->path, add_irq_vectors, &g, err)) {
		free(g.items);
		return -1;
	}
	d->irq_vector = g.items ? g.items : malloc(1);
	if (!d->irq_vector)
		return avrr_errf(err, "out of memory");
	d->nirq = g.n;
	d->have_irq_vector = 1;
	return 0;
}

/* Reads the context digests of the ground truth a chunk at a time, in
 * order of interrupt, for the fingerprints being decoded: straight from
 * interrupt_chunks, so that no decoded ground truth is held.  A stripped
 * recording has none to give. */
typedef struct digest_reader {
	db *d;
	sqlite3_stmt *st;       /* over interrupt_chunks; NULL when done */
	const uint8_t *data;    /* the current chunk's */
	uint64_t first, count;  /* its interrupts */
} digest_reader;

static int digests_open(db *d, digest_reader *r, avrr_err *err)
{
	*r = (digest_reader){ .d = d };
	if (stmts_prepare(d->stmts, d->h, "SELECT first, count, data FROM interrupt_chunks"
			  " ORDER BY first", &r->st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	r->first = 1;
	return 0;
}

/* Interrupt n's digest into dg (n ascending from call to call): 0, 1 when
 * the ground truth has none for it, -1 (err). */
static int digest_at(digest_reader *r, uint64_t n, uint8_t dg[DB_DIGEST_SIZE], avrr_err *err)
{
	db *d = r->d;
	while (r->st && n >= r->first + r->count) {
		int step = sqlite3_step(r->st);
		if (step == SQLITE_DONE) {
			stmts_finish(d->stmts, r->st);
			r->st = NULL;
			break;
		}
		if (step != SQLITE_ROW)
			return avrr_errf(err, "%s: damaged recording: %s", d->path,
					 sqlite3_errmsg(d->h));
		int64_t first = sqlite3_column_int64(r->st, 0), count = sqlite3_column_int64(r->st, 1);
		if ((uint64_t)first != r->first + r->count || count < 1 ||
		    (uint64_t)(first - 1 + count) > d->nirq ||
		    sqlite3_column_bytes(r->st, 2) != count * CHUNK_IRQ_SIZE)
			return avrr_errf(err, "%s: damaged recording: interrupts out of place"
					 " (interrupt_chunks, row %" PRId64 ")", d->path, first);
		r->data = sqlite3_column_blob(r->st, 2);
		r->first = (uint64_t)first;
		r->count = (uint64_t)count;
	}
	if (!r->st || n < r->first)
		return 1;
	uint32_t sp;
	chunk_get_irq(r->data + (n - r->first) * CHUNK_IRQ_SIZE, &sp, dg);
	return 0;
}

/* Gives f its interrupt's digest (f->n ascending from call to call) when
 * the ground truth has one. */
static int digest_of(digest_reader *r, db_fingerprint *f, avrr_err *err)
{
	int rc = digest_at(r, f->n, f->digest, err);
	f->has_digest = rc == 0;
	return rc < 0 ? -1 : 0;
}

static void digests_close(digest_reader *r)
{
	stmts_finish(r->d->stmts, r->st);
	r->st = NULL;
}

struct db_digests {
	digest_reader r;
};

int db_digests_open(db *d, db_digests **out, avrr_err *err)
{
	*out = NULL;
	db_digests *g = calloc(1, sizeof *g);
	if (!g)
		return avrr_errf(err, "out of memory");
	if (drain(d, err) || load_irq_vectors(d, err) || digests_open(d, &g->r, err)) {
		free(g);
		return -1;
	}
	*out = g;
	return 0;
}

int db_digest_at(db_digests *g, uint64_t n, uint8_t dg[DB_DIGEST_SIZE], avrr_err *err)
{
	quiesce(g->r.d);  /* its statement stays open while a writer writes */
	return digest_at(&g->r, n, dg, err);
}

void db_digests_close(db_digests *g)
{
	if (!g)
		return;
	digests_close(&g->r);
	free(g);
}

int db_read_begin(db *d, avrr_err *err)
{
	if (!sqlite3_get_autocommit(d->h))
		return 0;
	if (exec(d, "BEGIN", err))
		return -1;
	d->read_held = 1;
	return 0;
}

void db_read_end(db *d)
{
	if (d->read_held)
		sqlite3_exec(d->h, "COMMIT", NULL, NULL, NULL);  /* a read: nothing to lose */
	d->read_held = 0;
}

int db_fingerprint_chunk(db *d, uint32_t config, uint64_t n, db_fingerprint **buf, size_t *cap,
			 uint64_t *first, size_t *count, avrr_err *err)
{
	*count = 0;
	if (!d->fp_chunk_of &&
	    stmts_prepare(d->stmts, d->h, "SELECT first, count, ra_size, hash_size, key_size, data,"
			  " keys FROM fingerprint_chunks WHERE config = ?1 AND first <= ?2"
			  " ORDER BY first DESC LIMIT 1", &d->fp_chunk_of) != SQLITE_OK)
		return avrr_errf(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
	sqlite3_stmt *st = d->fp_chunk_of;
	sqlite3_bind_int64(st, 1, config);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)n);
	int rc = sqlite3_step(st);
	const char *why = rc == SQLITE_ROW ? NULL : rc == SQLITE_DONE ? "no chunk holds it"
			  : sqlite3_errmsg(d->h);
	size_t k = 0;
	int64_t at = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	if (!why)
		why = db_decode_fp_chunk(st, 1, NULL, 0, &k);
	if (!why && (at < 1 || (uint64_t)at + k <= n))
		why = "no chunk holds it";
	if (!why && k > *cap) {
		db_fingerprint *p = realloc(*buf, k * sizeof *p);
		if (!p) {
			sqlite3_reset(st);
			return avrr_errf(err, "out of memory");
		}
		*buf = p;
		*cap = k;
	}
	if (!why) {
		memset(*buf, 0, k * sizeof **buf);
		for (size_t i = 0; i < k; i++) {
			(*buf)[i].config = config;
			(*buf)[i].n = (uint64_t)at + i;
		}
		db_decode_fp_chunk(st, 1, *buf, k, &k);
	}
	sqlite3_reset(st);  /* no read transaction left open, as db_event_chunk */
	if (why)
		return avrr_errf(err, "%s: fingerprint %" PRIu64 " of configuration %u: %s", d->path,
				 n, config, why);
	*first = (uint64_t)at;
	*count = k;
	return 0;
}

int db_each_fingerprint(db *d, uint32_t config, int with_digests,
			int (*fn)(void *ud, const db_fingerprint *f, size_t n, avrr_err *err),
			void *ud, avrr_err *err)
{
	if (drain(d, err) || load_irq_vectors(d, err))
		return -1;
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h, "SELECT first, count, ra_size, hash_size, key_size, data,"
			  " keys FROM fingerprint_chunks WHERE config = ? ORDER BY first",
			  &st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	digest_reader dr = { .d = d };
	if (with_digests && digests_open(d, &dr, err)) {
		stmts_finish(d->stmts, st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, config);
	db_fingerprint *f = NULL;
	size_t cap = 0;
	uint64_t next = 1;
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 0);
		size_t count;
		const char *why = db_decode_fp_chunk(st, 1, NULL, 0, &count);
		if (!why && (first != (int64_t)next || first - 1 + count > d->nirq))
			why = "fingerprints out of place";
		if (why) {
			rc = avrr_errf(err, "%s: damaged recording: %s (fingerprint_chunks, row %" PRId64
				       ")", d->path, why, first);
			break;
		}
		if (count > cap) {
			free(f);
			if (!(f = malloc(count * sizeof *f))) {
				rc = avrr_errf(err, "out of memory");
				break;
			}
			cap = count;
		}
		memset(f, 0, count * sizeof *f);
		for (size_t i = 0; i < count; i++) {
			f[i].config = config;
			f[i].n = (uint64_t)first + i;
			f[i].vector = d->irq_vector[first - 1 + (int64_t)i];
		}
		db_decode_fp_chunk(st, 1, f, count, &count);
		for (size_t i = 0; i < count && with_digests && !rc; i++)
			rc = digest_of(&dr, &f[i], err);
		if (!rc)
			rc = fn(ud, f, count, err) ? -1 : 0;
		next += count;
	}
	if (!rc && step != SQLITE_DONE)
		rc = avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	free(f);
	digests_close(&dr);
	stmts_finish(d->stmts, st);
	return rc;
}

static int append_fingerprints(void *ud, const db_fingerprint *f, size_t n, avrr_err *err)
{
	db_fingerprint *to = grow_n(ud, n);
	if (!to)
		return avrr_errf(err, "out of memory");
	memcpy(to, f, n * sizeof *to);
	return 0;
}

int db_load_fingerprints(db *d, uint32_t config, int with_digests, db_fingerprint **out,
			 size_t *n, avrr_err *err)
{
	growbuf g = { .size = sizeof **out };
	int rc = db_each_fingerprint(d, config, with_digests, append_fingerprints, &g, err);
	if (rc) {
		free(g.items);
		g.items = NULL;
		g.n = 0;
	}
	*out = g.items;
	*n = g.n;
	return rc;
}

int db_each_context(db *d, int (*fn)(void *ud, const db_interrupt *q, avrr_err *err),
		    void *ud, avrr_err *err)
{
	db_interrupt *truth;
	size_t n;
	if (db_load_interrupts(d, &truth, &n, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "SELECT idx, data FROM contexts ORDER BY idx", -1, &st,
			       NULL) != SQLITE_OK) {
		free(truth);
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	}
	int rc = 0, have = sqlite3_step(st);
	for (size_t i = 0; i < n && !rc; i++) {
		db_interrupt *q = &truth[i];
		if (have == SQLITE_ROW && (uint64_t)sqlite3_column_int64(st, 0) == q->idx) {
			q->context = sqlite3_column_blob(st, 1);
			q->context_size = (uint32_t)sqlite3_column_bytes(st, 1);
		}
		rc = fn(ud, q, err) ? -1 : 0;
		if (q->context)
			have = sqlite3_step(st);
	}
	if (!rc && have != SQLITE_ROW && have != SQLITE_DONE)
		rc = avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	free(truth);
	sqlite3_finalize(st);
	return rc;
}

int db_count_contexts(db *d, uint64_t *n, avrr_err *err)
{
	int64_t count = 0;
	if (drain(d, err))
		return -1;
	if (pragma_int(d, "SELECT count(*) FROM contexts", &count))
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	*n = (uint64_t)count;
	return 0;
}

/* ---- stripping -------------------------------------------------------- */

int db_strip(const char *path, const char *out, avrr_err *err)
{
	db *d;
	if (db_open(path, 0, &d, err))
		return -1;
	char *tmp = temp_path_for(out);
	char *sql = tmp ? sqlite3_mprintf("VACUUM INTO %Q", tmp) : NULL;
	sqlite3 *h = NULL;
	int rc = -1;
	struct stat sb;
	if (!sql) {
		avrr_errf(err, "out of memory");
		goto done;
	}
	if (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		avrr_errf(err, "%s: is a directory", out);
		goto done;
	}
	/* Never onto the recording itself: that would drop its ground truth
	 * in place (the command refuses first; this is the store's own word). */
	struct stat si;
	if (stat(out, &sb) == 0 && stat(path, &si) == 0 && sb.st_dev == si.st_dev &&
	    sb.st_ino == si.st_ino) {
		avrr_errf(err, "%s: is the recording being stripped", out);
		goto done;
	}
	db_remove_stale_temps(out);
	unlink(tmp);
	if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
		avrr_errf(err, "%s: cannot write here (%s)", out, sqlite3_errmsg(d->h));
		goto done;
	}
	if (sqlite3_open_v2(tmp, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(h, "BEGIN; DELETE FROM interrupt_chunks; DELETE FROM contexts;"
			    " UPDATE fingerprint_chunks SET key_size = 0, keys = NULL;"
			    " UPDATE run SET has_ground_truth = 0; COMMIT; VACUUM;",
			 NULL, NULL, NULL) != SQLITE_OK) {
		avrr_errf(err, "%s: %s", out, h ? sqlite3_errmsg(h) : "out of memory");
		goto done;
	}
	if (sqlite3_close(h) != SQLITE_OK) {
		avrr_errf(err, "%s: closing: %s", out, sqlite3_errmsg(h));
		goto done;
	}
	h = NULL;
	if (rename(tmp, out) != 0) {
		avrr_errf(err, "%s: %s", out, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	sqlite3_close(h);
	if (rc && tmp)
		unlink(tmp);
	sqlite3_free(sql);
	free(tmp);
	db_close(d);
	return rc;
}
