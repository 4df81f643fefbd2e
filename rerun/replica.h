/*
 * replica.h — the recorded machine, rebuilt from a recording alone.
 *
 * A recording keeps everything its run depended on: the firmware ELF, the
 * MCU and clock, the stimuli text and the seed.  A replica is a fresh sim
 * set up from those, at reset, with the stimuli attached — the starting
 * point of a deterministic re-run and of a replay.
 */
#ifndef AVRR_RERUN_REPLICA_H
#define AVRR_RERUN_REPLICA_H

#include "db/db.h"
#include "sim/sim.h"

typedef struct rerun_replica {
	db_run run;
	firmware *fw;
	stim_script *script;  /* NULL when recorded without stimuli */
	sim *s;
} rerun_replica;

/* Builds the replica of the recording open in d.  On failure nothing is
 * left to free. */
int rerun_replica_open(db *d, rerun_replica *out, avrr_err *err);
/* The same with its firmware loaded through fc (sim/firmware.h; NULL:
 * none), for a caller that builds replicas of one ELF again and again. */
int rerun_replica_open_cached(db *d, fw_cache *fc, rerun_replica *out, avrr_err *err);
void rerun_replica_close(rerun_replica *r);

/* The digest of the context at interrupt point p as the ground truth
 * keeps it (its data, then its RA as 4 bytes LE; util/digest.h), for the
 * recorder that stores it and a re-run that must match it.  0, or -1 when
 * out of memory. */
int rerun_digest(const sim_irq_point *p, uint8_t dg[DB_DIGEST_SIZE]);

#endif
