/*
 * expr.h — C expressions over the firmware's DWARF types, for the shell's
 * `print`, `display`, `info locals` and `info args`, printed as gdb prints
 * them.
 *
 * The language is the C subset a firmware engineer types at gdb: variables
 * (the frame's locals and arguments, then globals), numbers (decimal, 0x
 * hex, 0 octal) and character literals, $pc, $sp and $r0..$r31;
 * postfix [i], .field, ->field; unary - + ! ~ * & and casts to a named type
 * or a pointer to one ("(char)x", "*(uint16_t *)0x100"); binary * / % + -
 * << >> < <= > >= == != & ^ | && || with C's precedence and C's integer
 * promotions at AVR's sizes (int is 2 bytes, long 4).  Parsing is recursive
 * descent and evaluates as it goes (expr.c); values print in value.c.
 *
 * Output shapes are avr-gdb's (checked against it on tests/firmware/sensors.elf):
 *   uint32_t             2                      /x: 0x2
 *   uint8_t, char        20 '\024'
 *   struct               {id = 30 '\036', last = 0, offset = 0, samples = 0 '\000'}
 *   array                {0, 0, 0, 0}, {83, 0 <repeats 23 times>}
 *   char array           "S2=0\n", '\000' <repeats 18 times>
 *   pointer              (struct sensor * volatile) 0x800108 <sensors+6>
 *   char pointer         0x800115 <line> "S2=0\n"
 *   no location here     <optimized out>
 * Data pointers print as avr-gcc's data addresses, 0x800000 + a.
 */
#ifndef AVRR_SHELL_EXPR_H
#define AVRR_SHELL_EXPR_H

#include <stdio.h>

#include "dwarf/debuginfo.h"
#include "shell/view.h"

/* A value: in data memory (lval, at addr) or held here (bytes). */
typedef struct xval {
	dtype t;
	int lval;
	uint32_t addr;
	int optimized_out;
	int is_pc;               /* $pc: printed as gdb's (void (*)()) */
	uint8_t bytes[16];
} xval;

/* A value of gdb's value history, $num, as it was when printed. */
typedef struct xhist {
	unsigned num;            /* 0: an empty slot */
	xval v;                  /* held (not lval); t.size > 16: too large to keep */
} xhist;

/* Where an expression is evaluated: the machine, the DWARF, the frame
 * whose locals and registers it sees, and the value history ($, $N, $$,
 * $$N; hist may be NULL). */
typedef struct xctx {
	const mview *m;
	const dwinfo *d;
	const dw_frame *f;
	const xhist *hist;
	unsigned nhist;
	unsigned hist_last;      /* the number of the last value printed */
} xctx;

/* The data space of the machine view, as dwarf/ reads it. */
static inline dw_mem expr_mem(const mview *m)
{
	return (dw_mem){ m->data, m->data_size };
}

/* Parses and evaluates `text`.  Errors are one line; syntax errors name
 * the column (1-based, in text): "A syntax error in expression at column
 * 9, near `'.".  Returns 0, or -1 with err set. */
int expr_eval(const xctx *c, const char *text, xval *v, avrr_err *err);

/* The value's bytes (memory for an lval), or NULL with err set when it
 * lies outside the data space or was optimized out. */
const uint8_t *expr_bytes(const xctx *c, const xval *v, avrr_err *err);

/* Prints v's value (no newline) in gdb's format letter fmt (0: natural;
 * x d u o t c a z).  A pointer says its type first, "(struct sensor *)
 * 0x800108", when `typed` (print, display), not in a list of variables
 * (info locals, frame lines), as in gdb.  Returns 0, or -1 with err set
 * (nothing printed). */
int expr_print(FILE *out, const xctx *c, const xval *v, char fmt, int typed, avrr_err *err);

/* The address a value names for x: a pointer's value, an integer taken as
 * an address (0x800000 + a: data address a), an object's own address.
 * *is_code for pointers to functions. */
int expr_address(const xctx *c, const xval *v, uint32_t *addr, int *is_code, avrr_err *err);

/* What `watch EXPR` watches: the object an lvalue expression names (a
 * variable, `tank.level`, `buf[3]`, `*p`), its data address and size in
 * bytes, and its type to print the old and new values with.  Returns 0,
 * or -1 with err set (gdb's "Cannot watch constant value" for a value not
 * in memory). */
int expr_lvalue(const xctx *c, const char *text, uint32_t *addr, unsigned *size, dtype *t,
		avrr_err *err);

/* Prints a value of type t held in `bytes` (little-endian, at most 16). */
int expr_print_bytes(FILE *out, const xctx *c, const dtype *t, const uint8_t *bytes,
		     avrr_err *err);

/* whatis (expand 0) and ptype (expand 1: a struct's or union's members,
 * one a line, and an enum's values) of an expression or a type name. */
int expr_type(FILE *out, const xctx *c, const char *text, int expand, avrr_err *err);

/* Keeps v in the history slot h as $num: its contents now, so that $num
 * means the same wherever the replay goes. */
void expr_keep(const xctx *c, const xval *v, unsigned num, xhist *h);

/* Splits "/x EXPR" into the format letter and the expression; a leading
 * '/' is required for a format.  Errors: "Undefined output format \"q\".". */
int expr_format(const char *args, char *fmt, const char **rest, avrr_err *err);

#endif
