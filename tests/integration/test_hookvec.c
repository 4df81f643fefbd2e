/*
 * test_hookvec.c — tracing a finished ELF with no source change (`avrr
 * instrument FW.elf --log uart`, docs/tracer.md): tests/firmware/devmulti,
 * three files built by their own Makefile with ISRs in two of them and no
 * AVR_MCU section, instrumented, then the whole device loop (stamp →
 * device → import → replay) must re-create every interrupt and read of
 * the log and end in the device's state; the shell on the import stops at
 * a line inside an ISR; the debug info is the original's; and what the
 * rewrite cannot do is refused in one line, leaving no file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/testlib.h"

#define DM "tests/firmware/devmulti"
#define INSTRUMENT "instrument %s/devmulti.elf --log uart --baud 500000 --send-masked " \
	"--freq 16000000"

/* Builds devmulti with its own Makefile into the scratch directory and
 * instruments it as DIR/fw.elf; the command's line in s->out. */
static void build(test_scratch *s)
{
	if (test_run(s->out, sizeof s->out, "make -s -C " DM " O=%s", s->dir))
		fail_msg("make: %s", s->out);
	if (test_run(s->out, sizeof s->out, "%s " INSTRUMENT " -o %s/fw.elf", test_avrr(), s->dir,
		     s->dir))
		fail_msg("instrument: %s", s->out);
}

static unsigned long num_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	if (!p)
		fail_msg("no '%s' in: %s", key, text);
	return strtoul(p + strlen(key), NULL, 0);
}

static void test_device_loop(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr();
	build(s);
	/* INT0 (button.c) and TIMER2_COMPA (tick.c), the reset, TIMER1_OVF
	 * for the default cycles:32 counter; button.c's PIND read (IN) and
	 * tick.c's test of PD2 (SBIS) */
	assert_non_null(strstr(s->out, "hooked 2 vectors (and the reset, and TIMER1_OVF), "
			       "logged 2 input reads in place; the tracer: "));
	unsigned long flash = num_after(s->out, "the tracer: "),
		      ram = num_after(s->out, "bytes of flash at 0x001c4-0x008ab (30548 free after "
				       "it), "), cycles = num_after(s->out, "starts at 0x07ef), ");
	assert_int_equal(flash, 0x8ac - 0x1c4);
	assert_int_equal(ram, 0x900 - 0x7f0);   /* 271 bytes of variables, from an even address */
	/* the 14 registers a call may clobber pushed and popped (4 each),
	 * SREG's IN and PUSH (3), the timer's two LDS (4), the vector's LDI
	 * and STS (3), IN, IN, ADIW, CLR (5), CALL (4), SREG's POP and OUT
	 * (3), the JMP (3) */
	assert_int_equal(cycles, 56 + 3 + 4 + 3 + 5 + 4 + 3 + 3);
	if (test_run(s->out, sizeof s->out, "%s stamp %s/fw.elf && %s device %s/fw.elf --stimuli "
		     DM "/devmulti.stim --log-out %s/run.log --state-out %s/dev.state --stats",
		     a, s->dir, a, s->dir, s->dir, s->dir))
		fail_msg("device: %s", s->out);
	unsigned long dev_irqs = num_after(s->out, "stats: interrupts "),
		      dev_reads = num_after(s->out, "; reads ");
	assert_true(dev_irqs > 200);
	assert_true(dev_reads > 200);
	/* the ELF names its part and clock now (instrument's --freq): import
	 * and replay need no flags */
	if (test_run(s->out, sizeof s->out, "%s import %s/run.log --elf %s/fw.elf -o %s/run.db && "
		     "%s replay %s/run.db --state-out %s/rep.state", a, s->dir, s->dir, s->dir, a,
		     s->dir, s->dir))
		fail_msg("import/replay: %s", s->out);
	assert_int_equal(num_after(s->out, " blocks, "), dev_irqs);
	char want[160];
	snprintf(want, sizeof want, "%lu of %lu device interrupts re-created, %lu of %lu input "
		 "reads fed: every item of the log matched", dev_irqs, dev_irqs, dev_reads,
		 dev_reads);
	if (!strstr(s->out, want))
		fail_msg("want '%s' in: %s", want, s->out);
	if (test_run(s->out, sizeof s->out, "cmp %s/dev.state %s/rep.state", s->dir, s->dir))
		fail_msg("final states differ: %s", s->out);
	/* the shell on the import, at a line of an ISR in another file than
	 * main's, with the interrupt and main behind it */
	if (test_run(s->out, sizeof s->out, "printf 'break button.c:13\\ncontinue\\nwhere\\n"
		     "p presses\\n' | %s shell %s/run.db", a, s->dir))
		fail_msg("shell: %s", s->out);
	assert_non_null(strstr(s->out, "Breakpoint 1, button.c:13\n"));
	assert_non_null(strstr(s->out, "pc=0x0104 __vector_1+0x20 at button.c:13"));
	assert_non_null(strstr(s->out, "#1  interrupt 1 (INT0_vect) taken at "));
	assert_non_null(strstr(s->out, "main, the outermost frame"));
	assert_non_null(strstr(s->out, "$1 = 1\n"));
}

