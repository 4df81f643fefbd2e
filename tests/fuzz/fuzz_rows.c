/*
 * fuzz_rows.c — a recording edited row by row, as a user with the sqlite3
 * shell might: the input is a list of 8-byte edits, each setting one column
 * of one row of a valid recording ($AVRR_FUZZ_RECORDING) to an integer
 * (small, at a bit boundary, or any 64-bit value), NULL, text, a real or a
 * blob.  Byte mutations of the file rarely get past SQLite's page checks;
 * these reach avrr's validation and every loader behind it (recording.h).
 * The edits are made in memory, on one connection kept for the process,
 * and the edited bytes handed to db_open_memory_cached: no file is
 * written, and neither connection parses the schema again.
 *
 * An edit: table (byte 0), row (bytes 1-2, modulo the table's rows), column
 * (byte 3), kind of value (byte 4), value (bytes 5-7).  For a chunk's `data`
 * one kind flips bits of one byte in place (bytes 5-6 its offset, byte 7 the
 * bits), so the decoders meet chunks damaged inside as well as replaced.
 * Seeds: tests/fuzz/seeds/rows.
 */
#include "tests/fuzz/fuzz.h"

#include <sqlite3.h>

#include "tests/fuzz/recording.h"

static const struct {
	const char *table;
	const char *const cols[23];
} TABLES[] = {
	{ "run", { "firmware_path", "firmware_sha256", "mcu", "frequency", "seed",
			    "stimuli_path", "stimuli", "tool_version", "interrupt_rule",
			    "data_size", "instructions", "cycles", "stop_reason",
			    "has_ground_truth", "created", "transfers", "gap_cycles",
			    "gap_cycles_from", "gap_cycles_to", "gap_transfers",
			    "gap_transfers_from", "gap_transfers_to", NULL } },
	{ "event_chunks", { "first", "count", "data", NULL } },
	{ "interrupt_chunks", { "first", "count", "data", NULL } },
	{ "fingerprint_chunks", { "config", "first", "count", "ra_size", "hash_size", "key_size",
				       "data", "keys", NULL } },
	{ "fp_configs", { "id", "name", "spec", NULL } },
	{ "firmware", { "sha256", "elf", NULL } },
	{ "contexts", { "idx", "data", NULL } },
};
#define NTABLES (sizeof TABLES / sizeof *TABLES)

/* The seed, and a connection to a copy of it in memory (SQLite's memdb
 * VFS) whose bytes every input edits and commits, and which are put back
 * after: the connection's parsed schema is kept, which would otherwise be
 * built anew for every input (half the time of one). */
typedef struct seed_db {
	uint8_t *bytes;
	size_t size;
	sqlite3 *h;
	/* Each edit's statement, prepared at its first use on h: an UPDATE
	 * per table and column, and the SELECT of a chunk's data to flip. */
	sqlite3_stmt *update[NTABLES][23];
	sqlite3_stmt *pick[NTABLES];
	sqlite3_stmt *begin, *commit;  /* each input's transaction, prepared once */
} seed_db;

static void open_seed_copy(seed_db *s)
{
	for (size_t t = 0; t < NTABLES; t++) {
		for (size_t c = 0; c < 23; c++)
			sqlite3_finalize(s->update[t][c]);
		sqlite3_finalize(s->pick[t]);
	}
	sqlite3_finalize(s->begin);
	sqlite3_finalize(s->commit);
	memset(s->update, 0, sizeof s->update);
	memset(s->pick, 0, sizeof s->pick);
	sqlite3_close(s->h);
	uint8_t *copy = sqlite3_malloc64(s->size);
	fuzz_require(copy != NULL, "out of memory");
	memcpy(copy, s->bytes, s->size);
	fuzz_require(sqlite3_open(":memory:", &s->h) == SQLITE_OK &&
		     sqlite3_deserialize(s->h, "main", copy, (sqlite3_int64)s->size,
					 (sqlite3_int64)s->size,
					 SQLITE_DESERIALIZE_FREEONCLOSE |
					 SQLITE_DESERIALIZE_RESIZEABLE) == SQLITE_OK &&
		     sqlite3_exec(s->h, "PRAGMA journal_mode = MEMORY", NULL, NULL, NULL) ==
		     SQLITE_OK &&
		     sqlite3_prepare_v2(s->h, "BEGIN", -1, &s->begin, NULL) == SQLITE_OK &&
		     sqlite3_prepare_v2(s->h, "COMMIT", -1, &s->commit, NULL) == SQLITE_OK,
		     "opening the seed in memory");
}

