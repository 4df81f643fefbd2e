/* log.c — the traced registers and events in words (see log.h). */
#include "trace/log.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (!sim_names(s))
		return 0;
	for (unsigned i = 0; i < sim_names(s)->nregs && n < max; i++)
		for (unsigned p = 0; p < npats; p++)
			if (fnmatch(pats[p], sim_names(s)->regs[i].name, 0) == 0) {
				addrs[n++] = sim_names(s)->regs[i].addr;
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