/* Only the vector entries, the stack's two LDIs and the read's word
 * change in .text; the debug info, read by avr-gdb and avr-readelf, is
 * the original's; the runtime's symbols are there. */
static void test_debug_info_kept(void **state)
{
	test_scratch *s = *state;
	build(s);
	const char *d = s->dir;
	if (test_run(s->out, sizeof s->out, "avr-objcopy -O binary -j .text %s/devmulti.elf "
		     "%s/a.bin && avr-objcopy -O binary -j .text %s/fw.elf %s/b.bin && "
		     "cmp -l %s/a.bin %s/b.bin | wc -l", d, d, d, d, d, d) != 0)
		fail_msg("objcopy: %s", s->out);
	/* four JMPs (reset, INT0, TIMER2_COMPA, TIMER1_OVF) differ in at most
	 * their 2 address bytes each, the LDIs in 2 bytes, the IN and the
	 * SBIS -> RCALL in 2 each */
	unsigned long bytes = strtoul(s->out, NULL, 10);
	assert_true(bytes >= 4 + 2 + 2 && bytes <= 4 * 2 + 2 + 2 * 2);
	if (test_run(s->out, sizeof s->out, "cmp -l %s/a.bin %s/b.bin | awk '{print $1 - 1}' | "
		     "tr '\\n' ' '", d, d))
		fail_msg("cmp: %s", s->out);
	/* every difference is in the vector table, the crt's LDIs or the read */
	for (char *p = s->out, *e; *p; p = e) {
		unsigned long at = strtoul(p, &e, 10);
		if (e == p)
			break;
		assert_true(at < 0x68 || (at >= 0x6c && at < 0x70) || (at >= 0xb0 && at < 0xb2) ||
			    (at >= 0x104 && at < 0x106));
	}
	if (test_run(s->out, sizeof s->out, "for f in devmulti fw; do avr-readelf "
		     "--debug-dump=decodedline,info %s/$f.elf | tail -n +3 | md5sum; done | uniq | "
		     "wc -l", d) || strtoul(s->out, NULL, 10) != 1)
		fail_msg("the line table or the DWARF differs: %s", s->out);
	static const char gdb[] = "avr-gdb -batch -ex 'info line button.c:13' -ex 'p &presses' "
		"-ex 'ptype ticks' -ex 'info symbol 0x1c' %s/%s.elf 2>&1 | head -3";
	char orig[1024];
	if (test_run(orig, sizeof orig, gdb, d, "devmulti") ||
	    test_run(s->out, sizeof s->out, gdb, d, "fw"))
		fail_msg("avr-gdb: %s", s->out);
	assert_string_equal(s->out, orig);
	assert_non_null(strstr(s->out, "Line 13 of \"button.c\" starts at address 0x104 "
			       "<__vector_1+32>"));
	assert_non_null(strstr(s->out, "<presses>"));
	if (test_run(s->out, sizeof s->out, "avr-nm %s/fw.elf", d))
		fail_msg("nm: %s", s->out);
	assert_non_null(strstr(s->out, " T avrr_hook_vector_1\n"));
	assert_non_null(strstr(s->out, " T avrr_hook_vector_7\n"));
	assert_non_null(strstr(s->out, " T avrr_skip_at_000b0\n"));   /* sbis PIND, 2 */
	assert_non_null(strstr(s->out, " T avrr_read_at_00104\n"));
	assert_non_null(strstr(s->out, " B avrr_trace_ring\n"));
}

