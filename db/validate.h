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

#include "../util/err.h"

/* Checks the recording open in h; on failure err says
 * "PATH: damaged recording: WHAT (TABLE, row N)". */
int db_validate(sqlite3 *h, const char *path, const char *schema, avrr_err *err);

#endif
