/*
 * engine.c — gdb's commands over the timeline (timeline.h), printed as
 * gdb prints them: the shell's engine (see engine.h).
 *
 * Every motion is the timeline's; this file parses commands, resolves
 * names to addresses and prints stops, frames and state.
 */
#include "shell/engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell/expr.h"
#include "shell/frames.h"
#include "report/report.h"
#include "session/session.h"
#include "shell/scope.h"
#include "trace/uart.h"
#include "shell/view.h"
#include "util/le.h"

#define MAX_DISPLAYS 8
#define HISTORY_KEPT 8

/* An expression `display` shows after every stop. */
typedef struct display {
	int num;              /* gdb's display number; 0: a free slot */
	char fmt;             /* format letter or 0 */
	char expr[120];
} display;

/* The engine's own state that travels with the timeline (tl_carry): plain
 * data, pointers only into what was loaded before the first checkpoint. */
typedef struct shell_carry {
	view_xstate xs;       /* x's last format, unit and address */
	unsigned history;     /* values printed so far: the next is $history+1 */
	unsigned frame;       /* the selected frame, 0 innermost; every stop resets it */
	const char *list_file;  /* list's file (a line table string) and next line; */
	unsigned list_next;     /* NULL: the next list centres on the frame's line */
	display disp[MAX_DISPLAYS];
	int next_display;
	xhist hist[HISTORY_KEPT];  /* the last values printed, for $, $N, $$N */
} shell_carry;
_Static_assert(sizeof(shell_carry) <= TL_CARRY_MAX, "the carry outgrows the timeline's");

typedef struct engine {
	timeline *tl;
	replay *r;
	sim *s;
	const firmware *fw;
	const src_lines *lines;
	travel *t;
	dwinfo *dw;           /* DWARF types, scopes and CFI (may have none) */
	cfi_table *cfi;       /* each function's frame at each instruction, from its code */
	shell_carry carry;
	/* Why the last breakpoint condition could not be evaluated ("": it
	 * could); said at the stop it causes, as gdb does. */
	char cond_error[512];
} engine;

static void reply(const travel *t, const char *msg)
{
	fflush(stdout);
	ssize_t w = write(t->reply_fd, msg, strlen(msg));
	(void)w;  /* the UI gone is noticed on the next read */
}

/* ---- printing ------------------------------------------------------------- */

static mview view_of(engine *e)
{
	return (mview){ .data = sim_live_data(e->s), .data_size = sim_data_size(e->s), .fw = e->fw,
			.names = sim_names(e->s), .pc = sim_pc(e->s), .icount = rp_icount(e->r) };
}

static void print_pc_line(engine *e, uint32_t pc)
{
	const char *file;
	unsigned line;
	if (lines_available(e->lines) && !lines_at(e->lines, pc, &file, &line)) {
		const char *base = strrchr(file, '/');
		printf(" at %s:%u", base ? base + 1 : file, line);
	}
}

/* `where`'s first line: icount=<n> pc=0x<hex> <symbol>+<offset>. */
static void print_location(engine *e)
{
	char where[128];
	uint32_t pc = sim_pc(e->s);
	fw_describe_pc(e->fw, pc, where, sizeof where);
	printf("icount=%" PRIu64 " pc=0x%04x %s", rp_icount(e->r), pc, where);
	print_pc_line(e, pc);
	printf("\n");
}

/* The selected frame and the evaluation context over it; -1 (printed)
 * when the frame cannot be unwound. */
static int context_of(engine *e, const mview *m, dw_frame *f, xctx *c)
{
	avrr_err err;
	if (frames_get(e->cfi, e->dw, m, e->carry.frame, f, &err)) {
		printf("%s\n", err.msg);
		return -1;
	}
	*c = (xctx){ m, e->dw, f, e->carry.hist, HISTORY_KEPT, e->carry.history };
	return 0;
}

static void examine(engine *e, const char *fmt, const char *expr, view_xstate *xs);

static void show_display(engine *e, const display *d, const xctx *c)
{
	if (d->fmt == 'i' || d->fmt == 's') {
		/* gdb's display/i and display/s are an x each time. */
		char fmt[4] = { '/', d->fmt, 0, 0 };
		printf("%d: x/%c %s\n", d->num, d->fmt, d->expr);
		examine(e, fmt, d->expr, NULL);
		return;
	}
	xval v;
	avrr_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	if (expr_eval(c, d->expr, &v, &err) || expr_print(f, c, &v, d->fmt, 1, &err))
		fprintf(f, "<error: %s>", err.msg);
	fclose(f);
	if (d->fmt)
		printf("%d: /%c %s = %s\n", d->num, d->fmt, d->expr, text);
	else
		printf("%d: %s = %s\n", d->num, d->expr, text);
	free(text);
	(void)e;
}

/* gdb shows the displays after every stop, in the order they were made. */
static void show_displays(engine *e)
{
	mview m = view_of(e);
	dw_frame f;
	xctx c;
	int any = 0;
	for (int i = 0; i < MAX_DISPLAYS; i++)
		any |= e->carry.disp[i].num != 0;
	if (!any || context_of(e, &m, &f, &c))
		return;
	/* Ascending numbers: the order they were made in. */
	for (int last = 0;;) {
		const display *next = NULL;
		for (int i = 0; i < MAX_DISPLAYS; i++) {
			const display *d = &e->carry.disp[i];
			if (d->num > last && (!next || d->num < next->num))
				next = d;
		}
		if (!next)
			break;
		show_display(e, next, &c);
		last = next->num;
	}
}

/* A watched value as gdb prints it, in the type of the watched
 * expression (`tank` a struct, `level` a char); an integer when the
 * expression no longer names that object here. */
static void print_watched(engine *e, const tl_stop *st, uint64_t value)
{
	mview m = view_of(e);
	dw_frame f;
	xctx c;
	avrr_err err;
	uint32_t addr;
	unsigned size;
	dtype t;
	uint8_t bytes[16] = { 0 };
	le_put(bytes, value, 8);
	if (dwi_has_types(e->dw) && !scope_frame(e->dw, &m, 0, &f, &err)) {
		c = (xctx){ &m, e->dw, &f, NULL, 0, 0 };
		if (!expr_lvalue(&c, st->what, &addr, &size, &t, &err) && addr == st->addr &&
		    size <= 8 && !expr_print_bytes(stdout, &c, &t, bytes, &err))
			return;
	}
	printf("%" PRIu64, value);
}

