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

/* The input set by name; those the MCU has are marked in
 * map[0..FP_INPUT_SPACE).  Returns how many. */
extern const char *const devlog_input_names[];
unsigned devlog_inputs(const mcu_names *names, uint8_t *map);

#endif
