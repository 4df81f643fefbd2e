/*
 * test_db.c — unit tests for db/db.{h,c}, the recording store:
 *   - a full round trip (every run field, the firmware blob, > BATCH_ROWS
 *     events of a valid log with counters up to the limits a recording
 *     allows, interrupts with and without contexts) read back exactly, with
 *     exact histograms and the schema version, and the log again through
 *     db/cursor.h's cursor: a chunk at a time, each event's prev carried
 *     across chunks, and its irq events alone;
 *   - the temporary-file discipline: nothing at the target path before
 *     db_finish, no hidden ".NAME.tmp-PID" after it, nothing at all after
 *     db_discard, and an existing file at the path untouched until finish;
 *   - write failures, injected (db_fail_after) and real (RLIMIT_FSIZE
 *     standing in for a full disk, at a batch commit and at db_finish),
 *     leave nothing behind;
 *   - db_open_memory reading a recording's bytes as db_open reads its
 *     file (db_open_again too), leaving the bytes as they were, and
 *     refusing empty, foreign and damaged bytes with db_open's messages;
 *   - db_open_memory_cached reading each image as db_open_memory does,
 *     through a kept connection exactly when the header and the rows of
 *     sqlite_schema are the same, whatever else their pages hold
 *     (another row's value read fresh, not from the last image), and
 *     through a new one for another schema or size;
 *   - its memo of the firmware's digest answering only for the same
 *     bytes (a changed byte under the same recorded SHA-256 refused);
 *   - and not when one byte of a row differs on an overflow page
 *     (tests/unit/fixtures/dbstat-short.recording, an input of
 *     fuzz_recording's), the kept connection kept for the next image;
 *   - the statements kept on such a connection (db/stmts.h) handed out
 *     again as new ones: from the first row, with nothing bound, never
 *     twice at once, and the connection idle only when all are done;
 *   - db_open refusing missing paths, directories, text and empty files,
 *     foreign SQLite files, newer, older and unset schema versions, and
 *     recordings missing their run or firmware; db_create refusing a
 *     path in a missing directory and a directory.
 * Each test works in its own temporary directory.
 */
#include "tests/testlib.h"

#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/cursor.h"
#include "db/db.h"
#include "db/stmts.h"
#include "util/digest.h"

#define BATCH 50000 /* db.c's BATCH_ROWS */

/* ------------------------------------------------------------ scaffolding */

typedef struct fixture {
	test_scratch s;
	char path[320]; /* DIR/run.db */
	char tmp[320];  /* DIR/.run.db.tmp-PID */
} fixture;

static int setup(void **state)
{
	fixture *f = test_fixture_new(sizeof *f);
	if (!f)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/run.db", f->s.dir);
	snprintf(f->tmp, sizeof f->tmp, "%s/.run.db.tmp-%ld", f->s.dir, (long)getpid());
	*state = f;
	return 0;
}

static int exists(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0;
}

/* Number of entries in dir other than . and ..; the first one's name goes
 * to `first` (if given). */
static int dir_entries(const char *dir, char *first, size_t n)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int count = 0;
	struct dirent *e;
	if (first && n)
		first[0] = 0;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (count++ == 0 && first)
			snprintf(first, n, "%s", e->d_name);
	}
	closedir(d);
	return count;
}

static void assert_dir_empty(const char *dir)
{
	char name[256];
	int n = dir_entries(dir, name, sizeof name);
	if (n != 0)
		fail_msg("%s: %d entries left, e.g. '%s'", dir, n, name);
}