/* Prints how a motion ended, then where it is (tl_frontend.stopped). */
static void on_stopped(timeline *tl, const tl_stop *st, void *ud)
{
	engine *e = ud;
	(void)tl;
	switch (st->kind) {
	case TL_BREAK:
		if (e->cond_error[0]) {
			printf("Error in testing condition for breakpoint %d:\n%s\n", st->id,
			       e->cond_error);
			e->cond_error[0] = 0;
		}
		printf("Breakpoint %d, %s\n", st->id, st->what);
		break;
	case TL_IRQ:
		printf("Breakpoint %d, interrupt %s\n", st->id, st->what);
		break;
	case TL_WATCH:
		/* Backward, as gdb: stopped before the write, so the value known
		 * last (Old) is the later one. */
		printf("Watchpoint %d: %s\nOld value = ", st->id, st->what);
		print_watched(e, st, st->reverse ? st->now : st->old);
		printf("\nNew value = ");
		print_watched(e, st, st->reverse ? st->old : st->now);
		printf("\n");
		break;
	case TL_RWATCH:
	case TL_AWATCH:
		printf("%s %d: %s\nValue = ",
		       st->kind == TL_RWATCH ? "Read watchpoint" : "Access watchpoint", st->id,
		       st->what);
		print_watched(e, st, st->now);
		printf("\n");
		break;
	case TL_START:
		printf("Start of recording.\n");
		break;
	case TL_END:
		printf("End of recording.\n");
		break;
	case TL_DIVERGED: {
		const rp_divergence *d = rp_get_divergence(e->r);
		printf("The replay diverged: expected %s, got %s (see info divergence).\n",
		       d->expected, d->actual);
		break;
	}
	case TL_INTERRUPTED:
		printf("Interrupted.\n");
		break;
	case TL_CPU_STOPPED:
		printf("The CPU stopped.\n");
		break;
	case TL_FAILED:
		printf("%s\n", st->what);
		return;
	case TL_STEPPED:
		break;
	}
	print_location(e);
	e->carry.frame = 0;
	e->carry.list_file = NULL;
	show_displays(e);
}

/* ---- commands ------------------------------------------------------------- */

typedef int (*command_fn)(engine *e, const char *args);


static int count_arg(const char *args, uint64_t *n)
{
	*n = 1;
	if (*args && (tl_parse_count(args, n) || !*n)) {
		printf("bad count '%s'\n", args);
		return -1;
	}
	return 0;
}

static int at_divergence(engine *e)
{
	if (!rp_get_divergence(e->r))
		return 0;
	printf("The replay diverged here and cannot go further; go back, or see info divergence.\n");
	return 1;
}

static int cmd_stepi(engine *e, const char *args)
{
	uint64_t n;
	if (count_arg(args, &n) || at_divergence(e))
		return 0;
	if (rp_icount(e->r) >= rp_length(e->r)) {
		printf("End of recording.\n");
		return 0;
	}
	tl_stepi(e->tl, n);
	return 0;
}

static int step_lines(engine *e, int into_calls)
{
	if (at_divergence(e))
		return 0;
	if (!lines_available(e->lines)) {
		printf("(no line information: stepping by instruction)\n");
		return cmd_stepi(e, "");
	}
	tl_step_line(e->tl, into_calls);
	return 0;
}

static int cmd_step(engine *e, const char *args)
{
	(void)args;
	return step_lines(e, 1);
}

static int cmd_next(engine *e, const char *args)
{
	(void)args;
	return step_lines(e, 0);
}

static int cmd_continue(engine *e, const char *args)
{
	(void)args;
	if (!at_divergence(e))
		tl_continue(e->tl);
	return 0;
}

static unsigned depth_of(engine *e)
{
	unsigned n, unkept, lost;
	tl_frames(e->tl, &n, &unkept, &lost);
	return n + unkept;
}

/* The shadow stack's entry that frame n (0 innermost) was entered by —
 * where's line #n — or NULL for frame 0 and frames not kept. */
static const tl_frame *shadow_frame(engine *e, unsigned n)
{
	unsigned nfr, unkept, lost;
	const tl_frame *fr = tl_frames(e->tl, &nfr, &unkept, &lost);
	if (!n || n > nfr + unkept || nfr + unkept - n >= nfr)
		return NULL;
	return &fr[nfr + unkept - n];
}

static int cmd_finish(engine *e, const char *args)
{
	(void)args;
	if (!depth_of(e))
		printf("\"finish\" not meaningful in the outermost frame.\n");
	else if (!at_divergence(e))
		tl_finish(e->tl);
	return 0;
}

static int cmd_reverse_stepi(engine *e, const char *args)
{
	uint64_t n;
	if (!count_arg(args, &n))
		tl_reverse_stepi(e->tl, n);
	return 0;
}

static int cmd_reverse_continue(engine *e, const char *args)
{
	(void)args;
	tl_reverse_continue(e->tl, 1);
	return 0;
}

static int reverse_lines(engine *e, int into_calls)
{
	if (!lines_available(e->lines)) {
		printf("(no line information: stepping by instruction)\n");
		return cmd_reverse_stepi(e, "");
	}
	tl_reverse_line(e->tl, into_calls);
	return 0;
}

static int cmd_reverse_step(engine *e, const char *args)
{
	(void)args;
	return reverse_lines(e, 1);
}

static int cmd_reverse_next(engine *e, const char *args)
{
	(void)args;
	return reverse_lines(e, 0);
}

static int cmd_reverse_finish(engine *e, const char *args)
{
	(void)args;
	tl_reverse_finish(e->tl);
	return 0;
}

static int cmd_goto(engine *e, const char *args)
{
	uint64_t target;
	int rc = tl_parse_position(e->tl, args, &target);
	if (rc == -2) {
		printf("no recorded interrupt '%s' (they are numbered from 1)\n",
		       args + 3 + strspn(args + 3, " "));
		return 0;
	}
	if (rc) {
		printf("usage: goto ICOUNT | goto irq N\n");
		return 0;
	}
	if (target > rp_icount(e->r) && target <= rp_length(e->r) && at_divergence(e))
		return 0;
	tl_goto(e->tl, target);
	return 0;
}

static int cmd_run(engine *e, const char *args)
{
	(void)args;
	tl_goto(e->tl, 0);
	return 0;
}

static tl_break *new_break(engine *e, tl_break_kind kind, uint32_t addr, unsigned size,
			   const char *what)
{
	tl_break *b = tl_break_add(e->tl, kind, addr, size, what);
	if (!b)
		printf("too many breakpoints (at most %d)\n", TL_MAX_BREAKS);
	return b;
}

/* The handler of the vector named `name` (TIMER1_COMPA_vect, as ISR()
 * names it and where prints it): avr-gcc's __vector_N.  0; -1 when no
 * vector has that name; -2 (said) when the firmware has no handler. */
static int vector_handler(engine *e, const char *name, uint32_t *addr)
{
	for (unsigned v = 1; v < 256; v++) {
		const char *vn = sim_vector_name(e->s, (uint8_t)v);
		if (!vn || strcmp(vn, name))
			continue;
		char sym[32];
		snprintf(sym, sizeof sym, "__vector_%u", v);
		const fw_symbol *s = fw_find_symbol(e->fw, sym);
		if (!s || s->space != FW_SYM_CODE) {
			/* its slot jumps to __bad_interrupt: nothing to stop in */
			printf("%s (vector %u) has no handler in the firmware\n", name, v);
			return -2;
		}
		*addr = s->addr;
		return 0;
	}
	return -1;
}

