/* file.c — reading whole text files (see file.h). */
#include "util/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *util_read_text(const char *path, avrr_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		avrr_errf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		len += fread(buf + len, 1, cap - len - 1, f);
		if (len < cap - 1)
			break;
		char *n = cap < (16u << 20) ? realloc(buf, cap *= 2) : NULL;
		if (!n) {
			free(buf);
			buf = NULL;
			avrr_errf(err, "%s: too large for a text file (over 16 MiB)", path);
			fclose(f);
			return NULL;
		}
		buf = n;
	}
	if (!buf) {
		avrr_errf(err, "out of memory");
	} else if (ferror(f)) {
		avrr_errf(err, "%s: read error (is it a directory?)", path);
		free(buf);
		buf = NULL;
	} else {
		buf[len] = 0;
		if (strlen(buf) != len) {
			avrr_errf(err, "%s: not a text file (contains NUL bytes)", path);
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int util_write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

FILE *util_open_temp(const char *out, char *tmp, size_t n)
{
	const char *slash = strrchr(out, '/');
	int dirlen = slash ? (int)(slash - out + 1) : 0;
	snprintf(tmp, n, "%.*s.%s.XXXXXX", dirlen, out, slash ? slash + 1 : out);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
	}
	return f;
}

int util_close_temp(FILE *f, const char *tmp, const char *out, int ok)
{
	ok = ok && !ferror(f);
	if (fclose(f))
		ok = 0;
	if (ok && rename(tmp, out) == 0)
		return 0;
	int e = errno;
	unlink(tmp);
	errno = e;
	return -1;
}
