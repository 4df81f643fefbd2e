/*
 * periph_uart.c — every USART of the chip as the megaAVR datasheets
 * describe it (ATmega328P §20 "USART0", ATmega2560 §22 "USART", ATmega16
 * "USART"), in place of simavr 1.6's.
 *
 * simavr 1.6 sends a byte as a single event: a UDR write clears UDRE and
 * sets it again a frame later (no double buffer: a polled writer waits a
 * whole frame for its first byte, 16,640 cycles at 9600 baud); it sets
 * TXEN at reset; it clears UDRE when TXEN is cleared and never sets it
 * again, so a program that turns the transmitter off and on hangs; it
 * counts a parity bit in every frame; its receiver polls its buffer once
 * a frame (RXC up to a frame late), keeps 64 bytes where the chip keeps
 * two, and never sets FE or UPE.  So its code is cut out — its callbacks,
 * its cycle timers, its reset and its listener on UART_IRQ_INPUT — and
 * this model runs from simavr's description of each USART (registers,
 * vectors, PRR bit).  A part whose serial port is not a USART (the
 * ATmega16M1's LIN) is left to simavr.
 *
 * The transmitter.  UDR is the transmit buffer; UDRE says it is empty.
 * A byte written while the shift register is idle moves into it at once
 * (UDRE is set again at that cycle) and its frame starts then: 1 start
 * bit, 5 to 9 data bits (UCSZ, the ninth from TXB8), a parity bit if UPM
 * asks for one, 1 or 2 stop bits (USBS), each of (UBRR + 1) · 16 cycles
 * (· 8 with U2X), the rate and format taken at the frame's start.  The
 * chip starts the frame at its bit clock's next tick, which the datasheet
 * leaves unaligned to anything the program sees: avrr's frames start at
 * the transfer, at most a bit time before the chip's.  A byte written
 * while a frame is under way waits in the buffer (UDRE clear) and moves
 * into the shift register as the last stop bit goes out, its frame
 * following back to back; a byte written while UDRE is clear is ignored.
 * When the last stop bit is out and the buffer is empty, TXC is set; it
 * is cleared by writing 1 to it or by entering its vector.  The data
 * register empty interrupt is a level: pending while UDRE and UDRIE are
 * set (after its vector's entry too).  TXEN is 0 at reset; clearing it
 * takes effect once the frame under way and the one buffered are out
 * (the datasheet's "Disabling the Transmitter"), and a byte written while
 * the transmitter is off waits in the buffer until TXEN is set (the
 * transmitter loads its shift register only while enabled).  Each frame
 * goes out on simavr's UART_IRQ_OUTPUT as its last stop bit ends — when
 * a receiver on TxD has the whole byte, as SPI_IRQ_OUTPUT carries the SPI
 * model's bytes at their end — its data bits, the ninth as bit 8.  The
 * recorder logs the UDR writes themselves, at the write.
 *
 * The receiver.  A frame arrives with its first stop bit (the stimuli
 * call uart_rx_byte then; a device raises UART_IRQ_INPUT, bit 15 being
 * simavr's frame error flag).  Its data, FE (the stop bit was 0), UPE
 * (the parity was wrong and UPM checks it) and DOR go into a two-byte
 * FIFO; UDR reads the head, UCSRA's FE, DOR, UPE and UCSRB's RXB8 show
 * the head's, RXC is set while the FIFO holds data and the RX complete
 * interrupt is pending while RXC and RXCIE are.  A frame that completes
 * while the FIFO is full waits in the shift register, the third level of
 * the buffer, and moves into the FIFO at the next UDR read.  When the next
 * frame starts while one waits, that one is lost (the datasheet's "a new
 * start bit is detected"): the new frame takes the shift register, and
 * DOR goes with it into the FIFO, so that DOR read before it says frames
 * were lost between the last one read and it.  Clearing RXEN flushes the
 * FIFO and the shift register.
 *
 * Clocks.  The USART runs on clk_I/O, stopped by PRUSARTn and by the
 * sleep modes that stop clk_I/O (power-down, power-save, standby...).
 * While it is stopped the transmitter freezes where it is — mid-frame —
 * and goes on from there when the clock runs again; a byte written
 * meanwhile waits in the buffer.  A frame arriving on RxD while the
 * receiver's clock is stopped, or whose start bit came before the clock
 * ran again, is lost: the receiver did not see its bits.
 *
 * Not modelled, each a record-time warning (uarts_check): synchronous and
 * master SPI modes (UMSEL; frames run as asynchronous ones), multi-
 * processor mode (MPCM; every frame is received), reserved frame formats,
 * a rate changed during a frame (it keeps the rate it began with), and a
 * frame that waited in the shift register read after the next frame's
 * start bit (the chip loses it; here the read saves it).  simavr's
 * XON/XOFF irqs are not raised.
 */
