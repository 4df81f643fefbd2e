/*
 * value.c — values printed as gdb prints them (see expr.h for the shapes):
 * numbers in a format letter, characters, strings and char arrays with
 * gdb's repeats, arrays, structs, pointers with their type and symbol.
 * Everything renders into a memory stream first, so an error part-way
 * prints nothing.
 */
#include "shell/expr.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "util/avrspace.h"
#include "util/le.h"

#define PRINT_ELEMENTS 200   /* gdb's `print elements` */
#define REPEAT_THRESHOLD 10  /* gdb's `print repeats` */

/* A character as gdb writes it inside `quote` quotes. */
static void put_char(FILE *f, unsigned c, char quote)
{
	static const char from[] = "\n\r\t\a\b\f\v\033\\", to[] = "nrtabfve\\";
	const char *e = c ? strchr(from, (int)c) : NULL;
	if (e)
		fprintf(f, "\\%c", to[e - from]);
	else if (c == (unsigned char)quote)
		fprintf(f, "\\%c", quote);
	else if (c >= 0x20 && c < 0x7f)
		fputc((int)c, f);
	else
		fprintf(f, "\\%03o", c & 0xff);
}

/* The data symbol covering addr (a sized one first), as view.c labels. */
static void data_label(FILE *f, const firmware *fw, uint32_t addr)
{
	const fw_symbol *best = NULL;
	for (size_t i = 0; i < fw->nsyms; i++) {
		const fw_symbol *s = &fw->syms[i];
		if (s->space == FW_SYM_DATA && s->size && addr >= s->addr && addr - s->addr < s->size)
			best = s;
	}
	if (!best)
		return;
	if (best->addr == addr)
		fprintf(f, " <%s>", best->name);
	else
		fprintf(f, " <%s+%u>", best->name, addr - best->addr);
}

static void code_label(FILE *f, const firmware *fw, uint32_t addr)
{
	const fw_symbol *s = fw_code_symbol_at(fw, addr);
	if (!s)
		return;
	if (s->addr == addr)
		fprintf(f, " <%s>", s->name);
	else
		fprintf(f, " <%s+%u>", s->name, addr - s->addr);
}

/* A string at data address a, as gdb shows what a char * points to. */
static void put_string(FILE *f, const mview *m, uint32_t a)
{
	fputc('"', f);
	unsigned n = 0;
	for (; a < m->data_size && m->data[a] && n < PRINT_ELEMENTS; a++, n++)
		put_char(f, m->data[a], '"');
	fputc('"', f);
	if (n == PRINT_ELEMENTS && a < m->data_size && m->data[a])
		fputs("...", f);
}

static void put_binary(FILE *f, uint64_t u)
{
	int b = 63;
	while (b > 0 && !((u >> b) & 1))
		b--;
	for (; b >= 0; b--)
		fputc('0' + (int)((u >> b) & 1), f);
}

