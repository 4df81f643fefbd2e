/*
 * chip.h — where simavr 1.6 and the datasheet part ways, put right inside
 * the sim layer (private to sim/; DESIGN.md lists the differences).
 *
 * Each fix wraps simavr's own I/O register callbacks (avr->io[]) before
 * anything else hooks them, so that the recorder's and replayer's hooks,
 * installed later by sim_watch_read/sim_watch_write, see the corrected
 * behaviour.  What a fix must remember between instructions lives in
 * simavr's own structures (the core struct, `data`, the irq values), so
 * that sim snapshots, which copy exactly those, keep it; where simavr has
 * no field for it, a field of the peripheral that the replaced simavr
 * code alone used is reused, and says so where it is.
 *
 *  - pins (chip_pins.c): a write of 1 to a PINx bit toggles PORTx
 *    (datasheet, "Toggling the Pin"), and is a PORTx write for the
 *    hooks; SBI/CBI on PINx touch the addressed bit only and read no
 *    input.  Parts whose PINx are read-only ignore such writes.
 *
 * The timers, the watchdog, the USARTs and the TWI are avrr's own models
 * (periph.h).
 */
#ifndef AVRR_SIM_CHIP_H
#define AVRR_SIM_CHIP_H

#include <stdint.h>

#include "sim/ioregs.h"

struct avr_t;
typedef struct chip chip;

/* Wraps simavr's callbacks for `mcu`; call once after avr_init and before
 * any sim_watch_*.  NULL when out of memory. */
chip *chip_open(struct avr_t *avr, const char *mcu);
void chip_close(chip *c);

/* Whether the instruction executing now is an SBI or CBI on data address
 * `addr`, a PINx register: its read of PINx is part of a bit write, not an
 * input read. */
int chip_pin_bit_write(const chip *c, uint16_t addr);
/* Whether data address `addr` is a PINx register chip_pin_bit_write may
 * answer 1 for (fixed once chip_open returns). */
int chip_is_pin(const chip *c, uint16_t addr);

/* ---- private to the chip_*.c files ---------------------------------- */

#include <sim_avr.h>

/* One wrapped callback of an I/O slot: what simavr had there, and the
 * device the wrapper serves. */
typedef struct chip_wrap {
	chip *c;
	avr_io_read_t orig_read;
	avr_io_write_t orig_write;
	void *orig_param;
	void *dev;              /* the simavr peripheral */
	int kind;               /* which wrapper (the file's own enum) */
} chip_wrap;

struct chip {
	struct avr_t *avr;
	int pins_read_only;     /* PINx cannot be written on this part */
	chip_wrap *wraps;       /* reads of slot i at i, writes at MAX_IOs + i */
};

/* Puts read (write) callback fn at data address addr, with the new wrap
 * as its parameter, keeping simavr's callback in the wrap.  Returns the
 * wrap, or NULL when addr is no I/O slot or already wrapped. */
chip_wrap *chip_wrap_read(chip *c, uint16_t addr, avr_io_read_t fn, void *dev, int kind);
chip_wrap *chip_wrap_write(chip *c, uint16_t addr, avr_io_write_t fn, void *dev, int kind);
/* The read (write) wrap at data address addr, or NULL. */
chip_wrap *chip_read_wrap_at(const chip *c, uint16_t addr);
chip_wrap *chip_write_wrap_at(const chip *c, uint16_t addr);
/* Calls the original callback (or does what simavr does without one). */
uint8_t chip_orig_read(chip_wrap *w, struct avr_t *avr, uint16_t addr);
void chip_orig_write(chip_wrap *w, struct avr_t *avr, uint16_t addr, uint8_t v);
/* Writes to data address addr through whatever callback is there now
 * (the hooks' included), as an instruction's store would. */
void chip_store(struct avr_t *avr, uint16_t addr, uint8_t v);

void chip_pins_init(chip *c, const char *mcu);

#endif
