/*
 * periph_uart.c — the USART receiver and the frame length as the
 * datasheets have them, on simavr 1.6's USART.
 *
 * The datasheet: the receiver moves each frame, once its stop bit is in,
 * into a two-byte FIFO; RXC is set while the FIFO holds unread data, and
 * the RX complete interrupt is pending while RXC and RXCIE are both set
 * (the flag is the interrupt's level, and entering the vector does not
 * clear it).  Reading UDR pops the FIFO; RXC clears when it is empty.
 *
 * simavr 1.6 instead polls its (64-byte) buffer once a frame: a byte into
 * an empty buffer sets RXC a frame after it came, and while the next byte
 * waits the flag stays set with no interrupt pending until the next poll,
 * up to a frame later.  A program that polls "is there data" then spins in
 * a loop whose every turn is the same state, the one the interrupt will
 * come in — no fingerprint, not even the whole data space, can tell those
 * turns apart.  simavr also counts a parity bit in every frame: 11 bits
 * for 8N1.
 *
 * Here the stimuli hand each byte to uart_rx_byte at its stop bit, which
 * queues it in simavr's own buffer (u->input, kept two deep) and raises
 * RXC at once; UDR reads pop it and follow RXC and the pending interrupt
 * with the FIFO (simavr's UDR read, with its read throttle, is replaced);
 * the vector's entry leaves it pending while bytes remain; enabling RXCIE
 * with data waiting makes it pending, as enabling UDRIE with UDRE set does
 * the data register empty interrupt.  The frame is 1 start + 5..9 data +
 * parity if UPM + 1 or 2 stop bits (UCSRC), at (UBRR + 1) * 16 cycles a
 * bit (8 with U2X), as the datasheet's baud rate table computes it, and
 * it is set in simavr's cycles_per_byte, which its transmitter and the
 * stimuli pace frames by.
 */
#include "sim/periph.h"

#include <stdio.h>
#include <stdlib.h>

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_regbit.h>

/* The accessors of simavr's receive buffer type (avr_uart.h declares the
 * type; its accessors are static to avr_uart.c). */
DEFINE_FIFO(uint16_t, uart_fifo);

#define URSEL 0x80u
#define UCSRC_RESET 0x06u       /* 8 data bits, no parity, 1 stop bit */
#define UCSRC_FRAME 0x3eu       /* UPM1:0, USBS, UCSZ1:0: the frame's bits */
#define FIFO_DEPTH 2

enum { UARTS_MAX = 4 };

/* One USART: simavr's, and what the datasheet's needs beyond it. */
typedef struct uart {
	avr_uart_t *u;
	char owner[16];          /* "the USART0", for reghook's messages */
	/* UBRR + 1 as the last UBRRL write latched it (the datasheet:
	 * "Writing UBRRL will trigger an immediate update of the baud rate
	 * prescaler"); 0 until then: simavr's default frame time. */
	uint64_t ubrr;
	/* Where UBRRH and UCSRC share an address (URSEL selects): the last
	 * value written to each, UCSRC's once written (ucsrc_set). */
	uint8_t ucsrc, ubrrh;
	int ucsrc_set;
} uart;

typedef struct uarts {
	uart u[UARTS_MAX];
	unsigned n;
} uarts;

static int shared_ucsrc(const avr_uart_t *u)
{
	return u->r_ucsrc && u->r_ucsrc == u->ubrrh.reg;
}

static unsigned unread(const avr_uart_t *u)
{
	return uart_fifo_get_read_size((uart_fifo_t *)&u->input);
}

/* Bits of a frame, from UCSRC and UCSZ2. */
static unsigned frame_bits(avr_t *avr, const uart *x)
{
	static const unsigned data_bits[8] = { 5, 6, 7, 8, 8, 8, 8, 9 }; /* 4-6 reserved */
	const avr_uart_t *u = x->u;
	uint8_t c;
	if (shared_ucsrc(u))
		c = x->ucsrc_set ? x->ucsrc : UCSRC_RESET;
	else if (u->r_ucsrc)
		c = avr->data[u->r_ucsrc];
	else
		c = UCSRC_RESET;
	unsigned ucsz = ((c >> 1) & 3) | (avr_regbit_get(avr, u->ucsz2) << 2);
	unsigned parity = (c >> 4) & 3 ? 1 : 0;     /* UPM1:0 */
	unsigned stop = 1 + ((c >> 3) & 1);         /* USBS */
	return 1 + data_bits[ucsz] + parity + stop;
}

static void retime(avr_t *avr, const uart *x)
{
	if (!x->ubrr)
		return;
	uint64_t per_bit = x->ubrr * (avr_regbit_get(avr, x->u->u2x) ? 8 : 16);
	x->u->cycles_per_byte = per_bit * frame_bits(avr, x);
}

/* RXC and the pending interrupt from the FIFO: RXC set iff data waits,
 * the interrupt pending iff also RXCIE. */
static void rx_follow(avr_t *avr, avr_uart_t *u)
{
	if (!unread(u) || !avr_regbit_get(avr, u->rxen)) {
		if (u->rxc.pending)
			avr_clear_interrupt(avr, &u->rxc);
		avr_regbit_clear(avr, u->rxc.raised);
		return;
	}
	if (!avr_regbit_get(avr, u->rxc.raised) ||
	    (avr_regbit_get(avr, u->rxc.enable) && !u->rxc.pending))
		avr_raise_interrupt(avr, &u->rxc);
}

/* The data register empty interrupt is pending while UDRE and UDRIE are
 * set: simavr raises it when UDRIE is enabled only if its transmit pump is
 * idle, else at the pump's next turn, up to a frame later, with UDRE set
 * and UDRIE on all the while. */
