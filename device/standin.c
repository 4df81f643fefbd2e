/*
 * standin.c — the stand-in device (see standin.h): the firmware in plain
 * simulation, its log's bytes and its other UARTs' bytes captured, run
 * on past the limit to where the tracer finishes sending a block, so
 * that a replay of the dump can stop at the same point.
 */
#include "device/standin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "device/devreplay.h"
#include "device/devsite.h"
#include "sim/sim.h"
#include "sim/stimuli.h"
#include "trace/uart.h"
#include "util/file.h"

#define DEVICE_DRAIN_MAX 40000000u   /* instructions to find a clean block and finish it */
#define DEVICE_DRAIN_BLOCKS 256u     /* blocks to wait for one that ends clean */

typedef struct capture {
	uint16_t log_reg;
	FILE *log, *uart;
	devstandin_result *res;
	/* stats: cycles by where the PC was (the tracer's log code, its
	 * fingerprint code) and how many interrupts the tracer recorded */
	sim *s;
	uint32_t pc;
	uint64_t cycle;
	uint32_t record_at, read_at, ld_at;
} capture;

/* After each step: the cycles it took go to the code it ran. */
static int on_step(void *ud)
{
	capture *c = ud;
	devstandin_result *r = c->res;
	uint64_t now = sim_cycle(c->s);
	const fw_symbol *f = fw_code_symbol_at(c->s->fw, c->pc);
	uint64_t took = now - c->cycle;
	if (f && !strncmp(f->name, "avrr_log_", 9)) {
		r->log_cycles += took;
		if (!strncmp(f->name, "avrr_log_put", 12))
			r->put_cycles += took;
		else if (!strncmp(f->name, "avrr_log_read", 13))   /* and avrr_log_read_sreg */
			r->read_cycles += took;
		else if (!strncmp(f->name, "avrr_log_ld", 11))
			r->ld_cycles += took;
		else
			r->send_cycles += took;
	} else if (f && (!strncmp(f->name, "avrr_trace_", 11) || !strncmp(f->name, "avrr_hash_", 10) ||
			 !strcmp(f->name, "avrr_oaat"))) {
		r->trace_cycles += took;
	}
	c->cycle = now;
	c->pc = sim_pc(c->s);
	if (c->pc == c->record_at)
		r->interrupts++;
	if (c->pc == c->read_at)
		r->reads++;
	if (c->pc == c->ld_at)
		r->ld_calls++;
	return 0;
}

static void on_write(void *ud, uint16_t addr, uint8_t value)
{
	capture *c = ud;
	if (addr == c->log_reg) {
		fputc(value, c->log);
		c->res->log_bytes++;
		return;
	}
	if (c->uart) {
		fputc(value, c->uart);
		c->res->uart_bytes++;
	}
}

/* Whether the tracer is sending a block (its avrr_log_busy flag). */
static int sending(sim *s, const fw_symbol *busy)
{
	return busy && busy->addr < s->data_size && sim_live_data(s)[busy->addr];
}

/* Watches the log's register and the UARTs' data registers. */
static int watch(sim *s, const devstandin_opts *o, capture *cap, avrr_err *err)
{
	const char *name;
	if (!s->names)
		return avrr_errf(err, "%s: no register tables for %s", o->elf_path, s->mcu);
	int reg = devsite_log_reg(s, o->log_reg, &name, &cap->res->log_reg_from, err);
	if (reg < 0) {
		char why[sizeof err->msg];
		snprintf(why, sizeof why, "%s", err->msg);
		return avrr_errf(err, "%s: %s", o->elf_path, why);
	}
	snprintf(cap->res->log_reg, sizeof cap->res->log_reg, "%s", name ? name : "?");
	cap->log_reg = (uint16_t)reg;
	if (sim_watch_write(s, cap->log_reg, err))
		return -1;
	for (unsigned u = 0; u < TRACE_UARTS; u++) {
		int a = trace_uart_register(s->names, u, NULL);
		if (a >= 0 && a != reg && sim_watch_write(s, (uint16_t)a, err))
			return -1;
	}
	return 0;
}

/* Writes the final state, if asked. */
static int state(sim *s, const devstandin_opts *o, avrr_err *err)
{
	if (o->state_out && devreplay_write_state(s, o->state_out))
		return avrr_errf(err, "%s: %s", o->state_out, strerror(errno));
	return 0;
}

