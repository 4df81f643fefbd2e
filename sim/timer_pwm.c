/*
 * timer_pwm.c — phase-correct and phase-and-frequency-correct PWM (see
 * chip.h), which simavr 1.6 lacks: their WGM modes have no entry in its
 * cores' tables, so a timer set to one stands still (or, prescaled, ticks
 * an overflow every prescaler period).  Arduino's init() puts Timers 1
 * and 2 in phase-correct PWM for analogWrite; avr-libc's demos use it.
 *
 * The datasheet's dual-slope operation: the counter counts from BOTTOM (0)
 * up to TOP, then down to BOTTOM, one step per prescaled clock, so a
 * period is 2 * TOP * prescaler cycles.  TOV is set at BOTTOM; OCFnx at
 * each compare match, up and down; ICF (ICR the TOP) at TOP.  With COMnx =
 * 2 (non-inverting) OCnx is cleared at the up-counting match and set at
 * the down-counting one, COMnx = 3 the opposite, so OCRnx = TOP holds it
 * high (non-inverting) and OCRnx = BOTTOM low; COMnx = 1 toggles OCnA
 * where OCRnA is TOP (modes 9, 11; 8-bit mode 5), else leaves it to the
 * port.  OCRnx are double-buffered: the program writes the buffer, and
 * the compare unit takes it at TOP (phase-correct) or at BOTTOM
 * (phase-and-frequency-correct); OCRnA as TOP too.  ICRn is not buffered.
 *
 * Modes (16-bit timers): 1, 2, 3 phase-correct with TOP 0xff, 0x1ff,
 * 0x3ff; 10, 11 phase-correct with TOP ICRn, OCRnA; 8, 9 phase-and-
 * frequency-correct with TOP ICRn, OCRnA.  8-bit timers: 1 (TOP 0xff) and
 * 5 (TOP OCRnA), phase-correct.  Clocked from the CPU clock through the
 * prescaler; an external or asynchronous clock is not simulated here.
 *
 * The timer in such a mode is owned here: simavr's own cycle timers for it
 * are cancelled and one cycle timer of ours runs from event to event (a
 * match, TOP, BOTTOM), so the cost is a call per event, not per count.
 * TCNTn reads, TCNTn/OCRnx/ICRn writes go through wrappers that leave
 * simavr out while the timer is owned.  What the counter is doing lives in
 * simavr's timer fields, so that snapshots keep it: tov_base is the cycle
 * of the last event, tov_cycles the count there (bits 0-15) and the
 * direction (COUNT_DOWN), tov_top the TOP in force, comp[i].comp_cycles
 * the compare value in force (double buffer taken).
 *
 * Flags are set at the timer clock where the count equals the compare
 * value; the chip sets OCFnx one timer clock later.  The prescaler starts
 * counting when the timer is configured (the chip's prescaler runs
 * free), so the first step may come up to prescaler-1 cycles early.
 */
#include "sim/chip.h"

#include <stdio.h>
#include <string.h>

#include <avr_ioport.h>
#include <avr_timer.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

enum { WRAP_CONTROL = 1, WRAP_TCNT, WRAP_OCR, WRAP_ICR };
enum { PC = 1, PFC };                           /* the two dual-slope kinds */
enum { TOP_FIXED, TOP_ICR, TOP_OCRA };

#define COUNT_DOWN (1u << 16)
#define COUNT_MASK 0xffffu

typedef struct pwm_mode {
	uint8_t kind;           /* 0: not ours */
	uint8_t top;            /* TOP_* */
	uint16_t fixed;         /* TOP when TOP_FIXED */
} pwm_mode;

