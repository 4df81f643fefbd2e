/*
 * test_record.c — recording the bundled firmware, end to end.
 *
 * For each firmware in traces/ with its stimuli, over 10^6 instructions:
 *  - the run stops after exactly that many instructions;
 *  - recording does not perturb the run: simavr's stock loop with the same
 *    stimuli and seed, observed only through simavr's own notifications,
 *    takes the same interrupts at the same cycles;
 *  - two recordings are identical, event for event and digest for digest;
 *  - the event log is consistent: each `prev` is the latest earlier event
 *    of the same context, and interrupt entries and RETIs nest properly.
 */
#include "tests/testlib.h"

#include <sodium.h>
#include <sqlite3.h>
#include <unistd.h>

#include "db/db.h"
#include "recorder/recorder.h"
#include "sim/sim.h"
#include "util/digest.h"
#include "util/file.h"

#define N_INSN 1000000

static const char *const FIRMWARE[] = { "adcapp", "funcsheap", "funcsheap_noloop" };

typedef struct recording {
	char dir[128];
	char path[256];
	db_run run;
	trace_event *ev;
	size_t nev;
	db_interrupt *irq;
	size_t nirq;
} recording;

/* Records `name` until the stop condition in `o` (limits only). */
static void record_with(const char *name, rec_options o, recording *out);

static void record_fw(const char *name, uint64_t insns, uint64_t seed, recording *out)
{
	rec_options o = { .seed = seed, .seed_given = 1, .max_instructions = insns };
	record_with(name, o, out);
}

static void record_with(const char *name, rec_options o, recording *out)
{
	char elf[128], stim[128];
	assert_non_null(test_tmpdir(out->dir, sizeof out->dir));
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	snprintf(out->path, sizeof out->path, "%s/%s.db", out->dir, name);
	o.firmware_path = elf;
	o.out_path = out->path;
	o.stimuli_path = stim;
	avrr_err err = { "" };
	int interrupted;
	int rc = rec_record(&o, &interrupted, &err);
	if (rc)
		fail_msg("record %s: %s", name, err.msg);
	db *d;
	assert_int_equal(db_open(out->path, 0, &d, &err), 0);
	assert_int_equal(db_get_run(d, &out->run, &err), 0);
	assert_int_equal(db_load_events(d, &out->ev, &out->nev, &err), 0);
	assert_int_equal(db_load_interrupts(d, &out->irq, &out->nirq, &err), 0);
	db_close(d);
}

static void recording_free(recording *r)
{
	db_run_free(&r->run);
	free(r->ev);
	free(r->irq);
	unlink(r->path);
	rmdir(r->dir);
}

static void test_exact_instruction_count(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		recording r = { 0 };
		record_fw(FIRMWARE[f], N_INSN, 1, &r);
		assert_int_equal(r.run.instructions, N_INSN);
		assert_string_equal(r.run.stop_reason, "instructions");
		for (size_t i = 0; i < r.nev; i++)
			assert_true(r.ev[i].icount <= N_INSN);
		/* The paper's workloads are interrupt-heavy: so must ours be. */
		assert_true(r.nirq > 100);
		recording_free(&r);
	}
	/* An odd count, to show it is not a multiple of some slice. */
	recording r = { 0 };
	record_fw("funcsheap", 123457, 1, &r);
	assert_int_equal(r.run.instructions, 123457);
	recording_free(&r);
}

/* --interrupts N stops right after the Nth entry. */
static void test_stop_after_interrupts(void **state)
{
	(void)state;
	recording r = { 0 };
	record_with("adcapp", (rec_options){ .max_interrupts = 250 }, &r);
	assert_string_equal(r.run.stop_reason, "interrupts");
	assert_int_equal(r.nirq, 250);
	/* The 250th entry happened in the last step: nothing after it but
	 * what the same step did (its interrupt entry is the last event). */
	assert_int_equal(r.ev[r.nev - 1].type, TRACE_IRQ);
	assert_int_equal(r.ev[r.nev - 1].icount, r.run.instructions);
	recording_free(&r);
}

/* --cycles N stops at the first instruction boundary at or past cycle N:
 * one instruction fewer ends before N. */
static void test_stop_at_cycles(void **state)
{
	(void)state;
	const uint64_t n = 777777;
	recording r = { 0 }, shorter = { 0 };
	record_with("funcsheap", (rec_options){ .max_cycles = n }, &r);
	assert_string_equal(r.run.stop_reason, "cycles");
	assert_true(r.run.cycles >= n);
	record_with("funcsheap", (rec_options){ .max_instructions = r.run.instructions - 1 },
		    &shorter);
	assert_true(shorter.run.cycles < n);
	recording_free(&r);
	recording_free(&shorter);
}