int devstandin_run(const devstandin_opts *o, devstandin_result *res, avrr_err *err)
{
	memset(res, 0, sizeof *res);
	firmware *fw = NULL;
	sim *s = NULL;
	stim_script *script = NULL;
	char *text = NULL;
	capture cap = { .log = o->log, .uart = o->uart, .res = res };
	int rc = -1;
	uint64_t limit = o->instructions ? o->instructions : DEVSTANDIN_DEFAULT_INSTRUCTIONS;
	if (fw_load_file(o->elf_path, &fw, err) || sim_open(fw, o->mcu, o->frequency, &s, err))
		goto done;
	if (o->stim_path && (!(text = util_read_text(o->stim_path, err)) ||
			     stim_parse(text, o->stim_path, &script, err)))
		goto done;
	if (watch(s, o, &cap, err))
		goto done;
	if (script && sim_attach_stimuli(s, script, o->seed_given ? o->seed
					 : stim_default_seed(script), err))
		goto done;
	s->hooks = (sim_hooks){ .ud = &cap, .on_write = on_write };
	if (o->stats) {
		const fw_symbol *rec = fw_find_symbol(fw, "avrr_trace_record");
		const fw_symbol *rd = fw_find_symbol(fw, "avrr_log_read");
		const fw_symbol *ld = fw_find_symbol(fw, "avrr_log_ld");
		cap.s = s;
		cap.record_at = rec ? rec->addr : UINT32_MAX;
		cap.read_at = rd ? rd->addr : UINT32_MAX;
		cap.ld_at = ld ? ld->addr : UINT32_MAX;
		cap.pc = sim_pc(s);
		cap.cycle = sim_cycle(s);
		s->hooks.on_step = on_step;
	}
	sim_stop why = sim_run(s, limit, 0, NULL);
	const fw_symbol *busy = fw_find_symbol(fw, "avrr_log_busy");
	res->has_log = busy != NULL;
	/* Stop where the tracer finishes sending a block (as the replay of
	 * the import does): until it sends one, then until it is done.
	 * A block whose sending other interrupts came into would leave them
	 * in the next block, out of the dump: stop after one that ends with
	 * the block being filled empty (avrr_log_len 0), or, when
	 * DEVICE_DRAIN_BLOCKS blocks never do (a log that loses items), after
	 * the last of them.  Busy firmware may need many: funcsheap under the
	 * default cycles:32 tracer has an interrupt in nearly every send of a
	 * 255-byte block, and took 80 to find one without; funcsheap_noloop
	 * through the UART at 115,200 baud 66 blocks, 9 M instructions. */
	const fw_symbol *len = fw_find_symbol(fw, "avrr_log_len");
	uint64_t extra = 0;
	unsigned tries = 0;   /* a device that always has items pending: a bound */
	/* Where the device is said to stop: the end of the last block sent
	 * in the drain, where a replay of its dump stops too, even when the
	 * search for a clean block ran on past it and gave up while no block
	 * was being sent (the state is written there; the log has nothing
	 * after it). */
	res->end_icount = s->icount;
	res->end_cycle = sim_cycle(s);
	int wrote_state = 0;
	/* A block is begun only in the first half of DEVICE_DRAIN_MAX, so
	 * that the second is there to finish it: a dump cut mid-block is
	 * left only by a sink that never finishes. */
	do {
		for (; why == SIM_STOP_LIMIT && busy && !sending(s, busy) &&
		     extra < DEVICE_DRAIN_MAX / 2; extra++)
			why = sim_run(s, s->icount + 1, 0, NULL);
		int sent = why == SIM_STOP_LIMIT && sending(s, busy);
		for (; why == SIM_STOP_LIMIT && sending(s, busy) && extra < DEVICE_DRAIN_MAX;
		     extra++)
			why = sim_run(s, s->icount + 1, 0, NULL);
		if (sent && why == SIM_STOP_LIMIT && !sending(s, busy)) {
			res->end_icount = s->icount;
			res->end_cycle = sim_cycle(s);
			if (state(s, o, err))
				goto done;
			wrote_state = 1;
		}
	} while (why == SIM_STOP_LIMIT && busy && sending(s, len) && ++tries < DEVICE_DRAIN_BLOCKS &&
		 extra < DEVICE_DRAIN_MAX / 2);
	if (why == SIM_STOP_CRASHED) {
		avrr_errf(err, "%s: the CPU crashed at PC 0x%05x after %llu instructions",
			  o->elf_path, (unsigned)sim_pc(s), (unsigned long long)s->icount);
		goto done;
	}
	if (!wrote_state) {
		res->end_icount = s->icount;
		res->end_cycle = sim_cycle(s);
		if (state(s, o, err))
			goto done;
	}
	rc = 0;
done:
	sim_close(s);
	stim_free(script);
	free(text);
	fw_free(fw);
	return rc;
}
