/*
 * replayer.c — the replay engine (see replayer.h).
 *
 * The hot path is on_boundary: it runs after every instruction at which the
 * CPU could take an interrupt, so a fingerprint replay computes one
 * fingerprint and probes one hash table there.  The oracle queues the
 * boundary for the configurations it can evaluate in bulk (batch.h) — when
 * one batch is all, the simulation queues it itself, and the hook runs only
 * at recorded interrupts; for the others it computes each distinct
 * selector's bytes and each needed 64-bit hash once, deriving every
 * configuration's narrower hash from it (fp_hash_narrow).
 */
#include "replayer/replayer.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/cursor.h"
#include "db/db.h"
#include "device/devlog.h"
#include "device/devreplay.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/instrument.h"
#include "rerun/fingerprints.h"
#include "trace/log.h"
#include "rerun/replica.h"
#include "util/digest.h"
#include "util/extsort.h"
#include "util/grow.h"
#include "replayer/batch.h"
#include "rerun/cursor.h"
#include "rerun/events.h"
#include "replayer/fpindex.h"
#include "replayer/score.h"

/* Configurations of the oracle that share a selector share its bytes and
 * each hash function's widest value.  Under set matching, a group whose
 * selector suits batching (batch.h) only queues its boundaries; the rest
 * are evaluated where they happen. */
typedef struct sel_group {
	const fp_config *cfg;       /* the first configuration with this selector */
	unsigned *members;          /* indexes of its configurations */
	unsigned nmembers;
	unsigned hash_bits[FP_HASH_COUNT];  /* the widest any member needs */
	uint8_t buf[FP_MAX_SELECTED];
	const uint8_t *bytes;       /* this boundary's g(s), or NULL if not yet */
	uint32_t n;
	uint64_t h64[FP_HASH_COUNT];
	uint8_t have[FP_HASH_COUNT];
	uint64_t input_key;         /* of g(s), once a hit needs it */
	int have_key;
	rp_batch *batch;            /* NULL: evaluated at each boundary */
} sel_group;

struct replay {
	rp_options o;
	db *d;
	rerun_replica rep;
	sim *s;

	rerun_cursor log;             /* the log, read a chunk at a time as it is consumed */
	trace_event *ev;              /* the whole log, read only when asked (rp_events) */
	size_t nev;
	uint8_t *irq_vector;          /* irq_vector[n-1]: the n-th interrupt's */
	uint32_t *irq_ra;
	size_t nirq;

	/* The ground truth's interrupts (0 when stripped, then unscored):
	 * each one's icount, cycle and vector are its irq event's, read from
	 * the log as the replay comes to it (rp_recorded_interrupt). */
	size_t ntruth, truth_pos;     /* the oracle's next recorded interrupt */
	rp_scorer *scorer;            /* a fingerprint replay's, when scored */

	fp_index fp;                  /* fingerprint replay's D */
	/* Sequence matching one interrupt ahead needs only the next expected
	 * interrupt's fingerprint: then the keys are read a chunk at a time
	 * (streamed), and fp holds the configuration without its D, which is
	 * built only if a false hit has to be classified (full). */
	int streamed;
	db_fp_config fp_stored;       /* the configuration replayed */
	uint32_t fp_config_id;
	fp_index full;
	int have_full;
	FILE *irq_file;               /* the oracle's: list_irqs_once */
	db_fps keys;                  /* key_of's, when streamed */
	uint64_t next_key;            /* the next_n-th's key, when next_n <= nirq */
	uint64_t next_n;              /* the next interrupt expected, in log order */
	/* Fail loud (replayer.h): the seq of the next_n-th irq event (past
	 * it no event may come first; UINT64_MAX: no such check). */
	uint64_t pending_seq;

	fp_index *oracle;             /* oracle: one D per configuration */
	/* Sequence matching on a counted D (fpi_counted), which has no keys
	 * in log order: per configuration, the keys of the interrupts
	 * expected next, read from the recording a chunk at a time. */
	struct oracle_ahead *ahead;
	db_fps ahead_fps;             /* oracle_key's, for each configuration in turn */
	rp_oracle_result *results;
	sel_group *groups;
	size_t nconfigs, ngroups;
	/* The oracle's fast path: the groups' batches, whether any group is
	 * evaluated at each boundary instead, and the icount from which a
	 * boundary needs more than queueing (the next recorded interrupt;
	 * 0 after a divergence). */
	rp_batch **batches;
	size_t nbatches;
	int unbatched;
	uint64_t truth_next;
	sim_tap *tap;                 /* the one batch's, when that is all */

	rp_counters c;
	int scored;                   /* the recording has its ground truth */
	/* The injections made: the first inj_prefix were each the recorded
	 * interrupt of their number, at its icount, so they are not kept (a
	 * faithful replay keeps none); from the first that was not (strayed)
	 * on, inj[] lists them. */
	uint64_t inj_prefix;
	int strayed;
	rp_injection *inj;
	size_t ninj, inj_cap;
	int diverged;
	rp_divergence div;
	volatile int stop;
	rp_observer obs[RP_MAX_OBSERVERS];
	unsigned nobs;
	int broke;                   /* an observer's on_step stopped the run */
	/* An import of a device log (cmd_import.c): its interrupts must come
	 * where the import's replay entered them, and a spec counting sic
	 * reads the device's own counter (the simulator's would count the
	 * calls the read logging added), sic_bytes of it at sic_addr. */
	int import;
	uint16_t sic_addr;
	unsigned sic_bytes;
	/* An import's device log, kept in it (db_get_device_log): each input
	 * read and interrupt of the device, checked as the replay comes to
	 * it; dev_at of them met so far.  The tracer's own Timer1 overflows
	 * (ovf_vector, or -1) and the reads of the log register or of inputs
	 * the device did not log are the import's replay's, not in it. */
	devlog dev;
	size_t ndev, dev_at, dev_reads, dev_irqs;
	int ovf_vector;
	uint16_t log_reg;
	uint8_t device_input[FP_INPUT_SPACE];
};

/* ---- divergence and the event check ----------------------------------- */

/* Where the oracle's fast path ends: the tap's boundaries too. */
static void set_truth_next(replay *r, uint64_t icount)
{
	r->truth_next = icount;
	if (r->tap)
		r->tap->until = icount;
}

static void diverge(replay *r, unsigned ctx, const char *expected, const char *actual)
{
	if (r->diverged)
		return;
	r->diverged = 1;
	r->stop = 1;
	set_truth_next(r, 0);  /* the oracle's boundaries leave the fast path */
	r->div.icount = r->s->icount;
	r->div.pc = sim_pc(r->s);
	r->div.context = ctx;
	fw_describe_pc(r->rep.fw, r->div.pc, r->div.where, sizeof r->div.where);
	snprintf(r->div.expected, sizeof r->div.expected, "%s", expected);
	snprintf(r->div.actual, sizeof r->div.actual, "%s", actual);
}

/* The software instruction counter a fingerprint reads here. */
static uint64_t transfers_now(const replay *r)
{
	if (!r->sic_bytes)
		return sim_transfers(r->s);
	const uint8_t *data = sim_live_data(r->s);
	uint64_t t = 0;
	for (unsigned i = r->sic_bytes; i-- > 0;)
		t = t << 8 | data[r->sic_addr + i];
	return t;
}

/* "interrupt 3 (irq vector 1 (INT0_vect) ra 0x041a)": the n-th one. */
static void describe_irq(replay *r, uint64_t n, char *buf, size_t len)
{
	char irq[160];
	const trace_event *q = rerun_cursor_irq(&r->log, n);
	if (q)
		trace_describe(r->s, q->type, q->addr, q->value, 1, irq, sizeof irq);
	else
		snprintf(irq, sizeof irq, "unreadable: %.140s", r->log.err.msg);
	snprintf(buf, len, "interrupt %" PRIu64 " (%s)", n, irq);
}

/* The source the hooks' events (rerun/events.h) are checked against:
 * the next recorded event of x's context, returned, or NULL after
 * diverging. */
static const trace_event *expect(replay *r, const rerun_event *x, int check_value)
{
	if (r->diverged)
		return NULL;
	unsigned ctx = x->ctx;
	const trace_event *e = rerun_cursor_next(&r->log, ctx);
	/* The log's total order: this context's next event comes after an
	 * interrupt the replay has not injected, which was missed (or another
	 * taken in its place).  That names the cause, whatever happened. */
	int late = e && e->seq > r->pending_seq;
	if (e && !late && rerun_is(e, x, check_value)) {
		rerun_cursor_consume(&r->log, ctx);
		return e;
	}
	/* Only a divergence is put into words: events are on the hot path. */
	char want[200], got[160], irq[160];
	trace_describe(r->s, x->type, x->addr, x->value, check_value, got, sizeof got);
	if (r->log.failed) {
		snprintf(want, sizeof want, "the log: %.180s", r->log.err.msg);
		diverge(r, ctx, want, got);
		return NULL;
	}
	if (late) {
		describe_irq(r, r->next_n, irq, sizeof irq);
		snprintf(want, sizeof want, "%.120s first: the log puts it before this event", irq);
	} else if (e) {
		trace_describe(r->s, e->type, e->addr, e->value, 1, want, sizeof want);
	}
	diverge(r, ctx, e ? want : "nothing more in this context's log", got);
	return NULL;
}


/* expect() for an event checked whole. */
static void expect_all(replay *r, rerun_event x)
{
	expect(r, &x, 1);
}

