/*
 * periph_eeprom.c — the EEPROM's registers as the datasheets describe
 * them (ATmega328P §8.4 "EEPROM Data Memory" and §8.6 "Register
 * Description", Table 8-1 "EEPROM Mode Bits"; the ATmega2560's chapter of
 * the same titles; the ATmega16's "EEPROM Data Memory" and its "EEPROM
 * Programming Time" table), in place of simavr 1.6's.
 *
 * simavr 1.6 stores the byte and clears EEPE in the very write that sets
 * it, so a program polling EEPE never waits and a write takes no time; it
 * ignores EEPM (every write erases and writes); it raises EE_READY once,
 * 3.4 ms after a write (on the ATmega16 too), and never when EERIE is set
 * while the EEPROM is idle, where the chip's EE_READY is a level: pending
 * for as long as EEPE = 0 and EERIE = 1.  It reads during a write, takes
 * EEAR writes during one, and keeps EEAR's reserved bits as written.  Its
 * EEPROM_GET and EEPROM_SET ioctls do their work but answer "not
 * handled" (-1; upstream fixed it in 4fc6932), so avr_ioctl reports a
 * failure and sim_eeprom() found no EEPROM.  So its EECR write callback is
 * taken off (it never arms a cycle timer then) and this model runs from
 * simavr's description of the EEPROM (avr_eeprom_t: registers, bits,
 * vector), over simavr's own byte array, which stays the EEPROM's memory:
 * the ELF's .eeprom is loaded into it, sim_eeprom() and gdb read it.
 * simavr's I/O module stays registered (it frees the array); the ioctls
 * are answered by this model's module, which simavr asks first.
 *
 * The model.
 *  - EERE: with no write under way, EEDR = the byte at EEAR at once, and
 *    the CPU is halted four cycles before the next instruction (the cycle
 *    counter jumps by 4 after the storing instruction's own cycles).  With
 *    a write under way the read is ignored (the datasheet: "it is neither
 *    possible to read the EEPROM, nor to change the EEAR Register").
 *  - EEPE (EEWE): starts a write only when EEMPE (EEMWE) was set by a
 *    write whose instruction started at most 4 cycles before this one's,
 *    and no write is under way; EEMPE clears itself 4 cycles after it was
 *    set (its set and the EEPE write in one store do nothing).  The CPU is
 *    halted two cycles.  EEAR and EEDR are taken at the start; EEPE reads
 *    1 until the programming time has passed, and the byte changes then:
 *    EEPM 0 erases and writes (EEDR), 1 erases (0xff), 2 writes only
 *    (programming clears bits: old AND EEDR), 3 (reserved) is taken as 0.
 *    EEPM writes are ignored while EEPE is set; so are EEAR writes.
 *  - The programming time is the datasheet's typical one, timed by the
 *    chip's own calibrated RC oscillator: on the parts with EEPM (Table
 *    8-1) 3.4 ms to erase and write, 1.8 ms to erase, 1.8 ms to write (the
 *    mode table, which gives every mode; Table 8-2's 26,368 oscillator
 *    cycles, "3.3 ms", is the same write's count); on the older parts
 *    (ATmega8/16/32/128: no EEPM) 8.5 ms, the typical time of their 8448
 *    cycles of the 1 MHz oscillator.  A real chip's oscillator is off by
 *    some percent; the typical time is taken.  In CPU cycles that is
 *    time * F_CPU, rounded up to a whole cycle (the CPU sees EEPE fall at
 *    the first cycle at or after the end): 54,400 cycles for 3.4 ms at
 *    16 MHz, 28,800 for 1.8 ms, 68,000 for 8.5 ms at 8 MHz.
 *  - EE_READY is a level: pending whenever EERIE = 1 and no write is under
 *    way — at once when EERIE is set while idle, at the end of a write,
 *    and again at each entry of its vector while both hold, so that after
 *    each RETI the core's rule for a pending interrupt takes it again.
 *    While a write is under way it is withdrawn.
 *  - A reset (the watchdog's) lets a write under way finish ("the write
 *    operation will be completed"): EEPE and the EEPM of that write read
 *    on until its end, and the byte changes then; otherwise EECR is 0.
 *    EEAR resets to 0 (simavr's reset clears it; the datasheet leaves it
 *    undefined); EEAR's bits above the EEPROM's size read 0.
 *  - Sleep: the EEPROM's own oscillator times a write, so no sleep mode
 *    or PRR bit stops one.  But EE_READY wakes the CPU only from idle and
 *    ADC Noise Reduction (the wake-up sources table): in the deeper modes
 *    it is held off until the CPU wakes for another reason, and is due
 *    then.
 *
 * Not modelled, and said at record time (check): the flash's own
 * programming time.  simavr finishes an SPM at once, where the chip
 * programs a page for up to 4.5 ms, cannot program the EEPROM meanwhile
 * and holds EE_READY off; and the chip blocks an SPM while an EEPROM write
 * is under way, where simavr carries it out.  Also said: a write-only
 * (EEPM 2) to a byte not erased (the datasheet counts it lost), the
 * reserved EEPM 3, and EEPM bits written on a part whose EECR simavr 1.6
 * describes without them (its atmega16m1, whose avr-libc header has
 * them: the model can only take simavr's description).
 */
