/*
 * validate.c — checks a whole recording once, when db_open opens it (see
 * validate.h and docs/schema.md).
 *
 * One pass over each table, in key order, in C rather than in SQL so each
 * failure names its row: the schema is compared with the one avrr creates
 * (built in a scratch in-memory database from the same text); every column
 * is checked for its SQLite type and range; the event log is replayed as a
 * stack of running ISRs, so contexts, nesting and `prev` links agree; and the
 * interrupts and fingerprints are checked against the log's irq events.
 * What the replayer would otherwise meet as an index out of range, a loop
 * without end or a false divergence is reported here as damage.
 */
#include "db/validate.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/fingerprint.h"
#include "sim/ioregs.h"
#include "util/digest.h"
#include "util/grow.h"
#include "db/chunk.h"
#include "db/db.h"

#define MAX_VECTOR 127        /* for an MCU avrr has no vector names for */
#define PC_LIMIT (1u << 23)   /* byte addresses of a 22-bit PC */
#define TEXT_MAX 4096
#define STIMULI_MAX (64u << 20)

typedef struct cfg_seen {
	int64_t id;
	char name[64];
	unsigned ra_bits, state_bits;
	uint64_t rows;
} cfg_seen;

typedef struct checker {
	sqlite3 *h;
	db_stmts *stmts;       /* where its statements are kept, or NULL */
	const char *path;
	avrr_err *err;
	sqlite3_stmt *st;      /* the statement being stepped */
	/* from run */
	uint64_t instructions, cycles;
	uint32_t data_size;
	unsigned max_vector;
	int has_truth;
	char sha256[65];
	/* The log as check_events walks it, a chunk at a time: nothing of it
	 * is held, so that opening a long recording takes no more memory than
	 * a short one. */
	uint64_t nevents, nirq;
	trace_nesting nesting;
	uint64_t icount, cycle;   /* of the previous event */
	growbuf cfgs;          /* cfg_seen */
} checker;

