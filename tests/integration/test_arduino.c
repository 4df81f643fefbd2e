/*
 * test_arduino.c — Arduino sketches (tests/firmware/arduino/), built with
 * Debian's arduino-mk as a user would, recorded with --board and debugged.
 *
 *  - The ELF names its MCU only in avr-libc's deviceinfo note and its clock
 *    nowhere: --board says both; without it the recording is refused in
 *    one line naming --freq and --board, and a board or MCU the ELF
 *    contradicts is refused.
 *  - Each sketch (Serial echo, millis(), attachInterrupt, analogRead,
 *    analogWrite, Wire as master with no slave, SoftwareSerial) records
 *    10^7 instructions and replays exactly from the default configuration.
 *  - C++ names are demangled; the shell breaks on serialEvent and on
 *    HardwareSerial::available with or without its parameter list, and
 *    `where` ends at main.
 *  - Races are judged per member: the Serial echo's ring buffer handshake
 *    is no race; nor are SoftwareSerial's and attachInterrupt's set-up
 *    writes, made before their ISR's enable bit is set.
 */
#include "tests/testlib.h"

#include "sim/firmware.h"
#include "dwarf/members.h"

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

#define ECHO "tests/firmware/arduino/serial_echo.elf"


/* Records the sketch and replays it: every recorded interrupt injected,
 * none false, none missed, no divergence.  ovf is TIMER0_OVF's vector (16
 * on the ATmega328P, 23 on the ATmega2560); lossless says the sketch never
 * keeps interrupts off for a whole overflow period. */
static void replays_exactly(scratch *s, const char *sketch, const char *board, const char *mcu,
			    int ovf, int lossless)
{
	char path[256], name[64], want[96], q[96];
	snprintf(name, sizeof name, "%s.db", sketch);
	test_record(s, path, sizeof path, name, "tests/firmware/arduino/%s.elf --board %s "
		    "--stimuli tests/firmware/arduino/%s/%s.stim --instructions 10M", sketch, board,
		    sketch, sketch);
	snprintf(want, sizeof want, "mcu           %s at 16000000 Hz\n", mcu);
	if (!strstr(s->out, want))
		fail_msg("record %s --board %s: no '%s' in\n%s", sketch, board, want, s->out);
	assert_int_equal(test_sql_int(path, "SELECT instructions FROM run"), 10000000);
	/* millis() runs on Timer 0, prescaler 64, overflowing every 64 x 256 =
	 * 16384 cycles (1024 us at 16 MHz) from init(), a few thousand cycles
	 * in; an overflow that comes twice while interrupts are off is one
	 * interrupt (SoftwareSerial sends a byte with them off: 10 bits of
	 * 1667 cycles at 9600 baud, longer than a period). */
	long long cycles = test_sql_int(path, "SELECT cycles FROM run");
	snprintf(q, sizeof q, "SELECT count(*) FROM interrupts WHERE vector = %d", ovf);
	long long ticks = test_sql_int(path, q);
	assert_true(ticks <= cycles / 16384);
	if (lossless)
		assert_true(ticks >= cycles / 16384 - 1);
	else
		assert_true(ticks > cycles / 16384 / 2);
	long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
	int rc = test_run(s->out, sizeof s->out, "%s replay '%s'", test_avrr(), path);
	snprintf(want, sizeof want, "injected             %lld\n", irqs);
	char correct[96];
	snprintf(correct, sizeof correct, "correct              %lld\n", irqs);
	if (rc || !strstr(s->out, want) || !strstr(s->out, correct) ||
	    !strstr(s->out, "missed               0\n") || !strstr(s->out, "diverged             no"))
		fail_msg("replay %s: status %d, %lld interrupts recorded\n%s", sketch, rc, irqs, s->out);
}

/* "hi\n" every 20 ms from 5 ms (jitter 2 ms) at 9600 baud: in the run's
 * 10^7 instructions (1.118 s here) occurrences at 5, 25, ..., 1105 ms:
 * 56 of them, 168 bytes, each taken by USART_RX (vector 18) and echoed to
 * UDR0 (0xc6) from serialEvent. */
