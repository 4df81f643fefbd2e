/*
 * periph.c — the registry of avrr's own peripheral models, and the walk
 * of simavr's peripherals by kind (periph.h).
 */
#include "sim/periph.h"

#include <stdlib.h>
#include <string.h>

#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>

#include <sim_avr.h>
#include <sim_io.h>

typedef struct periph_entry {
	const periph_ops *ops;
	void *self;
	uint32_t warned;
} periph_entry;

enum { PERIPHS_MAX = 16 };

struct periphs {
	periph_ctx ctx;
	periph_entry e[PERIPHS_MAX];
	unsigned n;
	periph_clocks clocks;
};

static const periph_clocks all_running = {
	.running = CLOCK_IO | CLOCK_ADC | CLOCK_ASY, .stopped = 0, .mode = SLEEP_AWAKE
};

periphs *periphs_open(struct avr_t *avr, const char *mcu, avrr_err *err)
{
	periphs *p = calloc(1, sizeof *p);
	if (!p || !(p->ctx.regs = reghooks_open(avr, mcu))) {
		free(p);
		avrr_errf(err, "out of memory");
		return NULL;
	}
	p->ctx.avr = avr;
	p->ctx.names = ioregs_lookup(mcu);
	p->ctx.mcu = mcu;
	p->clocks = all_running;
	return p;
}

void periphs_close(periphs *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++) {
		if (p->e[i].ops->close)
			p->e[i].ops->close(p->e[i].self);
		else
			free(p->e[i].self);
	}
	reghooks_close(p->ctx.regs);
	free(p);
}

const periph_ctx *periphs_ctx(const periphs *p)
{
	return &p->ctx;
}

int periphs_add(periphs *p, const periph_ops *ops, void *self, avrr_err *err)
{
	if (p->n == PERIPHS_MAX) {
		if (ops->close)
			ops->close(self);
		else
			free(self);
		return avrr_errf(err, "sim: more than %d peripheral models", PERIPHS_MAX);
	}
	p->e[p->n++] = (periph_entry){ .ops = ops, .self = self };
	return 0;
}

void periphs_reset(periphs *p)
{
	p->clocks = all_running;
	for (unsigned i = 0; i < p->n; i++)
		if (p->e[i].ops->reset)
			p->e[i].ops->reset(p->e[i].self);
}

void periphs_check(periphs *p, void (*warn)(void *ud, const char *text), void *ud)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->e[i].ops->check)
			p->e[i].ops->check(p->e[i].self, &p->e[i].warned, warn, ud);
}

void *periphs_find(const periphs *p, const char *name)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!strcmp(p->e[i].ops->name, name))
			return p->e[i].self;
	return NULL;
}

const periph_clocks *periphs_clocks(const periphs *p)
{
	return &p->clocks;
}

void periphs_set_clocks(periphs *p, const periph_clocks *c)
{
	if (c->running == p->clocks.running && c->stopped == p->clocks.stopped &&
	    c->mode == p->clocks.mode)
		return;
	periph_clocks was = p->clocks;
	p->clocks = *c;
	for (unsigned i = 0; i < p->n; i++)
		if (p->e[i].ops->clocks)
			p->e[i].ops->clocks(p->e[i].self, &p->clocks, &was);
}

avr_io_t *periph_next_io(avr_t *avr, avr_io_t *from, const char *kind)
{
	for (avr_io_t *io = from ? from->next : avr->io_port; io; io = io->next)
		if (io->kind && !strcmp(io->kind, kind))
			return io;
	return NULL;
}

void periph_withdraw(struct avr_t *avr, avr_int_vector_t *v)
{
	if (!v->pending)
		return;
	/* avr_clear_interrupt clears a flag that is not sticky: kept here. */
	int flag = v->raised.reg ? avr_regbit_get(avr, v->raised) : 0;
	avr_clear_interrupt(avr, v);
	if (flag)
		avr_regbit_set(avr, v->raised);
	avr_int_pending_t *f = &avr->interrupts.pending;
	const unsigned m = avr_int_pending_fifo_size - 1;
	unsigned n = (unsigned)(f->write - f->read) & m, kept = 0;
	for (unsigned i = 0; i < n; i++) {
		avr_int_vector_t *x = f->buffer[(f->read + i) & m];
		if (x != v)
			f->buffer[(f->read + kept++) & m] = x;
	}
	f->write = (f->read + kept) & m;
	if (!kept && avr->interrupt_state > 0)
		avr->interrupt_state = 0;
	avr_raise_irq(avr->interrupts.irq + AVR_INT_IRQ_PENDING, kept != 0);
}

/* simavr 1.6 keeps the type of an IRQ's hook list private (sim_irq.c):
 * this is its layout, read only to find a peripheral's notifications and
 * hand them to avr_irq_unregister_notify.  It holds while Debian's simavr
 * is 1.6. */
struct simavr_irq_hook {
	struct simavr_irq_hook *next;
	int busy;
	avr_irq_t *chain;
	avr_irq_notify_t notify;
	void *param;
};

void periph_cut_simavr(struct avr_t *avr, const void *dev, size_t size, avr_irq_t *irq,
		       unsigned nirq)
{
	const char *lo = dev, *hi = lo + size;
#define MINE(p) ((const char *)(p) >= lo && (const char *)(p) < hi)
	for (unsigned io = 0; io < MAX_IOs; io++) {
		if (MINE(avr->io[io].w.param)) {
			avr->io[io].w.c = NULL;
			avr->io[io].w.param = NULL;
		}
		if (MINE(avr->io[io].r.param)) {
			avr->io[io].r.c = NULL;
			avr->io[io].r.param = NULL;
		}
	}
	for (int s = 0; s < avr->io_shared_io_count; s++)
		for (int i = 0; i < avr->io_shared_io[s].used; i++)
			if (MINE(avr->io_shared_io[s].io[i].param))
				avr->io_shared_io[s].io[i].c = NULL;
	for (avr_cycle_timer_slot_t *t = avr->cycle_timers.timer; t;) {
		if (MINE(t->param)) {
			avr_cycle_timer_cancel(avr, t->timer, t->param);
			t = avr->cycle_timers.timer;  /* the list changed */
		} else {
			t = t->next;
		}
	}
	for (unsigned i = 0; irq && i < nirq; i++)
		for (struct simavr_irq_hook *k = (struct simavr_irq_hook *)irq[i].hook; k;) {
			if (MINE(k->param) && k->notify) {
				avr_irq_unregister_notify(&irq[i], k->notify, k->param);
				k = (struct simavr_irq_hook *)irq[i].hook;
			} else {
				k = k->next;
			}
		}
#undef MINE
}