/* Asserts that dir holds exactly one entry, called `name`. */
static void assert_dir_only(const char *dir, const char *name)
{
	char first[256];
	assert_int_equal(dir_entries(dir, first, sizeof first), 1);
	assert_string_equal(first, name);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* Runs SQL on a file through the sqlite3 API directly (to doctor files). */
static void doctor(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
	assert_int_equal(sqlite3_close(h), SQLITE_OK);
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------ test data */

static const uint8_t FIRMWARE[] = {
	0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* NULs inside */
	0x02, 0x00, 0x53, 0x00, 0xff, 0xfe, 0x00, 0x80, 'x',
};

#define CONTEXT_SIZE 2304   /* the atmega328p's data space */
#define MCU_MAX_VECTOR 25   /* and its last vector */

/* sha256sum of FIRMWARE, as a recording must carry it. */
#define FIRMWARE_SHA256 "171fbb16baf4c95070f582567fafba018a68895e2df8437470d0262f9714648a"

static db_run sample_run(void)
{
	return (db_run){
		.firmware_path = "traces/some firmware 'quoted' \xc3\xa9.elf",
		.firmware_sha256 = FIRMWARE_SHA256,
		.mcu = "atmega328p",
		.frequency = UINT32_C(4294967295),
		.seed = UINT64_C(0xfedcba9876543210), /* >= 2^63 */
		.stimuli_path = "traces/x.stim",
		.stimuli = "# a comment\nseed 7\nadc 0 const 1000\n",
		.tool_version = "0.1.0-test",
		.interrupt_rule = "simavr-1.6: 2 instructions after SEI/RETI/SREG write",
		.data_size = CONTEXT_SIZE,
		.instructions = UINT64_C(5000000000),        /* > 2^32 */
		.cycles = UINT64_C(0x7fffffffffffffff),      /* the largest SQLite holds */
		.stop_reason = "instructions",
		.has_ground_truth = 1,
		.created = "2024-02-29T23:59:58Z",
	};
}

static void assert_str_or_null_equal(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_run_equal(const db_run *a, const db_run *b)
{
	assert_str_or_null_equal(a->firmware_path, b->firmware_path);
	assert_str_or_null_equal(a->firmware_sha256, b->firmware_sha256);
	assert_str_or_null_equal(a->mcu, b->mcu);
	assert_int_equal(a->frequency, b->frequency);
	assert_true(a->seed == b->seed);
	assert_str_or_null_equal(a->stimuli_path, b->stimuli_path);
	assert_str_or_null_equal(a->stimuli, b->stimuli);
	assert_str_or_null_equal(a->tool_version, b->tool_version);
	assert_str_or_null_equal(a->interrupt_rule, b->interrupt_rule);
	assert_int_equal(a->data_size, b->data_size);
	assert_true(a->instructions == b->instructions);
	assert_true(a->cycles == b->cycles);
	assert_str_or_null_equal(a->stop_reason, b->stop_reason);
	assert_int_equal(a->has_ground_truth, b->has_ground_truth);
	assert_str_or_null_equal(a->created, b->created);
}

/* Field by field: the struct has padding. */
static int event_equal(const trace_event *a, const trace_event *b)
{
	return a->seq == b->seq && a->prev == b->prev && a->ctx == b->ctx &&
	       a->type == b->type && a->icount == b->icount && a->cycle == b->cycle &&
	       a->pc == b->pc && a->addr == b->addr && a->value == b->value;
}


/* n events of a valid log, every field varied up to what a recording
 * allows: watchdog resets, interrupts nested and returned from, reads,
 * writes, sleeps.  Fills the expected histograms. */
static trace_event *make_events(size_t n, uint64_t vec[256], uint64_t types[TRACE_COUNT])
{
	trace_event *ev = calloc(n, sizeof *ev);
	assert_non_null(ev);
	memset(vec, 0, 256 * sizeof vec[0]);
	memset(types, 0, TRACE_COUNT * sizeof types[0]);
	uint64_t s = 42, last[256] = { 0 };
	uint64_t icount = UINT64_C(0x7fffff00), cycle = UINT64_C(0xfffffe00); /* near 2^31, 2^32 */
	uint8_t stack[64];
	unsigned depth = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = splitmix64(&s);
		trace_event *e = &ev[i];
		unsigned pick = (unsigned)(r % 64);
		e->type = i == 0 || pick == 0 ? TRACE_RESET
			  : pick < 8 && depth < 64 ? TRACE_IRQ
			  : pick < 15 && depth ? TRACE_RETI
			  : 4 + (uint32_t)(r >> 8) % 4;
		e->seq = i + 1;
		e->pc = (uint32_t)(r >> 32) & 0x7ffffe;  /* instructions are word-aligned */
		uint8_t top = depth ? stack[depth - 1] : 0;
		switch (e->type) {
		case TRACE_RESET:
			depth = 0;
			break;
		case TRACE_IRQ:
			e->ctx = e->addr = 1 + (uint32_t)((r >> 40) % MCU_MAX_VECTOR);
			e->value = e->pc;
			stack[depth++] = (uint8_t)e->addr;
			vec[e->addr]++;
			break;
		case TRACE_RETI:
			e->ctx = e->addr = top;
			depth--;
			break;
		case TRACE_READ:
		case TRACE_WRITE:
			e->ctx = top;
			e->addr = (uint32_t)(r ^ (r >> 17)) % CONTEXT_SIZE;
			e->value = (uint32_t)(r >> 16) & 0xff;
			break;
		default:
			e->ctx = top;
		}
		e->prev = last[e->ctx];
		last[e->ctx] = e->seq;
		icount += (r >> 20) % 7;
		cycle += 1 + (r >> 24) % 13;
		e->icount = icount;
		e->cycle = cycle;
		types[e->type]++;
	}
	/* The run's limits: its length and the largest cycle SQLite holds. */
	ev[n - 1].icount = UINT64_C(5000000000);
	ev[n - 1].cycle = UINT64_C(0x7fffffffffffffff);
	return ev;
}

/* The ground truth of ev's interrupts, *m of them; every seventh has a
 * context. */
static db_interrupt *make_interrupts(const trace_event *ev, size_t n, size_t *m, uint8_t **ctxbuf)
{
	db_interrupt *q = calloc(n, sizeof *q);
	uint8_t *buf = calloc(n / 7 + 1, CONTEXT_SIZE);
	assert_non_null(q);
	assert_non_null(buf);
	uint64_t s = 7;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type != TRACE_IRQ)
			continue;
		uint64_t r = splitmix64(&s);
		int has_context = k % 7 == 0;
		uint8_t *c = buf + k / 7 * CONTEXT_SIZE;
		for (int b = 0; has_context && b < CONTEXT_SIZE; b++)
			c[b] = (uint8_t)(splitmix64(&s) >> 7);
		db_interrupt *x = &q[k++];
		x->idx = k;
		x->icount = ev[i].icount;
		x->cycle = ev[i].cycle;
		x->vector = ev[i].addr;
		x->ra = ev[i].value;
		x->sp = (uint32_t)(r & 0xffff);
		x->context_size = CONTEXT_SIZE;
		x->context = has_context ? c : NULL;
		uint8_t ra_le[4] = { (uint8_t)x->ra, (uint8_t)(x->ra >> 8), (uint8_t)(x->ra >> 16),
				     (uint8_t)(x->ra >> 24) };
		assert_int_equal(digest_context(c, x->context_size, ra_le, 4, x->digest), 0);
	}
	*m = k;
	*ctxbuf = buf;
	return q;
}

/* Checks each interrupt's stored context (db_load_interrupts omits them). */
static void assert_contexts(const char *path, const db_interrupt *q, size_t m)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT idx, context FROM interrupts ORDER BY idx",
					    -1, &st, NULL), SQLITE_OK);
	size_t i = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(i < m);
		assert_int_equal(sqlite3_column_int64(st, 0), (sqlite3_int64)q[i].idx);
		if (!q[i].context) {
			assert_int_equal(sqlite3_column_type(st, 1), SQLITE_NULL);
		} else {
			assert_int_equal(sqlite3_column_type(st, 1), SQLITE_BLOB);
			assert_int_equal(sqlite3_column_bytes(st, 1), q[i].context_size);
			if (q[i].context_size)
				assert_memory_equal(sqlite3_column_blob(st, 1), q[i].context,
						    q[i].context_size);
		}
		i++;
	}
	assert_int_equal(i, m);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/* Creates a small finished recording at f->path. */
static void make_small_recording(const fixture *f)
{
	avrr_err err = { "" };
	db *d = NULL;
	db_run run = sample_run();
	assert_int_equal(db_create(f->path, &d, &err), 0);
	assert_int_equal(db_put_run(d, &run, &err), 0);
	assert_int_equal(db_put_firmware(d, run.firmware_sha256, FIRMWARE, sizeof FIRMWARE, &err), 0);
	trace_event e = { .seq = 1, .type = TRACE_RESET };
	assert_int_equal(db_add_event(d, &e, &err), 0);
	assert_int_equal(db_finish(d, &err), 0);
	assert_dir_only(f->s.dir, "run.db");
}

