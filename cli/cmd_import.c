/*
 * cmd_import.c — `avrr import DUMP --elf FW.elf -o RUN.db`: a device log
 * (docs/device.md) and the ELF that ran become a recording with no ground
 * truth and no stimuli.  The whole stream is checked before anything is
 * written; a damaged, truncated or foreign dump is one line, exit 2.
 *
 * The recording holds what the device knew: the firmware, the
 * fingerprint configuration of the header, each fingerprint in order and
 * the input reads' values, in the log's order; the run's interrupt_rule
 * says "device-log" so that no reader takes them for simulated ones.
 * Where and when each interrupt came, and which register each read was,
 * is what a replay finds out: the import replays the log once
 * (devreplay_run_log) and stores the log as that replay saw it, every
 * event with its position, so the shell, gdb and the analyses replay it
 * as any recording (docs/device.md, "Positions").  A log whose replay
 * stops is stored without positions (icount, cycle, return address and a
 * read's address 0, instructions 0), which only `avrr replay` replays,
 * to say where.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "db/db.h"
#include "device/devlog.h"
#include "device/devreplay.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/hash.h"
#include "sim/sim.h"
#include "util/digest.h"
#include "util/version.h"

#define IMPORT_FP_NAME "device"

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "allow-gaps", no_argument, NULL, 'g' },
		{ "log-reg", required_argument, NULL, 'r' },
		{ "instructions", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *elf_path = NULL, *out = NULL;
	int gaps = 0, force = 0, c;
	devreplay_opts ro = { 0 };
	cli_getopt g;
	cli_getopt_begin(&g, "import", argc, argv, ":ho:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'e': elf_path = optarg; break;
		case 'o': out = optarg; break;
		case 'g': gaps = 1; break;
		case 'r': ro.log_reg = optarg; break;
		case 'n':
			if (cli_parse_u64("import", "--instructions", optarg, &ro.max_instructions))
				return EXIT_BAD_INPUT;
			break;
		case 'X': force = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !elf_path || !out)
		return cli_fail("import", "usage: avrr import DUMP --elf FW.elf -o RUN.db");
	const char *dump_path = argv[optind];
	const char *inputs[] = { dump_path, elf_path };
	if (cli_check_output("import", "-o", out, inputs, 2, CLI_OUT_RECORDING, force))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	uint8_t *dump = NULL;
	size_t ndump = 0;
	devlog log = { 0 };
	firmware *fw = NULL;
	sim *s = NULL;
	db *d = NULL;
	devreplay_item *items = NULL;
	db_fingerprint *fps = NULL;
	devreplay_positions pos = { 0 };
	int rc = EXIT_BAD_INPUT;
	if (devlog_read_file(dump_path, &dump, &ndump, &err) || fw_load_file(elf_path, &fw, &err)) {
		cli_fail("import", "%s", err.msg);
		goto done;
	}
	if (devlog_parse(dump, ndump, &log, &err)) {
		cli_fail("import", "%s: %s", dump_path, err.msg);
		goto done;
	}
	uint8_t sha[32], zero[32] = { 0 };
	if (devlog_elf_hash(fw->elf, fw->elf_size, sha, NULL, &err)) {
		cli_fail("import", "%s: %s", elf_path, err.msg);
		goto done;
	}
	if (!memcmp(log.sha256, zero, 32)) {
		cli_fail("import", "%s: the header's SHA-256 is zero: the firmware was not stamped "
			 "(avrr stamp)", dump_path);
		goto done;
	}
	if (memcmp(log.sha256, sha, 32)) {
		char a[65], b[65];
		digest_hex(log.sha256, a);
		digest_hex(sha, b);
		cli_fail("import", "%s: the log is of another firmware: header SHA-256 %.16s..., "
			 "%s's %.16s...", dump_path, a, elf_path, b);
		goto done;
	}
	fp_config cfg;
	if (sim_open(fw, log.mcu, 0, &s, &err) ||
	    fp_parse(log.spec, s->names, fw, s->data_size, IMPORT_FP_NAME, &cfg, &err)) {
		cli_fail("import", "%s: %s", dump_path, err.msg);
		goto done;
	}
	if ((cfg.ra_bits + cfg.state_bits + 7) / 8 != log.fp_bytes) {
		cli_fail("import", "%s: %u bytes per fingerprint for a %u-bit spec", dump_path,
			 log.fp_bytes, cfg.ra_bits + cfg.state_bits);
		goto done;
	}
	/* Up to the first gap. */
	size_t use = log.nitems, nfp = 0, nread = 0;
	for (size_t i = 0; i < log.nitems; i++)
		if (log.items[i].kind == DEVLOG_ITEM_LOSS) {
			if (!gaps) {
				cli_fail("import", "%s: byte %zu (block %u): the device lost %u items "
					 "here (its buffer was full); --allow-gaps imports what comes "
					 "before", dump_path, log.items[i].offset, log.items[i].block,
					 log.items[i].lost);
				goto done;
			}
			use = i;
			fprintf(stderr, "import: %s: imported up to byte %zu (block %u), where the "
				"device lost %u items; %zu items after it left out\n", dump_path,
				log.items[i].offset, log.items[i].block, log.items[i].lost,
				log.nitems - i - 1);
			break;
		}
	for (size_t i = 0; i < use; i++) {
		if (log.items[i].kind == DEVLOG_ITEM_FP) {
			uint8_t v = log.items[i].vector;
			if (!v || !sim_vector_name(s, v)) {
				cli_fail("import", "%s: byte %zu (block %u): vector %u, which the %s "
					 "does not have", dump_path, log.items[i].offset,
					 log.items[i].block, v, s->mcu);
				goto done;
			}
			nfp++;
		} else {
			nread++;
		}
	}
	/* The replay that gives the log its positions. */
	items = calloc(use ? use : 1, sizeof *items);
	fps = calloc(nfp ? nfp : 1, sizeof *fps);
	if (!items || !fps) {
		cli_fail("import", "out of memory");
		goto done;
	}
	for (size_t i = 0, k = 0; i < use; i++) {
		const devlog_item *it = &log.items[i];
		if (it->kind == DEVLOG_ITEM_READ) {
			items[i] = (devreplay_item){ .read = 1, .value = it->value };
			continue;
		}
		fps[k] = (db_fingerprint){
			.n = k + 1, .vector = it->vector,
			.ra_part = cfg.ra_bits ? it->fp >> cfg.state_bits : 0,
			.hash_part = it->fp & fp_hash_mask(cfg.state_bits),
		};
		items[i] = (devreplay_item){ .fp = (uint32_t)k++ };
	}
	devreplay_log dl = { .fw = fw, .mcu = s->mcu, .frequency = s->frequency, .spec = log.spec,
			     .fp = fps, .nfp = nfp, .items = items, .nitems = use,
			     .blocks = (uint8_t)log.blocks };
	devreplay_result res;
	if (devreplay_run_log(&dl, &ro, &res, &pos, &err)) {
		cli_fail("import", "%s: %s", dump_path, err.msg);
		goto done;
	}
	int positioned = !res.diverged;
	if (!positioned)
		fprintf(stderr, "import: %s: its replay stopped: %s; stored without positions: only "
			"avrr replay replays it\n", dump_path, res.why);
	uint32_t id;
	if (db_create(out, &d, &err) ||
	    db_put_firmware(d, fw->sha256, fw->elf, fw->elf_size, &err) ||
	    db_add_fp_config(d, IMPORT_FP_NAME, log.spec, &id, &err)) {
		cli_fail("import", "%s", err.msg);
		goto done;
	}
	/* The device log itself, which a replay checks the events against. */
	const char *reg = ro.log_reg ? ro.log_reg : sim_ioreg_addr(s, "UDR0") >= 0 ? "UDR0" : "UDR";
	if (db_put_device_log(d, reg, dump, ndump, &err))
		goto db_fail;
	if (positioned) {
		for (size_t i = 0; i < pos.nev; i++)
			if (db_add_event(d, &pos.ev[i], &err))
				goto db_fail;
		for (size_t i = 0; i < pos.nfp; i++) {
			pos.fp[i].config = id;
			if (db_add_fingerprint(d, &pos.fp[i], &err))
				goto db_fail;
		}
	}
	trace_writer w = { 0 };
	trace_event e = trace_stamp(&w, 0, TRACE_RESET, 0, 0, 0, 0, 0);
	if (!positioned && db_add_event(d, &e, &err))
		goto db_fail;
	for (size_t i = 0; i < use && !positioned; i++) {
		const devlog_item *it = &log.items[i];
		if (it->kind == DEVLOG_ITEM_READ) {   /* where: the replay's own read */
			trace_event rd = trace_stamp(&w, 0, TRACE_READ, 0, 0, 0, 0, it->value);
			if (db_add_event(d, &rd, &err))
				goto db_fail;
			continue;
		}
		db_fingerprint f = fps[items[i].fp];
		f.config = id;
		trace_event irq = trace_stamp(&w, it->vector, TRACE_IRQ, 0, 0, 0, it->vector, 0);
		trace_event ret = trace_stamp(&w, it->vector, TRACE_RETI, 0, 0, 0, it->vector, 0);
		if (db_add_fingerprint(d, &f, &err) || db_add_event(d, &irq, &err) ||
		    db_add_event(d, &ret, &err))
			goto db_fail;
	}
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
	db_run run = {
		.firmware_path = (char *)elf_path,
		.firmware_sha256 = fw->sha256,
		.mcu = s->mcu,
		.frequency = s->frequency,
		/* No stimuli, so no seed: it holds the number of blocks, which
		 * the replay needs to stop where the device stopped. */
		.seed = log.blocks,
		.stimuli_path = NULL,
		.stimuli = NULL,
		.tool_version = AVRR_VERSION,
		.interrupt_rule = (char *)DEVREPLAY_RULE,
		.data_size = s->data_size,
		.instructions = positioned ? pos.instructions : 0,
		.cycles = positioned ? pos.cycles : 0,
		.transfers = 0,
		.stop_reason = (char *)DB_STOP_INSTRUCTIONS,
		.has_ground_truth = 0,
		.created = created,
	};
	if (db_put_run(d, &run, &err))
		goto db_fail;
	rc = db_finish(d, &err);
	d = NULL;
	if (rc) {
		rc = cli_fail("import", "%s", err.msg);
		goto done;
	}
	printf("import: %s: %u blocks, %zu interrupts, %zu input reads -> %s\n", dump_path,
	       log.blocks, nfp, nread, out);
	printf("import: %zu bytes: header %zu, block heads and CRCs %zu, interrupts %zu, "
	       "reads %zu, losses %zu\n", ndump, log.bytes.header, log.bytes.blocks,
	       log.bytes.interrupts, log.bytes.reads, log.bytes.loss);
	if (positioned)
		printf("import: positions from its replay: %llu instructions, %zu interrupts (%llu "
		       "of them the tracer's own Timer1 overflows), %llu input reads, %zu events\n",
		       (unsigned long long)pos.instructions, pos.nfp,
		       (unsigned long long)res.overflows, (unsigned long long)res.reads, pos.nev);
	goto done;
db_fail:
	cli_fail("import", "%s", err.msg);
	rc = EXIT_BAD_INPUT;
done:
	if (d)
		db_discard(d);
	sim_close(s);
	fw_free(fw);
	devreplay_positions_free(&pos);
	free(items);
	free(fps);
	devlog_free(&log);
	free(dump);
	return rc;
}