#include "sim/periph.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_eeprom.h>
#include <avr_flash.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

/* The timed sequence's window: an EEPE write whose instruction starts at
 * most this many cycles after the one that set EEMPE (as the watchdog's:
 * simavr stores at an instruction's start, the chip at its end; the two
 * agree when both writes are the same instruction, SBI/SBI or OUT/OUT). */
enum { WINDOW = 4 };

/* The CPU halt after a read and after the start of a write, in cycles. */
enum { HALT_READ = 4, HALT_WRITE = 2 };

/* The datasheets' typical programming times, in microseconds: by EEPM on
 * the parts that have it (3, reserved, taken as 0), else one time. */
static const uint32_t EEPM_US[4] = { 3400, 1800, 1800, 3400 };
enum { OLD_PART_US = 8500 };

/* The longest page erase or write by SPM (the datasheets' "Flash write
 * (page erase, page write, and write lock bits by SPM)": 3.7 to 4.5 ms). */
enum { SPM_US = 4500 };

enum { MODE_ATOMIC = 0, MODE_ERASE = 1, MODE_WRITE = 2, MODE_RESERVED = 3 };

/* What check() has said (its `warned` bits). */
enum { W_UNERASED = 1, W_RESERVED = 2, W_SPM_BLOCKED = 4, W_SPM_WRITE = 8, W_SPM_READY = 16,
       W_NO_EEPM = 32 };

typedef struct eeprom {
	/* Our own I/O module in simavr's list, at its head: avr_reset calls
	 * its reset, and avr_ioctl asks it first (the EEPROM's ioctls, and
	 * SPM, which it only notes). */
	avr_io_t io;
	avr_t *avr;
	avr_eeprom_t *sw;        /* simavr's description, and the memory */
	avr_flash_t *flash;      /* simavr's self-programming, or NULL */
	const char *mcu;
	const mcu_names *names;
	uint16_t eecr, eedr, eearl, eearh;  /* data addresses; eearh 0: none */
	uint16_t mask;           /* the EEPROM's address bits */
	uint8_t eere, eepe, eempe, eerie, eepm0, eepm1, eepm_mask;
	int has_eepm;
	int quiet;               /* withdrawing: the PENDING fall is ours */
	int deep;                /* asleep where EE_READY wakes nothing */
	/* the timed sequence */
	int window;
	uint64_t window_from;    /* the cycle of the write that set EEMPE */
	/* a write under way */
	int busy;
	uint64_t end;            /* the cycle it ends at */
	uint16_t addr;
	uint8_t value;
	uint8_t eepm_bits;       /* EECR's EEPM bits as the write found them */
	unsigned mode;
	/* the last SPM page erase or write */
	int spm_seen;
	uint64_t spm_at;
	/* for check(): the first of each */
	int unerased;
	uint16_t unerased_addr;
	uint8_t unerased_old, unerased_value;
	int reserved;
	int spm_blocked, spm_ready, spm_write;
	uint8_t no_eepm;         /* an EECR write with bits 5:4 where simavr has no EEPM */
	uint64_t spm_write_after;
} eeprom;

