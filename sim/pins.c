/*
 * pins.c — the chip's pins: the level each one is driven to, for
 * waveforms (sim_observe_pins), and PINx as the CPU reads and writes it.
 *
 * A pin's level is the datasheet's: an input (DDxn 0) is not driven by the
 * chip; an output is driven to PORTxn, unless a timer's compare output
 * owns it (COMnx not "disconnected" for the timer's mode), in which case
 * it is driven to the compare output OCnx, which the timer model keeps
 * (periph_timer.c) and reports at the exact cycle it changes.
 *
 * Writes to PORTx, DDRx, PINx and the timers' registers are wrapped
 * (chained, as sim_watch_write does) from sim_open on, whether or not
 * anyone observes, so that a run observed and one not are the same run.
 * The PINx write and read wrappers change what simavr does (SBI/CBI; an
 * output pin owned by a compare output reads OCnx); the others only
 * look.  The levels kept here are not in a snapshot: an observer that
 * restores one re-reads them (sim_pins_refresh).
 */
#include "sim/sim.h"
#include "sim/periph.h"

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

/* A timer register's write callback, chained. */
typedef struct timer_reg {
	struct sim_pins *pins;
	chained w;
} timer_reg;

struct sim_pins {
	sim *s;
	pin_port port[PORTS];
	unsigned nports;
	timer_reg treg[128];
	unsigned ntreg;
	timers *timers;              /* the compare outputs' model */
	void (*fn)(void *ud, const sim_pin_change *c);
	void *ud;
};

static uint8_t level_of(const struct sim_pins *pins, const pin_port *pp, unsigned bit)
{
	avr_t *avr = pins->s->avr;
	const avr_ioport_t *io = pp->io;
	if (!(avr->data[io->r_ddr] >> bit & 1))
		return SIM_PIN_UNDRIVEN;
	const avr_timer_t *t = pp->oc_timer[bit];
	if (t && timers_oc_connected(pins->timers, t, pp->oc_comp[bit]))
		return (uint8_t)timers_oc_level(pins->timers, t, pp->oc_comp[bit]);
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

/* A compare output changed (the timer model's report, at its exact
 * cycle). */
static void on_oc(void *ud, uint64_t cycle)
{
	struct sim_pins *pins = ud;
	for (unsigned i = 0; i < pins->nports; i++)
		refresh(pins, &pins->port[i], cycle);
}

/* PINx: an output pin that a compare output owns reads OCnx (the pin's
 * level), where simavr 1.6 gives PORTxn. */
static uint8_t on_pin_read(avr_t *avr, uint16_t addr, void *h)
{
	pin_port *pp = reghook_ud(h);
	uint8_t v = reghook_next_read(h, avr, addr);
	for (unsigned b = 0; b < 8; b++) {
		const avr_timer_t *t = pp->oc_timer[b];
		if (t && (avr->data[pp->io->r_ddr] >> b & 1) &&
		    timers_oc_connected(pp->pins->timers, t, pp->oc_comp[b]))
			v = (uint8_t)((v & ~(1u << b)) |
				      timers_oc_level(pp->pins->timers, t, pp->oc_comp[b]) << b);
	}
	return v;
}

/* A CPU write to a timer register: COMnx may hand a pin to the timer or
 * back to PORTxn. */
static void on_timer_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	timer_reg *r = param;
	struct sim_pins *pins = r->pins;
	chain(avr, addr, v, &r->w);
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
	pins->timers = periphs_find(s->periphs, "timers");
	reghooks *hooks = periphs_ctx(s->periphs)->regs;
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
		if (!reghook_read(hooks, p->r_pin, 0, "the pins", on_pin_read, pp, NULL)) {
			free(pins);
			return -1;
		}
	}
	for (avr_io_t *io = avr->io_port; io; io = io->next) {
		if (!io->kind || strcmp(io->kind, "timer"))
			continue;
		avr_timer_t *t = (avr_timer_t *)io;
		/* Its registers, from the timer's own description: a register
		 * shared with another module is the timer's too. */
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
				if (pp->io->r_port != pin.reg)
					continue;
				pp->oc_timer[pin.bit] = t;
				pp->oc_comp[pin.bit] = (uint8_t)c;
			}
		}
	}
	if (pins->timers)
		timers_on_oc(pins->timers, on_oc, pins);
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
