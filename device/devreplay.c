/*
 * devreplay.c — the replay of an imported device log (see devreplay.h).
 */
#include "devreplay.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>

#include "../db/db.h"
#include "../fingerprint/fingerprint.h"
#include "../fingerprint/instrument.h"
#include "devlog.h"
#include "../sim/firmware.h"
#include "../trace/uart.h"
#include "../util/file.h"

#define DEVREPLAY_DEFAULT_MAX 100000000ull

/* One item of the device's log, in order: an interrupt (its fingerprint's
 * index) or an input read (its value). */
typedef struct item {
	uint8_t read;
	uint8_t value;
	uint32_t fp;
} item;

typedef struct run {
	sim *s;
	fp_config cfg;
	db_fingerprint *fp;
	size_t nfp, next;        /* next: fingerprints entered */
	item *items;
	size_t nitems, at;       /* at: items consumed */
	uint64_t reads;
	uint16_t sic_addr;       /* the device's avrr_sic, when the spec counts sic */
	unsigned sic_bytes;
	uint16_t log_reg, busy_addr, seq_addr;
	uint8_t blocks;          /* the dump's blocks, mod 256 (avrr_log_seq) */
	int have_busy, was_busy, done;
	int ovf_vector;          /* the tracer's own TIMER1_OVF handler's, or -1 */
	const devreplay_opts *o;
	devreplay_result *res;
	uint16_t udr[TRACE_UARTS];
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
	/* SRAM: past the I/O registers (simavr's ioend), whose inputs the
	 * firmware may never have read */
	unsigned from = s->avr->ioend >= 0x5f && s->avr->ioend + 1u < s->data_size
			? s->avr->ioend + 1u : 0x60;
	for (unsigned a = from; a < s->data_size; a++) {
		if (a == from || a % 32 == 0)
			fprintf(f, "sram 0x%04x", a);
		fprintf(f, " %02x", d[a]);
		if (a % 32 == 31 || a + 1 == s->data_size)
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
				 s->mcu);
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

static void on_write(void *ud, uint16_t addr, uint8_t value)
{
	run *r = ud;
	FILE *f = addr == r->log_reg ? r->o->log_out : r->o->uart_out;
	if (f)
		fputc(value, f);
}

/* The log's next interrupt, if it is next and its fingerprint matches
 * here; else NULL. */
static const db_fingerprint *logged_here(run *r)
{
	if (r->at >= r->nitems || r->items[r->at].read || !sim_interrupts_enabled(r->s))
		return NULL;
	const db_fingerprint *want = &r->fp[r->next];
	const uint8_t *data = sim_live_data(r->s);
	/* sic: the device's own counter, as its stub reads it (the simulator's
	 * count would also count the calls the read logging added) */
	uint64_t transfers = sim_transfers(r->s);
	if (r->sic_bytes) {
		transfers = 0;
		for (unsigned i = r->sic_bytes; i-- > 0;)
			transfers = transfers << 8 | data[r->sic_addr + i];
	}
	fp_value v = fp_compute(&r->cfg, &(fp_state){ .data = data,
		.data_size = r->s->data_size, .ra = sim_pc(r->s), .cycle = sim_timer_cycles(r->s),
		.transfers = transfers });
	return v.ra_part == want->ra_part && v.hash_part == want->hash_part ? want : NULL;
}

/* At each boundary with interrupts on: the next interrupt of the log,
 * where its fingerprint matches.  The tracer's own Timer1 overflow handler
 * (a cycles:K counter with K > 16) stores no fingerprint and so has no
 * item in the log: it is entered where simavr would enter it, Timer1
 * overflowing as on the device (the cycle counts in the fingerprints keep
 * the two in step) — unless the log's interrupt is due here too and comes
 * first by priority (a lower vector), as the device would have taken it. */
static void on_boundary(void *ud)
{
	run *r = ud;
	const db_fingerprint *want = logged_here(r);
	if (r->ovf_vector >= 0 && (!want || want->vector > (unsigned)r->ovf_vector) &&
	    sim_next_vector(r->s) == r->ovf_vector) {
		if (sim_enter_vector(r->s, (uint8_t)r->ovf_vector) == 0)
			r->res->overflows++;
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
	r->next++;
	r->at++;
	r->res->injected++;
}

/* A read of an input register: the device's value, if the log has this
 * read next; else the replay stops here, naming the read. */
static uint8_t on_read(void *ud, uint16_t addr, uint8_t value)
{
	run *r = ud;
	if (r->done)
		return value;
	if (r->at < r->nitems && r->items[r->at].read) {
		r->reads++;
		return r->items[r->at++].value;
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
	diverge(r->res, "a read of %s at PC 0x%05x that the device's "
		 "log does not have (read %llu; next in the log: %s)", name ? name : "?",
		 (unsigned)sim_pc(r->s), (unsigned long long)r->reads + 1, next);
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
	run r = { .o = o, .res = res, .ovf_vector = -1 };
	int rc = -1;
	if (db_open(path, 0, &d, err) || db_get_run(d, &meta, err))
		goto out;
	have_meta = 1;
	if (strcmp(meta.interrupt_rule, DEVREPLAY_RULE)) {
		avrr_errf(err, "%s: not a recording avrr import made", path);
		goto out;
	}
	if (db_get_firmware(d, &elf, &nelf, err) ||
	    fw_load_memory(elf, nelf, meta.firmware_path, &fw, err) ||
	    sim_open(fw, meta.mcu, meta.frequency, &r.s, err) ||
	    db_load_fp_configs(d, &cfgs, &ncfg, err))
		goto out;
	if (ncfg != 1) {
		avrr_errf(err, "%s: an import has one configuration, this has %zu", path, ncfg);
		goto out;
	}
	if (fp_parse(cfgs[0].spec, r.s->names, fw, r.s->data_size, cfgs[0].name, &r.cfg, err) ||
	    db_load_fingerprints(d, cfgs[0].id, 0, &r.fp, &r.nfp, err))
		goto out;
	res->expected = r.nfp;
	if (fp_counter_bytes(&r.cfg, FP_COUNT_CYCLES) > 2)
		for (unsigned v = 1; v < 128 && r.ovf_vector < 0; v++) {
			const char *vn = sim_vector_name(r.s, (uint8_t)v);
			if (vn && !strcmp(vn, "TIMER1_OVF_vect"))
				r.ovf_vector = (int)v;
		}
	trace_event *ev = NULL;
	size_t nev = 0;
	if (db_load_events(d, &ev, &nev, err))
		goto out;
	r.items = calloc(nev ? nev : 1, sizeof *r.items);
	if (!r.items) {
		free(ev);
		avrr_errf(err, "out of memory");
		goto out;
	}
	for (size_t i = 0, k = 0; i < nev; i++) {
		if (ev[i].type == TRACE_READ)
			r.items[r.nitems++] = (item){ .read = 1, .value = (uint8_t)ev[i].value };
		else if (ev[i].type == TRACE_IRQ && k < r.nfp)
			r.items[r.nitems++] = (item){ .fp = (uint32_t)k++ };
	}
	free(ev);
	const fw_symbol *busy = fw_find_symbol(fw, "avrr_log_busy");
	const fw_symbol *sic = fw_find_symbol(fw, FP_SIC_SYMBOL);
	if (sic && sic->space == FW_SYM_DATA && sic->size >= 1 && sic->size <= 4 &&
	    sic->addr + sic->size <= r.s->data_size) {
		r.sic_addr = (uint16_t)sic->addr;
		r.sic_bytes = sic->size;
	}
	const fw_symbol *seq = fw_find_symbol(fw, "avrr_log_seq");
	if (busy && busy->space == FW_SYM_DATA && busy->addr < r.s->data_size &&
	    seq && seq->space == FW_SYM_DATA && seq->addr < r.s->data_size) {
		r.have_busy = 1;
		r.busy_addr = (uint16_t)busy->addr;
		r.seq_addr = (uint16_t)seq->addr;
		r.blocks = (uint8_t)meta.seed;   /* import keeps the block count there */
	}
	int reg = devreplay_log_reg(r.s, o->log_reg, err);
	if (reg < 0)
		goto out;
	r.log_reg = (uint16_t)reg;
	if (sim_watch_write(r.s, r.log_reg, err))
		goto out;
	for (unsigned u = 0; u < TRACE_UARTS; u++) {
		int a = r.s->names ? trace_uart_register(r.s->names, u, NULL) : -1;
		if (a >= 0 && a != reg && sim_watch_write(r.s, (uint16_t)a, err))
			goto out;
	}
	uint8_t inputs[FP_INPUT_SPACE];
	if (r.s->names && devlog_inputs(r.s->names, inputs))
		for (unsigned a = 0; a < FP_INPUT_SPACE; a++)
			if (inputs[a] && a != r.log_reg && sim_watch_read(r.s, (uint16_t)a, err))
				goto out;
	sim_set_replay(r.s, 1);
	r.s->hooks = (sim_hooks){ .ud = &r, .on_boundary = on_boundary, .on_step = on_step,
				  .on_write = on_write, .on_read = on_read };
	uint64_t max = o->max_instructions ? o->max_instructions : DEVREPLAY_DEFAULT_MAX;
	sim_stop why = sim_run(r.s, max, 0, NULL);
	res->instructions = r.s->icount;
	res->reads = r.reads;
	for (size_t i = 0; i < r.nitems; i++)
		res->reads_expected += r.items[i].read;
	if (!res->diverged && r.at < r.nitems && r.items[r.at].read) {
		diverge(res, "the device's input read %llu never came "
			 "(%llu instructions)", (unsigned long long)r.reads + 1,
			 (unsigned long long)r.s->icount);
	}
	if (!res->diverged && r.next < r.nfp) {
		const db_fingerprint *f = &r.fp[r.next];
		const char *vn = sim_vector_name(r.s, (uint8_t)f->vector);
		diverge(res, "interrupt %zu of %zu (%s) never matched: %s "
			 "after %llu instructions", r.next + 1, r.nfp, vn ? vn : "?",
			 why == SIM_STOP_LIMIT ? "the limit was reached"
			 : why == SIM_STOP_CRASHED ? "the CPU crashed"
			 : why == SIM_STOP_REQUEST ? "stopped" : "the CPU stopped",
			 (unsigned long long)r.s->icount);
	}
	if (!res->diverged && r.have_busy && why != SIM_STOP_REQUEST) {
		diverge(res, "all %zu interrupts entered, but the tracer did "
			 "not finish sending the last block within %llu instructions: the run went "
			 "elsewhere than the device's", r.nfp, (unsigned long long)r.s->icount);
	}
	if (o->state_out && devreplay_write_state(r.s, o->state_out)) {
		avrr_errf(err, "%s: cannot write", o->state_out);
		goto out;
	}
	rc = 0;
out:
	free(r.fp);
	free(r.items);
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
