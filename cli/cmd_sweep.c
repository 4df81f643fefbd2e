/*
 * cmd_sweep.c — `avrr sweep`: options and files around the sweep engine
 * (sweep/sweep.h, docs/sweep.md).  The CSV is written beside -o and
 * renamed into place only when every oracle pass succeeded; `avrr sweep
 * merge` joins the CSVs of a sweep's shards the same way.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sweep/sweep.h"
#include "util/file.h"

#define LIST_MAX SWEEP_LIST_MAX
#define HASH sweep_hash_names
#define NHASH SWEEP_NHASH
#define MATCH sweep_match_names

/* The options: the grid, and the --selector values it points into. */
typedef struct sweep_args {
	sweep_grid g;
	char *sel_text[LIST_MAX];
	unsigned nsel_text;
} sweep_args;

/* ---- options ------------------------------------------------------------ */

/* Parses a comma-separated list of distinct integers in lo..hi. */
static int parse_numbers(const char *opt, const char *text, unsigned lo, unsigned hi,
			 unsigned *out, unsigned *n)
{
	*n = 0;
	for (const char *p = text;; p++) {
		size_t len = strcspn(p, ",");
		char item[32];
		uint64_t v;
		if (!len || len >= sizeof item)
			return cli_fail("sweep", "%s: '%s' is not a comma-separated list of numbers",
					opt, text);
		memcpy(item, p, len);
		item[len] = 0;
		if (cli_parse_u64("sweep", opt, item, &v))
			return EXIT_BAD_INPUT;
		if (v < lo || v > hi)
			return cli_fail("sweep", "%s: %s is not in %u..%u", opt, item, lo, hi);
		for (unsigned i = 0; i < *n; i++)
			if (out[i] == v)
				return cli_fail("sweep", "%s: %s is given twice", opt, item);
		if (*n == LIST_MAX)
			return cli_fail("sweep", "%s: at most %d values", opt, LIST_MAX);
		out[(*n)++] = (unsigned)v;
		p += len;
		if (!*p)
			return 0;
	}
}

/* Parses a comma-separated list of distinct names out of names[0..nnames). */
static int parse_names(const char *opt, const char *text, const char *const *names,
		       unsigned nnames, unsigned *out, unsigned *n)
{
	*n = 0;
	for (const char *p = text;; p++) {
		size_t len = strcspn(p, ",");
		unsigned k = 0;
		while (k < nnames && (strlen(names[k]) != len || strncmp(names[k], p, len)))
			k++;
		if (k == nnames) {
			char all[128] = "";
			for (unsigned i = 0; i < nnames; i++)
				snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
					 i ? ", " : "", names[i]);
			return cli_fail("sweep", "%s: '%.*s' is not one of %s", opt, (int)len, p, all);
		}
		for (unsigned i = 0; i < *n; i++)
			if (out[i] == k)
				return cli_fail("sweep", "%s: %s is given twice", opt, names[k]);
		out[(*n)++] = k;
		p += len;
		if (!*p)
			return 0;
	}
}