/* `break LOC if COND`: LOC into loc, and COND, or NULL.  -1 (printed) when
 * the condition is missing. */
static int split_condition(const char *args, char *loc, size_t n, const char **cond)
{
	const char *iff = strstr(args, " if ");
	size_t len = strlen(args);
	*cond = NULL;
	if (!iff && len >= 3 && !strcmp(args + len - 3, " if"))
		iff = args + len - 3;
	if (!iff) {
		snprintf(loc, n, "%s", args);
		return 0;
	}
	snprintf(loc, n, "%.*s", (int)(iff - args), args);
	*cond = iff + 3 + strspn(iff + 3, " ");
	if (!**cond) {
		printf("Argument required (boolean expression).\n");
		return -1;
	}
	return 0;
}

/* Gives a new breakpoint its condition, or deletes it when too long. */
static int set_condition(engine *e, tl_break *b, const char *cond)
{
	if (!cond || !tl_break_condition(e->tl, b->id, cond))
		return 0;
	printf("condition too long (at most %zu characters)\n", sizeof b->cond - 1);
	tl_break_delete(e->tl, b->id);
	return -1;
}

static int add_break(engine *e, const char *text, int temp)
{
	char args[256];
	const char *cond;
	if (split_condition(text, args, sizeof args, &cond))
		return 0;
	if (!*args) {
		printf("usage: break ADDR|SYMBOL|FILE:LINE [if COND] | break irq [VECTOR] [if COND]\n");
		return 0;
	}
	if (!strncmp(args, "irq", 3) && (args[3] == ' ' || !args[3])) {
		const char *a = args + 3;
		while (*a == ' ')
			a++;
		uint64_t v = 0;
		if (*a && (tl_parse_count(a, &v) || v > 255 || !sim_vector_name(e->s, (uint8_t)v))) {
			printf("no interrupt vector '%s' on this MCU\n", a);
			return 0;
		}
		char what[64];
		const char *name = *a ? sim_vector_name(e->s, (uint8_t)v) : NULL;
		snprintf(what, sizeof what, "%s", name ? name : "any");
		tl_break *b = new_break(e, TL_BK_IRQ, 0, 0, what);
		if (b && !set_condition(e, b, cond)) {
			b->vector = *a ? (int)v : -1;
			b->temp = temp;
			printf("Breakpoint %d at interrupt %s\n", b->id, what);
		}
		return 0;
	}
	uint32_t addr;
	avrr_err err;
	const char *colon = strrchr(args, ':');
	if (colon && colon[1] >= '0' && colon[1] <= '9') {
		char file[256];
		uint64_t line;
		snprintf(file, sizeof file, "%.*s", (int)(colon - args), args);
		if (tl_parse_count(colon + 1, &line) || line > UINT32_MAX) {
			printf("bad line number in '%s'\n", args);
			return 0;
		}
		if (!lines_available(e->lines)) {
			printf("no line information in the firmware; break on an address or symbol\n");
			return 0;
		}
		if (lines_addr(e->lines, file, (unsigned)line, &addr, &err)) {
			printf("%s\n", err.msg);
			return 0;
		}
	} else {
		mview m = view_of(e);
		int is_code = 1;
		/* gdb writes an address as *ADDR; a bare one means the same here.
		 * A static function may be known only by its DWARF name. */
		if (view_address(&m, args + (*args == '*'), 1, &addr, &is_code, &err) &&
		    (*args == '*' || dw_function_addr(e->dw, args, &addr))) {
			int v = *args == '*' ? -1 : vector_handler(e, args, &addr);
			if (v == -1)
				printf("%s\n", err.msg);
			if (v)
				return 0;
		}
		if (!is_code) {
			printf("'%s' is a data address; use watch for data\n", args);
			return 0;
		}
	}
	tl_break *b = new_break(e, TL_BK_CODE, addr, 0, args);
	if (!b || set_condition(e, b, cond))
		return 0;
	b->temp = temp;
	char where[128];
	fw_describe_pc(e->fw, addr, where, sizeof where);
	printf("%s %d at 0x%04x: %s", temp ? "Temporary breakpoint" : "Breakpoint", b->id, addr,
	       where);
	print_pc_line(e, addr);
	printf("\n");
	return 0;
}

static int cmd_break(engine *e, const char *args)
{
	return add_break(e, args, 0);
}

static int cmd_tbreak(engine *e, const char *args)
{
	return add_break(e, args, 1);
}

/* The object an lvalue expression names in the selected frame. */
static int watch_lvalue(engine *e, const mview *m, const char *args, uint32_t *addr,
			unsigned *size, avrr_err *err)
{
	dw_frame f;
	xctx c;
	dtype t;
	avrr_err ignored;
	if (!dwi_has_types(e->dw) || scope_frame(e->dw, m, e->carry.frame, &f, &ignored))
		return -1;
	c = (xctx){ m, e->dw, &f, NULL, 0, 0 };
	return expr_lvalue(&c, args, addr, size, &t, err);
}

static int add_watch(engine *e, const char *args, tl_break_kind kind)
{
	uint32_t addr;
	int is_code;
	avrr_err err;
	mview m = view_of(e);
	if (!*args) {
		printf("usage: watch SYMBOL|ADDR\n");
		return 0;
	}
	/* An lvalue over the DWARF types (`tank.level`, `buf[3]`, `*p`): its
	 * object's address and size; else an address expression. */
	unsigned size = 0;
	avrr_err typed = { "" };
	if (watch_lvalue(e, &m, args, &addr, &size, &typed)) {
		if (view_address(&m, args, 0, &addr, &is_code, &err)) {
			printf("%s\n", *typed.msg ? typed.msg : err.msg);
			return 0;
		}
		if (is_code) {
			printf("'%s' is in flash, which the firmware cannot write\n", args);
			return 0;
		}
	}
	const char *name = args[0] == '&' ? args + 1 : args;
	const fw_symbol *sym = fw_find_symbol(e->fw, name);
	if (!size)
		size = sym && sym->space == FW_SYM_DATA && sym->addr == addr && sym->size ? sym->size : 1;
	if (size > 8)
		size = 8;
	tl_break *b = new_break(e, kind, addr, size, args);
	if (!b)
		return 0;
	printf("%s %d: %s (%u byte%s at 0x%x)\n",
	       kind == TL_BK_WATCH ? "Watchpoint" : kind == TL_BK_RWATCH ? "Read watchpoint"
	       : "Access watchpoint", b->id, args, size, size > 1 ? "s" : "", addr);
	return 0;
}

static int cmd_watch(engine *e, const char *args)
{
	return add_watch(e, args, TL_BK_WATCH);
}

static int cmd_rwatch(engine *e, const char *args)
{
	return add_watch(e, args, TL_BK_RWATCH);
}

static int cmd_awatch(engine *e, const char *args)
{
	return add_watch(e, args, TL_BK_AWATCH);
}

