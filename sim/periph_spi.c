/*
 * periph_spi.c — the Serial Peripheral Interface as the megaAVR datasheets
 * describe it (ATmega328P §19 "SPI – Serial Peripheral Interface", and
 * the SPI chapters of the ATmega2560 and ATmega16), in place of simavr
 * 1.6's.
 *
 * simavr 1.6 takes 100 µs a byte whatever SPR1:0 and SPI2X say (1,600
 * cycles at 16 MHz where fosc/4 takes 32), clears SPIF on any SPDR access
 * (the datasheet wants SPSR read with SPIF set first), never sets WCOL,
 * lets an SPSR write clear or set SPIF, returns the received byte from
 * the first SPDR read and 0 from every later one, starts a "transfer" on
 * an SPDR write in slave mode too, and knows nothing of SS.  So its SPI
 * code is cut out — its SPDR callbacks, its cycle timer, its reset hook
 * and its listener on the input IRQ — and this model runs from simavr's
 * description of the SPI (avr_spi_t: registers, bits, vector, PRR bit).
 *
 * The outside world talks to it as it talked to simavr's: a device
 * listens to SPI_IRQ_OUTPUT, which carries each byte the chip shifts out,
 * and raises SPI_IRQ_INPUT with the byte it shifts in (during a recording,
 * the stimuli's `spi` devices, sim/stim_bus.c; a stimuli's `spi master`
 * raises SPI_IRQ_INPUT alone, to clock the chip as a slave).
 *
 * The model.  SPDR is two registers: the shift register (`shift`), which
 * a write loads and which goes out, and the receive buffer (`rx`), which
 * every read gives until the next transfer ends.
 *  - Master (SPE and MSTR): an SPDR write starts a transfer of 8 SCK
 *    periods, SCK = fosc / 4, 16, 64, 128 by SPR1:0, twice as fast with
 *    SPI2X: 8·2 .. 8·128 cycles from the write (the rate is taken then).
 *    At its end the byte goes out on SPI_IRQ_OUTPUT; the byte received is
 *    the last one the outside world raised on SPI_IRQ_INPUT since the
 *    previous transfer ended (a device answers from its OUTPUT listener,
 *    or preloads its answer before), else MISO's level on every bit (PINx
 *    as simavr holds it: a pull-up or a stimulus).  Then SPIF rises, and
 *    with SPIE the interrupt.  A write during a transfer is ignored and
 *    sets WCOL.  Clearing SPE or MSTR ends a transfer without SPIF.
 *  - Slave (SPE, MSTR clear): a byte raised on SPI_IRQ_INPUT is a byte
 *    the master has clocked in: the shift register's byte goes out on
 *    SPI_IRQ_OUTPUT at once (the one SPDR was last loaded with, or, not
 *    reloaded, the byte received before: the shift register is circular),
 *    the byte received goes to the receive buffer, and SPIF rises.  With
 *    SS (an input in slave mode) high, the slave ignores the bus.
 *  - SPIF and WCOL are cleared by reading SPSR while they are set and
 *    then accessing SPDR (a read or a write); SPIF also by entering the
 *    vector.  An SPSR write takes SPI2X only; SPIE set while SPIF is
 *    interrupts at once.
 *  - SS in master mode: when SS is an input and the outside world drives
 *    it low (a stimulus, a device), MSTR is cleared and SPIF set (the
 *    datasheet's "SS Pin Functionality"); also when MSTR is set while SS
 *    is held low.  An SS input nobody drives is taken as high (a record-
 *    time warning says so).
 *
 *  - The clock (periph_ops.clocks): the SPI runs on clk_I/O, which every
 *    sleep mode but idle stops, and stops under PRSPI.  Stopped, a master
 *    byte under way stands (no cycle timer left) and ends as many cycles
 *    after the clock runs again as it still had to go; a slave, whose
 *    logic samples SCK with clk_I/O, takes no byte meanwhile.
 *
 * Not modelled, each a record-time warning when it matters: SCK and MOSI
 * on the pins (the waveforms; CPOL, CPHA and DORD shape only them), a
 * clock rate changed in mid-byte, register writes under PRSPI (the chip
 * ignores them), no device answering a master, no master (the stimuli's
 * `spi master`) clocking a slave, the SPI pins of a part avrr has no
 * table for.
 */