/* One line, exit 2, no file; src built for mcu with avr-gcc's crt unless
 * `nostart`. */
static void refused_built(test_scratch *s, const char *mcu, const char *src, int nostart,
			  const char *args, const char *line)
{
	char path[256];
	snprintf(path, sizeof path, "%s/bad.c", s->dir);
	test_write_text(path, src);
	if (test_run(s->out, sizeof s->out, "avr-gcc -mmcu=%s -Os %s -o %s/bad.elf %s", mcu,
		     nostart ? "-nostartfiles" : "", s->dir, path))
		fail_msg("avr-gcc: %s", s->out);
	int rc = test_run(s->out, sizeof s->out, "%s instrument %s/bad.elf %s -o %s/out.elf",
			  test_avrr(), s->dir, args, s->dir);
	assert_int_equal(rc, 2);
	if (!strstr(s->out, line))
		fail_msg("want '%s' in: %s", line, s->out);
	assert_int_equal(strchr(s->out, '\n') - s->out, strlen(s->out) - 1);
	snprintf(path, sizeof path, "%s/out.elf", s->dir);
	assert_int_not_equal(access(path, F_OK), 0);
}

static void refused(test_scratch *s, const char *src, const char *args, const char *line)
{
	refused_built(s, "atmega328p", src, 0, args, line);
}

/* A vector table of JMPs without avr-libc's crt: its own reset code. */
#define OWN_VECTORS(reset) \
	"__asm__(\".section .vectors,\\\"ax\\\",@progbits\\n" reset "\\n.rept 25\\n" \
	"jmp bad\\n.endr\\n.text\\nstart: rjmp start\\nbad: rjmp bad\");\n"

