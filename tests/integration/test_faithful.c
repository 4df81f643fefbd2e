/*
 * test_faithful.c — a replay re-creates the recorded run exactly, or stops
 * at the first wrong step and says where (replayer.h, "Fail loud").
 *
 * On the bundled firmware: the counters in fingerprints equal a brute-force
 * count from single-stepping; the default configuration replays exactly,
 * stripped or not, making the same injections; each way of going wrong —
 * a false injection, a passed-over interrupt, an event out of the log's
 * total order — stops at the icount derived from the recording itself;
 * --keep-going, --until, a recording without interrupts and SIGINT.
 */
#include "tests/edit_log.h"

#include <jansson.h>
#include <sodium.h>
#include <sqlite3.h>
#include <unistd.h>

#include "db/db.h"
#include "sim/avr_decode.h"
#include "sim/ioregs.h"
#include "fingerprint/fingerprint.h"
#include "rerun/replica.h"
#include "replayer/replayer.h"

#define OLD_DEFAULT "old:sel=SPL+SPH+SREG+r24+r25+r31,ra=8,width=16"
#define COUNTERS "--fp 'sic:sel=sic:32,ra=0,width=32' --fp 'cyc:sel=cycles:16,ra=0,width=16'"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

/* Records traces/NAME.elf for `insns` instructions with `fps` (--fp
 * options, or "" for the default) into DIR/FILE. */

/* ---- the counters against a brute force ------------------------------- */

/* Single-steps a replica of the recording and counts the control
 * transfers sic:K counts, from the decoded instruction at each PC. */
typedef struct brute {
	uint64_t prev_icount, count, n;
	uint32_t prev_pc;       /* where the next instruction starts */
	int irq;                /* an entry during this step */
	uint32_t irq_ra;
	uint64_t irq_cycle;
} brute;

static int counts(const avr_insn *in, uint32_t from, uint32_t to)
{
	switch (in->op) {
	case AVR_OP_RCALL: case AVR_OP_CALL: case AVR_OP_ICALL: case AVR_OP_EICALL:
	case AVR_OP_RET: case AVR_OP_RETI: case AVR_OP_IJMP: case AVR_OP_EIJMP:
		return 1;
	case AVR_OP_RJMP: case AVR_OP_JMP: case AVR_OP_BRBS: case AVR_OP_BRBC:
		return to <= from;
	default:
		return 0;
	}
}

static void brute_irq(void *ud, const sim_irq_point *p)
{
	brute *b = ud;
	b->irq = 1;
	b->irq_ra = p->ra;
	b->irq_cycle = p->cycle;
}

/* funcsheap's first 300k instructions are mostly its delay loop (backward
 * branches); adcapp's call and return (send_line and others). */
static void counters_equal_brute_force(scratch *s, const char *fw)
{
	char path[256];
	test_record(s, path, sizeof path, "c.db", "traces/%s.elf --stimuli traces/%s.stim "
		    "--instructions 300000 " COUNTERS, fw, fw);
	db *d;
	avrr_err err = { "" };
	rerun_replica rep;
	db_fingerprint *sic, *cyc;
	size_t nsic, ncyc;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	assert_int_equal(rerun_replica_open(d, &rep, &err), 0);
	assert_int_equal(db_load_fingerprints(d, 1, 0, &sic, &nsic, &err), 0);
	assert_int_equal(db_load_fingerprints(d, 2, 0, &cyc, &ncyc, &err), 0);
	assert_int_equal(nsic, ncyc);
	assert_true(nsic > 100);
	brute b = { .prev_pc = sim_pc(rep.s) };
	sim_set_hooks(rep.s, &(sim_hooks){ .ud = &b, .on_irq = brute_irq });
	/* One step at a time: an instruction retires, then maybe an entry. */
	while (sim_icount(rep.s) < rep.run.instructions) {
		sim_stop why = sim_run(rep.s, sim_icount(rep.s) + 1, 0, NULL);
		assert_int_equal(why, SIM_STOP_LIMIT);
		if (sim_icount(rep.s) == b.prev_icount + 1) {
			avr_insn in;
			uint32_t to = b.irq ? b.irq_ra : sim_pc(rep.s);
			assert_int_equal(avr_decode(rep.fw->flash, rep.fw->flash_size, b.prev_pc, &in), 0);
			b.count += (uint64_t)counts(&in, b.prev_pc, to);
		}
		if (b.irq) {
			size_t n = b.n++;
			assert_true(n < nsic);
			if (sic[n].hash_part != (b.count & 0xffffffffu) ||
			    cyc[n].hash_part != (b.irq_cycle & 0xffff)) {
				fail_msg("interrupt %zu: sic 0x%llx, brute force 0x%llx; cycles 0x%llx, "
					 "0x%llx", n + 1, (unsigned long long)sic[n].hash_part,
					 (unsigned long long)b.count, (unsigned long long)cyc[n].hash_part,
					 (unsigned long long)(b.irq_cycle & 0xffff));
			}
			b.irq = 0;
		}
		b.prev_icount = sim_icount(rep.s);
		b.prev_pc = sim_pc(rep.s);
	}
	assert_int_equal(b.n, nsic);
	/* The run's total, as stored for the device cost. */
	assert_int_equal(rep.run.transfers, b.count);
	/* The cycle bits are the ground truth's cycle. */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts i JOIN fingerprints f"
				 " ON f.n = i.idx AND f.config = 2 WHERE f.hash_part != i.cycle % 65536"), 0);
	free(sic);
	free(cyc);
	rerun_replica_close(&rep);
	db_close(d);
	unlink(path);
}

