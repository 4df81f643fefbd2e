/*
 * periph_extint.c — the external interrupts (INTn) and the pin change
 * interrupts (PCINTn) as the datasheets describe them (ATmega328P §13
 * "External Interrupts", ATmega2560 §15, ATmega644 §12, the ATmega16's
 * "External Interrupts"), in place of simavr 1.6's.
 *
 * They listen to the pins' levels, which the port model raises on
 * simavr's pin IRQs when, and only when, they change (periph_port.c);
 * an output pin's changes count too ("the interrupts will trigger even if
 * the INT0 and INT1 or PCINT23..0 pins are configured as outputs").
 *
 * INTn.  The sense control bits (ISCn1:0 in EICRA/EICRB or MCUCR) select
 * the low level, any change, the falling or the rising edge; the
 * ATmega16/32's INT2 has one bit, ISC2 (falling or rising).
 *  - The low level is a condition, not an event: INTn is requested while
 *    the pin is low, the mode is low level and INTn is enabled, from the
 *    instruction after it went low; its flag INTFn is never set ("always
 *    cleared when INTn is configured as a level interrupt"), and the
 *    request ends when the pin goes high, so a pending one is withdrawn.
 *    It is raised each cycle it holds while I is set and it is not
 *    already pending (a poll that runs only while it is requested).
 *  - An edge sets INTFn and requests the interrupt while INTn is enabled;
 *    INTn enabled while INTFn is set is taken then.  Edges need clk_IO
 *    (the clocks periph_power.c sets): while it is stopped (power-down,
 *    power-save, standby, ADC noise reduction) an edge of INT0/1 (of
 *    INT2:0 on the ATmega644, INT7:4 on the ATmega2560) is not seen,
 *    where the asynchronous ones are: the ATmega16/32's INT2, and INT3:0
 *    of the parts with EICRB ("edges on INT3..INT0 are registered
 *    asynchronously").
 *  - Writing 1 to INTFn clears it and its pending interrupt; 0 leaves it;
 *    SBI on the newer parts writes only its bit (reghook_flags_written).
 * simavr 1.6 polled a low pin every cycle whatever the mode once it had
 * gone low in level mode (thousands of INT0 for one edge), raised the
 * level only while INTFn read clear (and EIFR written 1 to clear a stale
 * flag *set* it, as a plain store: a low level never woke the CPU again),
 * kept INTFn's pending interrupt when INTFn was written 1, put the
 * ATmega164/324/644/1284's INT2 on PB3 (it is PB2), and saw every edge
 * in every sleep mode.  Its extint is cut out: this model runs from its
 * description (pins, sense bits, vectors).
 *
 * PCINTn.  A change of level on a pin whose PCMSK bit is set sets PCIFn
 * and requests the interrupt while PCIEn is set, in every sleep mode (the
 * detection is asynchronous); PCIEn set while PCIFn is set is taken then;
 * writing 1 to PCIFn clears it and its pending interrupt.  simavr 1.6's
 * ATmega2560 (and 1280, 1281) has only PCINT7:0: here PE0 is PCINT8,
 * PJ6:0 PCINT15:9 (PCMSK1, PCINT1_vect) and PK7:0 PCINT23:16 (PCMSK2,
 * PCINT2_vect); simavr's PCIFn stayed set when written 1, with its
 * interrupt still to be taken.
 */
#include "sim/periph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_extint.h>
#include <avr_ioport.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_regbit.h>

enum { LINES = EXTINT_COUNT, GROUPS = 8, PINS = 12 * 8, REGS = 32 };

/* What the check says once (periph_ops.check's `warned`). */
enum { W_EDGE_ASLEEP = 1u << 0, W_LEVEL_WAKE = 1u << 1, W_ISC2 = 1u << 2, W_FLOATING = 1u << 3 };

struct extint;

/* INTn. */
typedef struct ext_line {
	struct extint *x;
	avr_int_vector_t *v;
	avr_regbit_t isc[2];     /* isc[1].reg 0: one sense bit (falling/rising) */
	avr_irq_t *pin;
	char port;
	uint8_t bit, n;
	uint8_t async;           /* its edges are seen without clk_IO */
} ext_line;