/* "PATH: damaged recording: WHAT (TABLE, row N)"; row 0 leaves the row out. */
static int damaged(checker *c, const char *table, int64_t row, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int damaged(checker *c, const char *table, int64_t row, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (row)
		return avrr_errf(c->err, "%s: damaged recording: %s (%s, row %" PRId64 ")", c->path,
				 what, table, row);
	return avrr_errf(c->err, "%s: damaged recording: %s (%s)", c->path, what, table);
}

/* A query SQLite itself could not run: a file it finds malformed. */
static int sqlite_failed(checker *c, const char *table)
{
	return damaged(c, table, 0, "%s", sqlite3_errmsg(c->h));
}

static int begin(checker *c, const char *table, const char *sql)
{
	stmts_finish(c->stmts, c->st);
	c->st = NULL;
	return stmts_prepare(c->stmts, c->h, sql, &c->st) == SQLITE_OK ? 0
									 : sqlite_failed(c, table);
}

/* Steps the current query: 1 for a row, 0 at its end, -1 (reported). */
static int next(checker *c, const char *table)
{
	int rc = sqlite3_step(c->st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : sqlite_failed(c, table);
}

/* Column i as an integer in [lo, hi]; -1 when it is of another type or
 * out of range. */
static int int_in(sqlite3_stmt *st, int i, int64_t lo, int64_t hi, int64_t *out)
{
	sqlite3_value *v = sqlite3_column_value(st, i);  /* one column lookup, not two */
	if (sqlite3_value_type(v) != SQLITE_INTEGER)
		return -1;
	*out = sqlite3_value_int64(v);
	return *out < lo || *out > hi ? -1 : 0;
}

/* What a text column may hold besides printable characters: nothing
 * (names, specs: they are printed), tabs and line ends (the stimuli file),
 * or any byte but NUL (paths, as the user's file system had them). */
enum { TEXT_PLAIN, TEXT_LINES, TEXT_ANY };

/* Column i as text of at most max bytes of `kind`; NULL is allowed when
 * `nullable`. */
static int text_ok(sqlite3_stmt *st, int i, size_t max, int kind, int nullable)
{
	int type = sqlite3_column_type(st, i);
	if (type == SQLITE_NULL)
		return nullable ? 0 : -1;
	if (type != SQLITE_TEXT)
		return -1;
	const unsigned char *t = sqlite3_column_text(st, i);
	size_t n = (size_t)sqlite3_column_bytes(st, i);
	if (!t || n > max || strlen((const char *)t) != n)
		return -1;
	for (size_t k = 0; k < n && kind != TEXT_ANY; k++)
		if ((t[k] < 0x20 && !(kind == TEXT_LINES && (t[k] == '\t' || t[k] == '\n' ||
							       t[k] == '\r'))) || t[k] == 0x7f)
			return -1;
	return 0;
}

static const char *text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

/* One row of sqlite_schema: type, name, tbl_name and sql ('' for none). */
typedef struct schema_row {
	char *col[4];
} schema_row;

/* The rows of sqlite_schema that `schema` creates, in the order of
 * check_schema's query.  Built once per process, in a scratch in-memory
 * database from the schema's own text, and never changed after: building
 * it (parsing the views' SQL) costs more than validating a small
 * recording, and every db_open compares against the same rows. */
typedef struct schema_rows {
	const char *schema;    /* the text they were built from */
	schema_row *rows;
	size_t n;
} schema_rows;

static const char SCHEMA_QUERY[] = "SELECT type, name, tbl_name, coalesce(sql, '')"
				   " FROM sqlite_schema ORDER BY type, name";

/* Builds the rows `schema` creates into *out; -1 when out of memory. */
static int build_schema_rows(const char *schema, schema_rows *out)
{
	sqlite3 *want = NULL;
	sqlite3_stmt *ws = NULL;
	growbuf rows = { .size = sizeof(schema_row) };
	int rc = -1, step = SQLITE_DONE;
	if (sqlite3_open_v2(":memory:", &want, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(want, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(want, SCHEMA_QUERY, -1, &ws, NULL) != SQLITE_OK)
		goto out;
	while ((step = sqlite3_step(ws)) == SQLITE_ROW) {
		schema_row *r = grow(&rows);
		if (!r)
			goto out;
		*r = (schema_row){ { NULL } };
		for (int i = 0; i < 4; i++)
			if (!(r->col[i] = strdup(text(ws, i))))
				goto out;
	}
	if (step == SQLITE_DONE) {
		*out = (schema_rows){ .schema = schema, .rows = rows.items, .n = rows.n };
		rc = 0;
	}
out:
	if (rc) {
		schema_row *r = rows.items;
		for (size_t i = 0; i < rows.n; i++)
			for (int k = 0; k < 4; k++)
				free(r[i].col[k]);
		free(rows.items);
	}
	sqlite3_finalize(ws);
	sqlite3_close(want);
	return rc;
}

/* The rows of `schema`, built at the first call (any thread) and kept for
 * the process: the one table of state validation keeps, written once under
 * its lock and only read after.  NULL when out of memory. */
static const schema_rows *schema_rows_of(const char *schema)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static schema_rows built;
	const schema_rows *r = NULL;
	pthread_mutex_lock(&mu);
	if (built.schema || !build_schema_rows(schema, &built))
		r = built.schema == schema ? &built : NULL;
	pthread_mutex_unlock(&mu);
	return r;
}

/* The file's tables, indexes and their SQL are exactly those `schema`
 * creates; a table or index added, dropped or altered is damage.  With
 * rows_known (db_validate) the sqlite_schema rows are known to be those,
 * and only the event types are read. */
static int check_schema(checker *c, const char *schema, int rows_known)
{
	const schema_rows *want = schema_rows_of(schema);
	if (!want)
		return avrr_errf(c->err, "out of memory");
	if (!rows_known && begin(c, "sqlite_schema", SCHEMA_QUERY))
		return -1;
	for (size_t row = 0; !rows_known; row++) {
		int have = next(c, "sqlite_schema"), expect = row < want->n;
		if (have < 0)
			return -1;
		if (!have && !expect)
			break;
		char *const *w = expect ? want->rows[row].col : NULL;
		if (!expect)
			return damaged(c, "sqlite_schema", (int64_t)row + 1, "an extra %s '%s'",
				       text(c->st, 0), text(c->st, 1));
		int order = have ? strcmp(text(c->st, 0), w[0]) : 1;
		if (!order)
			order = strcmp(text(c->st, 1), w[1]);
		if (order < 0)
			return damaged(c, "sqlite_schema", (int64_t)row + 1, "an extra %s '%s'",
				       text(c->st, 0), text(c->st, 1));
		if (order > 0)
			return damaged(c, "sqlite_schema", (int64_t)row + 1, "%s '%s' is missing",
				       w[0], w[1]);
		if (strcmp(text(c->st, 2), w[2]) || strcmp(text(c->st, 3), w[3]))
			return damaged(c, "sqlite_schema", (int64_t)row + 1, "%s '%s' is not avrr's",
				       w[0], w[1]);
	}
	if (begin(c, "event_types", "SELECT type, name FROM event_types ORDER BY type"))
		return -1;
	for (int type = 1;; type++) {
		int have = next(c, "event_types");
		int64_t t;
		if (have < 0)
			return -1;
		if (!have && type == TRACE_COUNT)
			break;
		if (!have || type == TRACE_COUNT ||
		    int_in(c->st, 0, type, type, &t) ||
		    strcmp(text(c->st, 1), trace_kind_name(type)))
			return damaged(c, "event_types", type, "the event types are not avrr's");
	}
	return 0;
}

static int known_stop_reason(const char *s)
{
	static const char *const reasons[] = {
		DB_STOP_INSTRUCTIONS, DB_STOP_CYCLES, DB_STOP_INTERRUPTS,
		DB_STOP_CPU_DONE, DB_STOP_ASLEEP, DB_STOP_CPU_CRASHED,
	};
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		if (!strcmp(s, reasons[i]))
			return 1;
	return 0;
}

static int is_hex64(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n == 64;
}

static int is_mcu_name(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || ((s[n] | 32) >= 'a' && (s[n] | 32) <= 'z') ||
		      s[n] == '_'))
			return 0;
	return n > 0 && n < 32;
}

/* The highest vector number the MCU has. */
static unsigned max_vector_of(const char *mcu)
{
	const mcu_names *names = ioregs_lookup(mcu);
	unsigned max = 0;
	for (unsigned i = 0; names && i < names->nvectors; i++)
		if (names->vectors[i].addr > max)
			max = names->vectors[i].addr;
	return max ? max : MAX_VECTOR;
}

static int check_run(checker *c)
{
	enum { FW_PATH, FW_SHA, MCU, FREQ, SEED, STIM_PATH, STIM, VERSION, RULE, DATA_SIZE,
	       INSNS, CYCLES, STOP, TRUTH, CREATED, TRANSFERS, GAP_C, GAP_C_FROM, GAP_C_TO,
	       GAP_T, GAP_T_FROM, GAP_T_TO, NCOLS };
	static const char *const col[NCOLS] = {
		"firmware_path", "firmware_sha256", "mcu", "frequency", "seed", "stimuli_path",
		"stimuli", "tool_version", "interrupt_rule", "data_size", "instructions", "cycles",
		"stop_reason", "has_ground_truth", "created", "transfers", "gap_cycles",
		"gap_cycles_from", "gap_cycles_to", "gap_transfers", "gap_transfers_from",
		"gap_transfers_to",
	};
	if (begin(c, "run", "SELECT firmware_path, firmware_sha256, mcu, frequency, seed,"
			    " stimuli_path, stimuli, tool_version, interrupt_rule, data_size,"
			    " instructions, cycles, stop_reason, has_ground_truth, created,"
			    " transfers, gap_cycles, gap_cycles_from, gap_cycles_to, gap_transfers,"
			    " gap_transfers_from, gap_transfers_to, id FROM run"))
		return -1;
	int have = next(c, "run");
	if (have <= 0)
		return have < 0 ? -1 : damaged(c, "run", 0, "no run metadata");
	sqlite3_stmt *st = c->st;
	int64_t v, insns = 0, cycles = 0, data_size = 0, truth = 0, from = 0;
	int bad = -1;
	for (int i = 0; i < NCOLS && bad < 0; i++) {
		int fail;
		switch (i) {
		case FW_SHA: fail = text_ok(st, i, 64, TEXT_PLAIN, 0) || !is_hex64(text(st, i)); break;
		case MCU: fail = text_ok(st, i, 31, TEXT_PLAIN, 0) || !is_mcu_name(text(st, i)); break;
		case FW_PATH: fail = text_ok(st, i, TEXT_MAX, TEXT_ANY, 0); break;
		case STIM_PATH: fail = text_ok(st, i, TEXT_MAX, TEXT_ANY, 1); break;
		case STIM: fail = text_ok(st, i, STIMULI_MAX, TEXT_LINES, 1); break;
		case STOP: fail = text_ok(st, i, 32, TEXT_PLAIN, 0) || !known_stop_reason(text(st, i)); break;
		case FREQ: fail = int_in(st, i, 1, UINT32_MAX, &v); break;
		case SEED: fail = int_in(st, i, INT64_MIN, INT64_MAX, &v); break;
		case DATA_SIZE: fail = int_in(st, i, 0x60, 0x10000, &data_size); break;
		case INSNS: fail = int_in(st, i, 0, (int64_t)DB_MAX_INSTRUCTIONS, &insns); break;
		/* every instruction takes a cycle at least */
		case CYCLES: fail = int_in(st, i, insns, INT64_MAX, &cycles); break;
		case TRUTH: fail = int_in(st, i, 0, 1, &truth); break;
		/* at most one control transfer per instruction */
		case TRANSFERS: fail = int_in(st, i, 0, insns, &v); break;
		/* a gap lies within the run: from <= to <= instructions */
		case GAP_C: fail = int_in(st, i, 0, cycles, &v); break;
		case GAP_T: fail = int_in(st, i, 0, insns, &v); break;
		case GAP_C_FROM: case GAP_T_FROM: fail = int_in(st, i, 0, insns, &from); break;
		case GAP_C_TO: case GAP_T_TO: fail = int_in(st, i, from, insns, &v); break;
		default: fail = text_ok(st, i, TEXT_MAX, TEXT_PLAIN, 0); break;
		}
		if (fail)
			bad = i;
	}
	if (bad >= 0) {
		int type = sqlite3_column_type(st, bad);
		int want_int = (bad >= FREQ && bad <= SEED) || bad == DATA_SIZE || bad == INSNS ||
			       bad == CYCLES || bad == TRUTH || bad >= TRANSFERS;
		return damaged(c, "run", sqlite3_column_int64(st, NCOLS), "run.%s is %s", col[bad],
			       type == SQLITE_NULL ? "missing"
			       : (type == SQLITE_INTEGER) != want_int ? "of the wrong type"
			       : want_int ? "out of range" : "malformed");
	}
	c->instructions = (uint64_t)insns;
	c->cycles = (uint64_t)cycles;
	c->data_size = (uint32_t)data_size;
	c->has_truth = (int)truth;
	c->max_vector = max_vector_of(text(st, MCU));
	snprintf(c->sha256, sizeof c->sha256, "%s", text(st, FW_SHA));
	return 0;
}

static int check_firmware(checker *c, db_digest_memo *memo)
{
	if (begin(c, "firmware", "SELECT sha256, elf, rowid FROM firmware"))
		return -1;
	int have = next(c, "firmware");
	if (have <= 0)
		return have < 0 ? -1 : damaged(c, "firmware", 0, "the firmware copy is missing");
	int64_t row = sqlite3_column_int64(c->st, 2);
	if (strcmp(text(c->st, 0), c->sha256))
		return damaged(c, "firmware", row, "the firmware copy is not the run's (%.64s)",
			       c->sha256);
	const void *elf = sqlite3_column_blob(c->st, 1);
	size_t n = (size_t)sqlite3_column_bytes(c->st, 1);
	uint8_t d[DIGEST_SIZE];
	char hex[2 * DIGEST_SIZE + 1];
	if (sqlite3_column_type(c->st, 1) != SQLITE_BLOB || !n)
		return damaged(c, "firmware", row, "the firmware copy is empty");
	if (memo && memo->bytes && memo->n == n && !memcmp(memo->bytes, elf, n)) {
		memcpy(hex, memo->hex, sizeof hex);
	} else {
		digest_sha256(elf, n, d);
		digest_hex(d, hex);
		uint8_t *copy = memo ? malloc(n) : NULL;
		if (copy) {  /* without room, no memo: the next is hashed too */
			free(memo->bytes);
			memcpy(copy, elf, n);
			*memo = (db_digest_memo){ .bytes = copy, .n = n };
			memcpy(memo->hex, hex, sizeof hex);
		}
	}
	if (strcmp(hex, c->sha256))
		return damaged(c, "firmware", row, "the firmware copy does not match its SHA-256");
	have = next(c, "firmware");
	return have ? (have < 0 ? -1 : damaged(c, "firmware", 0, "more than one firmware copy")) : 0;
}

int db_each_event_chunk(sqlite3 *h, db_stmts *stmts, const char *path,
			int (*fn)(void *ud, const trace_event *ev, size_t n), void *ud, avrr_err *err)
{
	checker c = { .h = h, .stmts = stmts, .path = path, .err = err };
	uint64_t last_of_ctx[256] = { 0 };
	trace_event buf[256];  /* every chunk avrr writes fits; a longer one goes on the heap */
	trace_event *big = NULL;
	int64_t seq = 1, first, count;
	int have, rc = -1;
	if (begin(&c, "event_chunks", "SELECT first, count, data FROM event_chunks ORDER BY first"))
		goto out;
	while ((have = next(&c, "event_chunks")) > 0) {
		sqlite3_stmt *st = c.st;
		if (int_in(st, 0, INT64_MIN, INT64_MAX, &first) || first != seq) {
			damaged(&c, "event_chunks", sqlite3_column_int64(st, 0), "event_chunks.first is"
				" not the next event, %" PRId64, seq);
			goto out;
		}
		if (int_in(st, 1, 1, 1 << 16, &count) || sqlite3_column_type(st, 2) != SQLITE_BLOB) {
			damaged(&c, "event_chunks", first, "an event chunk with a bad count or no data");
			goto out;
		}
		trace_event *e = buf;
		if ((size_t)count > sizeof buf / sizeof buf[0]) {
			free(big);
			if (!(e = big = malloc((size_t)count * sizeof *e))) {
				avrr_errf(err, "out of memory");
				goto out;
			}
		}
		const char *why = chunk_get_events(sqlite3_column_blob(st, 2),
						   (size_t)sqlite3_column_bytes(st, 2), (uint64_t)first,
						   (size_t)count, last_of_ctx, e);
		if (why) {
			damaged(&c, "event_chunks", first, "%s", why);
			goto out;
		}
		if (fn(ud, e, (size_t)count)) {
			avrr_errf(err, "out of memory");
			goto out;
		}
		seq += count;
	}
	if (have == 0)
		rc = 0;
out:
	stmts_finish(stmts, c.st);
	free(big);
	return rc;
}

static int append_events(void *ud, const trace_event *ev, size_t n)
{
	trace_event *e = grow_n(ud, n);
	if (!e)
		return -1;
	memcpy(e, ev, n * sizeof *e);
	return 0;
}

int db_decode_events(sqlite3 *h, db_stmts *stmts, const char *path, trace_event **out,
		     size_t *n, avrr_err *err)
{
	growbuf g = { .size = sizeof(trace_event) };
	*out = NULL;
	*n = 0;
	if (db_each_event_chunk(h, stmts, path, append_events, &g, err)) {
		free(g.items);
		return -1;
	}
	*out = g.items;
	*n = g.n;
	return 0;
}

int db_decode_interrupts(sqlite3 *h, db_stmts *stmts, const char *path, const trace_event *ev,
			 size_t nev, db_interrupt **out, size_t *n, avrr_err *err)
{
	checker c = { .h = h, .stmts = stmts, .path = path, .err = err };
	growbuf g = { .size = sizeof(db_interrupt) };
	size_t at = 0;  /* the next irq event is at or after ev[at] */
	int64_t idx = 1, first, count;
	int have, rc = -1;
	*out = NULL;
	*n = 0;
	if (begin(&c, "interrupt_chunks", "SELECT first, count, data FROM interrupt_chunks"
					  " ORDER BY first"))
		goto out;
	while ((have = next(&c, "interrupt_chunks")) > 0) {
		sqlite3_stmt *st = c.st;
		if (int_in(st, 0, INT64_MIN, INT64_MAX, &first) || first != idx) {
			damaged(&c, "interrupt_chunks", sqlite3_column_int64(st, 0), "interrupt_chunks"
				".first is not the next interrupt, %" PRId64, idx);
			goto out;
		}
		if (int_in(st, 1, 1, 1 << 16, &count) || sqlite3_column_type(st, 2) != SQLITE_BLOB ||
		    sqlite3_column_bytes(st, 2) != count * CHUNK_IRQ_SIZE) {
			damaged(&c, "interrupt_chunks", first, "an interrupt chunk whose data is not"
				" %d bytes per interrupt", CHUNK_IRQ_SIZE);
			goto out;
		}
		db_interrupt *q = grow_n(&g, (size_t)count);
		if (!q) {
			avrr_errf(err, "out of memory");
			goto out;
		}
		const uint8_t *p = sqlite3_column_blob(st, 2);
		for (int64_t i = 0; i < count; i++, idx++) {
			while (at < nev && ev[at].type != TRACE_IRQ)
				at++;
			if (at == nev) {
				damaged(&c, "interrupts", idx, "interrupt %" PRId64 " has no irq event",
					idx);
				goto out;
			}
			const trace_event *e = &ev[at++];
			q[i] = (db_interrupt){ .idx = (uint64_t)idx, .icount = e->icount,
					       .cycle = e->cycle, .vector = e->addr, .ra = e->value };
			chunk_get_irq(p + i * CHUNK_IRQ_SIZE, &q[i].sp, q[i].digest);
		}
	}
	if (have == 0) {
		rc = 0;
		*out = g.items;
		*n = g.n;
		g.items = NULL;
	}
out:
	stmts_finish(stmts, c.st);
	free(g.items);
	return rc;
}

/* Checks one chunk's events (check_events); the first failure stops the
 * walk and is reported, as "out of memory" is not. */
static int check_event_chunk(void *ud, const trace_event *ev, size_t n)
{
	checker *c = ud;
	for (size_t i = 0; i < n; i++, c->nevents++) {
		const trace_event *e = &ev[i];
		int64_t seq = (int64_t)e->seq;
		if (e->icount < c->icount || e->icount > c->instructions)
			return damaged(c, "events", seq, "events.icount is out of range"), 1;
		if (e->cycle < c->cycle || e->cycle > c->cycles)
			return damaged(c, "events", seq, "events.cycle is out of range"), 1;
		if (e->ctx > c->max_vector || e->type < 1 || e->type >= TRACE_COUNT ||
		    e->pc >= PC_LIMIT || e->addr > 0xffff)
			return damaged(c, "events", seq, "events.%s is out of range",
				       e->ctx > c->max_vector ? "ctx" : e->pc >= PC_LIMIT ? "pc"
				       : e->addr > 0xffff ? "addr" : "type"), 1;
		if (c->nevents == 0 && e->type != TRACE_RESET)
			return damaged(c, "events", seq, "the log does not start with a reset"), 1;
		const char *why = trace_check(e, &c->nesting, c->max_vector, c->data_size);
		if (why)
			return damaged(c, "events", seq, "%s", why), 1;
		c->icount = e->icount;
		c->cycle = e->cycle;
		c->nirq += e->type == TRACE_IRQ;
	}
	return 0;
}

static int check_events(checker *c)
{
	avrr_err mine = { "" };
	c->nesting = (trace_nesting){ .depth = 0 };
	/* A failed check has put its message in c->err already; the walk's
	 * own (a damaged chunk) goes to `mine`. */
	int rc = db_each_event_chunk(c->h, c->stmts, c->path, check_event_chunk, c, &mine);
	if (rc && strcmp(mine.msg, "out of memory"))
		*c->err = mine;
	if (rc)
		return -1;
	return c->nevents ? 0 : damaged(c, "events", 0, "the log is empty");
}

/* The ground truth agrees with the log's irq events, one each, and each
 * stored context is one data space.  Its chunks are counted, not held. */
static int check_interrupts(checker *c)
{
	uint64_t n = 0, nirq = c->nirq;
	if (begin(c, "interrupt_chunks", "SELECT first, count, length(data), typeof(data)"
					 " FROM interrupt_chunks ORDER BY first"))
		return -1;
	int have;
	while ((have = next(c, "interrupt_chunks")) > 0) {
		sqlite3_stmt *st = c->st;
		int64_t first, count;
		if (int_in(st, 0, INT64_MIN, INT64_MAX, &first) || first != (int64_t)n + 1)
			return damaged(c, "interrupt_chunks", sqlite3_column_int64(st, 0),
				       "interrupt_chunks.first is not the next interrupt, %" PRId64,
				       (int64_t)n + 1);
		if (int_in(st, 1, 1, 1 << 16, &count) || strcmp(text(st, 3), "blob") ||
		    sqlite3_column_int64(st, 2) != count * CHUNK_IRQ_SIZE)
			return damaged(c, "interrupt_chunks", first, "an interrupt chunk whose data is"
				       " not %d bytes per interrupt", CHUNK_IRQ_SIZE);
		if (n + (uint64_t)count > nirq)
			return damaged(c, "interrupts", (int64_t)nirq + 1, "interrupt %" PRIu64
				       " has no irq event", nirq + 1);
		n += (uint64_t)count;
	}
	if (have < 0)
		return -1;
	if (!c->has_truth && n)
		return damaged(c, "interrupts", 1, "ground truth in a stripped recording");
	if (c->has_truth && n != nirq)
		return damaged(c, "interrupts", 0, "%" PRIu64 " interrupts for %" PRIu64
			       " irq events", n, nirq);
	if (begin(c, "contexts", "SELECT idx, typeof(data), length(data) FROM contexts"
				 " ORDER BY idx"))
		return -1;
	while ((have = next(c, "contexts")) > 0) {
		int64_t idx;
		if (int_in(c->st, 0, 1, (int64_t)n, &idx))
			return damaged(c, "contexts", sqlite3_column_int64(c->st, 0), "a context of no"
				       " interrupt");
		if (strcmp(text(c->st, 1), "blob") || sqlite3_column_int64(c->st, 2) != c->data_size)
			return damaged(c, "contexts", idx, "interrupt %" PRId64 " has a context of"
				       " %lld bytes, not %u", idx, (long long)sqlite3_column_int64(c->st, 2),
				       c->data_size);
	}
	return have < 0 ? -1 : 0;
}

const char *db_decode_fp_chunk(sqlite3_stmt *st, int col, db_fingerprint *out, size_t cap,
			       size_t *count)
{
	int64_t n, ra, hash, key;
	int keys_type = sqlite3_column_type(st, col + 5);
	if (int_in(st, col, 1, 1 << 16, &n) || int_in(st, col + 1, 0, 8, &ra) ||
	    int_in(st, col + 2, 0, 8, &hash) || int_in(st, col + 3, 0, 8, &key) ||
	    sqlite3_column_type(st, col + 4) != SQLITE_BLOB ||
	    (keys_type != SQLITE_NULL && keys_type != SQLITE_BLOB))
		return "a bad count, field size or type";
	const uint8_t *data = sqlite3_column_blob(st, col + 4);
	const uint8_t *keys = sqlite3_column_blob(st, col + 5);
	const char *why = chunk_fp_check(n, ra, hash, key, sqlite3_column_bytes(st, col + 4),
					 keys_type == SQLITE_NULL ? -1
					 : sqlite3_column_bytes(st, col + 5));
	*count = (size_t)n;
	if (why || *count > cap)
		return why;
	/* An empty blob reads as a NULL pointer; keys NULL means none. */
	data = data ? data : (const uint8_t *)"";
	keys = keys_type == SQLITE_NULL ? NULL : keys ? keys : (const uint8_t *)"";
	chunk_get_fps(data, keys, *count,
		      (chunk_fp_sizes){ (unsigned)ra, (unsigned)hash, (unsigned)key }, out);
	return NULL;
}

static int is_config_name(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!(s[n] == '_' || s[n] == '-' || s[n] == '.' || (s[n] >= '0' && s[n] <= '9') ||
		      ((s[n] | 32) >= 'a' && (s[n] | 32) <= 'z')))
			return 0;
	return n > 0 && n < 64;
}

