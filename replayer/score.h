/*
 * score.h — scoring a fingerprint replay against the ground truth: one of
 * the replay's observers (replayer.h), told of each injection before it is
 * made and of each run slice's end.
 *
 * The scorer walks the recorded interrupts alongside the replay.  An
 * injection is correct when it is the next recorded interrupt, at its
 * icount, with its vector; else it is a false loop or RA positive, by an
 * input duplicate or a hash collision (docs/replay.md).  A recorded
 * interrupt the replay went past without taking is missed.  Unless told to
 * keep going, the first false or missed interrupt stops the replay right
 * there, before any wrong entry, with a divergence that says which.
 */
#ifndef AVRR_SCORE_H
#define AVRR_SCORE_H

#include "db/db.h"
#include "replayer/replayer.h"

typedef struct rp_scorer rp_scorer;

/* Scores replay r against its n recorded interrupts (read from its log as
 * it comes to them: rp_recorded_interrupt), counting into c, and observes r
 * from now on; `stops`: the first wrong step stops the replay.  NULL (err)
 * when r has no room for another observer, or memory is short. */
rp_scorer *score_attach(replay *r, size_t n, int stops, rp_counters *c, avrr_err *err);
/* Counts as missed the recorded interrupts before icount `upto` that the
 * replay did not take. */
void score_settle(rp_scorer *sc, uint64_t upto);
void score_free(rp_scorer *sc);

#endif
