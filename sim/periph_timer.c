/*
 * periph_timer.c — the 8- and 16-bit Timer/Counters as the megaAVR
 * datasheets count them (ATmega328P §15-18, ATmega2560 §16-20, ATmega16
 * §14-17), in place of simavr 1.6's timers.
 *
 * simavr 1.6 is wrong in ways real firmware leans on: a period of one
 * clock is never scheduled (CTC with OCRnA = 0 at clk/1 stands still), a
 * TCNTn write restarts the prescaler and blocks no compare match, CTC
 * raises TOV below MAX, WGM 14 runs as the phase-correct kind with ICRn
 * writes ignored, FOCnx is ignored, a toggling compare output rewrites
 * PORTx, any TIFRn write clears every flag.  So simavr's timer code is
 * cut out (its register callbacks removed, its cycle timers never armed)
 * and this model runs the timers from simavr's own description of them
 * (avr_timer_t: registers, bits, vectors, prescaler table).
 *
 * The model.  The prescaler runs free from reset: at clk/N the timer
 * clock's edges fall every N cycles from the prescaler's origin (reset,
 * or the last PSRSYNC/PSR10 write; Timer2 has its own, PSRASY/PSR2, and
 * with AS2 set counts a 32,768 Hz crystal).  At each edge the count steps
 * (up, or down in the dual-slope modes), and everything the datasheet
 * sets "one timer clock after" the count equals a value — OCFnx, the
 * compare outputs OCnx, TOVn and ICFn at TOP or BOTTOM, the double
 * buffers' update — happens at the edge where the count leaves that
 * value.  So CTC with OCRnA = k has a period of (k + 1) * N cycles, fast
 * PWM (TOP + 1) * N, the dual-slope modes 2 * TOP * N.
 *
 * Between two such edges nothing happens but counting, so the model
 * keeps the count at one cycle (`ref`) and schedules one simavr cycle
 * timer at the next edge where something happens: the cost is a call per
 * event, not per count.  A CPU access first brings the count up to its
 * own cycle (an instruction starting at cycle c sees the edges at c and
 * before), then acts: a TCNTn write keeps the prescaler's phase and
 * blocks a compare match at the next edge; OCRnx is double-buffered in
 * the PWM modes (taken at BOTTOM in fast PWM and phase-and-frequency-
 * correct, at TOP in phase-correct), ICRn not; TIFRn clears the flags
 * written 1; FOCnx applies a match's output action without its flag.
 *
 * The clocks (periph_ops.clocks).  The Timer0/1 prescaler (and the
 * ATmega2560's Timers 3-5, which share it) is clocked by clk_I/O; Timer2's
 * by clk_I/O, or with AS2 set by the crystal (clk_ASY).  A sleep mode that
 * stops a prescaler's clock freezes its phase: its origin moves on by the
 * time it stood, so it resumes where it stopped.  PRTIMn stops timer n
 * alone: its count stands while the shared prescaler runs on, and it
 * counts again at the prescaler's next edge after PRTIMn is cleared;
 * PRTIM2 stops Timer2's own prescaler with it, and only in synchronous
 * mode ("shuts down the Timer/Counter2 module in synchronous mode (AS2 is
 * 0)").  A frozen timer keeps its count, its flags and a compare match a
 * TCNTn write blocked (the next edge it sees), and has no cycle timer
 * scheduled: a CPU asleep in power-down skips to the watchdog's timeout.
 */
#include "sim/periph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_ioport.h>
#include <avr_timer.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

enum { K_NORMAL, K_CTC, K_FAST, K_PC, K_PFC, K_RESERVED };
enum { TOP_FIXED, TOP_OCRA, TOP_ICR };

typedef struct wgm_mode {
	uint8_t kind, top;
	uint16_t fixed;          /* TOP when TOP_FIXED */
} wgm_mode;

/* The WGM tables every megaAVR shares (ATmega328P Tables 15-8, 16-5,
 * 18-8; ATmega16's two-bit TCCR0/TCCR2 are the first four rows). */
static const wgm_mode WGM16[16] = {
	{ K_NORMAL, TOP_FIXED, 0xffff }, { K_PC, TOP_FIXED, 0xff },  { K_PC, TOP_FIXED, 0x1ff },
	{ K_PC, TOP_FIXED, 0x3ff },      { K_CTC, TOP_OCRA, 0 },     { K_FAST, TOP_FIXED, 0xff },
	{ K_FAST, TOP_FIXED, 0x1ff },    { K_FAST, TOP_FIXED, 0x3ff }, { K_PFC, TOP_ICR, 0 },
	{ K_PFC, TOP_OCRA, 0 },          { K_PC, TOP_ICR, 0 },       { K_PC, TOP_OCRA, 0 },
	{ K_CTC, TOP_ICR, 0 },           { K_RESERVED, TOP_FIXED, 0xffff },
	{ K_FAST, TOP_ICR, 0 },          { K_FAST, TOP_OCRA, 0 },
};
static const wgm_mode WGM8[8] = {
	{ K_NORMAL, TOP_FIXED, 0xff },  { K_PC, TOP_FIXED, 0xff }, { K_CTC, TOP_OCRA, 0 },
	{ K_FAST, TOP_FIXED, 0xff },    { K_RESERVED, TOP_FIXED, 0xff }, { K_PC, TOP_OCRA, 0 },
	{ K_RESERVED, TOP_FIXED, 0xff }, { K_FAST, TOP_OCRA, 0 },
};

