/* cmd_replay.c — `avrr replay`: fingerprint replay or oracle evaluation. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "device/devreplay.h"
#include "rerun/fingerprints.h"
#include "replayer/replayer.h"

/* A scoring counter, or JSON null when the recording was stripped. */
static json_t *scored(const rp_counters *c, uint64_t v)
{
	return c->scored ? json_integer((json_int_t)v) : json_null();
}

static json_t *divergence_json(const rp_divergence *d)
{
	if (!d)
		return json_null();
	return json_pack("{s:I,s:i,s:s,s:i,s:s,s:s}", "icount", (json_int_t)d->icount, "pc",
			 (int)d->pc, "where", d->where, "context", (int)d->context, "expected",
			 d->expected, "actual", d->actual);
}

static int print_json(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s)
		return cli_fail("replay", "out of memory");
	puts(s);
	free(s);
	return 0;
}

static void print_divergence_text(const rp_divergence *d)
{
	if (!d) {
		printf("diverged             no\n");
		return;
	}
	printf("diverged             at icount %llu, pc 0x%04x %s (context %u)\n",
	       (unsigned long long)d->icount, d->pc, d->where, d->context);
	printf("  expected           %s\n", d->expected);
	printf("  actual             %s\n", d->actual);
}

static int report_fingerprint(replay *r, const char *match, int json)
{
	int wrong = rp_went_wrong(r);
	const rp_counters *c = rp_get_counters(r);
	const rp_divergence *d = rp_get_divergence(r);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o}",
				      "schema", "avrr-replay/1", "config", rp_config_name(r), "match", match,
				      "instructions", (json_int_t)c->instructions,
				      "interrupts_recorded", (json_int_t)c->interrupts_recorded,
				      "injected", (json_int_t)c->injected,
				      "ambiguous", (json_int_t)c->ambiguous,
				      "correct", scored(c, c->correct),
				      "false_loop", scored(c, c->false_loop),
				      "false_ra", scored(c, c->false_ra),
				      "input_duplicates", scored(c, c->input_duplicates),
				      "hash_collisions", scored(c, c->hash_collisions),
				      "missed", scored(c, c->missed),
				      "diverged", wrong, "divergence", divergence_json(d));
		if (print_json(o))
			return EXIT_BAD_INPUT;
	} else {
		printf("configuration        %s (%s matching)\n", rp_config_name(r), match);
		printf("instructions         %llu of %llu\n", (unsigned long long)c->instructions,
		       (unsigned long long)rp_length(r));
		printf("interrupts recorded  %llu\n", (unsigned long long)c->interrupts_recorded);
		printf("injected             %llu", (unsigned long long)c->injected);
		if (c->ambiguous)
			printf(" (%llu by a fingerprint of several vectors, resolved by log order)",
			       (unsigned long long)c->ambiguous);
		printf("\n");
		if (c->scored) {
			printf("correct              %llu\n", (unsigned long long)c->correct);
			printf("false loop positives %llu\n", (unsigned long long)c->false_loop);
			printf("false RA positives   %llu\n", (unsigned long long)c->false_ra);
			printf("  input duplicates   %llu\n", (unsigned long long)c->input_duplicates);
			printf("  hash collisions    %llu\n", (unsigned long long)c->hash_collisions);
			printf("missed               %llu\n", (unsigned long long)c->missed);
		} else {
			printf("scoring              none: the recording has no ground truth\n");
		}
		print_divergence_text(d);
		if (!d && wrong)
			printf("went wrong           %llu false and %llu missed interrupts "
			       "(--keep-going counted them)\n",
			       (unsigned long long)(c->false_loop + c->false_ra),
			       (unsigned long long)c->missed);
	}
	return wrong ? 1 : 0;
}

static int report_oracle(replay *r, int json)
{
	size_t n;
	const rp_oracle_result *res = rp_oracle_results(r, &n);
	const rp_divergence *d = rp_get_divergence(r);
	uint64_t missed = 0;
	for (size_t i = 0; i < n; i++)
		missed += res[i].missed;
	if (json) {
		json_t *cfgs = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(cfgs, json_pack(
				"{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "name", res[i].name,
				"spec", res[i].spec, "hits", (json_int_t)res[i].hits,
				"correct", (json_int_t)res[i].correct,
				"false_loop", (json_int_t)res[i].false_loop,
				"false_ra", (json_int_t)res[i].false_ra,
				"input_duplicates", (json_int_t)res[i].input_duplicates,
				"hash_collisions", (json_int_t)res[i].hash_collisions,
				"missed", (json_int_t)res[i].missed));
		if (print_json(json_pack("{s:s,s:I,s:o,s:o}", "schema", "avrr-oracle/1", "instructions",
					 (json_int_t)rp_icount(r), "configs", cfgs,
					 "divergence", divergence_json(d))))
			return EXIT_BAD_INPUT;
	} else {
		printf("instructions  %llu\n", (unsigned long long)rp_icount(r));
		printf("%-16s %10s %10s %10s %10s %10s %10s %7s\n", "configuration", "hits", "correct",
		       "false-loop", "false-ra", "input-dup", "collision", "missed");
		for (size_t i = 0; i < n; i++)
			printf("%-16s %10llu %10llu %10llu %10llu %10llu %10llu %7llu\n", res[i].name,
			       (unsigned long long)res[i].hits, (unsigned long long)res[i].correct,
			       (unsigned long long)res[i].false_loop,
			       (unsigned long long)res[i].false_ra,
			       (unsigned long long)res[i].input_duplicates,
			       (unsigned long long)res[i].hash_collisions,
			       (unsigned long long)res[i].missed);
		if (d)
			print_divergence_text(d);
	}
	if (missed)
		fprintf(stderr, "avrr replay: BUG: the oracle missed %llu recorded interrupt%s; "
			"a fingerprint of a recorded state must always be found\n",
			(unsigned long long)missed, missed == 1 ? "" : "s");
	return d || missed ? 1 : 0;
}

