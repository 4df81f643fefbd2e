/* uart.c — UART text from the log (see uart.h). */
#include "trace/uart.h"

#include <stdio.h>
#include <string.h>

int trace_uart_register(const mcu_names *names, unsigned n, const char **name)
{
	static const char *const UDR[TRACE_UARTS] = { "UDR0", "UDR1", "UDR2", "UDR3" };
	if (n >= TRACE_UARTS)
		return -1;
	const char *reg = UDR[n];
	int addr = ioregs_addr(names, reg);
	if (addr < 0 && n == 0) {  /* ATmega16, ATmega8: one UART, "UDR" */
		reg = "UDR";
		addr = ioregs_addr(names, reg);
	}
	if (name)
		*name = addr < 0 ? NULL : reg;
	return addr;
}

size_t trace_uart_bytes(const trace_event *ev, size_t nev, uint16_t udr, uint64_t before,
			uint8_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < nev && ev[i].icount < before; i++)
		if (ev[i].type == TRACE_WRITE && ev[i].addr == udr) {
			if (out)
				out[n] = (uint8_t)ev[i].value;
			n++;
		}
	return n;
}

void trace_uart_lines_init(trace_uart_lines *l, void (*emit)(void *ud, const char *line),
			   void *ud)
{
	memset(l, 0, sizeof *l);
	l->emit = emit;
	l->ud = ud;
}

static void emit_line(trace_uart_lines *l)
{
	l->text[l->len] = 0;
	l->emit(l->ud, l->text);
	l->len = l->bytes = 0;
}

/* Appends one byte's escaped form. */
static void append(trace_uart_lines *l, uint8_t b)
{
	static const char ESC[] = { ['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
				    ['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r' };
	char *p = l->text + l->len;
	if (b == '\\')
		l->len += (size_t)sprintf(p, "\\\\");
	else if (b >= 0x20 && b < 0x7f)
		*p = (char)b, l->len++;
	else if (b < sizeof ESC && ESC[b])
		l->len += (size_t)sprintf(p, "\\%c", ESC[b]);
	else
		l->len += (size_t)sprintf(p, "\\%03o", b);
	if (++l->bytes == TRACE_UART_LINE)
		emit_line(l);
}

void trace_uart_lines_put(trace_uart_lines *l, uint8_t byte)
{
	if (l->cr) {
		l->cr = 0;
		if (byte == '\n') {
			emit_line(l);
			return;
		}
		append(l, '\r');
	}
	if (byte == '\n')
		emit_line(l);
	else if (byte == '\r')
		l->cr = 1;
	else
		append(l, byte);
}

void trace_uart_lines_flush(trace_uart_lines *l)
{
	if (l->cr) {
		l->cr = 0;
		append(l, '\r');
	}
	if (l->len)
		emit_line(l);
}