/* PCINTn: one vector, one mask register. */
typedef struct pc_group {
	avr_int_vector_t *v;
	avr_int_vector_t own;    /* the vector, where simavr has none */
	uint16_t pcmsk;
	uint8_t g;               /* n of PCINTn_vect */
} pc_group;

/* A pin the interrupts listen to. */
typedef struct pin_rec {
	struct extint *x;
	int8_t line, grp;        /* indexes, or -1 */
	uint8_t pcbit;           /* its bit in the group's PCMSK */
	char port;
	uint8_t bit;
} pin_rec;

typedef struct extint {
	avr_t *avr;
	reghooks *regs;
	const mcu_names *names;
	ports *ports;
	ext_line line[LINES];
	unsigned nline;
	pc_group grp[GROUPS];
	unsigned ngrp;
	pin_rec pin[PINS];
	unsigned npin;
	int io_stopped;          /* clk_IO stopped (a sleep mode) */
	sleep_mode mode;
	/* For the record-time warnings. */
	const ext_line *edge_asleep, *level_wake, *isc2, *floating;
	sleep_mode edge_mode, wake_mode;
	uint8_t edge_level;
} extint;

/* ---- INTn ----------------------------------------------------------- */

static uint8_t sense(const ext_line *l)
{
	return (uint8_t)avr_regbit_get_array(l->x->avr, (avr_regbit_t *)l->isc,
					     l->isc[1].reg ? 2 : 1);
}

static int level_mode(const ext_line *l)
{
	return l->isc[1].reg && sense(l) == 0;
}

static int enabled(avr_t *avr, const avr_int_vector_t *v)
{
	return avr_regbit_get(avr, v->enable);
}

/* The low level requests INTn now: level mode, pin low, INTn enabled. */
static int level_requested(const ext_line *l)
{
	return level_mode(l) && !(l->pin->value & 1) && enabled(l->x->avr, l->v);
}

/* Every cycle while the low level requests INTn: raised, unless it is
 * pending already or I is clear (then it is raised at the first cycle
 * after I is set, if the level lasts); INTFn stays clear. */
static avr_cycle_count_t level_poll(avr_t *avr, avr_cycle_count_t when, void *param)
{
	ext_line *l = param;
	if (!level_requested(l))
		return 0;
	if (avr->sreg[S_I] && !l->v->pending) {
		avr_raise_interrupt(avr, l->v);
		avr_regbit_clear(avr, l->v->raised);
		if (l->x->io_stopped && !l->x->level_wake) {
			l->x->level_wake = l;
			l->x->wake_mode = l->x->mode;
		}
		if (!l->x->floating && l->x->ports &&
		    ports_floating(l->x->ports, l->port, l->bit))
			l->x->floating = l;
	}
	return when + 1;
}

static void level_start(ext_line *l)
{
	avr_cycle_timer_register(l->x->avr, 1, level_poll, l);
}

/* The pin of INTn changed to `level`. */
static void line_change(ext_line *l, uint8_t level)
{
	extint *x = l->x;
	avr_t *avr = x->avr;
	if (level_mode(l)) {
		if (!level && enabled(avr, l->v))
			level_start(l);
		else if (level && l->v->pending)
			avr_clear_interrupt(avr, l->v);  /* the request went with the level */
		return;
	}
	uint8_t s = sense(l);
	int hit = l->isc[1].reg ? (s == 1 || (s == 2 && !level) || (s == 3 && level))
				: (s ? level : !level);
	if (!hit)
		return;
	if (x->io_stopped && !l->async) {
		if (!x->edge_asleep) {
			x->edge_asleep = l;
			x->edge_mode = x->mode;
			x->edge_level = level;
		}
		return;
	}
	avr_raise_interrupt(avr, l->v);
}

/* ---- the pins ------------------------------------------------------- */