/* ---- hooks ------------------------------------------------------------ */

/* Tells the observers of an access: an SRAM one (sram) or an I/O one. */
static void tell_access(replay *r, int sram, uint16_t addr, uint8_t value, int write,
			uint32_t pc)
{
	rp_access a = { .addr = addr, .value = value, .write = (uint8_t)write, .pc = pc,
			.ctx = sim_running_vector(r->s), .icount = r->s->icount };
	for (unsigned i = 0; i < r->nobs; i++) {
		void (*fn)(void *, const rp_access *) = sram ? r->obs[i].on_sram : r->obs[i].on_io;
		if (fn)
			fn(r->obs[i].ud, &a);
	}
}

/* ---- an import: the device's own log ----------------------------------- */

/* "input read 3 (byte 412, block 2)" or "interrupt 5 (TIMER0_OVF_vect, byte
 * 380, block 2)", the device log's next item; "its end" past the last. */
static void describe_device_item(const replay *r, char *buf, size_t n)
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
static void check_device_read(replay *r, uint16_t addr, uint8_t value)
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
		describe_device_item(r, next, sizeof next);
		snprintf(want, sizeof want, "the device's log's next: %s", next);
		snprintf(got, sizeof got, "a read of %s that the device's log does not have here",
			 name ? name : "?");
	}
	diverge(r, sim_running_vector(r->s), want, got);
}

/* The n-th interrupt about to be entered here with fingerprint v: the
 * device's next, with its vector and fingerprint, unless the tracer's
 * own overflow handler.  0, or -1 after diverging. */
static int check_device_irq(replay *r, uint8_t vector, const fp_value *v)
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
	describe_device_item(r, next, sizeof next);
	snprintf(want, sizeof want, "the device's log's next: %s", next);
	const char *vn = sim_vector_name(r->s, vector);
	snprintf(got, sizeof got, "%s entered, by the recording's fingerprint 0x%" PRIx64
		 ":0x%" PRIx64, vn ? vn : "?", v->ra_part, v->hash_part);
	diverge(r, sim_running_vector(r->s), want, got);
	return -1;
}

static uint8_t on_read(void *ud, uint16_t addr, uint8_t value)
{
	replay *r = ud;
	rerun_event x = rerun_read(r->s, addr, value);
	const trace_event *e = expect(r, &x, 0);
	uint8_t seen = e ? (uint8_t)e->value : value;
	if (r->import)
		check_device_read(r, addr, seen);
	if (r->nobs)
		tell_access(r, 0, addr, seen, 0, x.pc);
	return seen;
}

static void on_write(void *ud, uint16_t addr, uint8_t value)
{
	replay *r = ud;
	rerun_event x = rerun_write(r->s, addr, value);
	expect(r, &x, 1);
	if (r->nobs)
		tell_access(r, 0, addr, value, 1, x.pc);
}

static void on_reti(void *ud, uint8_t vector)
{
	replay *r = ud;
	expect_all(r, rerun_reti(r->s, vector));
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_reti)
			r->obs[i].on_reti(r->obs[i].ud, vector);
}

static void on_insn(void *ud, uint32_t pc, uint32_t cycles, const sim_access *acc,
		    unsigned nacc)
{
	replay *r = ud;
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_insn)
			r->obs[i].on_insn(r->obs[i].ud, pc, cycles);
	if (nacc)
		tell_access(r, 1, acc->addr, acc->value, acc->write, pc);
}

static void on_raise(void *ud, uint8_t vector)
{
	replay *r = ud;
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_raise)
			r->obs[i].on_raise(r->obs[i].ud, vector);
}

static void on_sleep(void *ud)
{
	replay *r = ud;
	expect_all(r, rerun_sleep(r->s));
}

static void on_wake(void *ud)
{
	replay *r = ud;
	expect_all(r, rerun_wake(r->s));
}

static void on_reset(void *ud)
{
	replay *r = ud;
	expect_all(r, rerun_reset(r->s));
}

/* The n-th recorded interrupt's key (1 <= n <= nirq) under the replayed
 * configuration: from D, or from its chunk when streamed.  0 after
 * diverging when it cannot be read. */
static uint64_t key_of(replay *r, uint64_t n)
{
	if (!r->streamed)
		return r->fp.key_of[n - 1];
	avrr_err err;
	const db_fingerprint *f = db_fps_at(&r->keys, r->fp_config_id, n, &err);
	if (!f) {
		diverge(r, 0, "the recorded fingerprints", err.msg);
		return 0;
	}
	return fpi_key(&r->fp.cfg, f->ra_part, f->hash_part);
}

/* From now on the n-th interrupt is the next expected.  Under sequence
 * matching only its return address can match, so the sim calls the hook
 * only where the PC has its RA bits, and, when the fingerprint counts
 * cycles, only at the cycles with its counter bits. */
static void expect_next(replay *r, uint64_t n)
{
	r->next_n = n;
	r->next_key = n <= r->nirq ? key_of(r, n) : 0;
	const trace_event *q = !r->o.keep_going && !r->o.oracle && n <= r->nirq
			       ? rerun_cursor_irq(&r->log, n) : NULL;
	r->pending_seq = q ? q->seq : UINT64_MAX;
	if (r->o.oracle || r->o.match != RP_MATCH_SEQUENCE || r->o.window != 1)
		return;
	const fp_config *c = &r->fp.cfg;
	r->s->boundary_gap = 0;  /* new bits: the sim looks afresh */
	r->s->boundary_mask = n <= r->nirq ? (uint32_t)fp_hash_mask(c->ra_bits) : UINT32_MAX;
	r->s->boundary_match = n <= r->nirq ? (uint32_t)fpi_ra_of_key(c, r->next_key)
					    : UINT32_MAX;  /* no PC is 2^33 bytes */
	r->s->boundary_cycle_mask = r->s->boundary_cycle_match = 0;
	if (n > r->nirq || c->hash_bits >= 64)
		return;
	/* The key is ra | counters | hash, the first counter highest. */
	unsigned shift = c->hash_bits;
	for (unsigned i = c->ncounters; i-- > 0; shift += c->counter[i].bits)
		if (c->counter[i].kind == FP_COUNT_CYCLES && shift < 64) {
			uint64_t mask = fp_hash_mask(c->counter[i].bits);
			r->s->boundary_cycle_mask = mask;
			r->s->boundary_cycle_match = r->next_key >> shift & mask;
			return;
		}
}

/* Enters `vector` at the current boundary and checks it against the log. */
static void inject(replay *r, uint8_t vector)
{
	uint32_t ra = sim_pc(r->s);
	if (!r->strayed) {
		const trace_event *q = r->inj_prefix < r->nirq
				       ? rerun_cursor_irq(&r->log, r->inj_prefix + 1) : NULL;
		if (q && q->icount == r->s->icount && q->addr == vector)
			r->inj_prefix++;
		else
			r->strayed = 1;
	}
	if (!r->strayed) {
		/* kept as inj_prefix */
	} else if (r->ninj == r->inj_cap) {
		size_t cap = r->inj_cap ? r->inj_cap * 2 : 4096;
		rp_injection *p = realloc(r->inj, cap * sizeof *p);
		if (!p) {
			diverge(r, vector, "memory for the injection list", "out of memory");
			return;
		}
		r->inj = p;
		r->inj_cap = cap;
	}
	if (r->strayed)
		r->inj[r->ninj++] = (rp_injection){ .icount = r->s->icount, .vector = vector };
	int rc = sim_enter_vector(r->s, vector);
	if (rc) {
		char got[96];
		snprintf(got, sizeof got, rc == SIM_NESTED_FULL
			 ? "vector %u, nested deeper than simavr's 64 levels"
			 : "vector %u, which this MCU does not have", vector);
		diverge(r, vector, "an interrupt the MCU can take", got);
		return;
	}
	expect_all(r, rerun_irq(vector, ra));
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_irq)
			r->obs[i].on_irq(r->obs[i].ud, vector, ra);
}

static int on_step(void *ud)
{
	replay *r = ud;
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_step && r->obs[i].on_step(r->obs[i].ud))
			r->broke = 1;
	return r->broke;
}

/* How a false hit on recorded fingerprint `key` was fooled (OUT_* bits):
 * by a recorded interrupt at the same return address (a loop positive,
 * else an RA one), and by one with the same selector bytes (an input
 * duplicate, else a hash collision; input_key is only read when the index
 * has input keys). */
static unsigned false_hit_kind(const fp_index *x, uint64_t key, uint32_t ra, uint64_t input_key)
{
	return (fpi_has_ra(x, key, ra) ? OUT_LOOP : 0) |
	       (fpi_has_input(x, key, input_key) ? OUT_INPUT : 0);
}

/* Tells the observers of the match about to be injected; whether one
 * vetoed it.  How a false one was fooled, they ask (rp_classify_hit). */
/* The n-th recorded interrupt's icount, read from the log (an import's
 * interrupts are due there); UINT64_MAX when the log cannot give it. */
static uint64_t import_irq_icount(replay *r, uint64_t n)
{
	const trace_event *e = rerun_cursor_irq(&r->log, n);
	return e ? e->icount : UINT64_MAX;
}

static int vetoed(replay *r, uint64_t n, uint8_t vector, uint64_t key)
{
	rp_hit h = { .n = n, .vector = vector, .key = key };
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_match && r->obs[i].on_match(r->obs[i].ud, &h))
			return 1;
	return 0;
}