/* The clock selects, as log2 of the prescaler (EXT: the Tn pin): the
 * synchronous timers' (ATmega328P Table 15-9: 1, 8, 64, 256, 1024, T0
 * falling, rising) and Timer2's, which can run from a crystal (Table
 * 18-9: 1, 8, 32, 64, 128, 256, 1024).  simavr 1.6's own tables are not
 * used: its ATmega8/16/32 Timer2 takes clk/16 for clk/32. */
enum { EXT = 0xff };
static const uint8_t CS_SYNC[8] = { 0, 0, 3, 6, 8, 10, EXT, EXT };
static const uint8_t CS_ASYNC[8] = { 0, 0, 3, 5, 6, 7, 8, 10 };

enum { NCOMP = AVR_TIMER_COMP_COUNT, TIMERS_MAX = 8, REGS_MAX = 64 };

typedef struct tmr {
	struct timers *ts;
	avr_timer_t *t;
	uint32_t max;            /* MAX: 0xff or 0xffff */
	unsigned ncomp;
	uint8_t psr;             /* its prescaler: 0 (synchronous) or 1 (Timer2's) */
	uint16_t foc_reg;        /* where FOCnx live (0: none), and their bits */
	uint8_t foc_bit[NCOMP];
	/* configuration, from the registers */
	wgm_mode mode;
	unsigned wgm, cs;
	uint64_t num, den;       /* cycles per timer clock: num / den; num 0: stopped */
	int ext;                 /* clocked from the Tn pin (not simulated) */
	/* the counter */
	uint64_t ref;            /* the cycle `count` holds at */
	uint32_t count;
	int down;                /* dual slope: counting down */
	uint32_t top;            /* TOP in force */
	uint32_t ocr[NCOMP];     /* compare values in force (buffers taken) */
	uint8_t oc[NCOMP];       /* OCnx */
	uint64_t blocked;        /* the edge a TCNTn write blocks matches at (0: none) */
	uint64_t when;           /* the next event's edge (0: none) */
	uint8_t icp_level;
	/* its clock */
	enum periph_module module;
	int frozen;              /* not clocked: the prescaler stands, or PRTIMn */
	uint64_t frozen_at;      /* the cycle it stopped at */
	int written_frozen;      /* for check: a register written while PRTIMn is set */
} tmr;

struct timers {
	avr_t *avr;
	reghooks *regs;
	const mcu_names *names;
	const char *mcu;
	tmr tm[TIMERS_MAX];
	unsigned n;
	uint64_t origin[2];      /* the prescalers' origins */
	int held[2];             /* TSM: the prescaler held in reset */
	uint16_t psr_reg;        /* GTCCR or SFIOR */
	avr_timer_t *foreign;    /* a timer left to simavr (see modelled), or NULL */
	uint16_t foreign_flags;  /* its flag register, shared with ours */
	int has_tsm;
	void (*on_oc)(void *ud, uint64_t cycle);
	void *oc_ud;
	periphs *p;              /* the registry: which clocks run */
	int psr_frozen[2];       /* the prescaler's clock stopped ... */
	uint64_t psr_since[2];   /* ... at this cycle */
	int foreign_slept;       /* the timer left to simavr ran through a stopped clock */
};

/* ---- registers -------------------------------------------------------- */

static uint32_t reg16(const avr_t *avr, uint16_t lo, uint16_t hi)
{
	return avr->data[lo] | (hi ? (uint32_t)avr->data[hi] << 8 : 0);
}

static unsigned nwgm(const avr_timer_t *t)
{
	unsigned n = 0;
	while (n < 4 && t->wgm[n].reg)
		n++;
	return n;
}

/* TOP in force: OCRnA's compare value in force (double-buffered with
 * it), ICRn (not buffered) or the mode's constant. */
static void refresh_top(tmr *m)
{
	const avr_timer_t *t = m->t;
	switch (m->mode.top) {
	case TOP_OCRA: m->top = m->ocr[0]; break;
	case TOP_ICR: m->top = reg16(m->ts->avr, t->r_icr, t->r_icrh); break;
	default: m->top = m->mode.fixed;
	}
}

static int dual_slope(const tmr *m)
{
	return m->mode.kind == K_PC || m->mode.kind == K_PFC;
}

static int pwm(const tmr *m)
{
	return m->mode.kind == K_FAST || dual_slope(m);
}

/* Whether OCRnx is double-buffered now (the PWM modes). */
static int buffered(const tmr *m)
{
	return pwm(m);
}

/* ---- time ------------------------------------------------------------- */

static int running(const tmr *m)
{
	return m->num && !m->ts->held[m->psr] && !m->frozen;
}

/* Timer clock edges in (origin, c]. */
static uint64_t edges_upto(const tmr *m, uint64_t c)
{
	uint64_t o = m->ts->origin[m->psr];
	return c <= o ? 0 : (c - o) * m->den / m->num;
}

/* The cycle of edge k (k >= 1) after the origin. */
static uint64_t edge_at(const tmr *m, uint64_t k)
{
	return m->ts->origin[m->psr] + (k * m->num + m->den - 1) / m->den;
}

/* The wrap point of a single-slope count now at `count`: TOP, or MAX
 * when the count is past TOP (TOP written below it). */
static uint32_t wrap_point(const tmr *m)
{
	return m->count > m->top ? m->max : m->top;
}

/* Brings the count up to cycle c (no event lies between: see plan). */
static void advance(tmr *m, uint64_t c)
{
	if (c <= m->ref)
		return;
	if (running(m)) {
		uint64_t n = edges_upto(m, c) - edges_upto(m, m->ref);
		if (dual_slope(m) && m->count <= m->top && m->down)
			m->count -= (uint32_t)n;
		else
			m->count += (uint32_t)n;
	}
	m->ref = c;
}

/* ---- events ----------------------------------------------------------- */

