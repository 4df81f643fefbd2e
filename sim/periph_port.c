/*
 * periph_port.c — the I/O ports: PINx as the CPU writes and reads it, and
 * the level each pin is driven to, for waveforms (sim_observe_pins).
 *
 * Writes to PINx.  The datasheets of the newer AVRs ("Toggling the Pin"):
 * writing a logic one to PINxn toggles PORTxn, whatever DDRxn; SBI on a
 * register below 0x20 writes the addressed bit alone, so `sbi PINB, 5`
 * toggles PB5 and nothing else, and CBI writes no 1 at all.  simavr 1.6
 * toggles PORTx itself but behind the PORTx callbacks (so a recorder never
 * sees the output change), and runs SBI/CBI as a read of the whole PINx,
 * OR/AND-NOT the bit, and a write of the result, which toggles every pin
 * that reads high.  Here a PINx write becomes a write of the new value to
 * PORTx, through PORTx's hooks as an OUT would go; SBI/CBI take the bit
 * from the instruction.  The older parts (ATmega8/16/32/128) have
 * read-only PINx: their writes do nothing.
 *
 * A pin's level is the datasheet's: an input (DDxn 0) is not driven by the
 * chip; an output is driven to PORTxn, unless a timer's compare output
 * owns it (COMnx not "disconnected" for the timer's mode), in which case
 * it is driven to the compare output OCnx, which the timer model keeps
 * (periph_timer.c) and reports at the exact cycle it changes.  A read of
 * PINx gives such a pin's OCnx, where simavr 1.6 gives PORTxn.
 *
 * PORTx, DDRx and the timers' registers are hooked from sim_open on (they
 * only look), whether or not anyone observes, so that a run observed and
 * one not are the same run.  The levels are re-read after a chip reset.
 */
#include "sim/periph.h"
#include "sim/sim.h"

#include <stdlib.h>

#include <avr_ioport.h>
#include <avr_timer.h>
#include <sim_avr.h>
#include <sim_io.h>

enum { PORTS = 16 };

typedef struct pin_port {
	struct ports *ports;
	avr_ioport_t *io;
	uint8_t level[8];            /* SIM_PIN_*, as last reported */
	avr_timer_t *oc_timer[8];    /* the timer whose compare output this pin is, or NULL */
	uint8_t oc_comp[8];
	uint8_t oc_pins;             /* the pins that are a compare output */
} pin_port;

typedef struct ports {
	avr_t *avr;
	int pins_read_only;          /* PINx cannot be written on this part */
	pin_port port[PORTS];
	unsigned nports;
	timers *timers;              /* the compare outputs' model */
	void (*fn)(void *ud, const sim_pin_change *c);
	void *ud;
} ports;

/* ---- PINx ----------------------------------------------------------- */

/* A write to PINx toggles PORTxn for each 1 written; SBI and CBI write
 * their own bit alone (see the header note).  simavr's write is not
 * called: it would toggle PORTx behind its hooks. */
static void pin_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	const pin_port *pp = reghook_ud(h);
	if (pp->ports->pins_read_only)
		return;
	uint16_t op = reghook_bit_op(avr, addr);
	uint8_t toggle = !op ? v : (op & 0x0200) ? (uint8_t)(1u << (op & 7)) : 0;
	reghook_store(avr, pp->io->r_port, avr->data[pp->io->r_port] ^ toggle);
}

/* PINx: an output pin that a compare output owns reads OCnx (the pin's
 * level), where simavr 1.6 gives PORTxn. */
static uint8_t pin_read(avr_t *avr, uint16_t addr, void *h)
{
	const pin_port *pp = reghook_ud(h);
	const timers *ts = pp->ports->timers;
	uint8_t v = reghook_next_read(h, avr, addr);
	for (unsigned b = 0; b < 8; b++) {
		const avr_timer_t *t = pp->oc_timer[b];
		if (t && (avr->data[pp->io->r_ddr] >> b & 1) &&
		    timers_oc_connected(ts, t, pp->oc_comp[b]))
			v = (uint8_t)((v & ~(1u << b)) | timers_oc_level(ts, t, pp->oc_comp[b]) << b);
	}
	return v;
}

