/*
 * db.c — the SQLite store (see db.h and docs/schema.md): the run's
 * metadata, the firmware, the device log, and stripping.  The store's
 * other parts are files of their own (dbint.h says which).
 */
#include "db/dbint.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/imagecache.h"
#include "util/grow.h"
#include "db/chunk.h"
#include "db/validate.h"

/* ---- run metadata and firmware -------------------------------------- */

int db_put_run(db *d, const db_run *r, avrr_err *err)
{
	if (dbw_drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h,
			       "INSERT OR REPLACE INTO run VALUES (1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			       "?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_err(d, err, "writing run metadata");
	bind_text(st, 1, r->firmware_path);
	bind_text(st, 2, r->firmware_sha256);
	bind_text(st, 3, r->mcu);
	sqlite3_bind_int64(st, 4, r->frequency);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)r->seed);
	bind_text(st, 6, r->stimuli_path);
	bind_text(st, 7, r->stimuli);
	bind_text(st, 8, r->tool_version);
	bind_text(st, 9, r->interrupt_rule);
	sqlite3_bind_int64(st, 10, r->data_size);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)r->instructions);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)r->cycles);
	bind_text(st, 13, r->stop_reason);
	sqlite3_bind_int(st, 14, r->has_ground_truth);
	bind_text(st, 15, r->created);
	sqlite3_bind_int64(st, 16, (sqlite3_int64)r->transfers);
	const uint64_t gaps[6] = { r->gap_cycles, r->gap_cycles_from, r->gap_cycles_to,
				   r->gap_transfers, r->gap_transfers_from, r->gap_transfers_to };
	for (int i = 0; i < 6; i++)
		sqlite3_bind_int64(st, 17 + i, (sqlite3_int64)gaps[i]);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_err(d, err, "writing run metadata");
	sqlite3_finalize(st);
	return rc;
}

int db_get_run(db *d, db_run *r, avrr_err *err)
{
	memset(r, 0, sizeof *r);
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h,
			  "SELECT firmware_path, firmware_sha256, mcu, frequency, seed,"
			  " stimuli_path, stimuli, tool_version, interrupt_rule, data_size,"
			  " instructions, cycles, stop_reason, has_ground_truth, created,"
			  " transfers, gap_cycles, gap_cycles_from, gap_cycles_to,"
			  " gap_transfers, gap_transfers_from, gap_transfers_to"
			  " FROM run WHERE id = 1", &st) != SQLITE_OK)
		return avrr_errf(err, "%s: damaged recording: %s", d->path, sqlite3_errmsg(d->h));
	int rc = 0;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = avrr_errf(err, "%s: damaged recording: no run metadata", d->path);
	} else {
		r->firmware_path = col_text(st, 0);
		r->firmware_sha256 = col_text(st, 1);
		r->mcu = col_text(st, 2);
		r->frequency = (uint32_t)sqlite3_column_int64(st, 3);
		r->seed = (uint64_t)sqlite3_column_int64(st, 4);
		r->stimuli_path = col_text(st, 5);
		r->stimuli = col_text(st, 6);
		r->tool_version = col_text(st, 7);
		r->interrupt_rule = col_text(st, 8);
		r->data_size = (uint32_t)sqlite3_column_int64(st, 9);
		r->instructions = (uint64_t)sqlite3_column_int64(st, 10);
		r->cycles = (uint64_t)sqlite3_column_int64(st, 11);
		r->stop_reason = col_text(st, 12);
		r->has_ground_truth = sqlite3_column_int(st, 13);
		r->created = col_text(st, 14);
		r->transfers = (uint64_t)sqlite3_column_int64(st, 15);
		uint64_t *gaps[6] = { &r->gap_cycles, &r->gap_cycles_from, &r->gap_cycles_to,
				      &r->gap_transfers, &r->gap_transfers_from,
				      &r->gap_transfers_to };
		for (int i = 0; i < 6; i++)
			*gaps[i] = (uint64_t)sqlite3_column_int64(st, 16 + i);
		if (!r->firmware_path || !r->firmware_sha256 || !r->mcu || !r->stop_reason)
			rc = avrr_errf(err, "%s: damaged recording: incomplete run metadata", d->path);
	}
	stmts_finish(d->stmts, st);
	if (rc)
		db_run_free(r);
	return rc;
}

void db_run_free(db_run *r)
{
	free(r->firmware_path);
	free(r->firmware_sha256);
	free(r->mcu);
	free(r->stimuli_path);
	free(r->stimuli);
	free(r->tool_version);
	free(r->interrupt_rule);
	free(r->stop_reason);
	free(r->created);
	memset(r, 0, sizeof *r);
}

