/*
 * periph_port.c — the I/O ports: the level at each pin, what PINx reads
 * and the CPU's writes of PORTx, DDRx and PINx, the pull-ups, and the
 * level each pin is driven to, for waveforms (sim_observe_pins).
 *
 * A pin's level (the datasheet's "Configuring the Pin", Table 14-1 of the
 * ATmega328P, and "Reading the Pin Value"), at its input buffer:
 *  - an output (DDxn 1) is the chip's: PORTxn, or the compare output OCnx
 *    where a timer owns the pin (COMnx not "disconnected" for the timer's
 *    mode), which the timer model keeps (periph_timer.c) and reports at
 *    the exact cycle it changes; a stimulus on an output pin loses (the
 *    chip's drivers would fight: warned);
 *  - an input the outside world drives (the stimuli, ports_drive) is the
 *    driven level, whatever PORTxn: the internal pull-up is a weak
 *    resistor, any driver overcomes it;
 *  - an input nothing drives is pulled high while PORTxn is 1 and PUD
 *    (MCUCR; SFIOR bit 2 on the ATmega8/16/32/128) is 0;
 *  - else it floats: the chip leaves its level undefined; here it keeps
 *    the level it last had (the pin's charge), low after power-on, so
 *    letting go of a pin makes no edge.
 * The level is raised on simavr's pin IRQ whenever it changes, and only
 * then: simavr's PINx bit follows it, and the pin change and external
 * interrupts (periph_extint.c), the SPI's SS and the timers' input capture
 * listen there.  simavr 1.6 instead raised every input with PORTxn set
 * high at each write of PORTx or DDRx, over whatever drove it: a button
 * held low read high again after any PORTx write (a thousand wrong reads
 * in a polling loop, and pin change interrupts for edges no one made);
 * and it ignored PUD.  So PORTx and DDRx writes are taken over here.
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
 * read-only PINx: their writes do nothing.  A read of PINx gives an
 * output pin's level: OCnx where a timer owns it, where simavr 1.6 gives
 * PORTxn.
 *
 * What is observed (sim_observe_pins) is what the chip drives: an input
 * is undriven.  PORTx, DDRx and the timers' registers are hooked from
 * sim_open on, whether or not anyone observes, so that a run observed and
 * one not are the same run.  After a chip reset every pin is an input
 * again, and PINx (cleared by simavr's reset) is read from the levels.
 */
#include "sim/periph.h"
#include "sim/sim_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_ioport.h>
#include <avr_timer.h>
#include <sim_avr.h>
#include <sim_io.h>

enum { PORTS = 16 };

/* What the check says once (periph_ops.check's `warned`). */
enum { W_FIGHT = 1u << 0, W_DIDR = 1u << 1 };

typedef struct pin_port {
	struct ports *ports;
	avr_ioport_t *io;
	uint8_t level[8];            /* SIM_PIN_*, as last reported */
	avr_timer_t *oc_timer[8];    /* the timer whose compare output this pin is, or NULL */
	uint8_t oc_comp[8];
	uint8_t oc_pins;             /* the pins that are a compare output */
	uint8_t ext_mask;            /* the pins the outside world drives now */
	uint8_t ext_level;           /* ... to these levels */
	uint8_t wired;               /* the pins a stimulus is connected to */
} pin_port;