static void test_refusals(void **state)
{
	/* no stack set-up to move under the tracer's RAM */
	refused_built(*state, "atmega328p", OWN_VECTORS("jmp start"), 1, "--log uart --mcu atmega328p",
		      "no avr-libc stack set-up (ldi r28/r29 with RAMEND 0x8ff, out SPH/SPL) in "
		      "the reset code at 0x68: cannot reserve the tracer's RAM");
	/* a vector entry that is no jump */
	refused_built(*state, "atmega328p", OWN_VECTORS("nop\\nnop"), 1, "--log uart --mcu atmega328p",
		      "the reset vector at 0x0 is not a jump");
	test_scratch *s = *state;
	/* 32,600 bytes of constants: the runtime does not fit the 32 KB */
	refused(s, "#include <avr/pgmspace.h>\n"
		"const char big[32600] PROGMEM = { 1 };\n"
		"int main(void) { return pgm_read_byte(&big[GPIOR0]); }\n",
		"--log uart --fp 'sel=SPL+SPH+SREG+r24,hash=jenkins,ra=8,width=32'",
		"avrr instrument: ");
	assert_non_null(strstr(s->out, "no room in flash: the firmware's image ends at 0x"));
	/* the firmware's own TIMER1_OVF under a 32-bit cycle counter */
	refused(s, "#include <avr/interrupt.h>\nvolatile char n;\nISR(TIMER1_OVF_vect) { n++; }\n"
		"int main(void) { for (;;) ; }\n", "--log uart",
		"no 16-bit timer is free for the cycle counter (the firmware handles TIMER1_OVF "
		"(vector 13, at 0x");
	/* a sink the part does not have, or that avrr cannot drive */
	refused(s, "int main(void) { for (;;) ; }\n", "--log uart1",
		"the atmega328p has no USART1");
	refused(s, "int main(void) { for (;;) ; }\n", "--log serial",
		"--log: 'serial'; give uart, uart1..uart3, spi, func or none");
	refused(s, "int main(void) { for (;;) ; }\n", "--log none --log-loads",
		"--log-loads logs into the device log: give --log SINK");
	/* the ATtiny85: no 16-bit timer for cycles:K, no SPI (a USI) */
	static const char tiny[] = "#include <avr/interrupt.h>\nvolatile char n;\n"
		"ISR(TIMER0_OVF_vect) { n++; }\nint main(void) { for (;;) ; }\n";
	refused_built(s, "attiny85", tiny, 0, "--log uart", "bad.elf: no 16-bit timer is free for "
		      "the cycle counter (the part has none): give --fp a spec without cycles:K");
	refused_built(s, "attiny85", tiny, 0, "--log spi --fp "
		      "'sel=SPL+SPH+SREG+r24,hash=jenkins,ra=8,width=32'",
		      "avrr does not know the attiny85's SPI pins");
	/* sic:K's counter needs code that moves */
	refused(s, "int main(void) { for (;;) ; }\n",
		"--log uart --fp 'sel=SPL+SPH+SREG+sic:16,hash=jenkins,ra=8,width=32'",
		"sic:K needs the counter's rewrite of the code");
	/* a read into r0, which the logging's own sequence uses */
	refused(s, "#include <avr/io.h>\nvolatile char n;\n"
		"int main(void) { for (;;) { __asm__ volatile(\"in r0, 0x09\\n\\tsts n, r0\"); } }\n",
		"--log uart --fp 'sel=SPL+SPH+SREG+r24,hash=jenkins,ra=8,width=32'",
		"an input read into r0 at 0x");
	/* --log func without the firmware's sink */
	refused(s, "int main(void) { for (;;) ; }\n", "--log func",
		"--log func sends to the firmware's own void avrr_log_sink(uint8_t), which it "
		"does not have");
	/* --baud without a clock */
	refused(s, "int main(void) { for (;;) ; }\n", "--log uart --baud 9600",
		"--baud needs the clock, which the ELF does not name");
}

/* The device loop on DIR/fw.elf: `avrr instrument elf INST`, stamp,
 * `device DEV`, `import IMP`, replay, and the two final states compared,
 * all it printed in s->out; else the test fails, naming `what`. */
static void loop_closes(test_scratch *s, const char *what, const char *elf, const char *inst,
			const char *dev, const char *imp)
{
	const char *a = test_avrr(), *d = s->dir;
	if (test_run(s->out, sizeof s->out, "%s instrument %s %s -o %s/fw.elf && %s stamp %s/fw.elf "
		     "&& %s device %s/fw.elf %s --log-out %s/run.log --state-out %s/dev.state && "
		     "%s import %s/run.log --elf %s/fw.elf -o %s/run.db %s && %s replay %s/run.db "
		     "--state-out %s/rep.state && cmp %s/dev.state %s/rep.state", a, elf, inst, d, a,
		     d, a, d, dev, d, d, a, d, d, d, imp, a, d, d, d, d))
		fail_msg("%s: %s", what, s->out);
}

/* --log func: the runtime calls the firmware's own avrr_log_sink (here
 * to GPIOR0); the loop closes through it as through the UART.  The
 * firmware has initialised data, whose load image the runtime follows. */
