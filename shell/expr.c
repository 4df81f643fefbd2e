/*
 * expr.c — a recursive-descent parser that evaluates C expressions as it
 * parses them, over DWARF types (dwarf.h); see expr.h.
 *
 * Grammar, loosest first (binary levels by a precedence table):
 *   expr    := unary { BINOP unary }
 *   unary   := ('-' | '+' | '!' | '~' | '*' | '&') unary
 *            | '(' TYPE ['*'] ')' unary | postfix
 *   postfix := primary { '[' expr ']' | '.' NAME | '->' NAME }
 *   primary := NUMBER | 'C' | NAME | '$' NAME | '(' expr ')'
 * The shell never changes the past, so there is no assignment.  Values
 * print in value.c.
 */
#include "shell/expr.h"

#include <dwarf.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/avrspace.h"
#include "util/le.h"


#define MAX_DEPTH 64     /* nesting of parentheses and unary operators */

typedef struct parser {
	const xctx *c;
	const char *src, *p;
	avrr_err *err;
	int depth;
} parser;

static int syntax(parser *ps)
{
	return avrr_errf(ps->err, "A syntax error in expression at column %d, near `%s'.",
			 (int)(ps->p - ps->src) + 1, ps->p);
}

static void skip(parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* Consumes `tok` if it comes next (not the first char of a longer
 * operator the caller lists first). */
static int accept(parser *ps, const char *tok)
{
	skip(ps);
	size_t n = strlen(tok);
	if (strncmp(ps->p, tok, n))
		return 0;
	ps->p += n;
	return 1;
}

static int ident(parser *ps, char *buf, size_t n)
{
	skip(ps);
	const char *s = ps->p;
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
		ps->p++;
	snprintf(buf, n, "%.*s", (int)(ps->p - s), s);
	return 1;
}

/* ---- values ----------------------------------------------------------------- */

const uint8_t *expr_bytes(const xctx *c, const xval *v, avrr_err *err)
{
	if (v->optimized_out) {
		avrr_errf(err, "value has been optimized out");
		return NULL;
	}
	if (!v->lval)
		return v->bytes;
	if (v->addr >= c->m->data_size || v->t.size > c->m->data_size - v->addr) {
		avrr_errf(err, "Cannot access memory at address 0x%x", v->addr + ELF_DATA_BASE);
		return NULL;
	}
	return c->m->data + v->addr;
}

static int is_scalar(const dtype *t)
{
	return t->kind == DT_INT || t->kind == DT_BOOL || t->kind == DT_ENUM || t->kind == DT_PTR;
}

static int is_integral(const dtype *t)
{
	return t->kind == DT_INT || t->kind == DT_BOOL || t->kind == DT_ENUM;
}

/* A C++ reference is its referent wherever it is used. */
static int coerce_ref(const xctx *c, xval *v, avrr_err *err)
{
	if (v->t.kind != DT_REF || v->optimized_out)
		return 0;
	dtype to;
	const uint8_t *p = expr_bytes(c, v, err);
	if (!p || dt_target(&v->t, &to, err))
		return -1;
	uint32_t a = (uint32_t)le_get(p, 2);
	memset(v, 0, sizeof *v);
	v->t = to;
	v->lval = 1;
	v->addr = a;
	return 0;
}

/* A scalar's value, sign-extended by its type. */
static int get_int(const xctx *c, const xval *v0, int64_t *out, avrr_err *err)
{
	xval ref = *v0;
	const xval *v = &ref;
	if (coerce_ref(c, &ref, err))
		return -1;
	if (!is_scalar(&v->t) || !v->t.size || v->t.size > 8)
		return avrr_errf(err, "not a number");
	const uint8_t *p = expr_bytes(c, v, err);
	if (!p)
		return -1;
	uint64_t u = le_get(p, v->t.size);
	unsigned bits = v->t.size * 8;
	if (v->t.is_signed && bits < 64 && (u >> (bits - 1)) & 1)
		u |= ~UINT64_C(0) << bits;
	*out = (int64_t)u;
	return 0;
}

static void set_int(xval *v, dtype t, int64_t x)
{
	memset(v, 0, sizeof *v);
	v->t = t;
	le_put(v->bytes, (uint64_t)x, t.size > 8 ? 8 : t.size);
}

/* An array used as a value is a pointer to its first element. */
static int decay(const xctx *c, xval *v, avrr_err *err)
{
	if (coerce_ref(c, v, err))
		return -1;
	if (v->t.kind != DT_ARRAY)
		return 0;
	if (!v->lval)
		return avrr_errf(err, "Attempt to take address of value not located in memory.");
	dtype el, p;
	if (dt_target(&v->t, &el, err) || dt_pointer_to(&el, &p, err))
		return -1;
	uint32_t a = v->addr;
	set_int(v, p, a);
	return 0;
}

/* C's integer promotion at AVR's sizes. */
static dtype promote(const dtype *t)
{
	if (t->kind == DT_PTR)
		return *t;
	if (t->size < 2 || (t->size == 2 && t->is_signed) || t->kind == DT_BOOL)
		return dt_int(2, 1);
	return dt_int(t->size, t->is_signed);
}

static dtype common(const dtype *a, const dtype *b)
{
	dtype pa = promote(a), pb = promote(b);
	if (pa.size != pb.size)
		return pa.size > pb.size ? pa : pb;
	return dt_int(pa.size, pa.is_signed && pb.is_signed);
}

/* A variable by its DIE, as the frame sees it. */
static int load_var(const xctx *c, Dwarf_Die *var, xval *v, avrr_err *err)
{
	memset(v, 0, sizeof *v);
	if (dt_of(c->d, var, &v->t, err))
		return -1;
	dw_loc loc;
	dw_mem mem = expr_mem(c->m);
	if (dw_locate(c->d, &mem, c->f, var, v->t.size, &loc, err))
		return -1;
	if (loc.kind == LOC_MEM) {
		v->lval = 1;
		v->addr = loc.addr;
	} else if (loc.kind == LOC_VALUE) {
		memcpy(v->bytes, loc.bytes, sizeof v->bytes);
	} else {
		v->optimized_out = 1;
	}
	return 0;
}

/* *v: v is a pointer (or an array). */
static int deref(const xctx *c, xval *v, avrr_err *err)
{
	if (v->t.kind == DT_ARRAY) {
		dtype el;
		if (dt_target(&v->t, &el, err))
			return -1;
		v->t = el;
		return 0;
	}
	int64_t a;
	if (coerce_ref(c, v, err))
		return -1;
	if (v->t.kind != DT_PTR)
		return avrr_errf(err, "Attempt to take contents of a non-pointer value.");
	dtype to;
	if (get_int(c, v, &a, err) || dt_target(&v->t, &to, err))
		return -1;
	if (to.kind == DT_VOID)
		return avrr_errf(err, "Attempt to take contents of a non-pointer value.");
	memset(v, 0, sizeof *v);
	v->t = to;
	v->lval = 1;
	v->addr = (uint32_t)a & 0xffff;
	if (to.kind == DT_FUNC)
		v->addr = (uint32_t)a;
	return 0;
}

/* ---- the parser --------------------------------------------------------------- */

static int parse_expr(parser *ps, xval *v, int min_prec);
static int parse_unary(parser *ps, xval *v);

static int parse_number(parser *ps, xval *v)
{
	char *end;
	unsigned long long n = strtoull(ps->p, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (isalnum((unsigned char)*end) || *end == '_') {
		while (isalnum((unsigned char)*end) || *end == '_')
			end++;
		return avrr_errf(ps->err, "Invalid number \"%.*s\".", (int)(end - ps->p), ps->p);
	}
	ps->p = end;
	unsigned size = n <= 0x7fff ? 2 : n <= 0x7fffffff ? 4 : 8;
	set_int(v, dt_int(size, 1), (int64_t)n);
	return 0;
}

static int parse_char(parser *ps, xval *v)
{
	const char *s = ps->p + 1;
	int ch;
	if (*s == '\\') {
		static const char from[] = "nrtabfv0\\'\"", to[] = "\n\r\t\a\b\f\v\0\\'\"";
		const char *e = s[1] ? strchr(from, s[1]) : NULL;
		if (!e)
			return syntax(ps);
		ch = to[e - from];
		s += 2;
	} else if (*s && *s != '\'') {
		ch = (unsigned char)*s++;
	} else {
		return syntax(ps);
	}
	if (*s != '\'')
		return syntax(ps);
	ps->p = s + 1;
	dtype t = dt_int(1, 1);
	t.is_char = 1;
	t.builtin = "char";
	set_int(v, t, ch);
	return 0;
}

/* $, $N, $$, $$N: a value of the history. */
static int parse_history(parser *ps, xval *v)
{
	const xctx *c = ps->c;
	unsigned long n = 0;
	int back = *ps->p == '$';
	if (back)
		ps->p++;
	if (isdigit((unsigned char)*ps->p)) {
		char *end;
		n = strtoul(ps->p, &end, 10);
		ps->p = end;
	} else if (back) {
		n = 1;   /* $$: the one before the last */
	}
	unsigned long num = back ? (n < c->hist_last ? c->hist_last - n : 0)
				 : (n ? n : c->hist_last);
	if (!c->hist_last)
		return avrr_errf(ps->err, "History is empty.");
	if (!num || num > c->hist_last)
		return avrr_errf(ps->err, "History has not yet reached $%lu.", back ? 0 : num);
	for (unsigned i = 0; c->hist && i < c->nhist; i++)
		if (c->hist[i].num == num) {
			if (c->hist[i].v.t.size > sizeof v->bytes && !c->hist[i].v.optimized_out)
				return avrr_errf(ps->err, "$%lu is larger than the %zu bytes the "
						 "shell keeps of a value", num, sizeof v->bytes);
			*v = c->hist[i].v;
			return 0;
		}
	return avrr_errf(ps->err, "$%lu is no longer kept (the shell keeps the last %u values)",
			 num, c->nhist);
}

static int parse_register(parser *ps, xval *v)
{
	char name[32];
	ps->p++;  /* '$' */
	if (*ps->p == '$' || isdigit((unsigned char)*ps->p) ||
	    !(isalpha((unsigned char)*ps->p) || *ps->p == '_'))
		return parse_history(ps, v);
	if (!ident(ps, name, sizeof name))
		return syntax(ps);
	const mview *m = ps->c->m;
	const dw_frame *f = ps->c->f;
	if (!strcmp(name, "pc")) {
		set_int(v, dt_int(2, 0), f->pc);
		v->is_pc = 1;
		return 0;
	}
	if (!strcmp(name, "sp")) {
		set_int(v, dt_int(2, 0), f->sp);
		return 0;
	}
	if (!strcmp(name, "sreg")) {
		set_int(v, dt_int(1, 0), m->data_size > 0x5f ? m->data[0x5f] : 0);
		return 0;
	}
	char *end;
	long r = name[0] == 'r' && isdigit((unsigned char)name[1]) ? strtol(name + 1, &end, 10) : -1;
	if (r < 0 || r > 31 || *end)
		return avrr_errf(ps->err, "No register \"$%s\".", name);
	set_int(v, dt_int(1, 0), f->r[r]);
	return 0;
}

static int parse_name(parser *ps, xval *v)
{
	char name[128];
	const char *at = ps->p;
	ident(ps, name, sizeof name);
	Dwarf_Die var;
	if (!dw_find_var(ps->c->d, ps->c->f, name, &var))
		return load_var(ps->c, &var, v, ps->err);
	/* A function: its code address, as gdb's {TYPE} 0xa6 <name>. */
	const fw_symbol *s = fw_find_symbol(ps->c->m->fw, name);
	if (s && s->space == FW_SYM_CODE) {
		set_int(v, dt_int(2, 0), s->addr);
		v->is_pc = 1;
		return 0;
	}
	if (s && s->space == FW_SYM_DATA)
		return avrr_errf(ps->err, "'%s' has unknown type; cast it to its declared type", name);
	(void)at;
	return avrr_errf(ps->err, "No symbol \"%s\" in current context.", name);
}

static int parse_primary(parser *ps, xval *v)
{
	skip(ps);
	if (isdigit((unsigned char)*ps->p))
		return parse_number(ps, v);
	if (*ps->p == '\'')
		return parse_char(ps, v);
	if (*ps->p == '$')
		return parse_register(ps, v);
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
		return parse_name(ps, v);
	if (accept(ps, "(")) {
		if (parse_expr(ps, v, 0))
			return -1;
		return accept(ps, ")") ? 0 : syntax(ps);
	}
	return syntax(ps);
}

static int field(parser *ps, xval *v)
{
	char name[128];
	if (!ident(ps, name, sizeof name))
		return syntax(ps);
	if (coerce_ref(ps->c, v, ps->err))
		return -1;
	if (v->t.kind != DT_STRUCT && v->t.kind != DT_UNION) {
		char tn[160];
		dt_name(&v->t, tn, sizeof tn);
		return avrr_errf(ps->err, "Attempt to extract a component of a value that is not a structure.");
	}
	dtype mt;
	unsigned off;
	int r = dt_find_member(&v->t, name, &mt, &off, ps->err);
	if (r < 0)
		return -1;
	if (r == 0) {
		if (v->lval) {
			v->addr += off;
		} else if (off + mt.size <= sizeof v->bytes) {
			memmove(v->bytes, v->bytes + off, mt.size);
		} else {
			v->optimized_out = 1;
		}
		v->t = mt;
		return 0;
	}
	return avrr_errf(ps->err, "There is no member named %s.", name);
}

static int parse_postfix(parser *ps, xval *v)
{
	if (parse_primary(ps, v))
		return -1;
	for (;;) {
		if (accept(ps, "[")) {
			xval ix;
			if (coerce_ref(ps->c, v, ps->err))
				return -1;
			int64_t i;
			if (parse_expr(ps, &ix, 0))
				return -1;
			if (!accept(ps, "]"))
				return syntax(ps);
			if (get_int(ps->c, &ix, &i, ps->err))
				return -1;
			if (v->t.kind == DT_ARRAY && !v->lval) {
				dtype el;
				if (dt_target(&v->t, &el, ps->err))
					return -1;
				if (i < 0 || (uint64_t)i >= sizeof v->bytes ||
				    (uint64_t)(i + 1) * el.size > sizeof v->bytes)
					return avrr_errf(ps->err, "no such vector element");
				memmove(v->bytes, v->bytes + i * el.size, el.size);
				v->t = el;
				continue;
			}
			if (v->t.kind != DT_ARRAY && v->t.kind != DT_PTR)
				return avrr_errf(ps->err, "cannot subscript something of type `%s'",
						 v->t.builtin ? v->t.builtin : "value");
			if (v->t.kind == DT_PTR && deref(ps->c, v, ps->err))
				return -1;
			else if (v->t.kind == DT_ARRAY && deref(ps->c, v, ps->err))
				return -1;
			v->addr = (uint32_t)((uint64_t)v->addr + (uint64_t)i * v->t.size) & 0xffff;
		} else if (accept(ps, "->")) {
			if (deref(ps->c, v, ps->err) || field(ps, v))
				return -1;
		} else if (accept(ps, ".")) {
			if (field(ps, v))
				return -1;
		} else {
			return 0;
		}
	}
}

static int is_word(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return 1;
	return 0;
}

/* "(TYPE)" or "(TYPE *)" after the '(' just seen: 1 if it was a cast (type
 * in *t), 0 if not (the position is restored), -1 on error.  TYPE is
 * struct/union/enum TAG, C's integer keywords ("unsigned char"), or a
 * typedef's name that no variable in scope shadows; const and volatile
 * are allowed and ignored. */
static int parse_cast_type(parser *ps, dtype *t)
{
	static const char *const QUAL[] = { "const", "volatile", NULL };
	static const char *const TAG[] = { "struct", "union", "enum", NULL };
	static const char *const INT[] = { "unsigned", "signed", "char", "short", "int", "long",
					   "void", NULL };
	const char *save = ps->p, *before;
	char word[64] = "", name[160] = "";
	size_t len = 0;
	int keyword = 0, got;
	while ((got = ident(ps, word, sizeof word)) && is_word(word, QUAL))
		;
	if (!got) {
		ps->p = save;
		return 0;
	}
	if (is_word(word, TAG)) {
		char tag[64];
		if (!ident(ps, tag, sizeof tag))
			return syntax(ps);
		snprintf(name, sizeof name, "%s %s", word, tag);
		keyword = 1;
	} else if (is_word(word, INT)) {
		keyword = 1;
		len = (size_t)snprintf(name, sizeof name, "%s", word);
		for (;;) {
			before = ps->p;
			if (!ident(ps, word, sizeof word) || !is_word(word, INT)) {
				ps->p = before;
				break;
			}
			if (!strcmp(word, "int") && len > 4)
				continue;  /* "unsigned long int": int adds nothing */
			len += (size_t)snprintf(name + len, sizeof name - len, " %s", word);
		}
	} else {
		Dwarf_Die var;
		snprintf(name, sizeof name, "%s", word);
		if (!dw_find_var(ps->c->d, ps->c->f, name, &var)) {
			ps->p = save;  /* a variable: "(x)" is an expression */
			return 0;
		}
	}
	avrr_err e2;
	if (dt_lookup(ps->c->d, name, t, &e2)) {
		if (keyword)
			return avrr_errf(ps->err, "No symbol \"%s\" in current context.", name);
		ps->p = save;
		return 0;
	}
	int stars = 0;
	while (accept(ps, "*"))
		stars++;
	while (ident(ps, word, sizeof word))
		if (!is_word(word, QUAL))
			return syntax(ps);
	if (!accept(ps, ")"))
		return syntax(ps);
	if (stars > 1)
		return avrr_errf(ps->err, "casts to a pointer to a pointer are not supported");
	if (stars) {
		dtype p;
		if (dt_pointer_to(t, &p, ps->err))
			return -1;
		*t = p;
	}
	return 1;
}

static int cast(parser *ps, xval *v, const dtype *t)
{
	int64_t x;
	if (t->kind == DT_STRUCT || t->kind == DT_UNION || t->kind == DT_ARRAY) {
		if (v->t.size != t->size)
			return avrr_errf(ps->err, "Invalid cast.");
		v->t = *t;
		return 0;
	}
	if (decay(ps->c, v, ps->err) || get_int(ps->c, v, &x, ps->err))
		return -1;
	if (t->kind == DT_PTR && x >= ELF_DATA_BASE && x < 0x810000)
		x -= ELF_DATA_BASE;
	set_int(v, *t, x);
	return 0;
}

static int parse_unary1(parser *ps, xval *v);

/* Bounds the recursion: a line of 500 '(' must not exhaust the stack. */
static int parse_unary(parser *ps, xval *v)
{
	if (ps->depth >= MAX_DEPTH)
		return avrr_errf(ps->err, "expression nested too deeply at column %d",
				 (int)(ps->p - ps->src) + 1);
	ps->depth++;
	int rc = parse_unary1(ps, v);
	ps->depth--;
	return rc;
}

static int parse_unary1(parser *ps, xval *v)
{
	skip(ps);
	const char *at = ps->p;
	int64_t x;
	if (accept(ps, "(")) {
		dtype t;
		int r = parse_cast_type(ps, &t);
		if (r < 0)
			return -1;
		if (r > 0)
			return parse_unary(ps, v) || cast(ps, v, &t);
		ps->p = at;
		return parse_postfix(ps, v);
	}
	if (accept(ps, "sizeof")) {
		const char *paren = ps->p;
		dtype t;
		int r = accept(ps, "(") ? parse_cast_type(ps, &t) : 0;
		if (r < 0)
			return -1;
		if (r > 0) {
			set_int(v, dt_int(2, 0), t.size);
			return 0;
		}
		ps->p = paren;
		if (parse_unary(ps, v) || coerce_ref(ps->c, v, ps->err))
			return -1;
		set_int(v, dt_int(2, 0), v->t.size);
		return 0;
	}
	char op = *ps->p;
	if (!strchr("-+!~*&", op) || !op)
		return parse_postfix(ps, v);
	ps->p++;
	if (parse_unary(ps, v) || coerce_ref(ps->c, v, ps->err))
		return -1;
	if (op == '*')
		return deref(ps->c, v, ps->err);
	if (op == '&') {
		if (v->is_pc)
			return 0;
		if (!v->lval)
			return avrr_errf(ps->err, "Attempt to take address of value not located in memory.");
		dtype p;
		if (dt_pointer_to(&v->t, &p, ps->err))
			return -1;
		set_int(v, p, v->addr);
		return 0;
	}
	if (!is_integral(&v->t) && !(op == '!' && v->t.kind == DT_PTR))
		return avrr_errf(ps->err, "Argument to arithmetic operation not a number or boolean.");
	if (get_int(ps->c, v, &x, ps->err))
		return -1;
	dtype t = promote(&v->t);
	switch (op) {
	case '-': x = (int64_t)(0 - (uint64_t)x); break;
	case '~': x = ~x; break;
	case '!': x = !x; t = dt_int(2, 1); break;
	}
	set_int(v, t, x);
	return 0;
}

/* Binary operators, loosest first; longer spellings before their prefixes. */
static const struct binop {
	const char *tok;
	int prec;
} BINOPS[] = {
	{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
	{ "==", 6 }, { "!=", 6 }, { "<<", 8 }, { ">>", 8 }, { "<=", 7 }, { ">=", 7 },
	{ "<", 7 }, { ">", 7 }, { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static const struct binop *peek_binop(parser *ps)
{
	skip(ps);
	for (size_t i = 0; i < sizeof BINOPS / sizeof *BINOPS; i++) {
		size_t n = strlen(BINOPS[i].tok);
		if (!strncmp(ps->p, BINOPS[i].tok, n) &&
		    !(n == 1 && (ps->p[1] == '|' || ps->p[1] == '&') && ps->p[1] == ps->p[0]))
			return &BINOPS[i];
	}
	return NULL;
}

static int binary(parser *ps, const char *op, xval *a, xval *b)
{
	int64_t x, y, r;
	avrr_err *err = ps->err;
	if (decay(ps->c, a, err) || decay(ps->c, b, err))
		return -1;
	int pa = a->t.kind == DT_PTR, pb = b->t.kind == DT_PTR;
	if (!is_scalar(&a->t) || !is_scalar(&b->t))
		return avrr_errf(err, "Argument to arithmetic operation not a number or boolean.");
	if (get_int(ps->c, a, &x, err) || get_int(ps->c, b, &y, err))
		return -1;
	dtype t = common(&a->t, &b->t);
	unsigned bits = t.size * 8;
	uint64_t mask = bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
	uint64_t ux = (uint64_t)x & mask, uy = (uint64_t)y & mask;
	int is_unsigned = !t.is_signed;
	/* Pointer arithmetic: p + n, n + p, p - n scale by the pointee; p - q
	 * counts elements. */
	if ((pa || pb) && (!strcmp(op, "+") || !strcmp(op, "-"))) {
		dtype to;
		const xval *p = pa ? a : b;
		if (dt_target(&p->t, &to, err))
			return -1;
		int64_t size = to.size ? to.size : 1;
		if (pa && pb && *op == '-') {
			set_int(a, dt_int(2, 1), (int64_t)((uint64_t)x - (uint64_t)y) / size);
			return 0;
		}
		if (pa && pb)
			return avrr_errf(err, "cannot add two pointers");
		if (pb && *op == '-')
			return avrr_errf(err, "cannot subtract a pointer from a number");
		dtype pt = p->t;
		int64_t base = pa ? x : y, n = pa ? y : x;
		uint64_t step = (uint64_t)n * (uint64_t)size;
		set_int(a, pt, (int64_t)(*op == '-' ? (uint64_t)base - step : (uint64_t)base + step));
		return 0;
	}
	if (pa || pb)
		t = dt_int(2, 0), is_unsigned = 1, mask = 0xffff, ux &= mask, uy &= mask;
	switch (op[0]) {
	case '*': r = (int64_t)(ux * uy); break;
	case '/': case '%':
		if (!uy)
			return avrr_errf(err, "Division by zero");
		if (is_unsigned)
			r = (int64_t)(op[0] == '/' ? ux / uy : ux % uy);
		else if (y == -1)  /* INT64_MIN / -1 would overflow */
			r = op[0] == '/' ? (int64_t)(0 - (uint64_t)x) : 0;
		else
			r = op[0] == '/' ? x / y : x % y;
		break;
	case '+': r = (int64_t)((uint64_t)x + (uint64_t)y); break;
	case '-': r = (int64_t)((uint64_t)x - (uint64_t)y); break;
	case '^': r = x ^ y; break;
	case '|': r = op[1] ? (x || y) : (x | y); break;
	case '&': r = op[1] ? (x && y) : (x & y); break;
	case '=': r = ux == uy; break;
	case '!': r = ux != uy; break;
	case '<':
		if (op[1] == '<') {
			t = promote(&a->t);
			r = (int64_t)((uint64_t)x << (y & 63));
		} else {
			r = is_unsigned ? (op[1] ? ux <= uy : ux < uy) : (op[1] ? x <= y : x < y);
		}
		break;
	case '>':
		if (op[1] == '>') {
			t = promote(&a->t);
			r = t.is_signed ? x >> (y & 63)
					: (int64_t)(((uint64_t)x & (t.size >= 8 ? ~UINT64_C(0) :
						(UINT64_C(1) << t.size * 8) - 1)) >> (y & 63));
		} else {
			r = is_unsigned ? (op[1] ? ux >= uy : ux > uy) : (op[1] ? x >= y : x > y);
		}
		break;
	default:
		return avrr_errf(err, "unknown operator %s", op);
	}
	if (strchr("=!", op[0]) || (op[0] == '<' && op[1] != '<') ||
	    (op[0] == '>' && op[1] != '>') || (op[1] == op[0] && strchr("|&", op[0])))
		t = dt_int(2, 1);
	set_int(a, t, r);
	return 0;
}

/* Precedence climbing over BINOPS. */
static int parse_expr(parser *ps, xval *v, int min_prec)
{
	if (parse_unary(ps, v))
		return -1;
	const struct binop *op;
	while ((op = peek_binop(ps)) != NULL && op->prec > min_prec) {
		ps->p += strlen(op->tok);
		xval rhs;
		if (parse_expr(ps, &rhs, op->prec) || binary(ps, op->tok, v, &rhs))
			return -1;
	}
	return 0;
}

int expr_eval(const xctx *c, const char *text, xval *v, avrr_err *err)
{
	parser ps = { c, text, text, err, 0 };
	memset(v, 0, sizeof *v);
	if (!dwi_has_types(c->d))
		return avrr_errf(err, "no DWARF type information in the firmware (stabs or none); "
				 "typed expressions need a build with -gdwarf-4");
	skip(&ps);
	if (!*ps.p)
		return avrr_errf(err, "Argument required (expression to compute).");
	if (parse_expr(&ps, v, 0))
		return -1;
	skip(&ps);
	if (*ps.p)
		return syntax(&ps);
	return 0;
}

int expr_address(const xctx *c, const xval *v, uint32_t *addr, int *is_code, avrr_err *err)
{
	int64_t x;
	*is_code = 0;
	if (v->is_pc) {
		*addr = (uint32_t)le_get(v->bytes, 2);
		*is_code = 1;
		return 0;
	}
	if (v->t.kind == DT_PTR) {
		dtype to;
		if (get_int(c, v, &x, err) || dt_target(&v->t, &to, err))
			return -1;
		*is_code = to.kind == DT_FUNC;
		*addr = (uint32_t)x & (*is_code ? 0x3fffff : 0xffff);
		return 0;
	}
	if (is_integral(&v->t)) {
		if (get_int(c, v, &x, err))
			return -1;
		*addr = (uint32_t)x;
		if (*addr >= ELF_DATA_BASE && *addr < 0x810000)
			*addr -= ELF_DATA_BASE;
		return 0;
	}
	if (v->lval) {
		*addr = v->addr;
		return 0;
	}
	return avrr_errf(err, "Attempt to take address of value not located in memory.");
}

static int access_of(Dwarf_Die *c, int dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	return dwarf_attr(c, DW_AT_accessibility, &a) && !dwarf_formudata(&a, &w) ? (int)w : dflt;
}

/* gdb's access label, printed where the access changes. */
static void put_access(FILE *out, int labels, int *section, int acc)
{
	if (!labels || acc == *section)
		return;
	*section = acc;
	fprintf(out, "  %s:\n", acc == DW_ACCESS_private ? "private"
			     : acc == DW_ACCESS_protected ? "protected" : "public");
}

/* A C++ method as gdb's ptype declares it: "virtual size_t write(uint8_t);",
 * constructors and conversion operators without a return type. */
static void put_method(FILE *out, const dtype *rec, Dwarf_Die *m, const char *cls)
{
	const char *name = die_name(m);
	char buf[256], tn[160];
	size_t len = 0;
	int has_this = 0, is_const = 0, nparams = 0;
	Dwarf_Die c;
	if (dwarf_child(m, &c) == 0)
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			dtype pt;
			avrr_err ignored;
			if (dwarf_hasattr(&c, DW_AT_artificial)) {
				/* `this`: a pointer to const in a const method. */
				Dwarf_Attribute a;
				Dwarf_Die ptr, to;
				has_this = 1;
				if (dwarf_attr(&c, DW_AT_type, &a) && dwarf_formref_die(&a, &ptr) &&
				    dwarf_attr(&ptr, DW_AT_type, &a) && dwarf_formref_die(&a, &to))
					is_const = dwarf_tag(&to) == DW_TAG_const_type;
				continue;
			}
			if (dt_of(rec->d, &c, &pt, &ignored))
				snprintf(tn, sizeof tn, "?");
			else
				dt_name(&pt, tn, sizeof tn);
			len += (size_t)snprintf(buf + len, len < sizeof buf ? sizeof buf - len : 0, "%s%s",
						nparams++ ? ", " : "", tn);
		} while (dwarf_siblingof(&c, &c) == 0);
	if (!nparams)
		snprintf(buf, sizeof buf, "void");
	int no_ret = !strcmp(name, cls) || name[0] == '~' ||
		     (!strncmp(name, "operator ", 9) && strncmp(name + 9, "new", 3) &&
		      strncmp(name + 9, "delete", 6));
	fputs("    ", out);
	if (dwarf_hasattr(m, DW_AT_virtuality))
		fputs("virtual ", out);
	else if (!has_this)
		fputs("static ", out);
	if (!no_ret) {
		dtype rt;
		avrr_err ignored;
		if (dt_of(rec->d, m, &rt, &ignored))
			snprintf(tn, sizeof tn, "?");
		else
			dt_name(&rt, tn, sizeof tn);
		fprintf(out, "%s ", tn);
	}
	fprintf(out, "%s(%s)%s;\n", name, buf, is_const ? " const" : "");
}

/* ptype of a struct, class or union: C's members, and C++'s base classes,
 * access labels and methods, as gdb lays them out. */
static int ptype_record(FILE *out, const dtype *t, const char *name, const char *rest,
			avrr_err *err)
{
	Dwarf_Die d = t->die, c;
	int dflt = t->is_class ? DW_ACCESS_private : DW_ACCESS_public;
	int labels = t->is_class, nfields = 0, nmethods = 0;
	const char *cls = die_name(&d);
	if (!cls)
		cls = "";
	if (dwarf_child(&d, &c) == 0)
		do {
			int tag = dwarf_tag(&c);
			if ((tag == DW_TAG_member || tag == DW_TAG_subprogram) &&
			    access_of(&c, dflt) != DW_ACCESS_public)
				labels = 1;
		} while (dwarf_siblingof(&c, &c) == 0);
	if (t->cplus)
		fprintf(out, "type = %s %s", t->is_class ? "class"
			     : t->kind == DT_UNION ? "union" : "struct", name);
	else
		fprintf(out, "type = %s", name);
	int k = 0;
	if (dwarf_child(&d, &c) == 0)
		do {
			if (dwarf_tag(&c) != DW_TAG_inheritance)
				continue;
			dtype bt;
			char bn[160];
			if (dt_of(t->d, &c, &bt, err))
				return -1;
			dt_name(&bt, bn, sizeof bn);
			int acc = access_of(&c, dflt);
			fprintf(out, "%s %s%s %s", k++ ? "," : " :",
				acc == DW_ACCESS_private ? "private"
				: acc == DW_ACCESS_protected ? "protected" : "public",
				dwarf_hasattr(&c, DW_AT_virtuality) ? " virtual" : "", bn);
		} while (dwarf_siblingof(&c, &c) == 0);
	fputs(" {\n", out);
	int section = 0;
	char decl[256];
	if (dwarf_child(&d, &c) == 0)
		do {
			const char *mn = die_name(&c);
			if (dwarf_tag(&c) != DW_TAG_member || (mn && !strncmp(mn, "_vptr", 5)))
				continue;   /* gdb leaves the vtable pointer out */
			dtype mt;
			if (dt_of(t->d, &c, &mt, err))
				return -1;
			put_access(out, labels, &section, access_of(&c, dflt));
			dt_declare(&mt, mn ? mn : "", decl, sizeof decl);
			fprintf(out, "    %s%s;\n", dwarf_hasattr(&c, DW_AT_declaration) ? "static " : "",
				decl);
			nfields++;
		} while (dwarf_siblingof(&c, &c) == 0);
	/* gdb lists a method's overloads together, where the name first
	 * appears (an implicit, artificial overload counts). */
	Dwarf_Die fns[256];
	size_t nfns = 0;
	if (dwarf_child(&d, &c) == 0)
		do
			if (dwarf_tag(&c) == DW_TAG_subprogram && die_name(&c) &&
			    nfns < sizeof fns / sizeof *fns)
				fns[nfns++] = c;
		while (dwarf_siblingof(&c, &c) == 0);
	for (size_t i = 0; i < nfns; i++) {
		const char *fn = die_name(&fns[i]);
		size_t first = 0;
		while (strcmp(die_name(&fns[first]), fn))
			first++;
		if (first < i)
			continue;
		for (size_t j = i; j < nfns; j++) {
			if (strcmp(die_name(&fns[j]), fn) || dwarf_hasattr(&fns[j], DW_AT_artificial))
				continue;
			if (!nmethods++ && nfields)
				fputs("\n", out);
			put_access(out, labels, &section, access_of(&fns[j], dflt));
			put_method(out, t, &fns[j], cls);
		}
	}
	fprintf(out, "}%s\n", rest);
	return 0;
}

int expr_type(FILE *out, const xctx *c, const char *text, int expand, avrr_err *err)
{
	parser ps = { c, text, text, err, 0 };
	dtype t;
	char name[256];
	avrr_err ignored;
	if (!dwi_has_types(c->d))
		return avrr_errf(err, "no DWARF type information in the firmware (stabs or none); "
				 "typed expressions need a build with -gdwarf-4");
	/* A type name first ("struct sensor", "uint16_t *"), as gdb takes it;
	 * a variable of the same name wins. */
	char paren[300];
	snprintf(paren, sizeof paren, "%s)", text);
	parser tp = { c, paren, paren, &ignored, 0 };
	if (parse_cast_type(&tp, &t) == 1 && !*tp.p) {
		/* A typedef's name: whatis shows what it names (gdb's one level). */
		Dwarf_Die td = t.named, to;
		Dwarf_Attribute a;
		if (!expand && t.has_die && !t.ptr_to_named && dwarf_tag(&td) == DW_TAG_typedef &&
		    dwarf_attr(&td, DW_AT_type, &a) && dwarf_formref_die(&a, &to))
			t.named = to;
	} else {
		xval v;
		if (expr_eval(c, text, &v, err))
			return -1;
		if (v.is_pc) {
			fputs("type = void (*)()\n", out);
			return 0;
		}
		t = v.t;
	}
	(void)ps;
	/* ptype shows the struct, union or enum under pointers and arrays
	 * with its members, then the declarator: "} * volatile", "} [3]". */
	dtype base = t;
	for (int k = 0; k < 8 && (base.kind == DT_PTR || base.kind == DT_ARRAY); k++)
		if (dt_target(&base, &base, err))
			return -1;
	char full[256], bname[256];
	dt_name(&t, full, sizeof full);
	dt_name(&base, bname, sizeof bname);
	if (expand && base.has_die && (base.kind == DT_STRUCT || base.kind == DT_UNION ||
				       base.kind == DT_ENUM) && !strncmp(full, bname, strlen(bname))) {
		const char *rest = full + strlen(bname);
		dtype plain = base;
		plain.named = base.die;   /* gdb's ptype looks through typedefs */
		plain.ptr_to_named = 0;
		dt_name(&plain, name, sizeof name);
		t = base;
		if (t.kind != DT_ENUM)
			return ptype_record(out, &t, name, rest, err);
		fprintf(out, "type = %s {\n", name);
		Dwarf_Die d = t.die, e;
		int k = 0;
		if (dwarf_child(&d, &e) == 0)
			do
				if (dwarf_tag(&e) == DW_TAG_enumerator)
					fprintf(out, "%s%s", k++ ? ", " : "    ", die_name(&e));
			while (dwarf_siblingof(&e, &e) == 0);
		fprintf(out, "%s}%s\n", k ? "\n" : "", rest);
		return 0;
	}
	if (expand)
		dt_name_resolved(&t, name, sizeof name);
	else
		dt_name(&t, name, sizeof name);
	fprintf(out, "type = %s\n", name);
	return 0;
}

void expr_keep(const xctx *c, const xval *v, unsigned num, xhist *h)
{
	avrr_err err;
	memset(h, 0, sizeof *h);
	h->num = num;
	h->v = *v;
	if (v->lval && v->t.size <= sizeof h->v.bytes) {
		const uint8_t *p = expr_bytes(c, v, &err);
		if (p)
			memcpy(h->v.bytes, p, v->t.size);
		h->v.lval = 0;
	}
}

int expr_format(const char *args, char *fmt, const char **rest, avrr_err *err)
{
	*fmt = 0;
	*rest = args;
	if (*args != '/')
		return 0;
	const char *p = args + 1;
	size_t n = strcspn(p, " \t");
	if (n != 1 || !strchr("xduotcaz", *p))
		return avrr_errf(err, "Undefined output format \"%.*s\".", (int)n, p);
	*fmt = *p;
	p += n;
	while (*p == ' ' || *p == '\t')
		p++;
	*rest = p;
	return 0;
}

int expr_lvalue(const xctx *c, const char *text, uint32_t *addr, unsigned *size, dtype *t,
		avrr_err *err)
{
	xval v;
	if (expr_eval(c, text, &v, err) || coerce_ref(c, &v, err))
		return -1;
	if (!v.lval || v.is_pc || v.t.kind == DT_FUNC)
		return avrr_errf(err, "Cannot watch constant value `%s'.", text);
	if (!v.t.size)
		return avrr_errf(err, "cannot watch `%s': it has no size", text);
	*addr = v.addr;
	*size = v.t.size;
	*t = v.t;
	return 0;
}
