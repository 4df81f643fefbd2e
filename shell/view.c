/*
 * view.c — gdb-style printers over a machine view (see view.h).
 *
 * Everything here only reads the view.  view_examine renders into a memory
 * stream first so that an error part-way (an address running off the end of
 * its space) prints nothing, as view.h promises.
 */
#include "shell/view.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sim/avr_decode.h"
#include "util/avrspace.h"
#include "util/le.h"

/* Where classic AVR cores keep these (I/O 0x3d-0x3f). */
#define SPL_ADDR  0x5d
#define SPH_ADDR  0x5e
#define SREG_ADDR 0x5f

#define PRINT_MAX_BYTES 200  /* gdb's default `print elements` limit */
#define STRING_MAX 200

static unsigned dbyte(const mview *m, uint32_t addr)
{
	return addr < m->data_size ? m->data[addr] : 0;
}

static unsigned sp_value(const mview *m)
{
	/* Parts with 128 bytes of SRAM or less have no SPH. */
	int has_sph = !m->names || ioregs_addr(m->names, "SPH") >= 0;
	return dbyte(m, SPL_ADDR) | (has_sph ? dbyte(m, SPH_ADDR) << 8 : 0);
}

/* "[ I N ]": SREG's set flags, from bit 7 down, as gdb lists flags. */
static void sreg_flags(unsigned sreg, char *buf, size_t n)
{
	static const char letters[] = "CZNVSHTI";
	size_t len = (size_t)snprintf(buf, n, "[ ");
	for (int b = 7; b >= 0 && len + 3 < n; b--)
		if (sreg & (1u << b))
			len += (size_t)snprintf(buf + len, n - len, "%c ", letters[b]);
	snprintf(buf + len, n - len, "]");
}

/* The data symbol covering addr, preferring a sized variable to the bare
 * linker labels (__data_start) that share its address. */
static const fw_symbol *data_symbol_at(const firmware *fw, uint32_t addr)
{
	for (size_t i = 0; i < fw->nsyms; i++) {
		const fw_symbol *s = &fw->syms[i];
		if (s->space == FW_SYM_DATA && s->size && addr >= s->addr &&
		    addr - s->addr < s->size)
			return s;
	}
	return fw_data_symbol_at(fw, addr);
}

/* " <sym+off>" (decimal offset, gdb's x and disassembly style) for the
 * symbol containing addr, or "" when none does. */
static void sym_label(const mview *m, uint32_t addr, int is_code, char *buf, size_t n)
{
	const fw_symbol *s = is_code ? fw_code_symbol_at(m->fw, addr)
				     : data_symbol_at(m->fw, addr);
	if (!s)
		buf[0] = 0;
	else if (s->addr == addr)
		snprintf(buf, n, " <%s>", s->name);
	else
		snprintf(buf, n, " <%s+%u>", s->name, addr - s->addr);
}

/* The bytes [addr, addr+len) of flash or data, or NULL if any lies outside
 * (*bad then says the first address that does). */
static const uint8_t *span(const mview *m, int is_code, uint32_t addr, uint32_t len,
			   uint32_t *bad)
{
	const uint8_t *base = is_code ? m->fw->flash : m->data;
	uint32_t size = is_code ? m->fw->flash_size : m->data_size;
	if (addr < size && len <= size - addr)
		return base + addr;
	*bad = addr < size ? size : addr;
	return NULL;
}

/* ---- info registers, info io ------------------------------------------- */

static void reg_line(FILE *out, const char *name, const char *raw, const char *natural)
{
	fprintf(out, "%-15s%-9s%s\n", name, raw, natural);
}

void view_registers(FILE *out, const mview *m)
{
	char name[8], raw[16], nat[96];
	for (unsigned r = 0; r < 32; r++) {
		snprintf(name, sizeof name, "r%u", r);
		snprintf(raw, sizeof raw, "0x%02x", dbyte(m, r));
		snprintf(nat, sizeof nat, "%u", dbyte(m, r));
		reg_line(out, name, raw, nat);
	}
	unsigned sreg = dbyte(m, SREG_ADDR);
	snprintf(raw, sizeof raw, "0x%02x", sreg);
	sreg_flags(sreg, nat, sizeof nat);
	reg_line(out, "SREG", raw, nat);
	unsigned sp = sp_value(m);
	snprintf(raw, sizeof raw, "0x%04x", sp);
	snprintf(nat, sizeof nat, "0x%x", sp);
	reg_line(out, "SP", raw, nat);
	snprintf(raw, sizeof raw, "0x%06x", m->pc);
	fw_describe_pc(m->fw, m->pc, nat, sizeof nat);
	reg_line(out, "PC", raw, nat);
}

