/*
 * devreplay.c — the replay of an imported device log (see devreplay.h).
 */
#include "device/devreplay.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/instrument.h"
#include "device/devlog.h"
#include "device/devsite.h"
#include "rerun/events.h"
#include "sim/firmware.h"
#include "trace/log.h"
#include "trace/uart.h"
#include "util/file.h"

#define DEVREPLAY_DEFAULT_MAX 100000000ull

typedef devreplay_item item;

typedef struct run {
	sim *s;
	fp_config cfg;
	const db_fingerprint *fp;
	size_t nfp, next;        /* next: fingerprints entered */
	const item *items;
	size_t nitems, at;       /* at: items consumed */
	uint64_t reads;
	uint16_t sic_addr;       /* the device's avrr_sic, when the spec counts sic */
	unsigned sic_bytes;
	uint16_t log_reg, busy_addr, seq_addr;
	uint8_t blocks;          /* the dump's blocks, mod 256 (avrr_log_seq) */
	int have_busy, was_busy, done;
	int ovf_vector;          /* the tracer's own TIMERn_OVF handler's, or -1 */
	const devreplay_opts *o;
	devreplay_result *res;
	uint16_t udr[TRACE_UARTS];
	uint8_t device_input[FP_INPUT_SPACE];  /* the input set (devlog_inputs) */
	uint8_t traced_output[FP_INPUT_SPACE]; /* writes the log holds (pos) */
	devreplay_positions *pos;              /* NULL: not collected */
} run;

int devreplay_is_import(const char *path)
{
	avrr_err err;
	db *d;
	db_run r;
	/* a look at the run only: the replay that follows validates the file */
	if (!db_is_recording(path) || db_open_written(path, &d, &err))
		return -1;
	int rc = db_get_run(d, &r, &err) ? -1 : !strcmp(r.interrupt_rule, DEVREPLAY_RULE);
	if (rc >= 0)
		db_run_free(&r);
	db_close(d);
	return rc;
}

int devreplay_write_state(sim *s, const char *path)
{
	char tmp[4096];
	FILE *f = util_open_temp(path, tmp, sizeof tmp);
	if (!f)
		return -1;
	const uint8_t *d = sim_live_data(s);
	fprintf(f, "pc 0x%05x\nsp 0x%04x\nsreg 0x%02x\nregs", (unsigned)sim_pc(s),
		(unsigned)sim_sp(s), d[0x5f]);
	for (unsigned r = 0; r < 32; r++)
		fprintf(f, " %02x", d[r]);
	fputs("\n", f);
	/* SRAM: past the I/O registers, whose inputs the firmware may never
	 * have read */
	unsigned from = sim_sram_start(s);
	for (unsigned a = from; a < sim_data_size(s); a++) {
		if (a == from || a % 32 == 0)
			fprintf(f, "sram 0x%04x", a);
		fprintf(f, " %02x", d[a]);
		if (a % 32 == 31 || a + 1 == sim_data_size(s))
			fputs("\n", f);
	}
	return util_close_temp(f, tmp, path, 1);
}

int devreplay_log_reg(sim *s, const char *name, avrr_err *err)
{
	int reg = sim_ioreg_addr(s, name ? name : "UDR0");
	if (reg < 0 && !name)
		reg = sim_ioreg_addr(s, "UDR");
	if (reg < 0)
		return avrr_errf(err, "no register %s on the %s", name ? name : "UDR0 or UDR",
				 sim_mcu(s));
	return reg;
}

/* The replay went elsewhere than the device: why, once. */
__attribute__((format(printf, 2, 3)))
static void diverge(devreplay_result *res, const char *fmt, ...)
{
	va_list ap;
	res->diverged = 1;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof res->why, fmt, ap);
	va_end(ap);
}

void devreplay_positions_free(devreplay_positions *p)
{
	free(p->ev);
	free(p->fp);
	memset(p, 0, sizeof *p);
}

