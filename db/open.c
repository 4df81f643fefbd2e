/*
 * open.c — creating, opening, finishing and closing a recording (see
 * dbint.h for the split of db/).  A recording under construction lives in
 * "DIR/.NAME.tmp-PID" with journaling off: if the process dies, what is
 * left is a hidden temporary, never a file at the path the user asked for.
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

static void db_free(db *d)
{
	if (!d)
		return;
	dbw_batch_free(d->fill);
	dbw_batch_free(d->handoff);
	for (int i = 0; i < d->nspare; i++)
		dbw_batch_free(d->spare[i]);
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

int db_finish(db *d, avrr_err *err)
{
	int rc = dbw_drain(d, err);
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
	dbw_drain(d, NULL);
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
	if (check_writable(d, err) || dbw_drain(d, err) || exec(d, "COMMIT; BEGIN", err))
		return -1;
	return 0;
}

void db_close(db *d)
{
	if (d && d->writable && d->h) {
		/* Whatever was not committed is abandoned. */
		d->fail_after = 0;
		atomic_store(&d->failed, 1);
		dbw_drain(d, NULL);
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