void view_io(FILE *out, const mview *m)
{
	for (unsigned i = 0; m->names && i < m->names->nregs; i++) {
		const ioreg_name *r = &m->names->regs[i];
		char addr[16];
		snprintf(addr, sizeof addr, "0x%02x", r->addr);
		fprintf(out, "%-7s %-6s0x%02x\n", r->name, addr, dbyte(m, r->addr));
	}
}

/* ---- address expressions ------------------------------------------------ */

/* Copies expr without surrounding blanks into buf; -1 if it does not fit. */
static int trim(const char *expr, char *buf, size_t n)
{
	while (isspace((unsigned char)*expr))
		expr++;
	size_t len = strlen(expr);
	while (len && isspace((unsigned char)expr[len - 1]))
		len--;
	if (len >= n)
		return -1;
	memcpy(buf, expr, len);
	buf[len] = 0;
	return 0;
}

static int parse_number(const char *s, unsigned long *v)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1;
	*v = strtoul(s, &end, 0);
	return *end ? -1 : 0;
}

int view_address(const mview *m, const char *expr, int code_default,
		 uint32_t *addr, int *is_code, avrr_err *err)
{
	char buf[128];
	if (trim(expr, buf, sizeof buf))
		return avrr_errf(err, "address expression too long");
	char *name = buf;
	if (*name == '&')
		name++;
	while (isspace((unsigned char)*name))
		name++;
	if (!*name)
		return avrr_errf(err, "missing address");

	/* NAME+N / NAME-N: names and numbers contain neither sign. */
	long off = 0;
	char *sign = strpbrk(name + 1, "+-");
	if (sign) {
		char op = *sign;
		unsigned long n;
		*sign = 0;
		char *o = sign + 1;
		while (isspace((unsigned char)*o))
			o++;
		if (parse_number(o, &n) || n > 0xffffff)
			return avrr_errf(err, "bad offset \"%s\" in \"%s\"", o, expr);
		off = op == '-' ? -(long)n : (long)n;
		for (char *e = sign; e > name && isspace((unsigned char)e[-1]); *--e = 0)
			;
	}

	uint64_t a;
	int code;
	unsigned long num;
	const fw_symbol *s;
	int io;
	if (isdigit((unsigned char)*name)) {
		if (parse_number(name, &num))
			return avrr_errf(err, "bad address \"%s\"", name);
		a = num;
		code = code_default;
		if (a >= ELF_DATA_BASE && a < ELF_EEPROM_BASE) {
			a -= ELF_DATA_BASE;
			code = 0;
		}
	} else if (!strcmp(name, "$pc")) {
		a = m->pc;
		code = 1;
	} else if (!strcmp(name, "$sp")) {
		a = sp_value(m);
		code = 0;
	} else if ((s = fw_find_symbol(m->fw, name)) != NULL) {
		if (s->space == FW_SYM_EEPROM)
			return avrr_errf(err, "\"%s\" is in EEPROM, which the machine view does not hold",
					 name);
		a = s->addr;
		code = s->space == FW_SYM_CODE;
	} else if ((io = ioregs_addr(m->names, name)) >= 0) {
		a = (uint32_t)io;
		code = 0;
	} else {
		return avrr_errf(err, "no symbol \"%s\" in the firmware", name);
	}

	if (off < 0 && (uint64_t)-off > a)
		return avrr_errf(err, "cannot access address -0x%llx",
				 (unsigned long long)((uint64_t)-off - a));
	a += off;
	if (a >= (code ? m->fw->flash_size : m->data_size))
		return avrr_errf(err, "cannot access address 0x%llx", (unsigned long long)a);
	*addr = (uint32_t)a;
	*is_code = code;
	return 0;
}

/* ---- x ------------------------------------------------------------------ */

/* A character as C writes it inside `quote` quotes: \n, \033, \", 'a'. */
static void put_char_escaped(FILE *f, unsigned char c, char quote)
{
	static const char from[] = "\n\r\t\a\b\f\v\\", to[] = "nrtabfv\\";
	const char *e = c ? strchr(from, c) : NULL;
	if (e)
		fprintf(f, "\\%c", to[e - from]);
	else if (c == (unsigned char)quote)
		fprintf(f, "\\%c", quote);
	else if (c >= 0x20 && c < 0x7f)
		fputc(c, f);
	else
		fprintf(f, "\\%03o", c);
}

