/*
 * stim_bus.c — the stimuli's I2C and SPI slave devices (stim_bus.h,
 * docs/stimuli.md): register maps that answer a firmware's reads and take
 * its writes, as the common sensors do, so that a recording of firmware
 * talking to a sensor holds what it would read.
 *
 * I2C.  simavr 1.6's TWI master tells the bus what it does in messages on
 * TWI_IRQ_OUTPUT (avr_twi_msg_irq_t): START carrying the address byte
 * when it sends SLA+R/W, WRITE with each byte it sends, READ for each byte
 * it clocks in, STOP.  It takes the slave's answer while the message is
 * being raised: an ACK message on TWI_IRQ_INPUT acknowledges the address
 * or the byte (no answer is a NACK: TWSR 0x20 after SLA+W, 0x48 after
 * SLA+R, 0x30 after a byte), and a READ message puts its byte in TWDR.
 * The statuses' codes and times are periph_twi.c's.  A device here
 * acknowledges its own address and every byte written to it; the first
 * byte after SLA+W sets its register pointer, the next ones store at the
 * pointer, and reads (after a repeated START and SLA+R, or in a transfer
 * of their own) give the registers from the pointer on, each byte moving
 * it on by one (0xff wraps to 0x00).  Several devices share the bus, each
 * at its address; an address nobody has is not acknowledged.
 *
 * SPI.  periph_spi.c raises SPI_IRQ_OUTPUT with each byte the master has
 * shifted out, at the end of its transfer, and takes what is raised on
 * SPI_IRQ_INPUT meanwhile as the byte shifted in.  A device listens to its
 * chip-select pin (active low: a falling level selects it, a rising one
 * ends the transfer); while selected, the first byte is the register
 * address, its bit 7 saying read or write as the file states, and answers
 * the fill byte; each next byte of a read answers the register at the
 * pointer, of a write stores there and answers the fill byte, the pointer
 * moving on by one (0x7f wraps to 0x00).  Where two selected devices would
 * drive MISO at once, the first in the file answers (the bus's contention
 * is not modelled); where none is selected, no one answers and the SPI
 * model reads MISO's level.
 *
 * Neither bus drives its pins: the bytes reach the data registers without
 * SDA, SCL, MOSI or MISO changing level (simavr's TWI and avrr's SPI
 * exchange bytes, not waveforms); the chip-select pin is the firmware's
 * own output, which the device only watches.
 */
#include "sim/stim_bus.h"

#include "sim/periph.h"

#include <stdlib.h>
#include <string.h>

#include <avr_ioport.h>
#include <avr_spi.h>
#include <avr_twi.h>
#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>

/* A device's mutable state, in the stimuli's state block (plain data). */
struct bus_dstate {
	uint8_t regs[BUS_I2C_REGS];
	uint8_t ptr;             /* the register pointer */
	uint8_t selected;        /* I2C: addressed since the last START; SPI: CS low */
	uint8_t first;           /* I2C: the next byte written sets the pointer;
				    SPI: the next byte is the address */
	uint8_t reading;         /* the transfer reads */
	uint8_t cs;              /* SPI: CS's level as last seen */
	uint8_t pad[3];
};

/* What a chip-select listener needs to find its device. */
struct cs_ref {
	stim_bus *b;
	size_t i;
	avr_irq_t *pin;          /* the pin's IRQ; NULL for an I2C device */
};

struct stim_bus {
	struct avr_t *avr;
	const bus_dev *dev;
	size_t n;
	struct bus_dstate *st;   /* [n], in the state block */
	avr_twi_t *twi;          /* NULL when no device is on I2C */
	avr_spi_t *spi;          /* NULL when no device is on SPI */
	struct cs_ref *cs;       /* [n], for the SPI devices' pins */
};

size_t stim_bus_state_size(size_t n)
{
	return n * sizeof(struct bus_dstate);
}

/* ---- I2C ------------------------------------------------------------ */

static void twi_answer(stim_bus *b, uint8_t msg, uint8_t sla, uint8_t data)
{
	avr_raise_irq(b->twi->io.irq + TWI_IRQ_INPUT, avr_twi_irq_msg(msg, sla, data));
}

static void on_twi_output(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	stim_bus *b = param;
	/* A chip that is itself a slave sends a slave's messages: no master
	 * talks to our devices then. */
	if (b->twi->state & TWI_COND_SLAVE)
		return;
	avr_twi_msg_irq_t m;
	m.u.v = value;
	uint8_t msg = m.u.twi.msg, sla = m.u.twi.addr, data = m.u.twi.data;
	if (msg & TWI_COND_STOP) {
		for (size_t i = 0; i < b->n; i++)
			if (b->dev[i].kind == BUS_I2C)
				b->st[i].selected = 0;
		return;
	}
	if (msg & TWI_COND_START) {
		/* An address byte: a START, repeated or not, begins a transfer
		 * for every device, and the one addressed acknowledges. */
		int acked = 0;
		for (size_t i = 0; i < b->n; i++) {
			if (b->dev[i].kind != BUS_I2C)
				continue;
			struct bus_dstate *st = &b->st[i];
			st->selected = b->dev[i].addr == sla >> 1;
			if (st->selected) {
				st->reading = sla & 1;
				st->first = !st->reading;
				acked = 1;
			}
		}
		if (acked)
			twi_answer(b, TWI_COND_ACK, sla, 1);
		return;
	}
	for (size_t i = 0; i < b->n; i++) {
		struct bus_dstate *st = &b->st[i];
		if (b->dev[i].kind != BUS_I2C || !st->selected || b->dev[i].addr != sla >> 1)
			continue;
		if ((msg & TWI_COND_WRITE) && !st->reading) {
			if (st->first) {
				st->first = 0;
				st->ptr = data;
			} else {
				st->regs[st->ptr++] = data;
			}
			twi_answer(b, TWI_COND_ACK, sla, 1);
		} else if ((msg & TWI_COND_READ) && st->reading) {
			twi_answer(b, TWI_COND_READ, sla, st->regs[st->ptr++]);
		}
		return;
	}
}

