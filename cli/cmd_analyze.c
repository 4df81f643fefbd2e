/*
 * cmd_analyze.c — `avrr analyze RUN.db races|profile` and `avrr export
 * RUN.db --vcd OUT.vcd`: analyses run on the replay (analyze/), printed as
 * text or --json.  A replay that goes wrong fails the analysis (exit 1).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "analyze/profile.h"
#include "analyze/races.h"
#include "analyze/vcd.h"
#include "db/db.h"
#include "trace/uart.h"
#include "util/file.h"

static int print_json(const char *cmd, json_t *o)
{
	char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s)
		return cli_fail(cmd, "out of memory");
	puts(s);
	free(s);
	return 0;
}

static json_t *place_json(const an_session *a, uint32_t pc)
{
	char where[160];
	an_where(a, pc, where, sizeof where);
	return json_pack("{s:i,s:s}", "pc", (int)pc, "where", where);
}

static json_t *race_json(const an_session *a, const an_race *r)
{
	char ctx[48], other[48];
	an_context_name(a, r->ctx, ctx, sizeof ctx);
	an_context_name(a, r->other_ctx, other, sizeof other);
	json_t *w = json_array();
	for (unsigned i = 0; i < r->nwitnesses; i++)
		json_array_append_new(w, json_integer((json_int_t)r->witnesses[i]));
	return json_pack("{s:s,s:i,s:i,s:s,s:s,s:o,s:o,s:I,s:{s:s,s:s,s:o},s:o,s:I}",
			 "variable", r->variable, "address", (int)r->addr, "size", (int)r->size,
			 "kind", r->kind, "context", ctx, "first", place_json(a, r->first_pc),
			 "second", place_json(a, r->second_pc),
			 "occurrences", (json_int_t)r->occurrences,
			 "other", "context", other, "access", r->other_writes ? "write" : "read",
			 "at", place_json(a, r->other_pc),
			 "witnesses", w, "witness_count", (json_int_t)r->witness_count);
}

static void print_race(const an_session *a, const an_race *r)
{
	char ctx[48], other[48], first[160], second[160], at[160];
	an_context_name(a, r->ctx, ctx, sizeof ctx);
	an_context_name(a, r->other_ctx, other, sizeof other);
	an_where(a, r->first_pc, first, sizeof first);
	an_where(a, r->second_pc, second, sizeof second);
	an_where(a, r->other_pc, at, sizeof at);
	printf("%s (0x%04x, %u byte%s): %s in %s at %s .. %s, %llu time%s\n", r->variable, r->addr,
	       r->size, r->size == 1 ? "" : "s", r->kind, ctx, first, second,
	       (unsigned long long)r->occurrences, r->occurrences == 1 ? "" : "s");
	printf("  against the %s in %s at %s\n", r->other_writes ? "write" : "read", other, at);
	if (!r->nwitnesses)
		return;
	printf("  witnessed %llu time%s, at icount", (unsigned long long)r->witness_count,
	       r->witness_count == 1 ? "" : "s");
	for (unsigned i = 0; i < r->nwitnesses; i++)
		printf("%s %llu", i ? "," : "", (unsigned long long)r->witnesses[i]);
	printf("%s (goto ICOUNT in avrr shell)\n", r->witness_count > r->nwitnesses ? ", ..." : "");
}

static int report_races(const an_session *a, const an_race *r, size_t n, int json)
{
	size_t witnessed = 0;
	while (witnessed < n && r[witnessed].nwitnesses)
		witnessed++;
	if (json) {
		json_t *races = json_array(), *potential = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(i < witnessed ? races : potential, race_json(a, &r[i]));
		return print_json("analyze", json_pack("{s:s,s:s,s:o,s:o}", "schema",
						       "avrr-races/1", "recording", a->path,
						       "races", races, "potential", potential));
	}
	if (!n)
		printf("no races: no shared variable is accessed non-atomically where an "
		       "interrupt could come\n");
	for (size_t i = 0; i < witnessed; i++)
		print_race(a, &r[i]);
	if (witnessed < n)
		printf("%spotential races, never witnessed in this run:\n", witnessed ? "\n" : "");
	for (size_t i = witnessed; i < n; i++)
		print_race(a, &r[i]);
	return 0;
}

static json_t *spread_json(const an_spread *s)
{
	if (!s->n)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I}", "n", (json_int_t)s->n, "min", (json_int_t)s->min,
			 "median", (json_int_t)s->median, "max", (json_int_t)s->max);
}

static int report_profile(const an_session *a, const an_profile *p, int json)
{
	if (json) {
		json_t *funcs = json_array(), *vecs = json_array(), *bt = json_array();
		for (size_t i = 0; i < p->nfuncs; i++)
			json_array_append_new(funcs, json_pack("{s:s,s:I,s:I,s:I}", "name",
				p->funcs[i].name, "self", (json_int_t)p->funcs[i].self, "total",
				(json_int_t)p->funcs[i].total, "calls", (json_int_t)p->funcs[i].calls));
		for (size_t i = 0; i < p->nvectors; i++) {
			const an_vector *v = &p->vectors[i];
			json_array_append_new(vecs, json_pack("{s:i,s:s,s:I,s:o,s:o,s:I,s:I}",
				"vector", (int)v->vector, "name", v->name, "count", (json_int_t)v->count,
				"latency", spread_json(&v->latency), "duration", spread_json(&v->duration),
				"self", (json_int_t)v->self, "total", (json_int_t)v->total));
		}
		for (size_t i = 0; i < p->nbacktrace; i++)
			json_array_append_new(bt, json_string(p->backtrace[i]));
		return print_json("analyze", json_pack(
			"{s:s,s:s,s:I,s:I,s:o,s:o,s:{s:I,s:i,s:I,s:o}}", "schema", "avrr-profile/1",
			"recording", a->path,
			"cycles", (json_int_t)p->cycles, "instruction_cycles",
			(json_int_t)p->instruction_cycles, "functions", funcs,
			"interrupts_per_vector", vecs, "stack", "bytes", (json_int_t)p->stack_bytes,
			"lowest_sp", (int)p->stack_lowest_sp, "icount", (json_int_t)p->stack_icount,
			"backtrace", bt));
	}
	printf("cycles %llu: %llu executing instructions, %llu asleep or entering interrupts\n\n",
	       (unsigned long long)p->cycles, (unsigned long long)p->instruction_cycles,
	       (unsigned long long)(p->cycles - p->instruction_cycles));
	printf("%-32s %12s %12s %10s\n", "function", "self", "total", "calls");
	for (size_t i = 0; i < p->nfuncs; i++)
		printf("%-32s %12llu %12llu %10llu\n", p->funcs[i].name,
		       (unsigned long long)p->funcs[i].self, (unsigned long long)p->funcs[i].total,
		       (unsigned long long)p->funcs[i].calls);
	if (p->nvectors)
		printf("\n%-6s %-22s %8s %10s %10s  %-22s %-22s\n", "vector", "name", "count", "self",
		       "total", "latency min/med/max", "duration min/med/max");
	for (size_t i = 0; i < p->nvectors; i++) {
		const an_vector *v = &p->vectors[i];
		char lat[48] = "-", dur[48] = "-";
		if (v->latency.n)
			snprintf(lat, sizeof lat, "%llu/%llu/%llu", (unsigned long long)v->latency.min,
				 (unsigned long long)v->latency.median,
				 (unsigned long long)v->latency.max);
		if (v->duration.n)
			snprintf(dur, sizeof dur, "%llu/%llu/%llu", (unsigned long long)v->duration.min,
				 (unsigned long long)v->duration.median,
				 (unsigned long long)v->duration.max);
		printf("%-6u %-22s %8llu %10llu %10llu  %-22s %-22s\n", v->vector, v->name,
		       (unsigned long long)v->count, (unsigned long long)v->self,
		       (unsigned long long)v->total, lat, dur);
	}
	printf("\nstack high-water %u bytes (SP 0x%04x), first at icount %llu:", p->stack_bytes,
	       p->stack_lowest_sp, (unsigned long long)p->stack_icount);
	for (size_t i = 0; i < p->nbacktrace; i++)
		printf("%s %s", i ? " <-" : "", p->backtrace[i]);
	printf("\n");
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option own[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "folded", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	cli_replay args = { 0 };
	int json = 0, force = 0, c, rc;
	const char *folded = NULL;
	if (cli_options_join(opts, CLI_MAX_OPTIONS, cli_replay_options, own, NULL))
		return cli_fail("analyze", "internal: too many options");
	cli_getopt g;
	cli_getopt_begin(&g, "analyze", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'j': json = 1; break;
		case 'f': folded = optarg; break;
		case 'X': force = 1; break;
		default:
			if ((rc = cli_replay_option("analyze", &args, c, optarg)))
				return rc;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 2)
		return cli_fail("analyze", "usage: avrr analyze RUN.db races|profile [--json] "
				"[--folded OUT]");
	if ((rc = cli_replay_finish("analyze", &args, NULL)))
		return rc;
	const char *what = argv[optind + 1];
	int races = !strcmp(what, "races");
	if (!races && strcmp(what, "profile"))
		return cli_fail("analyze", "unknown analysis '%s'; there are races and profile", what);
	if (races && folded)
		return cli_fail("analyze", "--folded is the profile's");
	const char *in = argv[optind];
	if (folded && cli_check_output("analyze", "--folded", folded, &in, 1, CLI_OUT_FOLDED, force))
		return EXIT_BAD_INPUT;
	/* Opened first, so that a path it cannot write fails before the run;
	 * written in full or not at all. */
	char ftmp[4096];
	FILE *ff = folded ? util_open_temp(folded, ftmp, sizeof ftmp) : NULL;
	if (folded && !ff)
		return cli_fail("analyze", "--folded %s: %s", folded, strerror(errno));
	cli_catch_signals_hard(NULL);
	avrr_err err = { "" };
	an_session a;
	if (an_open(argv[optind], &args.ro, &cli_interrupted, &a, &err)) {
		if (ff)
			util_close_temp(ff, ftmp, folded, 0);
		return cli_interrupted ? EXIT_INTERRUPTED : cli_fail("analyze", "%s", err.msg);
	}
	cli_progress p;
	cli_progress_start(&p, races ? "races" : "profile");
	if (races) {
		an_race *r = NULL;
		size_t n = 0;
		rc = an_races(&a, cli_progress_show, &p, &r, &n, &err);
		cli_progress_end(&p);
		rc = rc ? -1 : report_races(&a, r, n, json);
		free(r);
	} else {
		an_profile prof;
		int ran = !an_profile_run(&a, cli_progress_show, &p, &prof, &err);
		cli_progress_end(&p);
		rc = ran ? 0 : -1;
		if (ff && util_close_temp(ff, ftmp, folded, ran && !an_profile_folded(&prof, ff)) && ran)
			rc = cli_fail("analyze", "--folded %s: %s", folded, strerror(errno));
		if (!rc)
			rc = report_profile(&a, &prof, json);
		if (ran)
			an_profile_free(&prof);
	}
	if (rc < 0) {
		fprintf(stderr, "avrr analyze: %s\n", err.msg);
		rc = cli_interrupted ? EXIT_INTERRUPTED : 1;
	}
	an_close(&a);
	return rc;
}