/* gdb's `condition N [EXPR]`: sets breakpoint N's condition, or clears it. */
static int cmd_condition(engine *e, const char *args)
{
	char *end;
	long id = strtol(args, &end, 10);
	if (end == args || (*end && *end != ' ')) {
		printf("Argument required (breakpoint number).\n");
		return 0;
	}
	const char *cond = end + strspn(end, " ");
	int rc = tl_break_condition(e->tl, (int)id, cond);
	if (rc == -1)
		printf("No breakpoint number %ld.\n", id);
	else if (rc == -2)
		printf("condition too long (at most %zu characters)\n",
		       sizeof ((tl_break *)0)->cond - 1);
	else if (!*cond)
		printf("Breakpoint %ld now unconditional.\n", id);
	return 0;
}

/* Keeps why a condition could not be evaluated, for the stop it causes. */
static int condition_error(engine *e, const char *why)
{
	snprintf(e->cond_error, sizeof e->cond_error, "%s", why);
	return -1;
}

/* tl_frontend.condition: a breakpoint's condition where it would stop,
 * in the innermost frame (as gdb evaluates it): any non-zero byte of the
 * value holds. */
static int on_condition(timeline *tl, const char *cond, void *ud)
{
	(void)tl;
	engine *e = ud;
	mview m = view_of(e);
	dw_frame f;
	xval v;
	avrr_err err;
	if (frames_get(e->cfi, e->dw, &m, 0, &f, &err))
		return condition_error(e, err.msg);
	xctx c = { &m, e->dw, &f, NULL, 0, 0 };
	if (expr_eval(&c, cond, &v, &err))
		return condition_error(e, err.msg);
	if (v.optimized_out)
		return condition_error(e, "value has been optimized out");
	e->cond_error[0] = 0;
	unsigned n = v.t.size < sizeof v.bytes ? v.t.size : (unsigned)sizeof v.bytes;
	for (unsigned i = 0; i < n; i++)
		if (v.bytes[i])
			return 1;
	return 0;
}

static int cmd_delete(engine *e, const char *args)
{
	uint64_t id;
	if (!*args)
		tl_break_clear(e->tl);
	else if (tl_parse_count(args, &id))
		printf("usage: delete [N]\n");
	else if (id > INT32_MAX || tl_break_delete(e->tl, (int)id))
		printf("No breakpoint number %s.\n", args);
	return 0;
}

static int info_breakpoints(engine *e, const char *args)
{
	(void)args;
	unsigned n;
	const tl_break *bs = tl_breaks(e->tl, &n);
	if (!n) {
		printf("No breakpoints or watchpoints.\n");
		return 0;
	}
	static const char *const TYPE[] = { "breakpoint", "interrupt", "watchpoint",
					    "read watchpoint", "acc watchpoint" };
	printf("Num  Type        Address  What\n");
	for (unsigned i = 0; i < n; i++) {
		const tl_break *b = &bs[i];
		const char *type = b->kind == TL_BK_CODE && b->temp ? "tbreakpoint" : TYPE[b->kind];
		if (b->kind == TL_BK_IRQ)
			printf("%-4d %-11s %-8s %s\n", b->id, type, "", b->what);
		else
			printf("%-4d %-11s 0x%04x   %s\n", b->id, type, b->addr, b->what);
		if (b->cond[0])
			printf("\tstop only if %s\n", b->cond);
	}
	return 0;
}

/* Whether call frame i (0 = outermost) is the C runtime's call of main:
 * the outermost call, into main (the function holding the next frame's
 * `from`, or pc when it is the innermost kept). */
static int called_by_crt(const engine *e, const tl_frame *fr, unsigned nfr, unsigned unkept,
			 unsigned i, uint32_t pc)
{
	if (i != 0 || fr[0].vector || (i + 1 == nfr && unkept))
		return 0;
	const fw_symbol *callee = fw_code_symbol_at(e->fw, i + 1 < nfr ? fr[i + 1].from : pc);
	return callee && !strcmp(callee->name, "main");
}

static int cmd_where(engine *e, const char *args)
{
	(void)args;
	char where[128];
	unsigned nfr, unkept, lost;
	const tl_frame *fr = tl_frames(e->tl, &nfr, &unkept, &lost);
	uint32_t pc = sim_pc(e->s);
	fw_describe_pc(e->fw, pc, where, sizeof where);
	printf("icount=%" PRIu64 " pc=0x%04x %s\n", rp_icount(e->r), pc, where);
	if (unkept)
		printf("(%u inner frame%s not shown: the shell keeps %d)\n", unkept,
		       unkept > 1 ? "s" : "", TL_MAX_FRAMES);
	for (unsigned i = nfr; i-- > 0;) {
		const tl_frame *f = &fr[i];
		fw_describe_pc(e->fw, f->from, where, sizeof where);
		unsigned n = unkept + nfr - i;
		if (f->vector) {
			/* Taken at the boundary before its return address, at
			 * the icount `info irqs` lists. */
			const char *v = sim_vector_name(e->s, f->vector);
			printf("#%u  interrupt %u%s%s%s taken at 0x%04x %s", n, f->vector,
			       v ? " (" : "", v ? v : "", v ? ")" : "", f->from, where);
			print_pc_line(e, f->from);
			printf(" [icount %" PRIu64 "]\n", f->pos + 1);
		} else if (called_by_crt(e, fr, nfr, unkept, i, pc)) {
			/* main's caller is avr-libc's start-up, after the
			 * constructors: its nearest label (__do_global_ctors,
			 * __do_copy_data) is no caller anyone wrote. */
			printf("#%u  main, the outermost frame: entered from the C runtime's start-up "
			       "[icount %" PRIu64 "]\n", n, f->pos);
		} else {
			printf("#%u  called from 0x%04x %s", n, f->from, where);
			print_pc_line(e, f->from);
			printf(" [icount %" PRIu64 "]\n", f->pos);
		}
	}
	if (lost)
		printf("(the stack was %u frame%s deeper than seen from reset)\n", lost,
		       lost > 1 ? "s" : "");
	return 0;
}

/* x's work: fmt ("/16xb", "" ...) at the address expression expr, with
 * x's sticky state xs (NULL: none).  Errors are printed. */
static void examine(engine *e, const char *fmt, const char *expr, view_xstate *xs)
{
	mview m = view_of(e);
	avrr_err err;
	uint32_t a;
	int is_code;
	char addr[32];
	/* What is no address expression of the shell's own (view.h) may
	 * be a C expression: x/6xb &sensors[1], x/s buf. */
	if (*expr && dwi_has_types(e->dw) &&
	    view_address(&m, expr, strchr(fmt, 'i') != NULL, &a, &is_code, &err)) {
		dw_frame f;
		xctx c;
		xval v;
		avrr_err err2;
		if (context_of(e, &m, &f, &c))
			return;
		if (expr_eval(&c, expr, &v, &err2) || expr_address(&c, &v, &a, &is_code, &err2)) {
			printf("%s\n", err2.msg);
			return;
		}
		snprintf(addr, sizeof addr, "0x%x", is_code ? a : a + 0x800000);
		expr = addr;
	}
	if (view_examine(stdout, &m, fmt, expr, xs, &err))
		printf("%s\n", err.msg);
}

