/*
 * stmts.h — private to db/: statements kept prepared on one connection.
 *
 * A connection kept by the image cache (imagecache.h) reads image after
 * image with the same schema, and validation and the loaders run the same
 * few dozen queries on each: preparing them again (SQLite parsing and
 * planning each SELECT) was a third of reading a small recording.  Kept
 * here, a statement is handed out again reset and with its bindings
 * cleared, as a new one would be; SQLite re-prepares it by itself should
 * the schema ever change under it.
 *
 * Every function takes a NULL set: then nothing is kept, and a statement
 * is prepared and finalized as without one (the file connections' way).
 */
#ifndef AVRR_DB_STMTS_H
#define AVRR_DB_STMTS_H

#include <sqlite3.h>

typedef struct db_stmts db_stmts;

/* An empty set; NULL when out of memory. */
db_stmts *stmts_new(void);
/* Finalizes every statement kept (before their connection closes). */
void stmts_free(db_stmts *s);

/* The statement `sql` on h in *st, as sqlite3_prepare_v2 makes it: one of
 * s's not in use, else prepared now (and kept, while s has room).  An
 * SQLite result code; on failure *st is NULL and h has the message. */
int stmts_prepare(db_stmts *s, sqlite3 *h, const char *sql, sqlite3_stmt **st);
/* Done with st (NULL: nothing): one of s's is reset and its bindings
 * cleared, to be handed out again; any other is finalized. */
void stmts_finish(db_stmts *s, sqlite3_stmt *st);

/* Whether every statement open on h is one of s's, none of them in use:
 * what a connection needs to be kept for another image. */
int stmts_idle(const db_stmts *s, sqlite3 *h);

#endif