static void oc_changed(tmr *m, uint64_t cycle)
{
	if (m->ts->on_oc)
		m->ts->on_oc(m->ts->oc_ud, cycle);
}

static unsigned com_of(const tmr *m, unsigned i)
{
	return avr_regbit_get(m->ts->avr, m->t->comp[i].com);
}

/* COMnx = 1 in a PWM mode toggles OCnA where OCRnA is TOP, and
 * disconnects the others (the compare output mode tables). */
static int pwm_toggles(const tmr *m, unsigned i)
{
	return i == 0 && m->mode.top == TOP_OCRA;
}

static void set_oc(tmr *m, unsigned i, uint8_t level, uint64_t cycle)
{
	if (m->oc[i] != level) {
		m->oc[i] = level;
		oc_changed(m, cycle);
	}
}

/* The output action of a compare match of unit i; `up` for the dual-slope
 * modes: the step the count takes from the matching value. */
static void match_output(tmr *m, unsigned i, int up, uint64_t cycle)
{
	unsigned com = com_of(m, i);
	if (!com)
		return;
	if (!pwm(m)) {
		set_oc(m, i, com == 1 ? !m->oc[i] : com == 3, cycle);
		return;
	}
	if (com == 1) {
		if (pwm_toggles(m, i))
			set_oc(m, i, !m->oc[i], cycle);
		return;
	}
	int set = com == 3;
	if (dual_slope(m) && !up)
		set = !set;
	set_oc(m, i, (uint8_t)set, cycle);
}

/* Fast PWM's action at BOTTOM: non-inverting sets, inverting clears. */
static void bottom_output(tmr *m, uint64_t cycle)
{
	for (unsigned i = 0; i < m->ncomp; i++) {
		unsigned com = com_of(m, i);
		if (com >= 2)
			set_oc(m, i, com == 2, cycle);
	}
}

static void take_buffers(tmr *m)
{
	avr_t *avr = m->ts->avr;
	for (unsigned i = 0; i < m->ncomp; i++)
		m->ocr[i] = reg16(avr, m->t->comp[i].r_ocr, m->t->comp[i].r_ocrh);
	refresh_top(m);
}

static void raise(tmr *m, avr_int_vector_t *v)
{
	if (v->vector)
		avr_raise_interrupt(m->ts->avr, v);
}

/* The edge at cycle e: the count leaves its value. */
static void tick(tmr *m, uint64_t e)
{
	uint32_t v = m->count;
	int matches = e != m->blocked;
	avr_timer_t *t = m->t;
	if (dual_slope(m) && v <= m->top) {
		int up = v == 0 ? 1 : v == m->top ? 0 : !m->down;
		if (m->top == 0)
			up = 0;
		for (unsigned i = 0; i < m->ncomp && matches; i++)
			if (m->ocr[i] == v) {
				raise(m, &t->comp[i].interrupt);
				match_output(m, i, up, e);
			}
		m->count = up ? v + 1 : v ? v - 1 : 0;
		m->down = !up;
		if (v == m->top) {
			if (m->mode.top == TOP_ICR)
				raise(m, &t->icr);
			if (m->mode.kind == K_PC)
				take_buffers(m);
		}
		if (v == 0) {
			raise(m, &t->overflow);
			if (m->mode.kind == K_PFC)
				take_buffers(m);
		}
	} else {
		uint32_t w = wrap_point(m);
		/* Fast PWM's set or clear at BOTTOM falls on the same edge as a
		 * match at TOP and wins: OCRnx = TOP gives a constant output. */
		int bottom_wins = v == w && m->mode.kind == K_FAST;
		for (unsigned i = 0; i < m->ncomp && matches; i++)
			if (m->ocr[i] == v) {
				raise(m, &t->comp[i].interrupt);
				if (!bottom_wins || com_of(m, i) < 2)
					match_output(m, i, 1, e);
			}
		m->count = v == w ? 0 : v + 1;
		m->down = 0;
		if (v == w) {
			if (m->mode.top == TOP_ICR && v == m->top && m->mode.kind != K_NORMAL)
				raise(m, &t->icr);
			if (w == m->max || m->mode.kind == K_FAST || dual_slope(m))
				raise(m, &t->overflow);
			if (m->mode.kind == K_FAST) {
				bottom_output(m, e);
				take_buffers(m);
			}
		}
	}
	m->ref = e;
	if (m->blocked && m->blocked <= e)
		m->blocked = 0;
}

/* Ticks from the count now to the next edge where something happens
 * (at least 1). */
static uint64_t ticks_to_event(const tmr *m)
{
	uint32_t v = m->count;
	if (dual_slope(m) && v <= m->top) {
		uint64_t period = 2ull * m->top;
		if (!period)
			return 1;
		uint64_t p = m->down ? (v == 0 ? 0 : period - v) : v, best = period;
		uint64_t q[2 + 2 * NCOMP];
		unsigned nq = 0;
		q[nq++] = 0;
		q[nq++] = m->top;
		for (unsigned i = 0; i < m->ncomp; i++)
			if (m->ocr[i] <= m->top) {
				q[nq++] = m->ocr[i];
				q[nq++] = period - m->ocr[i];
			}
		for (unsigned k = 0; k < nq; k++) {
			uint64_t d = (q[k] + period - p) % period;
			if (d < best)
				best = d;
		}
		return best + 1;
	}
	uint32_t w = wrap_point(m), best = w - v;
	for (unsigned i = 0; i < m->ncomp; i++)
		if (m->ocr[i] >= v && m->ocr[i] - v < best)
			best = m->ocr[i] - v;
	return (uint64_t)best + 1;
}

static avr_cycle_count_t on_event(avr_t *avr, avr_cycle_count_t when, void *param);

