/*
 * test_event.c — the event kinds' table (trace/event.h) and what follows
 * from it:
 *
 *  - the kinds fit the store's type field: TRACE_TYPE_BITS bits hold
 *    TRACE_TYPE_MAX kinds (kind 0 unused), and every kind's number is
 *    among them — event.h also asserts it at compile time, so a row past
 *    the field fails the build;
 *  - the SQL the views test an event's kind with, written from the table,
 *    is the text schema 6 has (5 and 6 alike), and so is the whole schema:
 *    tests/unit/fixtures/schema-6.sql is sqlite_schema and event_types of a
 *    recording made before the table existed (recordings made since must
 *    validate against the same rows);
 *  - each kind survives the store's encoding, and the names are the table's.
 */
#include "tests/testlib.h"

#include "db/chunk.h"
#include "db/db.h"
#include "trace/event.h"

static void test_kinds_fit_the_type_field(void **state)
{
	(void)state;
	assert_int_equal(TRACE_TYPE_MAX, (1 << TRACE_TYPE_BITS) - 1);
	assert_int_equal(TRACE_COUNT, TRACE_NKINDS + 1);
	assert_true(TRACE_NKINDS <= TRACE_TYPE_MAX);
	/* Full: a new kind needs a wider field (a new schema version). */
	assert_int_equal(TRACE_NKINDS, 7);
	for (int t = 1; t < TRACE_COUNT; t++)
		assert_true(t <= TRACE_TYPE_MAX);
}

static void test_names(void **state)
{
	(void)state;
	static const char *const want[] = { "?", "reset", "irq", "reti", "read", "write",
					    "sleep", "wake", "?" };
	for (int t = 0; t <= TRACE_COUNT; t++)
		assert_string_equal(trace_kind_name(t), want[t]);
	assert_string_equal(trace_kind_name(-1), "?");
}

static void test_sql_of_the_layout(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(trace_sql_types(1u << TRACE_ARGS_STORED, 1, buf, sizeof buf),
			    "type NOT IN (4, 5)");
	assert_string_equal(trace_sql_types(1u << TRACE_ARGS_STORED, 0, buf, sizeof buf),
			    "type IN (4, 5)");
	assert_string_equal(trace_sql_types(1u << TRACE_ARGS_VECTOR | 1u << TRACE_ARGS_VECTOR_RA, 0,
					    buf, sizeof buf), "type IN (2, 3)");
	assert_string_equal(trace_sql_types(1u << TRACE_ARGS_VECTOR_RA, 0, buf, sizeof buf),
			    "type = 2");
	assert_string_equal(trace_sql_types(1u << TRACE_ARGS_VECTOR, 1, buf, sizeof buf),
			    "type <> 3");
	assert_string_equal(trace_sql_types(1u << TRACE_ARGS_NONE, 0, buf, sizeof buf),
			    "type IN (1, 6, 7)");
}

/* sqlite_schema's rows and event_types as the fixture lists them. */
static char *dump(sqlite3 *h)
{
	sqlite3_stmt *st;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	out[0] = 0;
	static const char *const q[] = {
		"SELECT type || ' ' || name || ' ' || tbl_name || char(10) || coalesce(sql, '')"
		" FROM sqlite_schema ORDER BY type, name",
		"SELECT 'event_types ' || type || ' ' || name FROM event_types ORDER BY type",
	};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(sqlite3_prepare_v2(h, q[i], -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *row = (const char *)sqlite3_column_text(st, 0);
			size_t n = strlen(row);
			assert_true(len + n + 2 < cap);
			memcpy(out + len, row, n);
			len += n;
			out[len++] = '\n';
			out[len] = 0;
		}
		sqlite3_finalize(st);
	}
	return out;
}

static void test_schema_is_schema_6(void **state)
{
	(void)state;
	sqlite3 *h;
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	const char *sql = db_schema_sql();
	assert_ptr_equal(sql, db_schema_sql());  /* validation finds its rows by the pointer */
	char *msg = NULL;
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("the schema does not run: %s", msg);
	char *got = dump(h);
	char *want = test_slurp("tests/unit/fixtures/schema-6.sql", NULL);
	assert_string_equal(got, want);
	free(got);
	free(want);
	sqlite3_close(h);
}

/* Every kind, in and out of an event chunk: its type and its addr and
 * value (stored, or implied by its context and pc) come back. */
static void test_each_kind_through_the_store(void **state)
{
	(void)state;
	trace_writer w = { 0 };
	trace_event ev[TRACE_COUNT - 1];
	for (int t = 1; t < TRACE_COUNT; t++) {
		uint8_t ctx = t == TRACE_RESET ? 0 : 3;
		uint32_t pc = 0x100 + 2 * (uint32_t)t, addr = 0x2c, value = 0x5a;
		if (!trace_has_operands((uint32_t)t))
			trace_implied((uint32_t)t, ctx, pc, &addr, &value);
		ev[t - 1] = trace_stamp(&w, ctx, (trace_kind)t, 10 * (uint64_t)t, 12 * (uint64_t)t, pc,
					addr, value);
	}
	uint8_t buf[1024];
	size_t len = chunk_put_events(ev, TRACE_COUNT - 1, buf);
	assert_true(len > 0);
	trace_event back[TRACE_COUNT - 1];
	uint64_t last[256] = { 0 };
	assert_null(chunk_get_events(buf, len, 1, TRACE_COUNT - 1, last, back));
	for (int i = 0; i < TRACE_COUNT - 1; i++) {
		assert_int_equal(back[i].type, ev[i].type);
		assert_int_equal(back[i].ctx, ev[i].ctx);
		assert_int_equal(back[i].pc, ev[i].pc);
		assert_int_equal(back[i].addr, ev[i].addr);
		assert_int_equal(back[i].value, ev[i].value);
	}
	/* irq: addr is the vector, value the return address; read: its own */
	assert_int_equal(back[TRACE_IRQ - 1].addr, 3);
	assert_int_equal(back[TRACE_IRQ - 1].value, 0x104);
	assert_int_equal(back[TRACE_READ - 1].addr, 0x2c);
	assert_int_equal(back[TRACE_READ - 1].value, 0x5a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_fit_the_type_field),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_sql_of_the_layout),
		cmocka_unit_test(test_schema_is_schema_6),
		cmocka_unit_test(test_each_kind_through_the_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