static int load_stored(const replay *r, db *d, const db_fp_config *c, fp_index *x,
		       const fp_index *inputs_of, avrr_err *err);
static int list_irqs(replay *r, avrr_err *err);

void rp_classify_hit(replay *r, rp_hit *h)
{
	fp_index *x = &r->fp;
	if (r->streamed) {
		/* D, built now: a false hit is rare, and stops the replay
		 * unless it keeps going. */
		avrr_err err;
		if (!r->have_full && load_stored(r, r->d, &r->fp_stored, &r->full, NULL, &err)) {
			diverge(r, 0, "the recorded fingerprints", err.msg);
			return;
		}
		r->have_full = 1;
		x = &r->full;
	}
	fp_state st = { .data = sim_live_data(r->s), .data_size = r->s->data_size,
			.ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
			.transfers = sim_transfers(r->s) };
	uint64_t in = x->has_input_keys ? fp_input_key(&x->cfg, &st) : 0;
	unsigned kind = false_hit_kind(x, h->key, st.ra, in);
	h->same_ra = !!(kind & OUT_LOOP);
	h->same_input = !!(kind & OUT_INPUT);
}

/* The recorded interrupt a set-based match stands for: the first one with
 * this fingerprint at or after the next expected, else the first of all. */
static const fpi_rec *pick_in_log_order(const replay *r, const fpi_slot *slot)
{
	const fpi_rec *recs = r->fp.recs + slot->first;
	uint32_t lo = 0, hi = slot->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (recs[mid].n < r->next_n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &recs[lo < slot->count ? lo : 0];
}

/* Sequence matching: the first of the `window` interrupts expected from
 * the next-th on whose key is `key` and that the log's order allows here,
 * or 0. */
static uint64_t expected_with_key(replay *r, const fp_index *x, uint64_t next,
				  uint64_t key)
{
	for (uint64_t n = next; n < next + r->o.window && n <= r->nirq; n++)
		if (x->key_of[n - 1] == key && rerun_cursor_in_order(&r->log, n, sim_running_vector(r->s)))
			return n;
	return 0;
}

static void fingerprint_boundary(replay *r, const fp_state *st)
{
	const fp_config *c = &r->fp.cfg;
	uint64_t ra_part = fp_reduce_ra(st->ra, c->ra_bits);
	if (r->o.match == RP_MATCH_SEQUENCE && r->o.window == 1) {
		/* Only the next interrupt can match: most boundaries fail on
		 * its return address bits before anything is hashed. */
		if (r->next_n > r->nirq || fpi_ra_of_key(c, r->next_key) != ra_part)
			return;
	} else if (!fpi_ra_possible(&r->fp, ra_part)) {
		return;
	}
	fp_value v = fp_compute(c, st);
	uint64_t key = fpi_key(c, v.ra_part, v.hash_part);
	uint64_t n;
	const fpi_slot *slot;
	if (r->o.match == RP_MATCH_SEQUENCE && r->o.window == 1) {
		/* The one key that can match: no need to ask D. */
		if (key != r->next_key ||
		    !rerun_cursor_in_order(&r->log, r->next_n, sim_running_vector(r->s)))
			return;
		n = r->next_n;
	} else if (!(slot = fpi_find(&r->fp, key))) {
		return;
	} else if (r->o.match == RP_MATCH_SEQUENCE) {
		if (!(n = expected_with_key(r, &r->fp, r->next_n, key)))
			return;
	} else {
		n = pick_in_log_order(r, slot)->n;
		for (uint32_t i = slot->first + 1; i < slot->first + slot->count; i++)
			if (r->fp.recs[i].vector != r->fp.recs[slot->first].vector) {
				r->c.ambiguous++;
				break;
			}
	}
	uint8_t vector;
	if (r->streamed) {
		const trace_event *q = rerun_cursor_irq(&r->log, n);
		if (!q)
			return;
		vector = (uint8_t)q->addr;
	} else {
		vector = r->irq_vector[n - 1];
	}
	if (vetoed(r, n, vector, key))
		return;
	if (r->import && import_irq_icount(r, n) != r->s->icount) {
		/* faithful or loud: the import's replay entered it elsewhere */
		char want[240], irq[200], got[96];
		describe_irq(r, n, irq, sizeof irq);
		snprintf(want, sizeof want, "%.190s at icount %" PRIu64, irq,
			 import_irq_icount(r, n));
		snprintf(got, sizeof got, "its fingerprint matching at icount %" PRIu64,
			 r->s->icount);
		diverge(r, sim_running_vector(r->s), want, got);
		return;
	}
	if (r->import && check_device_irq(r, vector, &v))
		return;
	r->c.injected++;
	inject(r, vector);
	expect_next(r, n + 1);
}

/* ---- the oracle ------------------------------------------------------- */

/* A new boundary: nothing of g(s) is known yet. */
static void group_forget(sel_group *g)
{
	g->bytes = NULL;
	g->have_key = 0;
	memset(g->have, 0, sizeof g->have);
}

/* g(s) for group g at this boundary, gathered once. */
static void group_select(sel_group *g, const fp_state *st)
{
	if (g->bytes)
		return;
	const uint8_t *direct;
	g->n = fp_select(g->cfg, st, g->buf, sizeof g->buf, &direct);
	g->bytes = direct ? direct : g->buf;
}

/* Sequence matching on a counted D: the keys of the interrupts expected
 * next, first .. first+n-1, of stored configuration `config`. */
typedef struct oracle_ahead {
	uint32_t config;
	uint64_t first;
	uint64_t *key;
	size_t n, cap;
} oracle_ahead;

/* The n-th recorded interrupt's key under configuration i (n is at or
 * past the next expected).  0, or -1 after diverging. */
static int oracle_key(replay *r, size_t i, uint64_t n, uint64_t *key)
{
	const fp_index *x = &r->oracle[i];
	if (x->key_of) {
		*key = x->key_of[n - 1];
		return 0;
	}
	oracle_ahead *a = &r->ahead[i];
	if (n < a->first)
		a->n = 0;
	while (n >= a->first + a->n) {
		/* Drop what is behind the next expected, then read on. */
		uint64_t from = a->n ? a->first : n, next = r->truth_pos + 1;
		size_t drop = next > from ? (size_t)(next - from < a->n ? next - from : a->n) : 0;
		if (drop)
			memmove(a->key, a->key + drop, (a->n - drop) * sizeof *a->key);
		a->n -= drop;
		a->first = a->n ? from + drop : n;
		avrr_err err;
		uint64_t want = a->first + a->n;
		if (!db_fps_at(&r->ahead_fps, a->config, want, &err)) {
			diverge(r, 0, "the recorded fingerprints", err.msg);
			return -1;
		}
		const db_fps *c = &r->ahead_fps;
		size_t add = (size_t)(c->first + c->count - want);
		if (a->n + add > a->cap) {
			uint64_t *p = realloc(a->key, (a->n + add) * sizeof *p);
			if (!p) {
				diverge(r, 0, "memory for the recorded fingerprints", "out of memory");
				return -1;
			}
			a->key = p;
			a->cap = a->n + add;
		}
		for (size_t k = 0; k < add; k++) {
			const db_fingerprint *f = &c->buf[want - c->first + k];
			a->key[a->n++] = fpi_key(&x->cfg, f->ra_part, f->hash_part);
		}
	}
	*key = a->key[n - a->first];
	return 0;
}

/* Sequence matching in the oracle: whether one of the `window`
 * interrupts expected next has key `key` and the log's order allows it
 * here (expected_with_key's question, of configuration i). */
static int oracle_expected(replay *r, size_t i, uint64_t key)
{
	if (r->oracle[i].key_of)
		return expected_with_key(r, &r->oracle[i], r->truth_pos + 1, key) != 0;
	for (uint64_t n = r->truth_pos + 1; n < r->truth_pos + 1 + r->o.window && n <= r->nirq; n++) {
		uint64_t k;
		if (oracle_key(r, i, n, &k))
			return 0;
		if (k == key && rerun_cursor_in_order(&r->log, n, sim_running_vector(r->s)))
			return 1;
	}
	return 0;
}

/* A recorded fingerprint that configuration i matches at this boundary:
 * its key, and for a counted D the window's rows with that key. */
typedef struct oracle_hit {
	uint64_t key;
	const fpi_crow *row, *end;
} oracle_hit;

/* Whether configuration i matches at this boundary (*h: what).  Under
 * sequence matching only the next expected interrupts count, as in a
 * fingerprint replay. */
static int oracle_lookup(replay *r, size_t i, sel_group *g, const fp_state *st, oracle_hit *h)
{
	const fp_index *x = &r->oracle[i];
	uint64_t ra_part = fp_reduce_ra(st->ra, x->cfg.ra_bits);
	if (!fpi_ra_possible(x, ra_part))
		return 0;
	uint64_t count = fp_counter_part(&x->cfg, st);
	size_t nrows = 0;
	const fpi_crow *rows = NULL;
	if (x->counted) {
		/* Only the rows of this count can match: mostly none. */
		rows = fpi_counted_at(x->counted, count, &nrows);
		if (x->counted->failed) {
			diverge(r, 0, "the recorded fingerprints, sorted into a temporary file",
				strerror(x->counted->failed));
			return 0;
		}
		if (!nrows)
			return 0;
	}
	group_select(g, st);
	fp_hash_kind k = fp_pick_hash(&x->cfg, st);
	if (!g->have[k]) {
		g->h64[k] = fp_hash(k, g->bytes, g->n, g->hash_bits[k]);
		g->have[k] = 1;
	}
	h->key = fpi_key(&x->cfg, ra_part,
			 fp_state_part(&x->cfg, count, fp_hash_narrow(k, g->h64[k], x->cfg.hash_bits)));
	if (r->o.match == RP_MATCH_SEQUENCE && !oracle_expected(r, i, h->key))
		return 0;
	if (!x->counted)
		return fpi_find(x, h->key) != NULL;
	h->row = fpi_crows_find(rows, nrows, h->key);
	h->end = rows + nrows;
	return h->row != NULL;
}

/* The outcome (OUT_*) of a boundary that is no recorded interrupt. */
static unsigned classify(replay *r, size_t i, sel_group *g, const fp_state *st)
{
	const fp_index *x = &r->oracle[i];
	oracle_hit h;
	if (!oracle_lookup(r, i, g, st, &h))
		return 0;
	if (x->has_input_keys && !g->have_key) {
		g->input_key = fp_input_key_of(g->cfg, g->bytes, g->n);
		g->have_key = 1;
	}
	if (!x->counted)
		return OUT_HIT | false_hit_kind(x, h.key, st->ra, g->input_key);
	int same_ra, same_input;
	fpi_crows_kind(x, h.row, h.end, st->ra, g->input_key, &same_ra, &same_input);
	return OUT_HIT | (same_ra ? OUT_LOOP : 0) | (same_input ? OUT_INPUT : 0);
}

/* The groups that are not batched, at this boundary.  Kept out of line,
 * so the batched path of every instruction stays short. */
static __attribute__((noinline)) void oracle_now(replay *r, sel_group *g, const fp_state *st,
						  int at_truth)
{
	group_forget(g);
	for (unsigned j = 0; j < g->nmembers; j++) {
		size_t i = g->members[j];
		rp_oracle_result *res = &r->results[i];
		oracle_hit h;
		if (!at_truth) {
			count_outcome(res, classify(r, i, g, st), 1);
		} else if (oracle_lookup(r, i, g, st, &h)) {
			res->hits++;
			res->correct++;
		} else {
			res->missed++;
		}
	}
}

/* The oracle at a boundary that needs more than queueing. */
static __attribute__((noinline)) void oracle_boundary(replay *r, const fp_state *st)
{
	uint64_t icount = r->s->icount;
	db_interrupt q = { 0 };
	if (r->truth_pos < r->ntruth && rp_recorded_interrupt(r, r->truth_pos + 1, &q))
		return;
	if (r->truth_pos < r->ntruth && q.icount < icount) {
		char want[96];
		snprintf(want, sizeof want, "interrupt %zu at icount %" PRIu64, r->truth_pos + 1,
			 q.icount);
		diverge(r, 0, want, "no boundary there where the CPU could take it");
		return;
	}
	int at_truth = r->truth_pos < r->ntruth && q.icount == icount;
	for (size_t k = 0; k < r->ngroups; k++) {
		sel_group *g = &r->groups[k];
		if (g->batch)
			batch_add(g->batch, st->ra, st->data, at_truth);
		else
			oracle_now(r, g, st, at_truth);
	}
	if (at_truth) {
		r->truth_pos++;
		r->c.injected++;
		r->c.correct++;
		inject(r, (uint8_t)q.vector);
	}
	if (!r->diverged)
		set_truth_next(r, r->truth_pos < r->ntruth &&
				  !rp_recorded_interrupt(r, r->truth_pos + 1, &q) ? q.icount : UINT64_MAX);
}

/* The oracle's hook.  Most boundaries only queue: that path is kept
 * short, for it runs at nearly every instruction. */
static void oracle_on_boundary(void *ud)
{
	replay *r = ud;
	if (r->s->icount >= r->truth_next || r->unbatched) {
		if (!r->diverged)
			oracle_boundary(r, &(fp_state){ .data = sim_live_data(r->s),
						       .data_size = r->s->data_size,
						       .ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
						       .transfers = transfers_now(r) });
		return;
	}
	const uint8_t *data = sim_live_data(r->s);
	uint32_t ra = sim_pc(r->s);
	for (size_t k = 0; k < r->nbatches; k++)
		batch_add(r->batches[k], ra, data, 0);
}

static void on_boundary(void *ud)
{
	replay *r = ud;
	if (r->diverged)
		return;
	fingerprint_boundary(r, &(fp_state){ .data = sim_live_data(r->s),
					    .data_size = r->s->data_size, .ra = sim_pc(r->s),
					    .cycle = sim_timer_cycles(r->s),
					    .transfers = transfers_now(r) });
}

/* ---- opening ---------------------------------------------------------- */

/* Calls fn with each irq event's vector and return address, in the log's
 * order; fn's non-zero return stops the walk (db_each_event's error). */
typedef int (*irq_fn)(void *ud, uint8_t vector, uint32_t ra);

typedef struct irq_walk {
	irq_fn fn;
	void *ud;
} irq_walk;

static int irq_events(void *ud, const trace_event *ev, size_t n)
{
	const irq_walk *w = ud;
	for (size_t i = 0; i < n; i++)
		if (ev[i].type == TRACE_IRQ && w->fn(w->ud, (uint8_t)ev[i].addr, ev[i].value))
			return -1;
	return 0;
}

static int each_irq(db *d, irq_fn fn, void *ud, avrr_err *err)
{
	irq_walk w = { fn, ud };
	return db_each_event(d, irq_events, &w, err);
}

/* Each interrupt's vector and return address, for the fingerprint index. */
typedef struct irq_lists {
	replay *r;
	size_t n;
} irq_lists;

static int add_irq(void *ud, uint8_t vector, uint32_t ra)
{
	irq_lists *l = ud;
	if (l->n < l->r->nirq) {
		l->r->irq_vector[l->n] = vector;
		l->r->irq_ra[l->n++] = ra;
	}
	return 0;
}

/* Opens the cursor on the log.  db_open validated it: it starts with a
 * reset, and every context is a vector. */
static int index_log(replay *r, avrr_err *err)
{
	if (rerun_cursor_init(&r->log, r->d, err))
		return -1;
	r->nirq = r->log.nirq;
	r->c.interrupts_recorded = r->nirq;
	return 0;
}

/* Each interrupt's vector and return address, which building D needs:
 * a walk over the log. */
static int list_irqs(replay *r, avrr_err *err)
{
	if (r->irq_vector)
		return 0;
	r->irq_vector = malloc(r->nirq + 1);
	r->irq_ra = malloc((r->nirq + 1) * sizeof *r->irq_ra);
	if (!r->irq_vector || !r->irq_ra)
		return avrr_errf(err, "out of memory");
	irq_lists l = { r, 0 };
	if (each_irq(r->d, add_irq, &l, err))
		return -1;
	if (l.n != r->nirq)
		return avrr_errf(err, "%s: the log changed while read", db_name(r->d));
	return 0;
}

/* Whether the oracle evaluates configuration c in a batch (make_groups),
 * which asks its index only what set matching asks (fpi_build's
 * sets_only). */
static int batched(const replay *r, const fp_config *c)
{
	return r->o.oracle && r->o.match == RP_MATCH_SET && batch_suits(c);
}

/* How many passes over a counted D's rows (one per wrap of its counters,
 * and the first) the oracle allows: (1 + wraps) * rows <= instructions /
 * COUNTED_PASS_SHARE.  Reading a row back (32 bytes, in sequence, and a
 * compare) takes a few nanoseconds, replaying an instruction with the
 * oracle about 100 (adcapp: 10^9 in 106 s), so the reading stays within
 * a few per cent of the run's time.  Measured near the bound, cycles:16
 * over 10^7 instructions of adcapp (241 wraps of 8,173 rows) took 0.94 s
 * of user time, the held D 1.3 s.  Past it D is held as before. */
#define COUNTED_PASS_SHARE 4

/* Whether the oracle keeps configuration c's D counted (fpi_counted),
 * on disk in order of its counters, rather than held in memory: when it
 * is not batched and has counters that wrap so few times in the run
 * (from its totals of cycles and of counted transfers) that reading the
 * rows again at each wrap costs little.  The default configuration,
 * cycles:32, wraps once per 2^32 cycles (9 minutes at 8 MHz); a few
 * bits of counter wrap so often that the D is held as before.  Sequence
 * matching reads the keys expected next from the recording, so there a
 * configuration computed from a spec (not `stored`) is held. */
static int counted_fits(const replay *r, const fp_config *c, int stored)
{
	if (!r->o.oracle || !c->ncounters || batched(r, c) ||
	    (r->o.match == RP_MATCH_SEQUENCE && !stored))
		return 0;
	const db_run *run = &r->rep.run;
	uint64_t wraps = 0;
	for (unsigned i = 0; i < c->ncounters; i++)
		wraps += (c->counter[i].kind == FP_COUNT_CYCLES ? run->cycles : run->transfers) >>
			 c->counter[i].bits;
	uint64_t rows = r->nirq ? r->nirq : 1;
	return wraps < run->instructions / COUNTED_PASS_SHARE / rows;
}

/* Each recorded interrupt's fingerprint under one stored configuration,
 * with the vector and return address of its irq event: a walk over the
 * log that reads the fingerprints a chunk at a time alongside, so that
 * nothing per interrupt is held (as a list of return addresses was). */
typedef int (*row_fn)(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err);

typedef struct row_walk {
	db_fps fps;
	uint32_t config;
	row_fn fn;
	void *ud;
	uint64_t n, nirq;             /* n: irq events met */
	int rc;
	avrr_err err;
} row_walk;

/* Interrupt k's row, with its irq event's vector and return address. */
static int walk_row(row_walk *w, uint64_t k, uint8_t vector, uint32_t ra)
{
	const db_fingerprint *at = db_fps_at(&w->fps, w->config, k, &w->err);
	if (!at)
		return -1;
	db_fingerprint f = *at;
	f.vector = vector;
	return w->fn(w->ud, &f, ra, &w->err) ? -1 : 0;
}

/* The next interrupt's row. */
static int walk_irq(void *ud, uint8_t vector, uint32_t ra)
{
	row_walk *w = ud;
	uint64_t k = ++w->n;
	if (k > w->nirq)
		return w->rc = avrr_errf(&w->err, "%s: the log changed while read", db_name(w->fps.d));
	return w->rc = walk_row(w, k, vector, ra);
}

/* The same walk over the oracle's list of interrupts (list_irqs_once),
 * which needs no decoding of the log. */
static int walk_irq_file(const replay *r, row_walk *w)
{
	uint64_t buf[4096];
	int fd = fileno(r->irq_file);
	while (w->n < w->nirq && !w->rc) {
		size_t want = w->nirq - w->n < 4096 ? (size_t)(w->nirq - w->n) : 4096;
		ssize_t got = pread(fd, buf, want * sizeof *buf, (off_t)(w->n * sizeof *buf));
		if (got <= 0 || (size_t)got % sizeof *buf)
			return w->rc = avrr_errf(&w->err, "reading the interrupts' list back: %s",
						 got < 0 ? strerror(errno) : "short read");
		for (size_t i = 0; i < (size_t)got / sizeof *buf && !w->rc; i++)
			walk_irq(w, (uint8_t)(buf[i] >> 32), (uint32_t)buf[i]);
	}
	return w->rc;
}

static int each_row(const replay *r, db *d, uint32_t config, row_fn fn, void *ud, avrr_err *err)
{
	row_walk w = { .config = config, .fn = fn, .ud = ud, .nirq = r->nirq };
	db_fps_open(&w.fps, d);
	if (db_read_begin(d, err))
		return -1;
	int rc = r->irq_file ? walk_irq_file(r, &w) : each_irq(d, walk_irq, &w, err);
	db_read_end(d);
	db_fps_close(&w.fps);
	if (w.rc)
		*err = w.err;
	if (rc || w.rc)
		return -1;
	return w.n == r->nirq ? 0 : avrr_errf(err, "%s: the log changed while read", db_name(d));
}

/* Each interrupt's return address and vector, as one 64-bit word, into an
 * unlinked file that the oracle's configurations read them from: each
 * walked the whole log for them, and the 85 walks were a seventh of
 * oracle85's host instructions on funcsheap_noloop.  On disk, not in
 * memory, where 8 bytes an interrupt would grow with the run. */
typedef struct irq_writer {
	FILE *f;
	uint64_t n;
} irq_writer;

static int write_irq(void *ud, uint8_t vector, uint32_t ra)
{
	irq_writer *w = ud;
	uint64_t word = (uint64_t)vector << 32 | ra;
	if (fwrite(&word, sizeof word, 1, w->f) != 1)
		return -1;
	w->n++;
	return 0;
}

/* Where the list cannot be written (no room in $TMPDIR), each
 * configuration walks the log as before: the same rows, only slower. */
static void list_irqs_once(replay *r)
{
	irq_writer w = { .f = extsort_temp_file() };
	avrr_err ignored;
	if (!w.f)
		return;
	if (each_irq(r->d, write_irq, &w, &ignored) || fflush(w.f) || w.n != r->nirq) {
		fclose(w.f);
		return;
	}
	r->irq_file = w.f;
}

/* Rows into the distinct ones (fpi_distinct). */
static int add_distinct(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	return fpi_distinct_add(ud, f, ra) ? avrr_errf(err, "out of memory") : 0;
}

static int add_counted(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	return fpi_counted_add(ud, f, ra, err);
}

/* Every row, with its return address, as fpi_build takes them. */
typedef struct row_list {
	growbuf rows, ras;          /* db_fingerprint, uint32_t */
} row_list;

static int add_row(void *ud, const db_fingerprint *f, uint32_t ra, avrr_err *err)
{
	row_list *l = ud;
	db_fingerprint *row = grow(&l->rows);
	uint32_t *at = row ? grow(&l->ras) : NULL;
	if (!at)
		return avrr_errf(err, "out of memory");
	*row = *f;
	*at = ra;
	return 0;
}

/* Builds a counted D of cfg from rows[0..n) at return addresses ras. */
static int build_counted(fp_index *x, const fp_config *cfg, const db_fingerprint *rows,
			 const uint32_t *ras, size_t n, avrr_err *err)
{
	if (fpi_counted_begin(x, cfg, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (fpi_counted_add(x, &rows[i], ras[i], err)) {
			fpi_free(x);
			return -1;
		}
	if (fpi_counted_end(x, err)) {
		fpi_free(x);
		return -1;
	}
	return 0;
}

/* Loads stored configuration c into x, sharing the input keys of
 * inputs_of (NULL: none) where it can (fpi_build).  db_open validated one
 * fingerprint per interrupt, within the configuration's bits.  Where the
 * oracle asks only set matching's questions, the rows stream in and only
 * the distinct ones are kept: a long run's D, and the memory it takes to
 * build it, grow with its distinct rows, not with its interrupts.  A
 * counted D (counted_fits) streams them to disk in order of counters. */
static int load_stored(const replay *r, db *d, const db_fp_config *c, fp_index *x,
		       const fp_index *inputs_of, avrr_err *err)
{
	fp_config cfg;
	if (fp_parse(c->spec, r->s->names, r->rep.fw, r->s->data_size, c->name, &cfg, err))
		return -1;
	if (counted_fits(r, &cfg, 1)) {
		if (fpi_counted_begin(x, &cfg, err))
			return -1;
		if (each_row(r, d, c->id, add_counted, x, err) || fpi_counted_end(x, err)) {
			fpi_free(x);
			return -1;
		}
		return 0;
	}
	if (batched(r, &cfg)) {
		fpi_distinct rows = { 0 };
		int rc = each_row(r, d, c->id, add_distinct, &rows, err);
		if (!rc)
			rc = fpi_build(x, &cfg, rows.rows, rows.n, rows.ras, inputs_of, 1, err);
		fpi_distinct_free(&rows);
		/* An index that could not be built of bitsets keeps a record
		 * per interrupt (fpi_build): it needs them all. */
		if (rc || !x->key_of)
			return rc;
		fpi_free(x);
	}
	row_list l = { { .size = sizeof(db_fingerprint) }, { .size = sizeof(uint32_t) } };
	int rc = each_row(r, d, c->id, add_row, &l, err) ||
		 fpi_build(x, &cfg, l.rows.items, l.rows.n, l.ras.items, inputs_of,
			   batched(r, &cfg), err) ? -1 : 0;
	free(l.rows.items);
	free(l.ras.items);
	return rc;
}

static const db_fp_config *find_config(const db_fp_config *cfgs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cfgs[i].name, name))
			return &cfgs[i];
	return NULL;
}

/* Rows computed for configurations the recording does not store. */
typedef struct row_sink {
	db_fingerprint *rows;
	size_t n, cap;
} row_sink;

static int collect_row(void *ud, const db_fingerprint *row, avrr_err *err)
{
	row_sink *s = ud;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		db_fingerprint *p = realloc(s->rows, cap * sizeof *p);
		if (!p)
			return avrr_errf(err, "out of memory");
		s->rows = p;
		s->cap = cap;
	}
	s->rows[s->n++] = *row;
	return 0;
}