/* ------------------------------------------------------------ round trips */

static void round_trip(fixture *f, size_t n)
{
	avrr_err err = { "" };
	db *d = NULL;
	uint64_t vec[256], types[TRACE_COUNT];
	trace_event *ev = make_events(n, vec, types);
	uint8_t *ctxbuf = NULL;
	size_t m;
	db_interrupt *q = make_interrupts(ev, n, &m, &ctxbuf);
	assert_true(m > 0);
	db_run run = sample_run();

	assert_int_equal(db_create(f->path, &d, &err), 0);
	assert_non_null(d);
	assert_int_equal(db_put_run(d, &run, &err), 0);
	assert_int_equal(db_put_firmware(d, run.firmware_sha256, FIRMWARE, sizeof FIRMWARE, &err), 0);
	/* Interleaved, as the recorder writes them. */
	size_t qi = 0;
	for (size_t i = 0; i < n; i++) {
		if (db_add_event(d, &ev[i], &err))
			fail_msg("event %zu: %s", i, err.msg);
		if (qi < m && i % (n / m + 1) == 0)
			assert_int_equal(db_add_interrupt(d, &q[qi++], &err), 0);
		if (i == n / 2)
			assert_false(exists(f->path)); /* not even after a batch commit */
	}
	while (qi < m)
		assert_int_equal(db_add_interrupt(d, &q[qi++], &err), 0);
	assert_true(exists(f->tmp));
	assert_false(exists(f->path));
	if (db_finish(d, &err))
		fail_msg("db_finish: %s", err.msg);
	assert_dir_only(f->s.dir, "run.db");

	assert_int_equal(db_open(f->path, 0, &d, &err), 0);
	assert_non_null(d);
	assert_int_equal(db_schema_version(d), DB_SCHEMA_VERSION);

	db_run got;
	assert_int_equal(db_get_run(d, &got, &err), 0);
	assert_run_equal(&got, &run);
	db_run_free(&got);
	assert_null(got.mcu); /* db_run_free clears */

	uint8_t *elf = NULL;
	size_t elf_n = 0;
	assert_int_equal(db_get_firmware(d, &elf, &elf_n, &err), 0);
	assert_int_equal(elf_n, sizeof FIRMWARE);
	assert_memory_equal(elf, FIRMWARE, sizeof FIRMWARE);
	free(elf);

	trace_event *lev = NULL;
	size_t ln = 0;
	assert_int_equal(db_load_events(d, &lev, &ln, &err), 0);
	assert_int_equal(ln, n);
	for (size_t i = 0; i < n; i++)
		if (!event_equal(&lev[i], &ev[i]))
			fail_msg("event %zu differs: seq %llu icount %llu cycle %llu vs %llu %llu %llu",
				 i, (unsigned long long)lev[i].seq, (unsigned long long)lev[i].icount,
				 (unsigned long long)lev[i].cycle, (unsigned long long)ev[i].seq,
				 (unsigned long long)ev[i].icount, (unsigned long long)ev[i].cycle);
	/* The same a chunk at a time through a cursor, each event with its
	 * prev carried across chunks, and its irq events alone. */
	db_events it;
	const trace_event *chunk;
	size_t cn = 0, got_n = 0, nirq = 0;
	db_events_open(&it, d, 1);
	while (db_events_chunk(&it, &chunk, &cn, &err) == 0)
		for (size_t k = 0; k < cn; k++, got_n++)
			if (got_n >= n || !event_equal(&chunk[k], &lev[got_n]))
				fail_msg("cursor event %zu differs", got_n);
	assert_int_equal(got_n, n);
	db_events_close(&it);
	db_events_open(&it, d, 1);
	const trace_event *irq;
	while (db_events_next_irq(&it, &irq, &err) == 0) {
		while (nirq < n && lev[nirq].type != TRACE_IRQ)
			nirq++;
		assert_true(nirq < n);
		assert_true(event_equal(irq, &lev[nirq++]));
	}
	while (nirq < n)
		assert_int_not_equal(lev[nirq++].type, TRACE_IRQ);
	db_events_close(&it);
	free(lev);

	db_interrupt *lq = NULL;
	size_t lm = 0;
	assert_int_equal(db_load_interrupts(d, &lq, &lm, &err), 0);
	assert_int_equal(lm, m);
	for (size_t i = 0; i < m; i++) {
		assert_true(lq[i].idx == q[i].idx);
		assert_true(lq[i].icount == q[i].icount);
		assert_true(lq[i].cycle == q[i].cycle);
		assert_int_equal(lq[i].vector, q[i].vector);
		assert_int_equal(lq[i].ra, q[i].ra);
		assert_int_equal(lq[i].sp, q[i].sp);
		assert_memory_equal(lq[i].digest, q[i].digest, DB_DIGEST_SIZE);
		assert_null(lq[i].context);
	}
	free(lq);

	uint64_t gvec[256], gtypes[TRACE_COUNT];
	memset(gvec, 0xee, sizeof gvec);
	memset(gtypes, 0xee, sizeof gtypes);
	assert_int_equal(db_count_vectors(d, gvec, &err), 0);
	assert_int_equal(db_count_event_types(d, gtypes, &err), 0);
	assert_memory_equal(gvec, vec, sizeof vec);
	assert_memory_equal(gtypes, types, sizeof types);

	/* Read-only really is read-only. */
	trace_event extra = { .seq = n + 1, .type = TRACE_WAKE };
	assert_int_not_equal(db_add_event(d, &extra, &err), 0);
	db_close(d);

	assert_contexts(f->path, q, m);
	assert_dir_only(f->s.dir, "run.db");
	free(ev);
	free(q);
	free(ctxbuf);
}

/* More than two batches of events, and interrupts across them. */
static void test_round_trip_large(void **state)
{
	round_trip(*state, 2 * BATCH + 7);
}

/* Fewer rows than a batch: everything rides on db_finish's commit. */
static void test_round_trip_small(void **state)
{
	round_trip(*state, 40);
}

