/*
 * report.h — the replay's own reports as text, for every front-end: the
 * shell prints them to the terminal, the gdb server sends them as console
 * output of `monitor` commands.
 */
#ifndef AVRR_REPORT_H
#define AVRR_REPORT_H

#include <stdio.h>

#include "../replayer/replayer.h"

/* `errors`: the configuration and the replay's counters up to here. */
void report_errors(FILE *out, replay *r);

/* `info irqs`: the recorded interrupts within 5 of here (all when `all`),
 * each with its fate — correct, missed, pending — and the false
 * injections between them. */
void report_irqs(FILE *out, replay *r, int all);

/* `info fingerprint`: the fingerprint here under each stored
 * configuration, and whether it is in D.  Returns 0, or -1 (err). */
int report_fingerprint(FILE *out, replay *r, avrr_err *err);

/* `info divergence`. */
void report_divergence(FILE *out, const replay *r);

#endif
