/*
 * reghook.h — the one way anything in avrr takes over an I/O register's
 * reads or writes (private to sim/).
 *
 * simavr keeps one read and one write callback per I/O slot.  A hook is
 * put in front of whatever is there and keeps it as its `next`, so hooks
 * on one register chain: the last one installed runs first, and each
 * passes the access on (reghook_next_read/write) or ends it.  So the
 * fixes of simavr's own behaviour are installed at sim_open, before the
 * recorder's watches (sim_watch_*), which then see the corrected
 * behaviour.
 *
 * A hook may claim bits of the register (`owns`): the bits whose
 * behaviour it alone decides (the timers' PSR10 in SFIOR, the ADC's ADTS
 * in the same register).  Two hooks claiming one bit are a real conflict
 * and the second is refused with an error naming both owners — never a
 * fix silently lost.  Hooks that only look (the recorder's watches, the
 * pins' observer) claim nothing.
 */
#ifndef AVRR_SIM_REGHOOK_H
#define AVRR_SIM_REGHOOK_H

#include <stdint.h>

#include <sim_avr.h>

#include "util/err.h"

typedef struct reghooks reghooks;
typedef struct reghook reghook;

/* Called for a CPU read (write) of the register at data address `addr`,
 * with the hook itself as `hook` (reghook_ud gives the hook's own
 * pointer).  These are simavr's own callback types: simavr calls a hook
 * directly, one indirect call a hook, which matters for the watches, run
 * at every access of a watched register. */
typedef uint8_t (*reghook_read_fn)(struct avr_t *avr, uint16_t addr, void *hook);
typedef void (*reghook_write_fn)(struct avr_t *avr, uint16_t addr, uint8_t v, void *hook);

/* A hook.  Its layout is here only so that reghook_ud and
 * reghook_next_read/write are inline; the rest is reghook.c's. */
struct reghook {
	avr_io_read_t next_read;      /* what simavr's slot held before */
	avr_io_write_t next_write;
	void *next_param;
	void *ud;
	reghook *all;                 /* every hook of the chip, for freeing */
	reghooks *r;
	uint16_t addr;
	uint8_t owns;
	int write;
	const char *owner;
	reghook_read_fn read_fn;
	reghook_write_fn write_fn;
};

/* The chains of one simulated chip; NULL when out of memory. */
reghooks *reghooks_open(struct avr_t *avr, const char *mcu);
void reghooks_close(reghooks *r);

/* Puts fn in front of the read (write) chain of data address addr, for
 * `owner` (a name for messages), claiming the bits in `owns`; `ud` is
 * the hook's own pointer.  Returns the hook, or NULL with err set: addr
 * is no I/O register, or another hook already claims one of those bits
 * ("SFIOR bit 0 is claimed by timer prescaler and by adc trigger"), or
 * out of memory. */
reghook *reghook_read(reghooks *r, uint16_t addr, uint8_t owns, const char *owner,
		      reghook_read_fn fn, void *ud, avrr_err *err);
reghook *reghook_write(reghooks *r, uint16_t addr, uint8_t owns, const char *owner,
		       reghook_write_fn fn, void *ud, avrr_err *err);

/* The ud a hook was installed with. */
static inline void *reghook_ud(const reghook *h)
{
	return h->ud;
}

/* Passes the access on down the chain (finally to simavr's own callback,
 * or the data byte itself when simavr has none). */
static inline uint8_t reghook_next_read(const reghook *h, struct avr_t *avr, uint16_t addr)
{
	return h->next_read ? h->next_read(avr, addr, h->next_param) : avr->data[addr];
}

static inline void reghook_next_write(const reghook *h, struct avr_t *avr, uint16_t addr,
				      uint8_t v)
{
	if (h->next_write)
		h->next_write(avr, addr, v, h->next_param);
	else
		avr->data[addr] = v;
}

/* The bits of simavr's register bit rb where it lives in register reg
 * (0 elsewhere): what a hook that decides rb claims there. */
static inline uint8_t reghook_bits(avr_regbit_t rb, uint16_t reg)
{
	return rb.reg && rb.reg == reg ? (uint8_t)(rb.mask << rb.bit) : 0;
}

/* Whether the read (write) chain of addr holds a hook installed with fn. */
int reghook_has_read(const reghooks *r, uint16_t addr, reghook_read_fn fn);
int reghook_has_write(const reghooks *r, uint16_t addr, reghook_write_fn fn);

/* The value a write of v to addr means for a register of flags cleared
 * by writing 1 (TIFRn, PCIFR, EIFR, ...): on the newer parts SBI and CBI
 * on a register below 0x20 write the addressed bit alone (SBI: that bit,
 * CBI: nothing), where the older ones (ATmega8/16/32/128) read, modify
 * and write back the whole register, clearing every flag that was set. */
uint8_t reghook_flags_written(const reghooks *r, struct avr_t *avr, uint16_t addr, uint8_t v);

/* Whether SBI/CBI on the part named mcu read, modify and write the whole
 * register (the older parts, whose PINx are read-only too). */
int reghook_rmw_part(const char *mcu);

/* The SBI (0x9a00 | A << 3 | b) or CBI (0x9800 | ...) instruction at the
 * PC when it addresses data address addr, else 0. */
uint16_t reghook_bit_op(const struct avr_t *avr, uint16_t addr);

/* Writes v to data address addr as an instruction's store would: through
 * the whole write chain. */
void reghook_store(struct avr_t *avr, uint16_t addr, uint8_t v);

#endif