/* Exactly one batch: the last add commits, db_finish commits nothing new. */
static void test_round_trip_exact_batch(void **state)
{
	round_trip(*state, BATCH);
}

/* Optional fields come back NULL/zero, not as empty strings. */
static void test_run_optional_fields(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	db_run run = sample_run();
	run.stimuli_path = NULL;
	run.stimuli = NULL;
	run.seed = 0;
	run.has_ground_truth = 0;
	run.instructions = 0;
	run.cycles = 0;
	run.stop_reason = "cpu-done";
	assert_int_equal(db_create(f->path, &d, &err), 0);
	assert_int_equal(db_put_run(d, &run, &err), 0);
	/* A second put replaces the first. */
	run.mcu = "atmega16";
	run.frequency = 8000000;
	assert_int_equal(db_put_run(d, &run, &err), 0);
	assert_int_equal(db_put_firmware(d, run.firmware_sha256, FIRMWARE, sizeof FIRMWARE, &err), 0);
	trace_event reset = { .seq = 1, .type = TRACE_RESET };
	assert_int_equal(db_add_event(d, &reset, &err), 0);
	assert_int_equal(db_finish(d, &err), 0);
	assert_int_equal(db_open(f->path, 0, &d, &err), 0);
	db_run got;
	assert_int_equal(db_get_run(d, &got, &err), 0);
	assert_run_equal(&got, &run);
	assert_null(got.stimuli_path);
	assert_null(got.stimuli);
	db_run_free(&got);
	db_interrupt *q = (db_interrupt *)&err;
	size_t n = 99;
	assert_int_equal(db_load_interrupts(d, &q, &n, &err), 0);
	assert_null(q);
	assert_int_equal(n, 0);
	uint64_t types[TRACE_COUNT];
	memset(types, 0xee, sizeof types);
	assert_int_equal(db_count_event_types(d, types, &err), 0);
	for (int t = 0; t < TRACE_COUNT; t++)
		assert_int_equal(types[t], t == TRACE_RESET);
	db_close(d);
}

/* ------------------------------------------------------------ temporaries */

static void test_nothing_at_path_before_finish(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	assert_int_equal(db_create(f->path, &d, &err), 0);
	assert_false(exists(f->path));
	char name[64];
	snprintf(name, sizeof name, ".run.db.tmp-%ld", (long)getpid());
	assert_dir_only(f->s.dir, name);
	for (uint64_t i = 1; i <= BATCH + 10; i++) {
		trace_event e = { .seq = i, .type = TRACE_READ, .icount = i, .cycle = i };
		assert_int_equal(db_add_event(d, &e, &err), 0);
	}
	/* A batch was committed to the temporary; the path is still free. */
	assert_false(exists(f->path));
	assert_dir_only(f->s.dir, name);
	db_discard(d);
	assert_dir_empty(f->s.dir);
	db_discard(NULL); /* harmless */
}

/* A recording being replaced stays intact until the new one is finished. */
static void test_existing_file_kept_until_finish(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	write_file(f->path, "old recording", 13);
	assert_int_equal(db_create(f->path, &d, &err), 0);
	trace_event e = { .seq = 1, .type = TRACE_RESET };
	assert_int_equal(db_add_event(d, &e, &err), 0);
	db_discard(d);
	assert_dir_only(f->s.dir, "run.db");
	char buf[32] = "";
	FILE *fp = fopen(f->path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(buf, 1, sizeof buf - 1, fp), 13);
	fclose(fp);
	assert_string_equal(buf, "old recording");
	/* Finishing replaces it. */
	make_small_recording(f);
	assert_int_equal(db_open(f->path, 0, &d, &err), 0);
	db_close(d);
}

/* db_read_begin holds the file's shared lock across reads (a writer
 * cannot take it exclusively) until db_read_end; a chunk read alone
 * leaves none. */
static void test_read_transaction_held(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	make_small_recording(f);
	assert_int_equal(db_open(f->path, 0, &d, &err), 0);
	sqlite3 *other;
	assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
	trace_event *buf = NULL;
	size_t cap = 0, n = 0;
	uint64_t of_ctx[256] = { 0 };
	assert_int_equal(db_event_chunk(d, 1, of_ctx, &buf, &cap, &n, &err), 0);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE; ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_read_begin(d, &err), 0);
	memset(of_ctx, 0, sizeof of_ctx);
	assert_int_equal(db_event_chunk(d, 1, of_ctx, &buf, &cap, &n, &err), 0);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_BUSY);
	db_read_end(d);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE; ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	free(buf);
	sqlite3_close(other);
	db_close(d);
}

/* A relative path without a directory puts the temporary in the cwd. */
static void test_relative_path(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(f->s.dir), 0);
	int rc = db_create("rel.db", &d, &err);
	char name[64];
	snprintf(name, sizeof name, ".rel.db.tmp-%ld", (long)getpid());
	int tmp_there = exists(name);
	int fin = rc ? -1 : db_finish(d, &err);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rc, 0);
	assert_true(tmp_there);
	assert_int_equal(fin, 0);
	assert_dir_only(f->s.dir, "rel.db");
}

/* ------------------------------------------------------------ write failures */

static void test_fail_after_injected(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	db_run run = sample_run();
	assert_int_equal(db_create(f->path, &d, &err), 0);
	assert_int_equal(db_put_run(d, &run, &err), 0);
	db_fail_after(d, 2);
	trace_event e1 = { .seq = 1, .type = TRACE_RESET };
	trace_event e2 = { .seq = 2, .type = TRACE_WRITE, .addr = 0x38, .value = 1 };
	db_interrupt q = { .idx = 1, .vector = 1, .ra = 0x100 };
	/* Rows are written in batches, as chunks: the failure of the second
	 * write (the interrupts' chunk, after the events') surfaces no later
	 * than db_finish, which then leaves nothing behind. */
	assert_int_equal(db_add_event(d, &e1, &err), 0);
	assert_int_equal(db_add_interrupt(d, &q, &err), 0);
	assert_int_equal(db_add_event(d, &e2, &err), 0);
	assert_int_not_equal(db_finish(d, &err), 0);
	test_assert_contains(err.msg, "disk I/O error");
	test_assert_contains(err.msg, f->path);
	assert_dir_empty(f->s.dir);
}

