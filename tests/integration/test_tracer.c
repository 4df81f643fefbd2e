/*
 * test_tracer.c — the device-side tracer stores what avrr record computes.
 *
 * For each configuration, `avrr tracer` writes the header, avr-gcc builds a
 * firmware with it (-include, the source untouched), avrr records the
 * build with the same configuration, and the run is re-created in simavr
 * to read the chip's ring buffer as it fills: every fingerprint it stores
 * equals the recorded one of the same interrupt, for every interrupt.  funcsheap (ATmega16) with the default configuration (a
 * cycle counter) and with each hash function, round-robin, a 48-bit
 * Jenkins (two passes) over a selector with stack bytes; race_tick on the
 * ATmega328P, whose Timer1 sits in extended I/O.  Configurations the
 * device cannot record are refused.
 */
#include "tests/testlib.h"

#include <unistd.h>

#include "db/db.h"
#include "fingerprint/fingerprint.h"
#include "rerun/replica.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

#define SLOTS 32
#define STEP 2000   /* instructions between two readings of the ring */

/* Each firmware: its source, plain build (for the MCU and the symbols
 * the spec names), avr-gcc flags and record arguments. */
#define FUNCSHEAP "traces/funcsheap", "-mmcu=atmega16 -DF_CPU=8000000UL", \
	"--stimuli traces/funcsheap.stim"
#define RACE_TICK "tests/firmware/race_tick", "-mmcu=atmega328p -DF_CPU=16000000UL", ""
#define ADCAPP_TASKS "tests/firmware/adcapp_tasks", "-mmcu=atmega16 -DF_CPU=8000000UL", \
	"--stimuli traces/adcapp.stim"
#define ATTINY85 "tests/firmware/attiny85", "-mmcu=attiny85 -DF_CPU=8000000UL", \
	"--stimuli tests/firmware/attiny85.stim"
#define ATMEGA2560 "tests/firmware/atmega2560", "-mmcu=atmega2560 -DF_CPU=16000000UL", \
	"--stimuli tests/firmware/atmega2560.stim"

