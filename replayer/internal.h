/*
 * internal.h — what the replayer's files share, and no one else: the
 * state of one replay (struct replay) and the calls between its parts.
 *
 * replayer.c is the core every mode runs on: the event check (expect),
 * the injection, divergence, the observers, the hooks and the run.  At
 * each boundary one decider chooses whether an interrupt is entered:
 * decide.c (fingerprint replay) or oracle.c (the oracle, which follows the
 * ground truth and scores many configurations).  index.c loads what they
 * decide from (the log's interrupts, each configuration's D); import.c
 * checks an import's replay against the device log it keeps.
 */
#ifndef AVRR_REPLAYER_INTERNAL_H
#define AVRR_REPLAYER_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "db/cursor.h"
#include "db/db.h"
#include "device/devlog.h"
#include "fingerprint/fingerprint.h"
#include "replayer/batch.h"
#include "replayer/fpindex.h"
#include "replayer/replayer.h"
#include "replayer/score.h"
#include "rerun/cursor.h"
#include "rerun/replica.h"

/* Configurations of the oracle that share a selector share its bytes and
 * each hash function's widest value.  Under set matching, a group whose
 * selector suits batching (batch.h) only queues its boundaries; the rest
 * are evaluated where they happen. */
typedef struct sel_group {
	const fp_config *cfg;       /* the first configuration with this selector */
	unsigned *members;          /* indexes of its configurations */
	unsigned nmembers;
	unsigned hash_bits[FP_HASH_COUNT];  /* the widest any member needs */
	uint8_t buf[FP_MAX_SELECTED];
	const uint8_t *bytes;       /* this boundary's g(s), or NULL if not yet */
	uint32_t n;
	uint64_t h64[FP_HASH_COUNT];
	uint8_t have[FP_HASH_COUNT];
	uint64_t input_key;         /* of g(s), once a hit needs it */
	int have_key;
	rp_batch *batch;            /* NULL: evaluated at each boundary */
} sel_group;

struct replay {
	rp_options o;
	db *d;
	rerun_replica rep;
	sim *s;

	rerun_cursor log;             /* the log, read a chunk at a time as it is consumed */
	trace_event *ev;              /* the whole log, read only when asked (rp_events) */
	size_t nev;
	uint8_t *irq_vector;          /* irq_vector[n-1]: the n-th interrupt's */
	uint32_t *irq_ra;
	size_t nirq;

	/* The ground truth's interrupts (0 when stripped, then unscored):
	 * each one's icount, cycle and vector are its irq event's, read from
	 * the log as the replay comes to it (rp_recorded_interrupt). */
	size_t ntruth, truth_pos;     /* the oracle's next recorded interrupt */
	rp_scorer *scorer;            /* a fingerprint replay's, when scored */

	fp_index fp;                  /* fingerprint replay's D */
	/* Sequence matching one interrupt ahead needs only the next expected
	 * interrupt's fingerprint: then the keys are read a chunk at a time
	 * (streamed), and fp holds the configuration without its D, which is
	 * built only if a false hit has to be classified (full). */
	int streamed;
	db_fp_config fp_stored;       /* the configuration replayed */
	uint32_t fp_config_id;
	fp_index full;
	int have_full;
	FILE *irq_file;               /* the oracle's: index_list_irqs_once */
	db_fps keys;                  /* fpr_key_of's, when streamed */
	uint64_t next_key;            /* the next_n-th's key, when next_n <= nirq */
	uint64_t next_n;              /* the next interrupt expected, in log order */
	/* Fail loud (replayer.h): the seq of the next_n-th irq event (past
	 * it no event may come first; UINT64_MAX: no such check). */
	uint64_t pending_seq;

	fp_index *oracle;             /* oracle: one D per configuration */
	/* Sequence matching on a counted D (fpi_counted), which has no keys
	 * in log order: per configuration, the keys of the interrupts
	 * expected next, read from the recording a chunk at a time. */
	struct oracle_ahead *ahead;
	db_fps ahead_fps;             /* oracle_key's, for each configuration in turn */
	rp_oracle_result *results;
	sel_group *groups;
	size_t nconfigs, ngroups;
	/* The oracle's fast path: the groups' batches, whether any group is
	 * evaluated at each boundary instead, and the icount from which a
	 * boundary needs more than queueing (the next recorded interrupt;
	 * 0 after a divergence). */
	rp_batch **batches;
	size_t nbatches;
	int unbatched;
	uint64_t truth_next;
	sim_tap *tap;                 /* the one batch's, when that is all */