static int cmd_x(engine *e, const char *args)
{
	/* args: "/FMT ADDR" or "ADDR" */
	char fmt[32] = "";
	const char *expr = args;
	if (*args == '/') {
		size_t n = strcspn(args, " ");
		snprintf(fmt, sizeof fmt, "%.*s", (int)n, args);
		expr = args + n;
		while (*expr == ' ')
			expr++;
	}
	examine(e, fmt, expr, &e->carry.xs);
	return 0;
}

static int type_of(engine *e, const char *args, int expand)
{
	mview m = view_of(e);
	dw_frame f;
	xctx c;
	avrr_err err;
	if (!*args) {
		printf("usage: %s EXPR|TYPE\n", expand ? "ptype" : "whatis");
		return 0;
	}
	if (!context_of(e, &m, &f, &c) && expr_type(stdout, &c, args, expand, &err))
		printf("%s\n", err.msg);
	return 0;
}

static int cmd_whatis(engine *e, const char *args)
{
	return type_of(e, args, 0);
}

static int cmd_ptype(engine *e, const char *args)
{
	return type_of(e, args, 1);
}

/* A plain name or register: what `print` shows without DWARF types. */
static int is_plain_name(const char *s)
{
	if (*s == '$')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int cmd_print(engine *e, const char *args)
{
	mview m = view_of(e);
	avrr_err err;
	char fmt;
	const char *expr;
	if (!*args) {
		printf("usage: print EXPR | print/FMT EXPR\n");
		return 0;
	}
	if (expr_format(args, &fmt, &expr, &err)) {
		printf("%s\n", err.msg);
		return 0;
	}
	/* Without DWARF types (stabs), names print by their ELF size as
	 * before; anything typed is refused in one line. */
	if (!dwi_has_types(e->dw) && !fmt && is_plain_name(expr)) {
		if (view_print(stdout, &m, expr, &err))
			printf("%s\n", err.msg);
		return 0;
	}
	dw_frame f;
	xctx c;
	xval v;
	if (context_of(e, &m, &f, &c))
		return 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return 0;
	int rc = expr_eval(&c, expr, &v, &err) || expr_print(out, &c, &v, fmt, 1, &err);
	fclose(out);
	if (rc)
		printf("%s\n", err.msg);
	else {
		printf("$%u = %s\n", ++e->carry.history, text);
		expr_keep(&c, &v, e->carry.history,
			  &e->carry.hist[e->carry.history % HISTORY_KEPT]);
	}
	free(text);
	return 0;
}

static int cmd_display(engine *e, const char *args)
{
	avrr_err err;
	char fmt;
	const char *expr;
	if (!*args) {
		show_displays(e);
		return 0;
	}
	int examined = (args[0] == '/' && (args[1] == 'i' || args[1] == 's') &&
			(args[2] == ' ' || !args[2]));
	if (examined) {
		fmt = args[1];
		for (expr = args + 2; *expr == ' '; expr++)
			;
		if (!*expr) {
			printf("Argument required (expression to compute).\n");
			return 0;
		}
	} else if (expr_format(args, &fmt, &expr, &err)) {
		printf("%s\n", err.msg);
		return 0;
	}
	mview m = view_of(e);
	dw_frame f;
	xctx c;
	xval v;
	if (context_of(e, &m, &f, &c))
		return 0;
	/* gdb refuses an expression it cannot parse, not one it cannot
	 * evaluate here; ours are evaluated to find out (an x display shows
	 * its error each time). */
	if (!examined && expr_eval(&c, expr, &v, &err)) {
		printf("%s\n", err.msg);
		return 0;
	}
	display *d = NULL;
	for (int i = 0; i < MAX_DISPLAYS && !d; i++)
		if (!e->carry.disp[i].num)
			d = &e->carry.disp[i];
	if (!d || strlen(expr) >= sizeof d->expr) {
		printf(d ? "expression too long for display\n"
			 : "too many displays (at most %d)\n", MAX_DISPLAYS);
		return 0;
	}
	d->num = ++e->carry.next_display;
	d->fmt = fmt;
	snprintf(d->expr, sizeof d->expr, "%s", expr);
	show_display(e, d, &c);
	return 0;
}

static int cmd_undisplay(engine *e, const char *args)
{
	uint64_t n;
	if (!*args) {
		memset(e->carry.disp, 0, sizeof e->carry.disp);
		return 0;
	}
	if (tl_parse_count(args, &n)) {
		printf("Arguments must be display numbers.\n");
		return 0;
	}
	for (int i = 0; i < MAX_DISPLAYS; i++)
		if (e->carry.disp[i].num && (uint64_t)e->carry.disp[i].num == n) {
			e->carry.disp[i].num = 0;
			return 0;
		}
	printf("No display number %s.\n", args);
	return 0;
}

static int info_display(engine *e, const char *args)
{
	(void)args;
	int any = 0;
	for (int last = 0;;) {
		const display *next = NULL;
		for (int i = 0; i < MAX_DISPLAYS; i++) {
			const display *d = &e->carry.disp[i];
			if (d->num > last && (!next || d->num < next->num))
				next = d;
		}
		if (!next)
			break;
		if (!any++)
			printf("Auto-display expressions now in effect:\nNum Enb Expression\n");
		if (next->fmt)
			printf("%d:   y  /%c %s\n", next->num, next->fmt, next->expr);
		else
			printf("%d:   y  %s\n", next->num, next->expr);
		last = next->num;
	}
	if (!any)
		printf("There are no auto-display expressions now.\n");
	return 0;
}

/* ---- frames and source ------------------------------------------------------ */

/* Selects frame n and prints it, as gdb's frame, up and down do. */
static void select_frame(engine *e, unsigned n)
{
	mview m = view_of(e);
	dw_frame f;
	xctx c;
	unsigned old = e->carry.frame;
	e->carry.frame = n;
	if (context_of(e, &m, &f, &c)) {
		e->carry.frame = old;
		return;
	}
	e->carry.list_file = NULL;
	const tl_frame *sh = shadow_frame(e, n);
	if (!sh || !sh->vector) {
		scope_frame_line(stdout, &c, n, e->lines);
		return;
	}
	/* The interrupt as a frame of its own, as gdb shows a signal
	 * handler's, over the code it stopped (its locals are this frame's). */
	const char *v = sim_vector_name(e->s, sh->vector);
	printf("#%-3u<interrupt %s (vector %u), taken at icount %" PRIu64 ">\n", n,
	       v ? v : "?", sh->vector, sh->pos + 1);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return;
	scope_frame_line(out, &c, n, e->lines);
	fclose(out);
	printf("    %s", text + (len > 4 ? 4 : len));
	free(text);
}

static int frame_count_arg(const char *args, uint64_t *n)
{
	*n = 1;
	if (*args && tl_parse_count(args, n)) {
		printf("bad count '%s'\n", args);
		return -1;
	}
	return 0;
}

static int cmd_up(engine *e, const char *args)
{
	uint64_t n;
	if (frame_count_arg(args, &n))
		return 0;
	unsigned depth = depth_of(e);
	if (e->carry.frame >= depth) {
		printf("Initial frame selected; you cannot go up.\n");
		return 0;
	}
	unsigned want = e->carry.frame + n > depth ? depth : e->carry.frame + (unsigned)n;
	mview m = view_of(e);
	dw_frame f;
	avrr_err err;
	/* Past the code the frame rows and the CFI can follow (the C
	 * runtime's start-up) there is no frame to show. */
	while (want > e->carry.frame && frames_get(e->cfi, e->dw, &m, want, &f, &err))
		want--;
	if (want == e->carry.frame) {
		printf("Initial frame selected; you cannot go up.\n");
		return 0;
	}
	select_frame(e, want);
	return 0;
}

static int cmd_down(engine *e, const char *args)
{
	uint64_t n;
	if (frame_count_arg(args, &n))
		return 0;
	if (!e->carry.frame) {
		printf("Bottom (innermost) frame selected; you cannot go down.\n");
		return 0;
	}
	select_frame(e, n > e->carry.frame ? 0 : e->carry.frame - (unsigned)n);
	return 0;
}

static int cmd_frame(engine *e, const char *args)
{
	uint64_t n = e->carry.frame;
	if (*args && (tl_parse_count(args, &n) || n > depth_of(e))) {
		printf("No frame at level %s.\n", args);
		return 0;
	}
	select_frame(e, (unsigned)n);
	return 0;
}

static int info_frame(engine *e, const char *args)
{
	(void)args;
	mview m = view_of(e);
	dw_frame f, caller, callee;
	xctx c;
	avrr_err err;
	if (context_of(e, &m, &f, &c))
		return 0;
	unsigned n = e->carry.frame;
	int has_caller = n < depth_of(e) &&
			 !frames_get(e->cfi, e->dw, &m, n + 1, &caller, &err);
	int has_callee = n > 0 && !frames_get(e->cfi, e->dw, &m, n - 1, &callee, &err);
	scope_info_frame(stdout, &c, n, has_caller ? &caller : NULL, has_callee ? &callee : NULL,
			 e->lines);
	const tl_frame *sh = shadow_frame(e, n);
	if (sh && sh->vector) {
		const char *v = sim_vector_name(e->s, sh->vector);
		printf(" Interrupted by %s (vector %u) at icount %" PRIu64 "\n", v ? v : "an interrupt",
		       sh->vector, sh->pos + 1);
	}
	if (has_caller) {
		const tl_frame *up = shadow_frame(e, n + 1);
		if (up && up->vector)
			printf(" Returns by reti to the interrupted pc 0x%x\n", caller.pc);
	}
	return 0;
}

static int vars(engine *e, int args)
{
	mview m = view_of(e);
	dw_frame f;
	xctx c;
	if (!dwi_has_types(e->dw))
		printf("no DWARF type information in the firmware (stabs or none); "
		       "locals need a build with -gdwarf-4\n");
	else if (!context_of(e, &m, &f, &c))
		scope_vars(stdout, &c, args);
	return 0;
}

static int info_locals(engine *e, const char *args)
{
	(void)args;
	return vars(e, 0);
}

static int info_args(engine *e, const char *args)
{
	(void)args;
	return vars(e, 1);
}

#define LIST_LINES 10

/* gdb's list: ten lines around the frame's line, a function's or a line
 * number's; a bare list again goes on after the last one shown. */
static int cmd_list(engine *e, const char *args)
{
	if (!lines_available(e->lines)) {
		printf("no line information in the firmware\n");
		return 0;
	}
	const char *file = e->carry.list_file;
	unsigned from = e->carry.list_next, centre = 0;
	avrr_err err;
	uint64_t n;
	if (*args && !tl_parse_count(args, &n) && n <= UINT32_MAX) {
		centre = (unsigned)n;
		if (!file) {
			mview m = view_of(e);
			dw_frame f;
			unsigned line;
			if (frames_get(e->cfi, e->dw, &m, e->carry.frame, &f, &err) ||
			    lines_at(e->lines, (f.outer ? f.pc - 1 : f.pc) & ~1u, &file, &line)) {
				printf("no source file here; say list FUNCTION\n");
				return 0;
			}
		}
	} else if (*args) {
		const fw_symbol *s = fw_find_symbol(e->fw, args);
		uint32_t addr = s ? s->addr : 0;
		if ((!s || s->space != FW_SYM_CODE) && dw_function_addr(e->dw, args, &addr)) {
			printf("Function \"%s\" not defined.\n", args);
			return 0;
		}
		if (lines_at(e->lines, addr, &file, &centre)) {
			printf("no line information for \"%s\"\n", args);
			return 0;
		}
	} else if (!file) {
		mview m = view_of(e);
		dw_frame f;
		if (frames_get(e->cfi, e->dw, &m, e->carry.frame, &f, &err)) {
			printf("%s\n", err.msg);
			return 0;
		}
		if (lines_at(e->lines, (f.outer ? f.pc - 1 : f.pc) & ~1u, &file, &centre)) {
			printf("no line information at pc 0x%x\n", f.pc);
			return 0;
		}
	}
	if (centre)
		from = centre > LIST_LINES / 2 ? centre - LIST_LINES / 2 : 1;
	int k = scope_list(stdout, file, from, from + LIST_LINES - 1, &err);
	if (k < 0) {
		printf("%s\n", err.msg);
		return 0;
	}
	e->carry.list_file = file;
	e->carry.list_next = from + (unsigned)k;
	return 0;
}

static int cmd_disassemble(engine *e, const char *args)
{
	(void)args;
	mview m = view_of(e);
	view_disassemble(stdout, &m, 5, 5);
	return 0;
}

static int cmd_errors(engine *e, const char *args)
{
	(void)args;
	report_errors(stdout, e->r);
	return 0;
}

static int info_divergence(engine *e, const char *args)
{
	(void)args;
	report_divergence(stdout, e->r);
	return 0;
}

static const char *context_name(engine *e, unsigned ctx)
{
	const char *v = ctx ? sim_vector_name(e->s, (uint8_t)ctx) : "main";
	return v ? v : "isr";
}

static int info_irqs(engine *e, const char *args)
{
	report_irqs(stdout, e->r, !strcmp(args, "all"));
	return 0;
}

/* The happens-before log around here: N events either side. */
static int info_events(engine *e, const char *args)
{
	uint64_t n = 5;
	if (*args && tl_parse_count(args, &n)) {
		printf("usage: info events [N]\n");
		return 0;
	}
	size_t nev;
	const trace_event *ev = rp_events(e->r, &nev);
	uint64_t now = rp_icount(e->r);
	size_t here = 0;
	while (here < nev && ev[here].icount <= now)
		here++;
	size_t from = here > n ? here - n : 0, to = here + n < nev ? here + n : nev;
	for (size_t i = from; i < to; i++) {
		char what[160];
		rp_describe_event(e->r, &ev[i], what, sizeof what);
		printf("%s seq %-8" PRIu64 " icount %-10" PRIu64 " %-10s %s\n", i == here ? "=>" : "  ",
		       ev[i].seq, ev[i].icount, context_name(e, ev[i].ctx), what);
	}
	if (here == nev)
		printf("=> (end of the log)\n");
	return 0;
}

/* What the UARTs sent before here. */
static int info_uart(engine *e, const char *args)
{
	uint64_t n = 0;
	if (*args && (tl_parse_count(args, &n) || n >= TRACE_UARTS)) {
		printf("usage: info uart [N], N from 0 to %d\n", TRACE_UARTS - 1);
		return 0;
	}
	report_uart(stdout, e->r, *args ? (int)n : -1);
	return 0;
}

static int info_checkpoints(engine *e, const char *args)
{
	(void)args;
	uint64_t kb = tl_checkpoint_memory(e->tl);   /* first: it may thin them */
	travel_ck cks[TRAVEL_MAX * 2];
	size_t n = travel_list(e->t, cks, sizeof cks / sizeof *cks);
	printf("%zu checkpoints, %.1f MB", n, (double)kb / 1024.0);
	if (e->t->mem_cap_kb)
		printf(" of at most %.0f MB", (double)e->t->mem_cap_kb / 1024.0);
	printf(" (proportional set size, beyond the engine's own)\n");
	tl_work w = tl_get_work(e->tl);
	printf("travel so far: %" PRIu64 " instructions replayed, %" PRIu64 " scouts, %" PRIu64
	       " checkpoints laid\n", w.replayed, w.scouts, w.laid);
	for (size_t i = 0; i < n; i++)
		printf("  icount %" PRIu64 "\n", cks[i].icount);
	return 0;
}

/* A table of names with gdb's resolution: an exact name or alias, else a
 * unique prefix. */
typedef struct named {
	const char *name, *alias;
} named;

static int resolve(const named *t, size_t n, size_t stride, const char *word, size_t len)
{
	int found = -1, count = 0;
	for (size_t i = 0; i < n; i++) {
		const named *c = (const named *)((const char *)t + i * stride);
		if ((strlen(c->name) == len && !strncmp(c->name, word, len)) ||
		    (c->alias && strlen(c->alias) == len && !strncmp(c->alias, word, len)))
			return (int)i;
		if (!strncmp(c->name, word, len)) {
			found = (int)i;
			count++;
		}
	}
	return count == 1 ? found : count > 1 ? -2 : -1;
}

typedef struct info_cmd {
	named n;
	int (*fn)(engine *e, const char *args);
} info_cmd;

static int info_registers(engine *e, const char *a)
{
	(void)a;
	mview m = view_of(e);
	view_registers(stdout, &m);
	return 0;
}

static int info_io(engine *e, const char *a)
{
	(void)a;
	mview m = view_of(e);
	view_io(stdout, &m);
	return 0;
}

static int info_fingerprint(engine *e, const char *a)
{
	(void)a;
	avrr_err err;
	if (report_fingerprint(stdout, e->r, &err))
		printf("%s\n", err.msg);
	return 0;
}

static const info_cmd INFO[] = {
	{ { "registers", "r" }, info_registers },
	{ { "io", NULL }, info_io },
	{ { "breakpoints", "b" }, info_breakpoints },
	{ { "watchpoints", NULL }, info_breakpoints },
	{ { "irqs", NULL }, info_irqs },
	{ { "events", NULL }, info_events },
	{ { "fingerprint", NULL }, info_fingerprint },
	{ { "divergence", NULL }, info_divergence },
	{ { "checkpoints", NULL }, info_checkpoints },
	{ { "uart", NULL }, info_uart },
	{ { "frame", "f" }, info_frame },
	{ { "locals", NULL }, info_locals },
	{ { "args", NULL }, info_args },
	{ { "display", NULL }, info_display },
};

static int cmd_info(engine *e, const char *args)
{
	size_t len = strcspn(args, " ");
	int i = resolve(&INFO[0].n, sizeof INFO / sizeof *INFO, sizeof *INFO, args, len);
	if (i < 0) {
		printf("%s info command \"%.*s\"; try: registers io breakpoints irqs events "
		       "fingerprint divergence checkpoints uart frame locals args display\n",
		       i == -2 ? "Ambiguous" : "Undefined",
		       (int)len, args);
		return 0;
	}
	const char *rest = args + len;
	while (*rest == ' ')
		rest++;
	return INFO[i].fn(e, rest);
}

static int cmd_echo(engine *e, const char *args)
{
	(void)e;
	printf("%s\n", args);
	return 0;
}

static int cmd_help(engine *e, const char *args);

typedef struct command {
	named n;
	command_fn fn;
	const char *help;
} command;

static const command COMMANDS[] = {
	{ { "stepi", "si" }, cmd_stepi, "stepi [N]: N instructions forward" },
	{ { "step", "s" }, cmd_step, "step: to the next source line, into calls" },
	{ { "next", "n" }, cmd_next, "next: to the next source line in this function" },
	{ { "finish", "fin" }, cmd_finish, "finish: until this function returns" },
	{ { "continue", "c" }, cmd_continue, "continue: until a breakpoint, watchpoint or the end" },
	{ { "reverse-stepi", "rsi" }, cmd_reverse_stepi, "reverse-stepi [N]: N instructions back" },
	{ { "reverse-step", "rs" }, cmd_reverse_step, "reverse-step: back to the previous source line" },
	{ { "reverse-next", "rn" }, cmd_reverse_next, "reverse-next: back to the previous line of this function" },
	{ { "reverse-continue", "rc" }, cmd_reverse_continue, "reverse-continue: back to the last breakpoint or watched write" },
	{ { "reverse-finish", NULL }, cmd_reverse_finish, "reverse-finish: back to the call of this function" },
	{ { "goto", NULL }, cmd_goto, "goto ICOUNT | goto irq N: jump to a position" },
	{ { "run", "r" }, cmd_run, "run: back to the start" },
	{ { "break", "b" }, cmd_break, "break ADDR|SYMBOL|FILE:LINE [if COND] | break irq [VECTOR] [if COND]" },
	{ { "condition", NULL }, cmd_condition, "condition N [COND]: stop at breakpoint N only where COND holds" },
	{ { "tbreak", NULL }, cmd_tbreak, "tbreak ...: a breakpoint deleted when hit" },
	{ { "delete", "d" }, cmd_delete, "delete [N]: breakpoints and watchpoints" },
	{ { "watch", NULL }, cmd_watch, "watch SYMBOL|ADDR: stop when it changes" },
	{ { "rwatch", NULL }, cmd_rwatch, "rwatch SYMBOL|ADDR: stop when an instruction reads it" },
	{ { "awatch", NULL }, cmd_awatch, "awatch SYMBOL|ADDR: stop when it is read or changes" },
	{ { "info", "i" }, cmd_info, "info registers|io|breakpoints|irqs|events|fingerprint|divergence|checkpoints|uart|frame|locals|args|display" },
	{ { "x", NULL }, cmd_x, "x/NFU ADDR: examine memory" },
	{ { "print", "p" }, cmd_print, "print[/FMT] EXPR: a C expression over the DWARF types" },
	{ { "whatis", NULL }, cmd_whatis, "whatis EXPR|TYPE: its type" },
	{ { "ptype", NULL }, cmd_ptype, "ptype EXPR|TYPE: its type, a struct's members" },
	{ { "display", NULL }, cmd_display, "display[/FMT] EXPR: print it after every stop" },
	{ { "undisplay", NULL }, cmd_undisplay, "undisplay [N]: stop displaying" },
	{ { "list", "l" }, cmd_list, "list [FUNCTION|LINE]: source lines here, or on" },
	{ { "up", NULL }, cmd_up, "up [N]: select the caller's frame" },
	{ { "down", NULL }, cmd_down, "down [N]: select the callee's frame" },
	{ { "frame", "f" }, cmd_frame, "frame [N]: select frame N and show it" },
	{ { "disassemble", NULL }, cmd_disassemble, "disassemble: around the pc" },
	{ { "where", "bt" }, cmd_where, "where: position and call stack" },
	{ { "backtrace", NULL }, cmd_where, "backtrace: the same as where" },
	{ { "errors", NULL }, cmd_errors, "errors: the replay's counters up to here" },
	{ { "echo", NULL }, cmd_echo, "echo TEXT" },
	{ { "help", "h" }, cmd_help, "help: this list" },
};

static int cmd_help(engine *e, const char *args)
{
	(void)e;
	(void)args;
	for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++)
		printf("%s\n", COMMANDS[i].help);
	printf("quit: leave the shell\n");
	return 0;
}