#include "sim/periph.h"

#include <stdio.h>
#include <stdlib.h>

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

_Static_assert((unsigned)UART_RX_BAD_STOP == (unsigned)UART_INPUT_FE, "a device's frame error is simavr's flag");

/* The USART's bits, at the same places on every megaAVR (ATmega328P
 * §20.11; the ATmega16's UCSRC has URSEL at bit 7 and UMSEL at bit 6);
 * simavr's description names only some of them. */
enum {
	RXC = 0x80, TXC = 0x40, UDRE = 0x20, FE = 0x10, DOR = 0x08, UPE = 0x04, U2X = 0x02,
	MPCM = 0x01,
	RXCIE = 0x80, TXCIE = 0x40, UDRIE = 0x20, RXEN = 0x10, TXEN = 0x08, UCSZ2 = 0x04,
	RXB8 = 0x02, TXB8 = 0x01,
	URSEL = 0x80, UPM1 = 0x20, UPM0 = 0x10, USBS = 0x08, UCSZ1 = 0x04, UCSZ0 = 0x02,
};

#define UCSRA_RESET 0x20u        /* UDRE */
#define UCSRC_RESET 0x06u        /* 8 data bits, no parity, 1 stop bit */
#define UCSRA_STATUS (RXC | TXC | UDRE | FE | DOR | UPE)

enum { UARTS_MAX = 4, FIFO_DEPTH = 2 };

/* What check() will say, a bit each (kind + 8 * the USART's index in
 * `warned`). */
enum {
	W_MODE, W_FORMAT, W_MPCM, W_IGNORED, W_WAITS, W_RX_STOPPED, W_MIDWAY, W_DOR_LATE,
	W_KINDS
};

typedef struct rx_frame {
	uint16_t data;           /* the data bits, the ninth as bit 8 */
	uint8_t flags;           /* FE, DOR, UPE as UCSRA has them */
} rx_frame;

typedef struct usart {
	struct uarts *all;
	avr_t *avr;
	avr_uart_t *u;           /* simavr's description of this USART */
	unsigned index;          /* n of USARTn */
	char owner[16];          /* "the USART0", for reghook's messages */
	uint16_t udr, ucsra, ucsrb, ucsrc, ubrrl, ubrrh;
	int shared;              /* UBRRH and UCSRC share an address (URSEL) */
	uint8_t ucsrc_val;       /* shared: UCSRC's value, UBRRH's ... */
	uint8_t ubrrh_val;
	uint64_t read_next;      /* shared: the cycle after its last read (0: none) */
	uint32_t ubrr;           /* UBRR + 1, as the last UBRRL write latched it */
	int quiet;               /* the model itself moves a vector's PENDING line */
	/* clock */
	int clocked;
	uint64_t restarted;      /* the cycle the clock last ran again */
	/* transmitter */
	int tx_busy;             /* a frame is in the shift register ... */
	uint16_t tx_shift;       /* ... with these data bits */
	uint64_t tx_end;         /* ... its last stop bit out then (clocked) */
	uint64_t tx_left;        /* ... or this many cycles of it to go (stopped) */
	int tx_full;             /* the transmit buffer holds a byte: UDRE clear */
	uint16_t tx_buf;
	/* receiver */
	rx_frame fifo[FIFO_DEPTH];
	unsigned nfifo;
	int rx_waiting;          /* a whole frame waits in the shift register */
	rx_frame rx_shift;
	uint64_t rx_wait_from;   /* the cycle it began to wait */
	uint64_t moved, moved_from; /* the last read that moved a waiting frame in, and
				     * when that frame had begun to wait */
	/* for check() */
	uint8_t seen;            /* 1 << W_* */
	uint8_t umsel, ucsz, upm;  /* as W_MODE and W_FORMAT first saw them */
} usart;