static pwm_mode mode_of(const avr_timer_t *t, unsigned wgm)
{
	if (t->r_tcnth) {
		switch (wgm) {
		case 1: return (pwm_mode){ PC, TOP_FIXED, 0xff };
		case 2: return (pwm_mode){ PC, TOP_FIXED, 0x1ff };
		case 3: return (pwm_mode){ PC, TOP_FIXED, 0x3ff };
		case 8: return (pwm_mode){ PFC, TOP_ICR, 0 };
		case 9: return (pwm_mode){ PFC, TOP_OCRA, 0 };
		case 10: return (pwm_mode){ PC, TOP_ICR, 0 };
		case 11: return (pwm_mode){ PC, TOP_OCRA, 0 };
		default: return (pwm_mode){ 0, 0, 0 };
		}
	}
	switch (wgm) {
	case 1: return (pwm_mode){ PC, TOP_FIXED, 0xff };
	case 5: return (pwm_mode){ PC, TOP_OCRA, 0 };
	default: return (pwm_mode){ 0, 0, 0 };
	}
}

static unsigned wgm_of(avr_t *avr, avr_timer_t *t)
{
	return avr_regbit_get_array(avr, t->wgm, 4);
}

static unsigned cs_of(avr_t *avr, avr_timer_t *t)
{
	return avr_regbit_get_array(avr, t->cs, 4);
}

/* Whether the clock is the CPU's through the prescaler. */
static int internal_clock(avr_t *avr, avr_timer_t *t, unsigned cs)
{
	return cs && t->cs_div[cs] != AVR_TIMER_EXTCLK_CHOOSE &&
	       !(t->as2.reg && avr_regbit_get(avr, t->as2));
}

/* The mode this file runs t in now, or kind 0. */
static pwm_mode owned_mode(avr_t *avr, avr_timer_t *t)
{
	pwm_mode m = mode_of(t, wgm_of(avr, t));
	if (m.kind && !internal_clock(avr, t, cs_of(avr, t)))
		m.kind = 0;
	return m;
}

static uint64_t prescaler(avr_t *avr, avr_timer_t *t)
{
	return 1ull << t->cs_div[cs_of(avr, t)];
}

static uint16_t reg16(const avr_t *avr, uint16_t lo, uint16_t hi)
{
	return (uint16_t)(avr->data[lo] | (hi ? avr->data[hi] << 8 : 0));
}

static uint16_t top_now(avr_t *avr, avr_timer_t *t, pwm_mode m)
{
	switch (m.top) {
	case TOP_ICR: return reg16(avr, t->r_icr, t->r_icrh);
	case TOP_OCRA: return reg16(avr, t->comp[0].r_ocr, t->comp[0].r_ocrh);
	default: return m.fixed;
	}
}

/* The double buffer taken: compare values and TOP from the registers. */
static void take_buffers(avr_t *avr, avr_timer_t *t, pwm_mode m)
{
	for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++)
		if (t->comp[i].r_ocr)
			t->comp[i].comp_cycles = reg16(avr, t->comp[i].r_ocr, t->comp[i].r_ocrh);
	t->tov_top = top_now(avr, t, m);
}

static avr_cycle_count_t on_event(struct avr_t *avr, avr_cycle_count_t when, void *param);

/* The count at cycle `now`, from the last event (the count moves
 * monotonically between events: TOP and BOTTOM are events). */
static uint16_t count_at(avr_t *avr, avr_timer_t *t, uint64_t now)
{
	uint32_t n = t->tov_cycles & COUNT_MASK;
	uint64_t steps = (now - t->tov_base) / prescaler(avr, t);
	if (t->tov_cycles & COUNT_DOWN)
		return (uint16_t)(steps >= n ? 0 : n - steps);
	return (uint16_t)(n + steps > t->tov_top ? t->tov_top : n + steps);
}

/* Schedules the next event after count n (direction in tov_cycles) at
 * cycle `at`: the nearest compare value, TOP or BOTTOM in the direction
 * of travel.  Returns its cycle. */