/* Runs one command line. */
static void execute(engine *e, char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	size_t end = strlen(line);
	while (end && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
		line[--end] = 0;
	if (!*line)
		return;
	/* "x/16xb ADDR": the command word ends at '/' too. */
	size_t len = strcspn(line, " /");
	int i = resolve(&COMMANDS[0].n, sizeof COMMANDS / sizeof *COMMANDS, sizeof *COMMANDS, line,
			len);
	if (i < 0) {
		printf(i == -2 ? "Ambiguous command \"%.*s\".\n"
			       : "Undefined command: \"%.*s\".  Try \"help\".\n", (int)len, line);
		return;
	}
	const char *args = line + len;
	while (*args == ' ')
		args++;
	COMMANDS[i].fn(e, args);
}

/* Reads one line from fd, byte by byte: whatever follows belongs to the
 * process that will be the engine then. */
static int read_line(int fd, char *buf, size_t n)
{
	size_t k = 0;
	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (c == '\n')
			break;
		if (k + 1 < n)
			buf[k++] = c;
	}
	buf[k] = 0;
	return 0;
}

static void send_names(engine *e)
{
	char line[160];
	for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++) {
		snprintf(line, sizeof line, WIRE_CMD "%s\n", COMMANDS[i].n.name);
		reply(e->t, line);
	}
	reply(e->t, WIRE_CMD "quit\n");
	for (size_t i = 0; i < sizeof INFO / sizeof *INFO; i++) {
		snprintf(line, sizeof line, WIRE_INFO "%s\n", INFO[i].n.name);
		reply(e->t, line);
	}
	for (size_t i = 0; i < e->fw->nsyms; i++) {
		/* C++ names as `break` takes them, without their parameter
		 * list; "vtable for X" and the like cannot be typed as a word. */
		const char *name = e->fw->syms[i].name;
		size_t n = strcspn(name, "(");
		if (!n || memchr(name, ' ', n))
			continue;
		snprintf(line, sizeof line, WIRE_SYM "%.*s\n", (int)n, name);
		reply(e->t, line);
	}
	/* Source files by basename, as `break FILE:LINE` is typed. */
	for (size_t i = 0; lines_available(e->lines) && lines_file(e->lines, i); i++) {
		const char *f = lines_file(e->lines, i), *base = strrchr(f, '/');
		snprintf(line, sizeof line, WIRE_SYM "%s\n", base ? base + 1 : f);
		reply(e->t, line);
	}
}