static void test_counters_equal_brute_force(void **state)
{
	counters_equal_brute_force(*state, "funcsheap");
	counters_equal_brute_force(*state, "adcapp");
}

/* `avrr fingerprint` computes counters as the recorder does: by re-running
 * the recording, even when it stores contexts (which hold no counts). */
static void test_fingerprint_command_computes_counters(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "c.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions 200000 --contexts "
		    "--fp 'a:sel=r24+sic:12+cycles:8,ra=4,width=32'");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s fingerprint '%s' --fp "
				  "'b:sel=r24+sic:12+cycles:8,ra=4,width=32'", test_avrr(), path), 0);
	test_assert_contains(s->out, "re-ran the recording");
	long long n = test_sql_int(path, "SELECT count(*) FROM interrupts");
	assert_true(n > 100);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM fingerprints a JOIN fingerprints b"
				 " ON a.n = b.n AND a.config = 1 AND b.config = 2"
				 " WHERE a.ra_part = b.ra_part AND a.hash_part = b.hash_part"), n);
	/* And the counts differ from interrupt to interrupt. */
	assert_int_equal(test_sql_int(path, "SELECT count(DISTINCT hash_part) FROM fingerprints"
				 " WHERE config = 1"), n);
}

/* `avrr sweep` takes counters among a selector's components: grid points
 * whose ra and counter bits exceed the width are left out, the others
 * count as the oracle counts them. */
static void test_sweep_with_counters(void **state)
{
	scratch *s = *state;
	char path[256], csv[300];
	test_record(s, path, sizeof path, "c.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions 100000");
	snprintf(csv, sizeof csv, "%s/grid.csv", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s sweep '%s' -o '%s' --selector "
				  "'SPL+SPH+SREG+cycles:8' --width 12,16 --ra 0,4,8 --hash jenkins "
				  "--match sequence", test_avrr(), path, csv), 0);
	/* Width 12 takes ra 0 and 4 (8 counter bits), width 16 all three. */
	assert_int_equal(test_run(s->out, sizeof s->out, "grep -c ',false_loop,' '%s'", csv), 0);
	assert_string_equal(s->out, "5\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "grep -c -- '-ra8-w12,' '%s'", csv), 1);
	/* The same point through the oracle directly. */
	assert_int_equal(test_run(s->out, sizeof s->out, "grep ',s0-jenkins-ra4-w16,.*,false_loop,' "
				  "'%s' | cut -d, -f9", csv), 0);
	long long swept = atoll(s->out);
	json_t *o = test_replay_json(s, path, "--oracle --match sequence --fp "
				"'x:sel=SPL+SPH+SREG+cycles:8,hash=jenkins,ra=4,width=16'", 0);
	assert_int_equal(test_json_int(json_array_get(json_object_get(o, "configs"), 0), "false_loop"),
			 swept);
	json_decref(o);
}

/* ---- the default replays exactly -------------------------------------- */