static void pin_notify(avr_irq_t *irq, uint32_t value, void *param)
{
	pin_rec *r = param;
	extint *x = r->x;
	uint8_t level = value & 1;
	if (level == (irq->value & 1))
		return;
	if (r->line >= 0)
		line_change(&x->line[r->line], level);
	if (r->grp >= 0) {
		pc_group *g = &x->grp[r->grp];
		if (x->avr->data[g->pcmsk] >> r->pcbit & 1)
			avr_raise_interrupt(x->avr, g->v);
	}
}

/* ---- the registers -------------------------------------------------- */

static uint8_t bits_at(avr_regbit_t rb, uint16_t addr)
{
	return reghook_bits(rb, addr);
}

/* A write of a register that holds sense bits, enables, flags or a pin
 * change mask of ours. */
static void reg_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	extint *x = reghook_ud(h);
	uint8_t old = avr->data[addr], flags = 0;
	for (unsigned i = 0; i < x->nline; i++)
		flags |= bits_at(x->line[i].v->raised, addr);
	for (unsigned i = 0; i < x->ngrp; i++)
		flags |= bits_at(x->grp[i].v->raised, addr);
	if (flags) {
		/* A flag written 1 is cleared with its pending interrupt; the
		 * flags keep their own values otherwise. */
		uint8_t ones = reghook_flags_written(x->regs, avr, addr, v) & flags;
		for (unsigned i = 0; i < x->nline; i++)
			if (ones & bits_at(x->line[i].v->raised, addr))
				avr_clear_interrupt(avr, x->line[i].v);
		for (unsigned i = 0; i < x->ngrp; i++)
			if (ones & bits_at(x->grp[i].v->raised, addr))
				avr_clear_interrupt(avr, x->grp[i].v);
		v = (uint8_t)((v & ~flags) | (avr->data[addr] & flags));
	}
	reghook_next_write(h, avr, addr, v);
	for (unsigned i = 0; i < x->nline; i++) {
		ext_line *l = &x->line[i];
		uint8_t en = bits_at(l->v->enable, addr), isc = bits_at(l->isc[0], addr);
		if (!en && !isc && !bits_at(l->isc[1], addr))
			continue;
		if (level_mode(l)) {
			/* INTFn is always clear in level mode; the level decides. */
			if (avr_regbit_get(avr, l->v->raised))
				avr_clear_interrupt(avr, l->v);
			if (level_requested(l))
				level_start(l);
			continue;
		}
		if (!l->isc[1].reg && isc && ((old ^ avr->data[addr]) & isc) &&
		    enabled(avr, l->v) && !x->isc2)
			x->isc2 = l;
		if (en && !(old & en) && (avr->data[addr] & en) && avr_regbit_get(avr, l->v->raised))
			avr_raise_interrupt(avr, l->v);
	}
	for (unsigned i = 0; i < x->ngrp; i++) {
		pc_group *g = &x->grp[i];
		uint8_t en = bits_at(g->v->enable, addr);
		if (en && !(old & en) && (avr->data[addr] & en) && avr_regbit_get(avr, g->v->raised))
			avr_raise_interrupt(avr, g->v);
	}
}

/* ---- clocks, reset, check ------------------------------------------- */

static void extint_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	(void)was;
	extint *x = self;
	x->io_stopped = !(c->running & CLOCK_IO);
	x->mode = c->mode;
}

/* After simavr reset the chip (its cycle timers, the polls among them,
 * cancelled; the registers 0): every clock runs. */
static void extint_reset(void *self)
{
	extint *x = self;
	x->io_stopped = 0;
	x->mode = SLEEP_AWAKE;
}

static const char *mode_name(sleep_mode m)
{
	switch (m) {
	case SLEEP_IDLE: return "idle";
	case SLEEP_ADC_NOISE: return "ADC noise reduction";
	case SLEEP_POWER_DOWN: return "power-down";
	case SLEEP_POWER_SAVE: return "power-save";
	case SLEEP_STANDBY: return "standby";
	case SLEEP_EXT_STANDBY: return "extended standby";
	default: return "a sleep mode";
	}
}

static const char *reg_name(const extint *x, uint16_t addr, const char *fallback)
{
	const char *n = ioregs_name(x->names, addr);
	return n ? n : fallback;
}

