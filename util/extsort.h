/*
 * extsort.h — sorting more fixed-size records than memory should hold:
 * fingerprint/metrics.c's distinct-value counts over every interrupt of a
 * run of any length.
 *
 * Records are added one at a time.  Up to `run_records` of them are held
 * in memory; past that each full buffer is sorted and written to an
 * unlinked temporary file (in $TMPDIR, else /tmp) as a run, and at the end the runs
 * are merged, EXTSORT_FANIN at a time (in passes when there are more), so
 * memory stays at the buffer plus EXTSORT_FANIN small read buffers however
 * many records there are.  A run that fits in memory never touches a file.
 *
 * Written here rather than taken from a library: Debian has no C library
 * for an external sort of in-process records, and SQLite's own sorter (a
 * temporary table read back in order) would bind and step a statement for
 * every record of every interrupt, where this is a memcpy and a qsort.
 *
 * The order is cmp's; records it calls equal come out in no set order, so
 * where that matters a record carries its own tie-breaker.
 *
 * Use: extsort_init, extsort_add each record, extsort_sort once, then
 * extsort_next until it returns NULL, extsort_free.  Every int function
 * returns 0, or -1 with errno set (ENOMEM, or the file's error).
 */
#ifndef AVRR_UTIL_EXTSORT_H
#define AVRR_UTIL_EXTSORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXTSORT_FANIN 64

typedef int (*extsort_cmp)(const void *a, const void *b);

/* One run being read back: where it is in the file and a buffer of it. */
typedef struct extsort_reader {
	uint64_t off, left;   /* next record's byte offset; records not yet buffered */
	char *buf;
	size_t n, pos;        /* records buffered; the next one */
} extsort_reader;

typedef struct extsort {
	size_t size;          /* of a record */
	size_t run_records;   /* held in memory at most */
	extsort_cmp cmp;
	char *buf;            /* the run being filled (sorted by extsort_sort) */
	size_t n, pos;        /* records in buf; the next to return */
	FILE *f;              /* the runs written, or NULL */
	uint64_t *runs;       /* each run's record count, in file order */
	size_t nruns, cap_runs;
	extsort_reader rd[EXTSORT_FANIN];
	unsigned heap[EXTSORT_FANIN], nheap;  /* readers, least record first */
	int merging;          /* extsort_next reads the runs, not buf */
} extsort;

/* An empty sorter of `size`-byte records, at most run_records in memory. */
int extsort_init(extsort *s, size_t size, size_t run_records, extsort_cmp cmp);
int extsort_add(extsort *s, const void *rec);
int extsort_sort(extsort *s);
/* The next record in order (valid until the next call), or NULL at the end
 * or on a read error (then *err is -1 with errno set). */
const void *extsort_next(extsort *s, int *err);
void extsort_free(extsort *s);
/* An unlinked temporary file in $TMPDIR (else /tmp), which tmpfile(3)
 * would not look at, open for update; NULL with errno set.  The runs go
 * there, and so may a caller's own sorted output. */
FILE *extsort_temp_file(void);

#endif