static void test_serial_echo(void **state)
{
	scratch *s = *state;
	replays_exactly(s, "serial_echo", "uno", "atmega328p", 16, 1);
	char path[256];
	snprintf(path, sizeof path, "%s/serial_echo.db", s->dir);
	long long ms = test_sql_int(path, "SELECT cycles / 16000 FROM run");
	assert_true(ms > 1107 && ms < 1125);  /* else the count below is not 56 */
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM interrupts WHERE vector = 18"), 168);
	assert_int_equal(test_sql_int(path, "SELECT count(*) FROM events WHERE type = 5 AND addr = 198"),
			 168);
	/* A member as a VCD signal: the RX ring's head moves on every byte
	 * ((head + 1) % 64 always differs), 168 changes after its reset value. */
	char vcd[300];
	snprintf(vcd, sizeof vcd, "%s/echo.vcd", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export '%s' --vcd '%s' --var "
				  "Serial._rx_buffer_head --var 'Serial._rx_buffer[0]'", test_avrr(),
				  path, vcd), 0);
	FILE *f = fopen(vcd, "r");
	assert_non_null(f);
	char line[256], id[8] = "", id0[8] = "";
	int changes = 0;
	while (fgets(line, sizeof line, f)) {
		char v[80], w[8];
		if (strstr(line, " Serial._rx_buffer_head $end") && sscanf(line, "$var reg 8 %7s", w) == 1)
			snprintf(id, sizeof id, "%s", w);
		if (strstr(line, " Serial._rx_buffer(0) $end") && sscanf(line, "$var reg 8 %7s", w) == 1)
			snprintf(id0, sizeof id0, "%s", w);
		if (*id && sscanf(line, "b%79[01] %7s", v, w) == 2 && !strcmp(w, id))
			changes++;
	}
	fclose(f);
	assert_true(*id && *id0);
	assert_int_equal(changes, 1 + 168);
}
static void test_millis(void **state) { replays_exactly(*state, "millis_blink", "uno", "atmega328p", 16, 1); }
static void test_attach_interrupt(void **state) { replays_exactly(*state, "attach_interrupt", "nano", "atmega328p", 16, 1); }
static void test_analog_read(void **state) { replays_exactly(*state, "analog_read", "uno", "atmega328p", 16, 1); }
static void test_analog_write(void **state) { replays_exactly(*state, "analog_write", "uno", "atmega328p", 16, 1); }
static void test_wire_master(void **state) { replays_exactly(*state, "wire_master", "mega", "atmega2560", 23, 1); }

/* With no slave on the bus, SLA+W is not acknowledged: TWI status 0x20
 * (TW_MT_SLA_NACK, the datasheet's Master Transmitter status codes), which Wire's
 * endTransmission() returns as 2.  Needs simavr's TWI to answer 0x20
 * (a fix in sim/). */
static void test_wire_no_slave_is_address_nack(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "wire_master.db", "tests/firmware/arduino/wire_master.elf "
		    "--board mega --stimuli tests/firmware/arduino/wire_master/wire_master.stim "
		    "--instructions 10M");
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'goto 9999999\\nprint result\\n' | "
				  "%s shell '%s'", test_avrr(), path), 0);
	if (!strstr(s->out, "\n$1 = 2 '\\002'\n"))
		fail_msg("endTransmission() did not return 2:\n%s", s->out);
}
/* The echo with the whole state as its fingerprint (sel=all, 64 bits) under
 * the paper's set matching: between the bytes of "hi\n", which arrive back
 * to back, loop() polls Serial.available() with nothing changing but the
 * USART's receive flag.  That flag (RXC) is set while the two-byte FIFO
 * holds a byte and clears as UDR0 empties it, as the datasheet has it, so
 * every idle turn is a state no interrupt was taken in, and the replay is
 * exact. */
