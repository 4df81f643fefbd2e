/*
 * scope.c — frames, locals and source as gdb prints them (see scope.h).
 */
#include "shell/scope.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/avrspace.h"


int scope_frame(const dwinfo *d, const mview *m, unsigned n, dw_frame *f, avrr_err *err)
{
	dw_mem mem = expr_mem(m);
	dw_frame0(d, &mem, m->pc, f);
	for (unsigned i = 0; i < n; i++) {
		dw_frame caller;
		if (dw_unwind(d, &mem, f, &caller, err))
			return -1;
		*f = caller;
	}
	dw_frame up;
	avrr_err ignored;
	dw_unwind(d, &mem, f, &up, &ignored);  /* this frame's CFA, where it is known */
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

void scope_function_name(const xctx *c, char *buf, size_t n)
{
	Dwarf_Die fn;
	const char *name = NULL;
	if (!dw_function(c->d, c->f, &fn))
		name = die_name(&fn);
	if (!name) {
		const fw_symbol *s = fw_code_symbol_at(c->m->fw, c->f->outer ? c->f->pc - 1 : c->f->pc);
		name = s ? s->name : "??";
	}
	snprintf(buf, n, "%s", name);
}

/* "name = value" (sep " = ") or "name=value" (sep "="). */
static void put_var(FILE *out, const xctx *c, Dwarf_Die *var, const char *sep)
{
	const char *name = die_name(var);
	Dwarf_Die v = *var;
	fprintf(out, "%s%s", name ? name : "?", sep);
	avrr_err err;
	xval x;
	memset(&x, 0, sizeof x);
	if (dt_of(c->d, &v, &x.t, &err)) {
		fprintf(out, "<error: %s>", err.msg);
		return;
	}
	dw_loc loc;
	dw_mem mem = expr_mem(c->m);
	if (dw_locate(c->d, &mem, c->f, &v, x.t.size, &loc, &err)) {
		fprintf(out, "<error: %s>", err.msg);
		return;
	}
	x.optimized_out = loc.kind == LOC_OPTIMIZED_OUT;
	x.lval = loc.kind == LOC_MEM;
	x.addr = loc.addr;
	memcpy(x.bytes, loc.bytes, sizeof x.bytes);
	if (expr_print(out, c, &x, 0, 0, &err))
		fprintf(out, "<error: %s>", err.msg);
}

typedef struct var_walk {
	FILE *out;
	const xctx *c;
	const char *sep, *between;
	unsigned n;
} var_walk;

static int one_var(Dwarf_Die *var, void *ud)
{
	var_walk *w = ud;
	if (!die_name(var))
		return 0;
	if (w->n++)
		fputs(w->between, w->out);
	put_var(w->out, w->c, var, w->sep);
	return 0;
}

void scope_vars(FILE *out, const xctx *c, int args)
{
	var_walk w = { out, c, " = ", "\n", 0 };
	if (dwi_has_types(c->d))
		dw_each_var(c->d, c->f, args, one_var, &w);
	if (w.n)
		fputc('\n', out);
	else
		fputs(args ? "No arguments.\n" : "No locals.\n", out);
}

/* The source line of the frame's pc (a caller's: of its call). */
static int frame_source(const xctx *c, const src_lines *lines, const char **file, unsigned *line)
{
	uint32_t pc = c->f->outer ? c->f->pc - 1 : c->f->pc;
	return lines_available(lines) ? lines_at(lines, pc & ~1u, file, line) : -1;
}

void scope_frame_line(FILE *out, const xctx *c, unsigned n, const src_lines *lines)
{
	char fn[128];
	const char *file;
	unsigned line;
	int has_src = !frame_source(c, lines, &file, &line);
	scope_function_name(c, fn, sizeof fn);
	fprintf(out, "#%-3u", n);
	if (n || !has_src || !lines_is_line_start(lines, c->f->pc))
		fprintf(out, "0x%08x in ", c->f->pc);
	fprintf(out, "%s (", fn);
	var_walk w = { out, c, "=", ", ", 0 };
	if (dwi_has_types(c->d))
		dw_each_var(c->d, c->f, 1, one_var, &w);
	fputc(')', out);
	if (has_src)
		fprintf(out, " at %s:%u", base_name(file), line);
	fputc('\n', out);
	avrr_err err;
	if (has_src)
		scope_list(out, file, line, line, &err);
}

void scope_info_frame(FILE *out, const xctx *c, unsigned n, const dw_frame *caller,
		      const dw_frame *callee, const src_lines *lines)
{
	const dw_frame *f = c->f;
	char fn[128];
	const char *file;
	unsigned line;
	scope_function_name(c, fn, sizeof fn);
	fprintf(out, "Stack level %u", n);
	if (f->has_cfa)
		fprintf(out, ", frame at 0x%x", f->cfa + ELF_DATA_BASE);
	fprintf(out, ":\n pc = 0x%x in %s", f->pc, fn);
	if (!frame_source(c, lines, &file, &line))
		fprintf(out, " (%s:%u)", base_name(file), line);
	if (caller)
		fprintf(out, "; saved pc = 0x%x", caller->pc);
	fputc('\n', out);
	if (caller && caller->has_cfa)
		fprintf(out, " called by frame at 0x%x", caller->cfa + ELF_DATA_BASE);
	if (callee && callee->has_cfa)
		fprintf(out, "%s caller of frame at 0x%x", caller && caller->has_cfa ? "," : "",
			callee->cfa + ELF_DATA_BASE);
	if ((caller && caller->has_cfa) || (callee && callee->has_cfa))
		fputc('\n', out);
	fprintf(out, " source language c.\n Arglist at 0x%x, args: ", f->sp + ELF_DATA_BASE);
	var_walk w = { out, c, "=", ", ", 0 };
	if (dwi_has_types(c->d))
		dw_each_var(c->d, c->f, 1, one_var, &w);
	fprintf(out, "\n Locals at 0x%x,", f->sp + ELF_DATA_BASE);
	if (f->has_cfa)
		fprintf(out, " Previous frame's sp is 0x%x", f->cfa + ELF_DATA_BASE);
	fputc('\n', out);
	unsigned k = 0;
	for (unsigned r = 0; r <= 32; r++) {
		if (!f->saved_at[r])
			continue;
		if (!k++)
			fputs(" Saved registers:\n ", out);
		char name[8];
		snprintf(name, sizeof name, r == 32 ? "pc" : "r%u", r);
		fprintf(out, "%s %s at 0x%x", k > 1 ? "," : "", name,
			f->saved_at[r] - 1 + ELF_DATA_BASE);
	}
	if (k)
		fputc('\n', out);
}

int scope_list(FILE *out, const char *file, unsigned from, unsigned to, avrr_err *err)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return avrr_errf(err, "%s: %s", file, strerror(errno));
	char *text = NULL;
	size_t cap = 0;
	unsigned n = 0, printed = 0;
	ssize_t len;
	while ((len = getline(&text, &cap, f)) >= 0 && ++n <= to) {
		if (n < from)
			continue;
		if (len && text[len - 1] == '\n')
			text[--len] = 0;
		fprintf(out, "%u\t%s\n", n, text);
		printed++;
	}
	free(text);
	fclose(f);
	if (!printed)
		return avrr_errf(err, "Line number %u out of range; \"%s\" has %u lines.", from,
				 base_name(file), n > to ? to : n);
	return (int)printed;
}