static void injections_of(const char *path, rp_injection **out, size_t *n, rp_counters *c,
			  uint64_t *icount)
{
	rp_options o = { .match = RP_MATCH_SEQUENCE };
	replay *r;
	avrr_err err = { "" };
	if (rp_open(path, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(rp_run(r, 0), RP_END);
	assert_false(rp_went_wrong(r));
	const rp_injection *inj = rp_injections(r, n);
	*out = malloc((*n + 1) * sizeof **out);
	memcpy(*out, inj, *n * sizeof **out);
	*c = *rp_get_counters(r);
	*icount = rp_icount(r);
	rp_close(r);
}

static void test_default_replays_exactly_stripped_too(void **state)
{
	scratch *s = *state;
	static const char *const fws[] = { "adcapp", "funcsheap", "funcsheap_noloop" };
	for (size_t f = 0; f < sizeof fws / sizeof *fws; f++) {
		char path[256], dev[300];
		test_record(s, path, sizeof path, "d.db", "traces/%s.elf --stimuli traces/%s.stim "
			    "--instructions 1M", fws[f], fws[f]);
		snprintf(dev, sizeof dev, "%s/dev.db", s->dir);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s strip '%s' -o '%s'",
					  test_avrr(), path, dev), 0);
		rp_injection *a, *b;
		size_t na, nb;
		rp_counters ca, cb;
		uint64_t ia, ib;
		injections_of(path, &a, &na, &ca, &ia);
		injections_of(dev, &b, &nb, &cb, &ib);
		long long recorded = test_sql_int(path, "SELECT count(*) FROM interrupts");
		assert_true(recorded > 400);   /* funcsheap_noloop: 497 */
		assert_int_equal(ia, 1000000);
		assert_int_equal(ib, 1000000);
		assert_int_equal(ca.interrupts_recorded, recorded);
		assert_int_equal(ca.injected, recorded);
		assert_int_equal(ca.correct, recorded);
		assert_int_equal(ca.false_loop + ca.false_ra + ca.missed, 0);
		assert_int_equal(cb.scored, 0);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++) {
			assert_int_equal(a[i].icount, b[i].icount);
			assert_int_equal(a[i].vector, b[i].vector);
		}
		/* And each at its recorded icount. */
		assert_int_equal(test_sql_int(path, "SELECT max(icount) FROM interrupts"), a[na - 1].icount);
		free(a);
		free(b);
		unlink(path);
		unlink(dev);
	}
}

/* The replay calls its hook only where the expected fingerprint's cycle
 * bits match (expect_next), read from the key's layout: ra | counters |
 * hash.  With both counters and a hash, in either order, a wrong shift
 * would skip the right boundary and miss the interrupt. */
static void test_counters_and_hash_replay_exactly(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "m.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions 500000 "
		    "--fp 'a:sel=SPL+SPH+SREG+r24+cycles:10+sic:6,hash=jenkins,ra=4,width=28' "
		    "--fp 'b:sel=SPL+SPH+SREG+sic:6+cycles:10,hash=jenkins,ra=4,width=28'");
	long long recorded = test_sql_int(path, "SELECT count(*) FROM interrupts");
	assert_true(recorded > 300);
	for (const char *const *fp = (const char *const[]){ "--fp a", "--fp b", NULL }; *fp; fp++) {
		json_t *o = test_replay_json(s, path, *fp, 0);
		assert_int_equal(test_json_int(o, "injected"), recorded);
		assert_int_equal(test_json_int(o, "correct"), recorded);
		assert_int_equal(test_json_int(o, "missed"), 0);
		json_decref(o);
	}
}

/* ---- each way of going wrong ------------------------------------------ */

