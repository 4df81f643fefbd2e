/*
 * pins.c — the chip's pins: the level each one is driven to, for
 * waveforms (sim_observe_pins), and the one place simavr 1.6 toggles a
 * pin the chip would not.
 *
 * A pin's level is the datasheet's: an input (DDxn 0) is not driven by the
 * chip; an output is driven to PORTxn, unless a timer's compare output
 * owns it (COMnx not "disconnected" for the timer's mode), in which case
 * it is driven to the compare output OCnx.  simavr raises its port pin
 * IRQs from PORT writes and from the timers alike, the timers' even where
 * the DDR bit is clear, and lets a later PORT write override a timer's
 * output; so the level is computed here from the registers and the
 * timers' compare-output IRQs rather than read off the pin IRQs.
 *
 * Writes to PORTx, DDRx, PINx and the timers' registers are wrapped
 * (chained, as sim_watch_write does) from sim_open on, whether or not
 * anyone observes, so that a run observed and one not are the same run.
 * Only the PINx wrapper changes what simavr does (SBI/CBI); the others
 * only look.  The levels kept here are not in a snapshot: an observer
 * that restores one re-reads them (sim_pins_refresh).
 */
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>
#include <sim_io.h>
#include <avr_ioport.h>
#include <avr_timer.h>

enum { PORTS = 16 };

/* A write callback of simavr's, kept to be chained. */
typedef struct chained {
	avr_io_write_t fn;
	void *param;
} chained;

typedef struct pin_port {
	struct sim_pins *pins;
	avr_ioport_t *io;
	chained port_w, ddr_w, pin_w;
	uint8_t level[8];            /* SIM_PIN_*, as last reported */
	avr_timer_t *oc_timer[8];    /* the timer whose compare output this pin is, or NULL */
	uint8_t oc_comp[8];
} pin_port;

/* A timer compare output's IRQ, and its level as last raised. */
typedef struct pin_oc {
	struct sim_pins *pins;
	pin_port *port;
	uint8_t bit, comp;
	uint8_t level;
	avr_timer_t *timer;
} pin_oc;

/* A timer register's write callback, chained. */
typedef struct timer_reg {
	struct sim_pins *pins;
	chained w;
} timer_reg;

struct sim_pins {
	sim *s;
	pin_port port[PORTS];
	unsigned nports;
	pin_oc oc[PORTS * 3];
	unsigned noc;
	timer_reg treg[128];
	unsigned ntreg;
	int in_timer_write;          /* a CPU write to a timer register is under way */
	void (*fn)(void *ud, const sim_pin_change *c);
	void *ud;
};

/* Whether the compare output owns its pin: COMnx not 0, and not the
 * "normal port operation" that COMnx = 1 means in the PWM modes, except
 * for OCnA where TOP is OCRnA (there it toggles) — the datasheet's
 * compare output mode tables (ATmega328P §15.9.1, §16.11.1, §18.11.1). */
static int oc_connected(avr_t *avr, const avr_timer_t *t, unsigned comp)
{
	unsigned com = avr_regbit_get(avr, t->comp[comp].com);
	if (com != avr_timer_com_toggle)
		return com != 0;
	switch (t->wgm_op_mode_kind) {
	case avr_timer_wgm_pwm:
	case avr_timer_wgm_fast_pwm:
	case avr_timer_wgm_fc_pwm:
		return comp == AVR_TIMER_COMPA && t->mode.top == avr_timer_wgm_reg_ocra;
	default:
		return 1;
	}
}

static const pin_oc *oc_of(const struct sim_pins *pins, const avr_timer_t *t, unsigned comp)
{
	for (unsigned i = 0; i < pins->noc; i++)
		if (pins->oc[i].timer == t && pins->oc[i].comp == comp)
			return &pins->oc[i];
	return NULL;
}

static uint8_t level_of(const struct sim_pins *pins, const pin_port *pp, unsigned bit)
{
	avr_t *avr = pins->s->avr;
	const avr_ioport_t *io = pp->io;
	if (!(avr->data[io->r_ddr] >> bit & 1))
		return SIM_PIN_UNDRIVEN;
	const avr_timer_t *t = pp->oc_timer[bit];
	if (t && oc_connected(avr, t, pp->oc_comp[bit]))
		return oc_of(pins, t, pp->oc_comp[bit])->level;
	return avr->data[io->r_port] >> bit & 1;
}

/* Reports each pin of the port whose level changed, as of `cycle`. */
static void refresh(struct sim_pins *pins, pin_port *pp, uint64_t cycle)
{
	for (unsigned b = 0; b < 8; b++) {
		uint8_t l = level_of(pins, pp, b);
		if (l == pp->level[b])
			continue;
		pp->level[b] = l;
		if (pins->fn) {
			sim_pin_change c = { .port = pp->io->name, .bit = (uint8_t)b, .level = l,
					     .cycle = cycle };
			pins->fn(pins->ud, &c);
		}
	}
}

