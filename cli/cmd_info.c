/* cmd_info.c — `avrr info`: what a recording holds, as text or JSON. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/info.h"
#include "db/db.h"
#include "fingerprint/cost.h"
#include "fingerprint/metrics.h"
#include "sim/ioregs.h"

/* One configuration and its record-time metrics. */
typedef struct config_metrics {
	db_fp_config cfg;
	fp_metrics m;
	int has_cost;        /* the spec parsed against the recorded firmware */
	fp_config parsed;    /* when has_cost */
	cost_device cost;
} config_metrics;

/* The recorded gaps, and the warning about them (fp_gap_warning) if any
 * configuration cannot tell their points apart: 1 with buf written. */
static int gap_warning(const db_run *r, const config_metrics *cm, size_t ncm, fp_gaps *g,
		       char *buf, size_t size)
{
	*g = (fp_gaps){ r->gap_cycles, r->gap_cycles_from, r->gap_cycles_to,
			r->gap_transfers, r->gap_transfers_from, r->gap_transfers_to };
	for (size_t i = 0; i < ncm; i++)
		if (cm[i].has_cost && fp_gap_warning(&cm[i].parsed, 1, g, r->frequency, buf, size))
			return 1;
	return 0;
}

/* Whether the run's gaps were measured: the recorder measures them, an
 * import (whose run the device's log gives) does not. */
static int gap_measured(const db_run *r)
{
	return strcmp(r->interrupt_rule, DB_DEVICE_LOG_RULE) != 0;
}

/* The device cost of each configuration, over the recorded run. */
static int add_costs(db *d, const db_run *r, config_metrics *cm, size_t ncm, avrr_err *err)
{
	uint8_t *elf = NULL;
	size_t n = 0;
	firmware *fw = NULL;
	uint64_t vec[256], nirq = 0;
	if (db_get_firmware(d, &elf, &n, err) ||
	    fw_load_memory(elf, n, r->firmware_path, &fw, err) || db_count_vectors(d, vec, err)) {
		free(elf);
		return -1;
	}
	for (int v = 0; v < 256; v++)
		nirq += vec[v];
	for (size_t i = 0; i < ncm; i++) {
		fp_config *c = &cm[i].parsed;
		avrr_err ignored;
		cm[i].has_cost = !fp_parse(cm[i].cfg.spec, ioregs_lookup(r->mcu), fw, r->data_size,
					   cm[i].cfg.name, c, &ignored);
		if (cm[i].has_cost)
			cm[i].cost = cost_of_config(c, r->data_size, nirq, r->transfers, r->cycles);
	}
	fw_free(fw);
	free(elf);
	return 0;
}

#define METRICS_FAILED "cannot compute the metrics (temporary files in $TMPDIR, else /tmp): %s"

/* One configuration's fingerprints streamed into its metrics a chunk at a
 * time: the metrics' memory does not grow with the run. */
typedef struct sampling {
	fp_metrics_acc *acc;
	int truth;
} sampling;

static int add_samples(void *ud, const db_fingerprint *f, size_t n, avrr_err *err)
{
	sampling *sm = ud;
	for (size_t k = 0; k < n; k++) {
		fp_sample s = { .ra_part = f[k].ra_part, .hash_part = f[k].hash_part,
				.input_key = f[k].input_key };
		memcpy(s.context, f[k].digest, sizeof s.context);
		sm->truth &= f[k].has_digest && f[k].has_input_key;
		if (fp_metrics_add(sm->acc, &s))
			return avrr_errf(err, METRICS_FAILED, strerror(errno));
	}
	return 0;
}

/* Loads every configuration of d with its metrics; *out is malloc'ed. */
static int load_metrics(db *d, config_metrics **out, size_t *n, avrr_err *err)
{
	db_fp_config *cfgs = NULL;
	size_t ncfg = 0;
	*out = NULL;
	*n = 0;
	if (db_load_fp_configs(d, &cfgs, &ncfg, err))
		return -1;
	config_metrics *cm = calloc(ncfg ? ncfg : 1, sizeof *cm);
	if (!cm) {
		free(cfgs);
		return avrr_errf(err, "out of memory");
	}
	int rc = 0;
	for (size_t i = 0; i < ncfg && !rc; i++) {
		sampling sm = { .truth = 1 };
		cm[i].cfg = cfgs[i];
		if (fp_metrics_begin(&sm.acc)) {
			rc = avrr_errf(err, "out of memory");
			break;
		}
		rc = db_each_fingerprint(d, cfgs[i].id, 1, add_samples, &sm, err);
		if (rc)
			fp_metrics_free(sm.acc);
		else if (fp_metrics_end(sm.acc, sm.truth, &cm[i].m))
			rc = avrr_errf(err, METRICS_FAILED, strerror(errno));
	}
	free(cfgs);
	if (rc) {
		free(cm);
		return -1;
	}
	*out = cm;
	*n = ncfg;
	return 0;
}

