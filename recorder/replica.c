/* replica.c — a sim rebuilt from a recording (see replica.h). */
#include "recorder/replica.h"

#include <stdlib.h>
#include <string.h>

int trace_replica_open(db *d, trace_replica *out, avrr_err *err)
{
	return trace_replica_open_cached(d, NULL, out, err);
}

int trace_replica_open_cached(db *d, fw_cache *fc, trace_replica *out, avrr_err *err)
{
	memset(out, 0, sizeof *out);
	uint8_t *elf = NULL;
	size_t elf_size = 0;
	if (db_get_run(d, &out->run, err))
		return -1;
	int rc = -1;
	if (sim_rules_check(out->run.interrupt_rule, DB_DEVICE_LOG_RULE, db_name(d), err))
		goto out;
	if (db_get_firmware(d, &elf, &elf_size, err) ||
	    fw_load_memory_cached(fc, elf, elf_size, out->run.firmware_path, &out->fw, err))
		goto out;
	if (out->run.stimuli &&
	    stim_parse(out->run.stimuli, out->run.stimuli_path ? out->run.stimuli_path : "stimuli",
		       &out->script, err))
		goto out;
	if (sim_open(out->fw, out->run.mcu, out->run.frequency, &out->s, err))
		goto out;
	if (out->script && sim_attach_stimuli(out->s, out->script, out->run.seed, err))
		goto out;
	rc = 0;
out:
	free(elf);
	if (rc)
		trace_replica_close(out);
	return rc;
}

void trace_replica_close(trace_replica *r)
{
	sim_close(r->s);
	if (r->script)
		stim_free(r->script);
	fw_free(r->fw);
	db_run_free(&r->run);
	memset(r, 0, sizeof *r);
}