static void test_serial_echo_whole_state_set_matching(void **state)
{
	scratch *s = *state;
	char path[256];
	snprintf(path, sizeof path, "%s/echo_all.db", s->dir);
	int rc = test_run(s->out, sizeof s->out, "%s record " ECHO " --board uno "
			  "--stimuli tests/firmware/arduino/serial_echo/serial_echo.stim "
			  "--instructions 10M --fp 'all:sel=all,width=64' -o '%s'", test_avrr(), path);
	if (rc)
		fail_msg("record: status %d\n%s", rc, s->out);
	long long irqs = test_sql_int(path, "SELECT count(*) FROM interrupts");
	rc = test_run(s->out, sizeof s->out, "%s replay '%s' --fp all --match set", test_avrr(), path);
	char want[96];
	snprintf(want, sizeof want, "correct              %lld\n", irqs);
	if (rc || !strstr(s->out, want) || !strstr(s->out, "false loop positives 0\n") ||
	    !strstr(s->out, "missed               0\n"))
		fail_msg("replay --fp all --match set: status %d, %lld interrupts\n%s", rc, irqs, s->out);
}

/* analogWrite(9) and analogWrite(3): Arduino's init() runs Timers 1 and 2
 * in 8-bit phase-correct PWM (WGM mode 1, TOP 255) at clk/64, so the period
 * is 2 x 255 x 64 = 32640 cycles (the datasheet's f = f_clk / (2 N TOP)).
 * Non-inverting, the pin is high around each BOTTOM, for 2 x OCR x 64
 * cycles; the duty changes every 2 ms, but the two edges around a BOTTOM
 * share one OCR (it is updated at TOP), so each high pulse is centred on
 * its BOTTOM: the centres are a period apart.  simavr moves a timer's pin
 * at the end of the instruction the match falls in (up to 4 cycles late),
 * so a centre may be off by a few cycles, but never drifts: over the run's
 * hundreds of pulses a period one cycle off would add up to hundreds. */
static void test_analog_write_pwm_period(void **state)
{
	scratch *s = *state;
	char path[256], vcd[300];
	test_record(s, path, sizeof path, "analog_write.db", "tests/firmware/arduino/analog_write.elf "
		    "--board uno --stimuli tests/firmware/arduino/analog_write/analog_write.stim "
		    "--instructions 10M");
	if (strstr(s->out, "warning"))
		fail_msg("phase-correct PWM warned:\n%s", s->out);
	snprintf(vcd, sizeof vcd, "%s/pwm.vcd", s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s export '%s' --vcd '%s'", test_avrr(),
				  path, vcd), 0);
	static const char *const pins[] = { "PB1", "PD3" };  /* OC1A = pin 9, OC2B = pin 3 */
	for (unsigned p = 0; p < 2; p++) {
		FILE *f = fopen(vcd, "r");
		assert_non_null(f);
		char line[256], id[8] = "", w[8], decl[32];
		snprintf(decl, sizeof decl, " %s $end", pins[p]);
		unsigned long long ns = 0, rise = 0, centre[400];
		unsigned n = 0;
		while (fgets(line, sizeof line, f) && n < 400) {
			if (strstr(line, decl) && sscanf(line, "$var wire 1 %7s", w) == 1)
				snprintf(id, sizeof id, "%s", w);
			else if (line[0] == '#')
				ns = strtoull(line + 1, NULL, 10);
			else if (*id && (line[0] == '0' || line[0] == '1') &&
				 !strncmp(line + 1, id, strlen(id)) && line[1 + strlen(id)] == '\n') {
				/* ns = cycle x 10^9 / 16 MHz, truncated: the cycle back. */
				unsigned long long cycle = (ns * 16 + 999) / 1000;
				if (line[0] == '1')
					rise = cycle;
				else if (rise)
					centre[n++] = rise + cycle;  /* twice the centre */
			}
		}
		fclose(f);
		if (n < 240)
			fail_msg("%s: %u pulses in the VCD", pins[p], n);
		/* Until the duty wraps (about 255 periods in), when analogWrite(0)
		 * and then analogWrite(1) cut a pulse short as the CPU switches
		 * the pin between PORT and the timer. */
		for (unsigned i = 1; i < n && i < 240; i++) {
			long long off = (long long)(centre[i] - centre[0]) - 2LL * 32640 * i;
			if (off < -8 || off > 8)
				fail_msg("%s: pulse %u is centred %lld/2 cycles off %u periods of 32640 "
					 "after the first", pins[p], i, off, i);
		}
	}
}
static void test_soft_serial(void **state) { replays_exactly(*state, "soft_serial", "mega2560", "atmega2560", 23, 0); }

