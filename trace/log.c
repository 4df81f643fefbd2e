/* log.c — the traced registers, events in words, the log cursor (see log.h). */
#include "trace/log.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

/* Register names (fnmatch patterns) of inputs and outputs, see log.h. */
static const char *const INPUT_NAMES[] = {
	"PIN[A-L]", "ADCL", "ADCH", "UDR", "UDR[0-3]", "UCSRA", "UCSR[0-3]A",
	"GIFR", "EIFR", "PCIFR", "ACSR", "SPDR", "SPSR", "TWDR", "TWSR",
};
static const char *const OUTPUT_NAMES[] = {
	"PORT[A-L]", "UDR", "UDR[0-3]", "SPDR", "TWDR",
};

static unsigned registers_matching(const sim *s, const char *const *pats, unsigned npats,
				   uint16_t *addrs, unsigned max)
{
	unsigned n = 0;
	if (!s->names)
		return 0;
	for (unsigned i = 0; i < s->names->nregs && n < max; i++)
		for (unsigned p = 0; p < npats; p++)
			if (fnmatch(pats[p], s->names->regs[i].name, 0) == 0) {
				addrs[n++] = s->names->regs[i].addr;
				break;
			}
	return n;
}

unsigned trace_input_registers(const sim *s, uint16_t *addrs, unsigned max)
{
	return registers_matching(s, INPUT_NAMES, sizeof INPUT_NAMES / sizeof *INPUT_NAMES,
				  addrs, max);
}

unsigned trace_output_registers(const sim *s, uint16_t *addrs, unsigned max)
{
	return registers_matching(s, OUTPUT_NAMES, sizeof OUTPUT_NAMES / sizeof *OUTPUT_NAMES,
				  addrs, max);
}

int trace_watch_io(sim *s, avrr_err *err)
{
	uint16_t addrs[64];
	unsigned n = trace_input_registers(s, addrs, 64);
	for (unsigned i = 0; i < n; i++)
		if (sim_watch_read(s, addrs[i], err))
			return -1;
	n = trace_output_registers(s, addrs, 64);
	for (unsigned i = 0; i < n; i++)
		if (sim_watch_write(s, addrs[i], err))
			return -1;
	return 0;
}

void trace_describe(const sim *s, unsigned type, uint32_t addr, uint32_t value,
		    int with_value, char *buf, size_t n)
{
	switch (type) {
	case TRACE_IRQ: {
		const char *v = sim_vector_name(s, (uint8_t)addr);
		snprintf(buf, n, "irq vector %u%s%s%s ra 0x%04x", addr, v ? " (" : "", v ? v : "",
			 v ? ")" : "", value);
		break;
	}
	case TRACE_RETI:
		snprintf(buf, n, "reti from vector %u", addr);
		break;
	case TRACE_READ:
	case TRACE_WRITE: {
		const char *name = sim_ioreg_name(s, (uint16_t)addr);
		if (with_value)
			snprintf(buf, n, "%s %s (0x%02x) = 0x%02x", trace_kind_name((int)type),
				 name ? name : "?", addr, value);
		else
			snprintf(buf, n, "%s %s (0x%02x)", trace_kind_name((int)type),
				 name ? name : "?", addr);
		break;
	}
	default:
		snprintf(buf, n, "%s", trace_kind_name((int)type));
	}
}

int trace_cursor_init(trace_cursor *c, const trace_event *ev, size_t nev, avrr_err *err)
{
	*c = (trace_cursor){ .ev = ev };
	for (size_t i = 0; i < nev; i++) {
		c->ctx_len[ev[i].ctx & 0xff]++;
		c->nirq += ev[i].type == TRACE_IRQ;
	}
	for (int k = 0; k < 256; k++)
		if (c->ctx_len[k] && !(c->ctx_events[k] = malloc(c->ctx_len[k] * sizeof(uint32_t))))
			goto oom;
	if (!(c->irq_event = malloc((c->nirq + 1) * sizeof *c->irq_event)))
		goto oom;
	size_t fill[256] = { 0 }, n = 0;
	for (size_t i = 0; i < nev; i++) {
		unsigned k = ev[i].ctx & 0xff;
		c->ctx_events[k][fill[k]++] = (uint32_t)i;
		if (ev[i].type == TRACE_IRQ)
			c->irq_event[n++] = (uint32_t)i;
	}
	c->ctx_pos[0] = nev > 0;  /* the reset */
	return 0;
oom:
	trace_cursor_free(c);
	return avrr_errf(err, "out of memory");
}

void trace_cursor_free(trace_cursor *c)
{
	for (int k = 0; k < 256; k++)
		free(c->ctx_events[k]);
	free(c->irq_event);
	*c = (trace_cursor){ 0 };
}

int trace_cursor_in_order(const trace_cursor *c, uint64_t n, unsigned running)
{
	const trace_event *e = &c->ev[c->irq_event[n - 1]];
	const trace_event *own = trace_cursor_next(c, e->ctx);
	if (!own || own->seq != e->seq)
		return 0;
	size_t pos = c->ctx_pos[running];
	if (pos > 0 && c->ev[c->ctx_events[running][pos - 1]].seq > e->seq)
		return 0;
	/* >=: an ISR that re-enables interrupts may be entered again inside
	 * itself (a tracer flushing its log from the ISR does), when the
	 * running context's next event is this irq itself. */
	return pos >= c->ctx_len[running] || c->ev[c->ctx_events[running][pos]].seq >= e->seq;
}

const trace_event *trace_cursor_first_left(const trace_cursor *c, unsigned *ctx)
{
	const trace_event *first = NULL;
	for (unsigned k = 0; k < 256; k++) {
		const trace_event *e = trace_cursor_next(c, k);
		if (e && (!first || e->seq < first->seq)) {
			first = e;
			*ctx = k;
		}
	}
	return first;
}
