/*
 * periph_twi.c — the TWI master's status codes, TWINT and bus timing as
 * the datasheets have them, on simavr 1.6's TWI.
 *
 * Status: the datasheet's master transmitter table gives, after SLA+W,
 * 0x18 (ACK received) or 0x20 (NACK received); 0x28/0x30 belong to data
 * bytes.  simavr 1.6 answers an SLA+W with the data codes whenever TWDR
 * was written since the last TWINT clear — always, since SLA+W is written
 * to TWDR — so an address nobody acknowledges reads 0x30 and Arduino's
 * Wire.endTransmission() returns 3 ("NACK on data") instead of 2 ("NACK
 * on address").  SLA+R (0x40/0x48), data (0x28/0x30, 0x50/0x58) and START
 * (0x08/0x10) simavr reports as the tables do.
 *
 * TWINT: "cleared by writing a logic one to it"; simavr declares it
 * sticky, so a write of one leaves it set and a master polling TWINT goes
 * on at once with the previous status.
 *
 * Timing: an address or data byte and its acknowledge take 9 SCL periods,
 * and SCL's period is 16 + 2 * TWBR * 4^TWPS CPU cycles (datasheet, "Bit
 * Rate Generator Unit"); simavr takes 9 µs, or none for SLA+W.
 *
 * The hook on TWCR lets simavr run the bus, then puts right the status
 * simavr has scheduled, TWINT (the bit it claims), and when the status
 * comes.
 *
 * Clocks: the bit rate generator runs on clk_I/O, so a sleep mode that
 * stops it or PRTWI freezes a byte under way: simavr's state timer is
 * taken off with the cycles it had left and put back when the clock
 * runs again.  (A TWI slave's address match, the one TWI wake-up source,
 * is not simulated: warned by periph_unmodelled.c.)
 */
#include "sim/periph.h"

#include <stdlib.h>

#include <avr_twi.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_regbit.h>

/* The datasheet's master status codes. */
enum {
	MT_SLA_ACK = 0x18, MT_SLA_NACK = 0x20, MT_DATA_ACK = 0x28, MT_DATA_NACK = 0x30,
	MR_SLA_ACK = 0x40, MR_SLA_NACK = 0x48, MR_DATA_ACK = 0x50, MR_DATA_NACK = 0x58,
};

/* CPU cycles of one SCL period. */
static uint32_t scl_cycles(avr_t *avr, const avr_twi_t *p)
{
	unsigned ps = avr_regbit_get(avr, p->twps);
	return 16u + 2u * avr->data[p->r_twbr] * (1u << (2 * ps));
}

/* The slot of the state timer simavr scheduled for p (its only cycle
 * timer), or NULL. */
static avr_cycle_timer_slot_p state_timer(avr_t *avr, const avr_twi_t *p)
{
	for (avr_cycle_timer_slot_p t = avr->cycle_timers.timer; t; t = t->next)
		if (t->param == p)
			return t;
	return NULL;
}

static int byte_status(uint8_t st)
{
	switch (st) {
	case MT_SLA_ACK: case MT_SLA_NACK: case MT_DATA_ACK: case MT_DATA_NACK:
	case MR_SLA_ACK: case MR_SLA_NACK: case MR_DATA_ACK: case MR_DATA_NACK:
		return 1;
	default:
		return 0;
	}
}

static void twcr_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	avr_twi_t *p = reghook_ud(h);
	/* A master that has sent START and no address yet sends the address
	 * with this write, if it clears TWINT and asks for no START/STOP. */
	int master_before_address = (p->state & TWI_COND_START) && !(p->state & TWI_COND_ADDR) &&
				    !(p->state & TWI_COND_SLAVE);
	int had_timer = state_timer(avr, p) != NULL;
	reghook_next_write(h, avr, addr, v);
	if (p->twi.raised.reg == addr && (v >> p->twi.raised.bit) & p->twi.raised.mask)
		avr_regbit_clear(avr, p->twi.raised);
	if (master_before_address && (p->state & TWI_COND_ADDR) && !(p->peer_addr & 1)) {
		if (p->next_twstate == MT_DATA_ACK)
			p->next_twstate = MT_SLA_ACK;
		else if (p->next_twstate == MT_DATA_NACK)
			p->next_twstate = MT_SLA_NACK;
	}
	avr_cycle_timer_slot_p t = state_timer(avr, p);
	if (t && !had_timer && byte_status(p->next_twstate))
		avr_cycle_timer_register(avr, 9 * scl_cycles(avr, p), t->timer, p);
}

enum { TWIS_MAX = 2 };

/* The TWIs of the chip, and each one's state timer while frozen. */
typedef struct twis {
	avr_t *avr;
	avr_twi_t *twi[TWIS_MAX];
	avr_cycle_timer_t frozen_fn[TWIS_MAX]; /* NULL: not frozen */
	avr_cycle_count_t left[TWIS_MAX];
	unsigned n;
} twis;

static void twi_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	(void)was;
	twis *w = self;
	int run = periph_clocked(c, CLOCK_IO, PR_TWI);
	for (unsigned i = 0; i < w->n; i++) {
		avr_twi_t *p = w->twi[i];
		avr_cycle_timer_slot_p t = state_timer(w->avr, p);
		if (!run && t && !w->frozen_fn[i]) {
			w->frozen_fn[i] = t->timer;
			w->left[i] = t->when > w->avr->cycle ? t->when - w->avr->cycle : 0;
			avr_cycle_timer_cancel(w->avr, t->timer, p);
		} else if (run && w->frozen_fn[i]) {
			avr_cycle_timer_register(w->avr, w->left[i] ? w->left[i] : 1, w->frozen_fn[i], p);
			w->frozen_fn[i] = NULL;
		}
	}
}

static void twi_reset(void *self)
{
	twis *w = self;
	for (unsigned i = 0; i < w->n; i++)
		w->frozen_fn[i] = NULL;
}

static const periph_ops TWI_OPS = { .name = "twi", .reset = twi_reset, .clocks = twi_clocks };

int twi_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	twis *w = calloc(1, sizeof *w);
	if (!w)
		return avrr_errf(err, "out of memory");
	w->avr = ctx->avr;
	if (periphs_add(p, &TWI_OPS, w, err))
		return -1;
	for (avr_io_t *io = NULL; (io = periph_next_io(ctx->avr, io, "twi"));) {
		avr_twi_t *t = (avr_twi_t *)io;
		if (!t->twen.reg || w->n == TWIS_MAX)
			continue;
		w->twi[w->n++] = t;
		if (!reghook_write(ctx->regs, t->twen.reg, reghook_bits(t->twi.raised, t->twen.reg),
				   "the TWI", twcr_write, t, err))
			return -1;
	}
	return 0;
}
