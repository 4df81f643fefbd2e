/*
 * view.h — the shell's printers over a machine view, in gdb's style:
 * `info registers`, `info io`, `x`, `print`, `disassemble`, and the address
 * expressions they share with `break` and `watch`.
 *
 * A machine view is a read-only snapshot: the data space (registers, I/O,
 * SRAM), the firmware (flash image and symbols), and where the CPU is.
 * Data addresses are data-space addresses (0x60 is the first SRAM byte on an
 * ATmega16); code addresses are flash byte addresses, as avr-objdump prints.
 *
 * Output formats (stable; tests check them exactly):
 *
 *   info registers   one register per line, name left-justified in 15
 *                    columns, raw value in 9, then the natural value:
 *                      "r24            0x11     17"
 *                      "SREG           0x82     [ I Z ]"   (set flags, I..C)
 *                      "SP             0x045d   0x45d"
 *                      "PC             0x00034a main+0x4"  (fw_describe_pc)
 *   info io          "PORTB   0x38  0x70": name in 8 columns (at least one
 *                    space), data-space address in 6, value.
 *   x                "0x60 <vmin>:\t0xff\t0xff", values tab-separated, 8 per
 *                    line for units b and h, 4 for w, 2 for g; the label is
 *                    <symbol+offset> (decimal offset, like gdb) when a data
 *                    symbol covers the address (a code symbol in flash).
 *                    x/s: "0x62:\t\"adcapp ready\\r\\n\"" (C escapes,
 *                    at most 200 characters, then "...").
 *                    x/i: "   0x346 <main>:\tpush\tr28", "=> " at the pc;
 *                    jumps, calls and branches add "\t; 0x396 <main+80>".
 *   print            "vmin = 65535 (0xffff)", "r24 = 17 (0x11)",
 *                    "PORTB = 112 (0x70)", "$sreg = 130 (0x82) [ I Z ]",
 *                    "$sp = 1117 (0x045d)", "$pc = 0x34a <main+4>",
 *                    "main = 0x346 <main>" for a code symbol, and
 *                    "ee_rec = {0x01, 0x02, 0x03, 0x04, 0x05}" for sizes
 *                    other than 1, 2, 4, 8 (at most 200 bytes, then "...").
 *   disassemble      "Dump of assembler code around pc 0x34a (main+0x4):",
 *                    lines as x/i, "End of assembler dump.".
 *
 * Address expressions: a number (decimal, 0x hex, 0 octal), a data symbol
 * (its address), a code symbol, `$pc`, `$sp` (the stack pointer's value, a
 * data address), an I/O register name (its data address), each optionally
 * prefixed by `&` and followed by `+N` or `-N`.  Numbers are data addresses
 * unless the context defaults to code (x/i, `break`); avr-gcc's data
 * addresses 0x800000 + a are accepted as data address a.
 */
#ifndef AVRR_VIEW_H
#define AVRR_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "sim/firmware.h"
#include "sim/ioregs.h"
#include "util/err.h"

typedef struct mview {
	const uint8_t *data;      /* data space 0..data_size-1, SREG byte live */
	uint32_t data_size;
	const firmware *fw;       /* flash image + symbols */
	const mcu_names *names;   /* I/O register names; may be NULL */
	uint32_t pc;              /* byte address */
	uint64_t icount;
} mview;

/* gdb's sticky state of the x command.  Zero-initialised is gdb's start:
 * format x, unit b (AVR's natural unit, where gdb would use w), count 1,
 * next address 0 in data space. */
typedef struct view_xstate {
	char format;         /* last format letter, 0 = 'x' */
	char unit;           /* last unit letter b/h/w/g, 0 = 'b' */
	unsigned count;      /* last count; reused only by a bare `x` */
	uint32_t next;       /* address after the last unit examined */
	int next_is_code;    /* ... and its space */
} view_xstate;

/* `info registers`: r0..r31, SREG, SP, PC (formats above). */
void view_registers(FILE *out, const mview *m);

/* `info io`: every named I/O register of the MCU with address and value, in
 * address order; nothing when m->names is NULL. */
void view_io(FILE *out, const mview *m);

/* gdb's x command.  `fmt` is what follows "x" ("" or "/16xb", "/4dw", "/s",
 * "/3i", "/c"; the '/' may be omitted): a count, a format among x d u o t c
 * a s i and a unit among b h w g, in any order.  `expr` is an address
 * expression (empty: continue after the last examined address).  Formats
 * and units stick between calls through `last`, as in gdb; the count sticks
 * only when both fmt and expr are empty (gdb's repeat by Enter); `last` may
 * be NULL for no memory.  c and s use bytes; a uses 2-byte units unless
 * given and labels each value with the symbol it points into in the space
 * examined; i reads flash whatever the address expression says.  Multi-byte
 * units are little-endian.  Returns 0,
 * or -1 with err set ("bad format 'q'", "no symbol \"foo\" in the firmware",
 * "cannot access address 0x9999"); nothing is printed and `last` is
 * unchanged on error. */
int view_examine(FILE *out, const mview *m, const char *fmt, const char *expr,
		 view_xstate *last, avrr_err *err);

/* `print NAME` on a firmware without DWARF types (the shell's typed
 * expressions, expr.h, serve the others): a global variable by ELF symbol and size (little-endian
 * unsigned, decimal and hex; a byte list for other sizes), r0..r31 (also
 * $r0..), $pc, $sp, $sreg, an I/O register name, or a code symbol.  Returns
 * 0, or -1 with err set as view_examine. */
int view_print(FILE *out, const mview *m, const char *expr, avrr_err *err);

/* `disassemble`: `before` instructions before the pc, the pc's, and `after`
 * after it.  Instructions before the pc are found by decoding forward from
 * the enclosing code symbol (or from the nearest earlier point whose decoding
 * lands on the pc), since AVR's mixed 1- and 2-word encodings cannot be
 * decoded backward. */
void view_disassemble(FILE *out, const mview *m, unsigned before, unsigned after);

/* Resolves an address expression (see above); code_default says whether a
 * bare number is a flash address.  *is_code is set when the address is in
 * flash.  Fails when the address lies outside its space ("cannot access
 * address 0x9999").  Exposed for `break` and `watch`. */
int view_address(const mview *m, const char *expr, int code_default,
		 uint32_t *addr, int *is_code, avrr_err *err);

#endif