typedef struct uarts {
	periphs *p;
	const mcu_names *names;
	usart x[UARTS_MAX];
	unsigned n;
} uarts;

/* ---- the frame ------------------------------------------------------- */

static uint8_t ucsrc_now(const usart *x)
{
	if (x->shared)
		return x->ucsrc_val;
	return x->ucsrc ? x->avr->data[x->ucsrc] : UCSRC_RESET;
}

static unsigned ucsz_now(const usart *x)
{
	return (ucsrc_now(x) >> 1 & 3) | (x->avr->data[x->ucsrb] & UCSZ2 ? 4 : 0);
}

static unsigned data_bits(const usart *x)
{
	static const unsigned BITS[8] = { 5, 6, 7, 8, 8, 8, 8, 9 };  /* 4-6 reserved */
	return BITS[ucsz_now(x)];
}

/* UPM1 set: a parity bit (UPM 01 is reserved: none). */
static int parity_on(const usart *x)
{
	return (ucsrc_now(x) & UPM1) != 0;
}

static uint64_t bit_cycles(const usart *x)
{
	return (uint64_t)x->ubrr * (x->avr->data[x->ucsra] & U2X ? 8 : 16);
}

static unsigned frame_bits(const usart *x)
{
	return 1 + data_bits(x) + (parity_on(x) ? 1 : 0) + (ucsrc_now(x) & USBS ? 2 : 1);
}

/* The frame time, in simavr's cycles_per_byte too: the stimuli pace
 * their bytes by it. */
static void retime(usart *x)
{
	x->u->cycles_per_byte = bit_cycles(x) * frame_bits(x);
}

/* What check() needs of the format now. */
static void note_format(usart *x)
{
	uint8_t c = ucsrc_now(x);
	unsigned umsel = x->shared ? (c >> 6 & 1) : (c >> 6 & 3);
	unsigned ucsz = ucsz_now(x), upm = c >> 4 & 3;
	if (umsel && !(x->seen >> W_MODE & 1)) {
		x->seen |= 1u << W_MODE;
		x->umsel = (uint8_t)umsel;
	}
	if (((ucsz >= 4 && ucsz <= 6) || upm == 1) && !(x->seen >> W_FORMAT & 1)) {
		x->seen |= 1u << W_FORMAT;
		x->ucsz = (uint8_t)ucsz;
		x->upm = (uint8_t)upm;
	}
}

/* ---- interrupts ------------------------------------------------------- */

/* Makes v's flag `flag`, with its interrupt pending while the flag and the
 * enable are both set: a flag that rises, or a level whose entry or enable
 * asks again, is raised (its PENDING line rises: the observers hear of
 * it), one that falls or whose enable is cleared is withdrawn. */
static void follow(usart *x, avr_int_vector_t *v, int flag)
{
	avr_t *avr = x->avr;
	int was = avr_regbit_get(avr, v->raised), en = avr_regbit_get(avr, v->enable);
	x->quiet++;
	if (flag && (!was || (en && !v->pending))) {
		avr_raise_interrupt(avr, v);
	} else if (!flag || !en) {
		periph_withdraw(avr, v);
		if (!flag)
			avr_regbit_clear(avr, v->raised);
	}
	x->quiet--;
}

static void follow_rx(usart *x)
{
	follow(x, &x->u->rxc, x->nfifo > 0);
}

static void follow_udre(usart *x)
{
	follow(x, &x->u->udrc, !x->tx_full);
}