/* Schedules the next event from the count at m->ref. */
static void plan(tmr *m)
{
	avr_t *avr = m->ts->avr;
	m->when = 0;
	avr_cycle_timer_cancel(avr, on_event, m);
	if (!running(m))
		return;
	m->when = edge_at(m, edges_upto(m, m->ref) + ticks_to_event(m));
	avr_cycle_timer_register(avr, m->when > avr->cycle ? m->when - avr->cycle : 0, on_event, m);
}

static avr_cycle_count_t on_event(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr;
	(void)when;
	tmr *m = param;
	uint64_t e = m->when;
	advance(m, e - 1);
	tick(m, e);
	m->when = edge_at(m, edges_upto(m, m->ref) + ticks_to_event(m));
	return m->when;
}

/* ---- configuration ---------------------------------------------------- */

/* Reads WGM and CS from the registers; the count is at the current cycle. */
static void configure(tmr *m)
{
	avr_t *avr = m->ts->avr;
	avr_timer_t *t = m->t;
	unsigned nw = nwgm(t);
	m->wgm = nw ? avr_regbit_get_array(avr, t->wgm, (int)nw) : 0;
	m->mode = t->r_tcnth ? WGM16[m->wgm & 15] : WGM8[m->wgm & 7];
	m->cs = avr_regbit_get_array(avr, t->cs, 3);
	uint8_t div = (m->psr ? CS_ASYNC : CS_SYNC)[m->cs & 7];
	m->ext = 0;
	m->num = 0;
	m->den = 1;
	if (!m->cs) {
		/* stopped */
	} else if (div == EXT) {
		m->ext = 1;     /* the Tn pin's edges: not simulated (check warns) */
	} else if (t->as2.reg && avr_regbit_get(avr, t->as2)) {
		m->num = ((uint64_t)1 << div) * avr->frequency;
		m->den = 32768;
	} else {
		m->num = (uint64_t)1 << div;
	}
	if (!buffered(m))
		take_buffers(m);
	else
		refresh_top(m);
}

/* Every timer touched by a write: brought to now before it changes. */
static void advance_all(struct timers *ts)
{
	for (unsigned i = 0; i < ts->n; i++)
		advance(&ts->tm[i], ts->avr->cycle);
}

static void replan_all(struct timers *ts)
{
	for (unsigned i = 0; i < ts->n; i++)
		plan(&ts->tm[i]);
}

/* ---- clocks ----------------------------------------------------------- */

static int asynchronous(const tmr *m)
{
	return m->t->as2.reg && avr_regbit_get(m->ts->avr, m->t->as2);
}

/* Whether prescaler p (0: Timer0/1's, 1: Timer2's) is clocked under c. */
static int psr_clocked(const struct timers *ts, unsigned p, const periph_clocks *c)
{
	if (p == 0)
		return (c->running & CLOCK_IO) != 0;
	for (unsigned i = 0; i < ts->n; i++)
		if (ts->tm[i].psr == 1 && asynchronous(&ts->tm[i]))
			return (c->running & CLOCK_ASY) != 0;
	return periph_clocked(c, CLOCK_IO, PR_TIM2);
}

static int timer_clocked(const tmr *m, const periph_clocks *c)
{
	/* Timer2's PRTIM2 is its prescaler's (psr_clocked). */
	return psr_clocked(m->ts, m->psr, c) && (m->psr || !(c->stopped >> m->module & 1));
}

/* Freezes or thaws the prescalers and the timers as c says, at the
 * current cycle.  A timer whose state stays is left alone: an event of
 * Timer2 on its crystal may be due within the cycles a wake-up skips. */
static void apply_clocks(struct timers *ts, const periph_clocks *c)
{
	avr_t *avr = ts->avr;
	uint64_t now = avr->cycle;
	int change[TIMERS_MAX];
	for (unsigned i = 0; i < ts->n; i++) {
		tmr *m = &ts->tm[i];
		change[i] = m->frozen == timer_clocked(m, c);
		if (change[i])
			advance(m, now);   /* under the old state */
	}
	for (unsigned p = 0; p < 2; p++) {
		int run = psr_clocked(ts, p, c);
		if (!run && !ts->psr_frozen[p]) {
			ts->psr_frozen[p] = 1;
			ts->psr_since[p] = now;
		} else if (run && ts->psr_frozen[p]) {
			/* The phase it stood at; a reset meanwhile counts from now. */
			ts->psr_frozen[p] = 0;
			uint64_t since = ts->psr_since[p];
			ts->origin[p] = ts->origin[p] >= since ? now : ts->origin[p] + (now - since);
		}
	}
	for (unsigned i = 0; i < ts->n; i++) {
		tmr *m = &ts->tm[i];
		if (!change[i])
			continue;
		if (!m->frozen) {
			m->frozen = 1;
			m->frozen_at = now;
		} else {
			m->frozen = 0;
			/* A match a TCNTn write blocked is the next edge it sees. */
			if (m->blocked > m->frozen_at)
				m->blocked = running(m) ? edge_at(m, edges_upto(m, now) + 1) : 0;
		}
		plan(m);
	}
}

/* ---- register hooks --------------------------------------------------- */

static int uses(const tmr *m, uint16_t addr)
{
	const avr_timer_t *t = m->t;
	for (unsigned i = 0; i < 4; i++)
		if (t->wgm[i].reg == addr || t->cs[i].reg == addr)
			return 1;
	for (unsigned i = 0; i < m->ncomp; i++)
		if (t->comp[i].com.reg == addr || t->comp[i].r_ocr == addr ||
		    t->comp[i].interrupt.enable.reg == addr || t->comp[i].interrupt.raised.reg == addr)
			return 1;
	return addr == t->r_tcnt || addr == t->r_icr || addr == t->as2.reg || addr == m->foc_reg ||
	       addr == t->overflow.enable.reg || addr == t->overflow.raised.reg ||
	       addr == t->icr.enable.reg || addr == t->icr.raised.reg;
}