/* One value of `size` bytes in gdb's format letter fmt. */
static void put_value(FILE *f, const mview *m, int is_code, char fmt, uint64_t v,
		      unsigned size)
{
	unsigned bits = size * 8;
	int64_t sv = bits < 64 && (v >> (bits - 1)) & 1 ? (int64_t)(v - (UINT64_C(1) << bits))
							 : (int64_t)v;
	char label[96];
	switch (fmt) {
	case 'x': fprintf(f, "0x%0*llx", (int)size * 2, (unsigned long long)v); break;
	case 'd': fprintf(f, "%lld", (long long)sv); break;
	case 'u': fprintf(f, "%llu", (unsigned long long)v); break;
	case 'o': fprintf(f, v ? "0%llo" : "0", (unsigned long long)v); break;
	case 't':
		for (unsigned b = bits; b-- > 0;)
			fputc('0' + (int)((v >> b) & 1), f);
		break;
	case 'c':
		fprintf(f, "%lld '", (long long)sv);
		put_char_escaped(f, (unsigned char)v, '\'');
		fputc('\'', f);
		break;
	case 'a':
		label[0] = 0;
		if (v < (is_code ? m->fw->flash_size : m->data_size))
			sym_label(m, (uint32_t)v, is_code, label, sizeof label);
		fprintf(f, "0x%llx%s", (unsigned long long)v, label);
		break;
	}
}

static int has_target(const avr_insn *in)
{
	switch (in->op) {
	case AVR_OP_RJMP: case AVR_OP_RCALL: case AVR_OP_JMP: case AVR_OP_CALL:
	case AVR_OP_BRBS: case AVR_OP_BRBC:
		return 1;
	default:
		return 0;
	}
}

/* One instruction as gdb's x/i prints it. */
static void put_insn(FILE *f, const mview *m, const avr_insn *in)
{
	char label[96], ops[64];
	sym_label(m, in->addr, 1, label, sizeof label);
	fprintf(f, "%s0x%x%s:\t%s", in->addr == m->pc ? "=> " : "   ", in->addr, label,
		in->mnemonic);
	avr_format(in, ops, sizeof ops);
	if (*ops)
		fprintf(f, "\t%s", ops);
	if (has_target(in)) {
		label[0] = 0;
		if (in->target < m->fw->flash_size)
			sym_label(m, in->target, 1, label, sizeof label);
		fprintf(f, "\t; 0x%x%s", in->target, label);
	}
	fputc('\n', f);
}

/* Decodes the instruction at addr; -1 with err set when there is none. */
static int decode_at(const mview *m, uint32_t addr, avr_insn *in, avrr_err *err)
{
	if (addr >= m->fw->flash_size)
		return avrr_errf(err, "cannot access address 0x%x", addr);
	if (avr_decode(m->fw->flash, m->fw->flash_size, addr, in))
		return avrr_errf(err, "cannot disassemble at odd address 0x%x", addr);
	return 0;
}

static unsigned unit_bytes(char unit)
{
	return unit == 'h' ? 2 : unit == 'w' ? 4 : unit == 'g' ? 8 : 1;
}