static void follow_txc(usart *x)
{
	follow(x, &x->u->txc, (x->avr->data[x->ucsra] & TXC) != 0);
}

/* A vector's PENDING line fell: its entry (simavr's, or a replay's) took
 * it.  RXC and UDRE are levels, pending again at once while they hold
 * (the handler runs with I clear; after its RETI the core takes them
 * again); the entry cleared TXC. */
static void on_pending(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	usart *x = param;
	if (value || x->quiet)
		return;
	follow_rx(x);
	follow_udre(x);
}

/* ---- the transmitter ------------------------------------------------- */

static avr_cycle_count_t on_tx_end(avr_t *avr, avr_cycle_count_t when, void *param);

/* The shift register takes v and its frame starts at cycle `at`. */
static void tx_load(usart *x, uint16_t v, uint64_t at)
{
	x->tx_busy = 1;
	x->tx_shift = v & ((1u << data_bits(x)) - 1);
	x->tx_end = at + bit_cycles(x) * frame_bits(x);
}

/* A byte in the buffer moves into an idle shift register while the
 * transmitter is enabled and clocked: UDRE is set again at once. */
static void tx_pump(usart *x)
{
	avr_t *avr = x->avr;
	if (x->tx_busy || !x->tx_full || !(avr->data[x->ucsrb] & TXEN) || !x->clocked)
		return;
	x->tx_full = 0;
	tx_load(x, x->tx_buf, avr->cycle);
	avr_cycle_timer_register(avr, x->tx_end - avr->cycle, on_tx_end, x);
	follow_udre(x);
}

/* The last stop bit is out: the byte goes to UART_IRQ_OUTPUT; a byte in
 * the buffer follows back to back (TXEN cleared or not: pending
 * transmissions complete), else TXC is set. */
static avr_cycle_count_t on_tx_end(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr;
	usart *x = param;
	x->tx_busy = 0;
	avr_raise_irq(x->u->io.irq + UART_IRQ_OUTPUT, x->tx_shift);
	if (x->tx_full) {
		x->tx_full = 0;
		tx_load(x, x->tx_buf, when);
		follow_udre(x);
		return x->tx_end;
	}
	follow(x, &x->u->txc, 1);
	return 0;
}

static void udr_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	(void)addr;
	usart *x = reghook_ud(h);
	if (x->tx_full) {
		/* "Data written to UDRn when the UDREn Flag is not set, will be
		 * ignored by the USART Transmitter." */
		x->seen |= 1u << W_IGNORED;
		return;
	}
	x->tx_buf = (uint16_t)(v | (avr->data[x->ucsrb] & TXB8 ? 0x100 : 0));
	x->tx_full = 1;
	follow_udre(x);
	tx_pump(x);
	if (x->tx_full && !x->tx_busy && !(avr->data[x->ucsrb] & TXEN))
		x->seen |= 1u << W_WAITS;
}

/* ---- the receiver ---------------------------------------------------- */

/* UCSRA's FE, DOR, UPE and UCSRB's RXB8 are the FIFO head's; RXC and its
 * interrupt follow the FIFO. */
static void rx_show(usart *x)
{
	uint8_t *d = x->avr->data;
	uint8_t a = d[x->ucsra] & (uint8_t)~(FE | DOR | UPE);
	uint8_t b = d[x->ucsrb] & (uint8_t)~RXB8;
	if (x->nfifo) {
		a |= x->fifo[0].flags;
		if (x->fifo[0].data & 0x100)
			b |= RXB8;
	}
	d[x->ucsra] = a;
	d[x->ucsrb] = b;
	follow_rx(x);
}

static void rx_push(usart *x, rx_frame f)
{
	x->fifo[x->nfifo++] = f;
}

/* A frame whose first stop bit has just come (value: data bits, and
 * UART_RX_* flags). */