/* The sink of the hooks' events (rerun/events.h): the positions. */
static void note(run *r, rerun_event x)
{
	devreplay_positions *p = r->pos;
	if (!p || p->failed)
		return;
	if (p->nev == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		trace_event *e = realloc(p->ev, cap * sizeof *e);
		if (!e) {
			p->failed = 1;
			return;
		}
		p->ev = e;
		p->cap = cap;
	}
	p->ev[p->nev++] = trace_stamp(&p->w, x.ctx, x.type, sim_icount(r->s), sim_cycle(r->s), x.pc,
				      x.addr, x.value);
}

/* An interrupt entered here with fingerprint f: its irq event and its
 * fingerprint, the next in order. */
static void note_irq(run *r, uint8_t vector, uint32_t ra, const db_fingerprint *f)
{
	devreplay_positions *p = r->pos;
	if (!p || p->failed)
		return;
	note(r, rerun_irq(vector, ra));
	if (p->nfp == p->fp_cap) {
		size_t cap = p->fp_cap ? p->fp_cap * 2 : 1024;
		db_fingerprint *q = realloc(p->fp, cap * sizeof *q);
		if (!q) {
			p->failed = 1;
			return;
		}
		p->fp = q;
		p->fp_cap = cap;
	}
	p->fp[p->nfp] = *f;
	p->fp[p->nfp].n = p->nfp + 1;
	p->fp[p->nfp].vector = vector;
	p->nfp++;
}

static void on_reti(void *ud, uint8_t vector)
{
	run *r = ud;
	note(r, rerun_reti(r->s, vector));
}

static void on_sleep(void *ud)
{
	run *r = ud;
	note(r, rerun_sleep(r->s));
}

static void on_wake(void *ud)
{
	run *r = ud;
	note(r, rerun_wake(r->s));
}

static void on_reset(void *ud)
{
	run *r = ud;
	note(r, rerun_reset(r->s));
}

static void on_write(void *ud, uint16_t addr, uint8_t value)
{
	run *r = ud;
	if (addr < FP_INPUT_SPACE && r->traced_output[addr])
		note(r, rerun_write(r->s, addr, value));
	FILE *f = addr == r->log_reg ? r->o->log_out : r->o->uart_out;
	if (f)
		fputc(value, f);
}

/* The fingerprint of this point, as the device's tracer computes it. */
static fp_value here(const run *r)
{
	const uint8_t *data = sim_live_data(r->s);
	/* sic: the device's own counter, as its stub reads it (the simulator's
	 * count would also count the calls the read logging added) */
	uint64_t transfers = sim_transfers(r->s);
	if (r->sic_bytes) {
		transfers = 0;
		for (unsigned i = r->sic_bytes; i-- > 0;)
			transfers = transfers << 8 | data[r->sic_addr + i];
	}
	return fp_compute(&r->cfg, &(fp_state){ .data = data,
		.data_size = sim_data_size(r->s), .ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
		.transfers = transfers });
}

/* The log's next interrupt, if it is next and its fingerprint matches
 * here; else NULL. */
static const db_fingerprint *logged_here(run *r)
{
	if (r->at >= r->nitems || r->items[r->at].read || !sim_interrupts_enabled(r->s))
		return NULL;
	const db_fingerprint *want = &r->fp[r->items[r->at].fp];
	fp_value v = here(r);
	return v.ra_part == want->ra_part && v.hash_part == want->hash_part ? want : NULL;
}

/* At each boundary with interrupts on: the next interrupt of the log,
 * where its fingerprint matches.  The tracer's own overflow handler
 * (a cycles:K counter with K > 16) stores no fingerprint and so has no
 * item in the log: it is entered where simavr would enter it, its timer
 * overflowing as on the device (the cycle counts in the fingerprints keep
 * the two in step) — unless the log's interrupt is due here too and comes
 * first by priority (a lower vector), as the device would have taken it. */
