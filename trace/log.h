/*
 * log.h — the happens-before log on the simulated machine: which registers
 * it traces, how its events read in words, and a cursor that follows a
 * recorded log context by context as a replay consumes it (seed 003).
 *
 * Inputs are the registers through which the outside world reaches the CPU
 * (DESIGN.md): PINx, ADC data, UART data and status, SPI and TWI data and
 * status, the analog comparator, and the external interrupt flags; outputs
 * are the ports and the data registers that leave the chip.  Timers, the
 * watchdog and EEPROM are internal and deterministic, so not traced.
 */
#ifndef AVRR_TRACE_LOG_H
#define AVRR_TRACE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"
#include "util/err.h"
#include "trace/event.h"

/* The data addresses of the MCU's input (output) registers.  Returns how
 * many were written to `addrs`. */
unsigned trace_input_registers(const sim *s, uint16_t *addrs, unsigned max);
unsigned trace_output_registers(const sim *s, uint16_t *addrs, unsigned max);
/* Reports CPU reads of every input and writes of every output register
 * through the sim's on_read/on_write hooks. */
int trace_watch_io(sim *s, avrr_err *err);

/* An event in words, with s's register and vector names: "irq vector 1
 * (INT0_vect) ra 0x024c", "read PINB (0x36) = 0x01" (without "= ..." unless
 * with_value). */
void trace_describe(const sim *s, unsigned type, uint32_t addr, uint32_t value,
		    int with_value, char *buf, size_t n);

/* A recorded log split by context, and how far each context is consumed. */
typedef struct trace_cursor {
	const trace_event *ev;        /* the log, in seq order (not owned) */
	uint32_t *ctx_events[256];    /* per context, indexes into ev */
	size_t ctx_len[256], ctx_pos[256];
	uint32_t *irq_event;          /* index into ev of the n-th irq event, n-1 */
	size_t nirq;
} trace_cursor;

/* Indexes ev[0..nev), which starts with its reset (consumed). */
int trace_cursor_init(trace_cursor *c, const trace_event *ev, size_t nev, avrr_err *err);
void trace_cursor_free(trace_cursor *c);

/* Context ctx's next recorded event, or NULL when it has none left. */
static inline const trace_event *trace_cursor_next(const trace_cursor *c, unsigned ctx)
{
	return c->ctx_pos[ctx] < c->ctx_len[ctx] ? &c->ev[c->ctx_events[ctx][c->ctx_pos[ctx]]]
						 : NULL;
}

/* Whether recorded event e is the one observed (its value compared only
 * when check_value: an input read takes the recorded value). */
static inline int trace_matches(const trace_event *e, unsigned type, uint32_t addr,
				uint32_t value, int check_value)
{
	return e->type == type && e->addr == addr && (!check_value || e->value == value);
}

/* Whether the n-th recorded interrupt can happen now by the log's
 * happens-before order, context `running` being the one running: it is its
 * own context's next event, and falls between the running context's last
 * event and its next. */
int trace_cursor_in_order(const trace_cursor *c, uint64_t n, unsigned running);

/* The first recorded event, in seq order, that no context has consumed
 * yet (*ctx its context), or NULL when all are. */
const trace_event *trace_cursor_first_left(const trace_cursor *c, unsigned *ctx);

#endif