static void test_false_injection_stops_before_it(void **state)
{
	scratch *s = *state;
	char path[256], want[128];
	test_record(s, path, sizeof path, "a.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 20000 --fp '" OLD_DEFAULT "'");
	long long irq2 = test_sql_int(path, "SELECT icount FROM interrupts WHERE idx = 2");
	long long irq3 = test_sql_int(path, "SELECT icount FROM interrupts WHERE idx = 3");
	long long fp3 = test_sql_int(path, "SELECT ra_part << 8 | hash_part FROM fingerprints WHERE n = 3");

	/* adcapp's first UDRE interrupt writes its banner's first byte into
	 * the idle transmitter, which moves it into the shift register at
	 * once: UDRE stays set and the second follows the first's RETI
	 * (docs/chip.md, the USART), the third a frame later.  Sequence
	 * matching: after interrupt 2, main's superloop reaches a state whose
	 * old fingerprint is interrupt 3's, a turn too early. */
	json_t *o = test_replay_json(s, path, "--fp old --match sequence", 1);
	json_t *d = json_object_get(o, "divergence");
	assert_true(json_is_true(json_object_get(o, "diverged")));
	assert_int_equal(test_json_int(d, "icount"), 1285);
	assert_true(irq2 < 1285 && 1285 < irq3);
	snprintf(want, sizeof want, "interrupt 3 (vector 12 (USART_UDRE_vect)) at icount %lld", irq3);
	assert_string_equal(test_json_str(d, "expected"), want);
	snprintf(want, sizeof want, "the fingerprint 0x%llx of interrupt 3 (vector 12) matched here",
		 fp3);
	test_assert_contains(test_json_str(d, "actual"), want);
	test_assert_contains(test_json_str(d, "actual"), "a false loop positive (input duplicate)");
	/* Stopped before the false entry: only the correct ones were made. */
	assert_int_equal(test_json_int(o, "injected"), 2);
	assert_int_equal(test_json_int(o, "correct"), 2);
	assert_int_equal(test_json_int(o, "false_loop"), 1);
	json_decref(o);

	/* Set matching goes wrong earlier, on a
	 * fingerprint that a later interrupt also has. */
	o = test_replay_json(s, path, "--fp old --match set", 1);
	d = json_object_get(o, "divergence");
	assert_int_equal(test_json_int(d, "icount"), 1274);
	test_assert_contains(test_json_str(d, "actual"), "a false loop positive");
	json_decref(o);

	/* --until: nothing wrong before 1285, so exit 0; past it, exit 1. */
	o = test_replay_json(s, path, "--fp old --match sequence --until 1284", 0);
	assert_true(json_is_false(json_object_get(o, "diverged")));
	assert_int_equal(test_json_int(o, "instructions"), 1284);
	json_decref(o);
	o = test_replay_json(s, path, "--fp old --match sequence --until 1300", 1);
	assert_int_equal(test_json_int(json_object_get(o, "divergence"), "icount"), 1285);
	json_decref(o);
}

static void test_keep_going_counts_to_the_end(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "a.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 200000 --fp '" OLD_DEFAULT "'");
	json_t *o = test_replay_json(s, path, "--fp old --match sequence --keep-going", 1);
	/* The per-context checks never see it: every ISR's events and main's
	 * come in their own order.  Only the counts tell, and the status. */
	assert_int_equal(test_json_int(o, "instructions"), 200000);
	assert_true(json_is_null(json_object_get(o, "divergence")));
	assert_true(json_is_true(json_object_get(o, "diverged")));
	assert_true(test_json_int(o, "false_loop") > 100);
	assert_true(test_json_int(o, "missed") > 100);
	assert_int_equal(test_json_int(o, "injected"), test_json_int(o, "correct") + test_json_int(o, "false_loop") +
						    test_json_int(o, "false_ra"));
	json_decref(o);
}

/* Makes interrupt 3's stored fingerprint differ in its lowest bit. */
static void damage_third(const char *path)
{
	test_edit_log(path, "UPDATE fingerprints SET hash_part = (hash_part | 1) - (hash_part & 1)"
		      " WHERE n = 3");
}

static void test_missed_interrupt_stops_at_its_icount(void **state)
{
	scratch *s = *state;
	char path[256], want[160];
	test_record(s, path, sizeof path, "a.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 20000");
	long long fp3 = test_sql_int(path, "SELECT ra_part << 16 | hash_part FROM fingerprints WHERE n = 3");
	long long irq3 = test_sql_int(path, "SELECT icount FROM interrupts WHERE idx = 3");
	damage_third(path);
	json_t *o = test_replay_json(s, path, "", 1);
	json_t *d = json_object_get(o, "divergence");
	assert_int_equal(test_json_int(d, "icount"), irq3);
	snprintf(want, sizeof want, "interrupt 3 (vector 12 (USART_UDRE_vect)) at icount %lld", irq3);
	assert_string_equal(test_json_str(d, "expected"), want);
	snprintf(want, sizeof want, "no interrupt: the fingerprint here is 0x%llx, the recorded "
		 "one 0x%llx", fp3, fp3 ^ 1);
	assert_string_equal(test_json_str(d, "actual"), want);
	assert_int_equal(test_json_int(o, "injected"), 2);
	assert_int_equal(test_json_int(o, "missed"), 1);
	json_decref(o);
}