static void print_text(const char *path, const db_run *r, const uint64_t *vec,
		       const uint64_t *types, int version, const config_metrics *cm, size_t ncm,
		       int warned)
{
	const mcu_names *names = ioregs_lookup(r->mcu);
	uint64_t nirq = 0, nev = 0;
	for (int v = 0; v < 256; v++)
		nirq += vec[v];
	for (int t = 0; t < TRACE_COUNT; t++)
		nev += types[t];
	/* The paths are as the recording's maker had them: any bytes but NUL,
	 * so escaped here (a mailed recording must not drive the terminal). */
	char fw_path[1024], stim_path[1024];
	avrr_escape(fw_path, sizeof fw_path, r->firmware_path);
	avrr_escape(stim_path, sizeof stim_path, r->stimuli_path ? r->stimuli_path : "");
	printf("recording     %s\n", path);
	printf("firmware      %s\n", fw_path);
	printf("sha256        %s\n", r->firmware_sha256);
	printf("mcu           %s at %u Hz\n", r->mcu, r->frequency);
	if (r->stimuli_path)
		printf("stimuli       %s (seed %llu)\n", stim_path, (unsigned long long)r->seed);
	else
		printf("stimuli       none\n");
	printf("instructions  %llu\n", (unsigned long long)r->instructions);
	printf("cycles        %llu (%.6f s at %u Hz)\n", (unsigned long long)r->cycles,
	       (double)r->cycles / r->frequency, r->frequency);
	printf("stopped by    %s\n", r->stop_reason);
	printf("interrupts    %llu\n", (unsigned long long)nirq);
	for (unsigned v = 0; v < 256; v++)
		if (vec[v]) {
			const char *n = ioregs_vector_name(names, v);
			printf("  %3u %-20s %llu\n", v, n ? n : "", (unsigned long long)vec[v]);
		}
	fp_gaps g;
	char warning[1024];
	int warn = gap_warning(r, cm, ncm, &g, warning, sizeof warning);
	/* A gap runs up to an interrupt point (docs/fingerprints.md): a run
	 * with none has none, and "0 cycles (icount 0 to 0)" would read as a
	 * measured one; an import's replay does not measure them. */
	if (!nirq)
		printf("longest gap   none: no interrupt in the whole run (%llu cycles, %llu "
		       "counted transfers), so no point to tell apart\n",
		       (unsigned long long)r->cycles, (unsigned long long)r->transfers);
	else if (!gap_measured(r))
		printf("longest gap   not measured (an import of a device log)\n");
	else
		printf("longest gap   %llu cycles (icount %llu to %llu), %llu counted transfers "
		       "(icount %llu to %llu)\n", (unsigned long long)g.cycles,
		       (unsigned long long)g.cycles_from, (unsigned long long)g.cycles_to,
		       (unsigned long long)g.transfers, (unsigned long long)g.transfers_from,
		       (unsigned long long)g.transfers_to);
	if (warn && !warned)
		printf("  warning: %s\n", warning);
	printf("events        %llu\n", (unsigned long long)nev);
	for (int t = 1; t < TRACE_COUNT; t++)
		if (types[t])
			printf("  %-24s %llu\n", trace_kind_name(t), (unsigned long long)types[t]);
	printf("fingerprints  %zu configuration%s\n", ncm, ncm == 1 ? "" : "s");
	for (size_t i = 0; i < ncm; i++) {
		const fp_metrics *m = &cm[i].m;
		printf("  %s:%s\n", cm[i].cfg.name, cm[i].cfg.spec);
		printf("    %llu fingerprints, %llu distinct", (unsigned long long)m->fingerprints,
		       (unsigned long long)m->distinct);
		if (m->has_truth)
			printf(", %llu duplicates (median %g per ra), %llu input duplicates\n",
			       (unsigned long long)m->duplicates, m->median_duplicates_per_ra,
			       (unsigned long long)m->input_duplicates);
		else
			printf(" (duplicates need the ground truth)\n");
		const cost_device *c = &cm[i].cost;
		if (cm[i].has_cost)
			printf("    device: %u bits (%u bytes) and %u cycles per interrupt, %u cycles per "
			       "counted transfer, %u cycles per timer overflow: %.2f %% of the run\n",
			       c->bits, c->bytes_per_interrupt, c->cycles_per_interrupt,
			       c->cycles_per_transfer, c->cycles_per_overflow, c->overhead_pct);
	}
	printf("ground truth  %s\n", r->has_ground_truth ? "yes" : "stripped");
	printf("schema        %d (recorded by avrr %s; %s)\n", version,
	       r->tool_version ? r->tool_version : "?",
	       r->interrupt_rule ? r->interrupt_rule : "?");
}

