/*
 * timeline.c — motions on a recording, forward and backward (see
 * timeline.h): the step hook, the motions and the breakpoints.  The
 * checkpoints and scouts that carry a motion backward are checkpoint.c's.
 */
#include "timeline/internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/avr_decode.h"

#define POLL_EVERY 8192

/* ---- the step hook ------------------------------------------------------ */

static uint16_t flash_word(const timeline *tl, uint32_t pc)
{
	if (pc + 1 >= tl->fw->flash_size)
		return 0;
	return (uint16_t)(tl->fw->flash[pc] | tl->fw->flash[pc + 1] << 8);
}

static unsigned depth_of(const timeline *tl)
{
	return tl->nfr + tl->unkept;
}

static void push_frame(timeline *tl, tl_frame f)
{
	if (tl->nfr < TL_MAX_FRAMES)
		tl->fr[tl->nfr++] = f;
	else
		tl->unkept++;
}

/* What each flash word does to the shadow call stack, if an instruction
 * starts there: looked up at every step, where decoding it again would
 * cost a good part of the replay's own time. */
enum { W_PLAIN, W_CALL, W_RET, W_RETI };

static uint8_t *word_kinds(const timeline *tl)
{
	uint32_t n = (tl->fw->flash_size + 1) / 2;
	uint8_t *k = calloc(n ? n : 1, 1);
	for (uint32_t i = 0; k && i < n; i++) {
		uint16_t w = flash_word(tl, 2 * i);
		k[i] = avr_word_is_call(w) ? W_CALL : w == 0x9518 ? W_RETI
		       : avr_word_is_ret(w) ? W_RET : W_PLAIN;
	}
	return k;
}

/* Keeps the shadow call stack after the instruction at prev_pc retired;
 * `depth` is the interrupt nesting now. */
static void track_frames(timeline *tl, unsigned depth)
{
	uint32_t word = tl->prev_pc >> 1;
	unsigned kind = word < (tl->fw->flash_size + 1) / 2 ? tl->kinds[word] : W_PLAIN;
	unsigned after_insn = tl->prev_depth;
	if (kind == W_CALL) {
		push_frame(tl, (tl_frame){ .pos = tl->prev_icount, .from = tl->prev_pc });
	} else if (kind == W_RET || kind == W_RETI) {
		if (tl->unkept)
			tl->unkept--;
		else if (tl->nfr)
			tl->nfr--;
		else
			tl->lost_frames++;
		if (kind == W_RETI && after_insn)
			after_insn--;
	}
	/* An entry at this boundary: its return address is what it pushed,
	 * which `info irqs` and the log name too. */
	tl->entered = depth > after_insn;
	if (tl->entered)
		push_frame(tl, (tl_frame){ .pos = sim_icount(tl->s) ? sim_icount(tl->s) - 1 : 0,
					   .from = sim_stacked_pc(tl->s),
					   .vector = sim_running_vector(tl->s) });
}

/* The data bytes the instruction at the pc will read, from the registers
 * now: loads, pops and returns (from the stack), I/O reads and the
 * read-modify-writes.  Writes are seen as changed values instead. */
static data_span reads_of_next(const timeline *tl)
{
	avr_insn in;
	const uint8_t *d = sim_live_data(tl->s);
	data_span none = { 0, 0 };
	if (avr_decode(tl->fw->flash, tl->fw->flash_size, sim_pc(tl->s), &in))
		return none;
	uint32_t sp = sim_data_size(tl->s) > 0x5e ? (uint32_t)(d[0x5d] | d[0x5e] << 8) : 0;
	unsigned ra_bytes = tl->fw->flash_size > 0x20000 ? 3 : 2;
	switch (in.op) {
	case AVR_OP_LD: case AVR_OP_LDD: case AVR_OP_XCH: case AVR_OP_LAS: case AVR_OP_LAC:
	case AVR_OP_LAT: {
		unsigned lo = in.ptr == 'X' ? 26 : in.ptr == 'Y' ? 28 : 30;
		uint32_t p = (uint32_t)(d[lo] | d[lo + 1] << 8);
		if (in.ptr_mode == AVR_PTR_PREDEC)
			p = (p - 1) & 0xffff;
		else if (in.ptr_mode == AVR_PTR_DISP)
			p += in.disp;
		return (data_span){ p, 1 };
	}
	case AVR_OP_LDS:
		return (data_span){ (uint32_t)in.data, 1 };
	case AVR_OP_POP:
		return (data_span){ sp + 1, 1 };
	case AVR_OP_RET: case AVR_OP_RETI:
		return (data_span){ sp + 1, ra_bytes };
	case AVR_OP_IN: case AVR_OP_SBIS: case AVR_OP_SBIC: case AVR_OP_SBI: case AVR_OP_CBI:
		return (data_span){ (uint32_t)in.io + 0x20, 1 };
	default:
		return none;
	}
}