/* A failure in a batch handed to the writer thread is reported by a later
 * add, and nothing more is written. */
static void test_fail_reported_by_later_add(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	assert_int_equal(db_create(f->path, &d, &err), 0);
	db_fail_after(d, 10);
	int rc = 0;
	uint64_t i;
	for (i = 1; i <= 10 * BATCH && !rc; i++) {
		trace_event e = { .seq = i, .type = TRACE_READ, .icount = i, .cycle = i };
		rc = db_add_event(d, &e, &err);
	}
	assert_int_not_equal(rc, 0);
	test_assert_contains(err.msg, "disk I/O error");
	assert_false(exists(f->path));
	db_discard(d);
	assert_dir_empty(f->s.dir);
}

/* Fault injection with 1 fails the very next row, an interrupt too. */
static void test_fail_after_one(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = NULL;
	assert_int_equal(db_create(f->path, &d, &err), 0);
	db_fail_after(d, 1);
	db_interrupt q = { .idx = 1, .vector = 1, .ra = 0x100 };
	assert_int_equal(db_add_interrupt(d, &q, &err), 0);
	assert_int_not_equal(db_finish(d, &err), 0);
	test_assert_contains(err.msg, "disk I/O error");
	assert_dir_empty(f->s.dir);
}

/* Runs fn with the process's file-size limit at `limit` bytes (SIGXFSZ
 * ignored, so writes fail with EFBIG as on a full disk). */
typedef struct limited_call {
	fixture *f;
	db *d;
	avrr_err err;
	int rc;
	uint64_t rows_ok;
} limited_call;

static void with_fsize_limit(rlim_t limit, void (*fn)(limited_call *), limited_call *c)
{
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
	fflush(NULL); /* nothing buffered may hit the limit */
	lim = old;
	lim.rlim_cur = limit;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	fn(c); /* no cmocka calls in there: its output may go to a file */
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, oldsig);
}

static void add_until_failure(limited_call *c)
{
	c->rc = 0;
	for (uint64_t i = 1; i <= 3 * BATCH && !c->rc; i++) {
		trace_event e = { .seq = i, .type = TRACE_READ, .icount = i, .cycle = i,
				  .value = (uint32_t)i & 0xff };
		c->rc = db_add_event(c->d, &e, &c->err);
		if (!c->rc)
			c->rows_ok++;
	}
}

/* A real write failure when a batch is committed: the add fails, and the
 * discarded recording leaves nothing. */
static void test_full_disk_at_batch_commit(void **state)
{
	fixture *f = *state;
	limited_call c = { .f = f };
	assert_int_equal(db_create(f->path, &c.d, &c.err), 0);
	with_fsize_limit(4096, add_until_failure, &c);
	assert_int_not_equal(c.rc, 0);
	/* At the latest, the BATCH-th row's commit fails (earlier if SQLite's
	 * cache spills to the file first). */
	assert_in_range(c.rows_ok, 0, BATCH - 1);
	test_assert_contains(c.err.msg, f->path);
	db_discard(c.d);
	assert_dir_empty(f->s.dir);
}

static void finish(limited_call *c)
{
	c->rc = db_finish(c->d, &c->err);
	c->d = NULL;
}

/* A real write failure in db_finish's commit: it fails, frees everything
 * and leaves nothing (the sanitizer run catches a leaked connection). */
static void test_full_disk_at_finish(void **state)
{
	fixture *f = *state;
	limited_call c = { .f = f };
	db_run run = sample_run();
	assert_int_equal(db_create(f->path, &c.d, &c.err), 0);
	assert_int_equal(db_put_run(c.d, &run, &c.err), 0);
	assert_int_equal(db_put_firmware(c.d, run.firmware_sha256, FIRMWARE, sizeof FIRMWARE, &c.err), 0);
	for (uint64_t i = 1; i <= 1000; i++) {
		trace_event e = { .seq = i, .type = TRACE_WRITE, .icount = i };
		assert_int_equal(db_add_event(c.d, &e, &c.err), 0);
	}
	with_fsize_limit(0, finish, &c);
	assert_int_not_equal(c.rc, 0);
	test_assert_contains(c.err.msg, f->path);
	assert_dir_empty(f->s.dir);
}

/* ------------------------------------------------------------ db_open refusals */

static void expect_open_fails(const char *path, int writable, const char *needle)
{
	avrr_err err = { "" };
	db *d = (db *)&err;
	assert_int_not_equal(db_open(path, writable, &d, &err), 0);
	assert_null(d);
	test_assert_contains(err.msg, path);
	test_assert_contains(err.msg, needle);
}

static void test_open_missing(void **state)
{
	fixture *f = *state;
	expect_open_fails(f->path, 0, "No such file or directory");
	expect_open_fails(f->path, 1, "No such file or directory");
	assert_dir_empty(f->s.dir); /* not created by the attempt */
}

static void test_open_directory(void **state)
{
	fixture *f = *state;
	expect_open_fails(f->s.dir, 0, "is a directory");
}

static void test_open_text_file(void **state)
{
	fixture *f = *state;
	const char *text = "this is not a database, just some text\nline two\n";
	write_file(f->path, text, strlen(text));
	expect_open_fails(f->path, 0, "not an avrr recording");
	expect_open_fails(f->path, 1, "not an avrr recording");
	/* A long text file (more than a page) too. */
	char big[8192];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + i % 26);
	write_file(f->path, big, sizeof big);
	expect_open_fails(f->path, 0, "not an avrr recording");
}

static void test_open_empty_file(void **state)
{
	fixture *f = *state;
	write_file(f->path, "", 0);
	expect_open_fails(f->path, 0, "not an avrr recording");
	struct stat sb;
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_size, 0);
}

static void test_open_foreign_sqlite(void **state)
{
	fixture *f = *state;
	doctor(f->path, "CREATE TABLE x(y); INSERT INTO x VALUES (1);");
	expect_open_fails(f->path, 0, "not an avrr recording");
	expect_open_fails(f->path, 1, "not an avrr recording");
	/* Another program's application_id, even with our version number. */
	doctor(f->path, "PRAGMA application_id = 1234; PRAGMA user_version = 1;");
	expect_open_fails(f->path, 0, "not an avrr recording");
}