static eeprom *of_io(avr_io_t *io)
{
	return (eeprom *)(void *)((char *)io - offsetof(eeprom, io));
}

/* CPU cycles for us microseconds of the EEPROM's oscillator, rounded up. */
static uint64_t us_to_cycles(const eeprom *e, uint32_t us)
{
	uint64_t f = e->avr->frequency;
	return ((uint64_t)us * f + 999999u) / 1000000u;
}

static unsigned mode_of(const eeprom *e, uint8_t r)
{
	return (r & e->eepm0 ? 1u : 0u) | (r & e->eepm1 ? 2u : 0u);
}

static uint16_t eear(const eeprom *e)
{
	const uint8_t *d = e->avr->data;
	uint16_t a = d[e->eearl];
	if (e->eearh)
		a |= (uint16_t)(d[e->eearh] << 8);
	return a & e->mask;
}

/* ---- EE_READY, a level ---------------------------------------------- */

/* Takes EE_READY back (periph_withdraw); the PENDING fall is ours. */
static void withdraw(eeprom *e)
{
	e->quiet = 1;
	periph_withdraw(e->avr, &e->sw->ready);
	e->quiet = 0;
}

/* Makes EE_READY's pending state what EECR and the write say; a level
 * that rises in a deep sleep waits for the wake-up. */
static void level(eeprom *e)
{
	avr_t *avr = e->avr;
	int on = (avr->data[e->eecr] & e->eerie) && !e->busy;
	if (on && e->deep)
		return;
	if (on && !e->sw->ready.pending)
		avr_raise_interrupt(avr, &e->sw->ready);
	else if (!on)
		withdraw(e);
}

/* The vector's PENDING line fell: its entry (simavr's, or a replay's
 * sim_enter_vector) cleared it.  A level still high is pending again at
 * once (the CPU has I clear in the handler; after its RETI the core takes
 * the interrupt again by its own rule). */
static void on_pending(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	eeprom *e = param;
	if (!value && !e->quiet)
		level(e);
}

/* ---- the write ------------------------------------------------------ */

static void finish(eeprom *e)
{
	uint8_t *b = &e->sw->eeprom[e->addr];
	switch (e->mode) {
	case MODE_ERASE: *b = 0xff; break;
	case MODE_WRITE: *b &= e->value; break;
	default: *b = e->value; break;
	}
	e->busy = 0;
	e->avr->data[e->eecr] &= (uint8_t)~e->eepe;
	level(e);
}

static avr_cycle_count_t on_write_end(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr;
	(void)when;
	finish(param);
	return 0;
}

static void start_write(eeprom *e, uint8_t eepm_bits)
{
	avr_t *avr = e->avr;
	e->busy = 1;
	e->addr = eear(e);
	e->value = avr->data[e->eedr];
	e->eepm_bits = eepm_bits;
	e->mode = e->has_eepm ? mode_of(e, eepm_bits) : MODE_ATOMIC;
	uint32_t us = e->has_eepm ? EEPM_US[e->mode] : OLD_PART_US;
	e->end = avr->cycle + us_to_cycles(e, us);
	avr->data[e->eecr] |= e->eepe;
	avr_cycle_timer_register(avr, e->end - avr->cycle, on_write_end, e);
	uint8_t old = e->sw->eeprom[e->addr];
	if (e->mode == MODE_WRITE && (old & e->value) != e->value && !e->unerased) {
		e->unerased = 1;
		e->unerased_addr = e->addr;
		e->unerased_old = old;
		e->unerased_value = e->value;
	}
	if (e->mode == MODE_RESERVED)
		e->reserved = 1;
	uint64_t spm_cycles = us_to_cycles(e, SPM_US);
	if (e->spm_seen && avr->cycle - e->spm_at < spm_cycles && !e->spm_write) {
		e->spm_write = 1;
		e->spm_write_after = avr->cycle - e->spm_at;
	}
}

