/*
 * edit_log.h — for tests that edit a recording's event log and
 * fingerprints by hand, as a user with the sqlite3 shell might, through
 * the views over their chunks.
 * Apart from testlib.h because db/'s names would shadow tests' locals.
 */
#ifndef AVRR_TEST_EDIT_LOG_H
#define AVRR_TEST_EDIT_LOG_H

#include "tests/testlib.h"

#include "db/chunk.h"

static inline void test_exec(sqlite3 *h, const char *sql)
{
	if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
}

/* Writes temp.fingerprints back as chunks: one per run of consecutive n
 * of one configuration, so a row deleted or added by hand leaves a gap or
 * a chunk of its own for validation to find, and each as wide as its
 * values (an input key that is not an integer is read as SQLite converts
 * it).  The vector column is not written back: it is the log's. */
static inline void test_write_fingerprints(sqlite3 *h)
{
	sqlite3_stmt *st, *ins;
	test_exec(h, "DELETE FROM main.fingerprint_chunks");
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT config, n, ra_part, hash_part, input_key"
					    " FROM temp.fingerprints ORDER BY config, n", -1, &st,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "INSERT INTO main.fingerprint_chunks VALUES"
					    " (?, ?, ?, ?, ?, ?, ?, ?)", -1, &ins, NULL), SQLITE_OK);
	db_fingerprint f[64];
	uint8_t data[64 * 2 * CHUNK_FP_FIELD_MAX], keys[CHUNK_FP_KEY_BASE + 64 * CHUNK_FP_FIELD_MAX];
	for (int more = 1, n = 0; more;) {
		db_fingerprint next = { 0 };
		more = sqlite3_step(st) == SQLITE_ROW;
		if (more)
			next = (db_fingerprint){
				.config = (uint32_t)sqlite3_column_int64(st, 0),
				.n = (uint64_t)sqlite3_column_int64(st, 1),
				.ra_part = (uint64_t)sqlite3_column_int64(st, 2),
				.hash_part = (uint64_t)sqlite3_column_int64(st, 3),
				.input_key = (uint64_t)sqlite3_column_int64(st, 4),
				.has_input_key = sqlite3_column_type(st, 4) != SQLITE_NULL,
			};
		if (n && (!more || n == 64 || next.config != f[0].config ||
			  next.n != f[n - 1].n + 1 || next.has_input_key != f[0].has_input_key)) {
			chunk_fp_sizes sz = chunk_fp_sizes_of(f, (size_t)n);
			if (!f[0].has_input_key)
				sz.key = 0;
			chunk_put_fps(f, (size_t)n, sz, data, f[0].has_input_key ? keys : NULL);
			sqlite3_bind_int64(ins, 1, f[0].config);
			sqlite3_bind_int64(ins, 2, (sqlite3_int64)f[0].n);
			sqlite3_bind_int64(ins, 3, n);
			sqlite3_bind_int(ins, 4, (int)sz.ra);
			sqlite3_bind_int(ins, 5, (int)sz.hash);
			sqlite3_bind_int(ins, 6, (int)sz.key);
			sqlite3_bind_blob(ins, 7, data, n * (int)(sz.ra + sz.hash), SQLITE_STATIC);
			if (f[0].has_input_key)
				sqlite3_bind_blob(ins, 8, keys, CHUNK_FP_KEY_BASE + n * (int)sz.key,
						  SQLITE_STATIC);
			else
				sqlite3_bind_null(ins, 8);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_reset(ins);
			n = 0;
		}
		if (more)
			f[n++] = next;
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
}

/* Runs `sql` on a recording as if its views `events`, `interrupts` and,
 * when `sql` names it, `fingerprints` were tables, as a user editing the
 * file might: they are copied into temporary tables of those names (which
 * unqualified names find first), `sql` edits them, and they are written
 * back as chunks (db/chunk.h).  The test fails if the edited log breaks a
 * rule the chunks rely on. */
static inline void test_edit_log(const char *path, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st, *ins;
	/* Copying the fingerprints decodes the log once more in SQL. */
	int fps = strstr(sql, "fingerprints") != NULL;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	test_exec(h, "CREATE TEMP TABLE events AS SELECT * FROM main.events;"
		     " CREATE TEMP TABLE interrupts AS SELECT * FROM main.interrupts;");
	if (fps)
		test_exec(h, "CREATE TEMP TABLE fingerprints AS SELECT * FROM main.fingerprints");
	test_exec(h, sql);
	test_exec(h, "BEGIN; DELETE FROM main.event_chunks; DELETE FROM main.interrupt_chunks;"
		     " DELETE FROM main.contexts");
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT seq, ctx, type, icount, cycle, pc, addr, value"
					       " FROM temp.events ORDER BY seq", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "INSERT INTO main.event_chunks VALUES (?, ?, ?)", -1,
					    &ins, NULL), SQLITE_OK);
	trace_event ev[64];
	uint8_t buf[64 * CHUNK_EVENT_MAX];
	for (int more = 1, n = 0; more;) {
		more = sqlite3_step(st) == SQLITE_ROW;
		if (more)
			ev[n++] = (trace_event){
				.seq = (uint64_t)sqlite3_column_int64(st, 0),
				.ctx = (uint32_t)sqlite3_column_int64(st, 1),
				.type = (uint32_t)sqlite3_column_int64(st, 2),
				.icount = (uint64_t)sqlite3_column_int64(st, 3),
				.cycle = (uint64_t)sqlite3_column_int64(st, 4),
				.pc = (uint32_t)sqlite3_column_int64(st, 5),
				.addr = (uint32_t)sqlite3_column_int64(st, 6),
				.value = (uint32_t)sqlite3_column_int64(st, 7),
			};
		if (n == 64 || (!more && n)) {
			size_t len = chunk_put_events(ev, (size_t)n, buf);
			if (!len)
				fail_msg("%s: the edit breaks a rule of the log near event %llu", sql,
					 (unsigned long long)ev[0].seq);
			sqlite3_bind_int64(ins, 1, (sqlite3_int64)ev[0].seq);
			sqlite3_bind_int64(ins, 2, n);
			sqlite3_bind_blob(ins, 3, buf, (int)len, SQLITE_STATIC);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_reset(ins);
			n = 0;
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	/* One interrupt per chunk: edits may leave gaps, which validation
	 * must then see. */
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT idx, sp, digest, context FROM temp.interrupts"
					    " ORDER BY idx", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint8_t one[CHUNK_IRQ_SIZE] = { 0 };
		const uint8_t *dg = sqlite3_column_blob(st, 2);
		if (sqlite3_column_bytes(st, 2) != DB_DIGEST_SIZE)
			fail_msg("%s: a digest of other than %d bytes", sql, DB_DIGEST_SIZE);
		chunk_put_irq((uint32_t)sqlite3_column_int64(st, 1), dg, one);
		char q[200];
		snprintf(q, sizeof q, "INSERT INTO main.interrupt_chunks VALUES (%lld, 1, x'",
			 (long long)sqlite3_column_int64(st, 0));
		for (int i = 0; i < CHUNK_IRQ_SIZE; i++)
			snprintf(q + strlen(q), 3, "%02x", one[i]);
		strcat(q, "')");
		test_exec(h, q);
	}
	sqlite3_finalize(st);
	test_exec(h, "INSERT INTO main.contexts SELECT idx, context FROM temp.interrupts"
		     " WHERE context IS NOT NULL");
	if (fps)
		test_write_fingerprints(h);
	test_exec(h, "COMMIT");
	sqlite3_close(h);
}

#endif
