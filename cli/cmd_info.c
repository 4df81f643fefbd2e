/* cmd_info.c — `avrr info`: what a recording holds, as text or JSON. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "info.h"
#include "../db/db.h"
#include "../sim/ioregs.h"

static const char *vector_name(const mcu_names *names, unsigned v)
{
	for (unsigned i = 0; names && i < names->nvectors; i++)
		if (names->vectors[i].addr == v)
			return names->vectors[i].name;
	return NULL;
}

static void print_text(const char *path, const db_run *r, const uint64_t *vec,
		       const uint64_t *types, int version)
{
	const mcu_names *names = ioregs_lookup(r->mcu);
	uint64_t nirq = 0, nev = 0;
	for (int v = 0; v < 256; v++)
		nirq += vec[v];
	for (int t = 0; t < DB_EV_COUNT; t++)
		nev += types[t];
	printf("recording     %s\n", path);
	printf("firmware      %s\n", r->firmware_path);
	printf("sha256        %s\n", r->firmware_sha256);
	printf("mcu           %s at %u Hz\n", r->mcu, r->frequency);
	if (r->stimuli_path)
		printf("stimuli       %s (seed %llu)\n", r->stimuli_path, (unsigned long long)r->seed);
	else
		printf("stimuli       none\n");
	printf("instructions  %llu\n", (unsigned long long)r->instructions);
	printf("cycles        %llu (%.6f s at %u Hz)\n", (unsigned long long)r->cycles,
	       (double)r->cycles / r->frequency, r->frequency);
	printf("stopped by    %s\n", r->stop_reason);
	printf("interrupts    %llu\n", (unsigned long long)nirq);
	for (unsigned v = 0; v < 256; v++)
		if (vec[v]) {
			const char *n = vector_name(names, v);
			printf("  %3u %-20s %llu\n", v, n ? n : "", (unsigned long long)vec[v]);
		}
	printf("events        %llu\n", (unsigned long long)nev);
	for (int t = 1; t < DB_EV_COUNT; t++)
		if (types[t])
			printf("  %-24s %llu\n", db_event_type_name(t), (unsigned long long)types[t]);
	printf("ground truth  %s\n", r->has_ground_truth ? "yes" : "stripped");
	printf("schema        %d (recorded by avrr %s; %s)\n", version,
	       r->tool_version ? r->tool_version : "?",
	       r->interrupt_rule ? r->interrupt_rule : "?");
}

static int print_json(const char *path, const db_run *r, const uint64_t *vec,
		      const uint64_t *types, int version)
{
	const mcu_names *names = ioregs_lookup(r->mcu);
	uint64_t nirq = 0, nev = 0;
	json_t *per_vec = json_array(), *per_type = json_object();
	for (unsigned v = 0; v < 256; v++)
		if (vec[v]) {
			const char *n = vector_name(names, v);
			json_array_append_new(per_vec, json_pack("{s:i,s:s?,s:I}", "vector", (int)v,
								 "name", n, "count", (json_int_t)vec[v]));
			nirq += vec[v];
		}
	for (int t = 1; t < DB_EV_COUNT; t++) {
		json_object_set_new(per_type, db_event_type_name(t), json_integer((json_int_t)types[t]));
		nev += types[t];
	}
	json_t *o = json_pack(
		"{s:s,s:s,s:s,s:s,s:I,s:s?,s:I,s:I,s:I,s:s,s:I,s:o,s:I,s:o,s:b,s:i,s:s?,s:s?}",
		"recording", path, "firmware", r->firmware_path, "firmware_sha256", r->firmware_sha256,
		"mcu", r->mcu, "frequency", (json_int_t)r->frequency, "stimuli", r->stimuli_path,
		"seed", (json_int_t)r->seed, "instructions", (json_int_t)r->instructions,
		"cycles", (json_int_t)r->cycles, "stop_reason", r->stop_reason,
		"interrupts", (json_int_t)nirq, "interrupts_per_vector", per_vec,
		"events", (json_int_t)nev, "events_per_type", per_type,
		"ground_truth", r->has_ground_truth, "schema_version", version,
		"tool_version", r->tool_version, "interrupt_rule", r->interrupt_rule);
	if (!o)
		return -1;
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return -1;
	puts(s);
	free(s);
	return 0;
}

int info_print(const char *path, int json, const char *cmd)
{
	avrr_err err = { "" };
	db *d = NULL;
	db_run r;
	uint64_t vec[256], types[DB_EV_COUNT];
	if (db_open(path, 0, &d, &err))
		return cli_fail(cmd, "%s", err.msg);
	if (db_get_run(d, &r, &err)) {
		db_close(d);
		return cli_fail(cmd, "%s", err.msg);
	}
	int rc = 0;
	if (db_count_vectors(d, vec, &err) || db_count_event_types(d, types, &err)) {
		rc = cli_fail(cmd, "%s", err.msg);
	} else if (json) {
		if (print_json(path, &r, vec, types, db_schema_version(d)))
			rc = cli_fail(cmd, "out of memory");
	} else {
		print_text(path, &r, vec, types, db_schema_version(d));
	}
	db_run_free(&r);
	db_close(d);
	return rc;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': return cli_help("info");
		default: return cli_fail("info", "unknown option '%s'; see 'avrr info --help'",
					 argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_fail("info", "usage: avrr info RUN.db [--json]");
	return info_print(argv[optind], json, "info");
}