typedef struct observed {
	uint64_t cycle[1 << 16];
	uint8_t vector[1 << 16];
	size_t n;
} observed;

static void observe(void *ud, uint64_t cycle, uint8_t vector)
{
	observed *o = ud;
	if (o->n < sizeof o->cycle / sizeof o->cycle[0]) {
		o->cycle[o->n] = cycle;
		o->vector[o->n] = vector;
	}
	o->n++;
}

/* The same firmware, stimuli and seed run with no recorder: nothing
 * hooked but simavr's own notice of each vector's entry.  (simavr's own
 * loop, sim_run_plain, no longer is the reference: the interrupt timing
 * and sleep rules are sim.c's.) */
static void plain_run(const char *name, uint64_t seed, uint64_t cycles, observed *obs)
{
	char elf[128], stim[128];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	avrr_err err = { "" };
	firmware *fw;
	assert_int_equal(fw_load_file(elf, &fw, &err), 0);
	char *text = util_read_text(stim, &err);
	stim_script *script;
	if (!text || stim_parse(text, stim, &script, &err))
		fail_msg("%s", err.msg);
	sim *s;
	assert_int_equal(sim_open(fw, NULL, 0, &s, &err), 0);
	assert_int_equal(sim_attach_stimuli(s, script, seed, &err), 0);
	assert_int_equal(sim_observe_vectors(s, observe, obs, &err), 0);
	assert_int_equal(sim_run(s, 0, cycles, NULL), SIM_STOP_LIMIT);
	sim_close(s);
	stim_free(script);
	free(text);
	fw_free(fw);
}

static void test_recording_does_not_perturb(void **state)
{
	(void)state;
	static observed obs;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		recording r = { 0 };
		record_fw(FIRMWARE[f], N_INSN, 7, &r);
		obs.n = 0;
		plain_run(FIRMWARE[f], 7, r.run.cycles, &obs);
		assert_int_equal(obs.n, r.nirq);
		for (size_t i = 0; i < r.nirq; i++) {
			assert_int_equal(obs.cycle[i], r.irq[i].cycle);
			assert_int_equal(obs.vector[i], r.irq[i].vector);
		}
		recording_free(&r);
	}
}

static void test_recordings_are_deterministic(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		recording a = { 0 }, b = { 0 };
		record_fw(FIRMWARE[f], N_INSN, 3, &a);
		record_fw(FIRMWARE[f], N_INSN, 3, &b);
		assert_int_equal(a.nev, b.nev);
		assert_int_equal(a.nirq, b.nirq);
		for (size_t i = 0; i < a.nev; i++) {
			const trace_event *x = &a.ev[i], *y = &b.ev[i];
			assert_int_equal(x->seq, y->seq);
			assert_int_equal(x->prev, y->prev);
			assert_int_equal(x->ctx, y->ctx);
			assert_int_equal(x->type, y->type);
			assert_int_equal(x->icount, y->icount);
			assert_int_equal(x->cycle, y->cycle);
			assert_int_equal(x->pc, y->pc);
			assert_int_equal(x->addr, y->addr);
			assert_int_equal(x->value, y->value);
		}
		for (size_t i = 0; i < a.nirq; i++) {
			assert_int_equal(a.irq[i].icount, b.irq[i].icount);
			assert_int_equal(a.irq[i].cycle, b.irq[i].cycle);
			assert_int_equal(a.irq[i].vector, b.irq[i].vector);
			assert_int_equal(a.irq[i].ra, b.irq[i].ra);
			assert_memory_equal(a.irq[i].digest, b.irq[i].digest, DB_DIGEST_SIZE);
		}
		assert_int_equal(a.run.cycles, b.run.cycles);
		recording_free(&a);
		recording_free(&b);
	}
}

static void test_seed_changes_the_run(void **state)
{
	(void)state;
	recording a = { 0 }, b = { 0 };
	record_fw("funcsheap", N_INSN, 1, &a);
	record_fw("funcsheap", N_INSN, 2, &b);
	int differ = a.nirq != b.nirq;
	for (size_t i = 0; !differ && i < a.nirq; i++)
		differ = a.irq[i].cycle != b.irq[i].cycle || a.irq[i].ra != b.irq[i].ra;
	assert_true(differ);
	recording_free(&a);
	recording_free(&b);
}