/* Builds fw.c with the tracer for spec, records it, and compares. */
static void check(scratch *s, const char *fw, const char *cflags, const char *rec_args,
		  const char *spec)
{
	char hdr[256], elf[256], db_path[256];
	snprintf(hdr, sizeof hdr, "%s/tracer.h", s->dir);
	snprintf(elf, sizeof elf, "%s/traced.elf", s->dir);
	snprintf(db_path, sizeof db_path, "%s/traced.db", s->dir);
	if (test_run(s->out, sizeof s->out, "%s tracer %s.elf --fp '%s' --slots %d -o '%s'",
		     test_avrr(), fw, spec, SLOTS, hdr))
		fail_msg("tracer %s: %s", spec, s->out);
	/* A software instruction counter needs the link's relocations and
	 * the rewrite. */
	int sic = strstr(spec, "sic:") != NULL;
	if (test_run(s->out, sizeof s->out, "avr-gcc %s -Os -gdwarf-4 -std=gnu11 -Wall -Wextra -Werror "
		     "-I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000 %s -include '%s' "
		     "-o '%s%s' %s.c", cflags, sic ? "-Wl,--emit-relocs" : "", hdr, elf,
		     sic ? ".linked" : "", fw))
		fail_msg("avr-gcc with the tracer for %s: %s", spec, s->out);
	if (sic && test_run(s->out, sizeof s->out, "%s instrument '%s.linked' -o '%s'",
			    test_avrr(), elf, elf))
		fail_msg("instrument %s: %s", spec, s->out);
	/* binutils reads the rewritten ELF without a warning. */
	if (sic && test_run(s->out, sizeof s->out, "avr-readelf -lSs '%s' 2>&1 >/dev/null && "
			    "avr-objdump -d '%s' 2>&1 >/dev/null", elf, elf))
		fail_msg("binutils on the rewrite for %s: %s", spec, s->out);
	if (sic)
		assert_string_equal(s->out, "");
	unlink(db_path);
	if (test_run(s->out, sizeof s->out, "%s record '%s' %s --fp '%s' --instructions 300k -o '%s'",
		     test_avrr(), elf, rec_args, spec, db_path))
		fail_msg("record %s: %s", spec, s->out);

	avrr_err err = { "" };
	db *d;
	rerun_replica rep;
	db_fp_config *cfgs;
	db_fingerprint *rows;
	size_t ncfgs, nrows;
	unsigned ra_bits, state_bits;
	if (db_open(db_path, 0, &d, &err) || rerun_replica_open(d, &rep, &err) ||
	    db_load_fp_configs(d, &cfgs, &ncfgs, &err) ||
	    db_load_fingerprints(d, cfgs[0].id, 0, &rows, &nrows, &err) ||
	    fp_spec_bits(cfgs[0].spec, &ra_bits, &state_bits, &err))
		fail_msg("%s", err.msg);
	/* The same run again, read in steps short enough that the ring never
	 * wraps between two readings: every interrupt's slot is compared
	 * before it is overwritten. */
	const fw_symbol *ring = fw_find_symbol(rep.fw, "avrr_trace_ring");
	const fw_symbol *count = fw_find_symbol(rep.fw, "avrr_trace_count");
	assert_non_null(ring);
	assert_non_null(count);
	/* A cycle counter wider than Timer1 brings the tracer's own
	 * TIMER1_OVF handler, which stores no fingerprint: the ring holds the
	 * other interrupts' fingerprints, in order. */
	int ovf_vector = -1;
	for (unsigned v = 1; v < 256 && fw_find_symbol(rep.fw, "avrr_trace_ovf"); v++) {
		const char *name = sim_vector_name(rep.s, (uint8_t)v);
		if (name && !strcmp(name, "TIMER1_OVF_vect"))
			ovf_vector = (int)v;
	}
	assert_true(!fw_find_symbol(rep.fw, "avrr_trace_ovf") || ovf_vector > 0);
	size_t kept = 0;
	for (size_t i = 0; i < nrows; i++)
		if ((int)rows[i].vector != ovf_vector)
			rows[kept++] = rows[i];
	assert_true(ovf_vector < 0 || kept < nrows);
	nrows = kept;
	unsigned bytes = (ra_bits + state_bits + 7) / 8;
	assert_int_equal(ring->size, SLOTS * bytes);
	assert_true(nrows > SLOTS);
	unsigned checked = 0;
	for (uint64_t at = 0; at < rep.run.instructions;) {
		at = at + STEP < rep.run.instructions ? at + STEP : rep.run.instructions;
		assert_int_equal(sim_run(rep.s, at, 0, NULL), SIM_STOP_LIMIT);
		const uint8_t *data = sim_live_data(rep.s);
		/* The tracer counts a fingerprint once its slot is written. */
		unsigned stored = (uint16_t)(data[count->addr] | data[count->addr + 1] << 8);
		assert_true(stored >= checked && stored - checked <= SLOTS);
		assert_true(stored <= nrows);
		for (unsigned n = checked + 1; n <= stored; n++) {
			const uint8_t *slot = data + ring->addr + (n - 1) % SLOTS * bytes;
			uint64_t got = 0;
			for (unsigned b = bytes; b-- > 0;)
				got = got << 8 | slot[b];
			const db_fingerprint *r = &rows[n - 1];
			assert_true(ovf_vector >= 0 || r->n == n);
			uint64_t want = state_bits >= 64 ? r->hash_part
							 : r->ra_part << state_bits | r->hash_part;
			if (got != want)
				fail_msg("%s: interrupt %u: the chip stored 0x%llx, avrr record 0x%llx",
					 spec, n, (unsigned long long)got, (unsigned long long)want);
		}
		checked = stored;
	}
	/* A run may stop between an interrupt's entry and its tracer. */
	assert_true(checked == nrows || checked + 1u == nrows);
	free(rows);
	free(cfgs);
	rerun_replica_close(&rep);
	db_close(d);
}

static void test_default_configuration(void **state)
{
	check(*state, FUNCSHEAP, FP_DEFAULT_SPEC);
}

static void test_each_hash_function(void **state)
{
	static const char *const hashes[] = { "modular", "twomod", "jenkins", "knuth", "rr" };
	for (size_t i = 0; i < sizeof hashes / sizeof *hashes; i++) {
		char spec[160];
		snprintf(spec, sizeof spec, "sel=SPL+SPH+SREG+r24+r25+r30,hash=%s,ra=6,width=16",
			 hashes[i]);
		check(*state, FUNCSHEAP, spec);
	}
}