static int is_flag_reg(const tmr *m, uint16_t addr)
{
	return addr == m->t->overflow.raised.reg;
}

/* Vectors of m whose flags live at addr. */
static unsigned vectors_at(tmr *m, uint16_t addr, avr_int_vector_t **out)
{
	unsigned n = 0;
	avr_int_vector_t *all[2 + NCOMP] = { &m->t->overflow, &m->t->icr };
	unsigned nall = 2;
	for (unsigned i = 0; i < m->ncomp; i++)
		all[nall++] = &m->t->comp[i].interrupt;
	for (unsigned i = 0; i < nall; i++)
		if (all[i]->vector && (all[i]->raised.reg == addr || all[i]->enable.reg == addr))
			out[n++] = all[i];
	return n;
}

/* TIFRn: a 1 clears that flag (and its pending interrupt), a 0 nothing. */
static void flags_write(struct timers *ts, uint16_t addr, uint8_t v)
{
	for (unsigned k = 0; k < ts->n; k++) {
		avr_int_vector_t *vs[2 + NCOMP];
		unsigned n = vectors_at(&ts->tm[k], addr, vs);
		for (unsigned i = 0; i < n; i++)
			if (vs[i]->raised.reg == addr && (v >> vs[i]->raised.bit & 1) &&
			    avr_regbit_get(ts->avr, vs[i]->raised))
				avr_clear_interrupt(ts->avr, vs[i]);
	}
}

/* TIMSKn: an interrupt enabled while its flag is set is taken (simavr 1.6
 * queues one only when the flag rises while enabled). */
static void enables_written(struct timers *ts, uint16_t addr)
{
	for (unsigned k = 0; k < ts->n; k++) {
		avr_int_vector_t *vs[2 + NCOMP];
		unsigned n = vectors_at(&ts->tm[k], addr, vs);
		for (unsigned i = 0; i < n; i++)
			if (vs[i]->enable.reg == addr && avr_regbit_get(ts->avr, vs[i]->enable) &&
			    avr_regbit_get(ts->avr, vs[i]->raised) && !vs[i]->pending)
				avr_raise_interrupt(ts->avr, vs[i]);
	}
}

/* The prescaler reset bits: PSRSYNC/PSR10 (bit 0) and PSRASY/PSR2 (bit
 * 1), held while TSM (bit 7 of GTCCR) is set. */
static uint8_t psr_write(struct timers *ts, uint8_t v)
{
	int tsm = ts->has_tsm && (v & 0x80);
	for (unsigned p = 0; p < 2; p++) {
		int reset = v >> p & 1;
		if (reset)
			ts->origin[p] = ts->avr->cycle;
		if (ts->held[p] && !(tsm && reset))
			ts->origin[p] = ts->avr->cycle;   /* released: counts from now */
		ts->held[p] = tsm && reset;
	}
	return tsm ? v : (uint8_t)(v & ~3u);  /* PSR bits read 0 unless held */
}

static void forced(tmr *m, uint8_t v)
{
	if (pwm(m))
		return;   /* FOCnx acts in the non-PWM modes only */
	for (unsigned i = 0; i < m->ncomp; i++)
		if (m->foc_reg && (v >> m->foc_bit[i] & 1))
			match_output(m, i, 1, m->ts->avr->cycle);
}

static void timers_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	struct timers *ts = reghook_ud(h);
	advance_all(ts);
	uint8_t foc = 0;
	int flags = 0, psr = addr == ts->psr_reg;
	for (unsigned k = 0; k < ts->n; k++) {
		tmr *m = &ts->tm[k];
		if (m->foc_reg == addr)
			for (unsigned i = 0; i < m->ncomp; i++)
				foc |= (uint8_t)(1u << m->foc_bit[i]);
		flags |= is_flag_reg(m, addr);
	}
	if (flags) {
		flags_write(ts, addr, reghook_flags_written(ts->regs, avr, addr, v));
		if (addr == ts->foreign_flags)
			reghook_next_write(h, avr, addr, v);  /* simavr's, for its own flags */
		return;
	}
	if (psr)
		v = psr_write(ts, v);
	uint8_t stored = (uint8_t)(v & ~foc);
	if (psr)
		reghook_next_write(h, avr, addr, stored);
	else
		avr->data[addr] = stored;
	for (unsigned k = 0; k < ts->n; k++) {
		tmr *m = &ts->tm[k];
		avr_timer_t *t = m->t;
		if (!psr && !uses(m, addr))
			continue;
		uint32_t was_top = m->top;
		if (!psr && m->frozen)
			m->written_frozen = 1;
		if (addr == t->r_tcnt) {
			m->count = reg16(avr, t->r_tcnt, t->r_tcnth);
			m->down = dual_slope(m) && m->down && m->count > 0;
			m->blocked = running(m) ? edge_at(m, edges_upto(m, avr->cycle) + 1) : 0;
		}
		configure(m);
		if (dual_slope(m) && m->count > m->top && was_top != m->top)
			m->down = 0;
		if (m->foc_reg == addr)
			forced(m, v);
		if (t->as2.reg == addr)
			avr->data[addr] = (uint8_t)(v & 0x60);  /* AS2, EXCLK; never busy */
	}
	enables_written(ts, addr);
	replan_all(ts);
	for (unsigned k = 0; k < ts->n; k++)
		if (ts->tm[k].t->as2.reg == addr) {
			/* AS2 moves Timer2 to another clock */
			apply_clocks(ts, periphs_clocks(ts->p));
			break;
		}
}