/* Builds the D of configurations given as specs, computing their
 * fingerprints as `avrr fingerprint` would, into x[0..nspecs). */
static int load_specs(replay *r, const char *const *specs, unsigned nspecs, fp_index *x,
		      avrr_err *err)
{
	rerun_fpset set;
	row_sink sink = { 0 };
	int rerun, rc = -1;
	if (list_irqs(r, err) || rerun_fpset_parse(specs, nspecs, r->s, &set, err))
		return -1;
	for (unsigned i = 0; i < set.n; i++)
		set.ids[i] = i;
	if (rerun_fingerprints(r->d, &set, collect_row, &sink, r->o.interrupted, &rerun, err))
		goto out;
	/* Rows arrive interrupt by interrupt; split them by configuration. */
	db_fingerprint *mine = malloc((r->nirq + 1) * sizeof *mine);
	if (!mine) {
		avrr_errf(err, "out of memory");
		goto out;
	}
	rc = 0;
	for (unsigned i = 0; i < set.n && !rc; i++) {
		size_t n = 0;
		for (size_t k = 0; k < sink.n && n <= r->nirq; k++)
			if (sink.rows[k].config == i)
				mine[n++] = sink.rows[k];
		if (n != r->nirq)
			rc = avrr_errf(err, "computed %zu fingerprints for %zu interrupts", n, r->nirq);
		else if (counted_fits(r, &set.cfg[i], 0))
			rc = build_counted(&x[i], &set.cfg[i], mine, r->irq_ra, n, err);
		else
			rc = fpi_build(&x[i], &set.cfg[i], mine, n, r->irq_ra, i ? &x[0] : NULL,
				       batched(r, &set.cfg[i]), err);
	}
	free(mine);
out:
	free(sink.rows);
	rerun_fpset_free(&set);
	return rc;
}

