/*
 * session.h — an analysis runs on the replay proper: the recording played
 * back from its fingerprints (the default ones, with sequence matching,
 * unless told otherwise) as `avrr replay` does, its observers (replayer.h) told of every instruction,
 * access and interrupt.  Heavy analyses the device could never afford run
 * here, after the fact (the point of Song & Lee's P-Replayer).
 *
 * Faithful or loud: an analysis of a replay that went wrong would describe
 * some other run, so a divergence, a false or missed interrupt or a CPU
 * that stops early fails the whole analysis, saying where.
 */
#ifndef AVRR_ANALYZE_SESSION_H
#define AVRR_ANALYZE_SESSION_H

#include <stdint.h>

#include "replayer/replayer.h"
#include "dwarf/lines.h"
#include "util/err.h"

typedef struct an_session {
	const char *path;           /* the recording's */
	replay *r;
	sim *s;
	const firmware *fw;
	src_lines *lines;           /* the firmware's line table (may have no rows) */
	volatile int *interrupted;
} an_session;

/* Opens the replay of the recording at path with o's configuration and
 * matching (--fp, --match, --window; NULL: the default configuration,
 * sequence matching). */
int an_open(const char *path, const rp_options *o, volatile int *interrupted, an_session *out,
	    avrr_err *err);
void an_close(an_session *a);

/* Replays to the end, calling progress(ud, done, total) now and then (may be
 * NULL).  Returns 0, or -1 (err) when the replay did not re-create the
 * recorded run or was interrupted (*interrupted set). */
int an_run(an_session *a, void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
	   avrr_err *err);

/* Where byte address pc is in the source: "race.c:25" (the file's last
 * component), else "symbol+0xoff", else "0x1234". */
void an_where(const an_session *a, uint32_t pc, char *buf, size_t n);

/* The name of the context: "main", or the vector's ("TIMER0_OVF_vect", or
 * "vector 16" when the MCU's tables do not name it). */
void an_context_name(const an_session *a, unsigned ctx, char *buf, size_t n);

#endif
