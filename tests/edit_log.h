/*
 * edit_log.h — for tests that edit a recording's event log by hand, as a
 * user with the sqlite3 shell might, through the views over its chunks.
 * Apart from testlib.h because db/'s names would shadow tests' locals.
 */
#ifndef AVRR_TEST_EDIT_LOG_H
#define AVRR_TEST_EDIT_LOG_H

#include "testlib.h"

#include "db/chunk.h"

static inline void test_exec(sqlite3 *h, const char *sql)
{
	if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
}

/* Runs `sql` on a recording as if its views `events` and `interrupts`
 * were tables, as a user editing the file might: both are copied into
 * temporary tables of those names (which unqualified names find first),
 * `sql` edits them, and they are written back as chunks (db/chunk.h).  The
 * test fails if the edited log breaks a rule the chunks rely on. */
static inline void test_edit_log(const char *path, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st, *ins;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	test_exec(h, "CREATE TEMP TABLE events AS SELECT * FROM main.events;"
		     " CREATE TEMP TABLE interrupts AS SELECT * FROM main.interrupts;");
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
		     " WHERE context IS NOT NULL; COMMIT");
	sqlite3_close(h);
}

#endif