/* Whether a and b gather the same bytes and can be evaluated alike: a
 * round-robin marker variable and counters are state outside g(s), which
 * the batch does not see, so their configurations get groups of their own. */
static int same_group(const fp_config *a, const fp_config *b)
{
	int a_var = a->round_robin && a->marker == FP_MARK_VAR;
	int b_var = b->round_robin && b->marker == FP_MARK_VAR;
	return a_var == b_var && !a->ncounters == !b->ncounters && fpi_same_bytes(a, b);
}

/* Splits the oracle's configurations into selector groups. */
static int make_groups(replay *r, avrr_err *err)
{
	for (size_t i = 0; i < r->nconfigs; i++) {
		const fp_config *c = &r->oracle[i].cfg;
		size_t k = 0;
		while (k < r->ngroups && !same_group(r->groups[k].cfg, c))
			k++;
		sel_group *g = &r->groups[k];
		if (k == r->ngroups) {
			r->ngroups++;
			g->cfg = c;
			if (!(g->members = calloc(r->nconfigs, sizeof *g->members)))
				return avrr_errf(err, "out of memory");
		}
		g->members[g->nmembers++] = (unsigned)i;
		widen_hash_bits(g->hash_bits, c);
	}
	for (size_t k = 0; k < r->ngroups; k++) {
		sel_group *g = &r->groups[k];
		if (!batched(r, g->cfg))
			continue;
		const fp_index **members = malloc(g->nmembers * sizeof *members);
		rp_oracle_result **results = malloc(g->nmembers * sizeof *results);
		for (unsigned j = 0; members && results && j < g->nmembers; j++) {
			members[j] = &r->oracle[g->members[j]];
			results[j] = &r->results[g->members[j]];
		}
		g->batch = members && results
			   ? batch_new(members, results, g->nmembers, r->s->data_size,
				       r->o.oracle_table_bits)
			   : NULL;
		free(members);
		free(results);
		if (!g->batch)
			return avrr_errf(err, "out of memory");
	}
	if (!(r->batches = calloc(r->ngroups, sizeof *r->batches)))
		return avrr_errf(err, "out of memory");
	for (size_t k = 0; k < r->ngroups; k++) {
		if (r->groups[k].batch)
			r->batches[r->nbatches++] = r->groups[k].batch;
		else
			r->unbatched = 1;
	}
	/* One batch and nothing else: the simulation queues for it itself. */
	if (r->nbatches == 1 && !r->unbatched)
		r->tap = &r->batches[0]->tap;
	db_interrupt q;
	set_truth_next(r, r->ntruth && !rp_recorded_interrupt(r, 1, &q) ? q.icount : UINT64_MAX);
	return 0;
}