static uint64_t watch_value(const timeline *tl, const tl_break *b)
{
	const uint8_t *d = sim_live_data(tl->s);
	uint64_t v = 0;
	for (unsigned i = 0; i < b->size && b->addr + i < sim_data_size(tl->s); i++)
		v |= (uint64_t)d[b->addr + i] << (8 * i);
	return v;
}

static void tli_refresh_watches(timeline *tl)
{
	tl->want_reads = 0;
	for (unsigned i = 0; i < tl->st.nb; i++)
		tl->want_reads |= tl->st.b[i].kind == TL_BK_RWATCH || tl->st.b[i].kind == TL_BK_AWATCH;
	if (tl->want_reads)
		tl->reads = reads_of_next(tl);
	for (unsigned i = 0; i < tl->st.nb; i++)
		if (tl->st.b[i].kind >= TL_BK_WATCH)
			tl->st.b[i].old = watch_value(tl, &tl->st.b[i]);
}

static int overlaps(const tl_break *b, data_span s)
{
	return s.len && s.lo < b->addr + b->size && b->addr < s.lo + s.len;
}

/* Whether a breakpoint or watchpoint stops here; fills *rep with the first
 * that does.  Every watch's value is brought up to date. */
static int check_breaks(timeline *tl, tl_stop *rep)
{
	uint32_t pc = sim_pc(tl->s);
	int hit = 0;
	for (unsigned i = 0; i < tl->st.nb; i++) {
		tl_break *b = &tl->st.b[i];
		tl_stop_kind k = TL_STEPPED;
		if (b->kind >= TL_BK_WATCH) {
			uint64_t v = watch_value(tl, b);
			int changed = v != b->old, read = overlaps(b, tl->reads);
			if (b->kind == TL_BK_WATCH && changed)
				k = TL_WATCH;
			else if (b->kind == TL_BK_RWATCH && read)
				k = TL_RWATCH;
			else if (b->kind == TL_BK_AWATCH && (read || changed))
				k = TL_AWATCH;
			if (k != TL_STEPPED && !hit)
				*rep = (tl_stop){ .kind = k, .addr = b->addr, .old = b->old, .now = v };
			b->old = v;
		} else if (((b->kind == TL_BK_CODE && pc == b->addr) ||
			    (b->kind == TL_BK_IRQ && tl->entered &&
			     (b->vector < 0 || b->vector == sim_running_vector(tl->s)))) &&
			   (!b->cond[0] || !tl->fe->condition ||
			    tl->fe->condition(tl, b->cond, tl->ud) != 0)) {
			k = b->kind == TL_BK_IRQ ? TL_IRQ : TL_BREAK;
			if (!hit)
				*rep = (tl_stop){ .kind = k };
		}
		if (k != TL_STEPPED && !hit) {
			rep->id = b->id;
			snprintf(rep->what, sizeof rep->what, "%s", b->what);
			hit = 1;
		}
	}
	return hit;
}

/* A new source line for step/next: a line start whose line differs from
 * the motion's, or any line start in another frame. */
static int new_line(const timeline *tl)
{
	uint32_t pc = sim_pc(tl->s);
	const char *file;
	unsigned line;
	if (!lines_is_line_start(tl->lines, pc) || lines_at(tl->lines, pc, &file, &line))
		return 0;
	return line != tl->mo_line || !tl->mo_file || strcmp(file, tl->mo_file) ||
	       depth_of(tl) != tl->mo_depth;
}

