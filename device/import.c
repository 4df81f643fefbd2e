/*
 * import.c — a device log into a recording (see import.h).
 */
#include "device/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db/db.h"
#include "device/devlog.h"
#include "device/devreplay.h"
#include "device/devsite.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/hash.h"
#include "sim/sim.h"
#include "util/digest.h"
#include "util/version.h"

/* The whole of what an import holds while it works: one cleanup path. */
typedef struct work {
	const devimport_opts *o;
	devimport_result *res;
	uint8_t *dump;
	size_t ndump;
	devlog log;
	firmware *fw;
	sim *s;
	fp_config cfg;
	size_t use;                /* items up to the first loss */
	devreplay_item *items;
	db_fingerprint *fps;
	devreplay_positions pos;
	db *d;
} work;

/* err's message after "path: "; -1. */
static int prefixed(avrr_err *err, const char *path)
{
	avrr_err was = *err;
	return avrr_errf(err, "%s: %s", path, was.msg);
}

/* The dump, the ELF, and that the one is of the other. */
static int load(work *w, avrr_err *err)
{
	const devimport_opts *o = w->o;
	if (devlog_read_file(o->dump_path, &w->dump, &w->ndump, err) ||
	    fw_load_file(o->elf_path, &w->fw, err))
		return -1;
	if (devlog_parse(w->dump, w->ndump, &w->log, err)) {
		avrr_err was = *err;
		/* A capture of the wrong register is empty, or another UART's
		 * bytes: the register is what to check (an ELF given for the
		 * dump is another mistake). */
		int other = w->ndump >= 4 && memcmp(w->dump, "AVRL", 4) &&
			    memcmp(w->dump, "\177ELF", 4);
		if (!w->ndump)
			return avrr_errf(err, "%s: empty: nothing was captured; avrr device "
					 "--log-reg NAME captures the register the tracer's sink "
					 "writes", o->dump_path);
		return avrr_errf(err, "%s: %s%s", o->dump_path, was.msg, other
				 ? "; captured from another register than the log's? (avrr "
				   "device --log-reg NAME)" : "");
	}
	uint8_t sha[32], zero[32] = { 0 };
	if (devlog_elf_hash(w->fw->elf, w->fw->elf_size, sha, NULL, err)) 
		return prefixed(err, o->elf_path);
	if (!memcmp(w->log.sha256, zero, 32))
		return avrr_errf(err, "%s: the header's SHA-256 is zero: the firmware was not "
				 "stamped (avrr stamp)", o->dump_path);
	if (memcmp(w->log.sha256, sha, 32)) {
		char a[65], b[65];
		digest_hex(w->log.sha256, a);
		digest_hex(sha, b);
		return avrr_errf(err, "%s: the log is of another firmware: header SHA-256 "
				 "%.16s..., %s's %.16s...", o->dump_path, a, o->elf_path, b);
	}
	if (o->mcu && strcasecmp(o->mcu, w->log.mcu))
		return avrr_errf(err, "%s: the log's header names the %s, not the %s", o->dump_path,
				 w->log.mcu, o->mcu);
	if (sim_open(w->fw, w->log.mcu, o->frequency, &w->s, err) ||
	    fp_parse(w->log.spec, sim_names(w->s), w->fw, sim_data_size(w->s), DEVIMPORT_FP_NAME,
		     &w->cfg, err)) 
		return prefixed(err, o->dump_path);
	if ((w->cfg.ra_bits + w->cfg.state_bits + 7) / 8 != w->log.fp_bytes)
		return avrr_errf(err, "%s: %u bytes per fingerprint for a %u-bit spec",
				 o->dump_path, w->log.fp_bytes, w->cfg.ra_bits + w->cfg.state_bits);
	return 0;
}

