/* err.c — formatting of avrr_err (see err.h). */
#include "err.h"

#include <stdio.h>

int avrr_verrf(avrr_err *err, const char *fmt, va_list ap)
{
	if (err)
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