static seed_db *load_seed(void)
{
	static seed_db s;  /* the process's one seed, read once */
	if (s.h)
		return &s;
	const char *path = getenv("AVRR_FUZZ_RECORDING");
	fuzz_require(path != NULL, "AVRR_FUZZ_RECORDING names no recording");
	FILE *fp = fopen(path, "rb");
	fuzz_require(fp != NULL, path);
	fuzz_require(!fseek(fp, 0, SEEK_END) && (s.size = (size_t)ftell(fp)) > 0 &&
		     !fseek(fp, 0, SEEK_SET), path);
	s.bytes = malloc(s.size);
	fuzz_require(s.bytes && fread(s.bytes, 1, s.size, fp) == s.size, path);
	fclose(fp);
	open_seed_copy(&s);
	return &s;
}

/* Binds edit e's value: an integer near a width's edge or any 64 bits,
 * NULL, text, a real or a blob. */
static void bind_value(sqlite3_stmt *st, const uint8_t *e)
{
	uint32_t v = (uint32_t)e[5] | (uint32_t)e[6] << 8 | (uint32_t)e[7] << 16;
	switch (e[4] % 8) {
	case 0: sqlite3_bind_int64(st, 1, (int64_t)v); break;
	case 1: sqlite3_bind_int64(st, 1, (int64_t)(v & 7) - 4); break;
	case 2: sqlite3_bind_int64(st, 1, (int64_t)((UINT64_C(1) << (e[5] % 64)) + (e[6] % 3) - 1)); break;
	case 3: sqlite3_bind_int64(st, 1, (int64_t)((uint64_t)v << 40 | v)); break;
	case 4: sqlite3_bind_null(st, 1); break;
	case 5: sqlite3_bind_text(st, 1, (const char *)e + 5, 3, SQLITE_TRANSIENT); break;
	case 6: sqlite3_bind_double(st, 1, (double)v / 7.0); break;
	default: sqlite3_bind_blob(st, 1, e + 5, e[5] % 4, SQLITE_TRANSIENT);
	}
}

/* Binds the `data` of the row edit e picks (in table t) with one byte's
 * bits flipped. */
static void bind_flipped(seed_db *s, unsigned t, const uint8_t *e, sqlite3_stmt *st)
{
	const char *table = TABLES[t].table;
	sqlite3_stmt *q = s->pick[t];
	if (!q) {
		char sql[160];
		snprintf(sql, sizeof sql, "SELECT data FROM %s LIMIT 1 OFFSET (?1 %% max(1, (SELECT"
			 " count(*) FROM %s)))", table, table);
		if (sqlite3_prepare_v2(s->h, sql, -1, &q, NULL) != SQLITE_OK)
			return;
		s->pick[t] = q;
	}
	sqlite3_bind_int(q, 1, e[1] | e[2] << 8);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_bytes(q, 0) > 0) {
		int n = sqlite3_column_bytes(q, 0);
		uint8_t *b = malloc((size_t)n);
		fuzz_require(b != NULL, "out of memory");
		memcpy(b, sqlite3_column_blob(q, 0), (size_t)n);
		b[(e[5] | e[6] << 8) % n] ^= (uint8_t)(e[7] | 1);
		sqlite3_bind_blob(st, 1, b, n, free);
	}
	sqlite3_reset(q);
}

/* The UPDATE setting column c of table t in the row ?2 picks to ?1: `=`
 * a scalar subquery rather than IN one, which SQLite would build a
 * table in memory for, its own pager and page cache, at every edit. */