/* An integer of type t in format fmt. */
static void put_int(FILE *f, const xctx *c, const dtype *t, int64_t x, char fmt)
{
	unsigned bits = t->size * 8;
	uint64_t u = bits >= 64 ? (uint64_t)x : (uint64_t)x & ((UINT64_C(1) << bits) - 1);
	switch (fmt) {
	case 'x': fprintf(f, "0x%llx", (unsigned long long)u); return;
	case 'z': fprintf(f, "0x%0*llx", (int)t->size * 2, (unsigned long long)u); return;
	case 'o': fprintf(f, u ? "0%llo" : "0", (unsigned long long)u); return;
	case 't': put_binary(f, u); return;
	case 'u': fprintf(f, "%llu", (unsigned long long)u); return;
	case 'd': {
		int64_t s = bits < 64 && (u >> (bits - 1)) & 1 ? (int64_t)(u | ~UINT64_C(0) << bits)
							       : (int64_t)u;
		fprintf(f, "%lld", (long long)s);
		return;
	}
	case 'a':
		fprintf(f, "0x%llx", (unsigned long long)u);
		data_label(f, c->m->fw, (uint32_t)u & 0xffff);
		return;
	case 'c': {
		int8_t ch = (int8_t)(u & 0xff);
		fprintf(f, "%d '", t->is_signed || t->size > 1 ? ch : (int)(u & 0xff));
		put_char(f, (unsigned)(u & 0xff), '\'');
		fputc('\'', f);
		return;
	}
	}
	if (t->kind == DT_BOOL) {
		fputs(u == 1 ? "true" : u == 0 ? "false" : "", f);
		if (u > 1)
			fprintf(f, "%llu", (unsigned long long)u);
		return;
	}
	if (t->kind == DT_ENUM) {
		Dwarf_Die d = t->die, e;
		if (dwarf_child(&d, &e) == 0)
			do {
				Dwarf_Attribute a;
				Dwarf_Sword sv;
				if (dwarf_tag(&e) == DW_TAG_enumerator &&
				    dwarf_attr(&e, DW_AT_const_value, &a) && !dwarf_formsdata(&a, &sv) &&
				    (uint64_t)sv == u) {
					fputs(die_name(&e), f);
					return;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
	}
	if (t->is_signed)
		put_int(f, c, t, x, 'd');
	else
		fprintf(f, "%llu", (unsigned long long)u);
	if (t->is_char && t->size == 1) {
		fputs(" '", f);
		put_char(f, (unsigned)(u & 0xff), '\'');
		fputc('\'', f);
	}
}

/* top: 1 a value printed with its type (print, display), 0 without it
 * (info locals), -1 a member or element of one. */
static int put_value(FILE *f, const xctx *c, const dtype *t, const uint8_t *p, char fmt,
		     int top, avrr_err *err);

/* gdb's char array: quoted runs and repeated characters, the trailing NUL
 * dropped. */
static void put_char_array(FILE *f, const uint8_t *p, unsigned n)
{
	if (n && !p[n - 1])
		n--;
	if (!n) {
		fputs("\"\"", f);
		return;
	}
	int in_quote = 0, any = 0;
	unsigned shown = 0;
	for (unsigned i = 0; i < n && shown < PRINT_ELEMENTS;) {
		unsigned reps = 1;
		while (i + reps < n && p[i + reps] == p[i])
			reps++;
		if (reps > REPEAT_THRESHOLD) {
			if (in_quote)
				fputs("\", ", f);
			else if (any)
				fputs(", ", f);
			fputc('\'', f);
			put_char(f, p[i], '\'');
			fprintf(f, "' <repeats %u times>", reps);
			in_quote = 0;
			i += reps;
			shown += REPEAT_THRESHOLD;
		} else {
			if (!in_quote)
				fputs(any ? ", \"" : "\"", f);
			in_quote = 1;
			put_char(f, p[i], '"');
			i++;
			shown++;
		}
		any = 1;
		if (shown >= PRINT_ELEMENTS && i < n) {
			fputs(in_quote ? "\"..." : "...", f);
			return;
		}
	}
	if (in_quote)
		fputc('"', f);
}

static int put_array(FILE *f, const xctx *c, const dtype *t, const uint8_t *p, char fmt,
		     avrr_err *err)
{
	dtype el;
	if (dt_target(t, &el, err))
		return -1;
	unsigned n = dt_count(t);
	if (el.is_char && el.size == 1 && !fmt) {
		put_char_array(f, p, n);
		return 0;
	}
	fputc('{', f);
	unsigned shown = 0;
	for (unsigned i = 0; i < n;) {
		unsigned reps = 1;
		while (i + reps < n && el.size &&
		       !memcmp(p + (size_t)(i + reps) * el.size, p + (size_t)i * el.size, el.size))
			reps++;
		if (i)
			fputs(", ", f);
		if (shown >= PRINT_ELEMENTS) {
			fputs("...", f);
			break;
		}
		if (put_value(f, c, &el, p + (size_t)i * el.size, fmt, -1, err))
			return -1;
		if (reps > REPEAT_THRESHOLD) {
			fprintf(f, " <repeats %u times>", reps);
			i += reps;
			shown += REPEAT_THRESHOLD;
		} else {
			i++;
			shown++;
		}
	}
	fputc('}', f);
	return 0;
}

static int put_struct(FILE *f, const xctx *c, const dtype *t, const uint8_t *p, char fmt,
		      avrr_err *err)
{
	fputc('{', f);
	for (unsigned i = 0;; i++) {
		const char *name;
		dtype mt;
		unsigned off;
		int is_base;
		int r = dt_member(t, i, &name, &mt, &off, &is_base, err);
		if (r < 0)
			return -1;
		if (r > 0)
			break;
		if (off + mt.size > t->size)
			return avrr_errf(err, "damaged DWARF: a member outside its struct");
		if (is_base) {
			/* gdb's C++ base class: "<Print> = {...}". */
			char bn[160];
			dt_name(&mt, bn, sizeof bn);
			fprintf(f, "%s<%s> = ", i ? ", " : "", bn);
		} else {
			fprintf(f, "%s%s = ", i ? ", " : "", name ? name : "<anonymous>");
		}
		if (put_value(f, c, &mt, p + off, fmt, -1, err))
			return -1;
	}
	fputc('}', f);
	return 0;
}

/* Whether gdb leaves a char pointer's type out ("0x800115 <line> \"S2\""):
 * only an unnamed pointer to a (qualified) plain `char`, whose string shows
 * the type; `uint8_t *` and `unsigned char *` keep theirs. */
static int plain_char_pointer(const dtype *t)
{
	Dwarf_Die d = t->named, to;
	Dwarf_Attribute a;
	if (!t->has_die && !t->ptr_to_named)
		return 0;
	if (!t->ptr_to_named) {
		if (dwarf_tag(&d) != DW_TAG_pointer_type || !dwarf_attr(&d, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &to))
			return 0;
		d = to;
	}
	for (int k = 0; k < 8 && (dwarf_tag(&d) == DW_TAG_const_type ||
				  dwarf_tag(&d) == DW_TAG_volatile_type); k++)
		if (!dwarf_attr(&d, DW_AT_type, &a) || !dwarf_formref_die(&a, &d))
			return 0;
	const char *nm = die_name(&d);
	return dwarf_tag(&d) == DW_TAG_base_type && nm && !strcmp(nm, "char");
}

static int put_pointer(FILE *f, const xctx *c, const dtype *t, uint64_t raw, char fmt, int top,
		       avrr_err *err)
{
	dtype to;
	if (dt_target(t, &to, err))
		return -1;
	int code = to.kind == DT_FUNC;
	uint32_t a = (uint32_t)raw;
	uint64_t shown = code ? a : a + ELF_DATA_BASE;
	if (fmt && fmt != 'a') {
		/* A format shows a data pointer's own 16 bits, as avr-gdb
		 * does: the address without avr-gcc's 0x800000. */
		dtype it = dt_int(code ? 4 : 2, 0);
		put_int(f, c, &it, (int64_t)a, fmt);
		return 0;
	}
	if (to.is_char && to.size == 1 && !fmt) {
		if (top > 0 && !plain_char_pointer(t)) {
			char tn[200];
			dt_name(t, tn, sizeof tn);
			fprintf(f, "(%s) ", tn);
		}
		fprintf(f, "0x%llx", (unsigned long long)shown);
		data_label(f, c->m->fw, a);
		fputc(' ', f);
		put_string(f, c->m, a);
		return 0;
	}
	if (top > 0 && !fmt) {
		char tn[200];
		dt_name(t, tn, sizeof tn);
		fprintf(f, "(%s) ", tn);
	}
	fprintf(f, "0x%llx", (unsigned long long)shown);
	if (code)
		code_label(f, c->m->fw, a);
	else
		data_label(f, c->m->fw, a);
	return 0;
}

static int put_value(FILE *f, const xctx *c, const dtype *t, const uint8_t *p, char fmt,
		     int top, avrr_err *err)
{
	switch (t->kind) {
	case DT_STRUCT:
	case DT_UNION:
		return put_struct(f, c, t, p, fmt, err);
	case DT_ARRAY:
		return put_array(f, c, t, p, fmt, err);
	case DT_PTR:
		return put_pointer(f, c, t, le_get(p, t->size > 8 ? 8 : t->size), fmt, top, err);
	case DT_REF: {
		/* gdb: "(int &) @0x800100: 5", the type only at the top. */
		dtype to;
		uint32_t a = (uint32_t)le_get(p, 2);
		if (dt_target(t, &to, err))
			return -1;
		if (top > 0) {
			char tn[200];
			dt_name(t, tn, sizeof tn);
			fprintf(f, "(%s) ", tn);
		}
		fprintf(f, "@0x%llx", (unsigned long long)a + ELF_DATA_BASE);
		if (top < 0)
			return 0;   /* a member or element: gdb shows where only */
		fputs(": ", f);
		if (a >= c->m->data_size || to.size > c->m->data_size - a)
			return avrr_errf(err, "Cannot access memory at address 0x%x", a + ELF_DATA_BASE);
		return put_value(f, c, &to, c->m->data + a, fmt, 0, err);
	}
	case DT_INT:
	case DT_BOOL:
	case DT_ENUM: {
		uint64_t u = le_get(p, t->size > 8 ? 8 : t->size);
		unsigned bits = t->size * 8;
		if (t->is_signed && bits < 64 && (u >> (bits - 1)) & 1)
			u |= ~UINT64_C(0) << bits;
		put_int(f, c, t, (int64_t)u, fmt);
		return 0;
	}
	case DT_FLOAT:
		if (t->size == 4) {
			float x;
			memcpy(&x, p, 4);
			fprintf(f, "%g", (double)x);
			return 0;
		}
		return avrr_errf(err, "cannot print a %u-byte float", t->size);
	case DT_VOID:
		fputs("void", f);
		return 0;
	case DT_FUNC:
		return avrr_errf(err, "cannot print a function's value");
	}
	return avrr_errf(err, "cannot print this type");
}

int expr_print(FILE *out, const xctx *c, const xval *v, char fmt, int typed, avrr_err *err)
{
	if (v->optimized_out) {
		fputs("<optimized out>", out);
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return avrr_errf(err, "out of memory");
	int rc = 0;
	if (v->is_pc) {
		uint32_t a = (uint32_t)le_get(v->bytes, 2);
		if (fmt && fmt != 'a') {
			dtype it = dt_int(2, 0);
			put_int(f, c, &it, a, fmt);
		} else {
			fprintf(f, "(void (*)()) 0x%x", a);
			code_label(f, c->m->fw, a);
		}
	} else {
		const uint8_t *p = expr_bytes(c, v, err);
		rc = p ? put_value(f, c, &v->t, p, fmt, typed, err) : -1;
	}
	fclose(f);
	if (!rc)
		fwrite(text, 1, len, out);
	free(text);
	return rc;
}

int expr_print_bytes(FILE *out, const xctx *c, const dtype *t, const uint8_t *bytes,
		     avrr_err *err)
{
	xval v;
	memset(&v, 0, sizeof v);
	v.t = *t;
	memcpy(v.bytes, bytes, sizeof v.bytes);
	return expr_print(out, c, &v, 0, 1, err);
}