int ports_is_pin(const periphs *p, uint16_t addr)
{
	const ports *ps = periphs_find(p, "ports");
	for (unsigned i = 0; ps && i < ps->nports; i++)
		if (ps->port[i].io->r_pin == addr)
			return 1;
	return 0;
}

/* ---- levels --------------------------------------------------------- */

static uint8_t level_of(const ports *ps, const pin_port *pp, unsigned bit)
{
	avr_t *avr = ps->avr;
	const avr_ioport_t *io = pp->io;
	if (!(avr->data[io->r_ddr] >> bit & 1))
		return SIM_PIN_UNDRIVEN;
	const avr_timer_t *t = pp->oc_timer[bit];
	if (t && timers_oc_connected(ps->timers, t, pp->oc_comp[bit]))
		return (uint8_t)timers_oc_level(ps->timers, t, pp->oc_comp[bit]);
	return avr->data[io->r_port] >> bit & 1;
}

/* Reports each pin of the port whose level changed, as of `cycle`. */
static void refresh(ports *ps, pin_port *pp, uint64_t cycle)
{
	for (unsigned b = 0; b < 8; b++) {
		uint8_t l = level_of(ps, pp, b);
		if (l == pp->level[b])
			continue;
		pp->level[b] = l;
		if (ps->fn) {
			sim_pin_change c = { .port = pp->io->name, .bit = (uint8_t)b, .level = l,
					     .cycle = cycle };
			ps->fn(ps->ud, &c);
		}
	}
}

static void refresh_all(ports *ps, uint64_t cycle)
{
	for (unsigned i = 0; i < ps->nports; i++)
		refresh(ps, &ps->port[i], cycle);
}

/* A CPU write of PORTx or DDRx.  It lands at the cycle its instruction
 * starts (simavr adds an instruction's cycles after it executes). */
static void port_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	pin_port *pp = reghook_ud(h);
	reghook_next_write(h, avr, addr, v);
	refresh(pp->ports, pp, avr->cycle);
}

/* A CPU write to a timer register: COMnx may hand a pin to the timer or
 * back to PORTxn. */
static void timer_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	reghook_next_write(h, avr, addr, v);
	refresh_all(reghook_ud(h), avr->cycle);
}

/* A compare output changed (the timer model's report, at its exact
 * cycle). */
static void on_oc(void *ud, uint64_t cycle)
{
	refresh_all(ud, cycle);
}

/* ---- set-up --------------------------------------------------------- */

/* Hooks the registers of timer t that a CPU write may change a compare
 * output's connection with (a register shared with another module is the
 * timer's too), and notes which pins are its compare outputs. */
static int attach_timer(ports *ps, reghooks *regs, avr_timer_t *t, avrr_err *err)
{
	avr_t *avr = ps->avr;
	uint16_t r[4 + 3 * AVR_TIMER_COMP_COUNT + 8];
	unsigned n = 0;
	r[n++] = t->r_tcnt;
	r[n++] = t->r_tcnth;
	r[n++] = t->r_icr;
	r[n++] = t->r_icrh;
	for (unsigned c = 0; c < AVR_TIMER_COMP_COUNT; c++) {
		r[n++] = t->comp[c].r_ocr;
		r[n++] = t->comp[c].r_ocrh;
		r[n++] = t->comp[c].com.reg;
	}
	for (unsigned i = 0; i < 4; i++) {
		r[n++] = t->wgm[i].reg;
		r[n++] = t->cs[i].reg;
	}
	for (unsigned i = 0; i < n; i++) {
		int seen = !r[i];
		for (unsigned j = 0; j < i && !seen; j++)
			seen = r[j] == r[i];
		/* A register nothing hooks is plain memory: its writes
		 * change no compare output. */
		if (seen || !avr->io[AVR_DATA_TO_IO(r[i])].w.c)
			continue;
		if (!reghook_write(regs, r[i], 0, "the pins", timer_write, ps, err))
			return -1;
	}
	for (unsigned c = 0; c < AVR_TIMER_COMP_COUNT; c++) {
		avr_regbit_t pin = t->comp[c].com_pin;
		for (unsigned i = 0; pin.reg && i < ps->nports; i++) {
			pin_port *pp = &ps->port[i];
			if (pp->io->r_port != pin.reg)
				continue;
			pp->oc_timer[pin.bit] = t;
			pp->oc_comp[pin.bit] = (uint8_t)c;
			pp->oc_pins |= (uint8_t)(1u << pin.bit);
		}
	}
	return 0;
}

