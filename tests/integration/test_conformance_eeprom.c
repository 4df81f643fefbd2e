/*
 * test_conformance_eeprom.c — the EEPROM (sim/periph_eeprom.c) against
 * the datasheets' arithmetic: each firmware of tests/chip/eeprom_*.c runs
 * on its MCU and clock, and every cycle and byte checked is worked out
 * here by hand, never taken from a run.  Sections are the ATmega328P
 * datasheet's (7810D): §8.4 EEPROM Data Memory, §8.6 Register
 * Description (EECR, Table 8-1 "EEPROM Mode Bits"); the ATmega2560's
 * (2549Q) chapter of the same titles, and the ATmega16's (2466T) "EEPROM
 * Data Memory" and Table "EEPROM Programming Time".
 *
 * The arithmetic.  A write's programming time is the datasheet's typical
 * one in CPU cycles, rounded up (the CPU sees EEPE fall at the first
 * cycle at or after the end): erase and write 3.4 ms, erase only and
 * write only 1.8 ms (Table 8-1), 54,400 and 28,800 cycles at 16 MHz; the
 * ATmega16 8.5 ms, 68,000 cycles at 8 MHz.  It runs from the cycle of
 * the store that sets EEPE.  The CPU is halted 2 cycles after that store
 * and 4 after one that sets EERE ("before the next instruction is
 * executed"), on top of the storing instruction's own (SBI: 2).  EEPE
 * counts only within 4 cycles of the store that set EEMPE (§8.6.3).  A
 * polling loop `1: SBIC EECR, EEPE; RJMP 1b; LDI; OUT` reads EEPE every 3
 * cycles: the first SBIC at or after the end starts within 2 cycles of
 * it and skips (2 cycles), so the OUT comes 3 to 5 cycles after the end.
 * EE_READY is a level (§8.6.3: "a constant interrupt when EEPE is
 * cleared"): due whenever EERIE = 1 and EEPE = 0.
 */
#include "tests/testlib.h"
#include "tests/chip/probe.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;
typedef unsigned long long ull;

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define M16 "atmega16"
#define MHZ16 16000000u
#define MHZ8 8000000u

/* EECR's bits (the same places on every part here). */
enum { EERE = 0x01, EEPE = 0x02, EEMPE = 0x04, EERIE = 0x08, EEPM0 = 0x10, EEPM1 = 0x20 };

/* ---- helpers -------------------------------------------------------- */

/* A programming time of us microseconds at hz, in whole CPU cycles. */
static uint64_t prog_cycles(uint64_t us, uint64_t hz)
{
	return (us * hz + 999999) / 1000000;
}

/* The cycle of the n-th (from 0) CPU write of `name` with all of `bits`
 * set; 0 when there is none. */
static uint64_t nth_write(probe *p, const char *name, uint8_t bits, unsigned n)
{
	const probe_series *w = probe_writes(p, name);
	for (unsigned i = 0; i < w->n; i++)
		if ((w->value[i] & bits) == bits && !n--)
			return w->cycle[i];
	return 0;
}

/* The values of a series, "%02x" each, space-separated. */
static const char *hex(const probe_series *s)
{
	static char buf[4][512];
	static unsigned turn;
	char *b = buf[turn++ % 4];
	size_t n = 0;
	b[0] = 0;
	for (unsigned i = 0; i < s->n && n + 4 < sizeof buf[0]; i++)
		n += (size_t)snprintf(b + n, sizeof buf[0] - n, "%s%02x", i ? " " : "", s->value[i]);
	return b;
}

/* The EEPROM's byte at addr through sim_eeprom (what gdb reads), or -1
 * when it gives none. */
static int ee_byte(probe *p, unsigned addr)
{
	uint32_t size = 0;
	const uint8_t *ee = sim_eeprom(p->s, &size);
	return ee && addr < size ? ee[addr] : -1;
}

/* That the polling loop's report at `got` follows a write ending at end. */
static void ck_poll(check *c, const char *what, uint64_t got, uint64_t end)
{
	ck(c, got >= end + 3 && got <= end + 5, "%s: the loop saw EEPE clear at %llu, not %llu..%llu",
	   what, (ull)got, (ull)end + 3, (ull)end + 5);
}

/* ---- the tests ------------------------------------------------------ */

/* Erase and write (EEPM 0): EEPE set for 3.4 ms, the byte changes at the
 * end and not before; the CPU halts; EEAR and EEDR written and EERE
 * strobed during the write leave it alone. */