#include "sim/periph.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <avr_ioport.h>
#include <avr_spi.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

/* SPCR and SPSR bits, the same on every megaAVR (ATmega328P §19.5);
 * simavr's avr_spi_t names SPE, MSTR, SPR1:0, SPI2X, SPIE and SPIF, not
 * these. */
enum { DORD = 0x20, CPOL = 0x08, CPHA = 0x04, WCOL = 0x40 };

/* What check() has said (its `warned` bits). */
enum {
	W_PINS = 1, W_NO_DEVICE = 2, W_NO_MASTER = 4, W_SS_HIGH = 8, W_SS_FLOATING = 16,
	W_NO_TABLE = 32, W_PRR = 64, W_MIDWAY = 128, W_SLAVE_FROZEN = 256,
};

/* The SPI pins (each datasheet's "Alternate Functions of Port B"). */
typedef struct spi_pins {
	const char *mcus;        /* space-separated, each with a space after */
	char port;
	uint8_t ss, mosi, miso, sck;
} spi_pins;

static const spi_pins PINS[] = {
	{ "atmega8 atmega8l atmega48 atmega48p atmega48pa atmega88 atmega88p atmega88pa "
	  "atmega168 atmega168p atmega168pa atmega328 atmega328p ", 'B', 2, 3, 4, 5 },
	{ "atmega16 atmega32 atmega164 atmega164p atmega164pa atmega324 atmega324p "
	  "atmega324a atmega324pa atmega644 atmega644p atmega1284 atmega1284p ", 'B', 4, 5, 6, 7 },
	{ "atmega128 atmega128l atmega1280 atmega1281 atmega2560 atmega128rfa1 atmega128rfr2 "
	  "atmega32u4 at90usb162 ", 'B', 0, 2, 3, 1 },
};

typedef struct spi {
	/* Our own I/O module in simavr's list: avr_reset calls its reset. */
	avr_io_t io;
	avr_t *avr;
	avr_spi_t *sp;           /* simavr's description of this SPI */
	const char *mcu;
	const mcu_names *names;
	uint16_t spcr, spsr, spdr;
	uint8_t spe, mstr, spie, spif, spi2x, spr0, spr1;
	/* the pins (pins.port 0: no table for this part) */
	spi_pins pins;
	uint16_t pin_reg, ddr_reg, port_reg;
	/* the transfer */
	int busy;                /* a master transfer under way */
	uint8_t shift;           /* the shift register: the byte going out */
	uint8_t rx;              /* the receive buffer: what SPDR reads */
	uint8_t armed;           /* SPIF, WCOL as the last SPSR read saw them */
	int answered;            /* the outside world gave a byte since the last transfer */
	uint8_t answer;
	int ss_low;              /* SS, an input, driven low by the outside world */
	int ss_driven;           /* ... driven at all */
	uint64_t end;            /* the master byte's end */
	/* its clock */
	int frozen;              /* clk_I/O stopped, or PRSPI */
	uint64_t frozen_at;
	/* for check(): what happened that the model takes one way */
	int pins_use, no_device, slave_on, slave_got, ss_high_drop, ss_floating, prr, midway;
	int slave_frozen;
	uint8_t no_device_byte;
} spi;

static spi *of_io(avr_io_t *io)
{
	return (spi *)(void *)((char *)io - offsetof(spi, io));
}

/* ---- transfers ------------------------------------------------------ */

static avr_cycle_count_t on_transfer_end(avr_t *avr, avr_cycle_count_t when, void *param);

/* Cycles a master transfer takes: 8 SCK periods at the rate SPR1:0 and
 * SPI2X select now (Table 19-5: fosc/4, 16, 64, 128; SPI2X halves). */
static unsigned byte_cycles(const spi *s)
{
	static const unsigned DIV[4] = { 4, 16, 64, 128 };
	const uint8_t *d = s->avr->data;
	unsigned spr = (d[s->spcr] & s->spr0 ? 1u : 0u) | (d[s->spcr] & s->spr1 ? 2u : 0u);
	return 8 * (DIV[spr] >> (d[s->spsr] & s->spi2x ? 1 : 0));
}

static void abort_transfer(spi *s)
{
	if (s->busy)
		avr_cycle_timer_cancel(s->avr, on_transfer_end, s);
	s->busy = 0;
}

