/* event.c — event kinds, stamping and the log's rules (see event.h). */
#include "trace/event.h"

#include <stddef.h>
#include <stdio.h>

static const char *const KIND_NAMES[TRACE_COUNT] = {
#define KIND_NAME(K, n, name, args, nest) [n] = name,
	TRACE_KINDS(KIND_NAME)
#undef KIND_NAME
};

const char *trace_kind_name(int type)
{
	return type > 0 && type < TRACE_COUNT ? KIND_NAMES[type] : "?";
}

trace_event trace_stamp(trace_writer *w, uint8_t ctx, trace_kind type, uint64_t icount,
			uint64_t cycle, uint32_t pc, uint32_t addr, uint32_t value)
{
	trace_event e = {
		.seq = ++w->seq, .prev = w->last_of_ctx[ctx], .ctx = ctx, .type = type,
		.icount = icount, .cycle = cycle, .pc = pc, .addr = addr, .value = value,
	};
	w->last_of_ctx[ctx] = e.seq;
	return e;
}

char *trace_sql_types(unsigned args_set, int negate, char *buf, size_t n)
{
	int kinds[TRACE_COUNT], k = 0;
	for (int t = 1; t < TRACE_COUNT; t++)
		if (args_set >> trace_kind_args((uint32_t)t) & 1)
			kinds[k++] = t;
	size_t at = 0;
	if (k == 1) {
		snprintf(buf, n, "type %s %d", negate ? "<>" : "=", kinds[0]);
		return buf;
	}
	at += (size_t)snprintf(buf, n, "type %sIN (", negate ? "NOT " : "");
	for (int i = 0; i < k && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? ", " : "", kinds[i]);
	if (at < n)
		snprintf(buf + at, n - at, ")");
	return buf;
}

const char *trace_check(const trace_event *e, trace_nesting *n, unsigned max_vector,
			uint32_t data_size)
{
	uint8_t top = n->depth ? n->stack[n->depth - 1] : 0;
	switch (trace_kind_nest(e->type)) {
	case TRACE_NEST_RESET:
		if (e->ctx || e->addr || e->value)
			return "a reset outside the main program";
		n->depth = 0;
		return NULL;
	case TRACE_NEST_ENTER:
		if (e->addr < 1 || e->addr > max_vector)
			return "an interrupt vector this MCU does not have";
		if (e->ctx != e->addr || e->value != e->pc)
			return "an irq event whose context or return address is not its own";
		if (n->depth == TRACE_MAX_NESTING)
			return "interrupts nested deeper than 64";
		n->stack[n->depth++] = (uint8_t)e->addr;
		return NULL;
	case TRACE_NEST_LEAVE:
		if (!n->depth || e->ctx != top || e->addr != top || e->value)
			return "a reti from an interrupt that is not running";
		n->depth--;
		return NULL;
	case TRACE_NEST_STAY:
		if (e->ctx != top)
			return "an event in a context that is not running";
		if (trace_has_operands(e->type)) {
			if (e->addr >= data_size || e->value > 0xff)
				return "a register access outside the data space or wider than a byte";
			return NULL;
		}
		return e->addr || e->value ? "a sleep or wake event with an address or value" : NULL;
	default:
		return "an unknown event kind";
	}
}
