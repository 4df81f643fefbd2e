/*
 * import.c — an import's replay checked against the device log it keeps
 * (see internal.h), as one of the replay's observers (replayer.h), like
 * the scorer: each input read (on_io) and each interrupt about to be
 * entered (on_match) must be the device's next, and each interrupt must
 * come where the import's replay entered it, at its recorded icount (due,
 * on_slice).  It is attached first, so it sees each event before any
 * front-end's observer.
 */
#include "replayer/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/devsite.h"
#include "util/grow.h"

/* An import's device log, kept in it (db_get_device_log): each input read
 * and interrupt of the device, checked as the replay comes to it; `at` of
 * them met so far.  The tracer's own counter overflows (ovf_vector, or -1)
 * and the reads of the log register or of inputs the device did not log
 * are the import's replay's, not in it. */
struct rp_import {
	replay *r;
	devlog dev;
	size_t n, at, reads, irqs;    /* n: its items up to the first loss */
	int ovf_vector;
	uint16_t log_reg;
	uint8_t device_input[FP_INPUT_SPACE];
	uint64_t due;                 /* the next interrupt's icount, as due() last saw it */
};

/* "input read 3 (byte 412, block 2)" or "interrupt 5 (TIMER0_OVF_vect, byte
 * 380, block 2)", the device log's next item; "its end" past the last. */
static void describe_next(const rp_import *m, char *buf, size_t n)
{
	if (m->at >= m->n) {
		snprintf(buf, n, "its end");
		return;
	}
	const devlog_item *it = &m->dev.items[m->at];
	if (it->kind == DEVLOG_ITEM_READ) {
		snprintf(buf, n, "input read %zu = 0x%02x (byte %zu, block %u)", m->reads + 1,
			 it->value, it->offset, it->block);
	} else {
		const char *vn = sim_vector_name(m->r->s, it->vector);
		snprintf(buf, n, "interrupt %zu (%s, byte %zu, block %u)", m->irqs + 1,
			 vn ? vn : "?", it->offset, it->block);
	}
}

/* A read of a device input the replay feeds a->value (from the event
 * log): the device's log must have this read next, with this value.  An
 * input read as the rewrite judged the instruction at a->pc (the read's
 * own: devlog_input_read_at), so a skip on UDRE is none. */
static void on_io(void *ud, const rp_access *a)
{
	rp_import *m = ud;
	replay *r = m->r;
	uint16_t addr = a->addr;
	if (a->write || addr == m->log_reg || r->diverged ||
	    !devlog_input_read_at(m->device_input, sim_firmware(r->s), a->pc, addr) ||
	    devsite_in_tracer(sim_firmware(r->s), a->pc))   /* the tracer's own: not logged */
		return;
	const devlog_item *it = m->at < m->n ? &m->dev.items[m->at] : NULL;
	if (it && it->kind == DEVLOG_ITEM_READ && it->value == a->value) {
		m->at++;
		m->reads++;
		return;
	}
	char want[200], got[160];
	const char *name = sim_ioreg_name(r->s, addr);
	if (it && it->kind == DEVLOG_ITEM_READ) {
		snprintf(want, sizeof want, "read %s = 0x%02x: the device's input read %zu (byte %zu, "
			 "block %u of its log)", name ? name : "?", it->value, m->reads + 1,
			 it->offset, it->block);
		snprintf(got, sizeof got, "0x%02x, from the recording's event log", a->value);
	} else {
		char next[160];
		describe_next(m, next, sizeof next);
		snprintf(want, sizeof want, "the device's log's next: %s", next);
		snprintf(got, sizeof got, "a read of %s that the device's log does not have here",
			 name ? name : "?");
	}
	replay_diverge(r, a->ctx, want, got);
}

/* The n-th recorded interrupt's icount, read from the log (an import's
 * interrupts are due there); UINT64_MAX when the log cannot give it. */
static uint64_t irq_icount(replay *r, uint64_t n)
{
	const trace_event *e = rerun_cursor_irq(&r->log, n);
	return e ? e->icount : UINT64_MAX;
}

/* The match about to be entered: where the import's replay entered it
 * (faithful or loud), and the device's next, with its vector and
 * fingerprint, unless the tracer's own overflow handler.  A wrong one is
 * vetoed, after diverging. */
static int on_match(void *ud, const rp_hit *h)
{
	rp_import *m = ud;
	replay *r = m->r;
	if (irq_icount(r, h->n) != sim_icount(r->s)) {
		char want[240], irq[200], got[96];
		replay_describe_irq(r, h->n, irq, sizeof irq);
		snprintf(want, sizeof want, "%.190s at icount %" PRIu64, irq, irq_icount(r, h->n));
		snprintf(got, sizeof got, "its fingerprint matching at icount %" PRIu64,
			 sim_icount(r->s));
		replay_diverge(r, sim_running_vector(r->s), want, got);
		return 1;
	}
	if ((int)h->vector == m->ovf_vector)
		return 0;
	const fp_config *c = &r->fp.cfg;
	const devlog_item *it = m->at < m->n ? &m->dev.items[m->at] : NULL;
	if (it && it->kind == DEVLOG_ITEM_FP && it->vector == h->vector &&
	    (c->ra_bits ? it->fp >> c->state_bits : 0) == h->ra_part &&
	    (it->fp & fp_hash_mask(c->state_bits)) == h->hash_part) {
		m->at++;
		m->irqs++;
		return 0;
	}
	char want[200], got[160];
	char next[160];
	describe_next(m, next, sizeof next);
	snprintf(want, sizeof want, "the device's log's next: %s", next);
	const char *vn = sim_vector_name(r->s, h->vector);
	snprintf(got, sizeof got, "%s entered, by the recording's fingerprint 0x%" PRIx64
		 ":0x%" PRIx64, vn ? vn : "?", h->ra_part, h->hash_part);
	replay_diverge(r, sim_running_vector(r->s), want, got);
	return 1;
}