/* ICRn takes effect at once where it is TOP (it is not buffered).  The
 * datasheet says it can be written only in such a mode; firmware that
 * writes it before the mode bits (pwm_pc.c, many servo drivers) runs on
 * the parts, so every write is taken. */
static void icr_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	struct timers *ts = reghook_ud(h);
	advance_all(ts);
	avr->data[addr] = v;
	for (unsigned k = 0; k < ts->n; k++) {
		tmr *m = &ts->tm[k];
		if (m->t->r_icr == addr && m->frozen)
			m->written_frozen = 1;
		if (m->t->r_icr != addr || m->mode.top != TOP_ICR)
			continue;
		refresh_top(m);
		if (dual_slope(m) && m->count > m->top)
			m->down = 0;
	}
	replan_all(ts);
}

static uint8_t tcnt_read(avr_t *avr, uint16_t addr, void *h)
{
	struct timers *ts = reghook_ud(h);
	for (unsigned k = 0; k < ts->n; k++) {
		tmr *m = &ts->tm[k];
		if (m->t->r_tcnt != addr)
			continue;
		advance(m, avr->cycle);
		avr->data[addr] = (uint8_t)m->count;
		if (m->t->r_tcnth)
			avr->data[m->t->r_tcnth] = (uint8_t)(m->count >> 8);  /* TEMP */
	}
	return avr->data[addr];
}

/* The input capture pin: ICRn takes the count at the selected edge, and
 * ICFn rises — unless ICRn is TOP. */
static void on_icp(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	tmr *m = param;
	avr_t *avr = m->ts->avr;
	uint8_t level = value & 1, was = m->icp_level;
	m->icp_level = level;
	/* The edge detector is clocked with the timer: a frozen one sees none. */
	if (m->mode.top == TOP_ICR || level == was || m->frozen)
		return;
	int rising = m->t->ices.reg && avr_regbit_get(avr, m->t->ices);
	if (rising != (level == 1))
		return;
	advance(m, avr->cycle);
	avr->data[m->t->r_icr] = (uint8_t)m->count;
	if (m->t->r_icrh)
		avr->data[m->t->r_icrh] = (uint8_t)(m->count >> 8);
	raise(m, &m->t->icr);
	plan(m);
}

/* ---- set-up ----------------------------------------------------------- */

static void reset_timer(tmr *m)
{
	m->count = 0;
	m->down = 0;
	m->ref = m->ts->avr->cycle;
	m->blocked = 0;
	m->when = 0;
	m->frozen = 0;   /* a reset leaves every clock running */
	memset(m->oc, 0, sizeof m->oc);
	/* simavr's own input-capture handler returns at once where ICR is
	 * TOP: so it does, always (this model captures). */
	m->t->mode.top = avr_timer_wgm_reg_icr;
	configure(m);
	take_buffers(m);
	plan(m);
}

static void timers_reset(void *self)
{
	struct timers *ts = self;
	ts->origin[0] = ts->origin[1] = ts->avr->cycle;
	ts->held[0] = ts->held[1] = 0;
	ts->psr_frozen[0] = ts->psr_frozen[1] = 0;
	for (unsigned i = 0; i < ts->n; i++)
		reset_timer(&ts->tm[i]);
	if (ts->on_oc)
		ts->on_oc(ts->oc_ud, ts->avr->cycle);
}

/* Where FOCnx live: TCCRnC (16-bit timers of the newer parts, bits 7-5),
 * TCCRnB (their 8-bit timers, bits 7-6), TCCRn (the older parts' 8-bit
 * timers, bit 7) or TCCR1A (the older parts' Timer1, bits 3-2). */
static void find_foc(tmr *m)
{
	const mcu_names *names = m->ts->names;
	char c = m->t->name, name[16];
	snprintf(name, sizeof name, "TCCR%cC", c);
	int a = m->t->r_tcnth ? ioregs_addr(names, name) : -1;
	uint8_t b0 = 7;
	if (a < 0) {
		snprintf(name, sizeof name, "TCCR%cB", c);
		a = m->t->r_tcnth ? -1 : ioregs_addr(names, name);
	}
	if (a < 0) {
		snprintf(name, sizeof name, "TCCR%c", c);
		a = ioregs_addr(names, name);
	}
	if (a < 0 && m->t->r_tcnth) {
		snprintf(name, sizeof name, "TCCR%cA", c);
		a = ioregs_addr(names, name);
		b0 = 3;
	}
	if (a < 0)
		return;
	m->foc_reg = (uint16_t)a;
	for (unsigned i = 0; i < m->ncomp; i++)
		m->foc_bit[i] = (uint8_t)(b0 - i);
}

/* simavr 1.6 gives the ATmega16/32's Timer0 no WGM bits (its ATmega8,
 * whose Timer0 has no compare unit, has none): WGM00 is bit 6 of TCCR0,
 * WGM01 bit 3 (ATmega16 §14.8.1), as on Timer2. */
static void add_missing_wgm(tmr *m)
{
	avr_timer_t *t = m->t;
	int tccr = ioregs_addr(m->ts->names, "TCCR0");
	if (t->name != '0' || t->wgm[0].reg || !t->comp[0].r_ocr || tccr < 0 ||
	    t->cs[0].reg != tccr)
		return;
	t->wgm[0] = (avr_regbit_t){ .reg = (uint16_t)tccr, .bit = 6, .mask = 1 };
	t->wgm[1] = (avr_regbit_t){ .reg = (uint16_t)tccr, .bit = 3, .mask = 1 };
}

