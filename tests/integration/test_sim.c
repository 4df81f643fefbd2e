/*
 * test_sim.c — the simulation layer's boundary tap (sim_set_tap), on the
 * real simulator running the bundled firmware with its stimuli.
 *
 * For address sets that take each of the tap's ways of reading — one run of
 * consecutive bytes, SREG alone and inside a run, scattered and descending
 * addresses, loads rotated into one word and loads no rotation fits, the
 * last bytes of the data space (read byte by byte), none:
 *  - every sample the tap takes is what a hook computes from the live state
 *    at the same boundary: the PC, and (sim_tap_unpack) the bytes the first
 *    lowest; sim_tap_pack of the live state packs the same word;
 *  - the tap samples exactly the boundaries on_boundary sees: a run with
 *    on_boundary alone yields the same (icount, PC, word) sequence;
 *  - a small cap emptied by full() drops and repeats nothing, and with
 *    `until` the tap takes the boundaries before it and on_boundary the
 *    rest, together again that same sequence.
 *
 * And the firmware cache (fw_load_memory_cached): the same bytes under the
 * same path give the firmware kept, shared; another path, or the same
 * bytes but one in the code, give a new load with what those bytes hold;
 * what fails to load is not kept; every holder frees (ASan counts).
 */
#include "tests/testlib.h"

#include <inttypes.h>
#include <sim_avr.h>
#include <sim_regbit.h>

/* sim/'s inside: this test reads simavr's pending queue to choose an entry. */
#include "sim/sim_impl.h"
#include "util/file.h"

#define N_INSN 200000
#define BIG_CAP (N_INSN + 1)    /* more than a run has boundaries: no full() */
#define SMALL_CAP 100
#define UNTIL 123457            /* mid-run, and not on a round number */
#define NSETS 10

static const char *const FIRMWARE[] = { "adcapp", "funcsheap" };

typedef struct sample {
	uint64_t icount;
	uint64_t word;
	uint64_t raw;           /* the tap's: the word as packed */
	uint32_t pc;
} sample;

typedef struct seq {
	sample *v;
	size_t n, cap;
} seq;

static void push(seq *q, sample x)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 4096;
		q->v = realloc(q->v, q->cap * sizeof *q->v);
		assert_non_null(q->v);
	}
	q->v[q->n++] = x;
}

typedef struct addr_set {
	const char *name;
	uint16_t addr[8];
	unsigned n;
} addr_set;

/* The sets depend on the chip: the last ones reach the end of its data space. */
static void make_sets(uint32_t data_size, addr_set out[NSETS])
{
	uint16_t e = (uint16_t)data_size;
	const addr_set sets[NSETS] = {
		{ "SPL,SPH,SREG,r24,r25,r30", { 0x5d, 0x5e, 0x5f, 24, 25, 30 }, 6 },
		{ "SREG", { 0x5f }, 1 },
		{ "0x5a..0x61", { 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61 }, 8 },
		{ "r31,r30,r29,SREG,r2", { 31, 30, 29, 0x5f, 2 }, 5 },
		{ "end-1,end-2,r0", { (uint16_t)(e - 1), (uint16_t)(e - 2), 0 }, 3 },
		/* Consecutive, but the 8-byte load would pass the end. */
		{ "end-8..end-1", { (uint16_t)(e - 8), (uint16_t)(e - 7), (uint16_t)(e - 6),
				    (uint16_t)(e - 5), (uint16_t)(e - 4), (uint16_t)(e - 3),
				    (uint16_t)(e - 2), (uint16_t)(e - 1) }, 8 },
		/* The last load that still fits: it ends exactly at the end. */
		{ "end-8,SREG,r24,r25", { (uint16_t)(e - 8), 0x5f, 24, 25 }, 4 },
		/* Three loads whose bytes no rotation keeps apart: read in order. */
		{ "r0,r2,r4,r6,r20,r22,r40,r47", { 0, 2, 4, 6, 20, 22, 40, 47 }, 8 },
		/* Loads of a few bytes each, rotated into one word. */
		{ "r5,SPL,r1,SREG,r3,SPH", { 5, 0x5d, 1, 0x5f, 3, 0x5e }, 6 },
		{ "none", { 0 }, 0 },
	};
	memcpy(out, sets, sizeof sets);
}

