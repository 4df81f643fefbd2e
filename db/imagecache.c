/*
 * imagecache.c — connections kept for images with the same schema (see
 * imagecache.h).
 */
#include "db/imagecache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Connections kept: a fuzzer's inputs come from a few schemas at most
 * (avrr's, as the seed has it), and a kept connection costs its parsed
 * schema's memory. */
#define KEPT 4

/* The file header's length: page 1's first bytes, read before the schema
 * (its cookie, format, text encoding, page size). */
#define HEADER 100

struct image_conn {
	sqlite3 *h;
	uint8_t *image;      /* the bytes SQLite reads (memdb), ours */
	size_t n;
	uint8_t head[HEADER];  /* the header its schema was parsed with */
	char *rows;          /* sqlite_schema's rows as parsed (rows_of); NULL: not kept */
	size_t rows_len;
	db_stmts *stmts;     /* prepared on h, kept with it; NULL: none kept */
	int rows_known;      /* taken kept: the rows compared whole (same_rows) */
};

struct db_image_cache {
	image_conn *kept[KEPT];  /* most recently given back first */
	size_t nkept;
	uint64_t reused;         /* image_take calls that found a kept one */
	db_digest_memo digest;   /* validation's last firmware digest */
};

db_image_cache *db_image_cache_new(void)
{
	return calloc(1, sizeof(db_image_cache));
}

static void conn_close(image_conn *k)
{
	if (!k)
		return;
	stmts_free(k->stmts);  /* SQLite closes no connection with statements open */
	sqlite3_close(k->h);  /* before its image goes */
	free(k->image);
	free(k->rows);
	free(k);
}

void db_image_cache_free(db_image_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nkept; i++)
		conn_close(c->kept[i]);
	free(c->digest.bytes);
	free(c);
}

uint64_t db_image_cache_reused(const db_image_cache *c)
{
	return c->reused;
}

/* Every row of sqlite_schema that h reads now, in rowid order (the order
 * SQLite parses them in), each column's type, length and bytes one after
 * another, malloc'ed in *out: what SQLite would parse the schema from,
 * with page 1's header.  -1 when it cannot be read (damage, memory).
 * With `want` (of want_len bytes), nothing is built: 0 when the rows are
 * exactly those, 1 from the first byte that differs. */