/* The deviceinfo note names the MCU; nothing names the clock. */
static void test_mcu_from_note_clock_from_board(void **state)
{
	scratch *s = *state;
	firmware *fw;
	avrr_err err;
	assert_int_equal(fw_load_file(ECHO, &fw, &err), 0);
	assert_string_equal(fw->mcu, "atmega328p");
	assert_string_equal(fw->mcu_from, "deviceinfo note");
	assert_int_equal(fw->frequency, 0);
	fw_free(fw);
	assert_int_equal(fw_load_file("tests/firmware/arduino/wire_master.elf", &fw, &err), 0);
	assert_string_equal(fw->mcu, "atmega2560");
	fw_free(fw);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s record " ECHO " -o '%s/x.db'", test_avrr(), s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s", cmd), 2);
	assert_string_equal(s->out, "avrr record: " ECHO ": the ELF names no clock (no .mmcu section; "
			    "an Arduino build never does); pass --freq HZ or --board NAME (uno, nano, "
			    "pro-mini, pro-mini16, pro-mini8, duemilanove, mega, mega2560, mega1280, "
			    "leonardo, micro)\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s --board mega", cmd), 2);
	assert_string_equal(s->out, "avrr record: " ECHO ": built for the atmega328p (its deviceinfo "
			    "note), not the atmega2560 asked for\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s --mcu atmega32u4", cmd), 2);
	assert_string_equal(s->out, "avrr record: " ECHO ": built for the atmega328p (its deviceinfo "
			    "note), not the atmega32u4 asked for\n");
	/* --freq alone is enough: the note names the MCU.  Pro Mini 8 MHz. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s --freq 8000000 --instructions 1000",
				  cmd), 0);
	assert_non_null(strstr(s->out, "mcu           atmega328p at 8000000 Hz\n"));
	snprintf(cmd, sizeof cmd, "%s record " ECHO " -o '%s/y.db' --board pro-mini8 --instructions "
		 "1000", test_avrr(), s->dir);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s", cmd), 0);
	assert_non_null(strstr(s->out, "mcu           atmega328p at 8000000 Hz\n"));
	/* Every command that takes --mcu takes --board. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s select " ECHO " --board mega",
				  test_avrr()), 2);
	assert_string_equal(s->out, "avrr select: " ECHO ": built for the atmega328p (its deviceinfo "
			    "note), not the atmega2560 asked for\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s select " ECHO " --board uno",
				  test_avrr()), 0);
	assert_int_equal(test_run(s->out, sizeof s->out, "%s tracer " ECHO " --board leonardo -o "
				  "'%s/t.h'", test_avrr(), s->dir), 2);
	assert_string_equal(s->out, "avrr tracer: " ECHO ": built for the atmega328p (its deviceinfo "
			    "note), not the atmega32u4 asked for\n");
	assert_int_equal(test_run(s->out, sizeof s->out, "%s instrument " ECHO " --board nope -o "
				  "'%s/o.elf'", test_avrr(), s->dir), 2);
	assert_non_null(strstr(s->out, "avrr instrument: --board: unknown board 'nope'; known: uno,"));
}

/* Names demangled as the symbols are read, found as written in C++. */
static void test_demangled_symbols(void **state)
{
	(void)state;
	char *d = fw_demangle("_ZN14HardwareSerial9availableEv");
	assert_string_equal(d, "HardwareSerial::available()");
	free(d);
	assert_null(fw_demangle("main"));
	assert_null(fw_demangle("_Znot a mangled name"));
	firmware *fw;
	avrr_err err;
	assert_int_equal(fw_load_file(ECHO, &fw, &err), 0);
	const fw_symbol *a = fw_find_symbol(fw, "HardwareSerial::available");
	assert_non_null(a);
	assert_string_equal(a->name, "HardwareSerial::available()");
	assert_string_equal(a->link_name, "_ZN14HardwareSerial9availableEv");
	assert_ptr_equal(fw_find_symbol(fw, "HardwareSerial::available()"), a);
	assert_ptr_equal(fw_find_symbol(fw, "_ZN14HardwareSerial9availableEv"), a);
	const fw_symbol *e = fw_find_symbol(fw, "serialEvent");
	assert_non_null(e);
	assert_string_equal(e->name, "serialEvent()");
	char where[64];
	fw_describe_pc(fw, a->addr + 2, where, sizeof where);
	assert_string_equal(where, "HardwareSerial::available()+0x2");
	fw_free(fw);
}

