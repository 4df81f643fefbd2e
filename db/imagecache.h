/*
 * imagecache.h — private to db/: connections to recordings' images in
 * memory, kept so that the next image with the same schema opens without
 * SQLite parsing it again (db_open_memory_cached, db.h).
 *
 * SQLite parses a database's schema once per connection, from the file's
 * header (page 1's first 100 bytes: the schema cookie, its format, the
 * text encoding) and the rows of sqlite_schema; for avrr's schema that
 * parse (the views' SQL) is most of opening a small recording.  A
 * connection is kept with the header and the rows it parsed.  An image of
 * the same size and header is copied over the kept image, and its rows of
 * sqlite_schema read through the kept connection (the cookie being the
 * same, SQLite does not parse again): the very rows it parsed would parse
 * to the same schema, so the image is read through that connection.
 * Other rows (or none readable) leave the connection kept for the next
 * image.  Whatever the pages that hold the rows have besides (free space,
 * cells moved) counts for nothing: mutations of a fuzzer's inputs land
 * there often.  The page cache is emptied after each image read, for
 * page 1's change counter says nothing changed.  Anything else gets a new
 * connection.
 */
#ifndef AVRR_DB_IMAGECACHE_H
#define AVRR_DB_IMAGECACHE_H

#include <sqlite3.h>
#include <stddef.h>

#include "db/db.h"
#include "db/stmts.h"
#include "db/validate.h"

typedef struct image_conn image_conn;

/* A read-only connection, in *h, reading a copy of the n bytes at `bytes`:
 * a kept one whose header and sqlite_schema rows they have, or a new
 * one.  *conn is what to give back.  An SQLite result code (SQLITE_OK);
 * on failure nothing to give back. */
int image_take(db_image_cache *c, const void *bytes, size_t n, sqlite3 **h,
	       image_conn **conn);

/* The statements kept with conn's connection (stmts.h): its readers'
 * queries, prepared on the first image and used again on the next ones.
 * NULL for NULL. */
db_stmts *image_stmts(image_conn *conn);

/* Whether conn is a kept connection whose sqlite_schema rows image_take
 * compared whole with those it was kept with: a connection is kept only
 * after validation found avrr's schema in them (image_give_back), so
 * comparing them with avrr's again would find them the same
 * (db_validate's rows_known).  0 for a new one, or NULL. */
int image_rows_known(const image_conn *conn);

/* Validation's memo of the last firmware digest, kept with the cache
 * (db_validate's memo); NULL for NULL. */
db_digest_memo *image_digest_memo(db_image_cache *c);

/* Gives back conn, whose statements are all finalized or, those of
 * image_stmts, done with.  A new connection
 * is kept only when `schema_ok` (validation found avrr's schema, so SQLite
 * parsed it, and it holds no virtual table or statistics that SQLite would
 * read from other pages), whatever validation found after; a kept one
 * stays kept.  The least recently used beyond the cache's few is closed. */
void image_give_back(db_image_cache *c, image_conn *conn, int schema_ok);

#endif
