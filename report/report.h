/*
 * report.h — the replay's own reports as text, for every front-end: the
 * shell prints them to the terminal, the gdb server sends them as console
 * output of `monitor` commands.
 */
#ifndef AVRR_REPORT_H
#define AVRR_REPORT_H

#include <stdio.h>

#include "replayer/replayer.h"

/* `errors`: the configuration and the replay's counters up to here. */
void report_errors(FILE *out, replay *r);

/* `info irqs`: the recorded interrupts within 5 of here (all when `all`),
 * each with its fate — correct, missed, pending — and the false
 * injections between them. */
void report_irqs(FILE *out, replay *r, int all);

/* `info fingerprint`: the fingerprint here under each stored
 * configuration, and whether it is in D.  Returns 0, or -1 (err). */
int report_fingerprint(FILE *out, replay *r, avrr_err *err);

/* `info uart [N]`: the text UART n (every UART that sent any, n < 0)
 * sent before here — the log's writes to its data register — a line at a
 * time, escaped (trace/uart.h). */
void report_uart(FILE *out, replay *r, int n);

/* `info divergence`. */
void report_divergence(FILE *out, const replay *r);

#endif