	rp_counters c;
	int scored;                   /* the recording has its ground truth */
	/* The injections made: the first inj_prefix were each the recorded
	 * interrupt of their number, at its icount, so they are not kept (a
	 * faithful replay keeps none); from the first that was not (strayed)
	 * on, inj[] lists them. */
	uint64_t inj_prefix;
	int strayed;
	rp_injection *inj;
	size_t ninj, inj_cap;
	int diverged;
	rp_divergence div;
	volatile int stop;
	rp_observer obs[RP_MAX_OBSERVERS];
	unsigned nobs;
	int broke;                   /* an observer's on_step stopped the run */
	/* An import of a device log (cmd_import.c): its interrupts must come
	 * where the import's replay entered them, and a spec counting sic
	 * reads the device's own counter (the simulator's would count the
	 * calls the read logging added), sic_bytes of it at sic_addr. */
	int import;
	uint16_t sic_addr;
	unsigned sic_bytes;
	/* An import's device log, kept in it (db_get_device_log): each input
	 * read and interrupt of the device, checked as the replay comes to
	 * it; dev_at of them met so far.  The tracer's own Timer1 overflows
	 * (ovf_vector, or -1) and the reads of the log register or of inputs
	 * the device did not log are the import's replay's, not in it. */
	devlog dev;
	size_t ndev, dev_at, dev_reads, dev_irqs;
	int ovf_vector;
	uint16_t log_reg;
	uint8_t device_input[FP_INPUT_SPACE];
};

/* The software instruction counter a fingerprint reads here. */
static inline uint64_t replay_transfers(const replay *r)
{
	if (!r->sic_bytes)
		return sim_transfers(r->s);
	const uint8_t *data = sim_live_data(r->s);
	uint64_t t = 0;
	for (unsigned i = r->sic_bytes; i-- > 0;)
		t = t << 8 | data[r->sic_addr + i];
	return t;
}

/* How a false hit on recorded fingerprint `key` was fooled (OUT_* bits):
 * by a recorded interrupt at the same return address (a loop positive,
 * else an RA one), and by one with the same selector bytes (an input
 * duplicate, else a hash collision; input_key is only read when the index
 * has input keys). */
static inline unsigned replay_false_hit_kind(const fp_index *x, uint64_t key, uint32_t ra, uint64_t input_key)
{
	return (fpi_has_ra(x, key, ra) ? OUT_LOOP : 0) |
	       (fpi_has_input(x, key, input_key) ? OUT_INPUT : 0);
}

/* ---- replayer.c: the core ------------------------------------------- */

void replay_truth_next(replay *r, uint64_t icount);
void replay_diverge(replay *r, unsigned ctx, const char *expected, const char *actual);
void replay_describe_irq(replay *r, uint64_t n, char *buf, size_t len);
void replay_inject(replay *r, uint8_t vector);
int replay_vetoed(replay *r, uint64_t n, uint8_t vector, uint64_t key);
uint64_t replay_expected_with_key(replay *r, const fp_index *x, uint64_t next,
				  uint64_t key);

/* ---- decide.c: the fingerprint decider ------------------------------- */

uint64_t fpr_key_of(replay *r, uint64_t n);
void fpr_on_boundary(void *ud);
int fpr_open(replay *r, const db_fp_config *cfgs, size_t ncfgs, avrr_err *err);

/* ---- oracle.c: the oracle -------------------------------------------- */

void oracle_on_boundary(void *ud);
int oracle_open(replay *r, const db_fp_config *cfgs, size_t ncfgs,
		avrr_err *err);
void oracle_settle(replay *r);
void oracle_close(replay *r);

/* ---- index.c: the log's interrupts and each configuration's D --------- */

int index_log(replay *r, avrr_err *err);
int index_list_irqs(replay *r, avrr_err *err);
int index_batched(const replay *r, const fp_config *c);
void index_list_irqs_once(replay *r);
int index_load_stored(const replay *r, db *d, const db_fp_config *c, fp_index *x,
		      const fp_index *inputs_of, avrr_err *err);
const db_fp_config *index_find_config(const db_fp_config *cfgs, size_t n, const char *name);
int index_load_specs(replay *r, const char *const *specs, unsigned nspecs, fp_index *x,
		     avrr_err *err);
int index_load_all_stored(const replay *r, const db_fp_config **cfg,
			  fp_index *x, size_t n, avrr_err *err);

/* ---- import.c: an import's replay against its device log ------------- */

void import_describe_next(const replay *r, char *buf, size_t n);
void import_check_read(replay *r, uint16_t addr, uint8_t value);
int import_check_irq(replay *r, uint8_t vector, const fp_value *v);
uint64_t import_irq_icount(replay *r, uint64_t n);
int import_open(replay *r, avrr_err *err);
void import_missed(replay *r, uint64_t due);

#endif