/* ---- registers ------------------------------------------------------ */

/* EEMPE clears itself WINDOW + 1 cycles after it was set. */
static avr_cycle_count_t on_window_end(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)when;
	eeprom *e = param;
	e->window = 0;
	avr->data[e->eecr] &= (uint8_t)~e->eempe;
	return 0;
}

static void eecr_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	(void)addr;
	eeprom *e = ud;
	uint8_t old = avr->data[e->eecr];
	int busy = e->busy;
	int open = e->window && avr->cycle - e->window_from <= WINDOW;
	unsigned halt = 0;
	/* EEPM is held while a write is under way; EERIE is free; EEPE reads
	 * the write, EEMPE the window; EERE reads 0 (the read is done before
	 * the next instruction). */
	uint8_t eepm = busy ? (old & e->eepm_mask) : (v & e->eepm_mask);
	if (!e->has_eepm && (v & 0x30) && !e->no_eepm)
		e->no_eepm = v;
	avr->data[e->eecr] = (uint8_t)(eepm | (v & e->eerie) | (old & e->eempe) |
				       (busy ? e->eepe : 0));
	if ((v & e->eepe) && open && !busy) {
		start_write(e, eepm);
		halt = HALT_WRITE;
	} else if ((v & e->eere) && !busy) {
		avr->data[e->eedr] = e->sw->eeprom[eear(e)];
		halt = HALT_READ;
	}
	/* EEMPE written 1 where it read 0 opens the window; written 0, it
	 * closes (after this write's own EEPE has been looked at). */
	if ((v & e->eempe) && !(old & e->eempe)) {
		e->window = 1;
		e->window_from = avr->cycle;
		avr->data[e->eecr] |= e->eempe;
		avr_cycle_timer_register(avr, WINDOW + 1, on_window_end, e);
	} else if (!(v & e->eempe) && (old & e->eempe)) {
		e->window = 0;
		avr->data[e->eecr] &= (uint8_t)~e->eempe;
		avr_cycle_timer_cancel(avr, on_window_end, e);
	}
	level(e);
	/* The halt: the next instruction starts `halt` cycles later. */
	avr->cycle += halt;
}

/* EEARL and EEARH: the bits above the EEPROM's size read 0, and a write
 * under way holds the register. */
static void eear_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	eeprom *e = ud;
	if (e->busy)
		return;
	uint8_t bits = addr == e->eearh ? (uint8_t)(e->mask >> 8) : (uint8_t)e->mask;
	avr->data[addr] = v & bits;
}

/* ---- reset and the ioctls ------------------------------------------- */

/* The chip's reset, from avr_reset (after it cleared the I/O registers,
 * every cycle timer and the pending interrupts).  A write under way goes
 * on: EEPE and its EEPM read on, its end is scheduled again. */
static void on_chip_reset(avr_io_t *io)
{
	eeprom *e = of_io(io);
	avr_t *avr = e->avr;
	e->window = 0;
	e->deep = 0;
	if (!e->busy) {
		avr->data[e->eecr] = 0;
		return;
	}
	avr->data[e->eecr] = e->eepe | e->eepm_bits;
	if (e->end > avr->cycle)
		avr_cycle_timer_register(avr, e->end - avr->cycle, on_write_end, e);
	else
		finish(e);
}

/* An SPM instruction, before simavr's flash module carries it out: a page
 * erase or write takes the chip's flash up to SPM_US, which simavr does
 * not model (see check). */