static void test_func_sink(void **state)
{
	test_scratch *s = *state;
	const char *d = s->dir;
	char path[256];
	snprintf(path, sizeof path, "%s/sink.c", d);
	test_write_text(path, "#include <avr/io.h>\n#include <avr/interrupt.h>\n"
	      "volatile unsigned n = 0x1234;\nconst char *msg = \"hello world\";\n"
	      "void avrr_log_sink(uint8_t b) { GPIOR0 = b; }\n"
	      "ISR(TIMER0_OVF_vect) { n++; }\n"
	      "int main(void) { TCCR0B = 3; TIMSK0 = 1; sei(); for (;;) ; }\n");
	if (test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega328p -Os -gdwarf-4 -o %s/sink.elf "
		     "%s", d, path))
		fail_msg("avr-gcc: %s", s->out);
	snprintf(path, sizeof path, "%s/sink.elf", d);
	loop_closes(s, "func sink", path, "--log func --freq 16000000", "--log-reg GPIOR0",
		    "--log-reg GPIOR0");
	/* after .text (0xda bytes) and the .data load image (16 bytes) */
	assert_non_null(strstr(s->out, "hooked 1 vector (and the reset, and TIMER1_OVF), logged 0 "
			       "input reads in place; the tracer: 1506 bytes of flash at 0x000ea-"));
	unsigned long irqs = num_after(s->out, " blocks, ");
	assert_true(irqs > 200);
	char want[96];
	snprintf(want, sizeof want, "%lu of %lu device interrupts re-created", irqs, irqs);
	assert_non_null(strstr(s->out, want));
}

/* The byte at data address addr in a state file (devreplay_write_state:
 * "sram 0xADDR b b b ..." lines). */
static unsigned state_byte(const char *path, unsigned addr)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		unsigned base;
		int at;
		if (sscanf(line, "sram 0x%x%n", &base, &at) != 1 || addr < base || addr >= base + 32)
			continue;
		const char *q = line + at;
		unsigned v = 0;
		for (unsigned i = base; i <= addr; i++) {
			char *e;
			v = (unsigned)strtoul(q, &e, 16);
			assert_true(e != q);
			q = e;
		}
		fclose(f);
		return v;
	}
	fclose(f);
	fail_msg("no byte 0x%x in %s", addr, path);
	return 0;
}

static unsigned state_u16(const char *path, test_scratch *s, const char *elf, const char *var)
{
	if (test_run(s->out, sizeof s->out, "avr-nm %s | sed -n 's/^0080\\(....\\) . %s$/\\1/p'",
		     elf, var) || !*s->out)
		fail_msg("no %s in %s: %s", var, elf, s->out);
	unsigned a = (unsigned)strtoul(s->out, NULL, 16);
	return state_byte(path, a) | state_byte(path, a + 1) << 8;
}

/* A polled echo on the ATmega16 (tests/firmware/uart_echo_m16.c): both
 * of its waits are SBIS on UCSRA, the one on RXC an input read, the one
 * on UDRE not (docs/device.md, "Input reads"): two reads logged in place
 * (that poll and UDR's IN), the UDRE wait kept as it is, and the replay,
 * which judges each read by the instruction at its PC, feeds every item
 * of the log through the echoes. */
static void test_udre_wait_not_logged(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr(), *d = s->dir;
	if (test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega16 -DF_CPU=8000000UL -Os -gdwarf-4 "
		     "-I/usr/include/simavr -include tests/firmware/log_sink.h -o %s/fw0.elf "
		     "tests/firmware/uart_echo_m16.c && %s instrument %s/fw0.elf --log func -o "
		     "%s/fw.elf && avr-objdump -d %s/fw.elf | grep -c 'sbis\t0x0b, 5'",
		     d, a, d, d, d))
		fail_msg("instrument: %s", s->out);
	assert_non_null(strstr(s->out, "hooked 1 vector (and the reset, and TIMER1_OVF), logged 2 "
			       "input reads in place;"));
	assert_non_null(strstr(s->out, "\n1\n"));
	if (test_run(s->out, sizeof s->out, "%s stamp %s/fw.elf && %s device %s/fw.elf --stimuli "
		     "tests/firmware/uart_echo_m16.stim --log-out %s/run.log --uart-out %s/echo.txt "
		     "--state-out %s/dev.state --instructions 1000000 && %s import %s/run.log --elf "
		     "%s/fw.elf -o %s/run.db && %s replay %s/run.db --state-out %s/rep.state && "
		     "cmp %s/dev.state %s/rep.state && cat %s/echo.txt", a, d, a, d, d, d, d, a, d, d,
		     d, a, d, d, d, d, d))
		fail_msg("device loop: %s", s->out);
	unsigned long irqs = num_after(s->out, " blocks, "), reads = num_after(s->out, " interrupts, ");
	assert_true(irqs >= 5 && reads > 2000);
	char want[128];
	snprintf(want, sizeof want, "%lu of %lu device interrupts re-created, %lu of %lu input reads "
		 "fed: every item of the log matched", irqs, irqs, reads, reads);
	assert_non_null(strstr(s->out, want));
	/* the echo went through the UDRE wait, ten times a line */
	assert_non_null(strstr(s->out, "ifmmp\v"));
}