static uint64_t next_event(avr_t *avr, avr_timer_t *t, uint64_t at)
{
	uint32_t n = t->tov_cycles & COUNT_MASK, top = t->tov_top, target;
	if (!top)
		return 0;  /* TOP 0 does not count: nothing happens */
	if (t->tov_cycles & COUNT_DOWN) {
		target = 0;
		for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++) {
			uint32_t o = (uint32_t)t->comp[i].comp_cycles;
			if (t->comp[i].r_ocr && o < n && o > target)
				target = o;
		}
	} else {
		target = top;
		for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++) {
			uint32_t o = (uint32_t)t->comp[i].comp_cycles;
			if (t->comp[i].r_ocr && o > n && o < target)
				target = o;
		}
	}
	uint32_t steps = target > n ? target - n : n - target;
	return at + steps * prescaler(avr, t);
}

/* Starts (or restarts) counting at count n upwards (down: `down`) now. */
static void start(avr_t *avr, avr_timer_t *t, uint16_t n, int down)
{
	t->tov_base = avr->cycle;
	t->tov_cycles = n | (down ? COUNT_DOWN : 0);
	uint64_t at = next_event(avr, t, avr->cycle);
	if (at)
		avr_cycle_timer_register(avr, at - avr->cycle, on_event, t);
	else
		avr_cycle_timer_cancel(avr, on_event, t);
}

/* Cancels every cycle timer simavr's timer code runs for t. */
static void cancel_simavr(avr_t *avr, avr_timer_t *t)
{
	for (;;) {
		avr_cycle_timer_t fn = NULL;
		for (avr_cycle_timer_slot_p s = avr->cycle_timers.timer; s && !fn; s = s->next)
			if (s->param == t && s->timer != on_event)
				fn = s->timer;
		if (!fn)
			return;
		avr_cycle_timer_cancel(avr, fn, t);
	}
}

static void drive(avr_timer_t *t, int i, int level)
{
	avr_raise_irq(&t->io.irq[TIMER_IRQ_OUT_COMP + i], (uint32_t)level);
}

/* A compare match of unit i at count n, counting up (or not). */
static void match(avr_t *avr, avr_timer_t *t, pwm_mode m, int i, uint32_t n, int up)
{
	avr_raise_interrupt(avr, &t->comp[i].interrupt);
	unsigned com = avr_regbit_get(avr, t->comp[i].com);
	int level;
	switch (com) {
	case 1:
		if (i == 0 && m.top == TOP_OCRA)
			drive(t, i, !(t->io.irq[TIMER_IRQ_OUT_COMP + i].value & 1));
		return;
	case 2: level = n == t->tov_top ? 1 : n == 0 ? 0 : !up; break;
	case 3: level = n == t->tov_top ? 0 : n == 0 ? 1 : up; break;
	default: return;
	}
	drive(t, i, level);
}

static avr_cycle_count_t on_event(struct avr_t *avr, avr_cycle_count_t when, void *param)
{
	avr_timer_t *t = param;
	pwm_mode m = owned_mode(avr, t);
	if (!m.kind)
		return 0;
	uint32_t n = count_at(avr, t, when);
	int up = !(t->tov_cycles & COUNT_DOWN);
	for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++)
		if (t->comp[i].r_ocr && t->comp[i].comp_cycles == n)
			match(avr, t, m, i, n, up);
	int down = !up;
	if (n == 0 && !up) {
		avr_raise_interrupt(avr, &t->overflow);
		if (m.kind == PFC)
			take_buffers(avr, t, m);
		down = 0;
	} else if (up && n >= t->tov_top) {
		if (m.top == TOP_ICR)
			avr_raise_interrupt(avr, &t->icr);
		if (m.kind == PC)
			take_buffers(avr, t, m);
		down = 1;
	}
	t->tov_base = when;
	t->tov_cycles = n | (down ? COUNT_DOWN : 0);
	return next_event(avr, t, when);
}

/* ---- the registers' wrappers ---------------------------------------- */