/* The byte received becomes SPDR's: the receive buffer, and the shift
 * register too (it is what the next byte out is, unless SPDR is written). */
static void receive(spi *s, uint8_t v)
{
	s->rx = v;
	s->shift = v;
	s->avr->data[s->spdr] = v;
}

/* The level MISO holds on every bit when no device answers: PINx as
 * simavr keeps it (a pull-up, a stimulus); 0 on a part without a table. */
static uint8_t miso_byte(const spi *s)
{
	if (!s->pins.port)
		return 0;
	return s->avr->data[s->pin_reg] >> s->pins.miso & 1 ? 0xff : 0x00;
}

static avr_cycle_count_t on_transfer_end(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)when;
	spi *s = param;
	s->busy = 0;
	/* The byte goes out; a device answers from its listener with the
	 * byte it shifted in meanwhile. */
	avr_raise_irq(s->sp->io.irq + SPI_IRQ_OUTPUT, s->shift);
	uint8_t in;
	if (s->answered) {
		in = s->answer;
	} else {
		in = miso_byte(s);
		if (!s->no_device) {
			s->no_device = 1;
			s->no_device_byte = in;
		}
	}
	s->answered = 0;
	receive(s, in);
	avr_raise_interrupt(avr, &s->sp->spi);  /* sets SPIF */
	return 0;
}

static void start_transfer(spi *s)
{
	avr_t *avr = s->avr;
	s->busy = 1;
	s->pins_use = 1;
	s->end = avr->cycle + byte_cycles(s);
	if (!s->frozen)
		avr_cycle_timer_register(avr, s->end - avr->cycle, on_transfer_end, s);
}

/* SS, an input, driven low while the SPI is master: the SPI becomes a
 * slave, and SPIF is set (§19.3.2). */
static void mode_fault(spi *s)
{
	avr_t *avr = s->avr;
	abort_transfer(s);
	avr->data[s->spcr] &= (uint8_t)~s->mstr;
	avr_raise_interrupt(avr, &s->sp->spi);
}

static int is_master(const spi *s)
{
	uint8_t c = s->avr->data[s->spcr];
	return (c & s->spe) && (c & s->mstr);
}

static int ss_is_input(const spi *s)
{
	return s->pins.port && !(s->avr->data[s->ddr_reg] >> s->pins.ss & 1);
}

/* ---- the outside world ---------------------------------------------- */

/* A byte from the outside world on SPI_IRQ_INPUT. */
static void on_input(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	spi *s = param;
	avr_t *avr = s->avr;
	uint8_t c = avr->data[s->spcr];
	if (!(c & s->spe))
		return;
	if (c & s->mstr) {
		/* What the slave shifts out in the current (or next) transfer. */
		s->answer = (uint8_t)value;
		s->answered = 1;
		return;
	}
	/* A slave: the master has clocked a byte in, unless SS deselects
	 * us.  SS undriven reads low in simavr's PINx: selected. */
	if (s->pins.port && (avr->data[s->pin_reg] >> s->pins.ss & 1)) {
		s->ss_high_drop = 1;
		return;
	}
	if (s->frozen) {
		s->slave_frozen = 1;   /* SCK is sampled with clk_I/O */
		return;
	}
	s->slave_got = 1;
	uint8_t out = s->shift;
	receive(s, (uint8_t)value);
	avr_raise_irq(s->sp->io.irq + SPI_IRQ_OUTPUT, out);
	avr_raise_interrupt(avr, &s->sp->spi);
}

/* A level on the SS pin: the chip's own (an output, a pull-up) or the
 * outside world's.  A low on an input can only be the outside world's. */
static void on_ss(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	spi *s = param;
	avr_t *avr = s->avr;
	if (!ss_is_input(s))
		return;
	int pulled = avr->data[s->port_reg] >> s->pins.ss & 1;
	if (!value || !pulled)
		s->ss_driven = 1;
	s->ss_low = !value;
	if (s->ss_low && is_master(s))
		mode_fault(s);
}

/* ---- registers ------------------------------------------------------ */

/* The second step of the clearing sequence: an SPDR access after SPSR
 * was read with SPIF (WCOL) set clears it. */