static void extint_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
			 void *ud)
{
	extint *x = self;
	char text[600];
	static const char *const edge[] = { "low level", "any change", "falling edge",
					    "rising edge" };
	if (x->edge_asleep && periph_first(warned, W_EDGE_ASLEEP)) {
		const ext_line *l = x->edge_asleep;
		snprintf(text, sizeof text, "extint: %s selects INT%u's %s, and P%c%u went %s while "
			 "the CPU slept in %s, where clk_IO is stopped: the chip sees INT%u's edges "
			 "only with clk_IO running (only its low level wakes it), so neither it nor "
			 "avrr took one; when the clock runs again the chip's sampled edge detector "
			 "may take the new level for an edge, avrr does not",
			 reg_name(x, l->isc[0].reg, "its sense control register"), l->n,
			 edge[sense(l) & 3], l->port, l->bit, x->edge_level ? "high" : "low",
			 mode_name(x->edge_mode), l->n);
		warn(ud, text);
	}
	if (x->level_wake && periph_first(warned, W_LEVEL_WAKE)) {
		const ext_line *l = x->level_wake;
		snprintf(text, sizeof text, "extint: INT%u's low level (%s) woke the CPU from %s: "
			 "the chip takes INT%u only if P%c%u is still low at the end of its start-up "
			 "time (the SUT and CKSEL fuses); avrr takes it once awake, whether or not "
			 "the level lasted", l->n,
			 reg_name(x, l->isc[0].reg, "its sense control register"),
			 mode_name(x->wake_mode), l->n, l->port, l->bit);
		warn(ud, text);
	}
	if (x->isc2 && periph_first(warned, W_ISC2)) {
		const ext_line *l = x->isc2;
		snprintf(text, sizeof text, "extint: %s changed ISC%u with INT%u enabled in %s: the "
			 "chip can raise INT%u on that write (its datasheet: disable INT%u first), "
			 "avrr raises none", reg_name(x, l->isc[0].reg, "MCUCSR"), l->n, l->n,
			 reg_name(x, l->v->enable.reg, "GICR"), l->n, l->n);
		warn(ud, text);
	}
	if (x->floating && periph_first(warned, W_FLOATING)) {
		const ext_line *l = x->floating;
		snprintf(text, sizeof text, "extint: INT%u's low level (%s) was taken on P%c%u, an "
			 "input nothing drives (no stimulus, no pull-up): its level is undefined on "
			 "the chip; avrr holds it at the level it last had, low, so INT%u is "
			 "requested for as long as it is enabled", l->n,
			 reg_name(x, l->isc[0].reg, "its sense control register"), l->port, l->bit,
			 l->n);
		warn(ud, text);
	}
}

static const periph_ops EXTINT_OPS = {
	.name = "extint",
	.reset = extint_reset,
	.check = extint_check,
	.clocks = extint_clocks,
};

/* ---- set-up --------------------------------------------------------- */

/* The vector named `name` on this part, or 0. */
static uint8_t vector_named(const mcu_names *names, const char *name)
{
	for (unsigned v = 1; v < 128; v++) {
		const char *n = ioregs_vector_name(names, v);
		if (n && !strcmp(n, name))
			return (uint8_t)v;
	}
	return 0;
}

static int prefix(const char *mcu, const char *p)
{
	return !strncmp(mcu, p, strlen(p));
}

static pin_rec *pin_of(extint *x, char port, uint8_t bit)
{
	for (unsigned i = 0; i < x->npin; i++)
		if (x->pin[i].port == port && x->pin[i].bit == bit)
			return &x->pin[i];
	if (x->npin == PINS)
		return NULL;
	pin_rec *r = &x->pin[x->npin++];
	*r = (pin_rec){ .x = x, .line = -1, .grp = -1, .port = port, .bit = bit };
	return r;
}

static avr_irq_t *pin_irq(avr_t *avr, char port, uint8_t bit)
{
	return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}

/* INTn from simavr's description; INT2 of the ATmega164/324/644/1284 is
 * on PB2 (simavr 1.6: PB3). */
