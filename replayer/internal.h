/*
 * internal.h — what the replayer's files share, and no one else: the
 * state of one replay (struct replay) and the calls between its parts.
 *
 * replayer.c is the core every mode runs on: the event check (expect),
 * the injection, divergence, the observers, the hooks and the run.  At
 * each boundary one decider (rp_decider) chooses whether an interrupt is
 * entered: decide.c's (fingerprint replay) or oracle.c's (the oracle,
 * which follows the ground truth and scores many configurations); the
 * core calls only the table.  index.c loads what they decide from (the
 * log's interrupts, each configuration's D).  Two observers watch a
 * fingerprint replay as a front-end's would: the scorer (score.c) and an
 * import's checks against the device log it keeps (import.c).
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

/* A decider: what one mode does at each boundary (whether an interrupt
 * is entered there) and around the run.  The core calls it, never a mode
 * by name. */
typedef struct rp_decider {
	/* Readies r to decide, from the stored configurations cfgs[0..ncfgs). */
	int (*open)(replay *r, const db_fp_config *cfgs, size_t ncfgs, avrr_err *err);
	void (*on_boundary)(void *ud);       /* the sim's boundary hook, ud = r */
	/* Once the hooks are set: its observers (NULL: none). */
	int (*attach)(replay *r, avrr_err *err);
	int (*reads_sic)(const replay *r);   /* whether a configuration counts sic */
	void (*count)(replay *r);            /* r->c brought up to here */
	const char *(*config_name)(const replay *r);
	void (*settle)(replay *r);           /* at the end of rp_run (NULL: nothing) */
	void (*close)(replay *r);            /* what open made, as far as it came */
} rp_decider;

struct replay {
	rp_options o;
	const rp_decider *dec;        /* the mode's: fpr_decider or oracle_decider */
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
	struct rp_scorer *scorer;     /* a fingerprint replay's, when scored */

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
	struct rp_import *imp;        /* its checks against the device log (import.c) */
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
int replay_counts_sic(const fp_config *c);
/* rp_recorded_interrupt's failure: diverges, -1. */
int replay_irq_unreadable(replay *r);

/* rp_recorded_interrupt, inline: the oracle asks it at every boundary it
 * evaluates.  As a call from oracle.c it cost oracle85 0.3 % more host
 * instructions (callgrind); inline, an unbatched oracle over adcapp runs
 * 6 % fewer than when it was a call within one file. */
static inline int replay_recorded_irq(replay *r, uint64_t n, db_interrupt *q)
{
	const trace_event *e = rerun_cursor_irq(&r->log, n);
	if (!e)
		return replay_irq_unreadable(r);
	*q = (db_interrupt){ .idx = n, .icount = e->icount, .cycle = e->cycle, .vector = e->addr,
			     .ra = e->value };
	return 0;
}

/* Sequence matching: the first of the `window` interrupts expected from
 * the next-th on whose key is `key` and that the log's order allows here,
 * or 0.  Inline: both deciders ask it at each boundary they look up. */
static inline uint64_t replay_expected_with_key(replay *r, const fp_index *x, uint64_t next,
						uint64_t key)
{
	for (uint64_t n = next; n < next + r->o.window && n <= r->nirq; n++)
		if (x->key_of[n - 1] == key && rerun_cursor_in_order(&r->log, n, sim_running_vector(r->s)))
			return n;
	return 0;
}
void replay_diverge(replay *r, unsigned ctx, const char *expected, const char *actual);
void replay_describe_irq(replay *r, uint64_t n, char *buf, size_t len);
void replay_inject(replay *r, uint8_t vector);
int replay_vetoed(replay *r, uint64_t n, uint8_t vector, uint64_t key, const fp_value *v);

/* ---- decide.c: the fingerprint decider ------------------------------- */

extern const rp_decider fpr_decider;

/* ---- oracle.c: the oracle -------------------------------------------- */

extern const rp_decider oracle_decider;

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

typedef struct rp_import rp_import;
/* Reads the device log the import keeps into r->imp (freed by
 * import_free, failing or not). */
int import_open(replay *r, avrr_err *err);
/* Watches the device's inputs trace/log.h does not trace. */
int import_watch_inputs(rp_import *m, avrr_err *err);
/* Observes the replay from now on: its checks, before any other
 * observer's. */
int import_attach(rp_import *m, avrr_err *err);
/* At the end of the recording: the device's log must be consumed too. */
void import_check_end(rp_import *m);
void import_free(rp_import *m);       /* NULL: nothing */

#endif