static void spdr_access(spi *s)
{
	avr_t *avr = s->avr;
	uint8_t seen = s->armed;
	s->armed = 0;
	if (seen & WCOL)
		avr->data[s->spsr] &= (uint8_t)~WCOL;
	if ((seen & s->spif) && (avr->data[s->spsr] & s->spif))
		avr_clear_interrupt(avr, &s->sp->spi);
}

static uint8_t spdr_read(avr_t *avr, uint16_t addr, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	(void)addr;
	spi *s = ud;
	spdr_access(s);
	avr->data[s->spdr] = s->rx;
	return s->rx;
}

static void spdr_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	(void)addr;
	spi *s = ud;
	s->prr |= s->frozen;  /* awake and frozen: PRSPI */
	spdr_access(s);
	if (s->busy) {
		/* Write collision: the byte under way goes on, this one is lost. */
		avr->data[s->spsr] |= WCOL;
		return;
	}
	s->shift = v;
	if (is_master(s))
		start_transfer(s);
}

static uint8_t spsr_read(avr_t *avr, uint16_t addr, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	spi *s = ud;
	uint8_t v = reghook_next_read(h, avr, addr);
	s->armed = v & (s->spif | WCOL);
	return v;
}

/* SPIF and WCOL are read-only: a write takes SPI2X alone. */
static void spsr_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	(void)addr;
	spi *s = ud;
	uint8_t old = avr->data[s->spsr];
	avr->data[s->spsr] = (uint8_t)((old & ~s->spi2x) | (v & s->spi2x));
	if (s->busy && ((old ^ v) & s->spi2x))
		s->midway = 1;
}

static void spcr_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	(void)addr;
	spi *s = ud;
	uint8_t old = avr->data[s->spcr];
	s->prr |= s->frozen;
	avr->data[s->spcr] = v;
	if (s->busy) {
		if (!(v & s->spe) || !(v & s->mstr))
			abort_transfer(s);
		else if ((old ^ v) & (s->spr0 | s->spr1 | CPOL | CPHA | DORD))
			s->midway = 1;
	}
	if ((v & s->spe) && !(v & s->mstr))
		s->slave_on = 1;
	if (is_master(s) && ss_is_input(s)) {
		if (s->ss_low) {
			mode_fault(s);
			return;
		}
		if (!s->ss_driven && !(avr->data[s->port_reg] >> s->pins.ss & 1))
			s->ss_floating = 1;
	}
	/* SPIE set while SPIF is: the interrupt is due now (simavr queues a
	 * vector only when its flag rises with the enable set). */
	if ((v & s->spie) && !(old & s->spie) && (avr->data[s->spsr] & s->spif))
		avr_raise_interrupt(avr, &s->sp->spi);
}

/* ---- reset ---------------------------------------------------------- */

/* The chip's reset, from avr_reset (after it cleared the I/O registers and
 * every cycle timer): SPCR, SPSR and SPDR read 0. */
static void on_chip_reset(avr_io_t *io)
{
	spi *s = of_io(io);
	s->busy = 0;
	s->frozen = 0;   /* a reset leaves every clock running */
	s->shift = 0;
	s->rx = 0;
	s->armed = 0;
	s->answered = 0;
}

/* ---- set-up --------------------------------------------------------- */

static const char *reg_name(const spi *s, uint16_t addr, const char *fallback)
{
	const char *n = ioregs_name(s->names, addr);
	return n ? n : fallback;
}

/* Record-time warnings: what the run did that the model does not
 * simulate, or takes one way where the chip's board decides. */