static void udre_follow(avr_t *avr, avr_uart_t *u)
{
	if (u->udrc.vector && !u->udrc.pending && avr_regbit_get(avr, u->txen) &&
	    avr_regbit_get(avr, u->udrc.enable) && avr_regbit_get(avr, u->udrc.raised))
		avr_raise_interrupt(avr, &u->udrc);
}

void uart_rx_byte(struct avr_t *avr, struct avr_uart_t *u, uint8_t byte)
{
	if (!avr_regbit_get(avr, u->rxen))
		return;
	/* A frame that completes while the FIFO is full is lost: DOR. */
	if (unread(u) >= FIFO_DEPTH) {
		avr_regbit_setto(avr, u->dor, 1);
		return;
	}
	uart_fifo_write(&u->input, byte);
	rx_follow(avr, u);
}

/* UDR: the FIFO's next byte; simavr's read is not called. */
static uint8_t udr_read(avr_t *avr, uint16_t addr, void *h)
{
	avr_uart_t *u = ((uart *)reghook_ud(h))->u;
	uint8_t v = 0;  /* as simavr reads an empty UDR */
	if (avr_regbit_get(avr, u->rxen) && unread(u)) {
		v = (uint8_t)uart_fifo_read(&u->input);
		avr_regbit_clear(avr, u->dor);
	}
	avr->data[addr] = v;
	rx_follow(avr, u);
	return v;
}

/* The vector's entry clears its pending state; the level keeps it. */
static void on_rxc_pending(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	avr_uart_t *u = param;
	avr_t *avr = u->io.avr;
	if (!value && unread(u) && avr_regbit_get(avr, u->rxen) &&
	    avr_regbit_get(avr, u->rxc.enable))
		avr_raise_interrupt(avr, &u->rxc);
}

/* UCSRA, UCSRB, UCSRC or UBRRL written: simavr's write goes on, then the
 * frame time, and after UCSRB the interrupts that are now pending. */
static void control_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	uart *x = reghook_ud(h);
	avr_uart_t *u = x->u;
	if (addr == u->r_ucsrc && shared_ucsrc(u)) {
		if (v & URSEL) {
			x->ucsrc = v;
			x->ucsrc_set = 1;
		} else {
			x->ubrrh = v & 0xf;
		}
	}
	reghook_next_write(h, avr, addr, v);
	if (addr == u->ubrrl.reg) {
		unsigned hi = shared_ucsrc(u) ? x->ubrrh : avr_regbit_get(avr, u->ubrrh);
		x->ubrr = (uint64_t)(hi << 8 | avr_regbit_get(avr, u->ubrrl)) + 1;
	}
	if (addr == u->rxen.reg) {
		rx_follow(avr, u);
		udre_follow(avr, u);
	}
	retime(avr, x);
}

/* The bits of each control register whose behaviour is decided here: the
 * frame's (U2X, UCSZ2, UCSRC's; where UBRRH shares UCSRC's address, the
 * whole register, whose two values are kept here), the receiver's and the
 * interrupts' enables, and the baud rate's latch. */
static uint8_t control_owns(const avr_uart_t *u, uint16_t reg)
{
	if (reg == u->ubrrl.reg || (reg == u->r_ucsrc && shared_ucsrc(u)))
		return 0xff;
	if (reg == u->r_ucsrc)
		return UCSRC_FRAME;
	return reghook_bits(u->u2x, reg) | reghook_bits(u->ucsz2, reg) |
	       reghook_bits(u->rxen, reg) | reghook_bits(u->rxc.enable, reg) |
	       reghook_bits(u->udrc.enable, reg);
}

/* After a chip reset: the baud rate and UCSRC are the reset values again
 * (simavr resets its own frame time and FIFO). */
static void uarts_reset(void *self)
{
	uarts *us = self;
	for (unsigned i = 0; i < us->n; i++) {
		uart *x = &us->u[i];
		x->ubrr = 0;
		x->ucsrc = x->ubrrh = 0;
		x->ucsrc_set = 0;
	}
}

static const periph_ops UART_OPS = {
	.name = "uarts",
	.reset = uarts_reset,
};

int uarts_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	uarts *us = calloc(1, sizeof *us);
	if (!us)
		return avrr_errf(err, "out of memory");
	if (periphs_add(p, &UART_OPS, us, err))
		return -1;
	for (avr_io_t *io = NULL; (io = periph_next_io(ctx->avr, io, "uart"));) {
		avr_uart_t *u = (avr_uart_t *)io;
		if (!u->r_udr || !u->rxc.raised.reg || us->n == UARTS_MAX)
			continue;
		uart *x = &us->u[us->n++];
		x->u = u;
		snprintf(x->owner, sizeof x->owner, "the USART%c", u->name);
		if (!reghook_read(ctx->regs, u->r_udr, 0xff, x->owner, udr_read, x, err))
			return -1;
		avr_irq_register_notify(u->rxc.irq + AVR_INT_IRQ_PENDING, on_rxc_pending, u);
		/* One hook a register: control_write tells them apart. */
		uint16_t control[] = { u->r_ucsra, u->rxen.reg, u->r_ucsrc, u->ubrrl.reg };
		for (unsigned i = 0; i < sizeof control / sizeof *control; i++) {
			int seen = !control[i];
			for (unsigned j = 0; j < i && !seen; j++)
				seen = control[j] == control[i];
			if (!seen && !reghook_write(ctx->regs, control[i], control_owns(u, control[i]),
						    x->owner, control_write, x, err))
				return -1;
		}
	}
	return 0;
}