/* The icount at which a replay that never enters interrupt 3 (nor, waiting
 * for it, any later one) meets main's first event after it in the log:
 * that event's recorded icount less the instructions of the ISRs the log
 * puts between. */
static long long main_event_without_isrs(const char *path, long long *seq_main)
{
	db *d;
	avrr_err err = { "" };
	trace_event *ev;
	size_t n, irqs = 0;
	assert_int_equal(db_open(path, 0, &d, &err), 0);
	assert_int_equal(db_load_events(d, &ev, &n, &err), 0);
	db_close(d);
	long long isr = 0, entered = -1, at = -1;
	for (size_t i = 0; i < n && at < 0; i++) {
		irqs += ev[i].type == TRACE_IRQ;
		if (irqs < 3)
			continue;
		if (ev[i].type == TRACE_IRQ)
			entered = (long long)ev[i].icount;
		else if (ev[i].type == TRACE_RETI)
			isr += (long long)ev[i].icount - entered;
		else if (ev[i].ctx == 0) {
			at = (long long)ev[i].icount - isr;
			*seq_main = (long long)ev[i].seq;
		}
	}
	free(ev);
	return at;
}

static void test_stripped_replay_checks_the_total_order(void **state)
{
	scratch *s = *state;
	char path[256], dev[300];
	/* funcsheap_noloop: main writes PORTB every ~5000 instructions, and
	 * its third interrupt comes before one of them. */
	test_record(s, path, sizeof path, "f.db", "traces/funcsheap_noloop.elf "
		    "--stimuli traces/funcsheap_noloop.stim --instructions 40000");
	damage_third(path);
	snprintf(dev, sizeof dev, "%s/dev.db", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s strip '%s' -o '%s'", test_avrr(), path,
				  dev), 0);
	long long seq_main = 0, at = main_event_without_isrs(path, &seq_main);
	long long ra3 = test_sql_int(path, "SELECT value FROM events WHERE type = 2 LIMIT 1 OFFSET 2");
	long long v3 = test_sql_int(path, "SELECT vector FROM interrupts WHERE idx = 3");
	assert_true(at > 0);
	json_t *o = test_replay_json(s, dev, "", 1);
	json_t *d = json_object_get(o, "divergence");
	assert_int_equal(test_json_int(d, "icount"), at);
	assert_int_equal(test_json_int(d, "context"), 0);
	char want[200];
	snprintf(want, sizeof want, "interrupt 3 (irq vector %lld (%s) ra 0x%04llx) first: the "
		 "log puts it before this event", v3,
		 ioregs_vector_name(ioregs_lookup("atmega16"), (unsigned)v3), ra3);
	assert_string_equal(test_json_str(d, "expected"), want);
	test_assert_contains(test_json_str(d, "actual"), "write PORTB");
	assert_true(json_is_null(json_object_get(o, "missed")));
	json_decref(o);
	/* With the ground truth, the passed-over interrupt itself stops it. */
	o = test_replay_json(s, path, "", 1);
	assert_int_equal(test_json_int(json_object_get(o, "divergence"), "icount"),
			 test_sql_int(path, "SELECT icount FROM interrupts WHERE idx = 3"));
	json_decref(o);
}

/* A stored value wider than its configuration's bits is a damaged file:
 * one line and status 2 from replay, oracle and shell, never a crash. */
static void test_wider_fingerprint_is_damage(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "a.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 20000");
	test_edit_log(path, "UPDATE fingerprints SET hash_part = 4294967296 WHERE n = 3");
	static const char *const cmds[] = { "replay '%s'", "replay '%s' --oracle",
					    "shell '%s' -x /dev/null" };
	for (size_t i = 0; i < 3; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, cmds[i], path);
		int rc = test_run(s->out, sizeof s->out, "%s %s", test_avrr(), cmd);
		if (rc != 2 || !strstr(s->out, "damaged recording: fingerprint 3 of configuration "
				       "'default' is wider than its ra=0 and 32 more bits "
				       "(fingerprints, row 3)") || strchr(s->out, '\n') !=
		    s->out + strlen(s->out) - 1)
			fail_msg("%s: status %d, output '%s'", cmd, rc, s->out);
	}
}