/* Every other stored configuration of the oracle's, from `first` on:
 * cfg[i] (NULL: given as a spec, skipped) into x[i]. */
typedef struct load_share {
	const replay *r;
	db *d;                      /* the other thread opens its own */
	const db_fp_config **cfg;
	fp_index *x;
	const fp_index *lead;       /* loaded first; the others share its inputs */
	size_t n, first;
	int rc;
	avrr_err err;
} load_share;

static void load_every_other(load_share *s)
{
	for (size_t i = s->first; i < s->n && !s->rc; i += 2)
		if (s->cfg[i] && &s->x[i] != s->lead)
			s->rc = load_stored(s->r, s->d, s->cfg[i], &s->x[i], s->lead, &s->err);
}

/* A loading thread: reading rows from SQLite is most of opening a sweep's
 * configurations, so a second connection halves the wait. */
static void *load_thread(void *arg)
{
	load_share *s = arg;
	if (!(s->rc = db_open_again(s->r->d, &s->d, &s->err))) {
		load_every_other(s);
		db_close(s->d);
	}
	return NULL;
}

/* Loads the stored configurations among cfg[0..n) into x[]: the first
 * one, then the others on two threads when there are several. */
static int load_all_stored(const replay *r, const db_fp_config **cfg,
			   fp_index *x, size_t n, avrr_err *err)
{
	size_t first = 0;
	while (first < n && !cfg[first])
		first++;
	if (first == n)
		return 0;
	if (load_stored(r, r->d, cfg[first], &x[first], NULL, err))
		return -1;
	load_share mine = { .r = r, .d = r->d, .cfg = cfg, .x = x, .lead = &x[first], .n = n,
			    .first = 0 };
	load_share other = { .r = r, .cfg = cfg, .x = x, .lead = &x[first], .n = n, .first = 1 };
	pthread_t t;
	int threaded = n > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
		       pthread_create(&t, NULL, load_thread, &other) == 0;
	load_every_other(&mine);
	if (threaded) {
		pthread_join(t, NULL);
	} else {
		other.d = r->d;
		load_every_other(&other);
	}
	if (mine.rc)
		*err = mine.err;
	else if (other.rc)
		*err = other.err;
	return mine.rc || other.rc ? -1 : 0;
}

static int open_oracle(replay *r, const db_fp_config *cfgs, size_t ncfgs,
		       avrr_err *err)
{
	/* The oracle builds and frees hundreds of MB of tables on three
	 * threads; with glibc's heaps growing 128 KB at a time, the kernel
	 * mapped and zeroed their pages again and again (measured: 0.5 s of
	 * system time in a 0.6 s run).  Growing 64 MB at a time makes that
	 * 0.1 s; untouched pages cost nothing. */
	mallopt(M_TOP_PAD, 64 << 20);
	if (!r->scored)
		return avrr_errf(err, "the oracle follows the ground truth, and this recording "
				 "was stripped of it");
	size_t n = r->o.noracle_configs ? r->o.noracle_configs : ncfgs;
	if (!n)
		return avrr_errf(err, "no fingerprint configuration to evaluate; give --fp SPEC");
	r->oracle = calloc(n, sizeof *r->oracle);
	r->results = calloc(n, sizeof *r->results);
	r->groups = calloc(n, sizeof *r->groups);
	r->ahead = calloc(n, sizeof *r->ahead);
	const char **specs = calloc(n, sizeof *specs);
	const db_fp_config **stored = calloc(n, sizeof *stored);
	size_t *spec_slot = calloc(n, sizeof *spec_slot), nspecs = 0;
	int rc = 0;
	if (!r->oracle || !r->results || !r->groups || !r->ahead || !specs || !stored || !spec_slot)
		rc = avrr_errf(err, "out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		stored[i] = r->o.noracle_configs ? find_config(cfgs, ncfgs, r->o.oracle_configs[i])
						 : &cfgs[i];
		if (stored[i])
			r->ahead[i].config = stored[i]->id;
		if (!stored[i]) {
			spec_slot[nspecs] = i;
			specs[nspecs++] = r->o.oracle_configs[i];
		}
	}
	if (!rc && n > 1)
		list_irqs_once(r);
	if (!rc)
		rc = load_all_stored(r, stored, r->oracle, n, err);
	free(stored);
	r->nconfigs = n;
	if (!rc && nspecs) {
		fp_index *tmp = calloc(nspecs, sizeof *tmp);
		rc = tmp ? load_specs(r, specs, (unsigned)nspecs, tmp, err)
			 : avrr_errf(err, "out of memory");
		for (size_t k = 0; tmp && k < nspecs; k++) {
			if (rc)
				fpi_free(&tmp[k]);
			else
				r->oracle[spec_slot[k]] = tmp[k];
		}
		free(tmp);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		snprintf(r->results[i].name, sizeof r->results[i].name, "%s", r->oracle[i].cfg.name);
		snprintf(r->results[i].spec, sizeof r->results[i].spec, "%s", r->oracle[i].cfg.spec);
	}
	if (!rc)
		rc = make_groups(r, err);
	free(specs);
	free(spec_slot);
	return rc;
}

static int open_fingerprint(replay *r, const db_fp_config *cfgs, size_t ncfgs, avrr_err *err)
{
	const db_fp_config *c;
	if (r->o.fp_name) {
		if (!(c = find_config(cfgs, ncfgs, r->o.fp_name)))
			return avrr_errf(err, "no fingerprint configuration '%s' in the recording "
					 "(see avrr info)", r->o.fp_name);
	} else if (!(c = find_config(cfgs, ncfgs, FP_DEFAULT_NAME)) && !(c = ncfgs ? cfgs : NULL)) {
		return avrr_errf(err, "the recording has no fingerprints; add some with "
				 "avrr fingerprint RUN.db --fp SPEC");
	}
	r->fp_stored = *c;
	r->fp_config_id = c->id;
	r->streamed = r->o.match == RP_MATCH_SEQUENCE && r->o.window == 1;
	if (r->streamed ? fp_parse(c->spec, r->s->names, r->rep.fw, r->s->data_size, c->name,
				   &r->fp.cfg, err)
			: list_irqs(r, err) || load_stored(r, r->d, c, &r->fp, NULL, err))
		return -1;
	expect_next(r, 1);
	return r->diverged ? avrr_errf(err, "%s", r->div.actual) : 0;
}

static int counts_transfers(const fp_config *c)
{
	for (unsigned i = 0; i < c->ncounters; i++)
		if (c->counter[i].kind == FP_COUNT_SIC)
			return 1;
	return 0;
}

