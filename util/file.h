/* file.h — reading a whole text file, with the checks input files need;
 * writing a whole buffer to a descriptor. */
#ifndef AVRR_FILE_H
#define AVRR_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* The file's text, NUL-terminated and malloc'ed, or NULL with err set:
 * "PATH: No such file or directory", "PATH: read error (is it a
 * directory?)", "PATH: not a text file (contains NUL bytes)". */
char *util_read_text(const char *path, avrr_err *err);

/* Writes all n bytes to fd, across short writes and EINTR; 0, or -1 with
 * errno set. */
int util_write_full(int fd, const void *buf, size_t n);

/* A hidden temporary beside `out` (".NAME.XXXXXX", its path written to
 * tmp), opened for writing with the mode a new file would get: output is
 * written there and renamed over `out` only once complete.  NULL with
 * errno set on failure. */
FILE *util_open_temp(const char *out, char *tmp, size_t n);
/* Finishes it: when `ok` and every write went through, closes f and renames
 * tmp over out; else closes f and removes tmp.  Returns 0 when out holds
 * the whole output, else -1 (errno set by a failed close or rename). */
int util_close_temp(FILE *f, const char *tmp, const char *out, int ok);

#endif