static json_t *metrics_json(const config_metrics *cm, size_t ncm)
{
	json_t *a = json_array();
	for (size_t i = 0; i < ncm; i++) {
		const fp_metrics *m = &cm[i].m;
		json_t *o = json_pack("{s:s,s:s,s:I,s:I}", "name", cm[i].cfg.name, "spec",
				      cm[i].cfg.spec, "fingerprints", (json_int_t)m->fingerprints,
				      "distinct", (json_int_t)m->distinct);
		if (m->has_truth) {
			json_object_set_new(o, "duplicates", json_integer((json_int_t)m->duplicates));
			json_object_set_new(o, "median_duplicates_per_ra",
					    json_real(m->median_duplicates_per_ra));
			json_object_set_new(o, "input_duplicates",
					    json_integer((json_int_t)m->input_duplicates));
		} else {
			json_object_set_new(o, "duplicates", json_null());
			json_object_set_new(o, "median_duplicates_per_ra", json_null());
			json_object_set_new(o, "input_duplicates", json_null());
		}
		const cost_device *c = &cm[i].cost;
		json_object_set_new(o, "device", !cm[i].has_cost ? json_null() : json_pack(
			"{s:i,s:i,s:i,s:i,s:i,s:f}", "bits", (int)c->bits, "bytes_per_interrupt",
			(int)c->bytes_per_interrupt, "cycles_per_interrupt", (int)c->cycles_per_interrupt,
			"cycles_per_transfer", (int)c->cycles_per_transfer, "cycles_per_overflow",
			(int)c->cycles_per_overflow, "overhead_pct", c->overhead_pct));
		json_array_append_new(a, o);
	}
	return a;
}

static int print_json(const char *path, const db_run *r, const uint64_t *vec,
		      const uint64_t *types, int version, const config_metrics *cm, size_t ncm)
{
	const mcu_names *names = ioregs_lookup(r->mcu);
	uint64_t nirq = 0, nev = 0;
	json_t *per_vec = json_array(), *per_type = json_object();
	for (unsigned v = 0; v < 256; v++)
		if (vec[v]) {
			const char *n = ioregs_vector_name(names, v);
			json_array_append_new(per_vec, json_pack("{s:i,s:s?,s:I}", "vector", (int)v,
								 "name", n, "count", (json_int_t)vec[v]));
			nirq += vec[v];
		}
	for (int t = 1; t < TRACE_COUNT; t++) {
		json_object_set_new(per_type, trace_kind_name(t), json_integer((json_int_t)types[t]));
		nev += types[t];
	}
	fp_gaps g;
	char warning[1024];
	int warn = gap_warning(r, cm, ncm, &g, warning, sizeof warning);
	json_t *gap = !nirq || !gap_measured(r) ? json_null() :
		      json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "cycles", (json_int_t)g.cycles,
				"cycles_from", (json_int_t)g.cycles_from, "cycles_to",
				(json_int_t)g.cycles_to, "transfers", (json_int_t)g.transfers,
				"transfers_from", (json_int_t)g.transfers_from, "transfers_to",
				(json_int_t)g.transfers_to);
	json_t *o = json_pack(
		"{s:s,s:s,s:s,s:s,s:s,s:I,s:s?,s:I,s:I,s:I,s:s,s:I,s:o,s:o,s:s?,s:I,s:o,s:o,s:b,s:i,"
		"s:s?,s:s?}",
		"schema", "avrr-info/1", "recording", path, "firmware", r->firmware_path, "firmware_sha256", r->firmware_sha256,
		"mcu", r->mcu, "frequency", (json_int_t)r->frequency, "stimuli", r->stimuli_path,
		"seed", (json_int_t)r->seed, "instructions", (json_int_t)r->instructions,
		"cycles", (json_int_t)r->cycles, "stop_reason", r->stop_reason,
		"interrupts", (json_int_t)nirq, "interrupts_per_vector", per_vec,
		"longest_gap", gap, "gap_warning", warn ? warning : NULL,
		"events", (json_int_t)nev, "events_per_type", per_type,
		"fingerprint_configs", metrics_json(cm, ncm),
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

int info_print(db *d, const char *path, int json, const char *cmd)
{
	avrr_err err = { "" };
	db_run r;
	uint64_t vec[256], types[TRACE_COUNT];
	config_metrics *cm = NULL;
	size_t ncm = 0;
	if (db_get_run(d, &r, &err))
		return cli_fail(cmd, "%s", err.msg);
	int rc = 0;
	if (db_count_vectors(d, vec, &err) || db_count_event_types(d, types, &err) ||
	    load_metrics(d, &cm, &ncm, &err) || add_costs(d, &r, cm, ncm, &err)) {
		rc = cli_fail(cmd, "%s", err.msg);
	} else if (json) {
		if (print_json(path, &r, vec, types, db_schema_version(d), cm, ncm))
			rc = cli_fail(cmd, "out of memory");
	} else {
		/* record said it on stderr already */
		print_text(path, &r, vec, types, db_schema_version(d), cm, ncm,
			   !strcmp(cmd, "record"));
	}
	free(cm);
	db_run_free(&r);
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
	cli_getopt g;
	cli_getopt_begin(&g, "info", argc, argv, ":h", opts);
	while ((c = cli_getopt_next(&g)) > 0) {
		switch (c) {
		case 'j': json = 1; break;
		}
	}
	if (c < 0)
		return g.rc;
	if (optind != argc - 1)
		return cli_fail("info", "usage: avrr info RUN.db [--json]");
	avrr_err err = { "" };
	db *d;
	if (db_open(argv[optind], 0, &d, &err))
		return cli_fail("info", "%s", err.msg);
	int rc = info_print(d, argv[optind], json, "info");
	db_close(d);
	return rc;
}
