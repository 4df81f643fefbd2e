/*
 * cmd_instrument.c — `avrr instrument FW.elf --log SINK -o OUT.elf`:
 * traces a finished ELF by hooking its vector table (fingerprint/hookvec.h;
 * the tracer's runtime compiled here with avr-gcc and appended); and
 * `avrr instrument TRACED.elf -o OUT.elf`, the post-link rewrite of a
 * firmware built with the tracer header that keeps the device's software
 * instruction counter and logs input reads (fingerprint/instrument.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "device/devlog.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/hookvec.h"
#include "fingerprint/instrument.h"
#include "fingerprint/tracer.h"
#include "sim/sim.h"
#include "util/file.h"

extern char **environ;

/* The vector route's options. */
typedef struct hook_opts {
	const char *spec;
	fp_tracer_log log;
	unsigned slots;
	uint32_t freq;          /* for --baud's divisor: 0, unknown */
	int loads;              /* --log-loads */
} hook_opts;

/* Runs avr-gcc on dir/rt.c into dir/NAME, the runtime linked at the
 * plan's addresses; its first line of complaint in err. */
static int compile_runtime(const char *dir, const char *gcc_mcu, const fp_hookvec_plan *p,
			   uint16_t ram_base, uint32_t freq, int64_t sink, const char *name,
			   avrr_err *err)
{
	char mmcu[80], fcpu[40], text[64], data[64], src[4200], out[4200], log[4200];
	char defsym[80] = "-Wl,--defsym=avrr_log_sink_unused=0";
	snprintf(mmcu, sizeof mmcu, "-mmcu=%s", gcc_mcu);
	snprintf(fcpu, sizeof fcpu, "-DF_CPU=%luUL", (unsigned long)(freq ? freq : 1000000));
	snprintf(text, sizeof text, "-Wl,--section-start=.text=0x%lx", (unsigned long)p->base);
	snprintf(data, sizeof data, "-Wl,-Tdata=0x%lx", 0x800000ul + ram_base);
	snprintf(src, sizeof src, "%s/rt.c", dir);
	snprintf(out, sizeof out, "%s/%s", dir, name);
	snprintf(log, sizeof log, "%s/cc.log", dir);
	/* --log func: the firmware's own avrr_log_sink, at its address */
	if (sink >= 0)
		snprintf(defsym, sizeof defsym, "-Wl,--defsym=avrr_log_sink=0x%lx",
			 (unsigned long)sink);
	/* the firmware's reset code and handlers, which the runtime jumps to */
	char fwsym[129][64];
	char *argv[12 + 129 + 3] = { "avr-gcc", mmcu, fcpu, "-Os", "-std=gnu11",
				      "-fno-toplevel-reorder", "-nostartfiles", text, data, defsym };
	unsigned k = 10;
	snprintf(fwsym[0], sizeof fwsym[0], "-Wl,--defsym=" FP_RT_FW_RESET "=0x%lx",
		 (unsigned long)p->hooks.reset_target);
	argv[k++] = fwsym[0];
	for (unsigned i = 0; i < p->hooks.nhooks && i < 128; i++) {
		snprintf(fwsym[i + 1], sizeof fwsym[i + 1], "-Wl,--defsym=" FP_RT_FW_VECTOR_PREFIX
			 "%u=0x%lx", p->hooks.hook[i].vector, (unsigned long)p->hooks.hook[i].target);
		argv[k++] = fwsym[i + 1];
	}
	argv[k++] = "-o";
	argv[k++] = out;
	argv[k++] = src;
	argv[k] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int st = 0, rc = posix_spawnp(&pid, "avr-gcc", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return avrr_errf(err, "cannot run avr-gcc, which compiles the tracer's runtime: %s",
				 strerror(rc));
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	char line[300] = "";
	FILE *f = fopen(log, "r");
	while (f && fgets(line, sizeof line, f) && !strstr(line, "rror"))
		;
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
	return avrr_errf(err, "avr-gcc could not build the tracer's runtime: %s",
			 line[0] ? line : "(no message)");
}

/* Writes the runtime's C for ram_base and links it: its bytes. */
static int build_runtime(const char *dir, const firmware *fw, const sim *s, const fp_config *cfg,
			 const hook_opts *ho, fp_hookvec_plan *p, const char *name,
			 uint8_t **bytes, size_t *n, avrr_err *err)
{
	char src[4200], path[4200];
	snprintf(src, sizeof src, "%s/rt.c", dir);
	FILE *f = fopen(src, "w");
	if (!f)
		return avrr_errf(err, "%s: %s", src, strerror(errno));
	int bad = fp_tracer_write_runtime(cfg, sim_names(s), ho->slots,
					  ho->log.sink != FP_LOG_NONE ? &ho->log : NULL,
					  &p->hooks, f, err);
	if (!bad)
		fp_hookvec_write_reads(p, f);
	if (fclose(f) && !bad)
		bad = avrr_errf(err, "%s: %s", src, strerror(errno));
	if (bad)
		return -1;
	const mcu_names *names = sim_names(s);
	const char *mcu = names->gcc_mcu ? names->gcc_mcu : names->mcu;
	const fw_symbol *sink = fw_find_symbol(fw, "avrr_log_sink");
	if (compile_runtime(dir, mcu, p, p->hooks.ram_base, ho->freq,
			    ho->log.sink == FP_LOG_FUNC && sink ? (int64_t)sink->addr : -1, name, err))
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *e = fopen(path, "rb");
	long len = -1;
	if (e && !fseek(e, 0, SEEK_END) && (len = ftell(e)) > 0 && !fseek(e, 0, SEEK_SET) &&
	    (*bytes = malloc((size_t)len)) && fread(*bytes, 1, (size_t)len, e) == (size_t)len) {
		fclose(e);
		*n = (size_t)len;
		return 0;
	}
	if (e)
		fclose(e);
	return avrr_errf(err, "%s: cannot read the tracer's runtime", path);
}

static void remove_dir(const char *dir)
{
	static const char *const names[] = { "rt.c", "cc.log", "rt1.elf", "rt2.elf" };
	char path[4200];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* The new ELF's temporary beside out, for a writer that writes its file
 * descriptor (nothing buffered).  NULL, said, when it cannot be made. */
static FILE *open_out(const char *out, char *tmp, size_t n)
{
	FILE *f = util_open_temp(out, tmp, n);
	if (!f)
		cli_fail("instrument", "%s: %s", out, strerror(errno));
	else
		fflush(f);
	return f;
}

/* Both routes' end: the ELF marked as avrr's and renamed over out, so a
 * re-run replaces it; or, when the writer failed (failed: why), the
 * temporary removed.  0, or -1 said. */
static int close_out(FILE *f, const char *tmp, const char *out, const avrr_err *failed)
{
	if (!failed)
		cli_mark_output(f, CLI_OUT_ELF);
	if (!util_close_temp(f, tmp, out, !failed))
		return 0;
	if (failed)
		cli_fail("instrument", "%s", failed->msg);
	else
		cli_fail("instrument", "%s: %s", out, strerror(errno));
	return -1;
}

/* The vector route: plan, two links of the runtime (the first tells its
 * RAM, the second puts it at the top), the ELF written. */
static int hook_vectors(firmware *fw, sim *s, const hook_opts *ho, const char *out)
{
	avrr_err err = { "" };
	fp_config cfg;
	fp_hookvec_plan plan = { 0 };
	fp_hookvec_stats st;
	uint8_t *rt = NULL;
	size_t rt_size = 0;
	char dir[4096] = "";
	int rc = EXIT_BAD_INPUT;
	if (!sim_names(s))
		return cli_fail("instrument", "%s: no register tables for %s", fw->path, sim_mcu(s));
	if (fp_parse(ho->spec, sim_names(s), fw, sim_data_size(s), FP_DEFAULT_NAME, &cfg, &err))
		return cli_fail("instrument", "%s", err.msg);
	const fw_symbol *sink = fw_find_symbol(fw, "avrr_log_sink");
	if (ho->log.sink == FP_LOG_FUNC && (!sink || sink->space != FW_SYM_CODE))
		return cli_fail("instrument", "%s: --log func sends to the firmware's own "
				"void avrr_log_sink(uint8_t), which it does not have", fw->path);
	if (ho->log.baud && !ho->freq)
		return cli_fail("instrument", "%s: --baud needs the clock, which the ELF does not "
				"name: give --freq HZ or --board NAME", fw->path);
	uint32_t flash, vend;
	sim_flash_layout(s, &flash, &vend);
	if (!vend)
		return cli_fail("instrument", "%s: no vector table known for %s", fw->path, sim_mcu(s));
	if (fp_hookvec_plan_make(fw, flash, vend, (uint16_t)(sim_data_size(s) - 1), &plan, &err) ||
	    (fp_counter_bytes(&cfg, FP_COUNT_CYCLES) &&
	     fp_hookvec_counter(fw, sim_names(s), fp_counter_bytes(&cfg, FP_COUNT_CYCLES) > 2, &plan,
				&err)))
		return cli_fail("instrument", "%s", err.msg);
	uint8_t inputs[FP_INPUT_SPACE];
	if (ho->log.sink != FP_LOG_NONE && devlog_inputs(sim_names(s), inputs) &&
	    fp_hookvec_find_reads(fw, inputs, ho->loads, &plan, &err)) {
		cli_fail("instrument", "%s", err.msg);
		goto done;
	}
	plan.mmcu_freq = ho->freq;
	snprintf(plan.mmcu_name, sizeof plan.mmcu_name, "%s", sim_mcu(s));
	const char *tmpdir = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/avrr-instrument-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		cli_fail("instrument", "%s: %s", dir, strerror(errno));
		dir[0] = 0;
		goto done;
	}
	unsigned ram = 0, ram2 = 0;
	plan.hooks.ram_base = (uint16_t)(sim_data_size(s) / 2 & ~1u);   /* a first guess: any will do */
	if (build_runtime(dir, fw, s, &cfg, ho, &plan, "rt1.elf", &rt, &rt_size, &err) ||
	    fp_hookvec_runtime_ram(rt, rt_size, &ram, &err) || fp_hookvec_ram(&plan, ram, &err)) {
		cli_fail("instrument", "%s", err.msg);
		goto done;
	}
	free(rt);
	rt = NULL;
	if (build_runtime(dir, fw, s, &cfg, ho, &plan, "rt2.elf", &rt, &rt_size, &err) ||
	    fp_hookvec_runtime_ram(rt, rt_size, &ram2, &err)) {
		cli_fail("instrument", "%s", err.msg);
		goto done;
	}
	if (ram2 != ram) {
		cli_fail("instrument", "the tracer's runtime took %u bytes of RAM, then %u", ram, ram2);
		goto done;
	}
	char tmp[4096];
	FILE *f = open_out(out, tmp, sizeof tmp);
	if (!f)
		goto done;
	int bad = fp_hookvec_write(fw->elf, fw->elf_size, fw->path, &plan, rt, rt_size, fileno(f),
				   &st, &err);
	if (close_out(f, tmp, out, bad ? &err : NULL))
		goto done;
	char ovf[24] = "", taken[160] = "", loads[64] = "";
	if (st.loads)
		snprintf(loads, sizeof loads, " and %u load%s through a pointer tested", st.loads,
			 st.loads == 1 ? "" : "s");
	if (plan.ovf_vector >= 0)
		snprintf(ovf, sizeof ovf, ", and TIMER%u_OVF", plan.hooks.counter_timer);
	if (plan.nnops)
		snprintf(taken, sizeof taken, "; Timer%u counts the cycles: init()'s %u write%s "
			 "setting it up for analogWrite() are NOPs, so its PWM outputs are off",
			 plan.hooks.counter_timer, plan.nnops, plan.nnops == 1 ? "" : "s");
	printf("hooked %u vector%s (and the reset%s), logged %u input read%s%s in place; the tracer: "
	       "%u bytes of flash at 0x%05x-0x%05x (%u free after it), %u bytes of RAM at "
	       "0x%04x-0x%04x (the stack now starts at 0x%04x), %u cycles per interrupt in the "
	       "stub plus the record function%s%s\n",
	       st.hooked, st.hooked == 1 ? "" : "s", ovf, st.reads, st.reads == 1 ? "" : "s", loads,
	       (unsigned)st.flash_bytes, (unsigned)plan.base,
	       (unsigned)(plan.base + st.flash_bytes - 1),
	       (unsigned)(plan.flash_size - plan.base - st.flash_bytes),
	       (unsigned)plan.ramend + 1 - plan.hooks.ram_base, (unsigned)plan.hooks.ram_base,
	       (unsigned)plan.ramend, (unsigned)plan.hooks.ram_base - 1,
	       fp_tracer_hook_cycles(&cfg, ho->log.sink != FP_LOG_NONE, plan.flash_size), taken,
	       st.moved ? "; moved past it: the sections after the image (.mmcu)" : "");
	rc = 0;
done:
	fp_hookvec_plan_free(&plan);
	free(rt);
	if (dir[0])
		remove_dir(dir);
	return rc;
}

int cmd_instrument(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mcu", required_argument, NULL, 'm' },
		{ "board", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'X' },
		{ "log-loads", no_argument, NULL, 'L' },
		{ "log", required_argument, NULL, 'g' },
		{ "fp", required_argument, NULL, 'F' },
		{ "baud", required_argument, NULL, 'B' },
		{ "ring", required_argument, NULL, 'R' },
		{ "slots", required_argument, NULL, 's' },
		{ "send-masked", no_argument, NULL, 'M' },
		{ "freq", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mcu = NULL, *out = NULL;
	cli_board board = { 0 };
	int force = 0, loads = 0, hook = 0, c;
	hook_opts ho = { FP_DEFAULT_NAME ":" FP_DEFAULT_SPEC,
			 { .sink = FP_LOG_NONE, .ring = FP_LOG_RING }, FP_TRACER_SLOTS, 0, 0 };
	uint64_t num, freq = 0;
	cli_getopt g;
	cli_getopt_begin(&g, "instrument", argc, argv, ":ho:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'm': board.mcu = optarg; break;
		case 'b':
			if (cli_board_set("instrument", &board, optarg))
				return EXIT_BAD_INPUT;
			break;
		case 'o': out = optarg; break;
		case 'X': force = 1; break;
		case 'L': loads = 1; break;
		case 'g':
			hook = 1;
			if (fp_log_sink_parse(optarg, 1, &ho.log))
				return cli_fail("instrument", "--log: '%s'; give uart, uart1..uart3, spi, "
						"func or none", optarg);
			break;
		case 'F': hook = 1; ho.spec = optarg; break;
		case 'M': hook = 1; ho.log.masked = 1; break;
		case 'B': case 'R': case 's': case 'f':
			hook = 1;
			if (cli_parse_u64("instrument", c == 'B' ? "--baud" : c == 'R' ? "--ring" :
					  c == 's' ? "--slots" : "--freq", optarg, &num))
				return EXIT_BAD_INPUT;
			if (c == 'B' && num > 4000000)
				return cli_fail("instrument", "--baud: %llu; give at most 4000000",
						(unsigned long long)num);
			if (c == 'R' && num > 255)
				return cli_fail("instrument", "--ring: %llu; give at most 255",
						(unsigned long long)num);
			if (c == 's' && (!num || num > 1024))
				return cli_fail("instrument", "--slots: %llu; give 1..1024",
						(unsigned long long)num);
			if (c == 'f' && (!num || num > 100000000))
				return cli_fail("instrument", "--freq: %llu; give 1..100000000",
						(unsigned long long)num);
			if (c == 'B')
				ho.log.baud = (uint32_t)num;
			else if (c == 'R')
				ho.log.ring = (unsigned)num;
			else if (c == 's')
				ho.slots = (unsigned)num;
			else
				freq = num;
			break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1 || !out)
		return cli_fail("instrument", "usage: avrr instrument FW.elf --log SINK|none "
				"[--fp SPEC] [--baud B] -o OUT.elf, or TRACED.elf -o OUT.elf");
	if (hook && loads && ho.log.sink == FP_LOG_NONE)
		return cli_fail("instrument", "--log-loads logs into the device log: give --log SINK");
	ho.loads = loads;
	if (hook && ho.log.sink != FP_LOG_UART && ho.log.baud)
		return cli_fail("instrument", "--baud is the UART sink's: give --log uart");
	const char *in = argv[optind];
	if (cli_check_output("instrument", "-o", out, &in, 1, CLI_OUT_ELF, force) ||
	    cli_board_mcu("instrument", &board, &mcu))
		return EXIT_BAD_INPUT;
	avrr_err err = { "" };
	firmware *fw = NULL;
	sim *s = NULL;
	fp_instrument_device dev;
	fp_instrument_stats st;
	int rc = EXIT_BAD_INPUT;
	if (fw_load_file(argv[optind], &fw, &err) || sim_open(fw, mcu, cli_board_clock(fw, &board), &s, &err)) {
		cli_fail("instrument", "%s", err.msg);
		goto done;
	}
	if (hook) {
		ho.freq = freq ? (uint32_t)freq : board.board_frequency ? board.board_frequency
									 : fw->frequency;
		rc = hook_vectors(fw, s, &ho, out);
		goto done;
	}
	sim_flash_layout(s, &dev.flash_size, &dev.vectors_end);
	uint8_t inputs[FP_INPUT_SPACE];
	dev.inputs = sim_names(s) && devlog_inputs(sim_names(s), inputs) ? inputs : NULL;
	dev.log_loads = loads;
	if (!dev.vectors_end) {
		cli_fail("instrument", "%s: no vector table known for %s", fw->path, sim_mcu(s));
		goto done;
	}
	char tmp[4096];
	FILE *f = open_out(out, tmp, sizeof tmp);
	if (!f)
		goto done;
	int bad = fp_instrument(fw->elf, fw->elf_size, fw->path, &dev, fileno(f), &st, &err);
	if (close_out(f, tmp, out, bad ? &err : NULL))
		goto done;
	if (st.reads)
		printf("input reads logged: %u\n", st.reads);
	if (st.loads)
		printf("loads through a pointer tested at run time: %u\n", st.loads);
	if (st.counter_bytes)
		printf("counted transfers instrumented: %u; jumps lengthened to reach: %u; .text: %u -> "
		       "%u bytes; a %u-byte counter, +%u cycles per transfer with interrupts on\n",
		       st.sites, st.relaxed, (unsigned)st.text_before, (unsigned)st.text_after,
		       st.counter_bytes, st.cycles_per_transfer);
	else
		printf(".text: %u -> %u bytes; jumps lengthened to reach: %u\n",
		       (unsigned)st.text_before, (unsigned)st.text_after, st.relaxed);
	rc = 0;
done:
	sim_close(s);
	fw_free(fw);
	return rc;
}