static void spi_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
		      void *ud)
{
	spi *s = self;
	const char *spcr = reg_name(s, s->spcr, "SPCR");
	char p = s->pins.port, text[512];
	if (s->pins_use && periph_first(warned, W_PINS)) {
		if (p)
			snprintf(text, sizeof text, "spi: the master's bytes, their timing and SPIF "
				 "are simulated, not its SCK and MOSI waveforms: pins P%c%u and P%c%u "
				 "show PORT%c during a transfer", p, s->pins.sck, p, s->pins.mosi, p);
		else
			snprintf(text, sizeof text, "spi: the master's bytes, their timing and SPIF "
				 "are simulated, not its SCK and MOSI waveforms on the pins");
		warn(ud, text);
	}
	if (s->no_device && periph_first(warned, W_NO_DEVICE)) {
		if (p)
			snprintf(text, sizeof text, "spi: a master transfer ended with no device "
				 "answering (no spi device of the stimuli selected): SPDR received MISO's "
				 "level, P%c%u %s, on every bit (0x%02x)", p, s->pins.miso,
				 s->no_device_byte ? "high" : "low", s->no_device_byte);
		else
			snprintf(text, sizeof text, "spi: a master transfer ended with no device "
				 "answering (no spi device of the stimuli selected): SPDR received 0x00");
		warn(ud, text);
	}
	if (s->slave_on && !s->slave_got && periph_first(warned, W_NO_MASTER)) {
		/* Checked after each slice of a recording: a master's first
		 * byte may still be to come. */
		snprintf(text, sizeof text, "spi: %s makes the SPI a slave, and no master has clocked "
			 "it yet (a stimuli's spi master line would): no byte has arrived, SPIF has "
			 "not risen", spcr);
		warn(ud, text);
	}
	if (s->ss_high_drop && periph_first(warned, W_SS_HIGH)) {
		snprintf(text, sizeof text, "spi: a byte came while SS (P%c%u) was high: the slave "
			 "ignored it, as the chip does", p, s->pins.ss);
		warn(ud, text);
	}
	if (s->ss_floating && periph_first(warned, W_SS_FLOATING)) {
		snprintf(text, sizeof text, "spi: %s makes the SPI a master with SS (P%c%u) an input "
			 "that nothing drives (no pull-up, no stimulus): on the %s a low level there "
			 "would clear MSTR and set SPIF; avrr takes it as high", spcr, p, s->pins.ss,
			 s->mcu);
		warn(ud, text);
	}
	if (!p && (s->pins_use || s->slave_on) && periph_first(warned, W_NO_TABLE)) {
		snprintf(text, sizeof text, "spi: avrr has no table of the %s's SPI pins: SS never "
			 "clears MSTR nor deselects the slave", s->mcu);
		warn(ud, text);
	}
	if (s->prr && periph_first(warned, W_PRR)) {
		snprintf(text, sizeof text, "spi: %s or SPDR was written while PRSPI (%s) shut the SPI "
			 "down: the %s's registers of a shut-down module \"can not be read or "
			 "written\", avrr took the writes (a byte written then goes out once PRSPI is "
			 "cleared)", spcr, reg_name(s, s->sp->disabled.reg, "PRR"), s->mcu);
		warn(ud, text);
	}
	if (s->slave_frozen && periph_first(warned, W_SLAVE_FROZEN)) {
		snprintf(text, sizeof text, "spi: a byte came to the slave while its clock was "
			 "stopped (a sleep mode other than idle, or PRSPI): the slave, which samples "
			 "SCK with clk_I/O, took none");
		warn(ud, text);
	}
	if (s->midway && periph_first(warned, W_MIDWAY)) {
		snprintf(text, sizeof text, "spi: %s or %s changed the clock (SPR, SPI2X, CPOL, "
			 "CPHA, DORD) during a transfer: the byte kept the rate it began at",
			 spcr, reg_name(s, s->spsr, "SPSR"));
		warn(ud, text);
	}
}

/* clk_I/O stopped or started (a sleep, a wake-up, a PRSPI write). */
static void spi_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	(void)was;
	spi *s = self;
	avr_t *avr = s->avr;
	int run = periph_clocked(c, CLOCK_IO, PR_SPI);
	if (!run && !s->frozen) {
		if (s->busy)
			avr_cycle_timer_cancel(avr, on_transfer_end, s);
		s->frozen = 1;
		s->frozen_at = avr->cycle;
	} else if (run && s->frozen) {
		s->frozen = 0;
		if (s->busy) {
			s->end += avr->cycle - s->frozen_at;
			avr_cycle_timer_register(avr, s->end - avr->cycle, on_transfer_end, s);
		}
	}
}

/* The chip's reset is done from avr_reset itself (on_chip_reset), before
 * the registry's: nothing is left for periph_ops.reset. */
static const periph_ops SPI_OPS = {
	.name = "spi",
	.reset = NULL,
	.check = spi_check,
	.clocks = spi_clocks,
};