/* Serial's members from its class layout (HardwareSerial : Stream : Print):
 * Print's vtable pointer and int write_error (2 + 2), Stream's two
 * unsigned longs (4 + 4), six register pointers (6 x 2), bool _written, the
 * four one-byte ring indices, then the 64-byte RX and TX buffers: 157
 * bytes, 4 + 6 + 1 + 4 + 64 + 64 = 143 leaves. */
static void test_serial_members(void **state)
{
	(void)state;
	firmware *fw;
	avrr_err err;
	src_members t;
	assert_int_equal(fw_load_file(ECHO, &fw, &err), 0);
	assert_int_equal(members_load(fw, &t, &err), 0);
	const fw_symbol *serial = fw_find_symbol(fw, "Serial");
	assert_non_null(serial);
	assert_int_equal(serial->size, 157);
	size_t n;
	const src_member *m = members_in(&t, serial->addr, serial->size, &n);
	assert_int_equal(n, 143);
	assert_int_equal(m[0].addr, serial->addr);
	assert_string_equal(m[0].path, "._vptr.Print");
	assert_int_equal(m[0].size, 2);
	assert_string_equal(m[11].path, "._rx_buffer_head");
	assert_int_equal(m[11].addr, serial->addr + 25);
	assert_int_equal(m[11].size, 1);
	assert_string_equal(m[12].path, "._rx_buffer_tail");
	assert_string_equal(m[14].path, "._tx_buffer_tail");
	assert_string_equal(m[15].path, "._rx_buffer[0]");
	assert_int_equal(m[15].addr, serial->addr + 29);
	assert_string_equal(m[142].path, "._tx_buffer[63]");
	assert_int_equal(m[142].addr, serial->addr + 156);
	members_free(&t);
	fw_free(fw);
}

