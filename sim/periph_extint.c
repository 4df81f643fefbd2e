/*
 * periph_extint.c — external (INTn) and pin-change (PCINTn) interrupts
 * that fire as the datasheet says, on simavr 1.6's.
 *
 * simavr 1.6 polls a pin held low every cycle while INTn is in its
 * low-level mode (ISC = 00, the mode at reset), and keeps polling after
 * the firmware switches to an edge mode: an INT0 set for rising edges
 * (ATmega328P EICRA = ISC01|ISC00) then fires continuously, thousands of
 * times, while the pin is low before its first edge.  Here that poll is
 * switched off (avr_extint_set_strict_lvl_trig, again after each chip
 * reset, which turns it back on) and re-implemented: it runs only while
 * the mode is low level, INTn enabled and the pin low, and it stops at the
 * first cycle one of them changes.  A pin going low, or a write of the
 * sense-control or mask register that makes a low pin request INTn,
 * starts it: the chip's level interrupt is a condition, not an event.
 * Edge and toggle modes stay simavr's own: one per edge.  The poll is
 * simavr's avr_extint_poll_level_trig with the tests it lacks: is the
 * interrupt still in low-level mode, and enabled.
 *
 * simavr 1.6 also passes the first drive of each port pin through its
 * change filter even when the level does not change (IRQ_FLAG_INIT): a
 * pin at rest low, driven low, raised a pin-change interrupt (PCINT) with
 * no edge, and an INTn in toggle mode.  That exception is removed at
 * attach, so only changes of level reach them.
 */
#include "sim/periph.h"

#include <stdlib.h>

#include <avr_extint.h>
#include <avr_ioport.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_regbit.h>

/* One external interrupt with a low-level mode. */
typedef struct extint_line {
	avr_extint_t *port;
	unsigned n;              /* INTn */
} extint_line;

typedef struct extint {
	avr_t *avr;
	avr_extint_t *port;
	extint_line line[EXTINT_COUNT];
} extint;

/* INTn has a low-level mode: two sense bits (an asynchronous INT2 of the
 * ATmega16 has one, and edges only). */
static int has_level(const avr_extint_t *p, unsigned n)
{
	return p->eint[n].port_ioctl && p->eint[n].isc[1].reg;
}

static int in_level_mode(avr_t *avr, const avr_extint_t *p, unsigned n)
{
	return avr_regbit_get_array(avr, (avr_regbit_t *)p->eint[n].isc, 2) == 0;
}

static int pin_low(const avr_extint_t *p, unsigned n)
{
	return !p->io.irq[n].value;
}

/* The low level requests INTn now: level mode, pin low, INTn enabled. */
static int level_requested(avr_t *avr, const avr_extint_t *p, unsigned n)
{
	return in_level_mode(avr, p, n) && pin_low(p, n) &&
	       avr_regbit_get(avr, p->eint[n].vector.enable);
}

/* Every cycle while the low level requests INTn: the interrupt is raised,
 * as long as I is set (simavr's rule) and it is not already flagged or
 * queued. */
static avr_cycle_count_t level_poll(avr_t *avr, avr_cycle_count_t when, void *param)
{
	extint_line *l = param;
	avr_extint_t *p = l->port;
	if (!level_requested(avr, p, l->n))
		return 0;
	avr_int_vector_t *v = &p->eint[l->n].vector;
	if (avr->sreg[S_I] && !avr_regbit_get(avr, v->raised) && !v->pending)
		avr_raise_interrupt(avr, v);
	return when + 1;
}

/* The pin went low: in low-level mode, with INTn enabled, the poll starts
 * (registering again replaces a running one).  `value` is the new level;
 * the irq's own value is still the old one here. */
static void pin_notify(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	extint_line *l = param;
	avr_t *avr = l->port->io.avr;
	if (!value && in_level_mode(avr, l->port, l->n) &&
	    avr_regbit_get(avr, l->port->eint[l->n].vector.enable))
		avr_cycle_timer_register(avr, 1, level_poll, l);
}

/* A write of a sense-control or mask register: if it makes a low pin
 * request INTn (level mode selected, or INTn enabled), the poll starts. */
static void isc_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	extint *x = reghook_ud(h);
	reghook_next_write(h, avr, addr, v);
	for (unsigned n = 0; n < EXTINT_COUNT; n++)
		if (has_level(x->port, n) && level_requested(avr, x->port, n))
			avr_cycle_timer_register(avr, 1, level_poll, &x->line[n]);
}

/* Only level changes of the port pins reach their listeners, the first
 * drive included (see the header note). */
static void filter_first(avr_t *avr)
{
	for (avr_io_t *io = NULL; (io = periph_next_io(avr, io, "port"));)
		if (io->irq)
			for (int i = IOPORT_IRQ_PIN0; i <= IOPORT_IRQ_PIN7; i++)
				io->irq[i].flags &= ~IRQ_FLAG_INIT;
}

/* After a reset of the chip: simavr's reset turns its own poll back on. */
static void extint_reset(void *self)
{
	extint *x = self;
	for (unsigned n = 0; n < EXTINT_COUNT; n++)
		if (has_level(x->port, n))
			avr_extint_set_strict_lvl_trig(x->avr, (uint8_t)n, 0);
}

static const periph_ops EXTINT_OPS = {
	.name = "extint",
	.reset = extint_reset,
};

int extint_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	filter_first(avr);
	avr_extint_t *port = (avr_extint_t *)periph_next_io(avr, NULL, "extint");
	if (!port)
		return 0;  /* no external interrupts on this core */
	extint *x = calloc(1, sizeof *x);
	if (!x)
		return avrr_errf(err, "out of memory");
	x->avr = avr;
	x->port = port;
	if (periphs_add(p, &EXTINT_OPS, x, err))
		return -1;
	/* EICRA/EICRB/EIMSK, or MCUCR/MCUCSR/GICR: each register once, with
	 * the bits of every level mode it holds (the sense bits and the
	 * enables, whose level-mode behaviour is decided here). */
	uint16_t reg[3 * EXTINT_COUNT];
	unsigned nreg = 0;
	for (unsigned n = 0; n < EXTINT_COUNT; n++) {
		x->line[n] = (extint_line){ port, n };
		if (!has_level(port, n))
			continue;
		avr_irq_register_notify(port->io.irq + n, pin_notify, &x->line[n]);
		uint16_t mine[] = { port->eint[n].isc[0].reg, port->eint[n].isc[1].reg,
				    port->eint[n].vector.enable.reg };
		for (unsigned i = 0; i < 3; i++) {
			unsigned j = 0;
			while (j < nreg && reg[j] != mine[i])
				j++;
			if (j == nreg && mine[i])
				reg[nreg++] = mine[i];
		}
	}
	for (unsigned i = 0; i < nreg; i++) {
		uint8_t owns = 0;
		for (unsigned n = 0; n < EXTINT_COUNT; n++)
			if (has_level(port, n))
				owns |= reghook_bits(port->eint[n].isc[0], reg[i]) |
					reghook_bits(port->eint[n].isc[1], reg[i]) |
					reghook_bits(port->eint[n].vector.enable, reg[i]);
		if (!reghook_write(ctx->regs, reg[i], owns, "the external interrupts", isc_write, x,
				   err))
			return -1;
	}
	extint_reset(x);
	return 0;
}
