/*
 * err.h — how avrr's core reports failure.
 *
 * Every fallible function returns 0 on success and non-zero on failure, and
 * fills the caller's avrr_err with one line saying what went wrong and where
 * (FILE:LINE:COL where it applies).  The core never prints; front-ends do.
 * Messages quote untrusted text (specs, names, file contents), so control
 * bytes are escaped: a message is always one line, safe for a terminal.
 */
#ifndef AVRR_ERR_H
#define AVRR_ERR_H

#include <stdarg.h>
#include <stddef.h>

typedef struct avrr_err {
	char msg[512];
} avrr_err;

/* Formats into err (which may be NULL) and returns -1, so a failing
 * function can say `return avrr_errf(err, "...", ...);`. */
int avrr_errf(avrr_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int avrr_verrf(avrr_err *err, const char *fmt, va_list ap);

/* Copies src into dst (n bytes, NUL-terminated, truncated), with line ends,
 * tabs and other control bytes written as \n, \t, \r and \xNN. */
void avrr_escape(char *dst, size_t n, const char *src);

#endif