/* ---- the edges -------------------------------------------------------- */

static void test_oracle_without_interrupts(void **state)
{
	scratch *s = *state;
	char path[256];
	/* adcapp's first interrupt comes at icount 1185. */
	test_record(s, path, sizeof path, "z.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 1000");
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts"), 0);
	json_t *o = test_replay_json(s, path, "--oracle --fp 'x:sel=SPL+r24,ra=4'", 0);
	json_t *c = json_array_get(json_object_get(o, "configs"), 0);
	assert_int_equal(test_json_int(o, "instructions"), 1000);
	assert_int_equal(test_json_int(c, "hits"), 0);
	assert_int_equal(test_json_int(c, "missed"), 0);
	json_decref(o);
	o = test_replay_json(s, path, "", 0);
	assert_int_equal(test_json_int(o, "injected"), 0);
	json_decref(o);
}

/* A configuration with counters shares its selector with one the oracle
 * batches: it must still be evaluated with its counters, as when alone. */
static void test_oracle_counters_beside_a_batched_selector(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "a.db", "traces/adcapp.elf --stimuli traces/adcapp.stim "
		    "--instructions 200000 --fp '" OLD_DEFAULT "' "
		    "--fp 'c8:sel=SPL+SPH+SREG+r24+r25+r31+cycles:8,ra=8,width=24'");
	json_t *both = test_replay_json(s, path, "--oracle --match set", 0);
	json_t *alone = test_replay_json(s, path, "--oracle --match set --fp c8", 0);
	json_t *b = json_array_get(json_object_get(both, "configs"), 1);
	json_t *a = json_array_get(json_object_get(alone, "configs"), 0);
	assert_string_equal(test_json_str(b, "name"), "c8");
	assert_int_equal(test_json_int(b, "missed"), 0);
	assert_int_equal(test_json_int(b, "correct"), test_sql_int(path, "SELECT count(*) FROM interrupts"));
	static const char *const keys[] = { "hits", "false_loop", "false_ra", "input_duplicates",
					     "hash_collisions" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		assert_int_equal(test_json_int(b, keys[i]), test_json_int(a, keys[i]));
	/* And the counter tells turns apart the selector alone cannot. */
	json_t *old = json_array_get(json_object_get(both, "configs"), 0);
	assert_true(test_json_int(b, "false_loop") < test_json_int(old, "false_loop"));
	json_decref(both);
	json_decref(alone);
}

static void test_sigint_stops_a_replay(void **state)
{
	scratch *s = *state;
	char path[256];
	/* The whole data space hashed at every boundary: seconds of replay.
	 * On a loaded machine the signal may come before the first instruction
	 * (while the file is opened, or even before the handler is set); then
	 * the test waits longer next time.  --foreground: else timeout sends
	 * the signal to the replay and then again to its process group, and
	 * a second SIGINT is the user's "stop now" (exit 130, nothing said). */
	test_record(s, path, sizeof path, "f.db", "traces/funcsheap.elf "
		    "--stimuli traces/funcsheap.stim --instructions 20M "
		    "--fp 'full:sel=all,ra=16,width=64'");
	for (int wait = 1; wait <= 4; wait *= 2) {
		int rc = test_run(s->out, sizeof s->out,
				  "timeout --foreground --preserve-status -s INT %d %s replay '%s' --fp full", wait,
				  test_avrr(), path);
		assert_int_equal(rc, 130);
		unsigned long long at = 0;
		const char *p = strstr(s->out, "interrupted at icount ");
		if (p && sscanf(p, "interrupted at icount %llu", &at) == 1 && at > 0) {
			assert_true(at < 20000000);
			return;
		}
		if (s->out[0] && !p && !strstr(s->out, "interrupted while opening"))
			fail_msg("neither interrupted run nor open: %s", s->out);
	}
	fail_msg("the replay was never interrupted while running: %s", s->out);
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counters_equal_brute_force, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fingerprint_command_computes_counters, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sweep_with_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_replays_exactly_stripped_too, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_and_hash_replay_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_false_injection_stops_before_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_going_counts_to_the_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missed_interrupt_stops_at_its_icount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stripped_replay_checks_the_total_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wider_fingerprint_is_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oracle_without_interrupts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oracle_counters_beside_a_batched_selector, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sigint_stops_a_replay, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