static int check_fp_configs(checker *c)
{
	if (begin(c, "fp_configs", "SELECT id, name, spec FROM fp_configs ORDER BY id"))
		return -1;
	int have;
	while ((have = next(c, "fp_configs")) > 0) {
		sqlite3_stmt *st = c->st;
		int64_t id;
		if (int_in(st, 0, 1, UINT32_MAX, &id))
			return damaged(c, "fp_configs", sqlite3_column_int64(st, 0),
				       "fp_configs.id is out of range");
		if (text_ok(st, 1, 63, TEXT_PLAIN, 0) || !is_config_name(text(st, 1)))
			return damaged(c, "fp_configs", id, "fp_configs.name is not a name of up to 63"
				       " letters, digits, '_', '-' and '.'");
		cfg_seen *g = grow(&c->cfgs);
		if (!g)
			return avrr_errf(c->err, "out of memory");
		avrr_err why = { "" };
		*g = (cfg_seen){ .id = id };
		snprintf(g->name, sizeof g->name, "%s", text(st, 1));
		if (text_ok(st, 2, 511, TEXT_PLAIN, 0))
			return damaged(c, "fp_configs", id, "configuration '%s' has a spec of other"
				       " than up to 511 printable characters", g->name);
		if (fp_spec_bits(text(st, 2), &g->ra_bits, &g->state_bits, &why))
			return damaged(c, "fp_configs", id, "configuration '%s': %s", g->name, why.msg);
	}
	return have < 0 ? -1 : 0;
}