int db_put_firmware(db *d, const char *sha256, const void *elf, size_t n, avrr_err *err)
{
	if (dbw_drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "INSERT OR REPLACE INTO firmware VALUES (?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(d, err, "writing firmware");
	bind_text(st, 1, sha256);
	sqlite3_bind_blob64(st, 2, elf, n, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_err(d, err, "writing firmware");
	sqlite3_finalize(st);
	return rc;
}

int db_get_firmware(db *d, uint8_t **elf, size_t *n, avrr_err *err)
{
	*elf = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (stmts_prepare(d->stmts, d->h,
			  "SELECT elf FROM firmware WHERE sha256 = (SELECT firmware_sha256 FROM run)",
			  &st) != SQLITE_OK)
		return sql_err(d, err, "reading firmware");
	int rc = 0;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = avrr_errf(err, "%s: damaged recording: the firmware copy is missing", d->path);
	} else {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		const void *b = sqlite3_column_blob(st, 0);
		*elf = malloc(len ? len : 1);
		if (!*elf)
			rc = avrr_errf(err, "out of memory");
		else if (len)
			memcpy(*elf, b, len);
		*n = len;
	}
	stmts_finish(d->stmts, st);
	return rc;
}

int db_put_device_log(db *d, const char *log_reg, const void *data, size_t n, avrr_err *err)
{
	if (dbw_drain(d, err))
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "INSERT OR REPLACE INTO device_log VALUES (1,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(d, err, "writing the device log");
	bind_text(st, 1, log_reg);
	sqlite3_bind_blob64(st, 2, n ? data : "", n, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_err(d, err, "writing the device log");
	sqlite3_finalize(st);
	return rc;
}

int db_get_device_log(db *d, char **log_reg, uint8_t **data, size_t *n, avrr_err *err)
{
	*log_reg = NULL;
	*data = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->h, "SELECT log_reg, data FROM device_log", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_err(d, err, "reading the device log");
	int rc = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		const void *b = sqlite3_column_blob(st, 1);
		const unsigned char *reg = sqlite3_column_text(st, 0);
		*data = malloc(len ? len : 1);
		*log_reg = strdup(reg ? (const char *)reg : "");
		if (!*data || !*log_reg) {
			free(*data);
			free(*log_reg);
			*data = NULL;
			*log_reg = NULL;
			rc = avrr_errf(err, "out of memory");
		} else {
			if (len)
				memcpy(*data, b, len);
			*n = len;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- stripping -------------------------------------------------------- */

int db_strip(const char *path, const char *out, avrr_err *err)
{
	db *d;
	if (db_open(path, 0, &d, err))
		return -1;
	char *tmp = temp_path_for(out);
	char *sql = tmp ? sqlite3_mprintf("VACUUM INTO %Q", tmp) : NULL;
	sqlite3 *h = NULL;
	int rc = -1;
	struct stat sb;
	if (!sql) {
		avrr_errf(err, "out of memory");
		goto done;
	}
	if (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		avrr_errf(err, "%s: is a directory", out);
		goto done;
	}
	/* Never onto the recording itself: that would drop its ground truth
	 * in place (the command refuses first; this is the store's own word). */
	struct stat si;
	if (stat(out, &sb) == 0 && stat(path, &si) == 0 && sb.st_dev == si.st_dev &&
	    sb.st_ino == si.st_ino) {
		avrr_errf(err, "%s: is the recording being stripped", out);
		goto done;
	}
	db_remove_stale_temps(out);
	unlink(tmp);
	if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
		avrr_errf(err, "%s: cannot write here (%s)", out, sqlite3_errmsg(d->h));
		goto done;
	}
	if (sqlite3_open_v2(tmp, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(h, "BEGIN; DELETE FROM interrupt_chunks; DELETE FROM contexts;"
			    " UPDATE fingerprint_chunks SET key_size = 0, keys = NULL;"
			    " UPDATE run SET has_ground_truth = 0; COMMIT; VACUUM;",
			 NULL, NULL, NULL) != SQLITE_OK) {
		avrr_errf(err, "%s: %s", out, h ? sqlite3_errmsg(h) : "out of memory");
		goto done;
	}
	if (sqlite3_close(h) != SQLITE_OK) {
		avrr_errf(err, "%s: closing: %s", out, sqlite3_errmsg(h));
		goto done;
	}
	h = NULL;
	if (rename(tmp, out) != 0) {
		avrr_errf(err, "%s: %s", out, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	sqlite3_close(h);
	if (rc && tmp)
		unlink(tmp);
	sqlite3_free(sql);
	free(tmp);
	db_close(d);
	return rc;
}