static void find_lines(extint *x, avr_extint_t *e, const char *mcu)
{
	int eicra = ioregs_addr(x->names, "EICRA"), eicrb = ioregs_addr(x->names, "EICRB");
	int x4 = prefix(mcu, "atmega164") || prefix(mcu, "atmega324") ||
		 prefix(mcu, "atmega644") || prefix(mcu, "atmega1284");
	for (unsigned n = 0; n < EXTINT_COUNT; n++) {
		if (!e->eint[n].port_ioctl || !e->eint[n].vector.vector)
			continue;
		ext_line *l = &x->line[x->nline];
		*l = (ext_line){ .x = x, .v = &e->eint[n].vector, .n = (uint8_t)n,
				 .port = (char)(e->eint[n].port_ioctl & 0xff),
				 .bit = e->eint[n].port_pin };
		l->isc[0] = e->eint[n].isc[0];
		l->isc[1] = e->eint[n].isc[1];
		if (x4 && n == 2)
			l->bit = 2;
		l->async = !l->isc[1].reg || (eicrb >= 0 && l->isc[0].reg == (unsigned)eicra);
		l->pin = pin_irq(x->avr, l->port, l->bit);
		pin_rec *r = l->pin ? pin_of(x, l->port, l->bit) : NULL;
		if (!r)
			continue;
		r->line = (int8_t)x->nline++;
	}
}

static pc_group *group_of(extint *x, uint16_t pcmsk)
{
	for (unsigned i = 0; i < x->ngrp; i++)
		if (x->grp[i].pcmsk == pcmsk)
			return &x->grp[i];
	return NULL;
}

static void add_pins(extint *x, pc_group *g, char port, uint8_t first, uint8_t n, uint8_t pcbit)
{
	for (uint8_t b = first; b < first + n; b++, pcbit++) {
		pin_rec *r = pin_irq(x->avr, port, b) ? pin_of(x, port, b) : NULL;
		if (r) {
			r->grp = (int8_t)(g - x->grp);
			r->pcbit = pcbit;
		}
	}
}

/* PCINTn of group g, a vector of our own where simavr has none: PCIEn in
 * PCICR, PCIFn in PCIFR. */
static pc_group *own_group(extint *x, unsigned g)
{
	char name[16];
	snprintf(name, sizeof name, "PCMSK%u", g);
	int pcmsk = ioregs_addr(x->names, name);
	int pcicr = ioregs_addr(x->names, "PCICR"), pcifr = ioregs_addr(x->names, "PCIFR");
	snprintf(name, sizeof name, "PCINT%u_vect", g);
	uint8_t vec = vector_named(x->names, name);
	if (pcmsk < 0 || pcicr < 0 || pcifr < 0 || !vec)
		return NULL;
	pc_group *have = group_of(x, (uint16_t)pcmsk);
	if (have || x->ngrp == GROUPS)
		return have;
	pc_group *p = &x->grp[x->ngrp++];
	p->own = (avr_int_vector_t){ .vector = vec, .enable = AVR_IO_REGBIT(pcicr, g),
				     .raised = AVR_IO_REGBIT(pcifr, g) };
	p->v = &p->own;
	p->pcmsk = (uint16_t)pcmsk;
	p->g = (uint8_t)g;
	avr_register_vector(x->avr, p->v);
	return p;
}

/* PCINTn from simavr's description (each port with a mask register is
 * one group, its pins its bits), with the ATmega2560/1280/1281's groups
 * 1 and 2 that simavr 1.6 lacks (their datasheets' pin tables). */
static void find_groups(extint *x, const char *mcu)
{
	for (avr_io_t *io = NULL; (io = periph_next_io(x->avr, io, "port"));) {
		avr_ioport_t *port = (avr_ioport_t *)io;
		if (!port->r_pcint || !port->pcint.vector || x->ngrp == GROUPS)
			continue;
		pc_group *g = &x->grp[x->ngrp++];
		*g = (pc_group){ .v = &port->pcint, .pcmsk = port->r_pcint };
		const char *vn = ioregs_vector_name(x->names, port->pcint.vector);
		unsigned n = 0;
		if (vn && sscanf(vn, "PCINT%u_vect", &n) == 1)
			g->g = (uint8_t)n;
		add_pins(x, g, port->name, 0, 8, 0);
		/* simavr's own raise is replaced by pin_notify's. */
		port->r_pcint = 0;
	}
	if (!strcmp(mcu, "atmega2560") || !strcmp(mcu, "atmega1280") ||
	    !strcmp(mcu, "atmega1281")) {
		pc_group *g1 = own_group(x, 1), *g2 = own_group(x, 2);
		if (g1) {
			add_pins(x, g1, 'E', 0, 1, 0);  /* PCINT8 */
			add_pins(x, g1, 'J', 0, 7, 1);  /* PCINT15:9 */
		}
		if (g2)
			add_pins(x, g2, 'K', 0, 8, 0);  /* PCINT23:16 */
	}
}

