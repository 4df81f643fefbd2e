/*
 * cmd_device.c — `avrr device FW.elf --stimuli S --log-out DUMP`: the
 * stand-in for a chip (docs/device.md).  The firmware runs in plain
 * simulation — the sim layer and the stimuli, no recorder, no ground
 * truth — and what it writes to its log's register is the dump; its other
 * UART bytes go elsewhere, and its final state can be written for tests
 * to compare with a replay.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/sim.h"
#include "sim/stimuli.h"
#include "trace/uart.h"
#include "util/file.h"
#include "device/devreplay.h"

#define DEVICE_DEFAULT_INSTRUCTIONS 2000000u
#define DEVICE_DRAIN_MAX 40000000u   /* instructions to find a clean block and finish it */
#define DEVICE_DRAIN_BLOCKS 256u     /* blocks to wait for one that ends clean */

typedef struct capture {
	uint16_t log_reg;
	FILE *log, *uart;
	uint64_t log_bytes, uart_bytes;
	/* --stats: cycles by where the PC was (the tracer's log code, its
	 * fingerprint code) and how many interrupts the tracer recorded */
	sim *s;
	uint32_t pc;
	uint64_t cycle;
	uint32_t record_at, read_at, ld_at;
	uint64_t interrupts, reads, log_cycles, send_cycles, trace_cycles, put_cycles, read_cycles;
	uint64_t ld_calls, ld_cycles;
} capture;

/* After each step: the cycles it took go to the code it ran. */
static int on_step(void *ud)
{
	capture *c = ud;
	uint64_t now = sim_cycle(c->s);
	const fw_symbol *f = fw_code_symbol_at(c->s->fw, c->pc);
	uint64_t took = now - c->cycle;
	if (f && !strncmp(f->name, "avrr_log_", 9)) {
		c->log_cycles += took;
		if (!strncmp(f->name, "avrr_log_put", 12))
			c->put_cycles += took;
		else if (!strncmp(f->name, "avrr_log_read", 13))   /* and avrr_log_read_sreg */
			c->read_cycles += took;
		else if (!strncmp(f->name, "avrr_log_ld", 11))
			c->ld_cycles += took;
		else
			c->send_cycles += took;
	} else if (f && (!strncmp(f->name, "avrr_trace_", 11) || !strncmp(f->name, "avrr_hash_", 10) ||
			 !strcmp(f->name, "avrr_oaat"))) {
		c->trace_cycles += took;
	}
	c->cycle = now;
	c->pc = sim_pc(c->s);
	if (c->pc == c->record_at)
		c->interrupts++;
	if (c->pc == c->read_at)
		c->reads++;
	if (c->pc == c->ld_at)
		c->ld_calls++;
	return 0;
}

static void on_write(void *ud, uint16_t addr, uint8_t value)
{
	capture *c = ud;
	if (addr == c->log_reg) {
		fputc(value, c->log);
		c->log_bytes++;
		return;
	}
	if (c->uart) {
		fputc(value, c->uart);
		c->uart_bytes++;
	}
}

/* Whether the tracer is sending a block (its avrr_log_busy flag). */
static int sending(sim *s, const fw_symbol *busy)
{
	return busy && busy->addr < s->data_size && sim_live_data(s)[busy->addr];
}