static void test_shell_on_echo(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "serial_echo.db", "tests/firmware/arduino/serial_echo.elf "
		    "--board uno --stimuli tests/firmware/arduino/serial_echo/serial_echo.stim "
		    "--instructions 10M");
	firmware *fw;
	avrr_err err;
	assert_int_equal(fw_load_file(ECHO, &fw, &err), 0);
	uint32_t ev = fw_find_symbol(fw, "serialEvent")->addr;
	uint32_t av = fw_find_symbol(fw, "HardwareSerial::available")->addr;
	fw_free(fw);
	assert_int_equal(test_run(s->out, sizeof s->out, "printf 'break serialEvent\\ncontinue\\n"
				  "where\\nbreak HardwareSerial::available\\n"
				  "break HardwareSerial::available()\\ncontinue\\nwhere\\n' | %s shell '%s'",
				  test_avrr(), path), 0);
	char want[256];
	snprintf(want, sizeof want, "Breakpoint 1 at 0x%04x: serialEvent() at serial_echo.ino:", ev);
	if (!strstr(s->out, want))
		fail_msg("no '%s' in\n%s", want, s->out);
	snprintf(want, sizeof want, "Breakpoint 2 at 0x%04x: HardwareSerial::available() at "
		 "HardwareSerial.cpp:", av);
	if (!strstr(s->out, want))
		fail_msg("no '%s' in\n%s", want, s->out);
	snprintf(want, sizeof want, "Breakpoint 3 at 0x%04x: HardwareSerial::available() at "
		 "HardwareSerial.cpp:", av);
	if (!strstr(s->out, want))
		fail_msg("no '%s' in\n%s", want, s->out);
	/* serialEvent runs from main's loop (serialEventRun) once a byte is
	 * in: the first stop is there, called from main, outermost. */
	snprintf(want, sizeof want, "pc=0x%04x serialEvent()\n#1  called from ", ev);
	if (!strstr(s->out, want) || !strstr(s->out, " main+0x"))
		fail_msg("no '%s' in\n%s", want, s->out);
	if (!strstr(s->out, "#2  main, the outermost frame: entered from the C runtime's start-up"))
		fail_msg("main not outermost in\n%s", s->out);
	snprintf(want, sizeof want, "pc=0x%04x HardwareSerial::available()\n#1  called from ", av);
	if (!strstr(s->out, want) || !strstr(s->out, "serialEvent()+0x"))
		fail_msg("no '%s' in\n%s", want, s->out);
	if (strstr(s->out, "_Z") || strstr(s->out, "__do_global_ctors"))
		fail_msg("a mangled name or the start-up's label in\n%s", s->out);
	/* The profile names functions as the shell does. */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s analyze '%s' profile", test_avrr(), path),
			 0);
	if (!strstr(s->out, "\nHardwareSerial::available()  ") || !strstr(s->out, "\nserialEvent()  ") ||
	    strstr(s->out, "_ZN"))
		fail_msg("profile names not demangled:\n%s", s->out);
}

static void test_races_per_member(void **state)
{
	/* serial_echo: HardwareSerial's buffers, per member.  SoftwareSerial's
	 * begin() sets the 16-bit bit delays (members of `port`, which its
	 * PCINT ISR reads) with interrupts on, but before listen() sets the
	 * pin's PCMSK bit: the ISR cannot come, no race.  Nor
	 * attachInterrupt's write of intFunc[0], before INT0 in EIMSK. */
	static const struct { const char *db, *fw, *board, *instructions; } runs[] = {
		{ "serial_echo.db", "serial_echo", "uno", "10M" },
		{ "soft_serial.db", "soft_serial", "mega", "10M" },
		{ "attach.db", "attach_interrupt", "uno", "2M" },
	};
	scratch *s = *state;
	char path[256];
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		test_record(s, path, sizeof path, runs[i].db, "tests/firmware/arduino/%s.elf --board "
			    "%s --stimuli tests/firmware/arduino/%s/%s.stim --instructions %s",
			    runs[i].fw, runs[i].board, runs[i].fw, runs[i].fw, runs[i].instructions);
		assert_int_equal(test_run(s->out, sizeof s->out, "%s analyze '%s' races",
					  test_avrr(), path), 0);
		assert_string_equal(s->out, "no races: no shared variable is accessed non-atomically "
				    "where an interrupt could come\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mcu_from_note_clock_from_board, setup, teardown),
		cmocka_unit_test_setup_teardown(test_demangled_symbols, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial_members, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shell_on_echo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_races_per_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial_echo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_millis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analog_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analog_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wire_master, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wire_no_slave_is_address_nack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial_echo_whole_state_set_matching, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_analog_write_pwm_period, setup, teardown),
		cmocka_unit_test_setup_teardown(test_soft_serial, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