/* Only level changes of the port pins reach their listeners, the first
 * drive included: simavr 1.6 passes the first raise of a pin IRQ even at
 * the level it has (IRQ_FLAG_INIT). */
static void filter_first(avr_t *avr)
{
	for (avr_io_t *io = NULL; (io = periph_next_io(avr, io, "port"));)
		if (io->irq)
			for (int i = IOPORT_IRQ_PIN0; i <= IOPORT_IRQ_PIN7; i++)
				io->irq[i].flags &= ~IRQ_FLAG_INIT;
}

static void add_reg(uint16_t *reg, unsigned *n, uint16_t r)
{
	for (unsigned i = 0; i < *n; i++)
		if (reg[i] == r)
			return;
	if (r && *n < REGS)
		reg[(*n)++] = r;
}

int extint_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	filter_first(avr);
	extint *x = calloc(1, sizeof *x);
	if (!x)
		return avrr_errf(err, "out of memory");
	*x = (extint){ .avr = avr, .regs = ctx->regs, .names = ctx->names,
		       .ports = periphs_find(p, "ports"), .mode = SLEEP_AWAKE };
	if (periphs_add(p, &EXTINT_OPS, x, err))
		return -1;
	avr_extint_t *e = (avr_extint_t *)periph_next_io(avr, NULL, "extint");
	if (e) {
		find_lines(x, e, ctx->mcu);
		/* simavr's edge and level code, and its reset, which would
		 * listen to the pins again. */
		periph_cut_simavr(avr, e, sizeof *e, e->io.irq, EXTINT_COUNT);
		e->io.reset = NULL;
	}
	find_groups(x, ctx->mcu);
	for (unsigned i = 0; i < x->npin; i++)
		avr_irq_register_notify(pin_irq(avr, x->pin[i].port, x->pin[i].bit), pin_notify,
					&x->pin[i]);
	uint16_t reg[REGS];
	unsigned nreg = 0;
	for (unsigned i = 0; i < x->nline; i++) {
		const ext_line *l = &x->line[i];
		add_reg(reg, &nreg, l->isc[0].reg);
		add_reg(reg, &nreg, l->isc[1].reg);
		add_reg(reg, &nreg, l->v->enable.reg);
		add_reg(reg, &nreg, l->v->raised.reg);
	}
	for (unsigned i = 0; i < x->ngrp; i++) {
		add_reg(reg, &nreg, x->grp[i].v->enable.reg);
		add_reg(reg, &nreg, x->grp[i].v->raised.reg);
		add_reg(reg, &nreg, x->grp[i].pcmsk);
	}
	for (unsigned i = 0; i < nreg; i++) {
		/* The sense bits, the enables and the flags are decided here;
		 * a mask register is only looked at. */
		uint8_t owns = 0;
		for (unsigned k = 0; k < x->nline; k++) {
			const ext_line *l = &x->line[k];
			owns |= bits_at(l->isc[0], reg[i]) | bits_at(l->isc[1], reg[i]) |
				bits_at(l->v->enable, reg[i]) | bits_at(l->v->raised, reg[i]);
		}
		for (unsigned k = 0; k < x->ngrp; k++)
			owns |= bits_at(x->grp[k].v->enable, reg[i]) |
				bits_at(x->grp[k].v->raised, reg[i]);
		if (!reghook_write(ctx->regs, reg[i], owns, "the external interrupts", reg_write, x,
				   err))
			return -1;
	}
	return 0;
}