/* The next interrupt is due at its stored icount: the slice ends just
 * past it, to see that it came. */
static void due(void *ud, uint64_t *icount, uint64_t *cycle)
{
	rp_import *m = ud;
	replay *r = m->r;
	(void)cycle;
	m->due = r->next_n <= r->nirq ? irq_icount(r, r->next_n) : UINT64_MAX;
	if (m->due < UINT64_MAX)
		*icount = m->due + 1;
}

/* The next interrupt did not come at m->due, where the import's replay
 * entered it: its fingerprint did not match there. */
static void on_slice(void *ud)
{
	rp_import *m = ud;
	replay *r = m->r;
	uint64_t at = m->due;
	if (at == UINT64_MAX || sim_icount(r->s) <= at || r->next_n > r->nirq ||
	    irq_icount(r, r->next_n) != at)
		return;
	char want[240], irq[200], got[160];
	replay_describe_irq(r, r->next_n, irq, sizeof irq);
	snprintf(want, sizeof want, "%.190s at icount %" PRIu64, irq, at);
	snprintf(got, sizeof got, "no match of its fingerprint there (icount %" PRIu64 " passed)",
		 at);
	replay_diverge(r, sim_running_vector(r->s), want, got);
}

void import_check_end(rp_import *m)
{
	replay *r = m->r;
	if (r->diverged || m->at >= m->n)
		return;
	char want[200], next[160];
	describe_next(m, next, sizeof next);
	snprintf(want, sizeof want, "the device's log's next: %s", next);
	replay_diverge(r, 0, want, "the end of the recording");
}

/* An import's device log, from the recording: parsed again (its CRCs
 * checked), of this firmware, its items up to the first loss. */
int import_open(replay *r, avrr_err *err)
{
	char *reg = NULL;
	uint8_t *data = NULL;
	size_t n = 0;
	int rc = -1;
	uint8_t sha[32];
	rp_import *m = r->imp = calloc(1, sizeof *m);
	if (!m)
		return avrr_errf(err, "out of memory");
	m->r = r;
	m->ovf_vector = -1;
	m->due = UINT64_MAX;
	if (r->o.oracle) {
		avrr_errf(err, "%s: an import of a device log has no ground truth for the oracle",
			  db_name(r->d));
		goto out;
	}
	if (db_get_device_log(r->d, &reg, &data, &n, err))
		goto out;
	if (!data) {
		avrr_errf(err, "%s: an import without its device log (docs/device.md)",
			  db_name(r->d));
		goto out;
	}
	if (devlog_parse(data, n, &m->dev, err)) {
		char why[sizeof err->msg];
		snprintf(why, sizeof why, "%s", err->msg);
		avrr_errf(err, "%s: the device log it keeps: %s", db_name(r->d), why);
		goto out;
	}
	if (devlog_elf_hash(r->rep.fw->elf, r->rep.fw->elf_size, sha, NULL, err))
		goto out;
	if (memcmp(sha, m->dev.sha256, 32)) {
		avrr_errf(err, "%s: the device log it keeps is of another firmware", db_name(r->d));
		goto out;
	}
	int a = sim_ioreg_addr(r->s, reg);
	if (a < 0) {
		avrr_errf(err, "%s: its device log's register %s is not the %s's", db_name(r->d), reg,
			  sim_mcu(r->s));
		goto out;
	}
	m->log_reg = (uint16_t)a;
	while (m->n < m->dev.nitems && m->dev.items[m->n].kind != DEVLOG_ITEM_LOSS)
		m->n++;
	if (fp_counter_bytes(&r->fp.cfg, FP_COUNT_CYCLES) > 2)
		m->ovf_vector = devsite_ovf_vector(r->s);
	if (sim_names(r->s))
		devlog_inputs(sim_names(r->s), m->device_input);
	rc = 0;
out:
	free(reg);
	free(data);
	return rc;
}

int import_watch_inputs(rp_import *m, avrr_err *err)
{
	/* The log also holds the device's reads of inputs trace/log.h does not
	 * trace (devlog_input_table: ICRn, ...), but for the log's own
	 * register, which the import's replay watched only if traced. */
	replay *r = m->r;
	uint8_t inputs[FP_INPUT_SPACE];
	if (sim_names(r->s) && devlog_inputs(sim_names(r->s), inputs))
		for (unsigned a = 0; a < FP_INPUT_SPACE; a++)
			if (inputs[a] && a != m->log_reg && sim_watch_read(r->s, (uint16_t)a, err))
				return -1;
	return 0;
}

int import_attach(rp_import *m, avrr_err *err)
{
	return rp_observe(m->r, &(rp_observer){ .ud = m, .on_io = on_io, .on_match = on_match,
						 .due = due, .on_slice = on_slice }, err);
}

void import_free(rp_import *m)
{
	if (!m)
		return;
	devlog_free(&m->dev);
	free(m);
}
