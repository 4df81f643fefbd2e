/*
 * fingerprints.h — fingerprints as the device would have recorded them:
 * one per interrupt per configuration, stored beside the recording.
 *
 * A set of configurations is parsed once against the firmware (so a bad
 * spec fails before any run), stored, and then fed every interrupt point;
 * each gets its fingerprint and, for scoring, the key of its selector bytes.
 */
#ifndef AVRR_FINGERPRINTS_H
#define AVRR_FINGERPRINTS_H

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "sim/sim.h"

#define TRACE_FP_NONE "none"

typedef struct trace_fpset {
	fp_config *cfg;
	uint32_t *ids;   /* each configuration's id in the db, once stored */
	unsigned n;
} trace_fpset;

/* Parses specs[0..nspecs) for the machine `s` runs (names, symbols, data
 * size); with none, the default configuration (fp_default_spec); with
 * the single spec TRACE_FP_NONE, no configuration at all.
 * Unnamed specs are called fp1, fp2, ... in order; a name given twice is
 * an error. */
int trace_fpset_parse(const char *const *specs, unsigned nspecs, const sim *s,
		    trace_fpset *out, avrr_err *err);
/* Stores the configurations (refusing names already in d). */
int trace_fpset_store(trace_fpset *f, db *d, avrr_err *err);
/* Where fingerprint rows go: db_add_fingerprint, or a caller's array. */
typedef int (*trace_fp_sink)(void *ud, const db_fingerprint *row, avrr_err *err);
int trace_fp_to_db(void *d, const db_fingerprint *row, avrr_err *err);

/* Gives the fingerprints of the n-th interrupt, at vector, in state st. */
int trace_fpset_add(const trace_fpset *f, trace_fp_sink sink, void *sink_ud, uint64_t n,
		  uint8_t vector, const fp_state *st, avrr_err *err);
void trace_fpset_free(trace_fpset *f);

/* Computes the fingerprints of every recorded interrupt of the recording
 * open in d under the configurations in set (whose ids are stamped on the
 * rows): from the stored contexts when every interrupt has one, else by
 * re-running the recording, which must then match it interrupt for
 * interrupt (icount, vector, RA, and the context digest where the ground
 * truth is kept).  *rerun tells which. */
int trace_compute_fingerprints(db *d, const trace_fpset *set, trace_fp_sink sink, void *sink_ud,
			     volatile int *interrupted, int *rerun, avrr_err *err);

/* `avrr fingerprint`: adds configurations to the recording at path.  They
 * are computed by trace_compute_fingerprints.  Nothing changes on failure. */
int trace_add_fingerprints(const char *path, const char *const *specs, unsigned nspecs,
			 volatile int *interrupted, int *rerun, avrr_err *err);

#endif