typedef struct ports {
	avr_io_t io;                 /* "avrr ports" in simavr's list: ports_of */
	avr_t *avr;
	const mcu_names *names;
	int pins_read_only;          /* PINx cannot be written on this part */
	pin_port port[PORTS];
	unsigned nports;
	avr_regbit_t pud;            /* MCUCR's (SFIOR's) PUD; reg 0: none */
	timers *timers;              /* the compare outputs' model */
	void (*fn)(void *ud, const sim_pin_change *c);
	void *ud;
	/* For the record-time warnings: a stimulus against an output, and a
	 * digital input buffer disabled. */
	char fight_port;
	uint8_t fight_bit, fight_chip;
	uint16_t didr_reg;
	uint8_t didr_value;
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

/* What the chip drives pin `bit` to: SIM_PIN_UNDRIVEN for an input. */
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

static int pud_set(const ports *ps)
{
	return ps->pud.reg && avr_regbit_get(ps->avr, ps->pud);
}

/* The levels at the pins' input buffers now, as simavr's pin IRQs hold
 * them. */
static uint8_t held(const pin_port *pp)
{
	uint8_t v = 0;
	for (unsigned b = 0; b < 8; b++)
		v |= (uint8_t)((pp->io->io.irq[b].value & 1) << b);
	return v;
}

/* The levels the pins of pp should have (see the header note). */
static uint8_t inputs(const ports *ps, const pin_port *pp)
{
	const avr_t *avr = ps->avr;
	uint8_t ddr = avr->data[pp->io->r_ddr], port = avr->data[pp->io->r_port];
	uint8_t out = 0;
	for (unsigned b = 0; b < 8; b++)
		if (ddr >> b & 1)
			out |= (uint8_t)(level_of(ps, pp, b) << b);
	uint8_t ext = pp->ext_mask & ~ddr;
	uint8_t pulled = pud_set(ps) ? 0 : port & ~ddr & ~ext;
	uint8_t floating = (uint8_t)~(ddr | ext | pulled);
	return (uint8_t)(out | (pp->ext_level & ext) | pulled | (held(pp) & floating));
}

/* Raises each pin of pp whose level changed on its IRQ: simavr's PINx bit
 * and every listener (pin change and external interrupts, SS, ICP) follow. */
static void settle(ports *ps, pin_port *pp)
{
	uint8_t want = inputs(ps, pp), now = held(pp);
	uint8_t fight = pp->ext_mask & ps->avr->data[pp->io->r_ddr] & (pp->ext_level ^ want);
	if (fight && !ps->fight_port) {
		unsigned b = 0;
		while (!(fight >> b & 1))
			b++;
		ps->fight_port = pp->io->name;
		ps->fight_bit = (uint8_t)b;
		ps->fight_chip = want >> b & 1;
	}
	for (unsigned b = 0; b < 8; b++)
		if ((want ^ now) >> b & 1)
			avr_raise_irq(pp->io->io.irq + b, want >> b & 1);
}

static void settle_all(ports *ps)
{
	for (unsigned i = 0; i < ps->nports; i++)
		settle(ps, &ps->port[i]);
}

/* Reports each pin of the port whose driven level changed, as of `cycle`. */
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

/* A CPU write of PORTx or DDRx: stored, and the pins follow.  simavr's
 * write is not called: it would pull every input with PORTxn set high
 * over its driver.  The write lands at the cycle its instruction starts
 * (simavr adds an instruction's cycles after it executes). */
static void port_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	pin_port *pp = reghook_ud(h);
	avr->data[addr] = v;
	settle(pp->ports, pp);
	refresh(pp->ports, pp, avr->cycle);
}

/* PUD: every pull-up of the chip on or off. */
static void pud_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	ports *ps = reghook_ud(h);
	int was = pud_set(ps);
	reghook_next_write(h, avr, addr, v);
	if (pud_set(ps) != was)
		settle_all(ps);
}

/* DIDRn: the digital input buffers it disables are not modelled (the
 * check says so). */
static void didr_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	ports *ps = reghook_ud(h);
	reghook_next_write(h, avr, addr, v);
	if (v && !ps->didr_reg) {
		ps->didr_reg = addr;
		ps->didr_value = v;
	}
}

/* A CPU write to a timer register: COMnx may hand a pin to the timer or
 * back to PORTxn. */
static void timer_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	ports *ps = reghook_ud(h);
	reghook_next_write(h, avr, addr, v);
	settle_all(ps);
	refresh_all(ps, avr->cycle);
}

/* A compare output changed (the timer model's report, at its exact
 * cycle). */
static void on_oc(void *ud, uint64_t cycle)
{
	settle_all(ud);
	refresh_all(ud, cycle);
}

/* ---- the outside world ---------------------------------------------- */

static pin_port *port_named(ports *ps, char name)
{
	for (unsigned i = 0; i < ps->nports; i++)
		if (ps->port[i].io->name == name)
			return &ps->port[i];
	return NULL;
}

struct ports *ports_of(struct avr_t *avr)
{
	avr_io_t *io = periph_next_io(avr, NULL, "avrr ports");
	return io ? (ports *)((char *)io - offsetof(ports, io)) : NULL;
}

void ports_wire(struct ports *ps, char port, unsigned bit)
{
	pin_port *pp = port_named(ps, port);
	if (pp && bit < 8)
		pp->wired |= (uint8_t)(1u << bit);
}

void ports_drive(struct ports *ps, char port, unsigned bit, int level)
{
	pin_port *pp = port_named(ps, port);
	if (!pp || bit >= 8)
		return;
	uint8_t m = (uint8_t)(1u << bit);
	if (level < 0) {
		pp->ext_mask &= (uint8_t)~m;
	} else {
		pp->ext_mask |= m;
		pp->ext_level = (uint8_t)(level ? pp->ext_level | m : pp->ext_level & ~m);
	}
	settle(ps, pp);
}