static void note_spm(eeprom *e)
{
	avr_flash_t *fl = e->flash;
	avr_t *avr = e->avr;
	if (!fl || !avr_regbit_get(avr, fl->selfprgen) ||
	    !(avr_regbit_get(avr, fl->pgers) || avr_regbit_get(avr, fl->pgwrt)))
		return;
	if (e->busy) {
		e->spm_blocked = 1;
		return;
	}
	e->spm_seen = 1;
	e->spm_at = avr->cycle;
	if (avr->data[e->eecr] & e->eerie)
		e->spm_ready = 1;
}

/* The EEPROM's ioctls on simavr's array, answered as handled (0): simavr
 * 1.6's own answer -1 even when they worked.  SPM is only noted. */
static int on_ioctl(avr_io_t *io, uint32_t ctl, void *param)
{
	eeprom *e = of_io(io);
	if (ctl == AVR_IOCTL_FLASH_SPM) {
		note_spm(e);
		return -1;
	}
	if (ctl != AVR_IOCTL_EEPROM_GET && ctl != AVR_IOCTL_EEPROM_SET)
		return -1;
	avr_eeprom_desc_t *d = param;
	uint8_t *mem = e->sw->eeprom;
	if (!d || (uint64_t)d->offset + d->size > e->sw->size)
		return -2;
	if (ctl == AVR_IOCTL_EEPROM_GET) {
		if (!d->ee)
			d->ee = mem + d->offset;  /* gdb's way: the bytes themselves */
		else if (d->ee != mem + d->offset)
			memmove(d->ee, mem + d->offset, d->size);
		return 0;
	}
	if (!d->ee || !d->size)
		return -2;
	memmove(mem + d->offset, d->ee, d->size);
	return 0;
}

/* ---- set-up --------------------------------------------------------- */

static void eeprom_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
			 void *ud)
{
	eeprom *e = self;
	const char *reg = ioregs_name(e->names, e->eecr);
	reg = reg ? reg : "EECR";
	char text[512];
	if (e->unerased && periph_first(warned, W_UNERASED)) {
		snprintf(text, sizeof text, "eeprom: %s started a write-only (EEPM 2) of 0x%02x to "
			 "EEPROM byte 0x%x, which held 0x%02x, not erased: the datasheet counts the "
			 "byte lost; avrr stores 0x%02x (programming only clears bits)", reg,
			 e->unerased_value, e->unerased_addr, e->unerased_old,
			 (unsigned)(e->unerased_old & e->unerased_value));
		warn(ud, text);
	}
	if (e->reserved && periph_first(warned, W_RESERVED)) {
		snprintf(text, sizeof text, "eeprom: %s started a write with EEPM 3, which is reserved "
			 "on the %s: avrr erases and writes (3.4 ms)", reg, e->mcu);
		warn(ud, text);
	}
	if (e->no_eepm && periph_first(warned, W_NO_EEPM)) {
		snprintf(text, sizeof text, "eeprom: %s was written 0x%02x, whose bits 5:4 are "
			 "EEPM1:0 on the parts that have them; simavr 1.6 describes none on the %s, so "
			 "avrr erases and writes every byte (8.5 ms)", reg, e->no_eepm, e->mcu);
		warn(ud, text);
	}
	if (e->spm_blocked && periph_first(warned, W_SPM_BLOCKED)) {
		snprintf(text, sizeof text, "eeprom: an SPM page erase or write came while an EEPROM "
			 "write was under way: the %s blocks programming the flash until EEPE clears, "
			 "simavr 1.6 carried it out", e->mcu);
		warn(ud, text);
	}
	if (e->spm_write && periph_first(warned, W_SPM_WRITE)) {
		snprintf(text, sizeof text, "eeprom: %s started an EEPROM write %llu cycles after an "
			 "SPM page erase or write: the %s cannot program the EEPROM while it writes the "
			 "flash (up to 4.5 ms), but simavr 1.6 ends an SPM at once, so avrr started the "
			 "write then", reg, (unsigned long long)e->spm_write_after, e->mcu);
		warn(ud, text);
	}
	if (e->spm_ready && periph_first(warned, W_SPM_READY)) {
		snprintf(text, sizeof text, "eeprom: an SPM page erase or write came with EE_READY "
			 "enabled (%s's EERIE): the %s holds the interrupt off until the flash is "
			 "written (up to 4.5 ms), but simavr 1.6 ends an SPM at once, so avrr kept it "
			 "pending", reg, e->mcu);
		warn(ud, text);
	}
}

