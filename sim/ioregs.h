/*
 * ioregs.h — per-MCU I/O register and interrupt vector names.
 *
 * The tables are generated at build time from avr-libc's own headers
 * (scripts/gen-ioregs.sh), so names match the datasheet and avr-libc.
 * There is one for each name of every MCU the installed libsimavr
 * simulates (scripts/simavr-mcus.c lists them), avr-gcc knowing the part.
 */
#ifndef AVRR_IOREGS_H
#define AVRR_IOREGS_H

#include "ioregs_gen.h"

/* The tables for `mcu` (e.g. "atmega16"), or NULL when avrr has none. */
const mcu_names *ioregs_lookup(const char *mcu);

/* Lookups in one MCU's tables; `names` may be NULL (nothing is found). */
int ioregs_addr(const mcu_names *names, const char *name);           /* -1 if none */
const char *ioregs_name(const mcu_names *names, uint16_t addr);      /* NULL if none */
const char *ioregs_vector_name(const mcu_names *names, unsigned vector); /* NULL if none */

/* The end of the I/O space in data addresses: 0x100 on parts with extended
 * I/O (registers at 0x60 and up), else 0x60, where SRAM starts. */
uint16_t ioregs_io_end(const mcu_names *names);

#endif