static void control_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	chip_wrap *w = param;
	avr_timer_t *t = w->dev;
	pwm_mode before = owned_mode(avr, t);
	unsigned wgm = wgm_of(avr, t), cs = cs_of(avr, t);
	uint16_t n = before.kind ? count_at(avr, t, avr->cycle) : reg16(avr, t->r_tcnt, t->r_tcnth);
	int down = before.kind && (t->tov_cycles & COUNT_DOWN);
	chip_orig_write(w, avr, addr, v);
	pwm_mode m = owned_mode(avr, t);
	if (!m.kind) {
		avr_cycle_timer_cancel(avr, on_event, t);
		return;
	}
	if (before.kind && wgm == wgm_of(avr, t) && cs == cs_of(avr, t))
		return;  /* nothing the count depends on changed */
	cancel_simavr(avr, t);
	take_buffers(avr, t, m);
	if (n > t->tov_top)
		n = t->tov_top;
	start(avr, t, n, down);
}

static uint8_t tcnt_read(avr_t *avr, avr_io_addr_t addr, void *param)
{
	chip_wrap *w = param;
	avr_timer_t *t = w->dev;
	if (!owned_mode(avr, t).kind)
		return chip_orig_read(w, avr, addr);
	uint16_t n = count_at(avr, t, avr->cycle);
	avr->data[t->r_tcnt] = (uint8_t)n;
	if (t->r_tcnth)
		avr->data[t->r_tcnth] = (uint8_t)(n >> 8);
	return avr->data[addr];
}

static void tcnt_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	chip_wrap *w = param;
	avr_timer_t *t = w->dev;
	if (!owned_mode(avr, t).kind) {
		chip_orig_write(w, avr, addr, v);
		return;
	}
	int down = (t->tov_cycles & COUNT_DOWN) != 0;
	avr->data[addr] = v;
	uint16_t n = reg16(avr, t->r_tcnt, t->r_tcnth);
	start(avr, t, n > t->tov_top ? t->tov_top : n, down && n > 0);
}

/* OCRnx: the buffer, taken at TOP or BOTTOM. */
static void ocr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	chip_wrap *w = param;
	avr_timer_t *t = w->dev;
	if (!owned_mode(avr, t).kind)
		chip_orig_write(w, avr, addr, v);
	else
		avr->data[addr] = v;
}

/* ICRn as TOP takes effect at once (it is not buffered). */
static void icr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	chip_wrap *w = param;
	avr_timer_t *t = w->dev;
	pwm_mode m = owned_mode(avr, t);
	if (!m.kind || m.top != TOP_ICR) {
		chip_orig_write(w, avr, addr, v);
		return;
	}
	uint16_t n = count_at(avr, t, avr->cycle);
	int down = (t->tov_cycles & COUNT_DOWN) != 0;
	avr->data[addr] = v;
	t->tov_top = top_now(avr, t, m);
	if (n > t->tov_top)
		n = t->tov_top, down = 1;
	start(avr, t, n, down);
}

void chip_pwm_init(chip *c)
{
	for (avr_io_t *port = c->avr->io_port; port; port = port->next) {
		if (!port->kind || strcmp(port->kind, "timer"))
			continue;
		avr_timer_t *t = (avr_timer_t *)port;
		uint16_t regs[8] = { 0 };
		unsigned nregs = 0;
		for (int i = 0; i < 4; i++) {
			uint16_t r[2] = { t->wgm[i].reg, t->cs[i].reg };
			for (int k = 0; k < 2; k++) {
				int seen = !r[k];
				for (unsigned j = 0; j < nregs && !seen; j++)
					seen = regs[j] == r[k];
				if (!seen)
					regs[nregs++] = r[k];
			}
		}
		for (unsigned j = 0; j < nregs; j++)
			chip_wrap_write(c, regs[j], control_write, t, WRAP_CONTROL);
		if (t->r_tcnt) {
			chip_wrap_read(c, t->r_tcnt, tcnt_read, t, WRAP_TCNT);
			chip_wrap_write(c, t->r_tcnt, tcnt_write, t, WRAP_TCNT);
		}
		for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++)
			if (t->comp[i].r_ocr)
				chip_wrap_write(c, t->comp[i].r_ocr, ocr_write, t, WRAP_OCR);
		if (t->r_icr)
			chip_wrap_write(c, t->r_icr, icr_write, t, WRAP_ICR);
	}
}

