/*
 * test_device.c — the device loop end to end (docs/device.md): `avrr
 * tracer --log` + avr-gcc + `avrr stamp` → `avrr device` (the stand-in
 * chip) → `avrr import` → `avrr replay`, and the import's refusals: a
 * flipped byte, a truncated dump, a dump of another ELF, an unstamped
 * firmware, and lost items (a deliberately small block at a slow baud).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "tests/testlib.h"

#define AB "tests/firmware/arduino_blink"
#define AVR_FLAGS "-Os -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000"

/* Builds the Arduino-style firmware with the log through avrr_log_sink
 * (to GPIOR0) and a block of `ring` bytes, stamped, as DIR/NAME.elf. */
static void build_blink(test_scratch *s, const char *name, unsigned ring)
{
	const char *a = test_avrr();
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer " AB ".elf --log func --ring %u -o %s/%s.h && "
			  "avr-gcc -mmcu=atmega328p -DF_CPU=16000000UL " AVR_FLAGS
			  " -include %s/%s.h -include tests/firmware/log_sink.h -o %s/%s.elf " AB ".c",
			  a, ring, s->dir, name, s->dir, name, s->dir, name);
	if (rc)
		fail_msg("build %s: %s", name, s->out);
}

static void stamp(test_scratch *s, const char *name)
{
	if (test_run(s->out, sizeof s->out, "%s stamp %s/%s.elf", test_avrr(), s->dir, name))
		fail_msg("stamp: %s", s->out);
}

/* The stand-in chip for 3 M instructions: DIR/NAME.log, .uart, .state. */
static void device(test_scratch *s, const char *name)
{
	int rc = test_run(s->out, sizeof s->out,
			  "%s device %s/%s.elf --log-reg GPIOR0 --log-out %s/%s.log "
			  "--uart-out %s/%s.uart --state-out %s/%s.state --instructions 3000000",
			  test_avrr(), s->dir, name, s->dir, name, s->dir, name, s->dir, name);
	if (rc)
		fail_msg("device: %s", s->out);
}

static int same_files(const char *a, const char *b)
{
	char out[256];
	return test_run(out, sizeof out, "cmp '%s' '%s'", a, b) == 0;
}

/* `avrr replay ARGS...` (a printf format) re-creates all irqs of the
 * device's interrupts and feeds all its reads, or the test fails. */