static void on_boundary(void *ud)
{
	run *r = ud;
	const db_fingerprint *want = logged_here(r);
	uint32_t ra = sim_pc(r->s);
	if (r->ovf_vector >= 0 && (!want || want->vector > (unsigned)r->ovf_vector) &&
	    sim_next_vector(r->s) == r->ovf_vector) {
		fp_value v = r->pos ? here(r) : (fp_value){ 0 };
		if (sim_enter_vector(r->s, (uint8_t)r->ovf_vector) == 0) {
			r->res->overflows++;
			note_irq(r, (uint8_t)r->ovf_vector, ra, &(db_fingerprint){
				.ra_part = v.ra_part, .hash_part = v.hash_part });
		}
		return;
	}
	if (!want)
		return;
	if (sim_enter_vector(r->s, (uint8_t)want->vector) < 0) {
		diverge(r->res, "interrupt %zu (vector %u) matched at "
			 "PC 0x%05x but could not be entered", r->next + 1, want->vector,
			 (unsigned)sim_pc(r->s));
		r->done = 1;
		return;
	}
	note_irq(r, (uint8_t)want->vector, ra, want);
	r->next++;
	r->at++;
	r->res->injected++;
}

/* A read of an input register: the device's value, if the log has this
 * read next; else the replay stops here, naming the read.  A read the
 * device did not log (of a traced register, watched only to position the
 * log, or a skip on a bit the simulation re-creates: devlog_input_read)
 * sees the hardware's value. */
static uint8_t on_read(void *ud, uint16_t addr, uint8_t value)
{
	run *r = ud;
	if (r->done)
		return value;
	if (!devlog_input_read_at(r->device_input, sim_firmware(r->s), sim_pc(r->s), addr) ||
	    devsite_in_tracer(sim_firmware(r->s), sim_pc(r->s))) {
		note(r, rerun_read(r->s, addr, value));
		return value;
	}
	if (r->at < r->nitems && r->items[r->at].read) {
		r->reads++;
		uint8_t v = r->items[r->at++].value;
		note(r, rerun_read(r->s, addr, v));
		return v;
	}
	const char *name = sim_ioreg_name(r->s, addr);
	char next[96];
	if (r->at < r->nitems) {
		const db_fingerprint *f = &r->fp[r->items[r->at].fp];
		const char *vn = sim_vector_name(r->s, (uint8_t)f->vector);
		snprintf(next, sizeof next, "interrupt %zu (%s)", r->next + 1, vn ? vn : "?");
	} else {
		snprintf(next, sizeof next, "its end");
	}
	char where[256];
	devsite_where(sim_firmware(r->s), sim_pc(r->s), where, sizeof where);
	diverge(r->res, "a read of %s at %s that the device's "
		 "log does not have (read %llu; next in the log: %s)", name ? name : "?",
		 where, (unsigned long long)r->reads + 1, next);
	r->done = 1;
	return value;
}

/* After every step: stop where the tracer finished sending the block the
 * last interrupt closed. */
static int on_step(void *ud)
{
	run *r = ud;
	if (r->done)
		return 1;
	if (!r->have_busy)
		return r->at >= r->nitems;
	int busy = sim_live_data(r->s)[r->busy_addr] != 0;
	int fell = r->was_busy && !busy;
	r->was_busy = busy;
	return r->at >= r->nitems && fell && sim_live_data(r->s)[r->seq_addr] == r->blocks;
}

/* Opens the sim for fw and readies r (all but its fingerprints and
 * items): the configuration, the tracer's symbols, the registers watched. */
