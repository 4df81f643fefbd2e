/*
 * recorder.c — the record workflow (see recorder.h).
 *
 * Every event goes through log_stamped(), which stamps it (trace/event.h)
 * with the global sequence number and links it to the previous event of
 * its context (the main program, or the vector of the ISR running), as
 * P-Replayer's happens-before log does.  A failed write stops the run at the next step.
 */
#include "recorder/recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db.h"
#include "sim/sim.h"
#include "sim/stimuli.h"
#include "util/file.h"
#include "util/version.h"
#include "rerun/events.h"
#include "rerun/fingerprints.h"
#include "rerun/replica.h"
#include "trace/log.h"
#include "trace/uart.h"

typedef struct recorder {
	const rec_options *o;
	sim *s;
	db *d;
	avrr_err *err;
	int failed;
	volatile int stop;
	trace_writer log;
	uint64_t interrupts;
	rerun_fpset fps;
	int udr[TRACE_UARTS];      /* each UART's data register, or -1 */
	/* The longest gaps so far, and where the current one began: the last
	 * interrupt point or reset (its icount, and the cycles and transfers
	 * since the reset there). */
	fp_gaps gaps;
	uint64_t gap_icount, gap_timer, gap_transfers;
} recorder;

/* An interrupt point ends the current gap, and begins the next. */
static void end_gap(recorder *r, const sim_irq_point *p)
{
	if (p->timer - r->gap_timer > r->gaps.cycles)
		r->gaps = (fp_gaps){ p->timer - r->gap_timer, r->gap_icount, p->icount,
				     r->gaps.transfers, r->gaps.transfers_from, r->gaps.transfers_to };
	if (p->transfers - r->gap_transfers > r->gaps.transfers) {
		r->gaps.transfers = p->transfers - r->gap_transfers;
		r->gaps.transfers_from = r->gap_icount;
		r->gaps.transfers_to = p->icount;
	}
	r->gap_icount = p->icount;
	r->gap_timer = p->timer;
	r->gap_transfers = p->transfers;
}

static void fail(recorder *r)
{
	r->failed = 1;
	r->stop = 1;
}

/* The sink of the hooks' events (rerun/events.h): the log. */
static void log_stamped(recorder *r, rerun_event x)
{
	if (r->failed)
		return;
	trace_event e = trace_stamp(&r->log, x.ctx, x.type, sim_icount(r->s), sim_cycle(r->s), x.pc,
				    x.addr, x.value);
	if (db_add_event(r->d, &e, r->err))
		fail(r);
}

static void on_irq(void *ud, const sim_irq_point *p)
{
	recorder *r = ud;
	end_gap(r, p);
	log_stamped(r, rerun_irq(p->vector, p->ra));
	db_interrupt q = {
		.idx = ++r->interrupts,
		.icount = p->icount,
		.cycle = p->cycle,
		.vector = p->vector,
		.ra = p->ra,
		.sp = p->sp,
		.context = r->o->store_contexts ? p->data : NULL,
		.context_size = p->data_size,
	};
	if (!r->failed && rerun_digest(p, q.digest)) {
		avrr_errf(r->err, "out of memory");
		fail(r);
	}
	if (!r->failed && db_add_interrupt(r->d, &q, r->err))
		fail(r);
	fp_state st = { .data = p->data, .data_size = p->data_size, .ra = p->ra,
			.cycle = p->timer, .transfers = p->transfers };
	if (!r->failed && rerun_fpset_add(&r->fps, rerun_fp_to_db, r->d, q.idx, p->vector, &st, r->err))
		fail(r);
	if (r->o->max_interrupts && r->interrupts >= r->o->max_interrupts)
		r->stop = 1;
}

static void on_reti(void *ud, uint8_t vector)
{
	recorder *r = ud;
	log_stamped(r, rerun_reti(r->s, vector));
}

static void on_sleep(void *ud)
{
	recorder *r = ud;
	log_stamped(r, rerun_sleep(r->s));
}

static void on_reset(void *ud)
{
	recorder *r = ud;
	log_stamped(r, rerun_reset(r->s));
	/* The counters restart: a gap begins here. */
	r->gap_icount = sim_icount(r->s);
	r->gap_timer = r->gap_transfers = 0;
}

