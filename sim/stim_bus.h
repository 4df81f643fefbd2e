/*
 * stim_bus.h — the stimuli's devices on the chip's buses: an I2C slave on
 * the TWI, an SPI slave behind a chip-select pin, each a register map the
 * firmware reads and writes (docs/stimuli.md, `i2c` and `spi`).  Private
 * to sim/: stimuli.c parses the directives into bus_dev descriptions and
 * binds them here when it binds the rest of a script.
 *
 * As everything else a script drives, what changes while the simulation
 * runs (the register maps, each device's pointer and transfer state)
 * lives in the stimuli runtime's pointer-free state block, so that a
 * checkpoint which copies that block copies the devices too.
 */
#ifndef AVRR_SIM_STIM_BUS_H
#define AVRR_SIM_STIM_BUS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct avr_t;

enum { BUS_I2C = 1, BUS_SPI = 2 };

/* The registers of an I2C device (an 8-bit pointer) and of an SPI device
 * (7 bits: bit 7 of the first byte is the read/write bit). */
enum { BUS_I2C_REGS = 256, BUS_SPI_REGS = 128 };

/* One device as the file gives it: plain data, kept by the script. */
typedef struct bus_dev {
	uint8_t kind;            /* BUS_I2C or BUS_SPI */
	uint8_t addr;            /* I2C: the 7-bit address */
	char port;               /* SPI: the chip-select pin, 'A'..'L' */
	uint8_t bit;             /*      and its bit */
	uint8_t read_set;        /* SPI: bit 7 set in the first byte reads (else it writes) */
	uint8_t fill;            /* SPI: what MISO carries when no register is read */
	size_t line, tcol;       /* its line, and the column of its address or pin */
	uint8_t regs[BUS_I2C_REGS]; /* the register map at power-on (SPI: the first 128) */
} bus_dev;

typedef struct stim_bus stim_bus;

/* Bytes of state block the n devices need (a multiple of 8). */
size_t stim_bus_state_size(size_t n);

/* Binds the n devices of `devs` (which must outlive the bus) to avr's TWI,
 * SPI and chip-select pins, their mutable state at `state` (of
 * stim_bus_state_size(n) bytes, set up here).  Fails with
 * "FILE:LINE:COL: ..." when the MCU lacks what a device needs. */
int stim_bus_attach(struct avr_t *avr, const bus_dev *devs, size_t n, void *state,
		    const char *file, stim_bus **out, avrr_err *err);
/* The chip has reset: every transfer ends.  An SPI device takes its next
 * byte as an address; an I2C device waits for the next START. */
void stim_bus_reset(stim_bus *b);
void stim_bus_detach(stim_bus *b);

#endif
