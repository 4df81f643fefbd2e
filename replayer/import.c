/*
 * import.c — an import's replay checked against the device log it keeps
 * (see internal.h): each input read and each interrupt the replay comes
 * to must be the device's next, and its interrupts come where the
 * import's replay entered them.
 */
#include "replayer/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/devreplay.h"
#include "fingerprint/instrument.h"
#include "rerun/events.h"
#include "rerun/fingerprints.h"
#include "trace/log.h"
#include "util/digest.h"
#include "util/extsort.h"
#include "util/grow.h"

/* "input read 3 (byte 412, block 2)" or "interrupt 5 (TIMER0_OVF_vect, byte
 * 380, block 2)", the device log's next item; "its end" past the last. */
void import_describe_next(const replay *r, char *buf, size_t n)
{
	if (r->dev_at >= r->ndev) {
		snprintf(buf, n, "its end");
		return;
	}
	const devlog_item *it = &r->dev.items[r->dev_at];
	if (it->kind == DEVLOG_ITEM_READ) {
		snprintf(buf, n, "input read %zu = 0x%02x (byte %zu, block %u)", r->dev_reads + 1,
			 it->value, it->offset, it->block);
	} else {
		const char *vn = sim_vector_name(r->s, it->vector);
		snprintf(buf, n, "interrupt %zu (%s, byte %zu, block %u)", r->dev_irqs + 1,
			 vn ? vn : "?", it->offset, it->block);
	}
}

/* A read of a device input the replay feeds `value` (from the event
 * log): the device's log must have this read next, with this value. */
void import_check_read(replay *r, uint16_t addr, uint8_t value)
{
	if (addr >= FP_INPUT_SPACE || !r->device_input[addr] || addr == r->log_reg || r->diverged)
		return;
	const devlog_item *it = r->dev_at < r->ndev ? &r->dev.items[r->dev_at] : NULL;
	if (it && it->kind == DEVLOG_ITEM_READ && it->value == value) {
		r->dev_at++;
		r->dev_reads++;
		return;
	}
	char want[200], got[160];
	const char *name = sim_ioreg_name(r->s, addr);
	if (it && it->kind == DEVLOG_ITEM_READ) {
		snprintf(want, sizeof want, "read %s = 0x%02x: the device's input read %zu (byte %zu, "
			 "block %u of its log)", name ? name : "?", it->value, r->dev_reads + 1,
			 it->offset, it->block);
		snprintf(got, sizeof got, "0x%02x, from the recording's event log", value);
	} else {
		char next[160];
		import_describe_next(r, next, sizeof next);
		snprintf(want, sizeof want, "the device's log's next: %s", next);
		snprintf(got, sizeof got, "a read of %s that the device's log does not have here",
			 name ? name : "?");
	}
	replay_diverge(r, sim_running_vector(r->s), want, got);
}

/* The n-th interrupt about to be entered here with fingerprint v: the
 * device's next, with its vector and fingerprint, unless the tracer's
 * own overflow handler.  0, or -1 after diverging. */
int import_check_irq(replay *r, uint8_t vector, const fp_value *v)
{
	if ((int)vector == r->ovf_vector)
		return 0;
	const fp_config *c = &r->fp.cfg;
	const devlog_item *it = r->dev_at < r->ndev ? &r->dev.items[r->dev_at] : NULL;
	if (it && it->kind == DEVLOG_ITEM_FP && it->vector == vector &&
	    (c->ra_bits ? it->fp >> c->state_bits : 0) == v->ra_part &&
	    (it->fp & fp_hash_mask(c->state_bits)) == v->hash_part) {
		r->dev_at++;
		r->dev_irqs++;
		return 0;
	}
	char want[200], got[160];
	char next[160];
	import_describe_next(r, next, sizeof next);
	snprintf(want, sizeof want, "the device's log's next: %s", next);
	const char *vn = sim_vector_name(r->s, vector);
	snprintf(got, sizeof got, "%s entered, by the recording's fingerprint 0x%" PRIx64
		 ":0x%" PRIx64, vn ? vn : "?", v->ra_part, v->hash_part);
	replay_diverge(r, sim_running_vector(r->s), want, got);
	return -1;
}

/* The n-th recorded interrupt's icount, read from the log (an import's
 * interrupts are due there); UINT64_MAX when the log cannot give it. */
uint64_t import_irq_icount(replay *r, uint64_t n)
{
	const trace_event *e = rerun_cursor_irq(&r->log, n);
	return e ? e->icount : UINT64_MAX;
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
	if (devlog_parse(data, n, &r->dev, err)) {
		char why[sizeof err->msg];
		snprintf(why, sizeof why, "%s", err->msg);
		avrr_errf(err, "%s: the device log it keeps: %s", db_name(r->d), why);
		goto out;
	}
	if (devlog_elf_hash(r->rep.fw->elf, r->rep.fw->elf_size, sha, NULL, err))
		goto out;
	if (memcmp(sha, r->dev.sha256, 32)) {
		avrr_errf(err, "%s: the device log it keeps is of another firmware", db_name(r->d));
		goto out;
	}
	int a = sim_ioreg_addr(r->s, reg);
	if (a < 0) {
		avrr_errf(err, "%s: its device log's register %s is not the %s's", db_name(r->d), reg,
			  r->s->mcu);
		goto out;
	}
	r->log_reg = (uint16_t)a;
	while (r->ndev < r->dev.nitems && r->dev.items[r->ndev].kind != DEVLOG_ITEM_LOSS)
		r->ndev++;
	if (fp_counter_bytes(&r->fp.cfg, FP_COUNT_CYCLES) > 2)
		for (unsigned v = 1; v < 128 && r->ovf_vector < 0; v++) {
			const char *vn = sim_vector_name(r->s, (uint8_t)v);
			if (vn && !strcmp(vn, "TIMER1_OVF_vect"))
				r->ovf_vector = (int)v;
		}
	if (r->s->names)
		devlog_inputs(r->s->names, r->device_input);
	rc = 0;
out:
	free(reg);
	free(data);
	return rc;
}

/* An import's next interrupt did not come at `due`, the icount where the
 * import's replay entered it: its fingerprint did not match there. */
void import_missed(replay *r, uint64_t due)
{
	char want[240], irq[200], got[160];
	replay_describe_irq(r, r->next_n, irq, sizeof irq);
	snprintf(want, sizeof want, "%.190s at icount %" PRIu64, irq, due);
	snprintf(got, sizeof got, "no match of its fingerprint there (icount %" PRIu64 " passed)",
		 due);
	replay_diverge(r, sim_running_vector(r->s), want, got);
}