static void replay_matches(test_scratch *s, unsigned irqs, unsigned reads, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void replay_matches(test_scratch *s, unsigned irqs, unsigned reads, const char *fmt, ...)
{
	char args[1024], want[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int rc = test_run(s->out, sizeof s->out, "%s replay %s", test_avrr(), args);
	snprintf(want, sizeof want, "%u of %u device interrupts re-created, %u of %u input reads "
		 "fed: every item of the log matched\n", irqs, irqs, reads, reads);
	if (rc || !strstr(s->out, want))
		fail_msg("replay %s: exit %d, %s", args, rc, s->out);
}

static void test_blink_end_to_end(void **state)
{
	test_scratch *s = *state;
	build_blink(s, "ab", 64);
	stamp(s, "ab");
	device(s, "ab");
	const char *a = test_avrr();
	if (test_run(s->out, sizeof s->out, "%s import %s/ab.log --elf %s/ab.elf -o %s/ab.db "
		     "--log-reg GPIOR0", a, s->dir, s->dir, s->dir))
		fail_msg("import: %s", s->out);
	unsigned blocks, irqs, all, ovf;
	assert_int_equal(sscanf(strstr(s->out, ".log: ") + 6, "%u blocks, %u interrupts", &blocks,
				&irqs), 2);
	/* The bytes by kind add up to the dump: a header of 4 + 1 + 1 + 10
	 * ("atmega328p") + 2 + 35 ("default:sel=cycles:32,ra=0,width=32") +
	 * 1 + 1 + 1 + 32 + 2 = 90 bytes, 5 a block (marker, sequence, length,
	 * CRC), and no reads or losses in this firmware */
	unsigned long total, hb, bb, ib, rb, lb;
	assert_non_null(strstr(s->out, "import: "));
	assert_int_equal(sscanf(strstr(s->out, "input reads -> ") + 15, "%*s\nimport: %lu bytes: "
				"header %lu, block heads and CRCs %lu, interrupts %lu, reads %lu, "
				"losses %lu", &total, &hb, &bb, &ib, &rb, &lb), 6);
	assert_int_equal(hb, 90);
	assert_int_equal(bb, 5ul * blocks);
	assert_int_equal(rb, 0);
	assert_int_equal(lb, 0);
	assert_int_equal(hb + bb + ib, total);
	char lp[256];
	snprintf(lp, sizeof lp, "%s/ab.log", s->dir);
	FILE *lf = fopen(lp, "rb");
	assert_non_null(lf);
	fseek(lf, 0, SEEK_END);
	assert_int_equal(ftell(lf), (long)total);
	fclose(lf);
	/* each interrupt: its vector, then a difference of cycles in LEB128 */
	assert_true(ib >= 2ul * irqs && ib <= 6ul * irqs);
	/* the positions: every interrupt the replay entered, the device's and
	 * the tracer's own Timer1 overflows */
	assert_int_equal(sscanf(strstr(s->out, "instructions, ") + 14, "%u interrupts (%u of them",
				&all, &ovf), 2);
	assert_int_equal(all, irqs + ovf);
	/* 3 M instructions at ~1.3 cycles each at 16 MHz is ~245 ms: Timer0
	 * overflows every 1.024 ms, Timer2 ticks every 1 ms, the UART sends
	 * a few bytes every 20 ms — more than 400 interrupts. */
	assert_true(irqs > 400);
	replay_matches(s, irqs, 0, "%s/ab.db --log-reg GPIOR0 --uart-out %s/r.uart --log-out "
		       "%s/r.log --state-out %s/r.state", s->dir, s->dir, s->dir, s->dir);
	char p1[256], p2[256];
	const char *ext[] = { "uart", "log", "state" };
	for (int i = 0; i < 3; i++) {
		snprintf(p1, sizeof p1, "%s/ab.%s", s->dir, ext[i]);
		snprintf(p2, sizeof p2, "%s/r.%s", s->dir, ext[i]);
		if (!same_files(p1, p2))
			fail_msg("the replay's %s differs from the device's", ext[i]);
	}
	/* The firmware printed millis() every 20 ms: some output to compare. */
	FILE *f = fopen(p1, "r");
	(void)f;
	if (f)
		fclose(f);
	snprintf(p1, sizeof p1, "%s/ab.uart", s->dir);
	f = fopen(p1, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	assert_true(ftell(f) > 20);
	fclose(f);
	/* No ground truth, no stimuli. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s info --json %s/ab.db", a, s->dir), 0);
	json_t *j = json_loads(s->out, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "stimuli")));
	assert_true(json_is_false(json_object_get(j, "ground_truth")));
	assert_string_equal(test_json_str(j, "interrupt_rule"), "device-log");
	assert_int_equal(test_json_int(j, "interrupts"), all);
	json_decref(j);
	/* The tracer flushes a block from inside the interrupt that filled
	 * it, interrupts on, where the same vector may come again: a
	 * recording of it replays (the log's order allows an ISR nested in
	 * itself), as the import's positions need. */
	if (test_run(s->out, sizeof s->out, "%s record %s/ab.elf --instructions 3000000 -o "
		     "%s/rec.db && %s replay %s/rec.db", a, s->dir, s->dir, a, s->dir))
		fail_msg("record and replay: %s", s->out);
	assert_non_null(strstr(s->out, "diverged             no\n"));
}

/* ---- the import debugged as any recording -------------------------------- */

/* The number after the n-th (0-based) occurrence of key in text. */
static unsigned long long num_after(const char *text, const char *key, int n)
{
	const char *p = text;
	for (int i = 0; i <= n; i++) {
		p = strstr(p, key);
		if (!p)
			fail_msg("no %d-th '%s' in:\n%s", n, key, text);
		p += strlen(key);
	}
	return strtoull(p, NULL, 0);
}

/* Register `name` in the n-th `info registers` of the shell's output. */
static unsigned long long reg_in(const char *text, const char *name, int n)
{
	char key[16];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *p = text;
	for (int i = 0; i <= n; i++) {
		p = strstr(p, key);
		if (!p)
			fail_msg("no %d-th register %s in:\n%s", n, name, text);
		p += strlen(key);
	}
	return strtoull(p + strspn(p, " "), NULL, 16);
}

/* The n-th (0-based) interrupt's icount in the import, from its events. */
static long long irq_icount(test_scratch *s, const char *db, const char *where, int n)
{
	char path[256], q[256];
	snprintf(path, sizeof path, "%s/%s", s->dir, db);
	snprintf(q, sizeof q, "SELECT icount FROM events WHERE type = 2%s ORDER BY seq LIMIT 1 "
		 "OFFSET %d", where, n);
	return test_sql_int(path, q);
}

/* `avrr shell DIR/P.db` on the import of DIR/P.log: `goto irq 3` lands at
 * the third interrupt's stored icount, stepi and reverse-stepi come back
 * to the same registers, and at the end the registers are those the
 * device ended with (DIR/P.state, `avrr device --state-out`). */
static void shell_on_import(test_scratch *s, const char *p)
{
	char db[64], path[256];
	snprintf(db, sizeof db, "%s.db", p);
	long long third = irq_icount(s, db, "", 2);
	snprintf(path, sizeof path, "%s/sh.cmds", s->dir);
	test_write_text(path, "goto irq 3\ninfo registers\nstepi\nreverse-stepi\ninfo registers\n"
			"continue\ninfo registers\n");
	if (test_run(s->out, sizeof s->out, "%s shell %s/%s -x %s", test_avrr(), s->dir, db, path))
		fail_msg("shell: %s", s->out);
	assert_int_equal(num_after(s->out, "icount=", 0), third);
	assert_int_equal(num_after(s->out, "icount=", 1), third + 1);
	assert_int_equal(num_after(s->out, "icount=", 2), third);
	static const char *const names[] = { "SREG", "SP", "PC" };
	char r[16];
	for (int i = 0; i < 35; i++) {
		const char *n = i < 32 ? (snprintf(r, sizeof r, "r%d", i), r) : names[i - 32];
		assert_int_equal(reg_in(s->out, n, 0), reg_in(s->out, n, 1));
	}
	/* the end: where the device stopped, with its registers */
	assert_non_null(strstr(s->out, "End of recording.\n"));
	char shell[sizeof s->out];
	snprintf(shell, sizeof shell, "%s", s->out);
	snprintf(path, sizeof path, "%s/%s.state", s->dir, p);
	size_t len;
	char *st = test_slurp(path, &len);
	assert_non_null(st);
	assert_int_equal(reg_in(shell, "PC", 2), num_after(st, "pc ", 0));
	assert_int_equal(reg_in(shell, "SP", 2), num_after(st, "sp ", 0));
	assert_int_equal(reg_in(shell, "SREG", 2), num_after(st, "sreg ", 0));
	const char *regs = strstr(st, "regs");
	assert_non_null(regs);
	regs += 4;
	for (int i = 0; i < 32; i++) {
		char *end;
		unsigned long v = strtoul(regs, &end, 16);
		regs = end;
		snprintf(r, sizeof r, "r%d", i);
		assert_int_equal(reg_in(shell, r, 2), v);
	}
	free(st);
}

/* `avrr analyze DIR/P.db A` for races and profile, against a recording of
 * the same firmware and stimuli as long as the device ran (the device is
 * the simulator, so the runs are the same): equal, but where the
 * recording knows when an external interrupt's flag rose (latency) and
 * the import cannot (`-`): `no_latency` names that vector's line. */
static void analyses_on_import(test_scratch *s, const char *p, const char *stim,
			       unsigned long long instructions, const char *no_latency)
{
	const char *a = test_avrr();
	if (test_run(s->out, sizeof s->out, "%s record %s/%s.elf --stimuli %s --instructions %llu "
		     "-o %s/%s-rec.db", a, s->dir, p, stim, instructions, s->dir, p))
		fail_msg("record: %s", s->out);
	static const char *const what[] = { "races", "profile" };
	for (int i = 0; i < 2; i++) {
		char imp[16384];
		if (test_run(imp, sizeof imp, "%s analyze %s/%s.db %s", a, s->dir, p, what[i]))
			fail_msg("analyze %s: %s", what[i], imp);
		if (test_run(s->out, sizeof s->out, "%s analyze %s/%s-rec.db %s", a, s->dir, p,
			     what[i]))
			fail_msg("analyze the recording: %s", s->out);
		if (i == 1 && no_latency) {
			/* the latency column of that vector: "min/med/max" -> "-" */
			char key[64];
			snprintf(key, sizeof key, " %s ", no_latency);   /* not avrr_body_... */
			char *line = strstr(s->out, key);
			assert_non_null(line);
			char *lat = line + 1;
			for (int f = 0; f < 4; f++) {   /* name, count, self, total */
				lat += strcspn(lat, " ");
				lat += strspn(lat, " ");
			}
			size_t w = strcspn(lat, " ");
			assert_true(w > 1 && memchr(lat, '/', w));
			lat[0] = '-';
			memset(lat + 1, ' ', w - 1);
		}
		if (strcmp(imp, s->out))
			fail_msg("analyze %s: the import's\n%s\nthe recording's\n%s", what[i], imp,
				 s->out);
	}
	assert_int_equal(strncmp(s->out, "cycles ", 7), 0);   /* a profile, not an error */
}

/* Runs `avrr gdb DIR/DB -batch` with these commands (one line each). */
static void gdb_on_import(test_scratch *s, const char *db, const char *cmds)
{
	char path[256];
	snprintf(path, sizeof path, "%s/cmds.gdb", s->dir);
	test_write_text(path, cmds);
	if (test_run(s->out, sizeof s->out, "%s gdb %s/%s -batch -x %s", test_avrr(), s->dir, db,
		     path))
		fail_msg("gdb: %s", s->out);
}

/* The byte offset (1-based, for SQL's substr) in the first event chunk
 * of the value of the first input read whose value fits one LEB128 byte
 * (docs/schema.md: each event is a head, dicount, dextra and pc, and a
 * read adds its addr and value); *nth its number among the reads. */
static size_t first_small_read(const unsigned char *b, size_t n, int *nth, unsigned *value)
{
	size_t p = 0;
	int reads = 0;
	while (p < n) {
		unsigned long long v[6] = { 0 };
		size_t at[6] = { 0 };
		int nf = 4;
		for (int f = 0; f < nf; f++) {
			at[f] = p;
			for (int sh = 0; p < n; sh += 7) {
				v[f] |= (unsigned long long)(b[p] & 0x7f) << sh;
				if (!(b[p++] & 0x80))
					break;
			}
			if (f == 0 && ((v[0] & 7) == 4 || (v[0] & 7) == 5))
				nf = 6;
		}
		if ((v[0] & 7) == 4) {
			reads++;
			if (p - at[5] == 1 && v[5] < 0x7f) {
				*nth = reads;
				*value = (unsigned)v[5];
				return at[5] + 1;
			}
		}
	}
	fail_msg("no read with a one-byte value in the first chunk");
	return 0;
}

/* An import whose event log was changed after import (one read value
 * changed with sqlite3): the shell stops at that read, naming the
 * device's read and where its log has it; `avrr replay` refuses the log
 * from that read on.  The same for a fingerprint changed. */
static void damaged_import(test_scratch *s, const char *p)
{
	char db[256], bad[256];
	snprintf(db, sizeof db, "%s/%s.db", s->dir, p);
	snprintf(bad, sizeof bad, "%s/%s-bad.db", s->dir, p);
	if (test_run(s->out, sizeof s->out, "cp %s %s && sqlite3 %s 'SELECT hex(substr(data, 1, "
		     "4000)) FROM event_chunks ORDER BY first LIMIT 1'", db, bad, bad))
		fail_msg("sqlite3: %s", s->out);
	static unsigned char b[4000];
	size_t n = strspn(s->out, "0123456789ABCDEF") / 2;
	for (size_t i = 0; i < n; i++)
		sscanf(s->out + 2 * i, "%2hhx", &b[i]);
	int nth = 0;
	unsigned value = 0;
	size_t at = first_small_read(b, n, &nth, &value);
	char want[256];
	if (test_run(s->out, sizeof s->out, "sqlite3 %s \"UPDATE event_chunks SET data = "
		     "CAST(substr(data, 1, %zu) || X'%02X' || substr(data, %zu) AS BLOB) WHERE "
		     "first = (SELECT min(first) FROM event_chunks)\"", bad, at - 1, value ^ 1, at + 1))
		fail_msg("sqlite3: %s", s->out);
	char q[160];
	snprintf(q, sizeof q, "SELECT icount FROM events WHERE type = 4 LIMIT 1 OFFSET %d", nth - 1);
	long long icount = test_sql_int(bad, q);
	snprintf(q, sizeof q, "SELECT value FROM events WHERE type = 4 LIMIT 1 OFFSET %d", nth - 1);
	assert_int_equal(test_sql_int(bad, q), value ^ 1);
	/* the shell: stopped at that read, the device's value named */
	if (test_run(s->out, sizeof s->out, "echo continue | %s shell %s", test_avrr(), bad))
		fail_msg("shell: %s", s->out);
	snprintf(want, sizeof want, " = 0x%02x: the device's input read %d (byte ", value, nth);
	if (!strstr(s->out, "The replay diverged: expected read ") || !strstr(s->out, want))
		fail_msg("shell: want '%s' in\n%s", want, s->out);
	snprintf(want, sizeof want, "got 0x%02x, from the recording's event log", value ^ 1);
	if (!strstr(s->out, want))
		fail_msg("shell: want '%s' in\n%s", want, s->out);
	assert_int_equal(num_after(s->out, "\nicount=", 0), icount + 1);
	/* avrr replay */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay %s", test_avrr(), bad), 1);
	snprintf(want, sizeof want, "replay: diverged: the recording's event log is not the "
		 "device's log it keeps, from its input read %d (byte ", nth);
	if (!strstr(s->out, want))
		fail_msg("replay: want '%s' in\n%s", want, s->out);
	/* The third interrupt's fingerprint changed (its first byte's low
	 * bit; the chunk holds ra_part then hash_part, fixed widths): it
	 * never matches, and the shell stops where it was due. */
	if (test_run(s->out, sizeof s->out, "cp %s %s && sqlite3 %s 'SELECT ra_size + hash_size, "
		     "hex(substr(data, 2 * (ra_size + hash_size) + 1, 1)) FROM fingerprint_chunks "
		     "WHERE first = 1'", db, bad, bad))
		fail_msg("sqlite3: %s", s->out);
	unsigned width, byte;
	assert_int_equal(sscanf(s->out, "%u|%x", &width, &byte), 2);
	if (test_run(s->out, sizeof s->out, "sqlite3 %s \"UPDATE fingerprint_chunks SET data = "
		     "CAST(substr(data, 1, %u) || X'%02X' || substr(data, %u) AS BLOB) WHERE first = "
		     "1\"", bad, 2 * width, byte ^ 1, 2 * width + 2))
		fail_msg("sqlite3: %s", s->out);
	if (test_run(s->out, sizeof s->out, "printf 'continue\\ninfo divergence\\n' | %s shell %s",
		     test_avrr(), bad))
		fail_msg("shell: %s", s->out);
	long long third = irq_icount(s, db + strlen(s->dir) + 1, "", 2);
	snprintf(want, sizeof want, ") at icount %lld\n  actual    no match of its fingerprint "
		 "there (icount %lld passed)\n", third, third);
	if (!strstr(s->out, "  expected  interrupt 3 (irq vector ") || !strstr(s->out, want))
		fail_msg("shell: want '%s' in\n%s", want, s->out);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s replay %s", test_avrr(), bad), 1);
	if (!strstr(s->out, "replay: diverged: the recording's event log is not the device's log "
		    "it keeps, from its interrupt 3 (byte "))
		fail_msg("replay: %s", s->out);
}

/* Writes DIR/NAME.log changed: byte `at` xor 0x01, or cut to `len` bytes. */
static void damage(test_scratch *s, const char *to, long at, long len)
{
	char p[256];
	snprintf(p, sizeof p, "%s/ab.log", s->dir);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	static unsigned char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	assert_true(n > 200);
	if (at >= 0)
		buf[at] ^= 1;
	if (len >= 0)
		n = (size_t)len;
	snprintf(p, sizeof p, "%s/%s", s->dir, to);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
}

static void expect_refusal(test_scratch *s, const char *dump, const char *elf, const char *line)
{
	int rc = test_run(s->out, sizeof s->out, "%s import %s/%s --elf %s/%s -o %s/bad.db",
			  test_avrr(), s->dir, dump, s->dir, elf, s->dir);
	if (rc != 2 || !strstr(s->out, line))
		fail_msg("import %s: exit %d, '%s'; want 2 and '%s'", dump, rc, s->out, line);
	/* one line, and no recording left behind */
	assert_int_equal(strchr(s->out, '\n') - s->out, (long)strlen(s->out) - 1);
	char p[256];
	snprintf(p, sizeof p, "%s/bad.db", s->dir);
	FILE *f = fopen(p, "r");
	assert_null(f);
}

static void test_damaged_dumps(void **state)
{
	test_scratch *s = *state;
	build_blink(s, "ab", 64);
	stamp(s, "ab");
	device(s, "ab");
	/* The header of this build: "AVRL", 2, 10 "atmega328p", 2 bytes of
	 * length, the spec, 4, 32, 1, 32 + 2: 90 bytes; the first block starts
	 * after it, so byte 300 is in a block and 290 cuts one. */
	damage(s, "flip.log", 300, -1);
	expect_refusal(s, "flip.log", "ab.elf", "CRC does not match: damaged");
	damage(s, "head.log", 20, -1);
	expect_refusal(s, "head.log", "ab.elf", "byte ");
	damage(s, "cut.log", -1, 290);
	expect_refusal(s, "cut.log", "ab.elf", "truncated");
	/* Another ELF: the same firmware with another block size. */
	build_blink(s, "other", 32);
	stamp(s, "other");
	expect_refusal(s, "ab.log", "other.elf", "the log is of another firmware");
	/* Not stamped: the header's hash is zero. */
	build_blink(s, "raw", 64);
	device(s, "raw");
	expect_refusal(s, "raw.log", "raw.elf", "not stamped");
}

/* A block of 16 bytes sent at 9600 baud (~1 ms a byte) while funcsheap's
 * interrupts come about every 0.5 ms: the block fills while the one
 * before goes out, and items are lost. */
static void test_loss_reported(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer traces/funcsheap.elf --fp 'sel=SPL+SPH+SREG+r24,ra=8,width=24' "
			  "--log uart --baud 9600 --ring 16 -o %s/fl.h && "
			  "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL " AVR_FLAGS
			  " -include %s/fl.h -o %s/fl.elf traces/funcsheap.c && "
			  "%s stamp %s/fl.elf && %s device %s/fl.elf --stimuli traces/funcsheap.stim "
			  "--log-out %s/fl.log --instructions 2000000",
			  a, s->dir, s->dir, s->dir, a, s->dir, a, s->dir, s->dir);
	if (rc)
		fail_msg("build and run: %s", s->out);
	rc = test_run(s->out, sizeof s->out, "%s import %s/fl.log --elf %s/fl.elf -o %s/fl.db",
		      a, s->dir, s->dir, s->dir);
	if (rc != 2 || !strstr(s->out, "the device lost") || !strstr(s->out, "--allow-gaps"))
		fail_msg("import with a loss: exit %d, %s", rc, s->out);
	rc = test_run(s->out, sizeof s->out, "%s import %s/fl.log --elf %s/fl.elf -o %s/fl.db "
		      "--allow-gaps", a, s->dir, s->dir, s->dir);
	if (rc || !strstr(s->out, "imported up to byte"))
		fail_msg("import --allow-gaps: exit %d, %s", rc, s->out);
}

/* A bundled firmware with its input reads logged (avrr instrument after
 * the tracer, the default fingerprint: cycles:32, no return-address bits,
 * the tracer counting Timer1's overflows in its own handler), through the
 * function sink: the ADC's IN ADCL/ADCH and SBIS PINB (funcsheap's mode
 * jumper) are logged, the replay feeds them, re-creates every interrupt
 * and lets the tracer's overflow handler run as Timer1 overflows, and its
 * log bytes and final registers and SRAM are the device's. */
static void bundled_end_to_end(test_scratch *s, const char *fw, const char *tracer_args,
			       const char *sites, int debug)
{
	const char *a = test_avrr();
	int uart = strstr(tracer_args, "--log uart") != NULL;
	const char *reg = uart ? "UDR" : "TWAR";
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer traces/%s.elf %s%s -o %s/f.h && "
			  "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL " AVR_FLAGS " -Wl,--emit-relocs"
			  " -include %s/f.h %s -o %s/f0.elf "
			  "traces/%s.c && %s instrument %s/f0.elf -o %s/f.elf",
			  a, fw, uart ? "" : "--log func ", tracer_args, s->dir, s->dir,
			  uart ? "" : "-include tests/firmware/log_sink.h", s->dir, fw, a, s->dir,
			  s->dir);
	if (rc || !strstr(s->out, sites))
		fail_msg("build and instrument %s: %s", fw, s->out);
	rc = test_run(s->out, sizeof s->out,
		      "%s stamp %s/f.elf && %s device %s/f.elf --stimuli traces/%s.stim "
		      "--log-reg %s --log-out %s/f.log --uart-out %s/f.uart --state-out "
		      "%s/f.state --instructions 2000000 && "
		      "%s import %s/f.log --elf %s/f.elf -o %s/f.db --log-reg %s",
		      a, s->dir, a, s->dir, fw, reg, s->dir, s->dir, s->dir, a, s->dir, s->dir,
		      s->dir, reg);
	if (rc)
		fail_msg("device and import %s: %s", fw, s->out);
	unsigned long long cycles, instructions;
	assert_non_null(strstr(s->out, "device: "));
	assert_int_equal(sscanf(strstr(s->out, "device: ") + 8, "%llu instructions, %llu cycles",
				&instructions, &cycles), 2);
	unsigned blocks, irqs, reads;
	assert_int_equal(sscanf(strstr(s->out, ".log: ") + 6, "%u blocks, %u interrupts, %u input",
				&blocks, &irqs, &reads), 3);
	/* ~2 M instructions at 8 MHz, over 0.25 s: Timer0's 488 Hz (funcsheap)
	 * or the 1 kHz Timer1 tick (adcapp) alone gives more than 120
	 * interrupts, and each ADC conversion is read in two INs */
	assert_true(irqs > 120);
	assert_true(reads > 100);
	replay_matches(s, irqs, reads, "%s/f.db --log-reg %s --uart-out %s/r.uart --log-out "
		       "%s/r.log --state-out %s/r.state", s->dir, reg, s->dir, s->dir, s->dir);
	/* The default's cycles:32: Timer1 runs at clk/1 from the tracer's
	 * .init0 (cycle 6: the reset JMP's 3, LDI 1, STS 2) and overflows
	 * every 65,536 cycles.  Each overflow is counted in avrr_trace_ovf
	 * (2 bytes), by the tracer's own handler — in no log, entered in the
	 * replay as on the device — or, while a block is sent with interrupts
	 * off, by the sending itself: the device's final count is every
	 * overflow (if the run did not end within a byte's sending of one),
	 * and the replay entered the handler for at most that many. */
	if (!strstr(tracer_args, "--fp")) {
		unsigned long long ovf = (cycles - 6) / 65536;
		assert_true((cycles - 6) % 65536 > 1000);
		char nm[256];
		assert_int_equal(test_run(nm, sizeof nm, "avr-nm %s/f.elf | grep ' avrr_trace_ovf$'",
					  s->dir), 0);
		unsigned long at;
		assert_int_equal(sscanf(nm, "%lx", &at), 1);
		at &= 0xffff;
		char sp[256];
		snprintf(sp, sizeof sp, "%s/f.state", s->dir);
		FILE *f = fopen(sp, "r");
		assert_non_null(f);
		char line[256];
		unsigned long count = 0, found = 0;
		while (fgets(line, sizeof line, f)) {
			unsigned long base;
			int used;
			if (sscanf(line, "sram 0x%lx%n", &base, &used) != 1)
				continue;
			const char *q = line + used;
			for (unsigned long ad = base; *q == ' '; ad++, q += 3) {
				unsigned long b = strtoul(q, NULL, 16);
				if (ad == at || ad == at + 1) {
					count |= b << (8 * (ad - at));
					found++;
				}
			}
		}
		fclose(f);
		assert_int_equal(found, 2);
		assert_int_equal(count, ovf);
		unsigned long long entered;
		const char *e = strstr(s->out, "the tracer's own Timer1 overflow handler entered ");
		assert_non_null(e);
		assert_int_equal(sscanf(e, "the tracer's own Timer1 overflow handler entered %llu",
					&entered), 1);
		assert_true(entered <= ovf);
	}
	char p1[256], p2[256];
	const char *ext[] = { "uart", "log", "state" };
	for (int i = 0; i < 3; i++) {
		snprintf(p1, sizeof p1, "%s/f.%s", s->dir, ext[i]);
		snprintf(p2, sizeof p2, "%s/r.%s", s->dir, ext[i]);
		if (!same_files(p1, p2))
			fail_msg("%s: the replay's %s differs from the device's", fw, ext[i]);
	}
	if (!debug)
		return;
	shell_on_import(s, "f");
	/* gdb: the second INT0 (break in its handler, one instruction after
	 * the vector table's jump), g_presses 1 there; back to its write in
	 * the first INT0's handler, between that entry and its RETI */
	gdb_on_import(s, "f.db", "break __vector_1\ncontinue\ncontinue\nmonitor when\n"
		      "print (unsigned char)g_presses\nwatch *(unsigned char *)&g_presses\n"
		      "reverse-continue\nmonitor when\n");
	assert_int_equal(num_after(s->out, "icount=", 0), irq_icount(s, "f.db", " AND ctx = 1", 1) + 1);
	assert_non_null(strstr(s->out, "$1 = 1 '\\001'\n"));
	assert_non_null(strstr(s->out, "Old value = 1 '\\001'\nNew value = 0 '\\000'\n"));
	char db[256];
	snprintf(db, sizeof db, "%s/f.db", s->dir);
	unsigned long long back = num_after(s->out, "icount=", 1);
	assert_true((long long)back > irq_icount(s, "f.db", " AND ctx = 1", 0));
	assert_true((long long)back < test_sql_int(db, "SELECT icount FROM events WHERE type = 3 "
						   "AND ctx = 1 LIMIT 1"));
	analyses_on_import(s, "f", "traces/funcsheap.stim", instructions, "INT0_vect");
	damaged_import(s, "f");
}

static void test_funcsheap_end_to_end(void **state)
{
	bundled_end_to_end(*state, "funcsheap", "--ring 255", "input reads logged: 3", 1);
}

/* The UART sink, the tracer setting the USART up (funcsheap does not use
 * it): blocking on UDRE at 500 kbaud (UBRR 0 at 8 MHz), fast enough for
 * 128-byte blocks not to lose items. */
static void test_funcsheap_uart_end_to_end(void **state)
{
	bundled_end_to_end(*state, "funcsheap", "--log uart --baud 500000 --ring 128",
			   "input reads logged: 3", 0);
}

/* At 115,200 baud (UBRR 3 at 8 MHz: 125,000 in fact, 8.5 % fast), with
 * 128-byte blocks: the default spec's log of funcsheap, ~10.2 KB/s,
 * fits (results/device_log.md): nothing is lost, and the replay is exact.
 * A 255-byte block takes 22 ms to send, and Timer2's 1 kHz tick always
 * comes into one: no block would end with the buffer empty, where the
 * device's run may stop.  (Under simavr 1.6's timers it did: the tracer's
 * TIFR write to clear TOV1 cleared Timer0's and Timer2's flags too.) */
static void test_funcsheap_uart_115200(void **state)
{
	bundled_end_to_end(*state, "funcsheap", "--log uart --baud 115200 --ring 128",
			   "input reads logged: 3", 0);
}

/* funcsheap_noloop's, ~11 KB/s, fits too (4 % to spare). */
static void test_funcsheap_noloop_uart_115200(void **state)
{
	bundled_end_to_end(*state, "funcsheap_noloop", "--log uart --baud 115200 --ring 255",
			   "input reads logged: 3", 0);
}

static void test_funcsheap_noloop_end_to_end(void **state)
{
	bundled_end_to_end(*state, "funcsheap_noloop", "--ring 255", "input reads logged: 3", 0);
}

/* adcapp uses Timer1, so no cycle counter: the software instruction
 * counter instead (the same rewrite keeps it); its UDRE interrupt would
 * nest in the sending of blocks and fill the next one, so the blocks of
 * interrupts go out with interrupts off. */
static void test_adcapp_end_to_end(void **state)
{
	bundled_end_to_end(*state, "adcapp", "--fp 'sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,"
			   "ra=8,width=32' --ring 96 --send-masked", "input reads logged: 3", 0);
}

/* Arduino's digitalRead: PINx's address from a table, read through a
 * pointer.  With --log-loads the rewrite tests the load's address at run
 * time and logs the inputs; the replay feeds them and is the device's. */
static void test_arduino_digitalread(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer tests/firmware/arduino_button.elf --log func -o %s/b.h && "
			  "avr-gcc -mmcu=atmega328p -DF_CPU=16000000UL " AVR_FLAGS " -Wl,--emit-relocs"
			  " -include %s/b.h -include tests/firmware/log_sink.h -o %s/b0.elf "
			  "tests/firmware/arduino_button.c && %s instrument %s/b0.elf --log-loads "
			  "-o %s/b.elf",
			  a, s->dir, s->dir, s->dir, a, s->dir, s->dir);
	/* digitalRead's loads of pin_reg[pin] and pin_bit[pin], and of
	 * *pin_reg[pin]; and tx_buf[tx_tail] in the UDRE interrupt's body
	 * (avrr_body_USART_UDRE_vect: the firmware's, behind the stub) */
	if (rc || !strstr(s->out, "loads through a pointer tested at run time: 4\n"))
		fail_msg("build and instrument: %s", s->out);
	rc = test_run(s->out, sizeof s->out,
		      "%s stamp %s/b.elf && %s device %s/b.elf --stimuli "
		      "tests/firmware/arduino_button.stim --log-reg GPIOR0 --log-out %s/b.log "
		      "--uart-out %s/b.uart --state-out %s/b.state --instructions 3000000 && "
		      "%s import %s/b.log --elf %s/b.elf -o %s/b.db --log-reg GPIOR0",
		      a, s->dir, a, s->dir, s->dir, s->dir, s->dir, a, s->dir, s->dir, s->dir);
	if (rc)
		fail_msg("device and import: %s", s->out);
	unsigned blocks, irqs, reads;
	unsigned long long instructions;
	assert_int_equal(sscanf(strstr(s->out, "device: ") + 8, "%llu instructions", &instructions),
			 1);
	assert_int_equal(sscanf(strstr(s->out, ".log: ") + 6, "%u blocks, %u interrupts, %u input",
				&blocks, &irqs, &reads), 3);
	/* two digitalReads per turn of the main loop: thousands, and all of
	 * them through the pointer (no IN of an input in this firmware) */
	assert_true(reads > 2000);
	assert_null(strstr(s->out, "input reads logged"));
	replay_matches(s, irqs, reads, "%s/b.db --log-reg GPIOR0 --uart-out %s/r.uart --log-out "
		       "%s/r.log --state-out %s/r.state", s->dir, s->dir, s->dir, s->dir);
	char p1[256], p2[256];
	const char *ext[] = { "uart", "log", "state" };
	for (int i = 0; i < 3; i++) {
		snprintf(p1, sizeof p1, "%s/b.%s", s->dir, ext[i]);
		snprintf(p2, sizeof p2, "%s/r.%s", s->dir, ext[i]);
		if (!same_files(p1, p2))
			fail_msg("the replay's %s differs from the device's", ext[i]);
	}
	shell_on_import(s, "b");
	/* gdb: the second Timer0 overflow, millis 1 there; back to its write
	 * in the first one's handler */
	gdb_on_import(s, "b.db", "break __vector_16\ncontinue\ncontinue\nmonitor when\n"
		      "print *(unsigned long *)&timer0_millis\n"
		      "watch *(unsigned long *)&timer0_millis\nreverse-continue\nmonitor when\n");
	assert_int_equal(num_after(s->out, "icount=", 0),
			 irq_icount(s, "b.db", " AND ctx = 16", 1) + 1);
	assert_non_null(strstr(s->out, "$1 = 1\n"));
	assert_non_null(strstr(s->out, "Old value = 1\nNew value = 0\n"));
	char db[256];
	snprintf(db, sizeof db, "%s/b.db", s->dir);
	unsigned long long back = num_after(s->out, "icount=", 1);
	assert_true((long long)back > irq_icount(s, "b.db", " AND ctx = 16", 0));
	assert_true((long long)back < test_sql_int(db, "SELECT icount FROM events WHERE type = 3 "
						   "AND ctx = 16 LIMIT 1"));
	analyses_on_import(s, "b", "tests/firmware/arduino_button.stim", instructions, NULL);
}