static void test_event_log_is_consistent(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		recording r = { 0 };
		record_fw(FIRMWARE[f], N_INSN, 1, &r);
		uint64_t last[256] = { 0 };
		uint32_t stack[64];
		int depth = 0;
		size_t irqs = 0;
		assert_true(r.nev > 0);
		assert_int_equal(r.ev[0].type, TRACE_RESET);
		for (size_t i = 0; i < r.nev; i++) {
			const trace_event *e = &r.ev[i];
			assert_int_equal(e->seq, i + 1);
			assert_true(e->ctx < 256);
			/* prev: the latest earlier event of the same context. */
			assert_int_equal(e->prev, last[e->ctx]);
			if (e->prev) {
				assert_true(e->prev < e->seq);
				assert_int_equal(r.ev[e->prev - 1].ctx, e->ctx);
			}
			last[e->ctx] = e->seq;
			if (i)
				assert_true(e->icount >= r.ev[i - 1].icount);
			switch (e->type) {
			case TRACE_IRQ:
				assert_int_equal(e->ctx, e->addr);
				assert_true(depth < 64);
				stack[depth++] = e->addr;
				/* Entry events match the ground truth one to one. */
				assert_true(irqs < r.nirq);
				assert_int_equal(r.irq[irqs].vector, e->addr);
				assert_int_equal(r.irq[irqs].ra, e->value);
				assert_int_equal(r.irq[irqs].icount, e->icount);
				irqs++;
				break;
			case TRACE_RETI:
				assert_true(depth > 0);
				assert_int_equal(stack[depth - 1], e->addr);
				assert_int_equal(e->ctx, e->addr);
				depth--;
				break;
			default:
				/* Anything else happens in the innermost context. */
				assert_int_equal(e->ctx, depth ? stack[depth - 1] : 0);
			}
		}
		assert_int_equal(irqs, r.nirq);
		assert_true(depth <= 2); /* at most the ISRs still open at the end */
		recording_free(&r);
	}
}

/* With --contexts each interrupt keeps its whole pre-interrupt context, and
 * that context is the interrupt point as DESIGN.md defines it: SP as the
 * program left it (the `sp` column, before the push), SREG with I set, and
 * the digest is over exactly these bytes followed by the RA. */
static void test_contexts_are_the_interrupt_point(void **state)
{
	(void)state;
	char dir[128], path[256];
	assert_non_null(test_tmpdir(dir, sizeof dir));
	snprintf(path, sizeof path, "%s/ctx.db", dir);
	rec_options o = {
		.firmware_path = "traces/funcsheap_noloop.elf", .out_path = path,
		.stimuli_path = "traces/funcsheap_noloop.stim", .max_instructions = 200000,
		.store_contexts = 1,
	};
	avrr_err err = { "" };
	int interrupted;
	if (rec_record(&o, &interrupted, &err))
		fail_msg("%s", err.msg);
	sqlite3 *h;
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT context, digest, ra, sp FROM interrupts",
					    -1, &st, NULL), SQLITE_OK);
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const uint8_t *ctx = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		uint32_t ra = (uint32_t)sqlite3_column_int64(st, 2);
		uint32_t sp = (uint32_t)sqlite3_column_int64(st, 3);
		assert_int_equal(n, 0x460); /* ATmega16: RAMEND 0x45f */
		assert_int_equal(ctx[0x5d] | ctx[0x5e] << 8, sp);
		assert_true(ctx[0x5f] & 0x80);
		uint8_t ra_le[4] = { (uint8_t)ra, (uint8_t)(ra >> 8), 0, 0 };
		uint8_t d[DIGEST_CONTEXT_SIZE];
		assert_int_equal(digest_context(ctx, (size_t)n, ra_le, 4, d), 0);
		assert_int_equal(sqlite3_column_bytes(st, 1), DB_DIGEST_SIZE);  /* kept whole */
		assert_memory_equal(d, sqlite3_column_blob(st, 1), DB_DIGEST_SIZE);
		rows++;
	}
	assert_true(rows > 10);
	sqlite3_finalize(st);
	sqlite3_close(h);
	unlink(path);
	rmdir(dir);
}

/* The views `events`, `interrupts` and `fingerprints`, which decode the
 * chunks in plain SQL, give row for row what avrr decodes in C; and the
 * chunks are small. */