/* ---- SPI ------------------------------------------------------------ */

/* Device i's answer to the byte the master shifted out to it. */
static uint8_t spi_transfer(stim_bus *b, size_t i, uint8_t byte)
{
	const bus_dev *d = &b->dev[i];
	struct bus_dstate *st = &b->st[i];
	if (st->first) {
		st->first = 0;
		st->reading = !!(byte & 0x80) == !!d->read_set;
		st->ptr = byte & (BUS_SPI_REGS - 1);
		return d->fill;
	}
	uint8_t at = st->ptr;
	st->ptr = (uint8_t)((at + 1) & (BUS_SPI_REGS - 1));
	if (st->reading)
		return st->regs[at];
	st->regs[at] = byte;
	return d->fill;
}

static void on_spi_output(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	stim_bus *b = param;
	/* In slave mode the chip's bytes go to a master, not to our slaves. */
	if (!(b->avr->data[b->spi->r_spcr] & periph_bits(b->spi->mstr)))
		return;
	int answered = 0;
	uint8_t answer = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (b->dev[i].kind != BUS_SPI || !b->st[i].selected)
			continue;
		uint8_t out = spi_transfer(b, i, (uint8_t)value);
		if (!answered)
			answer = out;
		answered = 1;
	}
	if (answered)
		avr_raise_irq(b->spi->io.irq + SPI_IRQ_INPUT, answer);
}

/* A level on a chip-select pin.  A device starts deselected, as a CS
 * line's pull-up holds it until the firmware drives the pin, and simavr
 * may tell the same level twice (a pin's first drive passes its filter
 * unchanged): only a change from the level last seen counts. */
static void on_cs(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	struct cs_ref *c = param;
	struct bus_dstate *st = &c->b->st[c->i];
	uint8_t level = (value & 0xff) != 0;
	if (level == st->cs)
		return;
	st->cs = level;
	st->selected = !level;
	st->first = 1;
}

/* ---- set-up --------------------------------------------------------- */

static void power_on(stim_bus *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct bus_dstate *st = &b->st[i];
		memset(st, 0, sizeof *st);
		memcpy(st->regs, b->dev[i].regs,
		       b->dev[i].kind == BUS_SPI ? BUS_SPI_REGS : BUS_I2C_REGS);
		st->cs = 1;
	}
}

int stim_bus_attach(struct avr_t *avr, const bus_dev *devs, size_t n, void *state,
		    const char *file, stim_bus **out, avrr_err *err)
{
	*out = NULL;
	stim_bus *b = calloc(1, sizeof *b);
	struct cs_ref *cs = calloc(n ? n : 1, sizeof *cs);
	if (!b || !cs) {
		free(b);
		free(cs);
		return avrr_errf(err, "%s: out of memory", file);
	}
	*b = (stim_bus){ .avr = avr, .dev = devs, .n = n, .st = state, .cs = cs };
	/* Everything is found before anything listens: a script refused
	 * leaves no listener behind on the chip. */
	for (size_t i = 0; i < n; i++) {
		const bus_dev *d = &devs[i];
		const char *lacks = NULL;
		char port[8] = "port ?";
		if (d->kind == BUS_I2C && !b->twi) {
			for (avr_io_t *io = NULL; !b->twi && (io = periph_next_io(avr, io, "twi"));)
				if (((avr_twi_t *)io)->twen.reg)
					b->twi = (avr_twi_t *)io;
			lacks = b->twi ? NULL : "TWI (I2C)";
		} else if (d->kind == BUS_SPI) {
			for (avr_io_t *io = NULL; !b->spi && (io = periph_next_io(avr, io, "spi"));)
				if (((avr_spi_t *)io)->r_spdr)
					b->spi = (avr_spi_t *)io;
			cs[i] = (struct cs_ref){ b, i, avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(d->port),
								   d->bit) };
			port[5] = d->port;
			lacks = !b->spi ? "SPI" : !cs[i].pin ? port : NULL;
		}
		if (lacks) {
			stim_bus_detach(b);
			return avrr_errf(err, "%s:%zu:%zu: this MCU has no %s", file, d->line, d->tcol,
					 lacks);
		}
	}
	power_on(b);
	for (size_t i = 0; i < n; i++)
		if (cs[i].pin)
			avr_irq_register_notify(cs[i].pin, on_cs, &cs[i]);
	if (b->twi)
		avr_irq_register_notify(b->twi->io.irq + TWI_IRQ_OUTPUT, on_twi_output, b);
	if (b->spi)
		avr_irq_register_notify(b->spi->io.irq + SPI_IRQ_OUTPUT, on_spi_output, b);
	*out = b;
	return 0;
}

/* The pins keep the levels simavr holds (it neither floats them nor
 * raises them at a reset, and tells a listener only of a change): a
 * chip-select still low keeps its device selected, so that the firmware's
 * first transfer finds it whether it drives the pin high first or not. */
void stim_bus_reset(stim_bus *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		if (b->dev[i].kind == BUS_SPI)
			b->st[i].first = 1;
		else
			b->st[i].selected = 0;
	}
}

void stim_bus_detach(stim_bus *b)
{
	if (!b)
		return;
	free(b->cs);
	free(b);
}