typedef struct chip {
	firmware *fw;
	char *text;
	stim_script *script;
	uint64_t seed;
} chip;

static void chip_load(const char *name, chip *c)
{
	char elf[128], stim[128];
	snprintf(elf, sizeof elf, "traces/%s.elf", name);
	snprintf(stim, sizeof stim, "traces/%s.stim", name);
	avrr_err err = { "" };
	if (fw_load_file(elf, &c->fw, &err))
		fail_msg("%s", err.msg);
	c->text = util_read_text(stim, &err);
	if (!c->text || stim_parse(c->text, stim, &c->script, &err))
		fail_msg("%s", err.msg);
	c->seed = stim_default_seed(c->script);
}

static void chip_free(chip *c)
{
	stim_free(c->script);
	free(c->text);
	fw_free(c->fw);
}

typedef struct run {
	sim *s;
	addr_set set;
	int tapped;
	sim_tap tap;
	seq flushed;            /* the tap's samples, as full() copied them out */
	seq live;               /* the hook's computation at each of those */
	seq hooked;             /* on_boundary's samples */
	unsigned fulls;
	unsigned entries;       /* interrupts entered */
} run;

/* What a hook computes at this boundary. */
static sample here(run *r)
{
	const uint8_t *d = sim_live_data(r->s);
	uint64_t w = 0;
	for (unsigned i = 0; i < r->set.n; i++)
		w |= (uint64_t)d[r->set.addr[i]] << 8 * i;
	return (sample){ .icount = sim_icount(r->s), .word = w, .pc = sim_pc(r->s) };
}

/* Replay mode leaves entries to the caller.  Without any the firmware would
 * only spin in main and the sampled bytes would hardly move, so every run
 * enters what simavr would at each boundary: the lowest enabled pending
 * vector.  Being the same in every run, it keeps the runs comparable. */
static void enter_pending(run *r)
{
	avr_t *avr = r->s->avr;
	const avr_int_vector_t *best = NULL;
	for (int i = 0; i < avr->interrupts.vector_count; i++) {
		const avr_int_vector_t *v = avr->interrupts.vector[i];
		if (v->pending && avr_regbit_get(avr, v->enable) &&
		    (!best || v->vector < best->vector))
			best = v;
	}
	if (!best)
		return;
	assert_int_equal(sim_enter_vector(r->s, best->vector), 0);
	r->entries++;
}

static void drain(run *r)
{
	for (unsigned i = 0; i < r->tap.count; i++)
		push(&r->flushed, (sample){ .word = sim_tap_unpack(&r->tap, r->tap.word[i]),
					    .raw = r->tap.word[i], .pc = r->tap.pc[i] });
	r->tap.count = 0;
}

static void tap_full(void *ud)
{
	run *r = ud;
	assert_int_equal(r->tap.count, r->tap.cap);
	drain(r);
	r->fulls++;
}

/* A step retires at most one instruction, so it ends at one boundary at
 * most: when the tap took a sample, it is the one just taken. */
static int on_step(void *ud)
{
	run *r = ud;
	size_t taken = r->flushed.n + r->tap.count;
	if (!r->tapped || taken == r->live.n)
		return 0;
	assert_int_equal(taken, r->live.n + 1);
	sample want = here(r);
	sample got = r->tap.count ? (sample){ .word = sim_tap_unpack(&r->tap,
								     r->tap.word[r->tap.count - 1]),
					      .raw = r->tap.word[r->tap.count - 1],
					      .pc = r->tap.pc[r->tap.count - 1] }
				  : r->flushed.v[r->flushed.n - 1];
	assert_int_equal(sim_tap_pack(&r->tap, sim_live_data(r->s)), got.raw);
	if (got.pc != want.pc || got.word != want.word)
		fail_msg("set %s, sample %zu at icount %" PRIu64 ": tap pc 0x%" PRIx32
			 " word 0x%016" PRIx64 ", hook pc 0x%" PRIx32 " word 0x%016" PRIx64,
			 r->set.name, r->live.n, want.icount, got.pc, got.word, want.pc,
			 want.word);
	assert_true(want.icount < r->tap.until);
	push(&r->live, want);
	enter_pending(r);
	return 0;
}

