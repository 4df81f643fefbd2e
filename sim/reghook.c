/*
 * reghook.c — chained register hooks (see reghook.h).  Each hook's
 * function sits in simavr's avr->io[] slot with the hook itself as the
 * parameter and keeps what was there before; hooks live until the chip
 * is closed, so simavr may keep pointers to them.
 */
#include "sim/reghook.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <sim_avr.h>
#include <sim_io.h>

#include "sim/ioregs.h"

/* A hook's function goes into simavr's slot as it is. */
_Static_assert(__builtin_types_compatible_p(reghook_read_fn, avr_io_read_t),
	       "reghook_read_fn is simavr's avr_io_read_t");
_Static_assert(__builtin_types_compatible_p(reghook_write_fn, avr_io_write_t),
	       "reghook_write_fn is simavr's avr_io_write_t");

struct reghooks {
	avr_t *avr;
	const mcu_names *names;
	reghook *all;
	int rmw_bits;
};

/* The parts whose SBI/CBI read, modify and write the whole register
 * (their datasheets' "About Code Examples"/register summary notes; their
 * PINx are read-only too). */
static const char *const RMW_PARTS[] = {
	"atmega8", "atmega8l", "atmega16", "atmega32", "atmega128", "atmega128l",
};

reghooks *reghooks_open(struct avr_t *avr, const char *mcu)
{
	reghooks *r = calloc(1, sizeof *r);
	if (r) {
		r->avr = avr;
		r->names = ioregs_lookup(mcu);
		r->rmw_bits = reghook_rmw_part(mcu);
	}
	return r;
}

int reghook_rmw_part(const char *mcu)
{
	for (size_t i = 0; i < sizeof RMW_PARTS / sizeof *RMW_PARTS; i++)
		if (!strcasecmp(mcu, RMW_PARTS[i]))
			return 1;
	return 0;
}

uint16_t reghook_bit_op(const struct avr_t *avr, uint16_t addr)
{
	if (avr->pc + 1 > avr->flashend)
		return 0;
	uint16_t op = (uint16_t)(avr->flash[avr->pc] | avr->flash[avr->pc + 1] << 8);
	if ((op & 0xfd00) != 0x9800 || ((op >> 3) & 0x1f) + 32u != addr)
		return 0;
	return op;
}

uint8_t reghook_flags_written(const reghooks *r, struct avr_t *avr, uint16_t addr, uint8_t v)
{
	uint16_t op = r->rmw_bits ? 0 : reghook_bit_op(avr, addr);
	if (!op)
		return v;
	return op & 0x0200 ? (uint8_t)(1u << (op & 7)) : 0;
}

void reghooks_close(reghooks *r)
{
	if (!r)
		return;
	for (reghook *h = r->all, *next; h; h = next) {
		next = h->all;
		free(h);
	}
	free(r);
}

/* The hook of the chain at addr (one direction) that claims a bit of
 * `bits`, or NULL. */
static const reghook *claimant(const reghooks *r, uint16_t addr, int write, uint8_t bits)
{
	for (const reghook *h = r->all; h; h = h->all)
		if (h->addr == addr && h->write == write && (h->owns & bits))
			return h;
	return NULL;
}

/* Puts h, filled but for its chain, in front of its slot's chain. */
static reghook *install(reghooks *r, reghook h, avrr_err *err)
{
	avr_t *avr = r->avr;
	uint16_t addr = h.addr;
	/* simavr 1.6's ATtiny13 core leaves ioend 0: its names' end then. */
	uint16_t ioend = avr->ioend ? avr->ioend : (uint16_t)(ioregs_io_end(r->names) - 1);
	if (addr < 32 || addr >= 32 + MAX_IOs || addr > ioend) {
		avrr_errf(err, "sim: %s: 0x%x is not an I/O register address", h.owner, addr);
		return NULL;
	}
	const reghook *other = claimant(r, addr, h.write, h.owns);
	if (other) {
		const char *name = ioregs_name(r->names, addr);
		char reg[16];
		if (!name) {
			snprintf(reg, sizeof reg, "0x%x", addr);
			name = reg;
		}
		unsigned bit = (unsigned)__builtin_ctz(other->owns & h.owns);
		avrr_errf(err, "sim: %s bit %u is claimed by %s and by %s", name, bit, other->owner,
			  h.owner);
		return NULL;
	}
	reghook *p = malloc(sizeof *p);
	if (!p) {
		avrr_errf(err, "out of memory");
		return NULL;
	}
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	*p = h;
	p->all = r->all;
	p->r = r;
	if (h.write) {
		p->next_write = avr->io[io].w.c;
		p->next_param = avr->io[io].w.param;
		avr->io[io].w.c = h.write_fn;
		avr->io[io].w.param = p;
	} else {
		p->next_read = avr->io[io].r.c;
		p->next_param = avr->io[io].r.param;
		avr->io[io].r.c = h.read_fn;
		avr->io[io].r.param = p;
	}
	r->all = p;
	return p;
}

reghook *reghook_read(reghooks *r, uint16_t addr, uint8_t owns, const char *owner,
		      reghook_read_fn fn, void *ud, avrr_err *err)
{
	return install(r, (reghook){ .addr = addr, .owns = owns, .owner = owner, .read_fn = fn,
				     .ud = ud }, err);
}

reghook *reghook_write(reghooks *r, uint16_t addr, uint8_t owns, const char *owner,
		       reghook_write_fn fn, void *ud, avrr_err *err)
{
	return install(r, (reghook){ .addr = addr, .owns = owns, .write = 1, .owner = owner,
				     .write_fn = fn, .ud = ud }, err);
}

int reghook_has_read(const reghooks *r, uint16_t addr, reghook_read_fn fn)
{
	for (const reghook *h = r->all; h; h = h->all)
		if (h->addr == addr && !h->write && h->read_fn == fn)
			return 1;
	return 0;
}

int reghook_has_write(const reghooks *r, uint16_t addr, reghook_write_fn fn)
{
	for (const reghook *h = r->all; h; h = h->all)
		if (h->addr == addr && h->write && h->write_fn == fn)
			return 1;
	return 0;
}

void reghook_store(struct avr_t *avr, uint16_t addr, uint8_t v)
{
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	if (avr->io[io].w.c)
		avr->io[io].w.c(avr, addr, v, avr->io[io].w.param);
	else
		avr->data[addr] = v;
}
