/*
 * metrics.h — record-time quality of a fingerprint configuration
 * (DESIGN.md "What error counting counts", Gracioli & Fischmeister §5.2).
 *
 * Over the interrupts of one recording, under one configuration:
 *   fingerprints      how many (one per interrupt)
 *   distinct          distinct fingerprint values
 *   duplicates        distinct contexts whose fingerprint another distinct
 *                     context shares (repeats of one context are no error)
 *   median_duplicates_per_ra
 *                     Fig. 6's measure: among distinct contexts, for each
 *                     ra prefix, the median over its hash values of the
 *                     collisions there (contexts with that value, minus
 *                     one); then the median of those over the prefixes
 *   input_duplicates  distinct contexts whose selector bytes g(s) another
 *                     distinct context shares: false input duplicates
 * The last three need the ground truth (context digests and input keys).
 */
#ifndef AVRR_METRICS_H
#define AVRR_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fp_sample {
	uint64_t ra_part, hash_part;
	uint64_t input_key;       /* equal keys = equal g(s) */
	uint8_t context[8];       /* digest of the whole context and RA (as stored) */
} fp_sample;

typedef struct fp_metrics {
	uint64_t fingerprints;
	uint64_t distinct;
	int has_truth;            /* the three below are valid */
	uint64_t duplicates;
	double median_duplicates_per_ra;
	uint64_t input_duplicates;
} fp_metrics;

/* The metrics streamed: fp_metrics_begin, fp_metrics_add each interrupt's
 * sample in the order of the interrupts, fp_metrics_end (which frees the
 * accumulator, as fp_metrics_free does one abandoned).  Memory is bounded
 * whatever the number of samples (they spill to temporary files; see
 * metrics.c).  Without ground truth (has_truth 0) only the first two are
 * computed.  Each returns 0, or -1 when out of memory or a temporary file
 * fails (errno set). */
typedef struct fp_metrics_acc fp_metrics_acc;
int fp_metrics_begin(fp_metrics_acc **out);
int fp_metrics_add(fp_metrics_acc *a, const fp_sample *s);
int fp_metrics_end(fp_metrics_acc *a, int has_truth, fp_metrics *m);
void fp_metrics_free(fp_metrics_acc *a);

/* The same over samples[0..n), given in the order of the interrupts. */
int fp_metrics_compute(fp_sample *samples, size_t n, int has_truth, fp_metrics *m);

#endif