/* The same firmware built with the log but not rewritten: its reads are
 * not in the log, and the replay stops at the first, naming it. */
static void test_unlogged_read_is_named(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer traces/funcsheap.elf --log func --ring 255 -o %s/f.h && "
			  "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL " AVR_FLAGS
			  " -include %s/f.h -include tests/firmware/log_sink.h -o %s/f.elf "
			  "traces/funcsheap.c && %s stamp %s/f.elf && %s device %s/f.elf --stimuli "
			  "traces/funcsheap.stim --log-reg TWAR --log-out %s/f.log --instructions "
			  "2000000 && %s import %s/f.log --elf %s/f.elf -o %s/f.db --log-reg TWAR",
			  a, s->dir, s->dir, s->dir, a, s->dir, a, s->dir, s->dir, a, s->dir, s->dir,
			  s->dir);
	if (rc)
		fail_msg("build, run, import: %s", s->out);
	/* the import's own replay stopped there too: no positions, said */
	if (!strstr(s->out, "import: " ) || !strstr(s->out, "f.log: its replay stopped: a read "
						       "of ADCL at PC 0x") ||
	    !strstr(s->out, "; stored without positions: only avrr replay replays it\n"))
		fail_msg("import: %s", s->out);
	rc = test_run(s->out, sizeof s->out, "%s replay %s/f.db --log-reg TWAR", a, s->dir);
	if (rc != 1 || !strstr(s->out, "replay: diverged: a read of ADCL at PC 0x") ||
	    !strstr(s->out, "that the device's log does not have (read 1;"))
		fail_msg("replay: exit %d, %s", rc, s->out);
	/* which the shell and the analyses refuse, in one line */
	rc = test_run(s->out, sizeof s->out, "%s analyze %s/f.db races", a, s->dir);
	char want[512];
	snprintf(want, sizeof want, "avrr analyze: %s/f.db: an import of a device log without "
		 "positions (its replay stopped at import): only avrr replay replays it "
		 "(docs/device.md)\n", s->dir);
	if (rc != 2 || strcmp(s->out, want))
		fail_msg("analyze: exit %d, '%s'; want 2, '%s'", rc, s->out, want);
}