static void ports_reset(void *self)
{
	ports *ps = self;
	refresh_all(ps, ps->avr->cycle);
}

static const periph_ops PORT_OPS = {
	.name = "ports",
	.reset = ports_reset,
};

int ports_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	ports *ps = calloc(1, sizeof *ps);
	if (!ps)
		return avrr_errf(err, "out of memory");
	ps->avr = avr;
	ps->pins_read_only = reghook_rmw_part(ctx->mcu);
	ps->timers = periphs_find(p, "timers");
	if (periphs_add(p, &PORT_OPS, ps, err))
		return -1;
	for (avr_io_t *io = NULL; (io = periph_next_io(avr, io, "port")) && ps->nports < PORTS;) {
		avr_ioport_t *port = (avr_ioport_t *)io;
		if (!port->r_port || !port->r_ddr || !port->r_pin)
			continue;
		pin_port *pp = &ps->port[ps->nports++];
		pp->ports = ps;
		pp->io = port;
		if (!reghook_write(ctx->regs, port->r_pin, 0xff, "the pins", pin_write, pp, err) ||
		    !reghook_write(ctx->regs, port->r_port, 0, "the pins", port_write, pp, err) ||
		    !reghook_write(ctx->regs, port->r_ddr, 0, "the pins", port_write, pp, err))
			return -1;
	}
	for (avr_io_t *io = NULL; (io = periph_next_io(avr, io, "timer"));)
		if (attach_timer(ps, ctx->regs, (avr_timer_t *)io, err))
			return -1;
	for (unsigned i = 0; i < ps->nports; i++) {
		pin_port *pp = &ps->port[i];
		for (unsigned b = 0; b < 8; b++)
			pp->level[b] = level_of(ps, pp, b);
		/* The pins a compare output owns are the only bits of PINx
		 * whose reading is decided here. */
		if (pp->oc_pins && !reghook_read(ctx->regs, pp->io->r_pin, pp->oc_pins, "the pins",
						 pin_read, pp, err))
			return -1;
	}
	if (ps->timers)
		timers_on_oc(ps->timers, on_oc, ps);
	return 0;
}

/* ---- the public part (sim.h) ---------------------------------------- */

int sim_observe_pins(sim *s, void (*fn)(void *ud, const sim_pin_change *c), void *ud,
		     avrr_err *err)
{
	ports *ps = periphs_find(s->periphs, "ports");
	if (ps->fn && fn)
		return avrr_errf(err, "pins are already observed");
	ps->fn = fn;
	ps->ud = ud;
	return 0;
}

unsigned sim_ports(const sim *s, char *names, unsigned max)
{
	const ports *ps = periphs_find(s->periphs, "ports");
	unsigned n = 0;
	for (unsigned i = 0; i < ps->nports && n < max; i++)
		names[n++] = ps->port[i].io->name;
	return n;
}

int sim_pin_level(const sim *s, char port, unsigned bit)
{
	const ports *ps = periphs_find(s->periphs, "ports");
	for (unsigned i = 0; i < ps->nports && bit < 8; i++)
		if (ps->port[i].io->name == port)
			return ps->port[i].level[bit];
	return -1;
}