/* A skip on an input on the ATmega2560, whose return addresses are 3
 * bytes: its copy adds the skip to the low two and carries into the
 * third.  A pin high 1 ms in 3 is tested by an SBIS taken both ways; each
 * turn of the loop counts one of high and low, and turns, so the device's
 * counts (had the copy returned anywhere else, the loop would have lost
 * its way) add up, in the proportion of the pin's levels; the replay
 * re-creates them. */
static void test_skip_with_3_byte_pc(void **state)
{
	test_scratch *s = *state;
	const char *d = s->dir;
	char path[256];
	snprintf(path, sizeof path, "%s/pin.c", d);
	test_write_text(path, "#include <avr/io.h>\n#include <avr/interrupt.h>\n"
	      "volatile unsigned high, low, turns;\n"
	      "void avrr_log_sink(uint8_t b) { GPIOR0 = b; }\n"
	      "ISR(TIMER0_OVF_vect) { }\n"
	      "int main(void) { TCCR0B = 3; TIMSK0 = 1; sei();\n"
	      "\tfor (;;) { if (PINB & 1) high++; else low++; turns++; } }\n");
	snprintf(path, sizeof path, "%s/pin.stim", d);
	test_write_text(path, "seed 3\npin B0 every 3ms start 1ms pulse 1ms\n");
	if (test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega2560 -Os -o %s/pin.elf %s/pin.c && "
		     "avr-objdump -d %s/pin.elf | grep -c 'sbis\t0x03, 0'", d, d, d))
		fail_msg("avr-gcc: %s", s->out);
	assert_string_equal(s->out, "1\n");
	char elf[256], stim[300];
	snprintf(elf, sizeof elf, "%s/pin.elf", d);
	snprintf(stim, sizeof stim, "--stimuli %s/pin.stim --instructions 1000000", d);
	loop_closes(s, "atmega2560", elf, "--log func --freq 16000000 --fp "
		    "'sel=SPL+SPH+SREG+r24,hash=jenkins,ra=8,width=32'", stim, "");
	assert_non_null(strstr(s->out, "hooked 1 vector (and the reset), logged 1 input read in "
			       "place;"));
	unsigned long irqs = num_after(s->out, " blocks, "), reads = num_after(s->out, " interrupts, ");
	char want[128];
	snprintf(want, sizeof want, "%lu of %lu device interrupts re-created, %lu of %lu input reads "
		 "fed: every item of the log matched", irqs, irqs, reads, reads);
	assert_non_null(strstr(s->out, want));
	snprintf(path, sizeof path, "%s/dev.state", d);
	snprintf(elf, sizeof elf, "%s/fw.elf", d);
	unsigned high = state_u16(path, s, elf, "high"), low = state_u16(path, s, elf, "low"),
		 turns = state_u16(path, s, elf, "turns");
	/* stopped anywhere in the loop: a turn may have counted one and not
	 * yet turns; each turn one read */
	assert_true(high + low == turns || high + low == turns + 1);
	assert_true(reads == turns || reads == turns + 1);
	assert_true(turns > 2000);
	assert_true(high * 4 > turns && high * 5 < turns * 2);   /* a third, about */
}