static void on_wake(void *ud)
{
	recorder *r = ud;
	log_stamped(r, rerun_wake(r->s));
}

static uint8_t on_read(void *ud, uint16_t addr, uint8_t value)
{
	recorder *r = ud;
	log_stamped(r, rerun_read(r->s, addr, value));
	return value;
}

static void on_write(void *ud, uint16_t addr, uint8_t value)
{
	recorder *r = ud;
	log_stamped(r, rerun_write(r->s, addr, value));
	if (r->o->uart_tx)
		for (unsigned n = 0; n < TRACE_UARTS; n++)
			if (r->udr[n] == addr)
				r->o->uart_tx(r->o->uart_tx_ud, n, value);
}

static void utc_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Runs in slices so progress can be reported and stop requests honoured:
 * of instructions, and of cycles, which still pass while the CPU sleeps. */
static sim_stop run(recorder *r)
{
	const rec_options *o = r->o;
	const uint64_t slice = 1u << 20;
	for (;;) {
		uint64_t ilim = sim_icount(r->s) + slice, clim = sim_cycle(r->s) + (slice << 4);
		if (o->max_instructions && ilim > o->max_instructions)
			ilim = o->max_instructions;
		if (ilim > DB_MAX_INSTRUCTIONS)  /* a run --interrupts never ends */
			ilim = DB_MAX_INSTRUCTIONS;
		if (o->max_cycles && clim > o->max_cycles)
			clim = o->max_cycles;
		sim_stop why = sim_run(r->s, ilim, clim, &r->stop);
		if (o->warn)
			sim_check_modes(r->s, o->warn, o->warn_ud);
		if (why != SIM_STOP_LIMIT || sim_icount(r->s) >= DB_MAX_INSTRUCTIONS ||
		    (o->max_instructions && sim_icount(r->s) >= o->max_instructions) ||
		    (o->max_cycles && sim_cycle(r->s) >= o->max_cycles))
			return why;
		if (o->interrupted && *o->interrupted)
			return SIM_STOP_REQUEST;
		if (o->progress) {
			if (o->max_instructions)
				o->progress(o->progress_ud, sim_icount(r->s), o->max_instructions);
			else if (o->max_cycles)
				o->progress(o->progress_ud, sim_cycle(r->s), o->max_cycles);
			else
				o->progress(o->progress_ud, r->interrupts, o->max_interrupts);
		}
	}
}