/* The timers this model runs: every one of the core's but the ATtiny
 * x5's Timer1 (a high-speed timer of its own kind, left to simavr). */
static int modelled(const char *mcu, const avr_timer_t *t)
{
	return !(t->name == '1' && !strncmp(mcu, "attiny", 6) && !t->wgm[0].reg);
}

static void add_reg(uint16_t *regs, unsigned *n, uint16_t addr)
{
	if (!addr || *n == REGS_MAX)
		return;
	for (unsigned i = 0; i < *n; i++)
		if (regs[i] == addr)
			return;
	regs[(*n)++] = addr;
}

/* "OC1A (PB1)" for each unit whose output is enabled, into buf. */
static unsigned enabled_pins(const tmr *m, char *buf, size_t n)
{
	unsigned k = 0;
	size_t len = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < m->ncomp; i++) {
		if (!com_of(m, i))
			continue;
		const char *port = ioregs_name(m->ts->names, m->t->comp[i].com_pin.reg);
		int w = snprintf(buf + len, n - len, "%sOC%c%c (P%c%u)", k ? ", " : "", m->t->name,
				 'A' + i, port && strlen(port) == 5 ? port[4] : '?',
				 m->t->comp[i].com_pin.bit);
		if (w > 0 && (size_t)w < n - len)
			len += (size_t)w;
		k++;
	}
	return k;
}

static int interrupts_enabled(const tmr *m)
{
	avr_t *avr = m->ts->avr;
	int on = avr_regbit_get(avr, m->t->overflow.enable) || avr_regbit_get(avr, m->t->icr.enable);
	for (unsigned i = 0; i < m->ncomp; i++)
		on |= avr_regbit_get(avr, m->t->comp[i].interrupt.enable);
	return on;
}

static void check_foreign(struct timers *ts, uint32_t *warned,
			  void (*warn)(void *ud, const char *text), void *ud);

/* What check() has said beyond each timer's bit (1 << k): the foreign
 * timer's start, its run through a stopped clock, and each timer's
 * registers written while its PRTIMn was set. */
enum { W_FOREIGN = 1u << TIMERS_MAX, W_FOREIGN_SLEPT = 2u << TIMERS_MAX,
       W_FROZEN_WRITE = 4u << TIMERS_MAX /* << k */ };

/* Record-time warnings: a reserved WGM mode, or the external clock on
 * Tn, when that loses an enabled output or interrupt. */
static void timers_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
			 void *ud)
{
	struct timers *ts = self;
	for (unsigned k = 0; k < ts->n; k++) {
		tmr *m = &ts->tm[k];
		uint32_t bit = 1u << k;
		if (!m->cs || (m->mode.kind != K_RESERVED && !m->ext))
			continue;
		char pins[160];
		unsigned npins = enabled_pins(m, pins, sizeof pins);
		/* with no output or interrupt enabled, nothing the program or the
		 * board would see is lost */
		if ((!npins && !interrupts_enabled(m)) || !periph_first(warned, bit))
			continue;
		const char *a = ioregs_name(ts->names, m->t->wgm[0].reg ? m->t->wgm[0].reg
								   : m->t->cs[0].reg);
		const char *b = ioregs_name(ts->names, m->t->cs[0].reg);
		if (a && b && !strcmp(a, b))
			b = NULL;
		char text[512];
		if (m->ext)
			snprintf(text, sizeof text, "timer %c: %s selects the external clock on T%c, "
				 "which is not simulated on the %s: the timer stands still where the "
				 "chip's would count%s%s", m->t->name, b ? b : a ? a : "?", m->t->name,
				 ts->mcu, npins ? "; lost output: " : "", npins ? pins : "");
		else
			snprintf(text, sizeof text, "timer %c: %s%s%s select WGM mode %u, which is "
				 "reserved on the %s: the timer counts as in normal mode%s%s",
				 m->t->name, a ? a : "?", b ? "/" : "", b ? b : "", m->wgm, ts->mcu,
				 npins ? "; lost output: " : "", npins ? pins : "");
		warn(ud, text);
	}
	for (unsigned k = 0; k < ts->n; k++) {
		tmr *m = &ts->tm[k];
		uint32_t bit = W_FROZEN_WRITE << k;
		if (!m->written_frozen || !periph_first(warned, bit))
			continue;
		char text[320];
		snprintf(text, sizeof text, "timer %c: its registers were written while PRTIM%c "
			 "shut it down: the %s's registers of a shut-down module \"can not be read or "
			 "written\", avrr took the writes (in force when the timer runs again)",
			 m->t->name, m->t->name, ts->mcu);
		warn(ud, text);
	}
	check_foreign(ts, warned, warn, ud);
}

/* The timer left to simavr, once it is started: its run is simavr 1.6's,
 * not checked against the datasheet. */
static void check_foreign(struct timers *ts, uint32_t *warned,
			  void (*warn)(void *ud, const char *text), void *ud)
{
	avr_timer_t *t = ts->foreign;
	char text[256];
	if (!t)
		return;
	if (avr_regbit_get_array(ts->avr, t->cs, 4) && periph_first(warned, W_FOREIGN)) {
		const char *reg = ioregs_name(ts->names, t->cs[0].reg);
		snprintf(text, sizeof text, "timer %c: %s starts the %s's timer %c, which avrr leaves "
			 "to simavr 1.6 (docs/chip.md): its counts, flags and outputs may not be the "
			 "chip's", t->name, reg ? reg : "?", ts->mcu, t->name);
		warn(ud, text);
	}
	if (ts->foreign_slept && periph_first(warned, W_FOREIGN_SLEPT)) {
		snprintf(text, sizeof text, "timer %c: the %s's timer %c, which avrr leaves to simavr "
			 "1.6, counted on while a sleep mode or PRTIM%c stopped its clock", t->name,
			 ts->mcu, t->name, t->name);
		warn(ud, text);
	}
}

