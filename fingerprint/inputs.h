/*
 * inputs.h — the input set: the registers the outside world feeds, which
 * a device log records and the tracer's instrumentation logs
 * (docs/device.md, "Input reads").  It lives below both: the tracer
 * (fingerprint/tracer.c) generates the logging code, the device log's
 * host side (device/) reads what it logged.  The names keep the device
 * log's prefix, the one place that states the set.
 */
#ifndef AVRR_INPUTS_H
#define AVRR_INPUTS_H

#include <stdint.h>

#include "fingerprint/instrument.h"
#include "sim/ioregs.h"

/* One register of the input set: its name as the datasheets spell it,
 * the bits the outside world drives (the rest the simulation re-creates;
 * the device logs the byte it read, whole), and those bits in words.
 * The table ends with a NULL name. */
typedef struct devlog_input {
	const char *name;
	uint8_t outside;
	const char *bits;
} devlog_input;
extern const devlog_input devlog_input_table[];
/* The input set: those of the table the MCU has are marked in
 * map[0..FP_INPUT_SPACE).  Returns how many. */
unsigned devlog_inputs(const mcu_names *names, uint8_t *map);

#endif
