/*
 * stimuli.h — the outside world, as a script (see docs/stimuli.md).
 *
 * Two halves.  stim_parse() turns the text of a stimuli file into a
 * stim_script: pure, no simulator needed, so it is unit-tested on its own.
 * stim_attach() binds a script to a running simavr core: it registers cycle
 * timers for timed events (UART bytes, pin levels), listens to the ADC's
 * conversion trigger to answer with the channel's value in millivolts, and
 * puts the file's I2C and SPI devices on the chip's buses (stim_bus.c).
 *
 * All state that changes while the simulation runs (PRNG streams, the next
 * index of a sequence, the next occurrence of a periodic event) lives in the
 * stim_runtime's `state` block: plain data, no pointers, of `state_size`
 * bytes, so a checkpoint of the simulator can copy it and restore it.
 */
#ifndef AVRR_STIMULI_H
#define AVRR_STIMULI_H

#include <stdint.h>

#include "util/err.h"

struct avr_t;

typedef struct stim_script stim_script;
typedef struct stim_runtime stim_runtime;

/* Parses `text` (NUL-terminated).  `filename` is only used in messages.
 * On a malformed line returns non-zero with err = "FILE:LINE:COL: message". */
int stim_parse(const char *text, const char *filename, stim_script **out,
	       avrr_err *err);
void stim_free(stim_script *script);

/* The `seed` directive's value, or 0 when the file has none. */
uint64_t stim_default_seed(const stim_script *script);

/* Binds the script to `avr` (after avr_init/reset, before the first
 * instruction), drawing randomness from `seed`, converting times at
 * avr->frequency.  Fails with "FILE:LINE:COL: ..." if the MCU lacks a
 * peripheral the script drives.  The script must outlive the runtime. */
int stim_attach(const stim_script *script, struct avr_t *avr, uint64_t seed,
		stim_runtime **out, avrr_err *err);
void stim_detach(stim_runtime *rt);
/* After the chip reset (which cancels every cycle timer): schedules the
 * next pending event again, at its own time; the bus devices' transfers
 * end (stim_bus.h). */
void stim_rearm(stim_runtime *rt);

/* The runtime's mutable state, for checkpoints (see the header note). */
void *stim_state(stim_runtime *rt);
uint32_t stim_state_size(const stim_runtime *rt);

#endif
