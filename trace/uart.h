/*
 * uart.h — the text a firmware sent on its UARTs: the log's writes to a
 * UART's data register (UDRn, or UDR on parts with one UART), as bytes and
 * as lines a terminal can show.  One reading for every front-end: the
 * record console, `avrr export --uart`, the shell's `info uart`.
 *
 * A byte counts as sent when the CPU writes it to the data register (the
 * log's write event), as simavr's own console counts it.
 */
#ifndef AVRR_TRACE_UART_H
#define AVRR_TRACE_UART_H

#include <stddef.h>
#include <stdint.h>

#include "sim/ioregs.h"
#include "trace/event.h"

#define TRACE_UARTS 4  /* UART0..UART3, the most an AVR has (ATmega2560) */

/* The data address of UART n's data register, and its name in *name (may
 * be NULL); -1 when the MCU has no UART n. */
int trace_uart_register(const mcu_names *names, unsigned n, const char **name);

/* The bytes the events ev[0..nev) wrote to data address udr, in order, up
 * to (not including) events at icount `before` (UINT64_MAX: all): a write
 * inside instruction k+1 has icount k, so these are the bytes the first
 * `before` instructions sent.  Writes them to out (NULL: only counts) and
 * returns how many. */
size_t trace_uart_bytes(const trace_event *ev, size_t nev, uint16_t udr, uint64_t before,
			uint8_t *out);

/* Lines of UART text, escaped as gdb prints a string: printable ASCII as
 * itself, a backslash as \\, \a \b \t \n \v \f \r and \033 as such, any
 * other byte as three octal digits (\377).  A line ends at '\n' (a '\r'
 * right before it is part of the line end, as on a serial terminal); a
 * line longer than TRACE_UART_LINE bytes is cut there. */
#define TRACE_UART_LINE 256
typedef struct trace_uart_lines {
	char text[TRACE_UART_LINE * 4 + 8];  /* the escaped line so far */
	size_t len, bytes;                   /* its length, and bytes in it */
	int cr;                              /* a '\r' waits to see a '\n' */
	void (*emit)(void *ud, const char *line);  /* each line, without its end */
	void *ud;
} trace_uart_lines;

void trace_uart_lines_init(trace_uart_lines *l, void (*emit)(void *ud, const char *line),
			   void *ud);
void trace_uart_lines_put(trace_uart_lines *l, uint8_t byte);
/* Emits the line begun, if any (the text's end, or a pause). */
void trace_uart_lines_flush(trace_uart_lines *l);
/* Whether a line is begun. */
static inline int trace_uart_lines_pending(const trace_uart_lines *l)
{
	return l->len || l->cr;
}

#endif