/* A sleep begins or ends: EE_READY wakes the CPU from idle and ADC Noise
 * Reduction only. */
static void eeprom_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	(void)was;
	eeprom *e = self;
	e->deep = c->mode != SLEEP_AWAKE && c->mode != SLEEP_IDLE && c->mode != SLEEP_ADC_NOISE;
	if (!e->deep)
		level(e);
}

/* The chip's reset is done from avr_reset itself (on_chip_reset). */
static const periph_ops EEPROM_OPS = {
	.name = "eeprom",
	.reset = NULL,
	.check = eeprom_check,
	.clocks = eeprom_clocks,
};

static void *port_of_kind(avr_t *avr, const char *kind)
{
	for (avr_io_t *port = avr->io_port; port; port = port->next)
		if (port->kind && !strcmp(port->kind, kind))
			return port;
	return NULL;
}

int eeprom_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	avr_eeprom_t *sw = port_of_kind(avr, "eeprom");
	if (!sw || !sw->size || !sw->eeprom || !sw->r_eecr || !sw->r_eedr || !sw->r_eearl ||
	    !sw->eepe.reg || !sw->eempe.reg || !sw->eere.reg)
		return 0;  /* no EEPROM on this core */
	eeprom *e = calloc(1, sizeof *e);
	if (!e)
		return avrr_errf(err, "out of memory");
	*e = (eeprom){ .avr = avr, .sw = sw, .mcu = ctx->mcu, .names = ctx->names,
		       .eecr = sw->r_eecr, .eedr = sw->r_eedr, .eearl = sw->r_eearl,
		       .eearh = sw->r_eearh, .mask = (uint16_t)(sw->size - 1) };
	if (periphs_add(p, &EEPROM_OPS, e, err))
		return -1;
	e->eere = periph_bits(sw->eere);
	e->eepe = periph_bits(sw->eepe);
	e->eempe = periph_bits(sw->eempe);
	e->eerie = periph_bits(sw->ready.enable);
	e->eepm0 = periph_bits(sw->eepm[0]);
	e->eepm1 = periph_bits(sw->eepm[1]);
	e->eepm_mask = e->eepm0 | e->eepm1;
	e->has_eepm = e->eepm_mask != 0;
	avr_flash_t *fl = port_of_kind(avr, "flash");
	e->flash = fl && fl->r_spm ? fl : NULL;

	periph_cut_simavr(avr, sw, sizeof *sw, NULL, 0);
	e->io = (avr_io_t){ .kind = "avrr eeprom", .ioctl = on_ioctl, .reset = on_chip_reset };
	avr_register_io(avr, &e->io);
	if (!reghook_write(ctx->regs, e->eecr, 0xff, "the EEPROM", eecr_write, e, err) ||
	    !reghook_write(ctx->regs, e->eearl, 0xff, "the EEPROM", eear_write, e, err) ||
	    (e->eearh && !reghook_write(ctx->regs, e->eearh, 0xff, "the EEPROM", eear_write, e,
					err)))
		return -1;
	if (sw->ready.vector)
		avr_irq_register_notify(sw->ready.irq + AVR_INT_IRQ_PENDING, on_pending, e);
	/* The state at power-on (simavr reset the chip before we came). */
	on_chip_reset(&e->io);
	return 0;
}
