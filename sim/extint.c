/*
 * extint.c — external interrupts that fire as the datasheet says (see
 * extint.h).  The poll is simavr 1.6's avr_extint_poll_level_trig, with
 * the tests it lacks: is the interrupt still in low-level mode, and
 * enabled.
 */
#include "sim/extint.h"

#include <stdlib.h>
#include <string.h>

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

/* A sense-control register's write callback, chained before ours. */
typedef struct isc_hook {
	uint16_t addr;           /* data address */
	avr_io_write_t orig;
	void *orig_param;
	struct sim_extint *x;
} isc_hook;

struct sim_extint {
	avr_t *avr;
	avr_extint_t *port;
	extint_line line[EXTINT_COUNT];
	isc_hook hook[EXTINT_COUNT];
	unsigned nhooks;
};

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
static void isc_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	isc_hook *h = param;
	if (h->orig)
		h->orig(avr, addr, v, h->orig_param);
	else
		avr->data[addr] = v;
	sim_extint *x = h->x;
	for (unsigned n = 0; n < EXTINT_COUNT; n++)
		if (has_level(x->port, n) && level_requested(avr, x->port, n))
			avr_cycle_timer_register(avr, 1, level_poll, &x->line[n]);
}

static void hook_isc(sim_extint *x, uint16_t addr)
{
	for (unsigned i = 0; i < x->nhooks; i++)
		if (x->hook[i].addr == addr)
			return;
	/* EICRA/EICRB/EIMSK, or MCUCR/MCUCSR/GICR: a few, all in I/O space */
	if (x->nhooks == EXTINT_COUNT || addr < 32 || addr >= 32 + MAX_IOs)
		return;
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	isc_hook *h = &x->hook[x->nhooks++];
	*h = (isc_hook){ addr, x->avr->io[io].w.c, x->avr->io[io].w.param, x };
	x->avr->io[io].w.c = isc_write;
	x->avr->io[io].w.param = h;
}

sim_extint *sim_extint_attach(avr_t *avr, int *oom)
{
	*oom = 0;
	avr_extint_t *p = NULL;
	for (avr_io_t *io = avr->io_port; io && !p; io = io->next)
		if (io->kind && !strcmp(io->kind, "extint"))
			p = (avr_extint_t *)io;
	if (!p)
		return NULL;
	sim_extint *x = calloc(1, sizeof *x);
	if (!x) {
		*oom = 1;
		return NULL;
	}
	x->avr = avr;
	x->port = p;
	for (unsigned n = 0; n < EXTINT_COUNT; n++) {
		x->line[n] = (extint_line){ p, n };
		if (!has_level(p, n))
			continue;
		avr_irq_register_notify(p->io.irq + n, pin_notify, &x->line[n]);
		hook_isc(x, p->eint[n].isc[0].reg);
		hook_isc(x, p->eint[n].isc[1].reg);
		hook_isc(x, p->eint[n].vector.enable.reg);
	}
	sim_extint_reset(x);
	return x;
}

void sim_pins_filter_first(avr_t *avr)
{
	for (avr_io_t *io = avr->io_port; io; io = io->next)
		if (io->kind && !strcmp(io->kind, "port") && io->irq)
			for (int i = IOPORT_IRQ_PIN0; i <= IOPORT_IRQ_PIN7; i++)
				io->irq[i].flags &= ~IRQ_FLAG_INIT;
}

void sim_extint_reset(sim_extint *x)
{
	if (!x)
		return;
	for (unsigned n = 0; n < EXTINT_COUNT; n++)
		if (has_level(x->port, n))
			avr_extint_set_strict_lvl_trig(x->avr, (uint8_t)n, 0);
}

void sim_extint_free(sim_extint *x)
{
	free(x);
}
