/*
 * replayer.c — the replay engine's core (see replayer.h, and internal.h
 * for its parts): every event of the run checked against the recorded log
 * (expect), interrupts entered (inject) where a decider chose, the first
 * divergence kept, the observers told, and the run in slices.  The
 * deciders, the index loading and an import's checks are in their own
 * files.  The hot path is the decider's boundary hook (decide.c,
 * oracle.c); the hooks here run only at traced events.
 */
#include "replayer/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/devreplay.h"
#include "rerun/events.h"
#include "trace/log.h"
#include "util/grow.h"

/* Where the oracle's fast path ends: the tap's boundaries too. */
void replay_truth_next(replay *r, uint64_t icount)
{
	r->truth_next = icount;
	if (r->tap)
		r->tap->until = icount;
}

void replay_diverge(replay *r, unsigned ctx, const char *expected, const char *actual)
{
	if (r->diverged)
		return;
	r->diverged = 1;
	r->stop = 1;
	replay_truth_next(r, 0);  /* the oracle's boundaries leave the fast path */
	r->div.icount = sim_icount(r->s);
	r->div.pc = sim_pc(r->s);
	r->div.context = ctx;
	fw_describe_pc(r->rep.fw, r->div.pc, r->div.where, sizeof r->div.where);
	snprintf(r->div.expected, sizeof r->div.expected, "%s", expected);
	snprintf(r->div.actual, sizeof r->div.actual, "%s", actual);
}

/* "interrupt 3 (irq vector 1 (INT0_vect) ra 0x041a)": the n-th one. */
void replay_describe_irq(replay *r, uint64_t n, char *buf, size_t len)
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
		replay_diverge(r, ctx, want, got);
		return NULL;
	}
	if (late) {
		replay_describe_irq(r, r->next_n, irq, sizeof irq);
		snprintf(want, sizeof want, "%.120s first: the log puts it before this event", irq);
	} else if (e) {
		trace_describe(r->s, e->type, e->addr, e->value, 1, want, sizeof want);
	}
	replay_diverge(r, ctx, e ? want : "nothing more in this context's log", got);
	return NULL;
}

/* expect() for an event checked whole. */
static void expect_all(replay *r, rerun_event x)
{
	expect(r, &x, 1);
}

/* Tells the observers of an access: an SRAM one (sram) or an I/O one. */
static void tell_access(replay *r, int sram, uint16_t addr, uint8_t value, int write,
			uint32_t pc)
{
	rp_access a = { .addr = addr, .value = value, .write = (uint8_t)write, .pc = pc,
			.ctx = sim_running_vector(r->s), .icount = sim_icount(r->s) };
	for (unsigned i = 0; i < r->nobs; i++) {
		void (*fn)(void *, const rp_access *) = sram ? r->obs[i].on_sram : r->obs[i].on_io;
		if (fn)
			fn(r->obs[i].ud, &a);
	}
}