/* The items up to the first gap, each interrupt's vector the MCU's. */
static int items(work *w, avrr_err *err)
{
	const devimport_opts *o = w->o;
	devimport_result *res = w->res;
	const devlog *log = &w->log;
	w->use = log->nitems;
	for (size_t i = 0; i < log->nitems; i++)
		if (log->items[i].kind == DEVLOG_ITEM_LOSS) {
			if (!o->allow_gaps)
				return avrr_errf(err, "%s: byte %zu (block %u): the device lost %u "
						 "items here (its buffer was full); --allow-gaps "
						 "imports what comes before", o->dump_path,
						 log->items[i].offset, log->items[i].block,
						 log->items[i].lost);
			w->use = i;
			res->gap = 1;
			res->gap_offset = log->items[i].offset;
			res->gap_block = log->items[i].block;
			res->gap_lost = log->items[i].lost;
			res->gap_left_out = log->nitems - i - 1;
			break;
		}
	for (size_t i = 0; i < w->use; i++) {
		if (log->items[i].kind != DEVLOG_ITEM_FP) {
			res->reads++;
			continue;
		}
		uint8_t v = log->items[i].vector;
		if (!v || !sim_vector_name(w->s, v))
			return avrr_errf(err, "%s: byte %zu (block %u): vector %u, which the %s "
					 "does not have", o->dump_path, log->items[i].offset,
					 log->items[i].block, v, sim_mcu(w->s));
		res->interrupts++;
	}
	w->items = calloc(w->use ? w->use : 1, sizeof *w->items);
	w->fps = calloc(res->interrupts ? res->interrupts : 1, sizeof *w->fps);
	if (!w->items || !w->fps)
		return avrr_errf(err, "out of memory");
	for (size_t i = 0, k = 0; i < w->use; i++) {
		const devlog_item *it = &log->items[i];
		if (it->kind == DEVLOG_ITEM_READ) {
			w->items[i] = (devreplay_item){ .read = 1, .value = it->value };
			continue;
		}
		w->fps[k] = (db_fingerprint){
			.n = k + 1, .vector = it->vector,
			.ra_part = w->cfg.ra_bits ? it->fp >> w->cfg.state_bits : 0,
			.hash_part = it->fp & fp_hash_mask(w->cfg.state_bits),
		};
		w->items[i] = (devreplay_item){ .fp = (uint32_t)k++ };
	}
	return 0;
}

/* The replay that gives the log its positions. */
static int position(work *w, avrr_err *err)
{
	const devimport_opts *o = w->o;
	devimport_result *res = w->res;
	const char *reg;
	if (devsite_log_reg(w->s, o->log_reg, &reg, &res->log_reg_from, err) < 0) 
		return prefixed(err, o->elf_path);
	snprintf(res->log_reg, sizeof res->log_reg, "%s", reg);
	devreplay_opts ro = { .max_instructions = o->max_instructions, .log_reg = res->log_reg };
	devreplay_log dl = { .fw = w->fw, .mcu = sim_mcu(w->s), .frequency = sim_frequency(w->s),
			     .spec = w->log.spec, .fp = w->fps, .nfp = res->interrupts,
			     .items = w->items, .nitems = w->use, .blocks = (uint8_t)w->log.blocks };
	devreplay_result rr;
	if (devreplay_run_log(&dl, &ro, &rr, &w->pos, err)) 
		return prefixed(err, o->dump_path);
	res->positioned = !rr.diverged;
	/* A register found, not given, that is also an input (UDR0 taken
	 * for the UART sink's) is not fed from the log: if the log went
	 * elsewhere, the firmware's own reads of it are what stopped. */
	uint8_t inputs[FP_INPUT_SPACE];
	int a = sim_ioreg_addr(w->s, res->log_reg);
	int suspect = !strcmp(res->log_reg_from, DEVSITE_FROM_GUESS) && sim_names(w->s) &&
		      devlog_inputs(sim_names(w->s), inputs) &&
		      a >= 0 && a < FP_INPUT_SPACE && inputs[a];
	char hint[128] = "";
	if (suspect)
		snprintf(hint, sizeof hint, "; the log's register was taken to be %s, an input "
			 "too: if the log went elsewhere, give --log-reg NAME", res->log_reg);
	if (!res->positioned)
		snprintf(res->stopped, sizeof res->stopped, "%s%s", rr.why, hint);
	res->instructions = w->pos.instructions;
	res->overflows = rr.overflows;
	res->ovf_timer = rr.ovf_timer;
	res->replay_reads = rr.reads;
	res->replay_interrupts = w->pos.nfp;
	res->events = w->pos.nev;
	return 0;
}

/* The events and fingerprints: as the replay placed them, or, without
 * positions, in the log's order with none. */