int cmd_replay(int argc, char **argv)
{
	if (argc >= 2 && argv[1][0] != '-' && devreplay_is_import(argv[1]) == 1)
		return cmd_replay_device(argc, argv);
	static const struct option own[] = {
		{ "until", required_argument, NULL, 'u' },
		{ "oracle", no_argument, NULL, 'O' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		/* an import's (cmd_devreplay.c): said as such, not as unknown */
		{ "uart-out", required_argument, NULL, 'I' },
		{ "log-out", required_argument, NULL, 'I' },
		{ "state-out", required_argument, NULL, 'I' },
		{ "log-reg", required_argument, NULL, 'I' },
		{ "instructions", required_argument, NULL, 'I' },
		{ "force", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	const char *import_opt = NULL;
	cli_replay args = { 0 };
	cli_getopt g;
	uint64_t until = 0;
	int json = 0, c, rc;
	cli_board board = { 0 };
	if (cli_options_join(opts, CLI_MAX_OPTIONS, cli_replay_options, own, cli_board_options,
			     NULL))
		return cli_fail("replay", "internal: too many options");
	cli_getopt_begin(&g, "replay", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'u':
			if (cli_parse_u64("replay", "--until", optarg, &until))
				return EXIT_BAD_INPUT;
			break;
		case 'O': args.ro.oracle = 1; break;
		case 'k': args.ro.keep_going = 1; break;
		case 'j': json = 1; break;
		case 'm':
		case 'b':
		case 'f':
			if ((rc = cli_board_option("replay", &board, c, optarg)))
				return rc;
			break;
		case 'I':
			if (!import_opt)
				import_opt = opts[g.index].name;
			break;
		default:
			if ((rc = cli_replay_option("replay", &args, c, optarg)))
				return rc;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("replay", "usage: avrr replay RUN.db [--fp NAME] [--match sequence|set] "
				"[--until ICOUNT] [--keep-going] [--json]");
	if (import_opt) {
		if (access(argv[optind], F_OK) != 0)
			return cli_fail("replay", "%s: %s", argv[optind], strerror(errno));
		return cli_fail("replay", "--%s is for a recording avrr import made, which %s is "
				"not", import_opt, argv[optind]);
	}
	if ((rc = cli_board_agrees("replay", &board, argv[optind])))
		return rc;
	/* A fingerprint replay is exact with sequence matching (the default
	 * configuration is chosen so); the oracle measures the paper's rule. */
	if (args.ro.oracle) {
		for (unsigned i = 0; i < args.nfp; i++)
			if (!strcmp(args.fps[i], RERUN_FP_NONE))
				return cli_fail("replay", "--fp %s keeps no fingerprint (record's way to "
						"record none): --oracle needs a configuration to "
						"evaluate", RERUN_FP_NONE);
		if (!args.match_given)
			args.ro.match = RP_MATCH_SET;
		args.ro.oracle_configs = args.fps;
		args.ro.noracle_configs = args.nfp;
	} else if (args.nfp > 1) {
		return cli_fail("replay", "a fingerprint replay uses one configuration (--fp NAME); "
				"--oracle evaluates several");
	} else if ((rc = cli_replay_finish("replay", &args, NULL))) {
		return rc;
	}
	rp_options o = args.ro;
	o.interrupted = &cli_interrupted;
	cli_catch_signals_hard(NULL);

	avrr_err err = { "" };
	replay *r;
	if (rp_open(argv[optind], &o, &r, &err)) {
		if (cli_interrupted) {
			fprintf(stderr, "avrr replay: interrupted while opening %s\n", argv[optind]);
			return EXIT_INTERRUPTED;
		}
		return cli_fail("replay", "%s", err.msg);
	}
	cli_progress p;
	cli_progress_start(&p, "replaying");
	uint64_t end = until && until < rp_length(r) ? until : rp_length(r);
	rp_stop why = rp_run_reporting(r, end, cli_progress_show, &p);
	cli_progress_end(&p);
	if (why == RP_STOPPED) {
		fprintf(stderr, "avrr replay: interrupted at icount %llu\n",
			(unsigned long long)rp_icount(r));
		rc = EXIT_INTERRUPTED;
	} else {
		if (why == RP_CPU_STOPPED)
			fprintf(stderr, "avrr replay: the CPU stopped at icount %llu, before the end\n",
				(unsigned long long)rp_icount(r));
		rc = o.oracle ? report_oracle(r, json)
			      : report_fingerprint(r, o.match == RP_MATCH_SET ? "set" : "sequence", json);
		if (why == RP_CPU_STOPPED && rc == 0)
			rc = 1;
	}
	rp_close(r);
	return rc;
}