static int on_step(void *ud)
{
	timeline *tl = ud;
	if (tl->filtered) {
		/* Told only of some steps: the state before this one is the
		 * sim's, not what the last call left. */
		sim_step told = sim_told_step(tl->s);
		tl->prev_icount = told.icount;
		tl->prev_pc = told.pc;
		tl->prev_depth = told.depth;
	}
	if (sim_icount(tl->s) == tl->prev_icount)
		return 0;  /* asleep */
	unsigned depth = sim_irq_depth(tl->s);
	track_frames(tl, depth);
	int stop = 0;
	tl_stop rep;
	switch (tl->mo) {
	case MO_NONE:
		break;
	case MO_BREAKS:
		stop = check_breaks(tl, &tl->rep);
		break;
	case MO_STEP:
		stop = check_breaks(tl, &tl->rep) || new_line(tl);
		break;
	case MO_NEXT:
		stop = check_breaks(tl, &tl->rep) || (depth_of(tl) <= tl->mo_depth && new_line(tl));
		break;
	case MO_FINISH:
		stop = check_breaks(tl, &tl->rep) || depth_of(tl) < tl->mo_depth;
		break;
	case MO_SCOUT_BREAKS:
		if (check_breaks(tl, &rep)) {
			/* Backward, gdb stops before the access, as if the
			 * instruction were undone. */
			uint64_t at = sim_icount(tl->s);
			if (tl->watch_before && rep.kind >= TL_WATCH && rep.kind <= TL_AWATCH)
				at--;
			if (at < tl->scout_limit) {
				tl->found = 1;
				tl->found_pos = at;
				tl->found_rep = rep;
			}
		}
		break;
	case MO_SCOUT_STEP:
	case MO_SCOUT_NEXT:
		if ((tl->mo == MO_SCOUT_STEP || depth_of(tl) <= tl->mo_depth) && new_line(tl)) {
			tl->found = 1;
			tl->found_pos = sim_icount(tl->s);
		}
		break;
	}
	/* Only the active timeline asks the front-end; scouts never do. */
	if (!stop && tl->mo >= MO_BREAKS && tl->mo <= MO_FINISH && tl->fe && tl->fe->poll &&
	    !--tl->poll_in) {
		tl->poll_in = POLL_EVERY;
		if (tl->fe->poll(tl, tl->ud)) {
			tl->rep = (tl_stop){ .kind = TL_INTERRUPTED };
			stop = 1;
		}
	}
	tl->prev_icount = sim_icount(tl->s);
	tl->prev_pc = sim_pc(tl->s);
	tl->prev_depth = depth;
	if (tl->want_reads)
		tl->reads = reads_of_next(tl);
	return stop;
}

static int tli_filterable(const timeline *tl)
{
	if (tl->mo == MO_NONE)
		return 1;
	if (tl->mo != MO_BREAKS && tl->mo != MO_SCOUT_BREAKS)
		return 0;
	for (unsigned i = 0; i < tl->st.nb; i++)
		if (tl->st.b[i].kind != TL_BK_WATCH && tl->st.b[i].kind != TL_BK_IRQ)
			return 0;
	return 1;
}

static void tli_filter_steps(timeline *tl, int on)
{
	sim_step last = { tl->prev_icount, tl->prev_pc, tl->prev_depth };
	/* The bytes the value watches cover: any change is a step to hear of. */
	uint16_t data[TL_MAX_BREAKS * 8] = { 0 };
	unsigned n = 0;
	for (unsigned i = 0; on && tl->mo != MO_NONE && i < tl->st.nb; i++)
		for (unsigned k = 0; tl->st.b[i].kind == TL_BK_WATCH && k < tl->st.b[i].size; k++)
			data[n++] = (uint16_t)(tl->st.b[i].addr + k);
	sim_filter_data(tl->s, data, n);
	sim_filter_steps(tl->s, on ? tl->kinds : NULL, (tl->fw->flash_size + 1) / 2, &last);
	tl->filtered = on;
	tl->prev_icount = last.icount;
	tl->prev_pc = last.pc;
	tl->prev_depth = last.depth;
}

/* ---- reporting ------------------------------------------------------------ */

/* Reports a motion's end here, and deletes the temporary breakpoint that
 * ended it. */