static void on_boundary(void *ud)
{
	run *r = ud;
	if (r->tapped)
		assert_true(sim_icount(r->s) >= r->tap.until);
	push(&r->hooked, here(r));
	enter_pending(r);
}

/* N_INSN instructions of `c` in replay mode, sampling set `k` with the tap
 * (when cap is non-zero) and on_boundary. */
static void run_one(const chip *c, unsigned k, unsigned cap, uint64_t until, run *r)
{
	avrr_err err = { "" };
	memset(r, 0, sizeof *r);
	if (sim_open(c->fw, NULL, 0, &r->s, &err) ||
	    sim_attach_stimuli(r->s, c->script, c->seed, &err))
		fail_msg("%s", err.msg);
	addr_set sets[NSETS];
	make_sets(sim_data_size(r->s), sets);
	r->set = sets[k];
	sim_set_replay(r->s, 1);
	sim_set_hooks(r->s, &(sim_hooks){ .ud = r, .on_boundary = on_boundary, .on_step = on_step });
	if (cap) {
		r->tapped = 1;
		r->tap = (sim_tap){
			.until = until,
			.addr = r->set.n ? r->set.addr : NULL,
			.naddr = r->set.n,
			.pc = malloc(cap * sizeof *r->tap.pc),
			.word = malloc(cap * sizeof *r->tap.word),
			.cap = cap,
			.full = tap_full,
			.ud = r,
		};
		assert_true(r->tap.pc && r->tap.word);
		sim_set_tap(r->s, &r->tap);
	}
	assert_int_equal(sim_run(r->s, N_INSN, 0, NULL), SIM_STOP_LIMIT);
	assert_int_equal(sim_icount(r->s), N_INSN);
	if (cap) {
		drain(r);
		free(r->tap.pc);
		free(r->tap.word);
	}
	sim_close(r->s);
}

static void run_free(run *r)
{
	free(r->flushed.v);
	free(r->live.v);
	free(r->hooked.v);
}

/* The tap's samples, as copied out, are those checked live one by one. */
static void assert_flushed_is_live(const run *r)
{
	assert_int_equal(r->flushed.n, r->live.n);
	for (size_t i = 0; i < r->live.n; i++) {
		assert_int_equal(r->flushed.v[i].pc, r->live.v[i].pc);
		assert_int_equal(r->flushed.v[i].word, r->live.v[i].word);
	}
}

/* a followed by b is want, sample for sample. */
static void assert_concat(const char *what, const seq *a, const seq *b, const seq *want)
{
	assert_int_equal(a->n + b->n, want->n);
	for (size_t i = 0; i < want->n; i++) {
		const sample *x = i < a->n ? &a->v[i] : &b->v[i - a->n], *y = &want->v[i];
		if (x->icount != y->icount || x->pc != y->pc || x->word != y->word)
			fail_msg("%s, sample %zu: icount %" PRIu64 " pc 0x%" PRIx32
				 " word 0x%016" PRIx64 ", on_boundary alone: icount %" PRIu64
				 " pc 0x%" PRIx32 " word 0x%016" PRIx64, what, i, x->icount,
				 x->pc, x->word, y->icount, y->pc, y->word);
	}
}