static int events(work *w, uint32_t config, avrr_err *err)
{
	db *d = w->d;
	if (w->res->positioned) {
		for (size_t i = 0; i < w->pos.nev; i++)
			if (db_add_event(d, &w->pos.ev[i], err))
				return -1;
		for (size_t i = 0; i < w->pos.nfp; i++) {
			w->pos.fp[i].config = config;
			if (db_add_fingerprint(d, &w->pos.fp[i], err))
				return -1;
		}
		return 0;
	}
	trace_writer tw = { 0 };
	trace_event e = trace_stamp(&tw, 0, TRACE_RESET, 0, 0, 0, 0, 0);
	if (db_add_event(d, &e, err))
		return -1;
	for (size_t i = 0; i < w->use; i++) {
		const devlog_item *it = &w->log.items[i];
		if (it->kind == DEVLOG_ITEM_READ) {   /* where: the replay's own read */
			trace_event rd = trace_stamp(&tw, 0, TRACE_READ, 0, 0, 0, 0, it->value);
			if (db_add_event(d, &rd, err))
				return -1;
			continue;
		}
		db_fingerprint f = w->fps[w->items[i].fp];
		f.config = config;
		trace_event irq = trace_stamp(&tw, it->vector, TRACE_IRQ, 0, 0, 0, it->vector, 0);
		trace_event ret = trace_stamp(&tw, it->vector, TRACE_RETI, 0, 0, 0, it->vector, 0);
		if (db_add_fingerprint(d, &f, err) || db_add_event(d, &irq, err) ||
		    db_add_event(d, &ret, err))
			return -1;
	}
	return 0;
}

/* The recording: firmware, configuration, the dump and its register,
 * the events, the run. */
static int write(work *w, avrr_err *err)
{
	const devimport_opts *o = w->o;
	devimport_result *res = w->res;
	uint32_t id;
	if (db_create(o->out, &w->d, err) ||
	    db_put_firmware(w->d, w->fw->sha256, w->fw->elf, w->fw->elf_size, err) ||
	    db_add_fp_config(w->d, DEVIMPORT_FP_NAME, w->log.spec, &id, err) ||
	    /* the device log itself, which a replay checks the events against */
	    db_put_device_log(w->d, res->log_reg, w->dump, w->ndump, err) ||
	    events(w, id, err))
		return -1;
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
	db_run run = {
		.firmware_path = (char *)o->elf_path,
		.firmware_sha256 = w->fw->sha256,
		.mcu = (char *)sim_mcu(w->s),
		.frequency = sim_frequency(w->s),
		/* No stimuli, so no seed: it holds the number of blocks, which
		 * the replay needs to stop where the device stopped. */
		.seed = w->log.blocks,
		.stimuli_path = NULL,
		.stimuli = NULL,
		.tool_version = AVRR_VERSION,
		.interrupt_rule = (char *)DEVREPLAY_RULE,
		.data_size = sim_data_size(w->s),
		.instructions = res->positioned ? w->pos.instructions : 0,
		.cycles = res->positioned ? w->pos.cycles : 0,
		.transfers = 0,
		.stop_reason = (char *)DB_STOP_INSTRUCTIONS,
		.has_ground_truth = 0,
		.created = created,
	};
	if (db_put_run(w->d, &run, err))
		return -1;
	int rc = db_finish(w->d, err);
	w->d = NULL;
	return rc;
}

int devimport_run(const devimport_opts *o, devimport_result *res, avrr_err *err)
{
	memset(res, 0, sizeof *res);
	work w = { .o = o, .res = res };
	int rc = load(&w, err) || items(&w, err) || position(&w, err) || write(&w, err) ? -1 : 0;
	if (!rc) {
		res->blocks = w.log.blocks;
		res->dump_bytes = w.ndump;
		res->bytes.header = w.log.bytes.header;
		res->bytes.blocks = w.log.bytes.blocks;
		res->bytes.interrupts = w.log.bytes.interrupts;
		res->bytes.reads = w.log.bytes.reads;
		res->bytes.loss = w.log.bytes.loss;
	}
	if (w.d)
		db_discard(w.d);
	sim_close(w.s);
	fw_free(w.fw);
	devreplay_positions_free(&w.pos);
	free(w.items);
	free(w.fps);
	devlog_free(&w.log);
	free(w.dump);
	return rc;
}
