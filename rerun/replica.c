/* replica.c — a sim rebuilt from a recording (see replica.h). */
#include "rerun/replica.h"

#include <stdlib.h>
#include <string.h>

#include "util/digest.h"

int rerun_replica_open(db *d, rerun_replica *out, avrr_err *err)
{
	return rerun_replica_open_cached(d, NULL, out, err);
}

int rerun_replica_open_cached(db *d, fw_cache *fc, rerun_replica *out, avrr_err *err)
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
		rerun_replica_close(out);
	return rc;
}

void rerun_replica_close(rerun_replica *r)
{
	sim_close(r->s);
	if (r->script)
		stim_free(r->script);
	fw_free(r->fw);
	db_run_free(&r->run);
	memset(r, 0, sizeof *r);
}

int rerun_digest(const sim_irq_point *p, uint8_t dg[DB_DIGEST_SIZE])
{
	_Static_assert(DB_DIGEST_SIZE == DIGEST_CONTEXT_SIZE, "the digest is stored whole");
	uint8_t ra_le[4] = { (uint8_t)p->ra, (uint8_t)(p->ra >> 8), (uint8_t)(p->ra >> 16),
			     (uint8_t)(p->ra >> 24) };
	return digest_context(p->data, p->data_size, ra_le, sizeof ra_le, dg);
}