static void test_wide_hash_with_stack_and_counter(void **state)
{
	check(*state, FUNCSHEAP, "sel=cycles:8+SPL+SPH+SREG+r24+stack:4+0x60-0x63,hash=jenkins,"
	      "ra=8,width=56");
	check(*state, FUNCSHEAP, "sel=SREG+r28+r29,hash=rr,marker=0x200-0x2ff:knuth+0x300-0x3ff:"
	      "twomod,ra=4,width=20");
}

/* Cycle counters wider than Timer1: the overflow count its handler keeps
 * agrees with the timer the stub reads, TOV1 pending or not, on the
 * ATmega16 (TIMSK shared with the firmware's timers) and the ATmega328P
 * (TIMSK1 and TIFR1 in their own registers). */
static void test_wide_cycle_counter(void **state)
{
	check(*state, FUNCSHEAP, "sel=cycles:24,ra=8,width=32");
	check(*state, FUNCSHEAP, "sel=cycles:32,ra=0,width=32");
	check(*state, FUNCSHEAP, "sel=cycles:20+SREG+r24,hash=knuth,ra=6,width=32");
	check(*state, RACE_TICK, "sel=cycles:32,ra=8,width=40");
}

static void test_another_mcu(void **state)
{
	check(*state, RACE_TICK, FP_DEFAULT_SPEC);
	check(*state, RACE_TICK, "sel=SPL+SPH+SREG+r24+r25,hash=knuth,ra=8,width=24");
}

/* The software instruction counter on the chip: every counted transfer of
 * the firmware and of avr-libc's and libgcc's code (malloc, the startup
 * loops), so the counter equals the recorder's at every interrupt.  On
 * the ATmega16, also with two tasks that switch stacks and start through a
 * function pointer (gs(), moved by the rewrite); alone and beside a cycle counter on the ATmega328P; on the
 * ATtiny85 (no JMP: RJMP only, 2-byte vectors); on the ATmega2560 (a
 * 3-byte PC). */
static void test_software_instruction_counter(void **state)
{
	check(*state, FUNCSHEAP, "sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32");
	check(*state, FUNCSHEAP, "sel=sic:24,ra=8,width=32");
	check(*state, ADCAPP_TASKS, "sel=SPL+SPH+SREG+sic:16,hash=knuth,ra=8,width=32");
	check(*state, RACE_TICK, "sel=SPL+SPH+SREG+r24+sic:10,hash=knuth,ra=6,width=24");
	check(*state, RACE_TICK, "sel=cycles:8+sic:8+SREG+r24,hash=twomod,ra=4,width=28");
	check(*state, ATTINY85, "sel=SPL+SREG+r24+sic:12,hash=modular,ra=8,width=28");
	check(*state, ATMEGA2560, "sel=SPL+SPH+SREG+r24+sic:32,hash=jenkins,ra=8,width=48");
}