static void timers_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	(void)was;
	struct timers *ts = self;
	apply_clocks(ts, c);
	avr_timer_t *t = ts->foreign;
	if (t && avr_regbit_get_array(ts->avr, t->cs, 4) &&
	    (!(c->running & CLOCK_IO) || (c->stopped >> PR_TIM1 & 1)))
		ts->foreign_slept = 1;
}

static const periph_ops TIMER_OPS = {
	.name = "timers",
	.reset = timers_reset,
	.check = timers_check,
	.clocks = timers_clocks,
};

int timers_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	struct timers *ts = calloc(1, sizeof *ts);
	if (!ts)
		return avrr_errf(err, "out of memory");
	*ts = (struct timers){ .avr = avr, .regs = ctx->regs, .names = ctx->names, .mcu = ctx->mcu,
			       .p = p };
	if (periphs_add(p, &TIMER_OPS, ts, err))
		return -1;
	int gtccr = ioregs_addr(ts->names, "GTCCR"), sfior = ioregs_addr(ts->names, "SFIOR");
	ts->psr_reg = (uint16_t)(gtccr > 0 ? gtccr : sfior > 0 ? sfior : 0);
	ts->has_tsm = gtccr > 0;
	uint16_t regs[REGS_MAX], tcnt[TIMERS_MAX], icr[TIMERS_MAX];
	unsigned nregs = 0, ntcnt = 0, nicr = 0;
	for (avr_io_t *io = NULL; (io = periph_next_io(avr, io, "timer"));) {
		if (ts->n == TIMERS_MAX)
			continue;
		avr_timer_t *t = (avr_timer_t *)io;
		if (!modelled(ctx->mcu, t)) {
			ts->foreign = t;
			ts->foreign_flags = t->overflow.raised.reg;
			continue;
		}
		tmr *m = &ts->tm[ts->n++];
		m->ts = ts;
		m->t = t;
		m->max = t->r_tcnth ? 0xffff : 0xff;
		while (m->ncomp < NCOMP && t->comp[m->ncomp].r_ocr)
			m->ncomp++;
		m->psr = t->name == '2';
		if (t->name >= '0' && t->name <= '5')
			m->module = (enum periph_module)(PR_TIM0 + (t->name - '0'));
		add_missing_wgm(m);
		find_foc(m);
		uint16_t mine[] = { t->wgm[0].reg, t->wgm[1].reg, t->wgm[2].reg, t->wgm[3].reg,
				    t->cs[0].reg, t->cs[1].reg, t->cs[2].reg, t->cs[3].reg, t->as2.reg,
				    t->overflow.raised.reg, t->overflow.enable.reg, t->icr.enable.reg,
				    m->foc_reg, t->comp[0].com.reg, t->comp[1].com.reg,
				    t->comp[2].com.reg, t->comp[0].r_ocr, t->comp[1].r_ocr,
				    t->comp[2].r_ocr, t->comp[0].interrupt.enable.reg,
				    t->comp[1].interrupt.enable.reg, t->comp[2].interrupt.enable.reg };
		periph_cut_simavr(avr, t, sizeof *t, NULL, 0);
		for (unsigned i = 0; i < sizeof mine / sizeof *mine; i++)
			add_reg(regs, &nregs, mine[i]);
		add_reg(regs, &nregs, t->r_tcnt);
		add_reg(tcnt, &ntcnt, t->r_tcnt);
		if (t->r_icr)
			add_reg(icr, &nicr, t->r_icr);
		avr_irq_register_notify(t->io.irq + TIMER_IRQ_IN_ICP, on_icp, m);
	}
	if (ts->psr_reg)
		add_reg(regs, &nregs, ts->psr_reg);
	for (unsigned i = 0; i < nregs; i++) {
		/* The prescaler register is shared (the ADC's ADTS in SFIOR):
		 * claim only the timers' bits there. */
		uint8_t owns = regs[i] == ts->psr_reg ? (uint8_t)(ts->has_tsm ? 0x83 : 0x03) : 0xff;
		if (!reghook_write(ts->regs, regs[i], owns, "the timers", timers_write, ts, err))
			return -1;
	}
	for (unsigned i = 0; i < nicr; i++)
		if (!reghook_write(ts->regs, icr[i], 0xff, "the timers", icr_write, ts, err))
			return -1;
	for (unsigned i = 0; i < ntcnt; i++)
		if (!reghook_read(ts->regs, tcnt[i], 0xff, "the timers", tcnt_read, ts, err))
			return -1;
	timers_reset(ts);
	return 0;
}

int timers_oc_connected(const timers *ts, const struct avr_timer_t *t, unsigned comp)
{
	for (unsigned k = 0; k < ts->n; k++) {
		const tmr *m = &ts->tm[k];
		if (m->t != t || comp >= m->ncomp)
			continue;
		unsigned com = com_of(m, comp);
		return com > 1 || (com == 1 && (!pwm(m) || pwm_toggles(m, comp)));
	}
	return 0;
}

int timers_oc_level(const timers *ts, const struct avr_timer_t *t, unsigned comp)
{
	for (unsigned k = 0; k < ts->n; k++)
		if (ts->tm[k].t == t && comp < ts->tm[k].ncomp)
			return ts->tm[k].oc[comp];
	return 0;
}

void timers_on_oc(timers *ts, void (*fn)(void *ud, uint64_t cycle), void *ud)
{
	ts->on_oc = fn;
	ts->oc_ud = ud;
}