static sqlite3_stmt *update_of(seed_db *s, unsigned t, unsigned c)
{
	if (s->update[t][c])
		return s->update[t][c];
	char sql[256];
	snprintf(sql, sizeof sql,
		 "UPDATE OR IGNORE %s SET %s = ?1 WHERE rowid = (SELECT rowid FROM %s"
		 " LIMIT 1 OFFSET (?2 %% max(1, (SELECT count(*) FROM %s))))",
		 TABLES[t].table, TABLES[t].cols[c], TABLES[t].table, TABLES[t].table);
	if (t == 3)  /* WITHOUT ROWID: its key picks the row */
		snprintf(sql, sizeof sql,
			 "UPDATE OR IGNORE fingerprint_chunks SET %s = ?1 WHERE (config, first)"
			 " = (SELECT config, first FROM fingerprint_chunks LIMIT 1 OFFSET (?2 %%"
			 " max(1, (SELECT count(*) FROM fingerprint_chunks))))",
			 TABLES[t].cols[c]);
	if (sqlite3_prepare_v2(s->h, sql, -1, &s->update[t][c], NULL) != SQLITE_OK)
		s->update[t][c] = NULL;
	return s->update[t][c];
}

/* Applies the input's edits (at most 16) to the recording open in s->h. */
static void apply_edits(seed_db *s, const uint8_t *data, size_t size)
{
	for (size_t at = 0; at + 8 <= size && at < 8 * 16; at += 8) {
		const uint8_t *e = data + at;
		unsigned t = e[0] % NTABLES, ncols = 0;
		while (TABLES[t].cols[ncols])
			ncols++;
		unsigned c = e[3] % ncols;
		sqlite3_stmt *st = update_of(s, t, c);
		if (!st)
			continue;
		if (!strcmp(TABLES[t].cols[c], "data") && e[4] % 8 == 7)
			bind_flipped(s, t, e, st);
		else
			bind_value(st, e);
		sqlite3_bind_int(st, 2, e[1] | e[2] << 8);
		sqlite3_step(st);  /* a NOT NULL or key conflict leaves the row */
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);  /* a flipped blob is freed now, not at the next bind */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	seed_db *s = load_seed();
	sqlite3 *h = s->h;
	fuzz_require(sqlite3_step(s->begin) == SQLITE_DONE && sqlite3_reset(s->begin) == SQLITE_OK,
		     "BEGIN");
	apply_edits(s, data, size);
	/* The edited file's bytes, read where they lie (no copy). */
	/* An error that rolled the transaction back already (out of memory)
	 * leaves nothing to commit, and the seed's bytes. */
	int committed = sqlite3_step(s->commit) == SQLITE_DONE;
	sqlite3_reset(s->commit);
	fuzz_require(committed || sqlite3_get_autocommit(h), "COMMIT");
	sqlite3_int64 n = 0;
	unsigned char *edited = sqlite3_serialize(h, "main", &n, SQLITE_SERIALIZE_NOCOPY);
	fuzz_require(edited != NULL, "serializing the edited recording");
	fuzz_load_recording(edited, (size_t)n);
	/* Back to the seed's bytes for the next input, in place: the file
	 * change counter they carry differs from the commit's, so SQLite drops
	 * its cached pages at the next transaction, while the schema cookie,
	 * the same, keeps its parsed schema.  An edit that grew the file is
	 * cut back to the seed's size first (memdb's xTruncate: the bytes stay
	 * where they are); failing that, the seed is opened again. */
	sqlite3_file *f = NULL;
	if ((size_t)n > s->size &&
	    (sqlite3_file_control(h, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
	     !f->pMethods || f->pMethods->xTruncate(f, (sqlite3_int64)s->size) != SQLITE_OK))
		n = 0;
	if ((size_t)n >= s->size)
		memcpy(edited, s->bytes, s->size);
	else
		open_seed_copy(s);
	return 0;
}