static int setup(run *r, const firmware *fw, const char *mcu, uint32_t frequency,
		 const char *spec, uint8_t blocks, avrr_err *err)
{
	if (sim_open(fw, mcu, frequency, &r->s, err) ||
	    fp_parse(spec, sim_names(r->s), fw, sim_data_size(r->s), "device", &r->cfg, err))
		return -1;
	if (fp_counter_bytes(&r->cfg, FP_COUNT_CYCLES) > 2)
		r->ovf_vector = devsite_ovf_vector(r->s);
	r->res->ovf_timer = devsite_timer_name(r->s, r->ovf_vector);
	const fw_symbol *busy = fw_find_symbol(fw, "avrr_log_busy");
	const fw_symbol *sic = fw_find_symbol(fw, FP_SIC_SYMBOL);
	if (sic && sic->space == FW_SYM_DATA && sic->size >= 1 && sic->size <= 4 &&
	    sic->addr + sic->size <= sim_data_size(r->s)) {
		r->sic_addr = (uint16_t)sic->addr;
		r->sic_bytes = sic->size;
	}
	const fw_symbol *seq = fw_find_symbol(fw, "avrr_log_seq");
	if (busy && busy->space == FW_SYM_DATA && busy->addr < sim_data_size(r->s) &&
	    seq && seq->space == FW_SYM_DATA && seq->addr < sim_data_size(r->s)) {
		r->have_busy = 1;
		r->busy_addr = (uint16_t)busy->addr;
		r->seq_addr = (uint16_t)seq->addr;
		r->blocks = blocks;
	}
	const devreplay_opts *o = r->o;
	int reg = devreplay_log_reg(r->s, o->log_reg, err);
	if (reg < 0)
		return -1;
	r->log_reg = (uint16_t)reg;
	if (sim_watch_write(r->s, r->log_reg, err))
		return -1;
	for (unsigned u = 0; u < TRACE_UARTS; u++) {
		int a = sim_names(r->s) ? trace_uart_register(sim_names(r->s), u, NULL) : -1;
		if (a >= 0 && a != reg && sim_watch_write(r->s, (uint16_t)a, err))
			return -1;
	}
	if (sim_names(r->s) && devlog_inputs(sim_names(r->s), r->device_input))
		for (unsigned a = 0; a < FP_INPUT_SPACE; a++)
			if (r->device_input[a] && a != r->log_reg &&
			    sim_watch_read(r->s, (uint16_t)a, err))
				return -1;
	if (r->log_reg < FP_INPUT_SPACE)
		r->device_input[r->log_reg] = 0;
	/* Positioning also watches what trace/log.h traces, so that the log
	 * holds what a replay of the recording (replayer.h) will check. */
	if (r->pos) {
		uint16_t addrs[64];
		unsigned n = trace_output_registers(r->s, addrs, 64);
		for (unsigned i = 0; i < n; i++)
			if (addrs[i] < FP_INPUT_SPACE)
				r->traced_output[addrs[i]] = 1;
		if (trace_watch_io(r->s, err))
			return -1;
	}
	return 0;
}

/* Runs r to where the device stopped, or to the first step that disagrees. */
static int go(run *r, avrr_err *err)
{
	devreplay_result *res = r->res;
	const devreplay_opts *o = r->o;
	res->expected = r->nfp;
	sim_set_replay(r->s, 1);
	sim_set_hooks(r->s, &(sim_hooks){ .ud = r, .on_boundary = on_boundary, .on_step = on_step,
					  .on_write = on_write, .on_read = on_read, .on_reti = on_reti,
					  .on_sleep = on_sleep, .on_wake = on_wake,
					  .on_reset = on_reset });
	note(r, rerun_reset(r->s));
	uint64_t max = o->max_instructions ? o->max_instructions : DEVREPLAY_DEFAULT_MAX;
	sim_stop why = sim_run(r->s, max, 0, NULL);
	res->instructions = sim_icount(r->s);
	res->reads = r->reads;
	if (r->pos) {
		r->pos->instructions = sim_icount(r->s);
		r->pos->cycles = sim_cycle(r->s);
	}
	for (size_t i = 0; i < r->nitems; i++)
		res->reads_expected += r->items[i].read;
	if (!res->diverged && r->at < r->nitems && r->items[r->at].read) {
		char where[256];
		devsite_where(sim_firmware(r->s), sim_pc(r->s), where, sizeof where);
		diverge(res, "the device's input read %llu never came "
			 "(%llu instructions; the firmware was at %s)", (unsigned long long)r->reads + 1,
			 (unsigned long long)sim_icount(r->s), where);
	}
	if (!res->diverged && r->next < r->nfp) {
		const db_fingerprint *f = &r->fp[r->next];
		const char *vn = sim_vector_name(r->s, (uint8_t)f->vector);
		diverge(res, "interrupt %zu of %zu (%s) never matched: %s "
			 "after %llu instructions", r->next + 1, r->nfp, vn ? vn : "?",
			 why == SIM_STOP_LIMIT ? "the limit was reached"
			 : why == SIM_STOP_CRASHED ? "the CPU crashed"
			 : why == SIM_STOP_REQUEST ? "stopped" : "the CPU stopped",
			 (unsigned long long)sim_icount(r->s));
	}
	if (!res->diverged && r->have_busy && why != SIM_STOP_REQUEST) {
		diverge(res, "all %zu interrupts entered, but the tracer did "
			 "not finish sending the last block within %llu instructions: the run went "
			 "elsewhere than the device's", r->nfp, (unsigned long long)sim_icount(r->s));
	}
	if (r->pos && r->pos->failed)
		return avrr_errf(err, "out of memory");
	if (o->state_out && devreplay_write_state(r->s, o->state_out))
		return avrr_errf(err, "%s: cannot write", o->state_out);
	return 0;
}