static void test_open_newer_schema(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
	doctor(f->path, sql);
	expect_open_fails(f->path, 0, "newer");
	expect_open_fails(f->path, 1, "newer");
}

/* Schema 1 keyed small selectors by SipHash, not by their bytes. */
static void test_open_older_schema(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	doctor(f->path, "PRAGMA user_version = 1");
	expect_open_fails(f->path, 0, "schema version 1 is older than this avrr reads (6); "
			  "record it again");
}

static void test_open_unset_version(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	doctor(f->path, "PRAGMA user_version = 0");
	expect_open_fails(f->path, 0, "not an avrr recording");
}

/* db_open validates: a recording missing its firmware or its metadata is
 * refused before anything reads it (tests/integration/test_damaged.c
 * covers every rule on a real recording). */
static void test_damaged_recording(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	doctor(f->path, "DELETE FROM firmware");
	expect_open_fails(f->path, 0, "damaged recording: the firmware copy is missing (firmware)");
	expect_open_fails(f->path, 1, "damaged recording: the firmware copy is missing (firmware)");
	doctor(f->path, "DELETE FROM run");
	expect_open_fails(f->path, 0, "damaged recording: no run metadata (run)");
}

/* ------------------------------------------------------------ from memory */

/* The whole file at path, malloc'ed; its size in *n. */
static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long size = ftell(fp);
	assert_true(size > 0);
	rewind(fp);
	uint8_t *b = malloc((size_t)size);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	*n = (size_t)size;
	return b;
}

static void test_open_memory(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	size_t n;
	uint8_t *bytes = slurp(f->path, &n), *before = malloc(n);
	assert_non_null(before);
	memcpy(before, bytes, n);
	avrr_err err = { "" };
	db *d = NULL, *again = NULL;
	assert_int_equal(db_open_memory("mem.db", bytes, n, &d, &err), 0);
	assert_int_equal(db_schema_version(d), DB_SCHEMA_VERSION);
	db_run want = sample_run(), got;
	assert_int_equal(db_get_run(d, &got, &err), 0);
	assert_run_equal(&got, &want);
	db_run_free(&got);
	uint8_t *elf;
	size_t elf_size;
	assert_int_equal(db_get_firmware(d, &elf, &elf_size, &err), 0);
	assert_int_equal(elf_size, sizeof FIRMWARE);
	assert_memory_equal(elf, FIRMWARE, sizeof FIRMWARE);
	free(elf);
	trace_event *ev;
	size_t nev;
	assert_int_equal(db_load_events(d, &ev, &nev, &err), 0);
	assert_int_equal(nev, 1);
	assert_int_equal(ev[0].type, TRACE_RESET);
	free(ev);
	/* A second connection reads the same bytes. */
	assert_int_equal(db_open_again(d, &again, &err), 0);
	assert_int_equal(db_get_run(again, &got, &err), 0);
	assert_run_equal(&got, &want);
	db_run_free(&got);
	db_close(again);
	db_close(d);
	assert_memory_equal(bytes, before, n);  /* read only */
	free(bytes);
	free(before);
	assert_dir_only(f->s.dir, "run.db");  /* no file made beside it */
}

static void expect_memory_fails(const void *bytes, size_t n, const char *msg)
{
	avrr_err err = { "" };
	db *d = (db *)&err;
	assert_int_equal(db_open_memory("mem.db", bytes, n, &d, &err), -1);
	assert_null(d);
	assert_string_equal(err.msg, msg);
}

static void test_open_memory_refusals(void **state)
{
	fixture *f = *state;
	expect_memory_fails(NULL, 0, "mem.db: not an avrr recording (an SQLite file of another kind)");
	const char *text = "this is not a database, just some text\n";
	expect_memory_fails(text, strlen(text), "mem.db: not an avrr recording (file is not a database)");
	make_small_recording(f);
	doctor(f->path, "DELETE FROM firmware");
	size_t n;
	uint8_t *bytes = slurp(f->path, &n);
	expect_memory_fails(bytes, n, "mem.db: damaged recording: the firmware copy is missing (firmware)");
	free(bytes);
}

/* Opens bytes through cache c and, as a reference, with db_open_memory:
 * the same outcome and message; returns the seed read (0 on refusal). */
static uint64_t open_both(db_image_cache *c, const uint8_t *bytes, size_t n, char *msg,
			  size_t msg_size)
{
	avrr_err err = { "" }, want_err = { "" };
	db *d = NULL, *ref = NULL;
	int rc = db_open_memory_cached(c, "mem.db", bytes, n, &d, &err);
	assert_int_equal(db_open_memory("mem.db", bytes, n, &ref, &want_err), rc);
	assert_string_equal(err.msg, want_err.msg);
	snprintf(msg, msg_size, "%s", err.msg);
	if (rc)
		return 0;
	db_run got;
	assert_int_equal(db_get_run(d, &got, &err), 0);
	uint64_t seed = got.seed;
	db_run_free(&got);
	assert_int_equal(db_get_run(ref, &got, &err), 0);
	assert_int_equal(got.seed, seed);
	db_run_free(&got);
	db_close(ref);
	db_close(d);
	return seed;
}