static uint8_t on_read(void *ud, uint16_t addr, uint8_t value)
{
	replay *r = ud;
	rerun_event x = rerun_read(r->s, addr, value);
	const trace_event *e = expect(r, &x, 0);
	uint8_t seen = e ? (uint8_t)e->value : value;
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

/* Enters `vector` at the current boundary and checks it against the log. */
void replay_inject(replay *r, uint8_t vector)
{
	uint32_t ra = sim_pc(r->s);
	if (!r->strayed) {
		const trace_event *q = r->inj_prefix < r->nirq
				       ? rerun_cursor_irq(&r->log, r->inj_prefix + 1) : NULL;
		if (q && q->icount == sim_icount(r->s) && q->addr == vector)
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
			replay_diverge(r, vector, "memory for the injection list", "out of memory");
			return;
		}
		r->inj = p;
		r->inj_cap = cap;
	}
	if (r->strayed)
		r->inj[r->ninj++] = (rp_injection){ .icount = sim_icount(r->s), .vector = vector };
	int rc = sim_enter_vector(r->s, vector);
	if (rc) {
		char got[96];
		snprintf(got, sizeof got, rc == SIM_NESTED_FULL
			 ? "vector %u, nested deeper than simavr's 64 levels"
			 : "vector %u, which this MCU does not have", vector);
		replay_diverge(r, vector, "an interrupt the MCU can take", got);
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

/* Tells the observers of the match about to be injected; whether one
 * vetoed it.  How a false one was fooled, they ask (rp_classify_hit). */
int replay_vetoed(replay *r, uint64_t n, uint8_t vector, uint64_t key, const fp_value *v)
{
	rp_hit h = { .n = n, .vector = vector, .key = key, .ra_part = v->ra_part,
		     .hash_part = v->hash_part };
	for (unsigned i = 0; i < r->nobs; i++)
		if (r->obs[i].on_match && r->obs[i].on_match(r->obs[i].ud, &h))
			return 1;
	return 0;
}

int replay_counts_sic(const fp_config *c)
{
	for (unsigned i = 0; i < c->ncounters; i++)
		if (c->counter[i].kind == FP_COUNT_SIC)
			return 1;
	return 0;
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
	r->dec = o->oracle ? &oracle_decider : &fpr_decider;
	db_fps_open(&r->keys, d);
	db_fps_open(&r->ahead_fps, d);
	r->o = *o;
	if (!r->o.window)
		r->o.window = RP_DEFAULT_WINDOW;
	r->pending_seq = UINT64_MAX;
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
		    sic->addr + sic->size <= sim_data_size(r->s)) {
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
	if (r->dec->open(r, cfgs, ncfgs, err))
		goto out;
	if (r->import && import_open(r, err))
		goto out;
	if (trace_watch_io(r->s, err))
		goto out;
	if (r->imp && import_watch_inputs(r->imp, err))
		goto out;
	sim_set_replay(r->s, 1);
	/* The software instruction counter: kept only if a configuration
	 * reads it. */
	sim_count_transfers(r->s, r->dec->reads_sic(r));
	sim_set_tap(r->s, r->tap);
	sim_set_hooks(r->s, &(sim_hooks){
		.ud = r, .on_boundary = r->dec->on_boundary,
		.on_read = on_read, .on_write = on_write,
		.on_reti = on_reti, .on_sleep = on_sleep, .on_wake = on_wake, .on_reset = on_reset,
		.on_insn = on_insn, .on_raise = on_raise,
	});
	if ((r->imp && import_attach(r->imp, err)) || (r->dec->attach && r->dec->attach(r, err)))
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
	r->dec->close(r);
	rerun_cursor_free(&r->log);
	free(r->ev);
	free(r->irq_vector);
	free(r->irq_ra);
	free(r->inj);
	rerun_replica_close(&r->rep);
	import_free(r->imp);
	db_close(r->d);
	free(r);
}

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
			replay_describe_irq(r, r->next_n, want, sizeof want);
		else
			trace_describe(r->s, f.type, f.addr, f.value, 1, want, sizeof want);
		replay_diverge(r, ctx, want, "the end of the recording");
	}
	if (r->imp)
		import_check_end(r->imp);
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
		if (sim_icount(r->s) < icount && icount < *limit)
			*limit = icount;
		else if (sim_icount(r->s) == icount && cycle < UINT64_MAX && cycle + 1 < *clim)
			*clim = cycle + 1;
	}
}

static rp_stop run_until(replay *r, uint64_t until)
{
	const uint64_t end = r->rep.run.instructions;
	uint64_t target = until && until < end ? until : end;
	while (!r->diverged && sim_icount(r->s) < target) {
		if (r->o.interrupted && *r->o.interrupted)
			return RP_STOPPED;
		/* Slices end where an observer needs a point decided (the
		 * scorer: the next recorded interrupt's icount, then, asleep
		 * there, its cycle; an import's checks: just past it, to see
		 * that it came); and after a while of sleep too, so a stop
		 * request is seen while the CPU sleeps. */
		uint64_t limit = sim_icount(r->s) + (1u << 18), clim = sim_cycle(r->s) + (1u << 24);
		limit = limit < target ? limit : target;
		slice_at_due(r, &limit, &clim);
		sim_stop why = sim_run(r->s, limit, clim, &r->stop);
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
	if (!r->diverged && sim_icount(r->s) != end) {
		char want[64], got[64];
		snprintf(want, sizeof want, "the end at icount %" PRIu64, end);
		snprintf(got, sizeof got, "cycle %" PRIu64 " at icount %" PRIu64, sim_cycle(r->s),
			 sim_icount(r->s));
		replay_diverge(r, sim_running_vector(r->s), want, got);
	}
	check_log_consumed(r);
	return r->diverged ? RP_DIVERGED : RP_END;
}

rp_stop rp_run(replay *r, uint64_t until)
{
	rp_stop why = run_until(r, until);
	if (r->dec->settle)
		r->dec->settle(r);
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
	if (r->dec->settle)
		r->dec->settle(r);
	return why;
}

uint64_t rp_icount(const replay *r)
{
	return sim_icount(r->s);
}

uint64_t rp_length(const replay *r)
{
	return r->rep.run.instructions;
}

const char *rp_config_name(const replay *r)
{
	return r->dec->config_name(r);
}

const rp_counters *rp_get_counters(replay *r)
{
	r->c.instructions = sim_icount(r->s);
	r->dec->count(r);
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
	sim_set_step_hook(r->s, steps ? on_step : NULL);
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
	replay_diverge(r, ctx, expected, actual);
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

int replay_irq_unreadable(replay *r)
{
	char why[200];
	snprintf(why, sizeof why, "the log: %.180s",
		 r->log.failed ? r->log.err.msg : "an interrupt it lacks");
	replay_diverge(r, 0, "interrupt's irq event", why);
	return -1;
}

int rp_recorded_interrupt(replay *r, uint64_t n, db_interrupt *q)
{
	return replay_recorded_irq(r, n, q);
}

void rp_describe_event(const replay *r, const trace_event *e, char *buf, size_t n)
{
	trace_describe(r->s, e->type, e->addr, e->value, 1, buf, n);
}