int devreplay_run_log(const devreplay_log *l, const devreplay_opts *o, devreplay_result *res,
		      devreplay_positions *pos, avrr_err *err)
{
	memset(res, 0, sizeof *res);
	if (pos)
		memset(pos, 0, sizeof *pos);
	run r = { .o = o, .res = res, .ovf_vector = -1, .pos = pos, .fp = l->fp, .nfp = l->nfp,
		  .items = l->items, .nitems = l->nitems };
	int rc = setup(&r, l->fw, l->mcu, l->frequency, l->spec, l->blocks, err) ? -1
		 : go(&r, err);
	sim_close(r.s);
	if (rc && pos)
		devreplay_positions_free(pos);
	return rc;
}

/* An import keeps the device's log (db_get_device_log): the items r
 * would replay from the event log must be its items, up to its first
 * loss.  The first that is not is a divergence, named; -1 (err) when the
 * kept log cannot be read. */
static int check_kept_log(const uint8_t *data, size_t n, run *r, avrr_err *err)
{
	devlog l = { 0 };
	int rc = -1;
	if (!data)
		return 0;   /* none kept: nothing to check against */
	if (devlog_parse(data, n, &l, err))
		goto out;
	size_t at = 0, reads = 0, irqs = 0;
	for (size_t i = 0; i < l.nitems && !r->res->diverged; i++) {
		const devlog_item *it = &l.items[i];
		if (it->kind == DEVLOG_ITEM_LOSS)
			break;
		const item *mine = at < r->nitems ? &r->items[at] : NULL;
		int same;
		if (it->kind == DEVLOG_ITEM_READ) {
			same = mine && mine->read && mine->value == it->value;
			reads++;
		} else {
			const db_fingerprint *f = mine && !mine->read ? &r->fp[mine->fp] : NULL;
			uint64_t ra = r->cfg.ra_bits ? it->fp >> r->cfg.state_bits : 0;
			same = f && f->vector == it->vector && f->ra_part == ra &&
			       f->hash_part == (it->fp & fp_hash_mask(r->cfg.state_bits));
			irqs++;
		}
		if (!same)
			diverge(r->res, "the recording's event log is not the device's log it keeps, "
				 "from its %s %zu (byte %zu, block %u)", it->kind == DEVLOG_ITEM_READ
				 ? "input read" : "interrupt", it->kind == DEVLOG_ITEM_READ ? reads
				 : irqs, it->offset, it->block);
		at++;
	}
	if (!r->res->diverged && at < r->nitems)
		diverge(r->res, "the recording's event log has more than the device's log it "
			 "keeps (%zu items)", at);
	rc = 0;
out:
	devlog_free(&l);
	return rc;
}