static void test_tap_samples_what_the_hook_would(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof FIRMWARE / sizeof *FIRMWARE; f++) {
		chip c;
		chip_load(FIRMWARE[f], &c);
		for (unsigned k = 0; k < NSETS; k++) {
			run ref, all, part;
			run_one(&c, k, 0, 0, &ref);
			char what[128];
			snprintf(what, sizeof what, "%s, set %s", FIRMWARE[f], ref.set.name);
			/* Enough boundaries, and handlers among them, to mean something. */
			assert_true(ref.hooked.n > 1000);
			assert_true(ref.entries > 100);

			run_one(&c, k, BIG_CAP, UINT64_MAX, &all);
			assert_int_equal(all.fulls, 0);
			assert_int_equal(all.hooked.n, 0);
			assert_flushed_is_live(&all);
			assert_concat(what, &all.live, &all.hooked, &ref.hooked);

			run_one(&c, k, SMALL_CAP, UNTIL, &part);
			assert_true(part.fulls > 10);
			assert_true(part.hooked.n > 0);
			assert_flushed_is_live(&part);
			assert_concat(what, &part.live, &part.hooked, &ref.hooked);

			run_free(&ref);
			run_free(&all);
			run_free(&part);
		}
		chip_free(&c);
	}
}

static void test_fw_cache(void **state)
{
	(void)state;
	avrr_err err = { "" };
	firmware *orig;
	if (fw_load_file("traces/funcsheap.elf", &orig, &err))
		fail_msg("%s", err.msg);
	const uint8_t *a = orig->elf;
	size_t n = orig->elf_size;
	fw_cache *c = fw_cache_new();
	assert_non_null(c);
	firmware *f1, *f2, *f3, *f4, *f5;
	assert_int_equal(fw_load_memory_cached(c, a, n, "a.elf", &f1, &err), 0);
	assert_int_equal(f1->holders, 1);  /* the cache's */
	assert_int_equal(fw_load_memory_cached(c, a, n, "a.elf", &f2, &err), 0);
	assert_ptr_equal(f2, f1);
	assert_int_equal(f1->holders, 2);
	/* The same bytes under another name: its own load, naming it. */
	assert_int_equal(fw_load_memory_cached(c, a, n, "b.elf", &f3, &err), 0);
	assert_ptr_not_equal(f3, f1);
	assert_string_equal(f3->path, "b.elf");
	assert_int_equal(f1->holders, 1);  /* the cache let go of it */
	/* One byte of the code changed (found in the ELF by its neighbours):
	 * a new load, with that byte. */
	assert_true(orig->flash_size > 200);
	uint8_t *b = malloc(n);
	assert_non_null(b);
	memcpy(b, a, n);
	size_t at = 0;
	while (at + 64 <= n && memcmp(b + at, orig->flash + 100, 64))
		at++;
	assert_true(at + 64 <= n);
	b[at] ^= 0xff;
	assert_int_equal(fw_load_memory_cached(c, b, n, "b.elf", &f4, &err), 0);
	assert_ptr_not_equal(f4, f3);
	assert_int_equal(f4->flash[100], orig->flash[100] ^ 0xff);
	assert_memory_equal(f4->flash + 101, orig->flash + 101, 63);
	assert_string_not_equal(f4->sha256, orig->sha256);
	/* Bytes that do not load: refused as fw_load_memory refuses them, and
	 * the kept one stays kept. */
	assert_int_equal(fw_load_memory_cached(c, "not an ELF", 10, "b.elf", &f5, &err), -1);
	assert_null(f5);
	assert_int_equal(fw_load_memory_cached(c, b, n, "b.elf", &f5, &err), 0);
	assert_ptr_equal(f5, f4);
	/* Without a cache: a load of its own each time. */
	firmware *g1, *g2;
	assert_int_equal(fw_load_memory_cached(NULL, a, n, "a.elf", &g1, &err), 0);
	assert_int_equal(fw_load_memory_cached(NULL, a, n, "a.elf", &g2, &err), 0);
	assert_ptr_not_equal(g1, g2);
	assert_int_equal(g1->holders, 0);
	assert_memory_equal(g1->flash, orig->flash, orig->flash_size);
	fw_free(g1);
	fw_free(g2);
	/* Every holder frees, in any order (ASan would see a double free or a
	 * leak). */
	fw_free(f2);
	fw_free(f1);
	fw_free(f3);
	fw_free(f5);
	fw_cache_free(c);
	fw_free(f4);
	free(b);
	fw_free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tap_samples_what_the_hook_would),
		cmocka_unit_test(test_fw_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