/* The SPI pins of the part named mcu, or NULL when avrr has no table. */
static const spi_pins *pins_of_mcu(const char *mcu)
{
	size_t n = strlen(mcu);
	for (size_t i = 0; n && i < sizeof PINS / sizeof *PINS; i++)
		for (const char *m = PINS[i].mcus; *m; m = strchr(m, ' ') + 1)
			if (!strncasecmp(m, mcu, n) && m[n] == ' ')
				return &PINS[i];
	return NULL;
}

/* This part's SPI pins and their port's registers, and a listener on SS. */
static void find_pins(spi *s)
{
	const spi_pins *pins = pins_of_mcu(s->mcu);
	if (!pins)
		return;
	s->pins = *pins;
	for (avr_io_t *io = s->avr->io_port; io; io = io->next)
		if (io->kind && !strcmp(io->kind, "port") &&
		    ((avr_ioport_t *)io)->name == s->pins.port) {
			avr_ioport_t *port = (avr_ioport_t *)io;
			s->pin_reg = port->r_pin;
			s->ddr_reg = port->r_ddr;
			s->port_reg = port->r_port;
			avr_irq_register_notify(io->irq + s->pins.ss, on_ss, s);
			return;
		}
	s->pins.port = 0;
}

static int attach_one(periphs *p, avr_spi_t *sp, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	spi *s = calloc(1, sizeof *s);
	if (!s)
		return avrr_errf(err, "out of memory");
	*s = (spi){ .avr = avr, .sp = sp, .mcu = ctx->mcu, .names = ctx->names,
		    .spcr = sp->r_spcr, .spsr = sp->r_spsr, .spdr = sp->r_spdr,
		    .spe = periph_bits(sp->spe), .mstr = periph_bits(sp->mstr),
		    .spie = periph_bits(sp->spi.enable), .spif = periph_bits(sp->spi.raised),
		    .spr0 = periph_bits(sp->spr[0]), .spr1 = periph_bits(sp->spr[1]),
		    .spi2x = periph_bits(sp->spr[2]) };
	if (periphs_add(p, &SPI_OPS, s, err))
		return -1;
	/* its reset would listen to the input IRQ again */
	periph_cut_simavr(avr, sp, sizeof *sp, sp->io.irq + SPI_IRQ_INPUT, 1);
	sp->io.reset = NULL;
	s->io = (avr_io_t){ .kind = "avrr spi", .reset = on_chip_reset };
	avr_register_io(avr, &s->io);
	avr_irq_register_notify(sp->io.irq + SPI_IRQ_INPUT, on_input, s);
	find_pins(s);
	if (!reghook_write(ctx->regs, s->spdr, 0xff, "the spi", spdr_write, s, err) ||
	    !reghook_read(ctx->regs, s->spdr, 0xff, "the spi", spdr_read, s, err) ||
	    !reghook_write(ctx->regs, s->spcr, 0xff, "the spi", spcr_write, s, err) ||
	    !reghook_write(ctx->regs, s->spsr, 0xff, "the spi", spsr_write, s, err) ||
	    !reghook_read(ctx->regs, s->spsr, 0xff, "the spi", spsr_read, s, err))
		return -1;
	on_chip_reset(&s->io);
	return 0;
}

int spi_ss_pin(struct avr_t *avr, char *port, unsigned *bit)
{
	/* The model's own table entry, which find_pins dropped when the port
	 * is missing; on a bare core (no model) the table by simavr's name. */
	avr_io_t *io = periph_next_io(avr, NULL, "avrr spi");
	const spi_pins *pins = io ? (of_io(io)->pins.port ? &of_io(io)->pins : NULL)
				  : pins_of_mcu(avr->mmcu ? avr->mmcu : "");
	if (!pins)
		return -1;
	*port = pins->port;
	*bit = pins->ss;
	return 0;
}

int spi_attach(periphs *p, avrr_err *err)
{
	avr_t *avr = periphs_ctx(p)->avr;
	avr_spi_t *found[4];
	unsigned n = 0;
	/* Collected first: attaching adds our own modules to the list. */
	for (avr_io_t *io = avr->io_port; io && n < 4; io = io->next)
		if (io->kind && !strcmp(io->kind, "spi") && ((avr_spi_t *)io)->r_spdr)
			found[n++] = (avr_spi_t *)io;
	for (unsigned i = 0; i < n; i++)
		if (attach_one(p, found[i], err))
			return -1;
	return 0;
}