static void chain(avr_t *avr, avr_io_addr_t addr, uint8_t v, const chained *c)
{
	if (c->fn)
		c->fn(avr, addr, v, c->param);
	else
		avr->data[addr] = v;
}

/* CPU writes land at the cycle their instruction starts (simavr adds an
 * instruction's cycles after it executes). */
static void on_port_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	pin_port *pp = param;
	chain(avr, addr, v, &pp->port_w);
	refresh(pp->pins, pp, avr->cycle);
}

static void on_ddr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	pin_port *pp = param;
	chain(avr, addr, v, &pp->ddr_w);
	refresh(pp->pins, pp, avr->cycle);
}

/* A write to PINx toggles PORTxn for each 1 written (datasheet §14.2.2).
 * SBI and CBI reach simavr 1.6 as a read-modify-write of the whole
 * register, so `sbi PINx, n` toggled every pin that read 1 besides pin n;
 * the chip's SBI toggles pin n alone ("the SBI instruction can be used to
 * toggle one single bit"), and its CBI writes no 1 at all. */
static void on_pin_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	pin_port *pp = param;
	uint32_t pc = avr->pc;   /* the writing instruction's, until it retires */
	if (pc + 1 <= avr->flashend) {
		unsigned op = avr->flash[pc] | avr->flash[pc + 1] << 8;
		unsigned io = (op >> 3 & 0x1f) + 32;
		if ((op & 0xfd00) == 0x9800 && io == addr)  /* CBI 0x9800, SBI 0x9a00 */
			v = op & 0x0200 ? (uint8_t)(1u << (op & 7)) : 0;
	}
	chain(avr, addr, v, &pp->pin_w);
	refresh(pp->pins, pp, avr->cycle);
}

/* The cycle a timer compare output changed at.  simavr 1.6 acts on its
 * cycle timers only after the instruction they fall in (avr->cycle is
 * late by up to its length); the exact cycle follows from the timer's own
 * bookkeeping (avr_timer.c): at an overflow it sets tov_base to the
 * overflow's cycle before it sets or clears the outputs at BOTTOM, and a
 * compare match falls comp_cycles after tov_base — at the overflow itself
 * when comp_cycles reaches tov_cycles (TOP is OCRnA, as in CTC). */
static uint64_t oc_cycle(avr_t *avr, const avr_timer_t *t, unsigned comp, unsigned level)
{
	unsigned com = avr_regbit_get(avr, t->comp[comp].com);
	uint64_t c = t->tov_base;
	int kind = t->wgm_op_mode_kind;
	if ((t->ext_clock_flags & (AVR_TIMER_EXTCLK_FLAG_TN | AVR_TIMER_EXTCLK_FLAG_AS2)) ||
	    (kind != avr_timer_wgm_normal && kind != avr_timer_wgm_ctc &&
	     kind != avr_timer_wgm_fast_pwm))
		return avr->cycle;   /* not simavr's internally clocked modes: as it comes */
	int at_bottom = (com == avr_timer_com_clear && level) || (com == avr_timer_com_set && !level);
	if (!at_bottom && t->comp[comp].comp_cycles < t->tov_cycles)
		c += t->comp[comp].comp_cycles;
	return c <= avr->cycle ? c : avr->cycle;
}

/* The compare output register OCnx changes only at a compare match or at
 * BOTTOM.  simavr 1.6 also sets or clears it when the CPU (re)configures
 * the timer — at its start, and at every OCRnx or TCNTn write it re-arms
 * from the last overflow, as though BOTTOM were now — which the chip does
 * not: those raises come during a timer register write, and are left out.
 * A toggle flips OCnx here rather than taking simavr's value, which it
 * derives from PORTxn and so from the left-out raises too. */
static void on_oc(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	pin_oc *oc = param;
	avr_t *avr = oc->pins->s->avr;
	if (oc->pins->in_timer_write)
		return;
	if (avr_regbit_get(avr, oc->timer->comp[oc->comp].com) == avr_timer_com_toggle)
		oc->level ^= 1;
	else
		oc->level = value & 1;   /* AVR_IOPORT_OUTPUT may ride along */
	refresh(oc->pins, oc->port, oc_cycle(avr, oc->timer, oc->comp, oc->level));
}

/* A CPU write to a timer register: COMnx may hand a pin to the timer or
 * back to PORTxn. */
static void on_timer_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	timer_reg *r = param;
	struct sim_pins *pins = r->pins;
	pins->in_timer_write++;
	chain(avr, addr, v, &r->w);
	pins->in_timer_write--;
	for (unsigned i = 0; i < pins->nports; i++)
		refresh(pins, &pins->port[i], avr->cycle);
}