int devreplay_run(const char *path, const devreplay_opts *o, devreplay_result *res,
		  avrr_err *err)
{
	memset(res, 0, sizeof *res);
	db *d = NULL;
	db_run meta = { 0 };
	int have_meta = 0;
	uint8_t *elf = NULL;
	size_t nelf;
	firmware *fw = NULL;
	db_fp_config *cfgs = NULL;
	size_t ncfg = 0;
	db_fingerprint *fp = NULL;
	size_t nfp = 0;
	trace_event *ev = NULL;
	size_t nev = 0;
	item *items = NULL;
	char *kept_reg = NULL;
	uint8_t *kept = NULL;
	size_t nkept = 0;
	devreplay_opts ko = *o;
	run r = { .o = &ko, .res = res, .ovf_vector = -1 };
	int rc = -1;
	if (db_open(path, 0, &d, err) || db_get_run(d, &meta, err) ||
	    db_get_device_log(d, &kept_reg, &kept, &nkept, err))
		goto out;
	if (!ko.log_reg)   /* the register the import was told */
		ko.log_reg = kept_reg;
	have_meta = 1;
	if (strcmp(meta.interrupt_rule, DEVREPLAY_RULE)) {
		avrr_errf(err, "%s: not a recording avrr import made", path);
		goto out;
	}
	if (db_get_firmware(d, &elf, &nelf, err) ||
	    fw_load_memory(elf, nelf, meta.firmware_path, &fw, err) ||
	    db_load_fp_configs(d, &cfgs, &ncfg, err))
		goto out;
	if (ncfg != 1) {
		avrr_errf(err, "%s: an import has one configuration, this has %zu", path, ncfg);
		goto out;
	}
	/* the import keeps the block count in the seed */
	if (setup(&r, fw, meta.mcu, meta.frequency, cfgs[0].spec, (uint8_t)meta.seed, err) ||
	    db_load_fingerprints(d, cfgs[0].id, 0, &fp, &nfp, err) ||
	    db_load_events(d, &ev, &nev, err))
		goto out;
	items = calloc(nev ? nev : 1, sizeof *items);
	if (!items) {
		avrr_errf(err, "out of memory");
		goto out;
	}
	/* A positioned import (instructions > 0, cmd_import.c) also holds
	 * what its replay found: the reads of registers the device did not
	 * log, and the tracer's counter overflows with the fingerprints
	 * computed there.  The device's items are the rest. */
	int positioned = meta.instructions > 0;
	size_t k = 0;
	for (size_t i = 0, n = 0; i < nev; i++) {
		if (ev[i].type == TRACE_READ &&
		    (!positioned || (devlog_input_read_at(r.device_input, fw, ev[i].pc, ev[i].addr) &&
				     !devsite_in_tracer(fw, ev[i].pc))))
			items[r.nitems++] = (item){ .read = 1, .value = (uint8_t)ev[i].value };
		if (ev[i].type != TRACE_IRQ || n >= nfp)
			continue;
		n++;   /* fp[n - 1] is this interrupt's */
		if (positioned && (int)ev[i].addr == r.ovf_vector)
			continue;
		fp[k] = fp[n - 1];
		items[r.nitems++] = (item){ .fp = (uint32_t)k++ };
	}
	r.fp = fp;
	r.nfp = k;
	r.items = items;
	if (check_kept_log(kept, nkept, &r, err))
		goto out;
	if (res->diverged) {   /* nothing run: what there was to replay */
		res->expected = r.nfp;
		for (size_t i = 0; i < r.nitems; i++)
			res->reads_expected += r.items[i].read;
		rc = 0;
	} else {
		rc = go(&r, err);
	}
out:
	free(kept);
	free(kept_reg);
	free(fp);
	free(ev);
	free(items);
	free(cfgs);
	sim_close(r.s);
	fw_free(fw);
	free(elf);
	if (have_meta)
		db_run_free(&meta);
	if (d)
		db_close(d);
	return rc;
}