static int rows_of(sqlite3 *h, db_stmts *stmts, const char *want, size_t want_len, char **out,
		   size_t *len)
{
	sqlite3_stmt *st;
	*out = NULL;
	*len = 0;
	if (stmts_prepare(stmts, h, "SELECT rowid, type, name, tbl_name, rootpage, sql"
			  " FROM sqlite_schema ORDER BY rowid", &st) != SQLITE_OK)
		return -1;
	size_t cap = 0;
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		for (int i = 0; i < 6 && !rc; i++) {
			/* Its type first (a conversion would change it), then its
			 * bytes: a number's as text, as sqlite3_exec hands SQLite's
			 * own parse each column. */
			int type = sqlite3_column_type(st, i);
			const void *v = sqlite3_column_blob(st, i);
			size_t n = (size_t)sqlite3_column_bytes(st, i);
			if (want) {  /* compared where they lie, no copy */
				size_t head[2] = { (size_t)type, n };
				if (want_len - *len < sizeof head + n ||
				    memcmp(want + *len, head, sizeof head) ||
				    (n && memcmp(want + *len + sizeof head, v, n)))
					rc = 1;
				*len += sizeof head + n;
				continue;
			}
			if (*len + n + 2 * sizeof(size_t) > cap) {
				cap = 2 * (*len + n + 2 * sizeof(size_t)) + 4096;
				char *p = realloc(*out, cap);
				if (!p) {
					rc = -1;
					break;
				}
				*out = p;
			}
			size_t head[2] = { (size_t)type, n };
			memcpy(*out + *len, head, sizeof head);
			if (n)
				memcpy(*out + *len + sizeof head, v, n);
			*len += sizeof head + n;
		}
	if (!rc && step != SQLITE_DONE)
		rc = -1;
	if (!rc && want && *len != want_len)
		rc = 1;
	stmts_finish(stmts, st);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* Whether the image now under k's connection holds the very rows of
 * sqlite_schema its schema was parsed from, read whole through it: with
 * the same header (image_take), SQLite would parse them to the same
 * schema.  Whatever else the pages that hold them have (free space,
 * freeblocks, cells moved) the parse never reads. */
static int same_rows(image_conn *k)
{
	char *none;
	size_t len;
	return !rows_of(k->h, k->stmts, k->rows, k->rows_len, &none, &len);
}

int image_take(db_image_cache *c, const void *bytes, size_t n, sqlite3 **h,
	       image_conn **conn)
{
	*h = NULL;
	*conn = NULL;
	for (size_t i = 0; i < c->nkept; i++) {
		image_conn *k = c->kept[i];
		if (k->n != n || memcmp(bytes, k->head, HEADER))  /* kept: k->n >= HEADER */
			continue;
		memcpy(k->image, bytes, n);
		if (!same_rows(k)) {
			/* Kept still: the next image is copied over this one and
			 * its rows read again before anyone reads through it.
			 * The pages read are dropped, for page 1's change counter
			 * will be the same. */
			sqlite3_db_release_memory(k->h);
			continue;
		}
		memmove(&c->kept[i], &c->kept[i + 1], (c->nkept - i - 1) * sizeof *c->kept);
		c->nkept--;
		c->reused++;
		k->rows_known = 1;
		*h = k->h;
		*conn = k;
		return SQLITE_OK;
	}
	image_conn *k = calloc(1, sizeof *k);
	if (!k || !(k->image = malloc(n ? n : 1))) {
		free(k);
		return SQLITE_NOMEM;
	}
	memcpy(k->image, bytes, n);
	k->n = n;
	k->stmts = stmts_new();  /* NULL (out of memory): statements prepared each time */
	/* As db_open_memory's connections: memdb over our copy, read-only. */
	int rc = sqlite3_open_v2(":memory:", &k->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_deserialize(k->h, "main", k->image, (sqlite3_int64)n,
					 (sqlite3_int64)n, SQLITE_DESERIALIZE_READONLY);
	if (rc != SQLITE_OK) {
		/* The caller reports the error from the handle: it keeps it. */
		*h = k->h;
		k->h = NULL;
		conn_close(k);
		return rc;
	}
	*h = k->h;
	*conn = k;
	return SQLITE_OK;
}

db_stmts *image_stmts(image_conn *k)
{
	return k ? k->stmts : NULL;
}

int image_rows_known(const image_conn *k)
{
	return k && k->rows_known;
}

db_digest_memo *image_digest_memo(db_image_cache *c)
{
	return c ? &c->digest : NULL;
}

void image_give_back(db_image_cache *c, image_conn *k, int schema_ok)
{
	if (!k)
		return;
	int keep = stmts_idle(k->stmts, k->h) && sqlite3_get_autocommit(k->h);
	if (keep && !k->rows) {
		keep = schema_ok && k->n >= HEADER &&
		       !rows_of(k->h, k->stmts, NULL, 0, &k->rows, &k->rows_len);
		if (keep)
			memcpy(k->head, k->image, HEADER);
	}
	if (!keep) {
		conn_close(k);
		return;
	}
	/* The next image will have page 1, and so the file change counter,
	 * the same as this one: SQLite would keep the pages it cached. */
	sqlite3_db_release_memory(k->h);
	if (c->nkept == KEPT)
		conn_close(c->kept[--c->nkept]);
	memmove(&c->kept[1], &c->kept[0], c->nkept * sizeof *c->kept);
	c->kept[0] = k;
	c->nkept++;
}
