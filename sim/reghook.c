/*
 * reghook.c — chained register hooks (see reghook.h).  Each hook sits in
 * simavr's avr->io[] slot with itself as the parameter and keeps what was
 * there before; hooks live until the chip is closed, so simavr may keep
 * pointers to them.
 */
#include "sim/reghook.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <sim_avr.h>
#include <sim_io.h>

#include "sim/ioregs.h"

struct reghook {
	reghook *all;                 /* every hook of the chip, for freeing */
	reghooks *r;
	uint16_t addr;
	uint8_t owns;
	int write;
	const char *owner;
	reghook_read_fn read_fn;
	reghook_write_fn write_fn;
	void *ud;
	avr_io_read_t next_read;      /* what simavr's slot held before */
	avr_io_write_t next_write;
	void *next_param;
};

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

static uint8_t trampoline_read(avr_t *avr, avr_io_addr_t addr, void *param)
{
	reghook *h = param;
	return h->read_fn(h, avr, addr, h->ud);
}

static void trampoline_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	reghook *h = param;
	h->write_fn(h, avr, addr, v, h->ud);
}

uint8_t reghook_next_read(reghook *h, struct avr_t *avr, uint16_t addr)
{
	return h->next_read ? h->next_read(avr, addr, h->next_param) : avr->data[addr];
}

void reghook_next_write(reghook *h, struct avr_t *avr, uint16_t addr, uint8_t v)
{
	if (h->next_write)
		h->next_write(avr, addr, v, h->next_param);
	else
		avr->data[addr] = v;
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

static reghook *install(reghooks *r, uint16_t addr, int write, uint8_t owns, const char *owner,
			avrr_err *err)
{
	avr_t *avr = r->avr;
	/* simavr 1.6's ATtiny13 core leaves ioend 0: its names' end then. */
	uint16_t ioend = avr->ioend ? avr->ioend : (uint16_t)(ioregs_io_end(r->names) - 1);
	if (addr < 32 || addr >= 32 + MAX_IOs || addr > ioend) {
		avrr_errf(err, "sim: %s: 0x%x is not an I/O register address", owner, addr);
		return NULL;
	}
	const reghook *other = claimant(r, addr, write, owns);
	if (other) {
		const char *name = ioregs_name(r->names, addr);
		char reg[16];
		if (!name) {
			snprintf(reg, sizeof reg, "0x%x", addr);
			name = reg;
		}
		unsigned bit = (unsigned)__builtin_ctz(other->owns & owns);
		avrr_errf(err, "sim: %s bit %u is claimed by %s and by %s", name, bit, other->owner,
			  owner);
		return NULL;
	}
	reghook *h = calloc(1, sizeof *h);
	if (!h) {
		avrr_errf(err, "out of memory");
		return NULL;
	}
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	*h = (reghook){ .all = r->all, .r = r, .addr = addr, .owns = owns, .write = write,
			.owner = owner };
	if (write) {
		h->next_write = avr->io[io].w.c;
		h->next_param = avr->io[io].w.param;
		avr->io[io].w.c = trampoline_write;
		avr->io[io].w.param = h;
	} else {
		h->next_read = avr->io[io].r.c;
		h->next_param = avr->io[io].r.param;
		avr->io[io].r.c = trampoline_read;
		avr->io[io].r.param = h;
	}
	r->all = h;
	return h;
}

reghook *reghook_read(reghooks *r, uint16_t addr, uint8_t owns, const char *owner,
		      reghook_read_fn fn, void *ud, avrr_err *err)
{
	reghook *h = install(r, addr, 0, owns, owner, err);
	if (h) {
		h->read_fn = fn;
		h->ud = ud;
	}
	return h;
}

reghook *reghook_write(reghooks *r, uint16_t addr, uint8_t owns, const char *owner,
		       reghook_write_fn fn, void *ud, avrr_err *err)
{
	reghook *h = install(r, addr, 1, owns, owner, err);
	if (h) {
		h->write_fn = fn;
		h->ud = ud;
	}
	return h;
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