static void test_open_memory_cached(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	size_t n, nb, nx;
	uint8_t *a = slurp(f->path, &n);
	doctor(f->path, "UPDATE run SET seed = seed + 1");
	uint8_t *b = slurp(f->path, &nb);
	assert_int_equal(nb, n);
	/* The UPDATE changed page 1 only where its header counts changes
	 * (offsets 24 and 92): with a's counts there, b has a's schema pages
	 * and another seed in the run table's page. */
	memcpy(b + 24, a + 24, 4);
	memcpy(b + 92, a + 92, 4);
	assert_memory_not_equal(a, b, n);
	doctor(f->path, "CREATE TABLE extra (x)");
	uint8_t *x = slurp(f->path, &nx);
	db_image_cache *c = db_image_cache_new();
	assert_non_null(c);
	char msg[512];
	const uint64_t seed = sample_run().seed;
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), seed);
	assert_int_equal(db_image_cache_reused(c), 0);
	/* b through a's connection: b's seed, none of a's pages left. */
	assert_int_equal(open_both(c, b, n, msg, sizeof msg), seed + 1);
	assert_int_equal(db_image_cache_reused(c), 1);
	/* b with a byte of page 1's unallocated space changed, between its
	 * cell pointers and its cells: other schema pages, the same rows,
	 * which are what SQLite parses: read through the same connection. */
	uint8_t *u = malloc(n);
	assert_non_null(u);
	memcpy(u, b, n);
	size_t cells = (size_t)u[103] << 8 | u[104], content = (size_t)u[105] << 8 | u[106];
	size_t gap = 100 + (u[100] == 0x0d ? 8 : 12) + 2 * cells;
	assert_true(gap < content);
	u[gap] ^= 0xff;
	assert_int_equal(open_both(c, u, n, msg, sizeof msg), seed + 1);
	assert_int_equal(db_image_cache_reused(c), 2);
	free(u);
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), seed);
	assert_int_equal(db_image_cache_reused(c), 3);
	/* Another schema: a new connection, refused as db_open_memory refuses
	 * it, and not kept. */
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "mem.db: damaged recording: an extra table 'extra'"));
	assert_int_equal(db_image_cache_reused(c), 3);
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_int_equal(db_image_cache_reused(c), 3);
	/* avrr's schema but damaged rows: refused, yet its connection is kept
	 * for the next image with those schema pages. */
	free(x);
	doctor(f->path, "DROP TABLE extra; DELETE FROM firmware");
	x = slurp(f->path, &nx);
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_string_equal(msg, "mem.db: damaged recording: the firmware copy is missing (firmware)");
	assert_int_equal(db_image_cache_reused(c), 3);
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_int_equal(db_image_cache_reused(c), 4);
	/* Another size (a's one byte short): a new connection. */
	open_both(c, a, n - 1, msg, sizeof msg);
	assert_int_equal(db_image_cache_reused(c), 4);
	/* Two at once: the second cannot have the connection the first holds. */
	avrr_err err = { "" };
	db *d1 = NULL, *d2 = NULL;
	assert_int_equal(db_open_memory_cached(c, "mem.db", a, n, &d1, &err), 0);
	assert_int_equal(db_open_memory_cached(c, "mem.db", b, n, &d2, &err), 0);
	assert_int_equal(db_image_cache_reused(c), 5);
	db_run got;
	assert_int_equal(db_get_run(d2, &got, &err), 0);
	assert_int_equal(got.seed, seed + 1);
	db_run_free(&got);
	assert_int_equal(db_get_run(d1, &got, &err), 0);
	assert_int_equal(got.seed, seed);
	db_run_free(&got);
	db_close(d1);
	db_close(d2);
	assert_int_equal(open_both(c, b, n, msg, sizeof msg), seed + 1);
	assert_int_equal(db_image_cache_reused(c), 6);
	/* Nor one with a virtual table (whose module keeps state for its
	 * connection), nor one SQLite cannot parse. */
	free(x);
	doctor(f->path, "CREATE VIRTUAL TABLE v USING fts5(a)");
	x = slurp(f->path, &nx);
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_int_equal(db_image_cache_reused(c), 6);
	free(x);
	doctor(f->path, "DROP TABLE v; PRAGMA writable_schema = ON;"
			" UPDATE sqlite_schema SET sql = 'CREATE VIEW oops AS SELEC 1'"
			" WHERE name = 'events'");
	x = slurp(f->path, &nx);
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "mem.db: damaged recording: malformed database schema"));
	assert_int_equal(open_both(c, x, nx, msg, sizeof msg), 0);
	assert_int_equal(db_image_cache_reused(c), 6);
	db_image_cache_free(c);
	free(a);
	free(b);
	free(x);
}

/* The cache's memo of the firmware's digest (db_validate's) answers only
 * for the very bytes it was worked out from: a copy of the same length
 * and another byte, under the same recorded SHA-256, is refused as
 * db_open_memory refuses it, and the first image passes again after. */
static void test_open_memory_cached_digest(void **state)
{
	fixture *f = *state;
	make_small_recording(f);
	size_t n, ny;
	uint8_t *a = slurp(f->path, &n);
	doctor(f->path, "UPDATE firmware SET elf = CAST(substr(elf, 1, 10) || X'A5' ||"
			" substr(elf, 12) AS BLOB)");
	uint8_t *y = slurp(f->path, &ny);
	db_image_cache *c = db_image_cache_new();
	assert_non_null(c);
	char msg[512];
	const uint64_t seed = sample_run().seed;
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), seed);
	assert_int_equal(open_both(c, y, ny, msg, sizeof msg), 0);
	assert_string_equal(msg, "mem.db: damaged recording: the firmware copy does not match its"
			    " SHA-256 (firmware, row 1)");
	assert_int_equal(open_both(c, y, ny, msg, sizeof msg), 0);
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), seed);
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), seed);
	/* Each first open a new connection (page 1's change counters
	 * differ), each later one a kept one: the memo answered for both. */
	assert_int_equal(db_image_cache_reused(c), 3);
	db_image_cache_free(c);
	free(a);
	free(y);
}

/* ------------------------------------------------------------ db_create refusals */

static void test_open_memory_cached_rows(void **state)
{
	(void)state;
	size_t n;
	uint8_t *a = (uint8_t *)test_slurp("tests/unit/fixtures/dbstat-short.recording", &n);
	assert_non_null(a);
	assert_int_equal(n, 45056);
	uint8_t *b = malloc(n);
	assert_non_null(b);
	memcpy(b, a, n);
	/* In the text of view fingerprints, on an overflow page dbstat does
	 * not list: a space made a backquote. */
	assert_int_equal(b[41379], ' ');
	b[41379] = '`';
	db_image_cache *c = db_image_cache_new();
	assert_non_null(c);
	char msg[4096];
	/* a passes the schema check (then fails later): its connection kept. */
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), 0);
	assert_null(strstr(msg, "(sqlite_schema"));
	/* b, its header a's, its rows not: parsed anew, and SQLite refuses
	 * it. */
	assert_int_equal(open_both(c, b, n, msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "mem.db: damaged recording: malformed database schema"
			       " (fingerprints) - unrecognized token: \"`+ 3, 1)"));
	assert_int_equal(db_image_cache_reused(c), 0);
	/* a's connection stayed kept, b's bytes read under it and dropped:
	 * a again reads a. */
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), 0);
	assert_int_equal(open_both(c, a, n, msg, sizeof msg), 0);
	assert_int_equal(db_image_cache_reused(c), 2);
	db_image_cache_free(c);
	free(b);
	free(a);
}