/* Parses "/NFU" (the '/' optional; N, F and U in any order). */
static int parse_format(const char *fmt, char *format, char *unit, unsigned *count,
			int *has_count, avrr_err *err)
{
	const char *p = fmt;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '/')
		p++;
	for (; *p && !isspace((unsigned char)*p); p++) {
		if (isdigit((unsigned char)*p)) {
			char *end;
			unsigned long n = strtoul(p, &end, 10);
			if (n > 1u << 20)
				return avrr_errf(err, "count %lu too large", n);
			*count = (unsigned)n;
			*has_count = 1;
			p = end - 1;
		} else if (strchr("bhwg", *p)) {
			*unit = *p;
		} else if (strchr("xduotcasi", *p)) {
			*format = *p;
		} else {
			return avrr_errf(err, "bad format '%c'", *p);
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return avrr_errf(err, "bad format '%c'", *p);
	return 0;
}

/* x/s: count NUL-terminated strings from addr. */
static int examine_strings(FILE *f, const mview *m, int is_code, uint32_t *addr,
			   unsigned count, avrr_err *err)
{
	const uint8_t *base = is_code ? m->fw->flash : m->data;
	uint32_t size = is_code ? m->fw->flash_size : m->data_size;
	for (unsigned k = 0; k < count; k++) {
		if (*addr >= size)
			return avrr_errf(err, "cannot access address 0x%x", *addr);
		char label[96];
		sym_label(m, *addr, is_code, label, sizeof label);
		fprintf(f, "0x%x%s:\t\"", *addr, label);
		uint32_t a = *addr, n = 0;
		for (; a < size && base[a] && n < STRING_MAX; a++, n++)
			put_char_escaped(f, base[a], '"');
		fputc('"', f);
		if (a < size && base[a] && n == STRING_MAX)
			fputs("...", f);
		else if (a < size)
			a++;                  /* past the NUL */
		fputc('\n', f);
		*addr = a;
	}
	return 0;
}

/* x with a numeric format: rows of units, each row headed by its address. */
static int examine_units(FILE *f, const mview *m, int is_code, uint32_t *addr,
			 unsigned count, char format, unsigned size, avrr_err *err)
{
	uint32_t bad = 0;
	const uint8_t *p = span(m, is_code, *addr, count * size, &bad);
	if (!p)
		return avrr_errf(err, "cannot access address 0x%x", bad);
	unsigned per_line = size == 4 ? 4 : size == 8 ? 2 : 8;
	for (unsigned k = 0; k < count; k++) {
		uint32_t a = *addr + k * size;
		if (k % per_line == 0) {
			char label[96];
			sym_label(m, a, is_code, label, sizeof label);
			fprintf(f, "%s0x%x%s:", k ? "\n" : "", a, label);
		}
		fputc('\t', f);
		put_value(f, m, is_code, format, le_get(p + k * size, size), size);
	}
	if (count)
		fputc('\n', f);
	*addr += count * size;
	return 0;
}

int view_examine(FILE *out, const mview *m, const char *fmt, const char *expr,
		 view_xstate *last, avrr_err *err)
{
	view_xstate none = { 0 };
	if (!last)
		last = &none;
	char format = 0, unit = 0;
	unsigned count = 1;
	int has_count = 0;
	if (parse_format(fmt ? fmt : "", &format, &unit, &count, &has_count, err))
		return -1;
	char ebuf[128];
	if (trim(expr ? expr : "", ebuf, sizeof ebuf))
		return avrr_errf(err, "address expression too long");
	int bare = !format && !unit && !has_count && !*ebuf;
	if (!format)
		format = last->format ? last->format : 'x';
	if (!unit)
		unit = format == 'a' ? 'h' : format == 'c' || format == 's' ? 'b'
		     : last->unit ? last->unit : 'b';
	if (bare && last->count)
		count = last->count;

	uint32_t addr = last->next;
	int is_code = last->next_is_code;
	if (*ebuf && view_address(m, ebuf, format == 'i', &addr, &is_code, err))
		return -1;
	if (format == 'i')
		is_code = 1;

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return avrr_errf(err, "out of memory");
	int rc = 0;
	if (format == 'i') {
		avr_insn in;
		for (unsigned k = 0; k < count && !rc; k++) {
			rc = decode_at(m, addr, &in, err);
			if (!rc) {
				put_insn(f, m, &in);
				addr += in.words * 2u;
			}
		}
	} else if (format == 's') {
		rc = examine_strings(f, m, is_code, &addr, count, err);
	} else {
		rc = examine_units(f, m, is_code, &addr, count, format, unit_bytes(unit), err);
	}
	fclose(f);
	if (!rc) {
		fwrite(text, 1, len, out);
		last->format = format;
		if (format != 'i')
			last->unit = format == 's' ? 'b' : unit;
		last->count = count;
		last->next = addr;
		last->next_is_code = is_code;
	}
	free(text);
	return rc;
}

/* ---- print -------------------------------------------------------------- */

/* "NAME = 17 (0x11)" for a value of `size` bytes. */
static void put_scalar(FILE *out, const char *name, uint64_t v, unsigned size)
{
	fprintf(out, "%s = %llu (0x%0*llx)\n", name, (unsigned long long)v, (int)size * 2,
		(unsigned long long)v);
}

/* The register number of "r24" / "$r24", or -1. */
static int gp_register(const char *s)
{
	if (*s == '$')
		s++;
	if (s[0] != 'r' || !isdigit((unsigned char)s[1]))
		return -1;
	char *end;
	long n = strtol(s + 1, &end, 10);
	if (*end || n > 31 || (s[1] == '0' && s[2]))
		return -1;
	return (int)n;
}

int view_print(FILE *out, const mview *m, const char *expr, avrr_err *err)
{
	char name[128];
	if (trim(expr ? expr : "", name, sizeof name))
		return avrr_errf(err, "expression too long");
	if (!*name)
		return avrr_errf(err, "missing expression");
	int r = gp_register(name);
	if (r >= 0) {
		put_scalar(out, name, dbyte(m, (uint32_t)r), 1);
		return 0;
	}
	if (!strcmp(name, "$pc")) {
		char label[96];
		sym_label(m, m->pc, 1, label, sizeof label);
		fprintf(out, "$pc = 0x%x%s\n", m->pc, label);
		return 0;
	}
	if (!strcmp(name, "$sp")) {
		put_scalar(out, name, sp_value(m), 2);
		return 0;
	}
	if (!strcmp(name, "$sreg")) {
		char flags[32];
		unsigned sreg = dbyte(m, SREG_ADDR);
		sreg_flags(sreg, flags, sizeof flags);
		fprintf(out, "$sreg = %u (0x%02x) %s\n", sreg, sreg, flags);
		return 0;
	}

	const fw_symbol *s = fw_find_symbol(m->fw, name);
	int io = ioregs_addr(m->names, name);
	if (s && s->space == FW_SYM_CODE) {
		char label[96];
		sym_label(m, s->addr, 1, label, sizeof label);
		fprintf(out, "%s = 0x%x%s\n", name, s->addr, label);
		return 0;
	}
	if (!s && io >= 0) {
		if ((uint32_t)io >= m->data_size)
			return avrr_errf(err, "cannot access address 0x%x", (unsigned)io);
		put_scalar(out, name, m->data[io], 1);
		return 0;
	}
	if (!s)
		return avrr_errf(err, "no symbol \"%s\" in the firmware", name);
	if (s->space == FW_SYM_EEPROM)
		return avrr_errf(err, "\"%s\" is in EEPROM, which the machine view does not hold",
				 name);

	unsigned size = s->size ? s->size : 1;
	unsigned shown = size > PRINT_MAX_BYTES ? PRINT_MAX_BYTES : size;
	uint32_t bad = 0;
	const uint8_t *p = span(m, 0, s->addr, shown, &bad);
	if (!p)
		return avrr_errf(err, "cannot access address 0x%x", bad);
	if (size == 1 || size == 2 || size == 4 || size == 8) {
		put_scalar(out, name, le_get(p, size), size);
		return 0;
	}
	fprintf(out, "%s = {", name);
	for (unsigned i = 0; i < shown; i++)
		fprintf(out, "%s0x%02x", i ? ", " : "", p[i]);
	fprintf(out, "%s}\n", shown < size ? "..." : "");
	return 0;
}

/* ---- disassemble -------------------------------------------------------- */

/* Where to start decoding so that the walk to pc lands on it: the enclosing
 * code symbol when it is near, else a few instructions' worth before pc.
 * The walk from there is retried one word later until it lands (it does at
 * the latest when it starts at pc itself). */
static uint32_t walk_start(const mview *m, unsigned before)
{
	const fw_symbol *s = fw_code_symbol_at(m->fw, m->pc);
	uint32_t back = 4 * before + 4;   /* enough for `before` 2-word insns */
	if (s && m->pc - s->addr <= 0x1000)
		return s->addr & ~1u;
	return m->pc > back ? (m->pc - back) & ~1u : 0;
}

void view_disassemble(FILE *out, const mview *m, unsigned before, unsigned after)
{
	char where[96];
	avr_insn in;
	avrr_err err;
	fw_describe_pc(m->fw, m->pc, where, sizeof where);
	fprintf(out, "Dump of assembler code around pc 0x%x (%s):\n", m->pc, where);
	if (decode_at(m, m->pc, &in, &err)) {
		fprintf(out, "%s\n", err.msg);
		fprintf(out, "End of assembler dump.\n");
		return;
	}

	/* The last `before` instruction addresses on the walk to pc. */
	uint32_t *ring = before ? calloc(before, sizeof *ring) : NULL;
	size_t n = 0;
	if (ring) {
		for (uint32_t from = walk_start(m, before); from <= m->pc; from += 2) {
			uint32_t a = from;
			n = 0;
			while (a < m->pc && !decode_at(m, a, &in, &err)) {
				ring[n++ % before] = a;
				a += in.words * 2u;
			}
			if (a == m->pc)
				break;
		}
	}
	size_t shown = n < before ? n : before;
	for (size_t i = n - shown; i < n; i++) {
		decode_at(m, ring[i % before], &in, &err);
		put_insn(out, m, &in);
	}
	free(ring);

	uint32_t a = m->pc;
	for (unsigned k = 0; k <= after && !decode_at(m, a, &in, &err); k++) {
		put_insn(out, m, &in);
		a += in.words * 2u;
	}
	fprintf(out, "End of assembler dump.\n");
}