static void test_views_are_the_log(void **state)
{
	(void)state;
	char dir[128], path[256];
	assert_non_null(test_tmpdir(dir, sizeof dir));
	snprintf(path, sizeof path, "%s/v.db", dir);
	/* Input keys that vary (a 64-bit hash of a selector of over 8 bytes),
	 * and one for all (a selector of counters only). */
	static const char *const specs[] = { "bytes:sel=SPL+SPH+SREG+r24+r25+r26+r27+r28+r30,ra=8,width=16",
					     "counter:sel=cycles:16,ra=8,width=24" };
	rec_options o = {
		.firmware_path = "traces/adcapp.elf", .out_path = path,
		.stimuli_path = "traces/adcapp.stim", .max_instructions = 1000000,
		.store_contexts = 1, .fp_specs = specs, .nfp_specs = 2,
	};
	avrr_err err = { "" };
	int interrupted;
	if (rec_record(&o, &interrupted, &err))
		fail_msg("%s", err.msg);
	db *d;
	trace_event *ev;
	db_interrupt *q;
	size_t nev, nq;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	assert_int_equal(db_load_events(d, &ev, &nev, &err), 0);
	assert_int_equal(db_load_interrupts(d, &q, &nq, &err), 0);
	db_fingerprint *fp[2];
	size_t nfp[2];
	for (uint32_t c = 0; c < 2; c++)
		assert_int_equal(db_load_fingerprints(d, c + 1, 0, &fp[c], &nfp[c], &err), 0);
	db_close(d);
	assert_true(nev > 2000 && nq > 800);  /* many chunks of each */

	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT seq, prev, ctx, type, icount, cycle, pc, addr,"
					    " value FROM events", -1, &st, NULL), SQLITE_OK);
	size_t i = 0;
	for (; sqlite3_step(st) == SQLITE_ROW; i++) {
		assert_true(i < nev);
		const uint64_t want[9] = { ev[i].seq, ev[i].prev, ev[i].ctx, ev[i].type, ev[i].icount,
					   ev[i].cycle, ev[i].pc, ev[i].addr, ev[i].value };
		for (int c = 0; c < 9; c++)
			assert_int_equal(sqlite3_column_int64(st, c), want[c]);
	}
	assert_int_equal(i, nev);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT idx, icount, cycle, vector, ra, sp, digest,"
					    " length(context) FROM interrupts", -1, &st, NULL),
			 SQLITE_OK);
	for (i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
		assert_true(i < nq);
		const uint64_t want[6] = { q[i].idx, q[i].icount, q[i].cycle, q[i].vector, q[i].ra,
					   q[i].sp };
		for (int c = 0; c < 6; c++)
			assert_int_equal(sqlite3_column_int64(st, c), want[c]);
		assert_int_equal(sqlite3_column_bytes(st, 6), DB_DIGEST_SIZE);
		assert_memory_equal(sqlite3_column_blob(st, 6), q[i].digest, DB_DIGEST_SIZE);
		assert_int_equal(sqlite3_column_int64(st, 7), 0x460);
	}
	assert_int_equal(i, nq);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT config, n, vector, ra_part, hash_part,"
					    " input_key FROM fingerprints", -1, &st, NULL), SQLITE_OK);
	size_t keys_differ = 0;
	for (uint32_t c = 0; c < 2; c++) {
		assert_int_equal(nfp[c], nq);
		for (i = 0; i < nfp[c]; i++) {
			const db_fingerprint *f = &fp[c][i];
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			const uint64_t want[6] = { c + 1, f->n, f->vector, f->ra_part, f->hash_part,
						   f->input_key };
			for (int k = 0; k < 6; k++)
				assert_int_equal(sqlite3_column_int64(st, k), want[k]);
			assert_int_equal(f->vector, q[i].vector);
			keys_differ += i && f->input_key != fp[c][0].input_key;
		}
		free(fp[c]);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_true(keys_differ > 100);  /* the first configuration's keys vary */
	/* What the log takes: under 10 bytes an event. */
	long long bytes = 0;
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT sum(length(data)) FROM event_chunks", -1, &st,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	bytes = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	assert_true(bytes > 0 && (size_t)bytes < 10 * nev);
	sqlite3_close(h);
	free(ev);
	free(q);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_instruction_count),
		cmocka_unit_test(test_stop_after_interrupts),
		cmocka_unit_test(test_stop_at_cycles),
		cmocka_unit_test(test_recording_does_not_perturb),
		cmocka_unit_test(test_recordings_are_deterministic),
		cmocka_unit_test(test_seed_changes_the_run),
		cmocka_unit_test(test_event_log_is_consistent),
		cmocka_unit_test(test_contexts_are_the_interrupt_point),
		cmocka_unit_test(test_views_are_the_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