/* Ends a command: "done", or, when its output could not be written, what
 * went wrong ("closed" for a reader that left); then the session ends. */
static int command_done(engine *e)
{
	if (fflush(stdout) != EOF && !ferror(stdout)) {
		reply(e->t, WIRE_DONE "\n");
		return 0;
	}
	char msg[128];
	snprintf(msg, sizeof msg, errno == EPIPE ? WIRE_CLOSED "\n" : WIRE_ERROR "standard output: %s\n",
		 strerror(errno));
	reply(e->t, msg);
	return -1;
}

/* tl_frontend.command: one line from the UI, run, then "done". */
static int on_command(timeline *tl, void *ud)
{
	engine *e = ud;
	(void)tl;
	char line[1024];
	if (ferror(stdout) || read_line(e->t->cmd_fd, line, sizeof line) || !strcmp(line, "quit"))
		return -1;
	execute(e, line);
	return command_done(e);
}

/* tl_frontend.resumed: the command that went backward ends here. */
static void on_resumed(timeline *tl, void *ud)
{
	command_done(ud);  /* a failure ends the session at the next command */
	(void)tl;
}

int engine_main(const engine_options *o, travel *t)
{
	engine *e = calloc(1, sizeof *e);
	avrr_err err;
	char msg[600];
	if (!e || tl_open(o->db_path, &o->replay, t, &e->tl, &err)) {
		snprintf(msg, sizeof msg, WIRE_ERROR "%s\n", e ? err.msg : "out of memory");
		reply(t, msg);
		free(e);
		return 2;
	}
	e->t = t;
	e->r = tl_replay(e->tl);
	e->s = tl_sim(e->tl);
	e->fw = tl_firmware(e->tl);
	e->lines = tl_lines(e->tl);
	/* Parts with a 22-bit PC push 3 bytes of return address. */
	unsigned pc_bytes = strncmp(sim_mcu(e->s), "atmega256", 9) ? 2 : 3;
	if (dwi_open(e->fw, &e->dw, &err) || cfi_build(e->fw, pc_bytes, &e->cfi, &err)) {
		snprintf(msg, sizeof msg, WIRE_ERROR "%s\n", err.msg);
		reply(t, msg);
		return 2;
	}
	tl_carry(e->tl, &e->carry, sizeof e->carry);
	char problem[512];
	if (fw_debug_info_problem(e->fw, problem, sizeof problem)) {
		snprintf(msg, sizeof msg, WIRE_WARN "%s\n", problem);
		reply(e->t, msg);
	}
	send_names(e);
	reply(e->t, WIRE_READY "\n");
	static const tl_frontend fe = { .command = on_command, .stopped = on_stopped,
					.resumed = on_resumed, .condition = on_condition };
	tl_main(e->tl, &fe, e);
	reply(e->t, WIRE_BYE "\n");
	_exit(0);
}
