/*
 * vcd.h — `avrr export --vcd`: a recorded run as waveforms, for GTKWave.
 *
 * Signals: every traced I/O register (pins and data registers, 8 bits,
 * changing where the CPU reads or writes them), one wire per interrupt
 * vector the run takes (1 while its ISR runs), the nesting depth, and the
 * named variables (their ELF size, changing where the CPU stores to them),
 * and a wire per pin the chip drives at some point of the run (PB5 under
 * pins.portB): its level as sim/periph_port.c gives it — PORTx writes, writes of 1
 * to PINx, the timers' compare outputs — and z while it is an input.
 * Time is in ns from the recorded clock: cycle * 10^9 / frequency.
 */
#ifndef AVRR_ANALYZE_VCD_H
#define AVRR_ANALYZE_VCD_H

#include "analyze/session.h"

typedef struct an_vcd_stats {
	uint64_t changes;           /* value changes written */
	uint64_t interrupt_edges;   /* of the vector wires, rising and falling */
	unsigned signals;
	unsigned pins;              /* of them, pin wires */
} an_vcd_stats;

/* Checks that vars[0..nvars) name data symbols of up to 8 bytes. */
int an_vcd_check_vars(const an_session *a, const char *const *vars, unsigned nvars,
		      avrr_err *err);

/* Replays a's recording into the VCD file `out`, written beside it and
 * renamed into place when complete.  vars[0..nvars) name data symbols;
 * an unknown one is an error before anything runs. */
int an_export_vcd(an_session *a, const char *out, const char *const *vars, unsigned nvars,
		  void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
		  an_vcd_stats *st, avrr_err *err);

#endif