static void on_input(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	usart *x = param;
	avr_t *avr = x->avr;
	if (!(avr->data[x->ucsrb] & RXEN))
		return;
	/* Its start bit's edge came (1 + data + parity + ½) bit times before
	 * the stop bit's middle, where the receiver takes it. */
	uint64_t now = avr->cycle, bit = bit_cycles(x);
	uint64_t span = (1 + data_bits(x) + (parity_on(x) ? 1u : 0u)) * bit + bit / 2;
	uint64_t start = now > span ? now - span : 0;
	if (!x->clocked || x->restarted > start) {
		x->seen |= 1u << W_RX_STOPPED;
		return;
	}
	rx_frame f = { (uint16_t)(value & ((1u << data_bits(x)) - 1)), 0 };
	if (value & UART_RX_BAD_STOP)
		f.flags |= FE;
	if ((value & UART_RX_BAD_PARITY) && parity_on(x))
		f.flags |= UPE;
	/* A read moved the frame that waited into the FIFO after this one's
	 * start bit: on the chip that start bit had overrun it. */
	if (x->moved > start && x->moved_from <= start)
		x->seen |= 1u << W_DOR_LATE;
	if (x->rx_waiting) {
		/* Its start bit came while the FIFO was full and a frame waited:
		 * that one is lost, and DOR goes with this one. */
		f.flags |= DOR;
		x->rx_shift = f;
		x->rx_wait_from = now;
	} else if (x->nfifo < FIFO_DEPTH) {
		rx_push(x, f);
	} else {
		x->rx_waiting = 1;
		x->rx_shift = f;
		x->rx_wait_from = now;
	}
	rx_show(x);
}

/* UDR read: the FIFO's head, popped; a frame waiting in the shift register
 * moves in behind. */
static uint8_t udr_read(avr_t *avr, uint16_t addr, void *h)
{
	usart *x = reghook_ud(h);
	uint8_t v = 0;  /* an empty buffer reads 0, as simavr's did */
	if (x->nfifo) {
		v = (uint8_t)x->fifo[0].data;
		x->fifo[0] = x->fifo[1];
		x->nfifo--;
		if (x->rx_waiting) {
			x->rx_waiting = 0;
			rx_push(x, x->rx_shift);
			x->moved = avr->cycle;
			x->moved_from = x->rx_wait_from;
		}
		rx_show(x);
	}
	avr->data[addr] = v;
	return v;
}

/* RXEN cleared: "the receive buffer will be flushed". */
static void rx_flush(usart *x)
{
	x->nfifo = 0;
	x->rx_waiting = 0;
	rx_show(x);
}

/* ---- control registers ----------------------------------------------- */

/* UBRRH, UCSRC, UCSRB's UCSZ2 or UCSRA's U2X written: the frame under way
 * keeps the rate and format it began with. */
static void reformat(usart *x, uint32_t old_ubrr, unsigned old_bits, uint64_t old_bit)
{
	if (x->tx_busy && (x->ubrr != old_ubrr || frame_bits(x) != old_bits ||
			   bit_cycles(x) != old_bit))
		x->seen |= 1u << W_MIDWAY;
	note_format(x);
	retime(x);
}

/* UCSRA: TXC is cleared by writing 1 to it (SBI on a newer part writes
 * its own bit alone: reghook_flags_written); U2X and MPCM are the
 * program's; the rest is read-only. */
static void ucsra_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	usart *x = reghook_ud(h);
	const reghooks *r = periphs_ctx(x->all->p)->regs;
	uint32_t ubrr = x->ubrr;
	unsigned bits = frame_bits(x);
	uint64_t bit = bit_cycles(x);
	uint8_t old = avr->data[addr];
	avr->data[addr] = (uint8_t)((old & UCSRA_STATUS) | (v & (U2X | MPCM)));
	if (reghook_flags_written(r, avr, addr, v) & TXC & old) {
		avr->data[addr] &= (uint8_t)~TXC;
		follow_txc(x);
	}
	if (v & MPCM)
		x->seen |= 1u << W_MPCM;
	reformat(x, ubrr, bits, bit);
}

