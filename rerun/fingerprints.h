/*
 * fingerprints.h — fingerprints as the device would have recorded them:
 * one per interrupt per configuration, stored beside the recording.
 *
 * A set of configurations is parsed once against the firmware (so a bad
 * spec fails before any run), stored, and then fed every interrupt point;
 * each gets its fingerprint and, for scoring, the key of its selector bytes.
 */
#ifndef AVRR_RERUN_FINGERPRINTS_H
#define AVRR_RERUN_FINGERPRINTS_H

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "sim/sim.h"

#define RERUN_FP_NONE "none"

typedef struct rerun_fpset {
	fp_config *cfg;
	uint32_t *ids;   /* each configuration's id in the db, once stored */
	unsigned n;
} rerun_fpset;

/* Parses specs[0..nspecs) for the machine `s` runs (names, symbols, data
 * size); with none, the default configuration (fp_default_spec); with
 * the single spec RERUN_FP_NONE, no configuration at all.
 * Unnamed specs are called fp1, fp2, ... in order; a name given twice is
 * an error. */
int rerun_fpset_parse(const char *const *specs, unsigned nspecs, const sim *s,
		    rerun_fpset *out, avrr_err *err);
/* Stores the configurations (refusing names already in d). */
int rerun_fpset_store(rerun_fpset *f, db *d, avrr_err *err);
/* Where fingerprint rows go: db_add_fingerprint, or a caller's array. */
typedef int (*rerun_fp_sink)(void *ud, const db_fingerprint *row, avrr_err *err);
int rerun_fp_to_db(void *d, const db_fingerprint *row, avrr_err *err);

/* Gives the fingerprints of the n-th interrupt, at vector, in state st. */
int rerun_fpset_add(const rerun_fpset *f, rerun_fp_sink sink, void *sink_ud, uint64_t n,
		  uint8_t vector, const fp_state *st, avrr_err *err);
void rerun_fpset_free(rerun_fpset *f);

/* Computes the fingerprints of every recorded interrupt of the recording
 * open in d under the configurations in set (whose ids are stamped on the
 * rows): from the stored contexts when every interrupt has one, else by
 * re-running the recording, which must then match it interrupt for
 * interrupt (icount, vector, RA, and the context digest where the ground
 * truth is kept).  *rerun tells which. */
int rerun_fingerprints(db *d, const rerun_fpset *set, rerun_fp_sink sink, void *sink_ud,
		       volatile int *interrupted, int *rerun, avrr_err *err);

#endif