int ports_floating(const struct ports *ps, char port, unsigned bit)
{
	const pin_port *pp = NULL;
	for (unsigned i = 0; i < ps->nports; i++)
		if (ps->port[i].io->name == port)
			pp = &ps->port[i];
	if (!pp || bit >= 8)
		return 0;
	const avr_t *avr = ps->avr;
	uint8_t m = (uint8_t)(1u << bit);
	if ((avr->data[pp->io->r_ddr] | pp->ext_mask | pp->wired) & m)
		return 0;
	return !(avr->data[pp->io->r_port] & m) || pud_set(ps);
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

/* After simavr reset the chip: every pin an input, PINx (cleared by the
 * reset) read from the levels again; the outside world keeps driving. */
static void ports_reset(void *self)
{
	ports *ps = self;
	settle_all(ps);
	for (unsigned i = 0; i < ps->nports; i++)
		ps->avr->data[ps->port[i].io->r_pin] = held(&ps->port[i]);
	refresh_all(ps, ps->avr->cycle);
}

static const char *reg_name(const ports *ps, uint16_t addr, const char *fallback)
{
	const char *n = ioregs_name(ps->names, addr);
	return n ? n : fallback;
}

static void ports_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
			void *ud)
{
	ports *ps = self;
	char text[512];
	if (ps->fight_port && periph_first(warned, W_FIGHT)) {
		char name[8];
		snprintf(name, sizeof name, "DDR%c", ps->fight_port);
		snprintf(text, sizeof text, "the pins: %s makes P%c%u an output driven %s while the "
			 "stimuli drive it %s: on the chip the two drivers fight (a short, the level "
			 "undefined); avrr gives the chip's output", name, ps->fight_port,
			 ps->fight_bit, ps->fight_chip ? "high" : "low",
			 ps->fight_chip ? "low" : "high");
		warn(ud, text);
	}
	if (ps->didr_reg && periph_first(warned, W_DIDR)) {
		snprintf(text, sizeof text, "the pins: %s = 0x%02x disables digital input buffers, "
			 "which avrr does not model: the pins' PINx bits read their levels where the "
			 "chip's read 0", reg_name(ps, ps->didr_reg, "DIDR"), ps->didr_value);
		warn(ud, text);
	}
}

static const periph_ops PORT_OPS = {
	.name = "ports",
	.reset = ports_reset,
	.check = ports_check,
};

/* Where PUD is (the datasheets' register summaries): bit 2 of SFIOR on
 * the parts that have one (ATmega8/16/32/128); else MCUCR, bit 7 on the
 * ATtiny2313/4313, 6 on the other ATtinys, 4 on the megas. */
static avr_regbit_t pud_of(const mcu_names *names, const char *mcu)
{
	int sfior = ioregs_addr(names, "SFIOR"), mcucr = ioregs_addr(names, "MCUCR");
	if (sfior >= 0)
		return (avr_regbit_t)AVR_IO_REGBIT(sfior, 2);
	if (mcucr < 0)
		return (avr_regbit_t){ 0 };
	if (!strncmp(mcu, "attiny2313", 10) || !strncmp(mcu, "attiny4313", 10))
		return (avr_regbit_t)AVR_IO_REGBIT(mcucr, 7);
	if (!strncmp(mcu, "attiny", 6))
		return (avr_regbit_t)AVR_IO_REGBIT(mcucr, 6);
	return (avr_regbit_t)AVR_IO_REGBIT(mcucr, 4);
}

int ports_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	ports *ps = calloc(1, sizeof *ps);
	if (!ps)
		return avrr_errf(err, "out of memory");
	ps->avr = avr;
	ps->names = ctx->names;
	ps->pins_read_only = reghook_rmw_part(ctx->mcu);
	ps->pud = pud_of(ctx->names, ctx->mcu);
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
		    !reghook_write(ctx->regs, port->r_port, 0xff, "the pins", port_write, pp, err) ||
		    !reghook_write(ctx->regs, port->r_ddr, 0xff, "the pins", port_write, pp, err))
			return -1;
	}
	if (ps->pud.reg && !reghook_write(ctx->regs, ps->pud.reg, periph_bits(ps->pud), "the pins",
					  pud_write, ps, err))
		return -1;
	static const char *const didr[] = { "DIDR0", "DIDR1", "DIDR2" };
	for (unsigned i = 0; i < sizeof didr / sizeof *didr; i++) {
		int a = ioregs_addr(ctx->names, didr[i]);
		if (a >= 0 && !reghook_write(ctx->regs, (uint16_t)a, 0, "the pins", didr_write, ps,
					     err))
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
	/* The outside world finds the pins through simavr's list (ports_of). */
	ps->io = (avr_io_t){ .kind = "avrr ports" };
	avr_register_io(avr, &ps->io);
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
