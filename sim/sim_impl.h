/*
 * sim_impl.h — the inside of a sim, for sim/'s own files.
 *
 * Every other layer holds a sim by pointer and goes through sim.h's
 * functions, so that what a sim keeps, and the rules between its fields
 * (who resets boundary_gap, which hooks a run reads once as it starts),
 * stay beside the loop that depends on them.  scripts/layers.py refuses
 * an include of this header from another folder; the tests that drive
 * simavr's core directly (a register poked, a peripheral's IRQ) include
 * it, and say so.
 */
#ifndef AVRR_SIM_IMPL_H
#define AVRR_SIM_IMPL_H

#include "sim/sim.h"

struct periphs;

struct sim {
	struct sim_hot hot;     /* first: sim.h's inline accessors read it */
	struct avr_t *avr;
	const firmware *fw;
	const mcu_names *names; /* the MCU's register and vector names; may be NULL */
	char mcu[64];
	uint32_t frequency;
	int count_transfers;     /* 0: leave transfers alone (sim_count_transfers) */
	uint64_t reset_cycle;    /* the cycle of the last reset: sim_timer_cycles */
	/* Per flash word how its instruction counts (hot.transfers): bit 0
	 * when it transfers to an address at or below its own, bit 1 when
	 * forward. */
	uint8_t *transfer_kind;
	uint32_t transfer_words; /* entries in transfer_kind, a power of two */
	sim_hooks hooks;
	uint8_t *pre;           /* scratch: the data space at an interrupt point */
	void (*observe_fn)(void *ud, uint64_t cycle, uint8_t vector);
	void *observe_ud;
	uint8_t observe_depth;
	stim_runtime *stim;     /* the attached stimuli, or NULL */
	void (*stock_run)(struct avr_t *avr);  /* avr->run unless a reset is due */
	int asleep_forever;     /* slept with nothing enabled that could wake it */
	uint8_t irq_response;   /* cycles from an interrupt to its vector */
	/* How many skips (CPSE, SBRC, SBRS, SBIC, SBIS) have a next word
	 * simavr 1.6 takes for a 2-word instruction (an ADIW/SBIW: see
	 * fix_skip in sim.c); their transfer_kind has SIM_KIND_SKIP_FIX.
	 * Most programs have none. */
	unsigned nskip_fix;
	struct periphs *periphs; /* avrr's own peripheral models (periph.h) */
	int replay;             /* replay mode: never vector on its own */
	int dropped;            /* replay mode, set for on_boundary: its boundary dropped a masked interrupt */
	sim_tap *tap;           /* replay mode: see sim_tap; may be NULL */
	/* Replay mode: on_boundary is called only where the PC's word
	 * address, masked by boundary_mask, equals boundary_match (mask 0:
	 * at every boundary).  A replay waiting for one interrupt knows the
	 * low bits of its return address, and skips the call elsewhere.
	 * Likewise for the cycles since the last reset (sim_timer_cycles),
	 * masked by boundary_cycle_mask (low bits), when its fingerprint
	 * counts cycles (sim_set_boundary).  Whoever changes these sets
	 * boundary_gap to 0: until the cycle boundary_from + boundary_gap, no
	 * boundary can match. */
	uint32_t boundary_mask, boundary_match;
	uint64_t boundary_cycle_mask, boundary_cycle_match;
	uint64_t boundary_from, boundary_gap;
	/* Observed runs: each flash word's load or store (see sim.c), built
	 * by the first sim_set_observed. */
	struct sim_memop *memop;
	int observed;
	/* Replay mode, sim_filter_steps: the flash words whose instruction
	 * on_step is told of (NULL: every step), the state after the last
	 * instruction step, and the step being told of as it started. */
	const uint8_t *step_words;
	uint32_t step_nwords;
	sim_step step_last, step_told;
	/* sim_filter_data: the data bytes watched, and their last values. */
	uint16_t step_data[SIM_FILTER_DATA_MAX];
	uint8_t step_data_old[SIM_FILTER_DATA_MAX];
	unsigned step_ndata;
};

#endif