static void test_write_busy_time(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_write.elf", M328, MHZ16);
	probe_watch(p, "EECR", "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	probe_run(p, 2000);
	uint64_t w = nth_write(p, "EECR", EEPE, 0);
	assert_true(w > 0);
	uint64_t end = w + prog_cycles(3400, MHZ16);
	ck(&c, end - w == 54400, "3.4 ms at 16 MHz is %llu cycles", (ull)(end - w));
	/* SBI (2) + halt (2) + IN (1): the OUT of EECR 5 cycles after. */
	const probe_series *g1 = probe_writes(p, "GPIOR1");
	ck(&c, g1->n >= 1 && g1->cycle[0] == w + 5,
	   "EECR reported at %llu, not %llu (SBI 2 + halt 2 + IN 1)", g1->n ? (ull)g1->cycle[0] : 0,
	   (ull)w + 5);
	/* EECR right after: EEPE, EEMPE gone; EEARL held at 0x23, EEDR 0x11
	 * (the EERE during the write read nothing, and halted nothing). */
	ck(&c, !strcmp(hex(g1), "02 23 11"), "GPIOR1 %s, not 02 23 11", hex(g1));
	uint64_t rd = nth_write(p, "EECR", EERE, 0);
	ck(&c, rd && g1->n >= 2 && g1->cycle[1] == rd + 3,
	   "the EEARL report at %llu, not %llu: a read ignored halts nothing",
	   g1->n >= 2 ? (ull)g1->cycle[1] : 0, (ull)rd + 3);
	/* Just before the end: still busy, the byte still erased. */
	probe_run(p, end - 2);
	ck(&c, sim_live_data(p->s)[probe_reg(p, "EECR")] & EEPE, "EEPE clear before the end");
	ck(&c, ee_byte(p, 0x123) == 0xff, "byte 0x123 is %d before the end, not 0xff (255)",
	   ee_byte(p, 0x123));
	ck(&c, probe_writes(p, "GPIOR0")->n == 0, "the loop ended before the write did");
	probe_run(p, end + 1000);
	ck(&c, ee_byte(p, 0x123) == 0x5a, "byte 0x123 is %d after the end, not 0x5a (90)",
	   ee_byte(p, 0x123));
	const probe_series *g0 = probe_writes(p, "GPIOR0");
	ck(&c, g0->n == 1, "%u polling loop ends, not 1", g0->n);
	if (g0->n)
		ck_poll(&c, "erase and write", g0->cycle[0], end);
	/* The read back: 0x5a, the IN 2 (SBI) + 4 (halt) cycles after. */
	const probe_series *g2 = probe_writes(p, "GPIOR2");
	uint64_t rd2 = nth_write(p, "EECR", EERE, 1);
	ck(&c, !strcmp(hex(g2), "5a"), "read back %s, not 5a", hex(g2));
	ck(&c, rd2 && g2->n == 1 && g2->cycle[0] == rd2 + 7,
	   "the read back's OUT at %llu, not %llu (SBI 2 + halt 4 + IN 1)",
	   g2->n ? (ull)g2->cycle[0] : 0, (ull)rd2 + 7);
	probe_close(p);
	ck_done(&c);
}

/* Erase only and write only: 1.8 ms each; EEPM held while EEPE is set; a
 * write only ANDs into a byte not erased (and warns). */
static void test_modes(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_modes.elf", M328, MHZ16);
	probe_watch(p, "EECR", "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	/* The ELF's .eeprom, loaded. */
	ck(&c, ee_byte(p, 0) == 0x5a && ee_byte(p, 1) == 0xa5, "the .eeprom section: %d %d",
	   ee_byte(p, 0), ee_byte(p, 1));
	probe_run(p, 200000);
	const char *warnings = probe_warnings(p);
	uint64_t t = prog_cycles(1800, MHZ16);
	ck(&c, t == 28800, "1.8 ms at 16 MHz is %llu cycles", (ull)t);
	const probe_series *g0 = probe_writes(p, "GPIOR0");
	ck(&c, !strcmp(hex(g0), "01 02 03"), "polling loop ends %s, not 01 02 03", hex(g0));
	for (unsigned k = 0; k < 3 && k < g0->n; k++) {
		char what[32];
		snprintf(what, sizeof what, "write %u", k + 1);
		ck_poll(&c, what, g0->cycle[k], nth_write(p, "EECR", EEPE, k) + t);
	}
	ck(&c, !strcmp(hex(probe_writes(p, "GPIOR1")), "12"),
	   "EECR during the erase %s, not 12 (EEPM0 | EEPE: the 0 written ignored)",
	   hex(probe_writes(p, "GPIOR1")));
	ck(&c, !strcmp(hex(probe_writes(p, "GPIOR2")), "ff 3c 05"), "read back %s, not ff 3c 05",
	   hex(probe_writes(p, "GPIOR2")));
	ck(&c, ee_byte(p, 0) == 0x3c && ee_byte(p, 1) == 0x05, "bytes 0, 1: %d %d, not 0x3c 0x05",
	   ee_byte(p, 0), ee_byte(p, 1));
	ck(&c, !strcmp(warnings, "eeprom: EECR started a write-only (EEPM 2) of 0x0f to EEPROM "
		       "byte 0x1, which held 0xa5, not erased: the datasheet counts the byte "
		       "lost; avrr stores 0x05 (programming only clears bits)\n"),
	   "warnings: %s", warnings);
	probe_close(p);
	ck_done(&c);
}

/* EEPE counts only within 4 cycles of the write that set EEMPE, which
 * clears itself after 4 cycles. */
static void test_timed_sequence(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_sequence.elf", M328, MHZ16);
	probe_watch(p, "EECR", "GPIOR0", "GPIOR1", NULL);
	probe_run(p, 100000);
	ck(&c, !strcmp(hex(probe_writes(p, "GPIOR1")), "00 04 00 04 00 02"),
	   "EECR reports %s, not 00 04 00 04 00 02", hex(probe_writes(p, "GPIOR1")));
	for (unsigned a = 6; a <= 8; a++)
		ck(&c, ee_byte(p, a) == 0xff, "byte %u is %d: a write without the sequence", a,
		   ee_byte(p, a));
	ck(&c, ee_byte(p, 9) == 0x44, "byte 9 is %d, not 0x44", ee_byte(p, 9));
	/* The writes with EEPE: a's, b's, c's, then d's, which started it. */
	uint64_t w = nth_write(p, "EECR", EEPE, 3), mpe = nth_write(p, "EECR", EEMPE, 2);
	ck(&c, w && mpe && w - mpe == 4, "EEPE %llu cycles after EEMPE, not 4", (ull)(w - mpe));
	const probe_series *g0 = probe_writes(p, "GPIOR0");
	ck(&c, g0->n == 1, "%u writes finished, not 1", g0->n);
	if (g0->n)
		ck_poll(&c, "d", g0->cycle[0], w + prog_cycles(3400, MHZ16));
	probe_close(p);
	ck_done(&c);
}

/* EE_READY is a level: at once when EERIE is set while idle, again after
 * each RETI while it stays set, withdrawn during a write and due at its
 * end. */
static void test_ready_is_a_level(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_ready.elf", M328, MHZ16);
	probe_watch(p, "EECR", "GPIOR0", NULL);
	probe_run(p, 200000);
	const probe_series *in = probe_entries(p, "EE_READY_vect");
	const probe_series *up = probe_raises(p, "EE_READY_vect");
	const probe_series *g0 = probe_writes(p, "GPIOR0");
	/* 1: the SBI that sets EERIE raises it, and it is entered as that
	 * SBI ends (2 cycles). */
	uint64_t on = nth_write(p, "EECR", EERIE, 0);
	ck(&c, in->n == 6, "%u entries, not 6 (5 while EERIE stayed set, 1 at the write's end)",
	   in->n);
	ck(&c, up->n >= 1 && up->cycle[0] == on, "first raise at %llu, not %llu (EERIE's write)",
	   up->n ? (ull)up->cycle[0] : 0, (ull)on);
	ck(&c, in->n >= 1 && in->cycle[0] == on + 2, "first entry at %llu, not %llu",
	   in->n ? (ull)in->cycle[0] : 0, (ull)on + 2);
	/* Due again at each entry while EERIE is set: raised there. */
	for (unsigned k = 0; k < 5 && k < in->n; k++)
		ck(&c, up->n > k + 1 && up->cycle[k + 1] == in->cycle[k],
		   "raise %u at %llu, not at entry %u's %llu", k + 2,
		   up->n > k + 1 ? (ull)up->cycle[k + 1] : 0, k + 1, (ull)in->cycle[k]);
	/* Main runs between entries: the datasheet's one instruction after
	 * each RETI (the core's rule, SIM_INTERRUPT_RULE, gives its own
	 * count; the same every time). */
	ck(&c, g0->n == 6, "%u reports, not 6", g0->n);
	unsigned step = g0->n >= 2 ? (unsigned)(g0->value[1] - g0->value[0]) : 0;
	ck(&c, g0->n >= 1 && g0->value[0] == 0, "main ran before the first entry");
	ck(&c, step >= 1 && step <= 2, "main ran %u instructions between entries", step);
	for (unsigned k = 1; k < 5 && k < g0->n; k++)
		ck(&c, g0->value[k] == k * step, "report %u: %02x, not %02x", k + 1, g0->value[k],
		   k * step);
	/* 2: no entry while the write runs; raised at its end exactly (the
	 * CPU sleeps), entered then. */
	uint64_t w = nth_write(p, "EECR", EEPE, 0);
	uint64_t end = w + prog_cycles(3400, MHZ16);
	ck(&c, up->n == 8, "%u raises, not 8", up->n);
	ck(&c, up->n >= 7 && up->cycle[6] == end, "raise at %llu, not at the write's end %llu",
	   up->n >= 7 ? (ull)up->cycle[6] : 0, (ull)end);
	ck(&c, in->n >= 6 && in->cycle[5] >= end && in->cycle[5] <= end + 4,
	   "entry at %llu, not at the end %llu", in->n >= 6 ? (ull)in->cycle[5] : 0, (ull)end);
	ck(&c, g0->n >= 6 && g0->value[5] == 0xee, "the last report is not phase 2's");
	ck(&c, ee_byte(p, 0x10) == 0x77, "byte 0x10 is %d, not 0x77", ee_byte(p, 0x10));
	probe_close(p);
	ck_done(&c);
}

/* The ATmega16: EEMWE/EEWE, 8.5 ms, EE_RDY at the end, EEAR8. */
static void test_atmega16(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_m16.elf", M16, MHZ8);
	probe_watch(p, "EECR", "PORTB", "PORTC", NULL);
	probe_run(p, 300000);
	uint64_t t = prog_cycles(8500, MHZ8);
	ck(&c, t == 68000, "8.5 ms at 8 MHz is %llu cycles", (ull)t);
	ck(&c, !strcmp(hex(probe_writes(p, "PORTC")), "01 00 02 c3"),
	   "PORTC %s, not 01 00 02 c3 (EEARH; EEWE alone; the write; read back)",
	   hex(probe_writes(p, "PORTC")));
	uint64_t w = nth_write(p, "EECR", EEPE, 1);  /* the first, EEWE alone, did nothing */
	const probe_series *up = probe_raises(p, "EE_RDY_vect");
	ck(&c, up->n >= 1 && up->cycle[0] == w + t, "EE_RDY raised at %llu, not %llu",
	   up->n ? (ull)up->cycle[0] : 0, (ull)(w + t));
	ck(&c, probe_entries(p, "EE_RDY_vect")->n == 1, "%u entries, not 1",
	   probe_entries(p, "EE_RDY_vect")->n);
	ck(&c, !strcmp(hex(probe_writes(p, "PORTB")), "01"), "PORTB %s, not 01",
	   hex(probe_writes(p, "PORTB")));
	ck(&c, ee_byte(p, 0x1ff) == 0xc3, "byte 0x1ff is %d, not 0xc3", ee_byte(p, 0x1ff));
	probe_close(p);
	ck_done(&c);
}

/* The ATmega2560: 4 KB (EEAR11:0), 3.4 ms, EE_READY at once. */
static void test_atmega2560(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_m2560.elf", M2560, MHZ16);
	probe_watch(p, "EECR", "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	probe_run(p, 100000);
	ck(&c, !strcmp(hex(probe_writes(p, "GPIOR1")), "0f"), "EEARH reads %s, not 0f",
	   hex(probe_writes(p, "GPIOR1")));
	const probe_series *g0 = probe_writes(p, "GPIOR0");
	ck(&c, !strcmp(hex(g0), "01 02"), "GPIOR0 %s, not 01 02", hex(g0));
	if (g0->n)
		ck_poll(&c, "erase and write", g0->cycle[0],
			nth_write(p, "EECR", EEPE, 0) + prog_cycles(3400, MHZ16));
	ck(&c, !strcmp(hex(probe_writes(p, "GPIOR2")), "96"), "read back %s, not 96",
	   hex(probe_writes(p, "GPIOR2")));
	ck(&c, ee_byte(p, 0xfff) == 0x96, "byte 0xfff is %d, not 0x96", ee_byte(p, 0xfff));
	uint64_t on = nth_write(p, "EECR", EERIE, 0);
	const probe_series *up = probe_raises(p, "EE_READY_vect");
	const probe_series *in = probe_entries(p, "EE_READY_vect");
	ck(&c, up->n >= 1 && up->cycle[0] == on, "EE_READY raised at %llu, not %llu",
	   up->n ? (ull)up->cycle[0] : 0, (ull)on);
	ck(&c, in->n == 1 && in->cycle[0] == on + 2, "%u entries, the first at %llu, not %llu",
	   in->n, in->n ? (ull)in->cycle[0] : 0, (ull)on + 2);
	probe_close(p);
	ck_done(&c);
}

/* A reset during a write: the write completes; EECR holds EEPE and the
 * write's EEPM meanwhile, EEAR resets to 0. */
static void test_reset_during_write(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_reset.elf", M328, MHZ16);
	probe_watch(p, "EECR", "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	probe_run(p, 400000);
	uint64_t w = nth_write(p, "EECR", EEPE, 0), end = w + prog_cycles(1800, MHZ16);
	const probe_series *g1 = probe_writes(p, "GPIOR1");
	ck(&c, !strcmp(hex(g1), "12 00"), "after the reset EECR, EEARL %s, not 12 00", hex(g1));
	ck(&c, g1->n >= 1 && g1->cycle[0] > w && g1->cycle[0] < end,
	   "the reset's report at %llu is not within the write (%llu..%llu)",
	   g1->n ? (ull)g1->cycle[0] : 0, (ull)w, (ull)end);
	const probe_series *g0 = probe_writes(p, "GPIOR0");
	ck(&c, g0->n == 1, "%u polling loop ends, not 1", g0->n);
	if (g0->n)
		ck_poll(&c, "erase across the reset", g0->cycle[0], end);
	ck(&c, !strcmp(hex(probe_writes(p, "GPIOR2")), "ff 11"), "bytes 5, 0 read %s, not ff 11",
	   hex(probe_writes(p, "GPIOR2")));
	probe_close(p);
	ck_done(&c);
}

/* What the model cannot simulate is said once each at record time. */
static void test_warnings(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = probe_open("tests/chip/eeprom_warn.elf", M328, MHZ16);
	probe_watch(p, "EECR", "SPMCSR", "GPIOR0", NULL);
	probe_run(p, 200000);
	/* The write started after the first SPM: the SPM instruction follows
	 * the OUT to SPMCSR; the SBI of EEPE is the second write with it. */
	uint64_t spm = nth_write(p, "SPMCSR", 0x03, 0) + 1, w = nth_write(p, "EECR", EEPE, 1);
	char want[4096];
	snprintf(want, sizeof want,
		 "eeprom: EECR started a write with EEPM 3, which is reserved on the atmega328p: "
		 "avrr erases and writes (3.4 ms)\n"
		 "eeprom: an SPM page erase or write came while an EEPROM write was under way: the "
		 "atmega328p blocks programming the flash until EEPE clears, simavr 1.6 carried it "
		 "out\n"
		 "eeprom: EECR started an EEPROM write %llu cycles after an SPM page erase or write: "
		 "the atmega328p cannot program the EEPROM while it writes the flash (up to 4.5 ms), "
		 "but simavr 1.6 ends an SPM at once, so avrr started the write then\n"
		 "eeprom: an SPM page erase or write came with EE_READY enabled (EECR's EERIE): the "
		 "atmega328p holds the interrupt off until the flash is written (up to 4.5 ms), but "
		 "simavr 1.6 ends an SPM at once, so avrr kept it pending\n",
		 (ull)(w - spm));
	const char *warnings = probe_warnings(p);
	ck(&c, !strcmp(warnings, want), "warnings:\n%s", warnings);
	probe_run(p, 300000);
	warnings = probe_warnings(p);
	ck(&c, !strcmp(warnings, ""), "said again:\n%s", warnings);
	ck(&c, ee_byte(p, 3) == 0x77 && ee_byte(p, 4) == 0x66, "bytes 3, 4: %d %d", ee_byte(p, 3),
	   ee_byte(p, 4));
	ck(&c, probe_writes(p, "GPIOR0")->n == 1, "the last write did not end");
	probe_close(p);
	ck_done(&c);
}

/* EE_READY's level entries recorded and replayed: the replay enters them
 * where the recording did, and the model's re-raise at each entry (the
 * replay's sim_enter_vector) keeps it exact. */
static void test_replays_exactly(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "eeprom_ready.db", "tests/chip/eeprom_ready.elf "
		    "--mcu atmega328p --freq 16000000 --cycles 200k");
	test_assert_replay_exact(s, path, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_busy_time),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_timed_sequence),
		cmocka_unit_test(test_ready_is_a_level),
		cmocka_unit_test(test_atmega16),
		cmocka_unit_test(test_atmega2560),
		cmocka_unit_test(test_reset_during_write),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test_setup_teardown(test_replays_exactly, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