/* Whether any configuration replayed reads the software instruction
 * counter, which the sim then has to keep. */
static int needs_transfers(const replay *r)
{
	if (!r->o.oracle)
		return counts_transfers(&r->fp.cfg);
	for (size_t i = 0; i < r->nconfigs; i++)
		if (counts_transfers(&r->oracle[i].cfg))
			return 1;
	return 0;
}

/* An import's device log, from the recording: parsed again (its CRCs
 * checked), of this firmware, its items up to the first loss. */
static int open_device_log(replay *r, avrr_err *err)
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

int rp_open(const char *path, const rp_options *o, replay **out, avrr_err *err)
{
	*out = NULL;
	db *d;
	if (db_open(path, 0, &d, err))
		return -1;
	return rp_open_db(d, o, out, err);
}

int rp_open_db(db *d, const rp_options *o, replay **out, avrr_err *err)
{
	*out = NULL;
	replay *r = calloc(1, sizeof *r);
	if (!r) {
		db_close(d);
		return avrr_errf(err, "out of memory");
	}
	r->d = d;
	db_fps_open(&r->keys, d);
	db_fps_open(&r->ahead_fps, d);
	r->o = *o;
	if (!r->o.window)
		r->o.window = RP_DEFAULT_WINDOW;
	r->pending_seq = UINT64_MAX;
	r->ovf_vector = -1;
	db_fp_config *cfgs = NULL;
	size_t ncfgs = 0;
	int rc = -1;
	if (rerun_replica_open_cached(r->d, o->fw_cache, &r->rep, err))
		goto out;
	r->s = r->rep.s;
	/* An import of a device log has positions when its replay at import
	 * reached the device's end; without them only `avrr replay` replays
	 * it (device/devreplay.h), and says where it stops. */
	if (r->rep.run.interrupt_rule && !strcmp(r->rep.run.interrupt_rule, DEVREPLAY_RULE)) {
		if (!r->rep.run.instructions) {
			avrr_errf(err, "%s: an import of a device log without positions (its replay "
				  "stopped at import): only avrr replay replays it (docs/device.md)",
				  db_name(r->d));
			goto out;
		}
		r->import = 1;
		const fw_symbol *sic = fw_find_symbol(r->rep.fw, FP_SIC_SYMBOL);
		if (sic && sic->space == FW_SYM_DATA && sic->size >= 1 && sic->size <= 4 &&
		    sic->addr + sic->size <= r->s->data_size) {
			r->sic_addr = (uint16_t)sic->addr;
			r->sic_bytes = sic->size;
		}
	}
	if (index_log(r, err) || db_load_fp_configs(r->d, &cfgs, &ncfgs, err))
		goto out;
	if (r->rep.run.has_ground_truth) {
		r->ntruth = r->nirq;  /* db_open checked: one per irq event */
		r->c.scored = r->scored = 1;
	}
	if (o->oracle ? open_oracle(r, cfgs, ncfgs, err)
		      : open_fingerprint(r, cfgs, ncfgs, err))
		goto out;
	if (r->import && open_device_log(r, err))
		goto out;
	if (trace_watch_io(r->s, err))
		goto out;
	/* An import's log also holds the device's reads of inputs trace/log.h
	 * does not trace (devlog_input_names: ICRn, ...), but for the log's
	 * own register, which the import's replay watched only if traced. */
	uint8_t inputs[FP_INPUT_SPACE];
	if (r->import && r->s->names && devlog_inputs(r->s->names, inputs))
		for (unsigned a = 0; a < FP_INPUT_SPACE; a++)
			if (inputs[a] && a != r->log_reg && sim_watch_read(r->s, (uint16_t)a, err))
				goto out;
	sim_set_replay(r->s, 1);
	sim_count_transfers(r->s, needs_transfers(r));
	sim_set_tap(r->s, r->tap);
	r->s->hooks = (sim_hooks){
		.ud = r, .on_boundary = o->oracle ? oracle_on_boundary : on_boundary,
		.on_read = on_read, .on_write = on_write,
		.on_reti = on_reti, .on_sleep = on_sleep, .on_wake = on_wake, .on_reset = on_reset,
		.on_insn = on_insn, .on_raise = on_raise,
	};
	if (r->scored && !o->oracle &&
	    !(r->scorer = score_attach(r, r->ntruth, !o->keep_going, &r->c, err)))
		goto out;
	rc = 0;
out:
	free(cfgs);
	if (rc)
		rp_close(r);
	else
		*out = r;
	return rc;
}

void rp_close(replay *r)
{
	if (!r)
		return;
	if (r->irq_file)
		fclose(r->irq_file);
	for (size_t i = 0; r->oracle && i < r->nconfigs; i++)
		fpi_free(&r->oracle[i]);
	for (size_t i = 0; r->ahead && i < r->nconfigs; i++)
		free(r->ahead[i].key);
	free(r->ahead);
	for (size_t k = 0; k < r->ngroups; k++) {
		free(r->groups[k].members);
		batch_free(r->groups[k].batch);
	}
	free(r->oracle);
	free(r->batches);
	free(r->results);
	free(r->groups);
	fpi_free(&r->fp);
	fpi_free(&r->full);
	db_fps_close(&r->keys);
	db_fps_close(&r->ahead_fps);
	rerun_cursor_free(&r->log);
	free(r->ev);
	free(r->irq_vector);
	free(r->irq_ra);
	score_free(r->scorer);
	free(r->inj);
	rerun_replica_close(&r->rep);
	devlog_free(&r->dev);
	db_close(r->d);
	free(r);
}

/* ---- running ---------------------------------------------------------- */

/* At the end: every recorded event must have happened. */
static void check_log_consumed(replay *r)
{
	unsigned ctx = 0;
	const trace_event *first = rerun_cursor_first_left(&r->log, &ctx);
	if (first) {
		char want[200];
		trace_event f = *first;
		const trace_event *q = f.type == TRACE_IRQ && r->next_n <= r->nirq
				       ? rerun_cursor_irq(&r->log, r->next_n) : NULL;
		if (q && q->seq == f.seq)
			describe_irq(r, r->next_n, want, sizeof want);
		else
			trace_describe(r->s, f.type, f.addr, f.value, 1, want, sizeof want);
		diverge(r, ctx, want, "the end of the recording");
	}
	if (!r->diverged && r->import && r->dev_at < r->ndev) {
		char want[200], next[160];
		describe_device_item(r, next, sizeof next);
		snprintf(want, sizeof want, "the device's log's next: %s", next);
		diverge(r, 0, want, "the end of the recording");
	}
}

/* An import's next interrupt did not come at `due`, the icount where the
 * import's replay entered it: its fingerprint did not match there. */
static void missed_import_irq(replay *r, uint64_t due)
{
	char want[240], irq[200], got[160];
	describe_irq(r, r->next_n, irq, sizeof irq);
	snprintf(want, sizeof want, "%.190s at icount %" PRIu64, irq, due);
	snprintf(got, sizeof got, "no match of its fingerprint there (icount %" PRIu64 " passed)",
		 due);
	diverge(r, sim_running_vector(r->s), want, got);
}

/* Ends the slice [icount, *limit) / cycles before *clim at the points
 * the observers need decided. */
static void slice_at_due(const replay *r, uint64_t *limit, uint64_t *clim)
{
	for (unsigned i = 0; i < r->nobs; i++) {
		uint64_t icount = UINT64_MAX, cycle = UINT64_MAX;
		if (!r->obs[i].due)
			continue;
		r->obs[i].due(r->obs[i].ud, &icount, &cycle);
		if (r->s->icount < icount && icount < *limit)
			*limit = icount;
		else if (r->s->icount == icount && cycle < UINT64_MAX && cycle + 1 < *clim)
			*clim = cycle + 1;
	}
}

static rp_stop run_until(replay *r, uint64_t until)
{
	const uint64_t end = r->rep.run.instructions;
	uint64_t target = until && until < end ? until : end;
	while (!r->diverged && r->s->icount < target) {
		if (r->o.interrupted && *r->o.interrupted)
			return RP_STOPPED;
		/* Slices end where an observer needs a point decided (the
		 * scorer: the next recorded interrupt's icount, then, asleep
		 * there, its cycle); and after a while of sleep too, so a stop
		 * request is seen while the CPU sleeps. */
		uint64_t limit = r->s->icount + (1u << 18), clim = sim_cycle(r->s) + (1u << 24);
		limit = limit < target ? limit : target;
		slice_at_due(r, &limit, &clim);
		/* An import: the next interrupt is due at its stored icount; the
		 * slice ends just past it, to see that it came. */
		uint64_t due = r->import && r->next_n <= r->nirq
			       ? import_irq_icount(r, r->next_n) : UINT64_MAX;
		if (due < UINT64_MAX && r->s->icount <= due && due + 1 < limit)
			limit = due + 1;
		sim_stop why = sim_run(r->s, limit, clim, &r->stop);
		if (due < UINT64_MAX && !r->diverged && r->s->icount > due &&
		    r->next_n <= r->nirq && import_irq_icount(r, r->next_n) == due)
			missed_import_irq(r, due);
		for (unsigned i = 0; i < r->nobs && !r->diverged; i++)
			if (r->obs[i].on_slice)
				r->obs[i].on_slice(r->obs[i].ud);
		if (why == SIM_STOP_DONE || why == SIM_STOP_ASLEEP || why == SIM_STOP_CRASHED)
			return r->diverged ? RP_DIVERGED : RP_CPU_STOPPED;
		if (r->broke && !r->diverged) {
			r->broke = 0;
			return RP_BREAK;
		}
	}
	if (r->diverged)
		return RP_DIVERGED;
	if (target < end)
		return RP_LIMIT;
	/* A recording stopped by cycles may end in sleep, past its last
	 * instruction: time runs on to the recorded cycle.  One stopped by
	 * instructions ends at its last instruction. */
	if (!strcmp(r->rep.run.stop_reason, DB_STOP_CYCLES) && sim_cycle(r->s) < r->rep.run.cycles)
		sim_run(r->s, 0, r->rep.run.cycles, &r->stop);
	if (!r->diverged && r->s->icount != end) {
		char want[64], got[64];
		snprintf(want, sizeof want, "the end at icount %" PRIu64, end);
		snprintf(got, sizeof got, "cycle %" PRIu64 " at icount %" PRIu64, sim_cycle(r->s),
			 r->s->icount);
		diverge(r, sim_running_vector(r->s), want, got);
	}
	check_log_consumed(r);
	return r->diverged ? RP_DIVERGED : RP_END;
}