static void wrap(avr_t *avr, uint16_t addr, chained *keep, avr_io_write_t fn, void *param)
{
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	keep->fn = avr->io[io].w.c;
	keep->param = avr->io[io].w.param;
	avr->io[io].w.c = fn;
	avr->io[io].w.param = param;
}

int sim_pins_attach(sim *s)
{
	avr_t *avr = s->avr;
	struct sim_pins *pins = calloc(1, sizeof *pins);
	if (!pins)
		return -1;
	pins->s = s;
	for (avr_io_t *io = avr->io_port; io; io = io->next) {
		if (!io->kind || strcmp(io->kind, "port") || pins->nports == PORTS)
			continue;
		avr_ioport_t *p = (avr_ioport_t *)io;
		pin_port *pp = &pins->port[pins->nports++];
		pp->pins = pins;
		pp->io = p;
		for (unsigned b = 0; b < 8; b++)
			pp->level[b] = level_of(pins, pp, b);
		wrap(avr, p->r_port, &pp->port_w, on_port_write, pp);
		wrap(avr, p->r_ddr, &pp->ddr_w, on_ddr_write, pp);
		wrap(avr, p->r_pin, &pp->pin_w, on_pin_write, pp);
	}
	for (avr_io_t *io = avr->io_port; io; io = io->next) {
		if (!io->kind || strcmp(io->kind, "timer"))
			continue;
		avr_timer_t *t = (avr_timer_t *)io;
		/* Its registers, from the timer's own description rather than
		 * by who handles their writes: sim/chip.c may have wrapped them
		 * already (phase-correct PWM), and a register shared with
		 * another module is the timer's too. */
		uint16_t regs[4 + 3 * AVR_TIMER_COMP_COUNT + 8];
		unsigned nregs = 0;
		regs[nregs++] = t->r_tcnt;
		regs[nregs++] = t->r_tcnth;
		regs[nregs++] = t->r_icr;
		regs[nregs++] = t->r_icrh;
		for (unsigned c = 0; c < AVR_TIMER_COMP_COUNT; c++) {
			regs[nregs++] = t->comp[c].r_ocr;
			regs[nregs++] = t->comp[c].r_ocrh;
			regs[nregs++] = t->comp[c].com.reg;
		}
		for (unsigned i = 0; i < 4; i++) {
			regs[nregs++] = t->wgm[i].reg;
			regs[nregs++] = t->cs[i].reg;
		}
		for (unsigned i = 0; i < nregs && pins->ntreg < 128; i++) {
			int seen = !regs[i];
			for (unsigned j = 0; j < i && !seen; j++)
				seen = regs[j] == regs[i];
			if (seen || !avr->io[AVR_DATA_TO_IO(regs[i])].w.c)
				continue;
			timer_reg *r = &pins->treg[pins->ntreg++];
			r->pins = pins;
			wrap(avr, regs[i], &r->w, on_timer_write, r);
		}
		for (unsigned c = 0; c < AVR_TIMER_COMP_COUNT; c++) {
			avr_regbit_t pin = t->comp[c].com_pin;
			for (unsigned i = 0; pin.reg && i < pins->nports; i++) {
				pin_port *pp = &pins->port[i];
				if (pp->io->r_port != pin.reg || pins->noc == PORTS * 3)
					continue;
				pin_oc *oc = &pins->oc[pins->noc++];
				*oc = (pin_oc){ .pins = pins, .port = pp, .bit = pin.bit, .comp = (uint8_t)c,
						.timer = t,
						.level = t->io.irq[TIMER_IRQ_OUT_COMP + c].value & 1 };
				pp->oc_timer[pin.bit] = t;
				pp->oc_comp[pin.bit] = (uint8_t)c;
				avr_irq_register_notify(t->io.irq + TIMER_IRQ_OUT_COMP + c, on_oc, oc);
			}
		}
	}
	s->pins = pins;
	return 0;
}

void sim_pins_detach(sim *s)
{
	free(s->pins);
	s->pins = NULL;
}

void sim_pins_refresh(sim *s)
{
	for (unsigned i = 0; s->pins && i < s->pins->nports; i++)
		refresh(s->pins, &s->pins->port[i], s->avr->cycle);
}

int sim_observe_pins(sim *s, void (*fn)(void *ud, const sim_pin_change *c), void *ud,
		     avrr_err *err)
{
	if (s->pins->fn && fn)
		return avrr_errf(err, "pins are already observed");
	s->pins->fn = fn;
	s->pins->ud = ud;
	return 0;
}

unsigned sim_ports(const sim *s, char *names, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->pins->nports && n < max; i++)
		names[n++] = s->pins->port[i].io->name;
	return n;
}

int sim_pin_level(const sim *s, char port, unsigned bit)
{
	for (unsigned i = 0; i < s->pins->nports && bit < 8; i++)
		if (s->pins->port[i].io->name == port)
			return s->pins->port[i].level[bit];
	return -1;
}
