/*
 * sweep.h — the oracle over a grid of fingerprint configurations
 * (selectors × widths or hash bits × hashes × ra bits, in each matching
 * mode) for one or more recordings, written as one tidy CSV
 * (docs/sweep.md); and the same grid in shards, for a cluster, joined
 * again by sweep_merge.
 *
 * The engine prints nothing: failures come back in an avrr_err, progress
 * through a callback.  Work runs in forked processes (sweep_run).
 */
#ifndef AVRR_SWEEP_H
#define AVRR_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

#define SWEEP_LIST_MAX 64    /* values per list of the grid */
#define SWEEP_SPEC_MAX 512   /* what a stored spec may hold (fp_config.spec) */
#define SWEEP_NHASH 5

/* The names the CSV gives hash functions and matching modes; a grid holds
 * indexes into them. */
extern const char *const sweep_hash_names[SWEEP_NHASH];  /* modular ... rr */
extern const char *const sweep_match_names[2];           /* set, sequence */

typedef struct sweep_grid {
	char *const *recs;                    /* the recordings' paths, as given */
	unsigned nrecs;
	unsigned width[SWEEP_LIST_MAX], nwidth;
	/* Instead of widths (nhash_bits > 0): each point's width is its hash
	 * bits + ra + its selector's counter bits, so that the hash keeps its
	 * bits as counters are added; a point wider than 64 bits is left out. */
	unsigned hash_bits[SWEEP_LIST_MAX], nhash_bits;
	unsigned ra[SWEEP_LIST_MAX], nra;     /* a point with ra + counters > width is left out */
	unsigned hash[SWEEP_NHASH], nhash;
	unsigned match[2], nmatch;
	const char *sel[SWEEP_LIST_MAX];      /* none: each recording's paper selector */
	unsigned nsel;
} sweep_grid;

typedef struct sweep sweep;

typedef enum { SWEEP_OK, SWEEP_FAILED, SWEEP_INTERRUPTED } sweep_status;

/* Checks every recording (an avrr recording that keeps its ground truth)
 * and every spec of the grid against its firmware, before any work, and
 * plans the work.  g's strings must outlive the sweep. */
int sweep_plan(const sweep_grid *g, sweep **out, avrr_err *err);

/* Limits the work and the CSV to shard k of n (1 <= k <= n): the k-th of n
 * contiguous runs of oracle passes.  Without it, the whole grid. */
void sweep_select_shard(sweep *sw, unsigned k, unsigned n);

/* Runs the oracle passes, up to `jobs` at once in worker processes, until
 * done, the first failure (err says which recording and why) or
 * *interrupted; progress(ud, done, total) after each pass, if given. */
sweep_status sweep_run(sweep *sw, unsigned jobs, volatile int *interrupted,
		       void (*progress)(void *ud, size_t done, size_t total), void *ud,
		       avrr_err *err);

/* The CSV of what sweep_run computed: with a shard, its first line names
 * the shard and a key of the whole grid.  -1 on a write error. */
int sweep_write_csv(const sweep *sw, FILE *f);

void sweep_free(sweep *sw);

/* Joins the CSVs of the n shards of one grid, given in any order, into
 * the CSV the whole sweep writes, to `out`; refuses (writing nothing) a
 * file that is no shard, shards of different grids, a shard twice or one
 * missing. */
int sweep_merge(char *const *parts, unsigned n, FILE *out, avrr_err *err);

#endif