/* ---- what is still missing ------------------------------------------ */

/* "OC1A (PB1)" for each compare unit of t whose output is on (COM != 0),
 * comma-separated, into buf; returns how many. */
static unsigned enabled_pins(chip *c, avr_timer_t *t, char *buf, size_t n)
{
	unsigned k = 0;
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++) {
		if (!t->comp[i].r_ocr || !avr_regbit_get(c->avr, t->comp[i].com))
			continue;
		char pin[8] = "?";
		for (avr_io_t *port = c->avr->io_port; port; port = port->next)
			if (port->kind && !strcmp(port->kind, "port") &&
			    ((avr_ioport_t *)port)->r_port == t->comp[i].com_pin.reg &&
			    t->comp[i].com_pin.reg)
				snprintf(pin, sizeof pin, "P%c%u", ((avr_ioport_t *)port)->name,
					 t->comp[i].com_pin.bit);
		int w = snprintf(buf + len, n - len, "%sOC%c%c (%s)", k ? ", " : "", t->name,
				 'A' + i, pin);
		if (w > 0 && (size_t)w < n - len)
			len += (size_t)w;
		k++;
	}
	return k;
}

/* Whether any of t's interrupts is enabled. */
static int interrupts_enabled(avr_t *avr, avr_timer_t *t)
{
	int on = avr_regbit_get(avr, t->overflow.enable) || avr_regbit_get(avr, t->icr.enable);
	for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++)
		on |= t->comp[i].r_ocr && avr_regbit_get(avr, t->comp[i].interrupt.enable);
	return on;
}

void chip_check_modes(chip *c, const char *mcu, const mcu_names *names, uint32_t *warned,
		      void (*warn)(void *ud, const char *text), void *ud)
{
	avr_t *avr = c->avr;
	unsigned k = 0;
	for (avr_io_t *port = avr->io_port; port; port = port->next) {
		if (!port->kind || strcmp(port->kind, "timer"))
			continue;
		avr_timer_t *t = (avr_timer_t *)port;
		uint32_t bit = 1u << (k++ % 32);
		unsigned wgm = wgm_of(avr, t), cs = cs_of(avr, t);
		if ((*warned & bit) || !wgm || !cs)
			continue;
		/* Simulated: a mode of simavr's tables, or one of ours on the
		 * CPU clock. */
		pwm_mode m = mode_of(t, wgm);
		if ((!m.kind && t->wgm_op_mode_kind != avr_timer_wgm_none) ||
		    (m.kind && internal_clock(avr, t, cs)))
			continue;
		char pins[160];
		unsigned npins = enabled_pins(c, t, pins, sizeof pins);
		if (!npins && !interrupts_enabled(avr, t))
			continue;  /* nothing the program or the board would see is lost */
		*warned |= bit;
		const char *a = ioregs_name(names, t->wgm[0].reg), *b = NULL;
		for (int i = 1; i < 4; i++)
			if (t->wgm[i].reg && t->wgm[i].reg != t->wgm[0].reg)
				b = ioregs_name(names, t->wgm[i].reg);
		char text[512];
		snprintf(text, sizeof text, "timer %c: %s%s%s select WGM mode %u%s, which is not "
			 "simulated on the %s: the timer stands still where the chip's would run%s%s",
			 t->name, a ? a : "?", b ? "/" : "", b ? b : "", wgm,
			 m.kind ? " on an external clock" : "", mcu,
			 npins ? "; lost output: " : "", npins ? pins : "");
		warn(ud, text);
	}
}