int rec_record(const rec_options *o, int *was_interrupted, avrr_err *err)
{
	*was_interrupted = 0;
	recorder r = { .o = o, .err = err };
	firmware *fw = NULL;
	stim_script *script = NULL;
	char *stimuli = NULL;
	int rc = -1;

	if (!o->max_instructions && !o->max_cycles && !o->max_interrupts) {
		avrr_errf(err, "no stop condition: give --instructions, --cycles or --interrupts");
		goto out;
	}
	if (fw_load_file(o->firmware_path, &fw, err))
		goto out;
	if (o->stimuli_path) {
		if (!(stimuli = util_read_text(o->stimuli_path, err)) ||
		    stim_parse(stimuli, o->stimuli_path, &script, err))
			goto out;
	}
	if (sim_open(fw, o->mcu, o->frequency, &r.s, err))
		goto out;
	uint64_t seed = o->seed_given ? o->seed : script ? stim_default_seed(script) : 0;
	if (script && sim_attach_stimuli(r.s, script, seed, err))
		goto out;
	for (unsigned n = 0; n < TRACE_UARTS; n++)
		r.udr[n] = trace_uart_register(sim_names(r.s), n, NULL);
	if (trace_watch_io(r.s, err) || rerun_fpset_parse(o->fp_specs, o->nfp_specs, r.s, &r.fps, err))
		goto out;
	/* Only once nothing about the inputs is fatal: a refusal comes alone. */
	char problem[1200];
	if (o->warn && fw_debug_info_problem(fw, problem, sizeof problem))
		o->warn(o->warn_ud, problem);
	if (db_create(o->out_path, &r.d, err))
		goto out;
	if (db_put_firmware(r.d, fw->sha256, fw->elf, fw->elf_size, err) ||
	    rerun_fpset_store(&r.fps, r.d, err))
		goto out;
	sim_set_hooks(r.s, &(sim_hooks){
		.ud = &r, .on_irq = on_irq, .on_reti = on_reti, .on_sleep = on_sleep,
		.on_wake = on_wake, .on_reset = on_reset, .on_read = on_read, .on_write = on_write,
	});
	log_stamped(&r, rerun_reset(r.s));  /* the run starts at one */

	sim_stop why = run(&r);
	if (r.failed)
		goto out;
	const char *reason =
		why == SIM_STOP_DONE ? DB_STOP_CPU_DONE :
		why == SIM_STOP_ASLEEP ? DB_STOP_ASLEEP :
		why == SIM_STOP_CRASHED ? DB_STOP_CPU_CRASHED :
		(o->max_interrupts && r.interrupts >= o->max_interrupts) ? DB_STOP_INTERRUPTS :
		((o->max_instructions && sim_icount(r.s) >= o->max_instructions) ||
		 sim_icount(r.s) >= DB_MAX_INSTRUCTIONS) ? DB_STOP_INSTRUCTIONS :
		(o->max_cycles && sim_cycle(r.s) >= o->max_cycles) ? DB_STOP_CYCLES : NULL;
	if (!reason) {
		*was_interrupted = 1;
		avrr_errf(err, "interrupted; no recording written");
		goto out;
	}
	char created[32];
	utc_now(created, sizeof created);
	db_run run_meta = {
		.firmware_path = (char *)o->firmware_path,
		.firmware_sha256 = fw->sha256,
		.mcu = (char *)sim_mcu(r.s),
		.frequency = sim_frequency(r.s),
		.seed = seed,
		.stimuli_path = (char *)o->stimuli_path,
		.stimuli = stimuli,
		.tool_version = AVRR_VERSION,
		.interrupt_rule = SIM_INTERRUPT_RULE,
		.data_size = sim_data_size(r.s),
		.instructions = sim_icount(r.s),
		.cycles = sim_cycle(r.s),
		.transfers = sim_transfers(r.s),
		.stop_reason = (char *)reason,
		.has_ground_truth = 1,
		.created = created,
		.gap_cycles = r.gaps.cycles,
		.gap_cycles_from = r.gaps.cycles_from,
		.gap_cycles_to = r.gaps.cycles_to,
		.gap_transfers = r.gaps.transfers,
		.gap_transfers_from = r.gaps.transfers_from,
		.gap_transfers_to = r.gaps.transfers_to,
	};
	char gap_warning[1024];
	if (o->warn && fp_gap_warning(r.fps.cfg, r.fps.n, &r.gaps, sim_frequency(r.s), gap_warning,
				      sizeof gap_warning))
		o->warn(o->warn_ud, gap_warning);
	if (db_put_run(r.d, &run_meta, err))
		goto out;
	rc = db_finish(r.d, err);
	r.d = NULL;
out:
	db_discard(r.d);
	rerun_fpset_free(&r.fps);
	sim_close(r.s);
	if (script)
		stim_free(script);
	free(stimuli);
	fw_free(fw);
	return rc;
}

/* ---- adding configurations to a finished recording ---------------- */

int rec_add_fingerprints(const char *path, const char *const *specs, unsigned nspecs,
			 volatile int *interrupted, int *used_rerun, avrr_err *err)
{
	db *d = NULL;
	rerun_replica r = { 0 };
	rerun_fpset set = { 0 };
	int rc = -1;
	*used_rerun = 0;
	if (db_open(path, 1, &d, err))
		return -1;
	/* The replica gives the names and symbols the specs are parsed with. */
	if (rerun_replica_open(d, &r, err) || rerun_fpset_parse(specs, nspecs, r.s, &set, err) ||
	    rerun_fpset_store(&set, d, err) ||
	    rerun_fingerprints(d, &set, rerun_fp_to_db, d, interrupted, used_rerun, err))
		goto out;
	rc = db_commit(d, err);
out:
	rerun_replica_close(&r);
	rerun_fpset_free(&set);
	db_close(d);
	return rc;
}