/* The first column of st's next row, or -1 for none and -2 for NULL. */
static int64_t step_int(sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_ROW)
		return -1;
	return sqlite3_column_type(st, 0) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 0);
}

static void test_kept_statements(void **state)
{
	(void)state;
	sqlite3 *h;
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)", NULL,
				      NULL, NULL), SQLITE_OK);
	db_stmts *s = stmts_new();
	assert_non_null(s);
	const char *rows = "SELECT x FROM t ORDER BY x";
	sqlite3_stmt *a, *b, *c;
	assert_int_equal(stmts_prepare(s, h, rows, &a), SQLITE_OK);
	assert_int_equal(step_int(a), 1);
	assert_false(stmts_idle(s, h));  /* a is in use */
	stmts_finish(s, a);               /* left after its first row */
	assert_true(stmts_idle(s, h));
	/* The same statement again, from its first row. */
	assert_int_equal(stmts_prepare(s, h, rows, &b), SQLITE_OK);
	assert_ptr_equal(b, a);
	assert_int_equal(step_int(b), 1);
	/* While b is in use, another. */
	assert_int_equal(stmts_prepare(s, h, rows, &c), SQLITE_OK);
	assert_ptr_not_equal(c, b);
	assert_int_equal(step_int(c), 1);
	assert_int_equal(step_int(c), 2);
	assert_int_equal(step_int(b), 2);
	assert_int_equal(step_int(b), -1);
	stmts_finish(s, b);
	stmts_finish(s, c);
	/* Nothing bound at the next use. */
	assert_int_equal(stmts_prepare(s, h, "SELECT ?1", &a), SQLITE_OK);
	sqlite3_bind_int(a, 1, 5);
	assert_int_equal(step_int(a), 5);
	stmts_finish(s, a);
	assert_int_equal(stmts_prepare(s, h, "SELECT ?1", &b), SQLITE_OK);
	assert_ptr_equal(b, a);
	assert_int_equal(step_int(b), -2);
	stmts_finish(s, b);
	/* A statement not kept leaves the connection busy until finalized. */
	assert_int_equal(sqlite3_prepare_v2(h, rows, -1, &c, NULL), SQLITE_OK);
	assert_false(stmts_idle(s, h));
	stmts_finish(s, c);
	assert_true(stmts_idle(s, h));
	/* A failed prepare hands out nothing and keeps nothing. */
	assert_int_not_equal(stmts_prepare(s, h, "SELEC 1", &a), SQLITE_OK);
	assert_null(a);
	assert_true(stmts_idle(s, h));
	/* Without a set: prepared and finalized. */
	assert_int_equal(stmts_prepare(NULL, h, rows, &a), SQLITE_OK);
	assert_false(stmts_idle(NULL, h));
	stmts_finish(NULL, a);
	stmts_free(s);
	assert_true(stmts_idle(NULL, h));
	assert_int_equal(sqlite3_close(h), SQLITE_OK);  /* every kept one finalized */
}

static void test_create_in_missing_directory(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = (db *)&err;
	char path[400], sub[360];
	snprintf(sub, sizeof sub, "%s/no-such-dir", f->s.dir);
	snprintf(path, sizeof path, "%s/x.db", sub);
	assert_int_not_equal(db_create(path, &d, &err), 0);
	assert_null(d);
	test_assert_contains(err.msg, path);
	assert_dir_empty(f->s.dir);
}

static void test_create_on_directory(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	db *d = (db *)&err;
	char sub[360];
	snprintf(sub, sizeof sub, "%s/adir", f->s.dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_not_equal(db_create(sub, &d, &err), 0);
	assert_null(d);
	test_assert_contains(err.msg, sub);
	test_assert_contains(err.msg, "is a directory");
	assert_dir_only(f->s.dir, "adir");
	assert_dir_empty(sub);
}

static void test_event_type_names(void **state)
{
	(void)state;
	assert_string_equal(trace_kind_name(TRACE_RESET), "reset");
	assert_string_equal(trace_kind_name(TRACE_IRQ), "irq");
	assert_string_equal(trace_kind_name(TRACE_RETI), "reti");
	assert_string_equal(trace_kind_name(TRACE_READ), "read");
	assert_string_equal(trace_kind_name(TRACE_WRITE), "write");
	assert_string_equal(trace_kind_name(TRACE_SLEEP), "sleep");
	assert_string_equal(trace_kind_name(TRACE_WAKE), "wake");
	assert_string_equal(trace_kind_name(0), "?");
	assert_string_equal(trace_kind_name(TRACE_COUNT), "?");
	assert_string_equal(trace_kind_name(-1), "?");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, test_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_round_trip_large),
		T(test_round_trip_small),
		T(test_round_trip_exact_batch),
		T(test_run_optional_fields),
		T(test_nothing_at_path_before_finish),
		T(test_existing_file_kept_until_finish),
		T(test_read_transaction_held),
		T(test_relative_path),
		T(test_fail_after_injected),
		T(test_fail_reported_by_later_add),
		T(test_fail_after_one),
		T(test_full_disk_at_batch_commit),
		T(test_full_disk_at_finish),
		T(test_open_missing),
		T(test_open_directory),
		T(test_open_text_file),
		T(test_open_empty_file),
		T(test_open_foreign_sqlite),
		T(test_open_newer_schema),
		T(test_open_older_schema),
		T(test_open_unset_version),
		T(test_damaged_recording),
		T(test_open_memory),
		T(test_open_memory_refusals),
		T(test_open_memory_cached),
		T(test_open_memory_cached_digest),
		cmocka_unit_test(test_open_memory_cached_rows),
		cmocka_unit_test(test_kept_statements),
		T(test_create_in_missing_directory),
		T(test_create_on_directory),
		cmocka_unit_test(test_event_type_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