int cmd_device(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stimuli", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "log-out", required_argument, NULL, 'l' },
		{ "uart-out", required_argument, NULL, 'u' },
		{ "state-out", required_argument, NULL, 't' },
		{ "log-reg", required_argument, NULL, 'r' },
		{ "mcu", required_argument, NULL, 'm' },
		{ "board", required_argument, NULL, 'b' },
		{ "freq", required_argument, NULL, 'f' },
		{ "instructions", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'X' },
		{ "stats", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *stim_path = NULL, *log_out = NULL, *uart_out = NULL, *state_out = NULL,
		   *log_reg = NULL, *mcu = NULL;
	cli_board board = { 0 };
	uint64_t limit = DEVICE_DEFAULT_INSTRUCTIONS, seed = 0, freq = 0;
	int seed_given = 0, force = 0, stats = 0, c;
	cli_getopt g;
	cli_getopt_begin(&g, "device", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 's': stim_path = optarg; break;
		case 'S':
			if (cli_parse_u64("device", "--seed", optarg, &seed))
				return EXIT_BAD_INPUT;
			seed_given = 1;
			break;
		case 'l': log_out = optarg; break;
		case 'u': uart_out = optarg; break;
		case 't': state_out = optarg; break;
		case 'r': log_reg = optarg; break;
		case 'm': board.mcu = optarg; break;
		case 'b':
			if (cli_board_set("device", &board, optarg))
				return EXIT_BAD_INPUT;
			break;
		case 'f':
			if (cli_parse_u64("device", "--freq", optarg, &freq))
				return EXIT_BAD_INPUT;
			if (freq == 0 || freq > 1000000000)
				return cli_fail("device", "--freq: %s Hz is not a plausible AVR clock", optarg);
			break;
		case 'X': force = 1; break;
		case 'T': stats = 1; break;
		case 'n':
			if (cli_parse_u64("device", "--instructions", optarg, &limit))
				return EXIT_BAD_INPUT;
			break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !log_out)
		return cli_fail("device", "usage: avrr device FW.elf [--stimuli S] --log-out DUMP");
	if (!limit || limit > DB_MAX_INSTRUCTIONS)
		return cli_fail("device", "--instructions: give 1..%llu",
				(unsigned long long)DB_MAX_INSTRUCTIONS);
	if (cli_board_mcu("device", &board, &mcu))
		return EXIT_BAD_INPUT;
	const char *inputs[] = { argv[optind], stim_path };
	int ninputs = stim_path ? 2 : 1;
	if (cli_check_output("device", "--log-out", log_out, inputs, ninputs, CLI_OUT_DEVLOG,
			     force) ||
	    (uart_out && cli_check_output("device", "--uart-out", uart_out, inputs, ninputs,
					  CLI_OUT_RAW, force)) ||
	    (state_out && cli_check_output("device", "--state-out", state_out, inputs, ninputs,
					   CLI_OUT_STATE, force)))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	firmware *fw = NULL;
	sim *s = NULL;
	stim_script *script = NULL;
	char *text = NULL;
	capture cap = { 0 };
	char ltmp[4096], utmp[4096];
	int rc = EXIT_BAD_INPUT;
	if (fw_load_file(argv[optind], &fw, &err) || sim_open(fw, mcu, (uint32_t)(freq ? freq : board.board_frequency), &s,
								   &err)) {
		cli_fail("device", "%s", err.msg);
		goto done;
	}
	if (stim_path && (!(text = util_read_text(stim_path, &err)) ||
			  stim_parse(text, stim_path, &script, &err))) {
		cli_fail("device", "%s", err.msg);
		goto done;
	}
	if (!s->names) {
		cli_fail("device", "%s: no register tables for %s", argv[optind], s->mcu);
		goto done;
	}
	/* The log's register: given, else the tracer's UART (UDR0, else UDR). */
	int reg = devreplay_log_reg(s, log_reg, &err);
	if (reg < 0) {
		cli_fail("device", "%s: %s", argv[optind], err.msg);
		goto done;
	}
	cap.log_reg = (uint16_t)reg;
	if (sim_watch_write(s, cap.log_reg, &err)) {
		cli_fail("device", "%s", err.msg);
		goto done;
	}
	for (unsigned u = 0; u < TRACE_UARTS; u++) {
		int a = trace_uart_register(s->names, u, NULL);
		if (a >= 0 && a != reg) {
			if (sim_watch_write(s, (uint16_t)a, &err)) {
				cli_fail("device", "%s", err.msg);
				goto done;
			}
		}
	}
	if (script && sim_attach_stimuli(s, script, seed_given ? seed : stim_default_seed(script),
					 &err)) {
		cli_fail("device", "%s", err.msg);
		goto done;
	}
	if (!(cap.log = util_open_temp(log_out, ltmp, sizeof ltmp)) ||
	    (uart_out && !(cap.uart = util_open_temp(uart_out, utmp, sizeof utmp)))) {
		cli_fail("device", "%s: %s", cap.log ? uart_out : log_out, strerror(errno));
		goto done;
	}
	s->hooks = (sim_hooks){ .ud = &cap, .on_write = on_write };
	if (stats) {
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
	uint64_t end_icount = s->icount, end_cycle = sim_cycle(s);
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
			end_icount = s->icount;
			end_cycle = sim_cycle(s);
			if (state_out && devreplay_write_state(s, state_out)) {
				cli_fail("device", "%s: %s", state_out, strerror(errno));
				goto done;
			}
			wrote_state = 1;
		}
	} while (why == SIM_STOP_LIMIT && busy && sending(s, len) && ++tries < DEVICE_DRAIN_BLOCKS &&
		 extra < DEVICE_DRAIN_MAX / 2);
	if (why == SIM_STOP_CRASHED) {
		cli_fail("device", "%s: the CPU crashed at PC 0x%05x after %llu instructions",
			 argv[optind], (unsigned)sim_pc(s), (unsigned long long)s->icount);
		goto done;
	}
	if (!wrote_state) {
		end_icount = s->icount;
		end_cycle = sim_cycle(s);
		if (state_out && devreplay_write_state(s, state_out)) {
			cli_fail("device", "%s: %s", state_out, strerror(errno));
			goto done;
		}
	}
	rc = 0;
	printf("device: %llu instructions, %llu cycles; log %llu bytes, other UART %llu bytes\n",
	       (unsigned long long)end_icount, (unsigned long long)end_cycle,
	       (unsigned long long)cap.log_bytes, (unsigned long long)cap.uart_bytes);
	if (stats)
		printf("stats: interrupts %llu, trace cycles %llu, log cycles %llu, of which "
		       "sending %llu; reads %llu, read cycles %llu, append cycles %llu\n",
		       (unsigned long long)cap.interrupts, (unsigned long long)cap.trace_cycles,
		       (unsigned long long)cap.log_cycles, (unsigned long long)cap.send_cycles,
		       (unsigned long long)cap.reads, (unsigned long long)cap.read_cycles,
		       (unsigned long long)cap.put_cycles);
	if (stats && cap.ld_calls)
		printf("stats: loads below 0x200 %llu, their test's cycles %llu\n",
		       (unsigned long long)cap.ld_calls, (unsigned long long)cap.ld_cycles);
done:
	if (!rc) {
		cli_mark_output(cap.log, CLI_OUT_DEVLOG);
		cli_mark_output(cap.uart, CLI_OUT_RAW);
	}
	if (cap.log && util_close_temp(cap.log, ltmp, log_out, !rc) && !rc)
		rc = cli_fail("device", "%s: %s", log_out, strerror(errno));
	if (cap.uart && util_close_temp(cap.uart, utmp, uart_out, !rc) && !rc)
		rc = cli_fail("device", "%s: %s", uart_out, strerror(errno));
	sim_close(s);
	stim_free(script);
	free(text);
	fw_free(fw);
	return rc;
}
