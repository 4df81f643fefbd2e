/*
 * ioregs.h — per-MCU I/O register and interrupt vector names.
 *
 * The tables are generated at build time from avr-libc's own headers
 * (scripts/gen-ioregs.sh), so names match the datasheet and avr-libc.
 */
#ifndef AVRR_IOREGS_H
#define AVRR_IOREGS_H

#include "ioregs_gen.h"

/* The tables for `mcu` (e.g. "atmega16"), or NULL when avrr has none. */
const mcu_names *ioregs_lookup(const char *mcu);

#endif