static uint64_t mask_of(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* Every configuration has one fingerprint per interrupt, n = 1, 2, ...,
 * in chunks that decode exactly, each within its configuration's bits.  A
 * fingerprint's vector is its interrupt's by construction (the view and
 * the loader take it from the log), so it cannot disagree.  Rows are
 * numbered as the view `fingerprints` orders them. */
static int check_fingerprints(checker *c)
{
	if (begin(c, "fingerprint_chunks", "SELECT config, first, count, ra_size, hash_size,"
		  " key_size, data, keys FROM fingerprint_chunks ORDER BY config, first"))
		return -1;
	cfg_seen *cfgs = c->cfgs.items;
	size_t k = 0, ncfg = c->cfgs.n;
	uint64_t nirq = c->nirq;
	int64_t row = 0;
	db_fingerprint *f = NULL;
	size_t fcap = 0;
	int have = 0, rc = 0;
	while (!rc && (have = next(c, "fingerprint_chunks")) > 0) {
		sqlite3_stmt *st = c->st;
		int64_t config, first;
		if (int_in(st, 0, INT64_MIN, INT64_MAX, &config)) {
			rc = damaged(c, "fingerprints", row + 1, "fingerprints.config is not an integer");
			break;
		}
		while (k < ncfg && cfgs[k].id < config)
			k++;
		if (k == ncfg || cfgs[k].id != config) {
			rc = damaged(c, "fingerprints", row + 1, "a fingerprint of configuration %"
				     PRId64 ", which fp_configs lacks", config);
			break;
		}
		cfg_seen *g = &cfgs[k];
		if (int_in(st, 1, (int64_t)g->rows + 1, (int64_t)g->rows + 1, &first) ||
		    g->rows + 1 > nirq) {
			rc = damaged(c, "fingerprints", row + 1, "configuration '%s' has no fingerprint"
				     " for interrupt %" PRIu64, g->name, g->rows + 1);
			break;
		}
		size_t count;
		const char *why = db_decode_fp_chunk(st, 2, f, fcap, &count);
		if (!why && count > fcap) {  /* room for it, and again */
			free(f);
			fcap = count;
			if (!(f = malloc(fcap * sizeof *f))) {
				rc = avrr_errf(c->err, "out of memory");
				break;
			}
			why = db_decode_fp_chunk(st, 2, f, fcap, &count);
		}
		if (why) {
			rc = damaged(c, "fingerprint_chunks", first, "a chunk of configuration '%s' with"
				     " %s", g->name, why);
			break;
		}
		for (size_t i = 0; i < count && !rc; i++) {
			uint64_t n = g->rows + 1;
			row++;
			if (n > nirq)
				rc = damaged(c, "fingerprints", row, "configuration '%s' has no fingerprint"
					     " for interrupt %" PRIu64, g->name, n);
			else if (f[i].ra_part > mask_of(g->ra_bits) ||
				 f[i].hash_part > mask_of(g->state_bits))
				rc = damaged(c, "fingerprints", row, "fingerprint %" PRIu64 " of"
					     " configuration '%s' is wider than its ra=%u and %u more"
					     " bits", n, g->name, g->ra_bits, g->state_bits);
			g->rows++;
		}
	}
	free(f);
	if (rc || have < 0)
		return -1;
	for (k = 0; k < ncfg; k++)
		if (cfgs[k].rows != nirq)
			return damaged(c, "fingerprints", 0, "configuration '%s' has %" PRIu64
				       " fingerprints for %" PRIu64 " interrupts", cfgs[k].name, cfgs[k].rows,
				       nirq);
	return 0;
}

int db_validate(sqlite3 *h, db_stmts *stmts, const char *path, const char *schema,
		int rows_known, db_digest_memo *memo, db_counts *out, avrr_err *err)
{
	checker c = { .h = h, .stmts = stmts, .path = path, .err = err,
		      .cfgs = { .size = sizeof(cfg_seen) } };
	int schema_ok = !check_schema(&c, schema, rows_known);
	int rc = !schema_ok || check_run(&c) || check_firmware(&c, memo) ||
		 check_events(&c) || check_interrupts(&c) || check_fp_configs(&c) ||
		 check_fingerprints(&c) ? -1 : 0;
	stmts_finish(stmts, c.st);
	free(c.cfgs.items);
	*out = rc ? (db_counts){ .schema_ok = schema_ok }
		  : (db_counts){ .nevents = c.nevents, .nirq = c.nirq, .schema_ok = 1 };
	return rc;
}