static void tli_emit(timeline *tl, tl_stop rep)
{
	rep.icount = rp_icount(tl->r);
	rep.pc = sim_pc(tl->s);
	if (rep.kind == TL_BREAK || rep.kind == TL_IRQ)
		for (unsigned i = 0; i < tl->st.nb; i++)
			if (tl->st.b[i].id == rep.id && tl->st.b[i].temp)
				tl_break_delete(tl, rep.id);
	tl->fe->stopped(tl, &rep, tl->ud);
}

static tl_stop stop_of(timeline *tl, rp_stop why)
{
	switch (why) {
	case RP_END: return (tl_stop){ .kind = TL_END };
	case RP_DIVERGED: return (tl_stop){ .kind = TL_DIVERGED };
	case RP_STOPPED: return (tl_stop){ .kind = TL_INTERRUPTED };
	case RP_CPU_STOPPED: return (tl_stop){ .kind = TL_CPU_STOPPED };
	case RP_BREAK: return tl->rep;
	case RP_LIMIT: break;
	}
	return (tl_stop){ .kind = TL_STEPPED };
}

static void tli_fail(timeline *tl, const char *why)
{
	tl_stop rep = { .kind = TL_FAILED };
	snprintf(rep.what, sizeof rep.what, "%s", why);
	tli_emit(tl, rep);
}

/* ---- motions ---------------------------------------------------------------- */

static void start_motion(timeline *tl, motion_kind m)
{
	tl->mo = m;
	tl->rep = (tl_stop){ .kind = TL_STEPPED };
	tl->poll_in = POLL_EVERY;
	tli_refresh_watches(tl);
	tl->reads = reads_of_next(tl);
	if (tl->interrupted)
		*tl->interrupted = 0;
}

/* A forward motion to `target`; refused where the replay cannot go on. */
static void forward(timeline *tl, motion_kind m, uint64_t target)
{
	if (tl_divergence(tl)) {
		tli_emit(tl, (tl_stop){ .kind = TL_DIVERGED });
		return;
	}
	if (rp_icount(tl->r) >= rp_length(tl->r)) {
		tli_emit(tl, (tl_stop){ .kind = TL_END });
		return;
	}
	start_motion(tl, m);
	tli_emit(tl, stop_of(tl, ck_run_forward(tl, target, LAY_SPARE)));
}

void tl_stepi(timeline *tl, uint64_t n)
{
	uint64_t now = rp_icount(tl->r);
	forward(tl, MO_BREAKS, n > TO_END - now ? TO_END : now + n);
}

static void line_here(timeline *tl)
{
	tl->mo_file = NULL;
	tl->mo_line = 0;
	lines_at(tl->lines, sim_pc(tl->s), &tl->mo_file, &tl->mo_line);
	tl->mo_depth = depth_of(tl);
}

void tl_step_line(timeline *tl, int into_calls)
{
	if (!lines_available(tl->lines)) {
		tl_stepi(tl, 1);
		return;
	}
	line_here(tl);
	forward(tl, into_calls ? MO_STEP : MO_NEXT, TO_END);
}

void tl_finish(timeline *tl)
{
	tl->mo_depth = depth_of(tl);
	forward(tl, MO_FINISH, TO_END);
}

void tl_continue(timeline *tl)
{
	forward(tl, MO_BREAKS, TO_END);
}

void tl_reverse_stepi(timeline *tl, uint64_t n)
{
	uint64_t now = rp_icount(tl->r);
	tl_stop rep = { .kind = n >= now ? TL_START : TL_STEPPED, .reverse = 1 };
	ck_travel_to(tl, n >= now ? 0 : now - n, rep);
}

static void go_back_to(timeline *tl, motion_kind kind, int watch_before)
{
	uint64_t pos = 0;
	tl_stop rep = { .kind = TL_START };
	start_motion(tl, MO_NONE);
	tl->watch_before = watch_before;
	switch (ck_search_back(tl, kind, &pos, &rep)) {
	case -2:
		tli_fail(tl, "the checkpoints are gone; cannot search backward");
		return;
	case -1:
		tli_emit(tl, (tl_stop){ .kind = TL_INTERRUPTED, .reverse = 1 });
		return;
	}
	rep.reverse = 1;
	ck_travel_to(tl, pos, rep);
}

