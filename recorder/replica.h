/*
 * replica.h — the recorded machine, rebuilt from a recording alone.
 *
 * A recording keeps everything its run depended on: the firmware ELF, the
 * MCU and clock, the stimuli text and the seed.  A replica is a fresh sim
 * set up from those, at reset, with the stimuli attached — the starting
 * point of a deterministic re-run and of a replay.
 */
#ifndef AVRR_REPLICA_H
#define AVRR_REPLICA_H

#include "db/db.h"
#include "sim/sim.h"

typedef struct trace_replica {
	db_run run;
	firmware *fw;
	stim_script *script;  /* NULL when recorded without stimuli */
	sim *s;
} trace_replica;

/* Builds the replica of the recording open in d.  On failure nothing is
 * left to free. */
int trace_replica_open(db *d, trace_replica *out, avrr_err *err);
/* The same with its firmware loaded through fc (sim/firmware.h; NULL:
 * none), for a caller that builds replicas of one ELF again and again. */
int trace_replica_open_cached(db *d, fw_cache *fc, trace_replica *out, avrr_err *err);
void trace_replica_close(trace_replica *r);

#endif