/* UCSRB: RXB8 is read-only (the FIFO head's); the enables follow. */
static void ucsrb_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	usart *x = reghook_ud(h);
	uint32_t ubrr = x->ubrr;
	unsigned bits = frame_bits(x);
	uint64_t bit = bit_cycles(x);
	uint8_t old = avr->data[addr];
	avr->data[addr] = (uint8_t)((v & ~RXB8) | (old & RXB8));
	if ((old & RXEN) && !(v & RXEN))
		rx_flush(x);
	follow_rx(x);
	follow_txc(x);
	tx_pump(x);
	follow_udre(x);
	reformat(x, ubrr, bits, bit);
}

/* UCSRC, or where it shares UBRRH's address, whichever URSEL selects. */
static void ucsrc_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	usart *x = reghook_ud(h);
	uint32_t ubrr = x->ubrr;
	unsigned bits = frame_bits(x);
	uint64_t bit = bit_cycles(x);
	if (!x->shared)
		avr->data[addr] = v;
	else if (v & URSEL)
		x->ucsrc_val = v;
	else
		x->ubrrh_val = v & 0x0f;
	if (x->shared)
		avr->data[addr] = x->ubrrh_val;
	reformat(x, ubrr, bits, bit);
}

/* The shared address read: UBRRH, or UCSRC when it was read in the cycle
 * before (the datasheet's "Accessing UBRRH/UCSRC Registers": IN, IN). */
static uint8_t shared_read(avr_t *avr, uint16_t addr, void *h)
{
	usart *x = reghook_ud(h);
	uint8_t v = x->read_next == avr->cycle ? x->ucsrc_val : x->ubrrh_val;
	x->read_next = avr->cycle + 1;
	avr->data[addr] = v;
	return v;
}

/* UBRRL: "Writing UBRRnL will trigger an immediate update of the baud rate
 * prescaler", with UBRRH as it is. */
static void ubrrl_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	usart *x = reghook_ud(h);
	uint32_t ubrr = x->ubrr;
	unsigned bits = frame_bits(x);
	uint64_t bit = bit_cycles(x);
	avr->data[addr] = v;
	unsigned hi = x->shared ? x->ubrrh_val : avr->data[x->ubrrh] & 0x0f;
	x->ubrr = (hi << 8 | v) + 1u;
	reformat(x, ubrr, bits, bit);
}

/* ---- the registry's calls -------------------------------------------- */

static void reset_one(usart *x)
{
	avr_t *avr = x->avr;
	avr_cycle_timer_cancel(avr, on_tx_end, x);
	x->tx_busy = x->tx_full = 0;
	x->nfifo = 0;
	x->rx_waiting = 0;
	x->moved = x->moved_from = 0;
	x->read_next = 0;
	x->ubrr = 1;
	x->ucsrc_val = URSEL | UCSRC_RESET;
	x->ubrrh_val = 0;
	x->clocked = periph_clocked(periphs_clocks(x->all->p), CLOCK_IO,
				    (enum periph_module)(PR_USART0 + x->index));
	x->restarted = 0;
	avr->data[x->ucsra] = UCSRA_RESET;
	avr->data[x->ucsrb] = 0;
	if (x->ucsrc)
		avr->data[x->ucsrc] = x->shared ? 0 : UCSRC_RESET;
	periph_withdraw(avr, &x->u->rxc);
	periph_withdraw(avr, &x->u->txc);
	periph_withdraw(avr, &x->u->udrc);
	retime(x);
}

/* After a chip reset (avr_reset cleared the registers and every cycle
 * timer): the registers' reset values, TXEN 0. */
static void uarts_reset(void *self)
{
	uarts *us = self;
	for (unsigned i = 0; i < us->n; i++)
		reset_one(&us->x[i]);
}