#define PR "tests/firmware/uart_poll_rx"

/* The source line of the first line of PR.c containing text. */
static unsigned line_of(const char *text)
{
	FILE *f = fopen(PR ".c", "r");
	char buf[256];
	unsigned n = 0;
	assert_non_null(f);
	while (fgets(buf, sizeof buf, f)) {
		n++;
		if (strstr(buf, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no '%s' in " PR ".c", text);
	return 0;
}

/* A polled UART receiver with no AVR_MCU section, as a Makefile build
 * has none, through the loop with what a user has: --board on every
 * command, no --log-reg anywhere.  Its status register is an input (RXC
 * comes from the line), so the device logs each poll and the replay is
 * exact; built without the read logging, the replay stops at the first
 * poll, naming the register, the PC and the source line, at once. */
static void test_polled_uart_receiver(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer " PR ".elf --board uno --log func --ring 255 -o %s/p.h && "
			  "avr-gcc -mmcu=atmega328p -DF_CPU=16000000UL -Os -gdwarf-4 -Wl,--emit-relocs"
			  " -include %s/p.h -include tests/firmware/log_sink.h -o %s/p0.elf " PR ".c && "
			  "%s instrument %s/p0.elf --board uno -o %s/p.elf",
			  a, s->dir, s->dir, s->dir, a, s->dir, s->dir);
	/* the poll of UCSR0A (an SBIS) and the read of UDR0 */
	if (rc || !strstr(s->out, "input reads logged: 2\n"))
		fail_msg("build and instrument: %s", s->out);
	rc = test_run(s->out, sizeof s->out,
		      "%s stamp %s/p.elf && %s device %s/p.elf --board uno --stimuli " PR ".stim "
		      "--log-out %s/p.log --state-out %s/p.state --instructions 1000000 && "
		      "%s import %s/p.log --elf %s/p.elf -o %s/p.db --board uno",
		      a, s->dir, a, s->dir, s->dir, s->dir, a, s->dir, s->dir, s->dir);
	if (rc || !strstr(s->out, "import: positions from its replay: "))
		fail_msg("device and import: exit %d, %s", rc, s->out);
	unsigned blocks, irqs, reads;
	assert_int_equal(sscanf(strstr(s->out, "p.log: ") + 7, "%u blocks, %u interrupts, %u input",
				&blocks, &irqs, &reads), 3);
	/* a poll a turn of the wait loop: thousands in 1 M instructions */
	assert_true(reads > 2000);
	assert_true(irqs >= 5);
	/* the register the firmware's avrr_log_sink writes, found, and kept */
	rc = test_run(s->out, sizeof s->out, "sqlite3 %s/p.db 'SELECT log_reg FROM device_log'",
		      s->dir);
	assert_int_equal(rc, 0);
	assert_string_equal(s->out, "GPIOR0\n");
	replay_matches(s, irqs, reads, "%s/p.db --board uno --state-out %s/r.state", s->dir, s->dir);
	char sp[512], rp[512];
	snprintf(sp, sizeof sp, "%s/p.state", s->dir);
	snprintf(rp, sizeof rp, "%s/r.state", s->dir);
	assert_true(same_files(sp, rp));
	/* what the recording ran with: a replay told otherwise refuses */
	char want[256];
	rc = test_run(s->out, sizeof s->out, "%s replay %s/p.db --freq 8000000", a, s->dir);
	snprintf(want, sizeof want, "avrr replay: --freq 8000000: %s/p.db ran at 16000000 Hz\n",
		 s->dir);
	if (rc != 2 || strcmp(s->out, want))
		fail_msg("replay --freq: exit %d, '%s'; want 2, '%s'", rc, s->out, want);
	rc = test_run(s->out, sizeof s->out, "%s import %s/p.log --elf %s/p.elf -o %s/x.db "
		      "--mcu atmega16 --freq 16000000", a, s->dir, s->dir, s->dir);
	snprintf(want, sizeof want, "avrr import: %s/p.log: the log's header names the "
		 "atmega328p, not the atmega16\n", s->dir);
	if (rc != 2 || strcmp(s->out, want))
		fail_msg("import --mcu: exit %d, '%s'; want 2, '%s'", rc, s->out, want);

	/* Not rewritten: the log has no reads, and the first poll stops it. */
	rc = test_run(s->out, sizeof s->out,
		      "avr-gcc -mmcu=atmega328p -DF_CPU=16000000UL -Os -gdwarf-4 -include %s/p.h "
		      "-include tests/firmware/log_sink.h -o %s/u.elf " PR ".c && %s stamp %s/u.elf "
		      "&& %s device %s/u.elf --board uno --stimuli " PR ".stim --log-out %s/u.log "
		      "--instructions 300000 && %s import %s/u.log --elf %s/u.elf -o %s/u.db "
		      "--freq 16000000", s->dir, s->dir, a, s->dir, a, s->dir, s->dir, a, s->dir,
		      s->dir, s->dir);
	if (rc || !strstr(s->out, "stored without positions"))
		fail_msg("unlogged build and import: exit %d, %s", rc, s->out);
	rc = test_run(s->out, sizeof s->out, "%s replay %s/u.db", a, s->dir);
	char line[160];
	snprintf(line, sizeof line, "uart_poll_rx.c:%u) that the device's log does not have "
		 "(read 1; next in the log: interrupt 1 (", line_of("while (!(UCSR0A"));
	unsigned long long n = 0;
	const char *at = strstr(s->out, "replay: diverged: a read of UCSR0A at PC 0x");
	if (rc != 1 || !at || !strstr(at, " (main+0x") || !strstr(at, line) ||
	    sscanf(strstr(s->out, "\nreplay: ") + 9, "%llu instructions", &n) != 1)
		fail_msg("unlogged replay: exit %d, %s", rc, s->out);
	/* at once: the poll comes right after the set-up */
	assert_true(n < 5000);

	/* A capture of a register the firmware does not send the log to:
	 * the device says nothing went there, the import that it is empty,
	 * both pointing at --log-reg. */
	rc = test_run(s->out, sizeof s->out, "%s device %s/p.elf --board uno --log-reg UDR0 "
		      "--log-out %s/e.log --instructions 10000", a, s->dir, s->dir);
	if (rc || !strstr(s->out, "avrr device: warning: the firmware wrote nothing to UDR0 "
			  "(--log-reg), the register captured: if its sink writes another, give "
			  "--log-reg NAME\n"))
		fail_msg("device --log-reg UDR0: exit %d, %s", rc, s->out);
	rc = test_run(s->out, sizeof s->out, "%s import %s/e.log --elf %s/p.elf -o %s/e.db "
		      "--board uno", a, s->dir, s->dir, s->dir);
	snprintf(want, sizeof want, "avrr import: %s/e.log: empty: nothing was captured; avrr "
		 "device --log-reg NAME captures the register the tracer's sink writes\n", s->dir);
	if (rc != 2 || strcmp(s->out, want))
		fail_msg("import of an empty capture: exit %d, '%s'; want 2, '%s'", rc, s->out,
			 want);
}

#define EM "tests/firmware/uart_echo_m16"

/* How many lines of avr-objdump -d of elf hold `insn` (e.g. "sbis\t0x0b, 5"). */
static unsigned objdump_count(test_scratch *s, const char *elf, const char *insn)
{
	if (test_run(s->out, sizeof s->out, "avr-objdump -d %s | grep -c '%s'", elf, insn) > 1)
		fail_msg("avr-objdump %s: %s", elf, s->out);
	return (unsigned)strtoul(s->out, NULL, 10);
}

/* A polled echo on the ATmega16, whose two waits are skips on UCSRA: on
 * RXC, an input read, and on UDRE, which the simulation re-creates and
 * the device does not log (docs/device.md, "Input reads").  The rewrite
 * logs two reads (the RXC poll and UDR), keeps the UDRE skip as it is,
 * and the replay, judging each read by the instruction at its PC as the
 * rewrite did, feeds every item of the log and no other: had it taken
 * the UDRE skip for an input, or looked at the instruction after the
 * read's, it would stop at the first echo. */
static void test_udre_wait_not_logged(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	char p0[300], p[300];
	snprintf(p0, sizeof p0, "%s/p0.elf", s->dir);
	snprintf(p, sizeof p, "%s/p.elf", s->dir);
	/* the case is real: both waits are SBIS on UCSRA (I/O 0x0b) */
	assert_int_equal(objdump_count(s, EM ".elf", "sbis\t0x0b, 7"), 1);
	assert_int_equal(objdump_count(s, EM ".elf", "sbis\t0x0b, 5"), 1);
	int rc = test_run(s->out, sizeof s->out,
			  "%s tracer " EM ".elf --log func --ring 255 -o %s/p.h && "
			  "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL -gdwarf-4 " AVR_FLAGS
			  " -Wl,--emit-relocs -include %s/p.h -include tests/firmware/log_sink.h "
			  "-o %s " EM ".c && %s instrument %s -o %s",
			  a, s->dir, s->dir, p0, a, p0, p);
	if (rc || !strstr(s->out, "input reads logged: 2\n"))
		fail_msg("build and instrument: %s", s->out);
	/* the RXC poll rewritten around an IN, the UDRE wait left alone */
	assert_int_equal(objdump_count(s, p, "sbis\t0x0b, 7"), 0);
	assert_int_equal(objdump_count(s, p, "sbis\t0x0b, 5"), 1);
	rc = test_run(s->out, sizeof s->out,
		      "%s stamp %s && %s device %s --stimuli " EM ".stim --log-out %s/p.log "
		      "--uart-out %s/echo.txt --state-out %s/p.state --instructions 1000000 && "
		      "%s import %s/p.log --elf %s -o %s/p.db",
		      a, p, a, p, s->dir, s->dir, s->dir, a, s->dir, p, s->dir);
	if (rc || !strstr(s->out, "import: positions from its replay: "))
		fail_msg("device and import: exit %d, %s", rc, s->out);
	unsigned blocks, irqs, reads;
	assert_int_equal(sscanf(strstr(s->out, "p.log: ") + 7, "%u blocks, %u interrupts, %u input",
				&blocks, &irqs, &reads), 3);
	assert_true(irqs >= 5);
	assert_true(reads > 2000);
	/* every byte echoed, plus one: each through the UDRE wait (ten lines
	 * of "hello\n" in the 1.6 M cycles of a million instructions) */
	rc = test_run(s->out, sizeof s->out, "cat %s/echo.txt", s->dir);
	assert_int_equal(rc, 0);
	assert_true(strlen(s->out) >= 60);
	for (size_t i = 0; s->out[i]; i++)
		assert_int_equal(s->out[i], "ifmmp\v"[i % 6]);
	replay_matches(s, irqs, reads, "%s/p.db --state-out %s/r.state", s->dir, s->dir);
	char sp[512], rp[512];
	snprintf(sp, sizeof sp, "%s/p.state", s->dir);
	snprintf(rp, sizeof rp, "%s/r.state", s->dir);
	assert_true(same_files(sp, rp));
}

/* Bad input to the new commands: one line each, exit 2. */
static void test_bad_input(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	static const struct { const char *args, *line; } cases[] = {
		{ "import x.log -o y.db", "avrr import: usage: avrr import DUMP --elf FW.elf -o "
		  "RUN.db\n" },
		{ "device traces/funcsheap.elf", "avrr device: usage: avrr device FW.elf [--stimuli S] "
		  "--log-out DUMP\n" },
		/* every output is checked before the run: a file of another kind
		 * needs --force */
		{ "device traces/funcsheap.elf --log-out DIR/l.log --state-out traces/funcsheap.c",
		  "avrr device: --state-out traces/funcsheap.c: exists and is not a state avrr "
		  "device or replay wrote; use --force to replace it\n" },
		{ "device traces/funcsheap.elf --log-out traces/funcsheap.c", "avrr device: "
		  "--log-out traces/funcsheap.c: exists and is not a device log; use --force to "
		  "replace it\n" },
		{ "stamp traces/funcsheap.elf", "avrr stamp: traces/funcsheap.elf: no "
		  "avrr_log_header: not built with `avrr tracer --log`\n" },
		{ "tracer traces/funcsheap.elf --log serial -o DIR/t.h", "avrr tracer: --log: "
		  "'serial'; give uart, uart1..uart3, spi or func\n" },
		/* the default's 4-byte fingerprints (width=32): 2 * (4 + 5) = 18 at
		 * least, as 3-byte ones need 16 */
		{ "tracer traces/funcsheap.elf --log func --ring 17 -o DIR/t.h", "avrr tracer: the "
		  "log's block must be 18..255 bytes for 4-byte fingerprints\n" },
		{ "import traces/funcsheap.elf --elf traces/funcsheap.elf -o DIR/x.db", "avrr import: "
		  "traces/funcsheap.elf: byte 0: not a device log (no AVRL header)\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char args[512];
		const char *d = strstr(cases[i].args, "DIR");
		if (d)
			snprintf(args, sizeof args, "%.*s%s%s", (int)(d - cases[i].args),
				 cases[i].args, s->dir, d + 3);
		else
			snprintf(args, sizeof args, "%s", cases[i].args);
		int rc = test_run(s->out, sizeof s->out, "%s %s", a, args);
		/* the first line (a sanitizer build may add its report after) */
		if (rc != 2 || strncmp(s->out, cases[i].line, strlen(cases[i].line)))
			fail_msg("avrr %s: exit %d, '%s'; want 2, '%s'", args, rc, s->out,
				 cases[i].line);
	}
	assert_int_equal(test_run(s->out, sizeof s->out, "ls -A '%s'", s->dir), 0);
	assert_string_equal(s->out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_blink_end_to_end, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_damaged_dumps, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_loss_reported, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap_end_to_end, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap_uart_end_to_end, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap_uart_115200, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap_noloop_end_to_end, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_funcsheap_noloop_uart_115200, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_adcapp_end_to_end, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_arduino_digitalread, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_unlogged_read_is_named, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_polled_uart_receiver, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_udre_wait_not_logged, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