/* The pump controller on the ATmega2560 (tests/firmware/multi), as built:
 * its input reads, found here in avr-objdump's listing, are the RX
 * handler's LDS of UDR0 (0xc6), uart_put's LDS of UCSR0A (0xc0: a whole
 * byte, whatever bit it then tests) and the INT0 handler's SBIS on PIND0
 * (I/O 0x09: the button); each becomes a call of its copy
 * avrr_read_at_ADDR, and no other.  (Its Timer1 is its own: the spec has
 * no cycle counter.) */
static void test_pump_2560(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr(), *d = s->dir;
	const char *elf = "tests/firmware/multi/pump_atmega2560.elf";
	if (test_run(s->out, sizeof s->out, "avr-objdump -d %s | grep -E '(lds\tr[0-9]+, 0x00C[06]"
		     "|sbi[sc]\t0x09, 0)\t' | sed 's/^ *\\([0-9a-f]*\\):.*/0000\\1/; s/^0*\\(.....\\)$/\\1/' "
		     "| sort", elf))
		fail_msg("avr-objdump: %s", s->out);
	char want[3 * 6 + 1];
	assert_int_equal(strlen(s->out), 3 * 6);   /* "0ADDR\n" each: 5 hex digits */
	memcpy(want, s->out, sizeof want);
	if (test_run(s->out, sizeof s->out, "%s instrument %s --log uart --board mega --fp "
		     "'sel=SPL+SPH+SREG+r24,hash=jenkins,ra=8,width=32' -o %s/fw.elf", a, elf, d))
		fail_msg("instrument: %s", s->out);
	assert_non_null(strstr(s->out, "hooked 3 vectors (and the reset), logged 3 input reads in "
			       "place;"));
	if (test_run(s->out, sizeof s->out, "avr-nm %s/fw.elf | sed -n 's/.* avrr_[a-z]*_at_//p' | "
		     "sort", d))
		fail_msg("avr-nm: %s", s->out);
	assert_string_equal(s->out, want);
}

/* A part without JMP (the ATmega88, 8 KB): RJMP vectors to the stubs,
 * RJMPs back to the handlers (the link resolves them, wrapping the 8 KB),
 * RCALL to the read's copy. */
static void test_rjmp_part(void **state)
{
	test_scratch *s = *state;
	const char *d = s->dir;
	char path[256];
	snprintf(path, sizeof path, "%s/m88.c", d);
	test_write_text(path, "#include <avr/io.h>\n#include <avr/interrupt.h>\nvolatile unsigned n, e;\n"
	      "volatile unsigned char lv;\nISR(TIMER0_OVF_vect) { n++; }\n"
	      "ISR(INT0_vect) { e++; lv = PIND; }\n"
	      "int main(void) { EICRA = 3; EIMSK = 1; TCCR0B = 3; TIMSK0 = 1; sei(); for (;;) ; }\n");
	if (test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega88 -Os -gdwarf-4 -o %s/m88.elf "
		     "%s", d, path))
		fail_msg("avr-gcc: %s", s->out);
	snprintf(path, sizeof path, "%s/m88.elf", d);
	loop_closes(s, "atmega88", path, "--log uart --baud 500000 --send-masked --freq 8000000",
		    "--stimuli " DM "/devmulti.stim", "");
	size_t len = strlen(s->out);
	if (test_run(s->out + len, sizeof s->out - len, "avr-objdump -d %s/fw.elf | "
		     "grep -E '^ +[02]:'", d))
		fail_msg("avr-objdump: %s", s->out);
	/* 79 cycles: RCALL (3) for CALL, RJMP (2) for JMP */
	assert_non_null(strstr(s->out, "hooked 2 vectors (and the reset, and TIMER1_OVF), logged 1 "
			       "input read in place;"));
	assert_non_null(strstr(s->out, "79 cycles per interrupt in the stub"));
	assert_non_null(strstr(s->out, "rjmp\t.+358    \t; 0x168 <avrr_rt_reset>"));
	assert_non_null(strstr(s->out, "<avrr_hook_vector_1>"));
	unsigned long irqs = num_after(s->out, " blocks, "), reads = num_after(s->out, " interrupts, ");
	assert_true(irqs > 200 && reads > 50);
	char want[128];
	snprintf(want, sizeof want, "%lu of %lu device interrupts re-created, %lu of %lu input reads "
		 "fed", irqs, irqs, reads, reads);
	assert_non_null(strstr(s->out, want));
}