/* clk_I/O or PRUSARTn changed: the transmitter freezes or goes on. */
static void uarts_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	(void)was;
	uarts *us = self;
	for (unsigned i = 0; i < us->n; i++) {
		usart *x = &us->x[i];
		avr_t *avr = x->avr;
		int on = periph_clocked(c, CLOCK_IO, (enum periph_module)(PR_USART0 + x->index));
		if (on == x->clocked)
			continue;
		x->clocked = on;
		if (!on) {
			if (x->tx_busy) {
				x->tx_left = x->tx_end > avr->cycle ? x->tx_end - avr->cycle : 0;
				avr_cycle_timer_cancel(avr, on_tx_end, x);
			}
			continue;
		}
		x->restarted = avr->cycle;
		if (x->tx_busy) {
			x->tx_end = avr->cycle + x->tx_left;
			avr_cycle_timer_register(avr, x->tx_left, on_tx_end, x);
		}
		tx_pump(x);
	}
}

static const char *reg_name(const uarts *us, uint16_t addr, const char *fallback)
{
	const char *n = addr ? ioregs_name(us->names, addr) : NULL;
	return n ? n : fallback;
}

static void uarts_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
			void *ud)
{
	uarts *us = self;
	for (unsigned i = 0; i < us->n; i++) {
		usart *x = &us->x[i];
		char n = x->u->name, text[512];
		const char *udr = reg_name(us, x->udr, "UDR"), *ucsra = reg_name(us, x->ucsra, "UCSRA");
		const char *ucsrb = reg_name(us, x->ucsrb, "UCSRB");
		const char *ucsrc = x->shared ? "UCSRC" : reg_name(us, x->ucsrc, "UCSRC");
		for (unsigned k = 0; k < W_KINDS; k++) {
			uint32_t bit = 1u << (k + 8 * i);
			if (!(x->seen >> k & 1) || !periph_first(warned, bit))
				continue;
			switch (k) {
			case W_MODE:
				if (x->umsel == 3)
					snprintf(text, sizeof text, "usart%c: %s selects master SPI mode "
						 "(UMSEL%c 11), which is not simulated: avrr runs the USART "
						 "as an asynchronous one, frames at the UBRR%c rate, not SPI "
						 "transfers", n, ucsrc, n, n);
				else if (x->umsel == 1)
					snprintf(text, sizeof text, "usart%c: %s selects synchronous mode "
						 "(UMSEL%c), which is not simulated: XCK%c is not driven nor "
						 "read, and avrr times frames as asynchronous ones, %s bit "
						 "where the chip's master takes 2·(UBRR%c+1) cycles", n, ucsrc,
						 n, n, "a (UBRR+1)·16-cycle", n);
				else
					snprintf(text, sizeof text, "usart%c: %s selects the reserved "
						 "mode UMSEL%c 10: avrr runs the USART as an asynchronous "
						 "one", n, ucsrc, n);
				break;
			case W_FORMAT:
				snprintf(text, sizeof text, "usart%c: %s/%s select a reserved frame "
					 "format (UCSZ%c %u, UPM%c %u): a reserved character size is taken "
					 "as 8 data bits, UPM 01 as no parity", n, ucsrb, ucsrc, n, x->ucsz,
					 n, x->upm);
				break;
			case W_MPCM:
				snprintf(text, sizeof text, "usart%c: %s sets MPCM%c (multi-processor "
					 "communication mode), which is not simulated: the chip's receiver "
					 "ignores frames that are not addresses; avrr receives every frame",
					 n, ucsra, n);
				break;
			case W_IGNORED:
				snprintf(text, sizeof text, "usart%c: %s written while UDRE%c was clear: "
					 "the chip ignores the byte, as avrr does", n, udr, n);
				break;
			case W_WAITS:
				snprintf(text, sizeof text, "usart%c: %s written with the transmitter off "
					 "(TXEN%c 0): the byte waits in the transmit buffer, UDRE%c clear, "
					 "until TXEN%c is set (the datasheet loads the shift register only "
					 "while the transmitter is enabled)", n, udr, n, n, n);
				break;
			case W_RX_STOPPED:
				snprintf(text, sizeof text, "usart%c: a frame came on RxD%c while the "
					 "USART%c's clock was stopped (a sleep mode that stops clk_I/O, or "
					 "PRUSART%c): lost, as on the chip", n, n, n, n);
				break;
			case W_MIDWAY:
				snprintf(text, sizeof text, "usart%c: the baud rate or frame format "
					 "changed during a frame (UBRR%c, U2X%c, %s, UCSZ%c2): the frame kept "
					 "the rate and format it began with", n, n, n, ucsrc, n);
				break;
			case W_DOR_LATE:
				snprintf(text, sizeof text, "usart%c: %s was read after a frame's start "
					 "bit while the frame before it waited in the shift register: the "
					 "chip loses the waiting frame (DOR%c), avrr received it", n, udr, n);
				break;
			}
			warn(ud, text);
		}
	}
}