/* Waits for the oracle's queued boundaries and adds them to its results. */
static void settle_batches(replay *r)
{
	for (size_t k = 0; k < r->ngroups; k++)
		if (r->groups[k].batch)
			batch_settle(r->groups[k].batch);
}

rp_stop rp_run(replay *r, uint64_t until)
{
	rp_stop why = run_until(r, until);
	settle_batches(r);
	return why;
}

rp_stop rp_run_reporting(replay *r, uint64_t until,
			 void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud)
{
	rp_stop why;
	/* Settled once, at the end: settling waits for the evaluation to
	 * catch up, which would leave a processor idle at every slice. */
	do {
		uint64_t next = rp_icount(r) + (1u << 22);
		why = run_until(r, next < until ? next : until);
		if (progress)
			progress(ud, rp_icount(r), until);
	} while (why == RP_LIMIT && rp_icount(r) < until);
	settle_batches(r);
	return why;
}

uint64_t rp_icount(const replay *r)
{
	return r->s->icount;
}

uint64_t rp_length(const replay *r)
{
	return r->rep.run.instructions;
}

const char *rp_config_name(const replay *r)
{
	return r->o.oracle ? NULL : r->fp.cfg.name;
}

const rp_counters *rp_get_counters(replay *r)
{
	r->c.instructions = r->s->icount;
	if (r->o.oracle) {
		r->c.missed = 0;
		for (size_t i = 0; i < r->nconfigs; i++)
			r->c.missed += r->results[i].missed;
	} else if (r->scorer) {
		/* Missed so far: passed without a correct injection.  The
		 * current boundary has been decided, so it counts too. */
		score_settle(r->scorer, r->s->icount + 1);
	}
	return &r->c;
}

int rp_went_wrong(replay *r)
{
	const rp_counters *c = rp_get_counters(r);
	return r->diverged || c->false_loop || c->false_ra || c->missed;
}

const rp_divergence *rp_get_divergence(const replay *r)
{
	return r->diverged ? &r->div : NULL;
}

/* The first inj_prefix interrupts' icount and vector, into a list. */
typedef struct inj_fill {
	rp_injection *to;
	size_t n, want;
} inj_fill;

static int fill_injections(void *ud, const trace_event *ev, size_t n)
{
	inj_fill *f = ud;
	for (size_t i = 0; i < n && f->n < f->want; i++)
		if (ev[i].type == TRACE_IRQ)
			f->to[f->n++] = (rp_injection){ .icount = ev[i].icount,
							.vector = (uint8_t)ev[i].addr };
	return 0;
}

const rp_injection *rp_injections(replay *r, size_t *n)
{
	if (r->inj_prefix) {
		/* Listed now, and kept from now on: few ask. */
		size_t total = (size_t)r->inj_prefix + r->ninj;
		rp_injection *all = malloc(total * sizeof *all);
		inj_fill f = { all, 0, (size_t)r->inj_prefix };
		avrr_err unused;
		if (!all || db_each_event(r->d, fill_injections, &f, &unused) || f.n != f.want) {
			free(all);
			*n = 0;
			return NULL;
		}
		if (r->ninj)  /* r->inj is NULL before the first kept */
			memcpy(all + f.n, r->inj, r->ninj * sizeof *all);
		free(r->inj);
		r->inj = all;
		r->ninj = r->inj_cap = total;
		r->inj_prefix = 0;
		r->strayed = 1;
	}
	*n = r->ninj;
	return r->inj;
}

const rp_oracle_result *rp_oracle_results(const replay *r, size_t *n)
{
	*n = r->o.oracle ? r->nconfigs : 0;
	return r->results;
}

sim *rp_sim(replay *r)
{
	return r->s;
}

const firmware *rp_firmware(const replay *r)
{
	return r->rep.fw;
}

/* Sets the sim's hooks to what the observers listen to: the step hook,
 * and the observed loop for instructions, SRAM and raised flags. */
static int listen(replay *r, avrr_err *err)
{
	int insns = 0, steps = 0;
	for (unsigned i = 0; i < r->nobs; i++) {
		insns |= r->obs[i].on_insn || r->obs[i].on_sram || r->obs[i].on_raise;
		steps |= r->obs[i].on_step != NULL;
	}
	r->s->hooks.on_step = steps ? on_step : NULL;
	return sim_set_observed(r->s, insns, err);
}

int rp_observe(replay *r, const rp_observer *o, avrr_err *err)
{
	unsigned i = 0;
	while (i < r->nobs && r->obs[i].ud != o->ud)
		i++;
	if (i == RP_MAX_OBSERVERS)
		return avrr_errf(err, "more than %d observers of one replay", RP_MAX_OBSERVERS);
	r->obs[i] = *o;
	r->nobs += i == r->nobs;
	return listen(r, err);
}

void rp_diverge(replay *r, unsigned ctx, const char *expected, const char *actual)
{
	diverge(r, ctx, expected, actual);
}

uint64_t rp_key_here(replay *r)
{
	const fp_config *c = &r->fp.cfg;
	fp_value v = fp_compute(c, &(fp_state){ .data = sim_live_data(r->s),
		.data_size = r->s->data_size, .ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
		.transfers = transfers_now(r) });
	return fpi_key(c, v.ra_part, v.hash_part);
}

uint64_t rp_recorded_key(replay *r, uint64_t n)
{
	return key_of(r, n);
}

void rp_unobserve(replay *r, const void *ud)
{
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].ud == ud) {
			r->obs[i] = r->obs[--r->nobs];
			break;
		}
	avrr_err unused;  /* fewer observers never need memory */
	listen(r, &unused);
}

const trace_event *rp_events(replay *r, size_t *n)
{
	avrr_err unused;  /* unreadable now, it was read at db_open: say nothing */
	if (!r->ev && db_load_events(r->d, &r->ev, &r->nev, &unused))
		r->nev = 0;
	*n = r->nev;
	return r->ev;
}

size_t rp_consumed(const replay *r, unsigned ctx)
{
	return ctx < 256 ? r->log.consumed[ctx] : 0;
}

int rp_recorded_interrupt(replay *r, uint64_t n, db_interrupt *q)
{
	const trace_event *e = rerun_cursor_irq(&r->log, n);
	if (!e) {
		char why[200];
		snprintf(why, sizeof why, "the log: %.180s",
			 r->log.failed ? r->log.err.msg : "an interrupt it lacks");
		diverge(r, 0, "interrupt's irq event", why);
		return -1;
	}
	*q = (db_interrupt){ .idx = n, .icount = e->icount, .cycle = e->cycle, .vector = e->addr,
			     .ra = e->value };
	return 0;
}

void rp_describe_event(const replay *r, const trace_event *e, char *buf, size_t n)
{
	trace_describe(r->s, e->type, e->addr, e->value, 1, buf, n);
}

int rp_fingerprints_here(replay *r,
			 void (*fn)(void *ud, const char *name, uint64_t ra_part, uint64_t hash_part,
				    size_t matches),
			 void *ud, avrr_err *err)
{
	db_fp_config *cfgs = NULL;
	size_t ncfgs = 0;
	if (db_load_fp_configs(r->d, &cfgs, &ncfgs, err))
		return -1;
	fp_state st = { .data = sim_live_data(r->s), .data_size = r->s->data_size,
			.ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
			.transfers = transfers_now(r) };
	int rc = 0;
	for (size_t i = 0; i < ncfgs && !rc; i++) {
		fp_config cfg;
		db_fingerprint *rows = NULL;
		size_t n = 0, matches = 0;
		rc = fp_parse(cfgs[i].spec, r->s->names, r->rep.fw, r->s->data_size, cfgs[i].name,
			      &cfg, err) ||
		     db_load_fingerprints(r->d, cfgs[i].id, 0, &rows, &n, err);
		if (rc)
			break;
		fp_value v = fp_compute(&cfg, &st);
		for (size_t k = 0; k < n; k++)
			matches += rows[k].ra_part == v.ra_part && rows[k].hash_part == v.hash_part;
		fn(ud, cfgs[i].name, v.ra_part, v.hash_part, matches);
		free(rows);
	}
	free(cfgs);
	return rc ? -1 : 0;
}