void tl_reverse_continue(timeline *tl, int watch_before)
{
	go_back_to(tl, MO_SCOUT_BREAKS, watch_before);
}

void tl_reverse_line(timeline *tl, int into_calls)
{
	if (!lines_available(tl->lines)) {
		tl_reverse_stepi(tl, 1);
		return;
	}
	line_here(tl);
	go_back_to(tl, into_calls ? MO_SCOUT_STEP : MO_SCOUT_NEXT, 0);
}

void tl_reverse_finish(timeline *tl)
{
	if (!tl->nfr) {
		tli_fail(tl, "\"finish\" not meaningful in the outermost frame.");
		return;
	}
	if (tl->unkept) {
		char why[96];
		snprintf(why, sizeof why,
			 "This frame is deeper than the %d the timeline keeps; its start is unknown.",
			 TL_MAX_FRAMES);
		tli_fail(tl, why);
		return;
	}
	ck_travel_to(tl, tl->fr[tl->nfr - 1].pos, (tl_stop){ .kind = TL_STEPPED, .reverse = 1 });
}

void tl_goto(timeline *tl, uint64_t icount)
{
	if (icount > rp_length(tl->r)) {
		char why[96];
		snprintf(why, sizeof why, "icount %llu is past the end of the recording (%llu)",
			 (unsigned long long)icount, (unsigned long long)rp_length(tl->r));
		tli_fail(tl, why);
		return;
	}
	if (icount > rp_icount(tl->r) && tl_divergence(tl)) {
		tli_emit(tl, (tl_stop){ .kind = TL_DIVERGED });
		return;
	}
	ck_travel_to(tl, icount, (tl_stop){ .kind = TL_STEPPED, .reverse = icount < rp_icount(tl->r) });
}

/* ---- breakpoints -------------------------------------------------------------- */

tl_break *tl_break_add(timeline *tl, tl_break_kind kind, uint32_t addr, unsigned size,
		       const char *what)
{
	if (tl->st.nb == TL_MAX_BREAKS)
		return NULL;
	tl_break *b = &tl->st.b[tl->st.nb++];
	*b = (tl_break){ .id = ++tl->st.next_id, .kind = kind, .addr = addr, .vector = -1,
			 .size = size < 1 ? 1 : size > 8 ? 8 : size };
	snprintf(b->what, sizeof b->what, "%s", what);
	if (kind >= TL_BK_WATCH)
		b->old = watch_value(tl, b);
	return b;
}

int tl_break_condition(timeline *tl, int id, const char *cond)
{
	for (unsigned i = 0; i < tl->st.nb; i++) {
		tl_break *b = &tl->st.b[i];
		if (b->id != id || b->kind >= TL_BK_WATCH)
			continue;
		if (strlen(cond) >= sizeof b->cond)
			return -2;
		snprintf(b->cond, sizeof b->cond, "%s", cond);
		return 0;
	}
	return -1;
}

int tl_break_delete(timeline *tl, int id)
{
	for (unsigned i = 0; i < tl->st.nb; i++)
		if (tl->st.b[i].id == id) {
			memmove(&tl->st.b[i], &tl->st.b[i + 1],
				(tl->st.nb - i - 1) * sizeof tl->st.b[i]);
			tl->st.nb--;
			return 0;
		}
	return -1;
}

void tl_break_clear(timeline *tl)
{
	tl->st.nb = 0;
}

const tl_break *tl_breaks(const timeline *tl, unsigned *n)
{
	*n = tl->st.nb;
	return tl->st.b;
}

/* ---- where we are ---------------------------------------------------------------- */

uint64_t tl_icount(const timeline *tl) { return rp_icount(tl->r); }
uint64_t tl_length(const timeline *tl) { return rp_length(tl->r); }
uint32_t tl_pc(const timeline *tl) { return sim_pc(tl->s); }
replay *tl_replay(const timeline *tl) { return tl->r; }
sim *tl_sim(const timeline *tl) { return tl->s; }
const firmware *tl_firmware(const timeline *tl) { return tl->fw; }
const src_lines *tl_lines(const timeline *tl) { return tl->lines; }
const travel *tl_travel(const timeline *tl) { return tl->t; }
const rp_divergence *tl_divergence(const timeline *tl) { return rp_get_divergence(tl->r); }
tl_work tl_get_work(const timeline *tl) { return tl->work; }

