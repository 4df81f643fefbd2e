/*
 * chip_uart.c — the USART receiver and the frame length (see chip.h).
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
 * Here the stimuli hand each byte to chip_uart_arrive at its stop bit,
 * which queues it in simavr's own buffer (u->input, kept two deep) and
 * raises RXC at once; UDR reads pop it and follow RXC and the pending
 * interrupt with the FIFO; the vector's entry leaves it pending while
 * bytes remain; enabling RXCIE with data waiting makes it pending, as
 * enabling UDRIE with UDRE set does the data register empty interrupt.  The
 * frame is 1 start + 5..9 data + parity if UPM + 1 or 2 stop bits (UCSRC),
 * at (UBRR + 1) * 16 cycles a bit (8 with U2X), as the datasheet's baud
 * rate table computes it.
 *
 * simavr's read throttle is replaced, and its two fields hold what this
 * file keeps: rxc_raise_time the UBRR value + 1 latched by the last UBRRL
 * write (the datasheet: "Writing UBRRL will trigger an immediate update of
 * the baud rate prescaler"; 0 until then: simavr's default frame time), and
 * rx_cnt, on parts where UBRRH and UCSRC share an address (URSEL selects),
 * the last value written to each (SHADOW_*).
 */
#include "sim/chip.h"

#include <string.h>

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_regbit.h>

/* The accessors of simavr's receive buffer type (avr_uart.h declares the
 * type; its accessors are static to avr_uart.c). */
DEFINE_FIFO(uint16_t, uart_fifo);

enum { WRAP_UDR = 1, WRAP_UCSRA, WRAP_UCSRB, WRAP_UCSRC, WRAP_UBRRL };

/* rx_cnt on shared-address parts: UCSRC's value (bits 0-7) once written
 * (SHADOW_UCSRC_SET), UBRRH's (bits 16-19). */
#define SHADOW_UCSRC_SET 0x100u
#define SHADOW_UBRRH_SHIFT 16
#define URSEL 0x80u
#define UCSRC_RESET 0x06u       /* 8 data bits, no parity, 1 stop bit */
#define FIFO_DEPTH 2

static int shared_ucsrc(const avr_uart_t *u)
{
	return u->r_ucsrc && u->r_ucsrc == u->ubrrh.reg;
}

static unsigned unread(const avr_uart_t *u)
{
	return uart_fifo_get_read_size((uart_fifo_t *)&u->input);
}

/* Bits of a frame, from UCSRC and UCSZ2. */
static unsigned frame_bits(avr_t *avr, const avr_uart_t *u)
{
	static const unsigned data_bits[8] = { 5, 6, 7, 8, 8, 8, 8, 9 }; /* 4-6 reserved */
	uint8_t c;
	if (shared_ucsrc(u))
		c = u->rx_cnt & SHADOW_UCSRC_SET ? (uint8_t)u->rx_cnt : UCSRC_RESET;
	else if (u->r_ucsrc)
		c = avr->data[u->r_ucsrc];
	else
		c = UCSRC_RESET;
	unsigned ucsz = ((c >> 1) & 3) | (avr_regbit_get(avr, u->ucsz2) << 2);
	unsigned parity = (c >> 4) & 3 ? 1 : 0;     /* UPM1:0 */
	unsigned stop = 1 + ((c >> 3) & 1);         /* USBS */
	return 1 + data_bits[ucsz] + parity + stop;
}

static void retime(avr_t *avr, avr_uart_t *u)
{
	if (!u->rxc_raise_time)
		return;
	uint64_t per_bit = u->rxc_raise_time * (avr_regbit_get(avr, u->u2x) ? 8 : 16);
	u->cycles_per_byte = per_bit * frame_bits(avr, u);
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

void chip_uart_arrive(struct avr_t *avr, struct avr_uart_t *u, uint8_t byte)
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

static uint8_t udr_read(avr_t *avr, avr_io_addr_t addr, void *param)
{
	chip_wrap *w = param;
	avr_uart_t *u = w->dev;
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

static void control_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	chip_wrap *w = param;
	avr_uart_t *u = w->dev;
	if (w->kind == WRAP_UCSRC && shared_ucsrc(u)) {
		if (v & URSEL)
			u->rx_cnt = (u->rx_cnt & ~0x1ffu) | SHADOW_UCSRC_SET | v;
		else
			u->rx_cnt = (u->rx_cnt & ~(0xfu << SHADOW_UBRRH_SHIFT)) |
				    (uint32_t)(v & 0xf) << SHADOW_UBRRH_SHIFT;
	}
	chip_orig_write(w, avr, addr, v);
	if (w->kind == WRAP_UBRRL) {
		unsigned hi = shared_ucsrc(u) ? (u->rx_cnt >> SHADOW_UBRRH_SHIFT) & 0xf
					      : avr_regbit_get(avr, u->ubrrh);
		u->rxc_raise_time = (uint64_t)(hi << 8 | avr_regbit_get(avr, u->ubrrl)) + 1;
	}
	if (w->kind == WRAP_UCSRB) {
		rx_follow(avr, u);
		udre_follow(avr, u);
	}
	retime(avr, u);
}

void chip_uart_init(chip *c)
{
	for (avr_io_t *port = c->avr->io_port; port; port = port->next) {
		if (!port->kind || strcmp(port->kind, "uart"))
			continue;
		avr_uart_t *u = (avr_uart_t *)port;
		u->rx_cnt = 0;
		u->rxc_raise_time = 0;
		if (!u->r_udr || !u->rxc.raised.reg)
			continue;
		chip_wrap_read(c, u->r_udr, udr_read, u, WRAP_UDR);
		avr_irq_register_notify(u->rxc.irq + AVR_INT_IRQ_PENDING, on_rxc_pending, u);
		if (u->r_ucsra)
			chip_wrap_write(c, u->r_ucsra, control_write, u, WRAP_UCSRA);
		if (u->rxen.reg)
			chip_wrap_write(c, u->rxen.reg, control_write, u, WRAP_UCSRB);
		if (u->r_ucsrc)
			chip_wrap_write(c, u->r_ucsrc, control_write, u, WRAP_UCSRC);
		if (u->ubrrl.reg)
			chip_wrap_write(c, u->ubrrl.reg, control_write, u, WRAP_UBRRL);
	}
}

void chip_uart_reset(chip *c)
{
	for (avr_io_t *port = c->avr->io_port; port; port = port->next)
		if (port->kind && !strcmp(port->kind, "uart")) {
			((avr_uart_t *)port)->rx_cnt = 0;
			((avr_uart_t *)port)->rxc_raise_time = 0;
		}
}