static void test_what_a_device_cannot_record(void **state)
{
	scratch *s = *state;
	static const struct { const char *spec, *msg; } cases[] = {
		{ "sel=all", "a device cannot gather `all`" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer traces/funcsheap.elf "
					  "--fp '%s' -o %s/t.h", test_avrr(), cases[i].spec, s->dir), 2);
		if (!strstr(s->out, cases[i].msg))
			fail_msg("%s: %s", cases[i].spec, s->out);
	}
	/* ATtiny85 has no 16-bit Timer1 for cycles:K. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer tests/firmware/attiny85.elf "
				  "-o %s/t.h", test_avrr(), s->dir), 2);
	assert_non_null(strstr(s->out, "cycles:K needs a 16-bit Timer1"));
	/* cycles:K (the default) needs Timer1 free-running at clk/1: a firmware
	 * that writes its control or count registers is refused, at the first
	 * such write.  adcapp's OUT to TCCR1B (I/O 0x2e on the ATmega16, data
	 * 0x4e) and the Arduino core's init(), which sets TCCR1B for PWM
	 * through Z (ldi r30, 0x81; st Z, r1 on the ATmega328P): their
	 * addresses are what avr-objdump shows for the first such store. */
	static const struct { const char *elf, *reg, *objdump; } timer1[] = {
		{ "traces/adcapp.elf", "TCCR1B", "grep -m1 -E '^ *[0-9a-f]+:.*\tout\t0x2[c-f],'" },
		{ "tests/firmware/arduino/millis_blink.elf", "TCCR1B",
		  "grep -m1 -A2 -E '\tldi\tr30, 0x81' | grep -m1 -E '\tst\tZ, '" },
	};
	for (size_t i = 0; i < sizeof timer1 / sizeof *timer1; i++) {
		unsigned long want;
		assert_int_equal(test_run(s->out, sizeof s->out, "avr-objdump -d %s | %s",
					  timer1[i].elf, timer1[i].objdump), 0);
		assert_int_equal(sscanf(s->out, " %lx:", &want), 1);
		char line[512];
		snprintf(line, sizeof line, "avrr tracer: %s: writes %s at 0x%05lx, but "
			 "default:sel=cycles:32,ra=0,width=32 counts cycles with Timer1, which must "
			 "be the tracer's: give --fp a spec without cycles:K, such as "
			 "'sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32' (docs/device.md)\n",
			 timer1[i].elf, timer1[i].reg, want);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer %s -o %s/t.h",
					  test_avrr(), timer1[i].elf, s->dir), 2);
		assert_string_equal(s->out, line);
	}
	/* Nothing was left behind, not even the hidden temporary. */
	assert_int_equal(test_run(s->out, sizeof s->out, "ls -A '%s'", s->dir), 0);
	assert_string_equal(s->out, "");
	/* The rewrite needs the link's relocations and the tracer's counter. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s instrument traces/funcsheap.elf "
				  "-o %s/x.elf", test_avrr(), s->dir), 2);
	assert_string_equal(s->out, "avrr instrument: traces/funcsheap.elf: no relocations: link "
			    "with -Wl,--emit-relocs\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL -Os "
				  "-Wl,--emit-relocs -o %s/plain.elf traces/funcsheap_noloop.c "
				  "-I/usr/include/simavr && %s instrument %s/plain.elf -o %s/x.elf",
				  s->dir, test_avrr(), s->dir, s->dir), 2);
	assert_non_null(strstr(s->out, "plain.elf: no avrr_sic nor avrr_log_read: build it with "
			       "the tracer of a sic:K configuration or with the device log "
			       "(avrr tracer --log)"));
	/* funcsheap_big's 14 KB of code, rewritten, outgrows the ATmega16. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer tests/firmware/funcsheap_big.elf "
				  "--fp 'sel=SREG+r24+sic:16,hash=jenkins,ra=8,width=32' -o %s/t.h && "
				  "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL -Os -I/usr/include/simavr "
				  "-Wl,--emit-relocs -include %s/t.h -o %s/big.elf "
				  "tests/firmware/funcsheap_big.c && %s instrument %s/big.elf -o %s/x.elf",
				  test_avrr(), s->dir, s->dir, s->dir, test_avrr(), s->dir, s->dir), 2);
	assert_non_null(strstr(s->out, "big.elf: instrumented, it takes "));
	assert_non_null(strstr(s->out, " bytes of flash: more than the MCU's 16384\n"));
	assert_int_equal(test_run(s->out, sizeof s->out, "rm %s/big.elf %s/t.h", s->dir, s->dir), 0);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s instrument README.md -o %s/x.elf",
				  test_avrr(), s->dir), 2);
	assert_string_equal(s->out, "avrr instrument: README.md: not an ELF file\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "rm %s/plain.elf && ls -A '%s'", s->dir,
				  s->dir), 0);
	assert_string_equal(s->out, "");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer traces/funcsheap.elf --slots 0 "
				  "-o %s/t.h", test_avrr(), s->dir), 2);
	assert_string_equal(s->out, "avrr tracer: --slots: 0; give 1..1024\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer traces/funcsheap.elf "
				  "-o /nonexistent/t.h", test_avrr()), 2);
	assert_string_equal(s->out, "avrr tracer: /nonexistent/t.h: No such file or directory\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_configuration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_hash_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wide_hash_with_stack_and_counter, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wide_cycle_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_another_mcu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_software_instruction_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_what_a_device_cannot_record, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