/* Adds the selectors of one --selector value, separated by ';'. */
static int add_selectors(sweep_args *sw, const char *text)
{
	if (sw->nsel_text == LIST_MAX)
		return cli_fail("sweep", "--selector: at most %d options", LIST_MAX);
	if (!(sw->sel_text[sw->nsel_text] = strdup(text)))
		return cli_fail("sweep", "out of memory");
	char *save, *s = sw->sel_text[sw->nsel_text++];
	if (!*s || strstr(s, ";;") || *s == ';' || s[strlen(s) - 1] == ';')
		return cli_fail("sweep", "--selector: '%s' has an empty selector", text);
	for (char *t = strtok_r(s, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		if (strchr(t, ','))
			return cli_fail("sweep", "--selector: '%s' holds a ','; a selector joins its "
					"components with '+'", t);
		sweep_grid *g = &sw->g;
		if (g->nsel == LIST_MAX)
			return cli_fail("sweep", "--selector: at most %d selectors", LIST_MAX);
		for (unsigned i = 0; i < g->nsel; i++)
			if (!strcmp(g->sel[i], t))
				return cli_fail("sweep", "--selector: '%s' is given twice", t);
		g->sel[g->nsel++] = t;
	}
	return 0;
}

static void progress(void *ud, size_t done, size_t total)
{
	(void)ud;
	fprintf(stderr, "\rsweep: %zu/%zu units", done, total);
	fflush(stderr);
}

static int sweep_main(sweep_args *a, int argc, char **argv)
{
	sweep_grid *sw = &a->g;
	unsigned shard = 0, nshards = 0;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, 'W' },
		{ "hash-bits", required_argument, NULL, 'B' },
		{ "ra", required_argument, NULL, 'r' },
		{ "hash", required_argument, NULL, 'H' },
		{ "selector", required_argument, NULL, 's' },
		{ "match", required_argument, NULL, 'm' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "shard", required_argument, NULL, 'S' },
		{ "force", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int ra_given = 0, width_given = 0, force = 0, c;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cores > 0 ? (uint64_t)cores : 1;
	parse_numbers("--width", "16", 1, 64, sw->width, &sw->nwidth);
	parse_numbers("--ra", "0,2,4,6,8,10,12,14,16", 0, 32, sw->ra, &sw->nra);
	parse_names("--hash", "modular,twomod,jenkins,knuth,rr", HASH, NHASH, sw->hash, &sw->nhash);
	parse_names("--match", "set", MATCH, 2, sw->match, &sw->nmatch);
	cli_getopt g;
	cli_getopt_begin(&g, "sweep", argc, argv, ":o:h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		int bad = 0;
		switch (c) {
		case 'o': out = optarg; break;
		case 'X': force = 1; break;
		case 'W':
			bad = parse_numbers("--width", optarg, 1, 64, sw->width, &sw->nwidth);
			width_given = 1;
			break;
		case 'B':
			bad = parse_numbers("--hash-bits", optarg, 1, 64, sw->hash_bits,
					    &sw->nhash_bits);
			break;
		case 'r':
			bad = parse_numbers("--ra", optarg, 0, 32, sw->ra, &sw->nra);
			ra_given = 1;
			break;
		case 'H': bad = parse_names("--hash", optarg, HASH, NHASH, sw->hash, &sw->nhash); break;
		case 's': bad = add_selectors(a, optarg); break;
		case 'm': bad = parse_names("--match", optarg, MATCH, 2, sw->match, &sw->nmatch); break;
		case 'j':
			if (cli_parse_u64("sweep", "--jobs", optarg, &jobs))
				return EXIT_BAD_INPUT;
			if (jobs < 1 || jobs > 256)
				return cli_fail("sweep", "--jobs: %s is not in 1..256", optarg);
			break;
		case 'S': {
			char tail;
			if (sscanf(optarg, "%u/%u%c", &shard, &nshards, &tail) != 2 ||
			    !shard || shard > nshards || nshards > 100000 ||
			    strspn(optarg, "0123456789/") != strlen(optarg))
				return cli_fail("sweep", "--shard: '%s' is not K/N with 1 <= K <= N",
						optarg);
			break;
		}
		}
		if (bad)
			return EXIT_BAD_INPUT;
	}
	if (c < 0)
		return g.rc;
	if (optind == argc)
		return cli_fail("sweep", "usage: avrr sweep RUN.db [RUN.db ...] -o RESULTS.csv "
				"[--width LIST | --hash-bits LIST] [--ra LIST] [--hash LIST] "
				"[--selector LIST] [--match set|sequence] [--jobs N] [--shard K/N]");
	if (!out)
		return cli_fail("sweep", "no output given; use -o RESULTS.csv");
	/* The CSV is renamed over -o at the end: it must not be a recording. */
	if (cli_check_output("sweep", "-o", out, (const char *const *)argv + optind, argc - optind,
			     CLI_OUT_CSV, force))
		return EXIT_BAD_INPUT;
	/* Both would say how wide a fingerprint is. */
	if (sw->nhash_bits && width_given)
		return cli_fail("sweep", "--hash-bits: give it or --width, not both (with --hash-bits "
				"a width is hash bits + ra + counter bits)");
	/* The most bits ra may take: the widest width, or what 64 bits leave
	 * beside the fewest hash bits. */
	unsigned maxra = 0;
	for (unsigned i = 0; i < sw->nwidth && !sw->nhash_bits; i++)
		maxra = sw->width[i] > maxra ? sw->width[i] : maxra;
	if (sw->nhash_bits) {
		unsigned minhb = 64;
		for (unsigned i = 0; i < sw->nhash_bits; i++)
			minhb = sw->hash_bits[i] < minhb ? sw->hash_bits[i] : minhb;
		maxra = 64 - minhb;
	}
	/* The default ra list stops there; a value given explicitly that no
	 * fingerprint can hold is a mistake worth reporting. */
	unsigned keep = 0;
	for (unsigned i = 0; i < sw->nra; i++) {
		if (sw->ra[i] > maxra && ra_given && sw->nhash_bits)
			return cli_fail("sweep", "--ra: %u and the fewest --hash-bits, %u, exceed 64 bits",
					sw->ra[i], 64 - maxra);
		if (sw->ra[i] > maxra && ra_given)
			return cli_fail("sweep", "--ra: %u exceeds every --width (the widest is %u)",
					sw->ra[i], maxra);
		if (sw->ra[i] <= maxra)
			sw->ra[keep++] = sw->ra[i];
	}
	sw->nra = keep;

	sw->recs = argv + optind;
	sw->nrecs = (unsigned)(argc - optind);
	avrr_err err = { "" };
	sweep *run;
	if (sweep_plan(sw, &run, &err))
		return cli_fail("sweep", "%s", err.msg);
	if (nshards)
		sweep_select_shard(run, shard, nshards);

	char tmp[4096];
	FILE *f = util_open_temp(out, tmp, sizeof tmp);
	if (!f) {
		sweep_free(run);
		return cli_fail("sweep", "cannot write '%s': %s", out, strerror(errno));
	}
	cli_catch_signals();
	int tty = isatty(2);
	sweep_status st = sweep_run(run, (unsigned)jobs, &cli_interrupted, tty ? progress : NULL,
				    NULL, &err);
	int written = st == SWEEP_OK && !sweep_write_csv(run, f);
	sweep_free(run);
	if (tty)
		fputs("\r\033[K", stderr);
	if (!util_close_temp(f, tmp, out, written))
		return 0;
	if (st == SWEEP_INTERRUPTED)
		fprintf(stderr, "avrr sweep: interrupted; nothing written\n");
	else if (st)
		fprintf(stderr, "avrr sweep: %s\n", err.msg);
	else
		fprintf(stderr, "avrr sweep: cannot write '%s': %s\n", out, strerror(errno));
	return st == SWEEP_INTERRUPTED ? EXIT_INTERRUPTED : 1;
}

/* `avrr sweep merge PART... -o OUT.csv`. */
static int merge_main(int argc, char **argv)
{
	const char *out = NULL;
	char **parts = calloc((size_t)argc, sizeof *parts);
	unsigned nparts = 0;
	int force = 0;
	if (!parts)
		return cli_fail("sweep", "out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (++i == argc) {
				free(parts);
				return cli_fail("sweep", "merge: %s needs a value", argv[i - 1]);
			}
			out = argv[i];
		} else if (!strcmp(argv[i], "--force")) {
			force = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(parts);
			return cli_fail("sweep", "merge: unknown option '%s'; see 'avrr sweep --help'",
					argv[i]);
		} else {
			parts[nparts++] = argv[i];
		}
	}
	if (!nparts || !out) {
		free(parts);
		return cli_fail("sweep", "usage: avrr sweep merge PART.csv [PART.csv ...] -o "
				"RESULTS.csv");
	}
	if (cli_check_output("sweep", "-o", out, (const char *const *)parts, (int)nparts,
			     CLI_OUT_CSV, force)) {
		free(parts);
		return EXIT_BAD_INPUT;
	}
	char tmp[4096];
	FILE *f = util_open_temp(out, tmp, sizeof tmp);
	if (!f) {
		free(parts);
		return cli_fail("sweep", "cannot write '%s': %s", out, strerror(errno));
	}
	avrr_err err = { "" };
	int merged = !sweep_merge(parts, nparts, f, &err);
	free(parts);
	if (!util_close_temp(f, tmp, out, merged))
		return 0;
	if (merged)
		return cli_fail("sweep", "cannot write '%s': %s", out, strerror(errno));
	return cli_fail("sweep", "merge: %s", err.msg);
}

int cmd_sweep(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	sweep_args a = { 0 };
	int rc = sweep_main(&a, argc, argv);
	for (unsigned i = 0; i < a.nsel_text; i++)
		free(a.sel_text[i]);
	return rc;
}