const tl_frame *tl_frames(const timeline *tl, unsigned *n, unsigned *unkept, unsigned *lost)
{
	*n = tl->nfr;
	*unkept = tl->unkept;
	*lost = tl->lost_frames;
	return tl->fr;
}

int tl_parse_count(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	uint64_t v = strtoull(s, &end, 0);
	uint64_t mul = *end == 'k' ? 1000 : *end == 'M' ? 1000000 : *end == 'G' ? 1000000000 : 1;
	if (mul > 1)
		end++;
	while (*end == ' ')
		end++;
	if (errno || end == s || *end || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

int tl_parse_position(const timeline *tl, const char *arg, uint64_t *icount)
{
	if (strncmp(arg, "irq", 3) || (arg[3] != ' ' && arg[3]))
		return tl_parse_count(arg, icount);
	uint64_t n;
	if (tl_parse_count(arg + 3 + strspn(arg + 3, " "), &n))
		return -1;
	size_t nev;
	const trace_event *ev = rp_events(tl->r, &nev);
	for (size_t i = 0; n && i < nev; i++)
		if (ev[i].type == TRACE_IRQ && --n == 0) {
			*icount = ev[i].icount;
			return 0;
		}
	return -2;
}

/* ---- the session ---------------------------------------------------------------- */

static const ck_host host = {
	.emit = tli_emit,
	.fail = tli_fail,
	.filterable = tli_filterable,
	.filter_steps = tli_filter_steps,
	.refresh_watches = tli_refresh_watches,
};

int tl_open(const char *db_path, const rp_options *o, travel *t, timeline **out, avrr_err *err)
{
	/* Heap, not stack: the state must survive longjmp and fork alike. */
	timeline *tl = calloc(1, sizeof *tl);
	*out = NULL;
	if (!tl)
		return avrr_errf(err, "out of memory");
	tl->t = t;
	tl->ck_fd = -1;
	tl->interrupted = o->interrupted;
	if (rp_open(db_path, o, &tl->r, err) || lines_load(rp_firmware(tl->r), &tl->lines, err)) {
		rp_close(tl->r);
		free(tl);
		return -1;
	}
	tl->s = rp_sim(tl->r);
	tl->fw = rp_firmware(tl->r);
	tl->kinds = word_kinds(tl);
	if (!tl->kinds) {
		lines_free(tl->lines);
		rp_close(tl->r);
		free(tl);
		return avrr_errf(err, "out of memory");
	}
	tl->prev_pc = sim_pc(tl->s);
	tl->spare_ready[0] = tl->spare_ready[1] = -1;
	if (rp_observe(tl->r, &(rp_observer){ .ud = tl, .on_step = on_step }, err)) {
		free(tl->kinds);
		lines_free(tl->lines);
		rp_close(tl->r);
		free(tl);
		return -1;
	}
	*out = tl;
	return 0;
}

void tl_carry(timeline *tl, void *data, size_t size)
{
	tl->carry = data;
	tl->carry_size = size < TL_CARRY_MAX ? size : TL_CARRY_MAX;
}


int tl_main(timeline *tl, const tl_frontend *fe, void *ud)
{
	tl->fe = fe;
	tl->host = &host;
	tl->ud = ud;
	signal(SIGCHLD, SIG_IGN);  /* checkpoints and scouts reap themselves */
	sigaction(SIGINT, NULL, &tl->sigint);
	if (setjmp(tl->top)) {
		ck_serve(tl);          /* returns in the copy that takes over, */
		if (fe->resumed)       /* which ends the command that jumped */
			fe->resumed(tl, ud);
		ck_thin_after_travel(tl); /* the user has the answer: off the clock */
	} else {
		ck_lay(tl);            /* icount 0, for every way back */
	}
	do
		ck_thin_when_idle(tl);
	while (!fe->command(tl, ud));
	ck_end_session(tl);
	return 0;
}
