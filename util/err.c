/* err.c — formatting of avrr_err (see err.h). */
#include "util/err.h"

#include <stdio.h>
#include <string.h>

void avrr_escape(char *dst, size_t n, const char *src)
{
	size_t k = 0;
	for (const unsigned char *p = (const unsigned char *)src; *p && k + 1 < n; p++) {
		char esc[8];
		if (*p >= 0x20 && *p != 0x7f) {
			dst[k++] = (char)*p;
			continue;
		}
		if (*p == '\n' || *p == '\t' || *p == '\r')
			snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
		else
			snprintf(esc, sizeof esc, "\\x%02x", *p);
		size_t len = strlen(esc);
		if (k + len >= n)
			break;
		memcpy(dst + k, esc, len);
		k += len;
	}
	if (n)
		dst[k] = 0;
}

int avrr_verrf(avrr_err *err, const char *fmt, va_list ap)
{
	if (err) {
		char raw[sizeof err->msg];
		vsnprintf(raw, sizeof raw, fmt, ap);
		avrr_escape(err->msg, sizeof err->msg, raw);
	}
	return -1;
}

int avrr_errf(avrr_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	avrr_verrf(err, fmt, ap);
	va_end(ap);
	return -1;
}
