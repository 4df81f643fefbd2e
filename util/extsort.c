/*
 * extsort.c — an external merge sort of fixed-size records (see extsort.h).
 */
#include "util/extsort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_BYTES 8192   /* each run's read buffer while merging */

int extsort_init(extsort *s, size_t size, size_t run_records, extsort_cmp cmp)
{
	memset(s, 0, sizeof *s);
	s->size = size;
	s->run_records = run_records ? run_records : 1;
	s->cmp = cmp;
	return 0;
}

FILE *extsort_temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof path, "%s/avrr-sort-XXXXXX", dir) >= sizeof path) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	unlink(path);
	FILE *f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

/* Writes the sorted buffer to the file as one more run. */
static int spill(extsort *s)
{
	if (!s->f && !(s->f = extsort_temp_file()))
		return -1;
	if (s->nruns == s->cap_runs) {
		size_t cap = s->cap_runs ? 2 * s->cap_runs : 64;
		uint64_t *r = realloc(s->runs, cap * sizeof *r);
		if (!r)
			return -1;
		s->runs = r;
		s->cap_runs = cap;
	}
	qsort(s->buf, s->n, s->size, s->cmp);
	if (fwrite(s->buf, s->size, s->n, s->f) != s->n)
		return -1;
	s->runs[s->nruns++] = s->n;
	s->n = 0;
	return 0;
}

int extsort_add(extsort *s, const void *rec)
{
	if (!s->buf && !(s->buf = malloc(s->run_records * s->size)))
		return -1;
	if (s->n == s->run_records && spill(s))
		return -1;
	memcpy(s->buf + s->n++ * s->size, rec, s->size);
	return 0;
}

/* Reader r's current record. */
static const char *head(const extsort *s, unsigned r)
{
	return s->rd[r].buf + s->rd[r].pos * s->size;
}

static int less(const extsort *s, unsigned a, unsigned b)
{
	return s->cmp(head(s, a), head(s, b)) < 0;
}

static void sift_down(extsort *s, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i;
		if (l < s->nheap && less(s, s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && less(s, s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		unsigned t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* Fills reader r's buffer from f; 0 with n = 0 when its run is done. */
static int refill(extsort *s, FILE *f, unsigned r)
{
	extsort_reader *x = &s->rd[r];
	size_t cap = READ_BYTES / s->size ? READ_BYTES / s->size : 1;
	size_t k = x->left < cap ? (size_t)x->left : cap;
	x->n = x->pos = 0;
	if (!k)
		return 0;
	if (fseeko(f, (off_t)x->off, SEEK_SET) || fread(x->buf, s->size, k, f) != k) {
		if (!ferror(f))
			errno = EIO;  /* shorter than written: the file changed under us */
		return -1;
	}
	x->off += k * s->size;
	x->left -= k;
	x->n = k;
	return 0;
}

/* Begins merging runs [first, first+k) of f, the first at byte offset off. */
static int merge_begin(extsort *s, FILE *f, size_t first, unsigned k, uint64_t off)
{
	s->nheap = 0;
	for (unsigned r = 0; r < k; r++) {
		extsort_reader *x = &s->rd[r];
		if (!x->buf && !(x->buf = malloc(READ_BYTES > s->size ? READ_BYTES : s->size)))
			return -1;
		x->off = off;
		x->left = s->runs[first + r];
		off += x->left * s->size;
		if (refill(s, f, r))
			return -1;
		if (x->n)
			s->heap[s->nheap++] = r;
	}
	for (unsigned i = s->nheap / 2; i-- > 0;)
		sift_down(s, i);
	return 0;
}

/* The least record of the merge (copied to s->buf, valid until the next
 * call), or NULL when done or on error (*err set). */
static const void *merge_next(extsort *s, FILE *f, int *err)
{
	if (!s->nheap)
		return NULL;
	unsigned r = s->heap[0];
	memcpy(s->buf, head(s, r), s->size);
	extsort_reader *x = &s->rd[r];
	if (++x->pos == x->n) {
		if (refill(s, f, r)) {
			*err = -1;
			return NULL;
		}
		if (!x->n)
			s->heap[0] = s->heap[--s->nheap];
	}
	if (s->nheap)
		sift_down(s, 0);
	return s->buf;
}

/* One pass: the runs merged EXTSORT_FANIN at a time into a new file. */
static int merge_pass(extsort *s)
{
	FILE *g = extsort_temp_file();
	if (!g)
		return -1;
	uint64_t off = 0;
	size_t out = 0;
	for (size_t first = 0; first < s->nruns; first += EXTSORT_FANIN) {
		unsigned k = s->nruns - first < EXTSORT_FANIN ? (unsigned)(s->nruns - first)
							      : EXTSORT_FANIN;
		uint64_t total = 0;
		for (unsigned r = 0; r < k; r++)
			total += s->runs[first + r];
		int err = 0;
		const void *rec;
		if (merge_begin(s, s->f, first, k, off))
			goto fail;
		while ((rec = merge_next(s, s->f, &err)))
			if (fwrite(rec, s->size, 1, g) != 1)
				goto fail;
		if (err)
			goto fail;
		off += total * s->size;
		s->runs[out++] = total;
	}
	if (fflush(g))
		goto fail;
	fclose(s->f);
	s->f = g;
	s->nruns = out;
	return 0;
fail:
	fclose(g);
	return -1;
}

int extsort_sort(extsort *s)
{
	s->pos = 0;
	if (!s->f) {
		if (s->n)
			qsort(s->buf, s->n, s->size, s->cmp);
		return 0;
	}
	if (s->n && spill(s))
		return -1;
	if (fflush(s->f))
		return -1;
	while (s->nruns > EXTSORT_FANIN)
		if (merge_pass(s))
			return -1;
	s->merging = 1;
	return merge_begin(s, s->f, 0, (unsigned)s->nruns, 0);
}

const void *extsort_next(extsort *s, int *err)
{
	*err = 0;
	if (s->merging)
		return merge_next(s, s->f, err);
	return s->pos < s->n ? s->buf + s->pos++ * s->size : NULL;
}

void extsort_free(extsort *s)
{
	free(s->buf);
	free(s->runs);
	for (unsigned r = 0; r < EXTSORT_FANIN; r++)
		free(s->rd[r].buf);
	if (s->f)
		fclose(s->f);
	memset(s, 0, sizeof *s);
}