/* A firmware whose simavr .mmcu section the link left in flash, after
 * .text: it is part of the image, so the runtime goes after it, and it
 * stays where it was (its MCU and clock still read by avrr, main still
 * main to avr-gdb). */
static void test_mmcu_in_flash(void **state)
{
	test_scratch *s = *state;
	const char *a = test_avrr(), *d = s->dir;
	if (test_run(s->out, sizeof s->out, "avr-gcc -mmcu=atmega328p -DF_CPU=16000000UL -Os "
		     "-gdwarf-4 -I/usr/include/simavr -o %s/fw0.elf tests/firmware/int0_busy.c && "
		     "%s instrument %s/fw0.elf --log uart --baud 500000 -o %s/fw.elf && "
		     "avr-objdump -h %s/fw0.elf %s/fw.elf | grep -E '\\.mmcu|\\.avrr_text' && "
		     "avr-gdb -batch -ex 'info symbol main' %s/fw.elf && %s stamp %s/fw.elf && "
		     "%s device %s/fw.elf --stimuli tests/firmware/int0_busy.stim --log-out %s/run.log",
		     d, a, d, d, d, d, d, a, d, a, d, d))
		fail_msg("mmcu: %s", s->out);
	const char *m = strstr(s->out, ".mmcu");
	assert_non_null(m);
	char orig[80];
	snprintf(orig, sizeof orig, "%.42s", m);
	/* the same name, size, VMA and LMA in the instrumented ELF (its file
	 * offset aside) */
	assert_non_null(strstr(m + 1, orig));
	assert_non_null(strstr(s->out, ".avrr_text    0000060a  00000124  00000124"));  /* after .mmcu */
	assert_non_null(strstr(s->out, "main in section .text\n"));
	assert_non_null(strstr(s->out, "device: "));
}

/* A re-run replaces the ELF this route wrote before, with no --force, as
 * the header route's does; a copy of it (which loses avrr's mark) is
 * still refused. */
static void test_rerun_replaces_its_output(void **state)
{
	test_scratch *s = *state;
	build(s);
	char path[512], v[16];
	snprintf(path, sizeof path, "%s/fw.elf", s->dir);
	if (getxattr(path, "user.avrr.output", v, sizeof v) < 0 && errno == ENOTSUP)
		skip();  /* no extended attributes here: only --force replaces */
	char *first = strdup(s->out);
	assert_non_null(first);
	/* stamp, the pipeline's next step, rewrites it and keeps it instrument's */
	assert_int_equal(test_run(s->out, sizeof s->out, "%s stamp %s/fw.elf && %s " INSTRUMENT
				  " -o %s/fw.elf", test_avrr(), s->dir, test_avrr(), s->dir, s->dir),
			 0);
	const char *again = strstr(s->out, "hooked ");
	assert_non_null(again);
	assert_string_equal(again, first);
	free(first);
	assert_int_equal(test_run(s->out, sizeof s->out, "cp %s/fw.elf %s/copy.elf && %s "
				  INSTRUMENT " -o %s/copy.elf", s->dir, s->dir, test_avrr(), s->dir,
				  s->dir), 2);
	test_assert_contains(s->out, "copy.elf: exists and is not an ELF avrr instrument wrote");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mmcu_in_flash, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_rjmp_part, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_func_sink, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_device_loop, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_debug_info_kept, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_rerun_replaces_its_output, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_udre_wait_not_logged, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_skip_with_3_byte_pc, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_pump_2560, test_scratch_setup,
						test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
