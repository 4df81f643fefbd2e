/*
 * events.h — the sim's hooks as events of the happens-before log, written
 * once for every run that records the log or checks a run against it.
 *
 * Each hook the log follows (sim.h's sim_hooks) is one event kind, with
 * one choice of its context (the vector entered or left, else the running
 * ISR's, or the main program's 0) and of its PC (the return address of an
 * interrupt entered, else where the CPU is).  The recorder and the device
 * log's positions append the event these functions give (a sink); a replay
 * and a re-run compare it with the recorded one (a source).  They are
 * inline: a replay calls them on its hot path.
 */
#ifndef AVRR_RERUN_EVENTS_H
#define AVRR_RERUN_EVENTS_H

#include <stdint.h>

#include "sim/sim.h"
#include "trace/event.h"

/* One event as a hook gives it, before the log's order stamps it. */
typedef struct rerun_event {
	uint8_t ctx;
	trace_kind type;
	uint32_t pc, addr, value;
} rerun_event;

/* An event whose addr and value its kind implies (trace_implied). */
static inline rerun_event rerun_implied(uint8_t ctx, trace_kind type, uint32_t pc)
{
	rerun_event e = { .ctx = ctx, .type = type, .pc = pc };
	trace_implied(type, ctx, pc, &e.addr, &e.value);
	return e;
}

/* Interrupt `vector` entered with return address ra (on_irq, or a replay's
 * injection): its own context, at its RA. */
static inline rerun_event rerun_irq(uint8_t vector, uint32_t ra)
{
	return rerun_implied(vector, TRACE_IRQ, ra);
}

/* The RETI that leaves `vector`'s ISR: that context. */
static inline rerun_event rerun_reti(const sim *s, uint8_t vector)
{
	return rerun_implied(vector, TRACE_RETI, sim_pc(s));
}

static inline rerun_event rerun_sleep(const sim *s)
{
	return rerun_implied(sim_running_vector(s), TRACE_SLEEP, sim_pc(s));
}

static inline rerun_event rerun_wake(const sim *s)
{
	return rerun_implied(sim_running_vector(s), TRACE_WAKE, sim_pc(s));
}

/* A reset: the main program's, whatever ran. */
static inline rerun_event rerun_reset(const sim *s)
{
	return rerun_implied(0, TRACE_RESET, sim_pc(s));
}

/* A read of traced register addr seeing value, by the running context. */
static inline rerun_event rerun_read(const sim *s, uint16_t addr, uint8_t value)
{
	return (rerun_event){ .ctx = sim_running_vector(s), .type = TRACE_READ, .pc = sim_pc(s),
			      .addr = addr, .value = value };
}

/* A write of value to traced register addr, by the running context. */
static inline rerun_event rerun_write(const sim *s, uint16_t addr, uint8_t value)
{
	return (rerun_event){ .ctx = sim_running_vector(s), .type = TRACE_WRITE, .pc = sim_pc(s),
			      .addr = addr, .value = value };
}

/* Whether recorded event e is event x (its value compared only when
 * check_value: a replayed input read takes the recorded value; its PC
 * never, which the log keeps for the reader, not for matching). */
static inline int rerun_is(const trace_event *e, const rerun_event *x, int check_value)
{
	return e->type == x->type && e->addr == x->addr && (!check_value || e->value == x->value);
}

#endif