static const periph_ops UART_OPS = {
	.name = "uarts",
	.reset = uarts_reset,
	.check = uarts_check,
	.clocks = uarts_clocks,
};

/* ---- set-up ---------------------------------------------------------- */

void uart_rx_byte(struct avr_t *avr, struct avr_uart_t *u, unsigned frame)
{
	(void)avr;
	avr_raise_irq(u->io.irq + UART_IRQ_INPUT, frame);
}

static int attach_one(uarts *us, avr_uart_t *u, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(us->p);
	avr_t *avr = ctx->avr;
	usart *x = &us->x[us->n++];
	*x = (usart){ .all = us, .avr = avr, .u = u, .index = (unsigned)(u->name - '0'),
		      .udr = u->r_udr, .ucsra = u->r_ucsra, .ucsrb = u->r_ucsrb,
		      .ucsrc = u->r_ucsrc, .ubrrl = u->ubrrl.reg, .ubrrh = u->ubrrh.reg,
		      .shared = u->r_ucsrc && u->r_ucsrc == u->ubrrh.reg };
	snprintf(x->owner, sizeof x->owner, "the USART%c", u->name);
	periph_cut_simavr(avr, u, sizeof *u, u->io.irq + UART_IRQ_INPUT, 1);
	u->io.reset = NULL;  /* it would set TXEN and listen to the input again */
	avr_irq_register_notify(u->io.irq + UART_IRQ_INPUT, on_input, x);
	avr_irq_register_notify(u->rxc.irq + AVR_INT_IRQ_PENDING, on_pending, x);
	avr_irq_register_notify(u->udrc.irq + AVR_INT_IRQ_PENDING, on_pending, x);
	if (!reghook_read(ctx->regs, x->udr, 0xff, x->owner, udr_read, x, err) ||
	    !reghook_write(ctx->regs, x->udr, 0xff, x->owner, udr_write, x, err) ||
	    !reghook_write(ctx->regs, x->ucsra, 0xff, x->owner, ucsra_write, x, err) ||
	    !reghook_write(ctx->regs, x->ucsrb, 0xff, x->owner, ucsrb_write, x, err) ||
	    (x->ubrrl && !reghook_write(ctx->regs, x->ubrrl, 0xff, x->owner, ubrrl_write, x, err)) ||
	    (x->ucsrc && !reghook_write(ctx->regs, x->ucsrc, 0xff, x->owner, ucsrc_write, x, err)) ||
	    (x->shared && !reghook_read(ctx->regs, x->ucsrc, 0xff, x->owner, shared_read, x, err)))
		return -1;
	reset_one(x);
	return 0;
}

int uarts_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	uarts *us = calloc(1, sizeof *us);
	if (!us)
		return avrr_errf(err, "out of memory");
	us->p = p;
	us->names = ctx->names;
	if (periphs_add(p, &UART_OPS, us, err))
		return -1;
	for (avr_io_t *io = NULL; (io = periph_next_io(ctx->avr, io, "uart"));) {
		avr_uart_t *u = (avr_uart_t *)io;
		/* A LIN UART (no UCSRA, no UDRE) is left to simavr. */
		if (!u->r_udr || !u->r_ucsra || !u->r_ucsrb || !u->udrc.vector ||
		    u->name < '0' || u->name > '3' || us->n == UARTS_MAX)
			continue;
		if (attach_one(us, u, err))
			return -1;
	}
	return 0;
}
