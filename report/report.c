/* report.c — the replay's reports as text (see report.h). */
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

#include "trace/uart.h"

void report_errors(FILE *out, replay *r)
{
	const rp_counters *c = rp_get_counters(r);
	fprintf(out, "configuration        %s\n", rp_config_name(r));
	fprintf(out, "instructions         %" PRIu64 " of %" PRIu64 "\n", c->instructions,
		rp_length(r));
	fprintf(out, "injected             %" PRIu64 "\n", c->injected);
	if (!c->scored) {
		fprintf(out, "(the recording has no ground truth: nothing to score)\n");
		return;
	}
	fprintf(out, "correct              %" PRIu64 "\n", c->correct);
	fprintf(out, "false loop positives %" PRIu64 "\n", c->false_loop);
	fprintf(out, "false RA positives   %" PRIu64 "\n", c->false_ra);
	fprintf(out, "  input duplicates   %" PRIu64 "\n", c->input_duplicates);
	fprintf(out, "  hash collisions    %" PRIu64 "\n", c->hash_collisions);
	fprintf(out, "missed               %" PRIu64 "\n", c->missed);
}

static const char *context_name(replay *r, unsigned ctx)
{
	const char *v = ctx ? sim_vector_name(rp_sim(r), (uint8_t)ctx) : "main";
	return v ? v : "isr";
}

void report_irqs(FILE *out, replay *r, int all)
{
	size_t nev, ninj;
	const trace_event *ev = rp_events(r, &nev);
	const rp_injection *inj = rp_injections(r, &ninj);
	uint64_t now = rp_icount(r), n = 0, before = 0;
	for (size_t i = 0; i < nev; i++)
		if (ev[i].type == TRACE_IRQ && ev[i].icount <= now)
			before++;
	fprintf(out, "Num    icount       vector              state\n");
	size_t k = 0;  /* injections, merged in icount order */
	for (size_t i = 0; i < nev; i++) {
		if (ev[i].type != TRACE_IRQ)
			continue;
		n++;
		int shown = all || (n + 5 > before && n <= before + 5);
		for (; k < ninj && inj[k].icount < ev[i].icount; k++)
			if (shown)
				fprintf(out, "-      %-12" PRIu64 " %-19s false (injected, not recorded)\n",
					inj[k].icount, context_name(r, inj[k].vector));
		int taken = k < ninj && inj[k].icount == ev[i].icount && inj[k].vector == ev[i].addr;
		if (taken)
			k++;
		if (shown)
			fprintf(out, "%-6" PRIu64 " %-12" PRIu64 " %-19s %s\n", n, ev[i].icount,
				context_name(r, ev[i].addr), taken ? "correct"
				: ev[i].icount > now ? "pending" : "missed");
	}
}

static void print_fingerprint(void *ud, const char *name, uint64_t ra_part, uint64_t hash_part,
			      size_t matches)
{
	FILE *out = ud;
	fprintf(out, "%-16s ra*=0x%" PRIx64 " h=0x%" PRIx64 "  ", name, ra_part, hash_part);
	if (matches)
		fprintf(out, "in D (%zu recorded interrupt%s)\n", matches, matches > 1 ? "s" : "");
	else
		fprintf(out, "not in D\n");
}

int report_fingerprint(FILE *out, replay *r, avrr_err *err)
{
	return rp_fingerprints_here(r, print_fingerprint, out, err);
}

void report_divergence(FILE *out, const replay *r)
{
	const rp_divergence *d = rp_get_divergence(r);
	if (!d) {
		fprintf(out, "The replay has not diverged (up to icount %" PRIu64 ").\n", rp_icount(r));
		return;
	}
	fprintf(out, "diverged at icount %" PRIu64 ", pc 0x%04x %s (context %u)\n", d->icount, d->pc,
		d->where, d->context);
	fprintf(out, "  expected  %s\n  actual    %s\n", d->expected, d->actual);
}

/* One line of `info uart`, as it comes. */
static void print_uart_line(void *ud, const char *line)
{
	fprintf(ud, "%s\n", line);
}

void report_uart(FILE *out, replay *r, int want)
{
	size_t nev;
	const trace_event *ev = rp_events(r, &nev);
	const sim *s = rp_sim(r);
	uint64_t now = rp_icount(r);
	int shown = 0;
	for (unsigned n = 0; n < TRACE_UARTS; n++) {
		const char *reg;
		int udr = trace_uart_register(sim_names(s), n, &reg);
		if ((want >= 0 && n != (unsigned)want) || (udr < 0 && want < 0))
			continue;
		if (udr < 0) {
			fprintf(out, "The %s has no UART %u.\n", sim_mcu(s), n);
			return;
		}
		size_t len = trace_uart_bytes(ev, nev, (uint16_t)udr, now, NULL);
		if (!len && want < 0)
			continue;
		fprintf(out, "UART%u (%s) sent %zu byte%s before icount %" PRIu64 "%s\n", n, reg, len,
			len == 1 ? "" : "s", now, len ? ":" : ".");
		trace_uart_lines l;
		trace_uart_lines_init(&l, print_uart_line, out);
		for (size_t i = 0; i < nev && ev[i].icount < now; i++)
			if (ev[i].type == TRACE_WRITE && ev[i].addr == (uint32_t)udr)
				trace_uart_lines_put(&l, (uint8_t)ev[i].value);
		trace_uart_lines_flush(&l);
		shown = 1;
	}
	if (!shown && want < 0)
		fprintf(out, "No UART output before icount %" PRIu64 ".\n", now);
}