/* `export --uart N`: the bytes the firmware wrote to UART n's data
 * register, from the recording's log (no replay needed: the log is the
 * run), to `out` ("-" for stdout), whole or not at all. */
static int export_uart(const char *path, unsigned n, const char *out, int json)
{
	avrr_err err = { "" };
	db *d = NULL;
	db_run run = { 0 };
	trace_event *ev = NULL;
	uint8_t *bytes = NULL;
	size_t nev = 0;
	int rc = EXIT_BAD_INPUT;
	if (db_open(path, 0, &d, &err) || db_get_run(d, &run, &err)) {
		cli_fail("export", "%s", err.msg);
		goto out;
	}
	const char *reg;
	int udr = trace_uart_register(ioregs_lookup(run.mcu), n, &reg);
	if (udr < 0) {
		cli_fail("export", "--uart %u: the %s has no UART %u", n, run.mcu, n);
		goto out;
	}
	if (db_load_events(d, &ev, &nev, &err)) {
		cli_fail("export", "%s", err.msg);
		goto out;
	}
	size_t len = trace_uart_bytes(ev, nev, (uint16_t)udr, UINT64_MAX, NULL);
	if (!(bytes = malloc(len ? len : 1))) {
		cli_fail("export", "out of memory");
		goto out;
	}
	trace_uart_bytes(ev, nev, (uint16_t)udr, UINT64_MAX, bytes);
	if (!strcmp(out, "-")) {
		if (len && fwrite(bytes, 1, len, stdout) != len) {
			cli_fail("export", "writing the output: %s", strerror(errno));
			goto out;
		}
	} else {
		char tmp[4096];
		FILE *f = util_open_temp(out, tmp, sizeof tmp);
		if (!f) {
			cli_fail("export", "%s: %s", out, strerror(errno));
			goto out;
		}
		int ok = !len || fwrite(bytes, 1, len, f) == len;
		if (ok)
			cli_mark_output(f, CLI_OUT_RAW);
		if (util_close_temp(f, tmp, out, ok)) {
			cli_fail("export", "%s: %s", out, strerror(errno));
			goto out;
		}
		if (json)
			rc = print_json("export", json_pack("{s:s,s:s,s:i,s:s,s:s,s:I}", "schema",
							    "avrr-export-uart/1", "recording", path,
							    "uart", (int)n, "register", reg,
							    "output", out, "bytes", (json_int_t)len));
		else
			printf("%s: %zu bytes sent on UART%u (%s)\n", out, len, n, reg);
		if (json)
			goto out;
	}
	rc = 0;
out:
	free(bytes);
	free(ev);
	db_run_free(&run);
	db_close(d);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vcd", required_argument, NULL, 'v' },
		{ "var", required_argument, NULL, 'V' },
		{ "force", no_argument, NULL, 'X' },
		{ "uart", required_argument, NULL, 'u' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *vars[64], *uart_out = NULL;
	unsigned nvars = 0;
	int json = 0, force = 0, c, uart = -1;
	cli_getopt g;
	cli_getopt_begin(&g, "export", argc, argv, ":ho:", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'v': out = optarg; break;
		case 'o': uart_out = optarg; break;
		case 'u': {
			uint64_t v;
			if (cli_parse_u64("export", "--uart", optarg, &v))
				return EXIT_BAD_INPUT;
			if (v >= TRACE_UARTS)
				return cli_fail("export", "--uart %s: no AVR has a UART %s (0..%d)",
						optarg, optarg, TRACE_UARTS - 1);
			uart = (int)v;
			break;
		}
		case 'V':
			if (nvars == 64)
				return cli_fail("export", "at most 64 --var");
			vars[nvars++] = optarg;
			break;
		case 'j': json = 1; break;
		case 'X': force = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (uart >= 0) {
		if (out || nvars || optind != argc - 1 || !uart_out)
			return cli_fail("export", "usage: avrr export RUN.db --uart N -o FILE");
		/* With -o - the bytes are stdout: a summary there would be taken
		 * for the firmware's, and on stderr a script would miss it. */
		if (json && !strcmp(uart_out, "-"))
			return cli_fail("export", "--json with -o -: the bytes go to standard output, "
					"which leaves no room for the summary; give -o FILE");
		const char *in = argv[optind];
		if (strcmp(uart_out, "-") &&
		    cli_check_output("export", "-o", uart_out, &in, 1, CLI_OUT_RAW, force))
			return EXIT_BAD_INPUT;
		return export_uart(argv[optind], (unsigned)uart, uart_out, json);
	}
	if (uart_out)
		return cli_fail("export", "-o is for --uart; a VCD goes to --vcd OUT.vcd");
	if (optind != argc - 1 || !out)
		return cli_fail("export", "usage: avrr export RUN.db --vcd OUT.vcd [--var NAME]..., "
				"or avrr export RUN.db --uart N -o FILE");
	const char *in = argv[optind];
	if (cli_check_output("export", "--vcd", out, &in, 1, CLI_OUT_VCD, force))
		return EXIT_BAD_INPUT;
	cli_catch_signals_hard(NULL);
	avrr_err err = { "" };
	an_session a;
	if (an_open(argv[optind], NULL, &cli_interrupted, &a, &err))
		return cli_interrupted ? EXIT_INTERRUPTED : cli_fail("export", "%s", err.msg);
	if (an_vcd_check_vars(&a, vars, nvars, &err)) {
		an_close(&a);
		return cli_fail("export", "%s", err.msg);
	}
	cli_progress p;
	cli_progress_start(&p, "export");
	an_vcd_stats st;
	int rc = an_export_vcd(&a, out, vars, nvars, cli_progress_show, &p, &st, &err);
	cli_progress_end(&p);
	if (rc) {
		fprintf(stderr, "avrr export: %s\n", err.msg);
		rc = cli_interrupted ? EXIT_INTERRUPTED : 1;
	} else if (json) {
		rc = print_json("export", json_pack("{s:s,s:s,s:s,s:i,s:i,s:I,s:I}", "schema",
						    "avrr-export/1", "recording", a.path,
						    "vcd", out, "signals", (int)st.signals,
						    "pins", (int)st.pins,
						    "changes", (json_int_t)st.changes,
						    "interrupt_edges", (json_int_t)st.interrupt_edges));
	} else {
		printf("%s: %u signals (%u pins), %llu changes, %llu interrupt edges\n", out,
		       st.signals, st.pins, (unsigned long long)st.changes,
		       (unsigned long long)st.interrupt_edges);
	}
	an_close(&a);
	return rc;
}
