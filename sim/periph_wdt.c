/*
 * periph_wdt.c — the Watchdog Timer as the datasheets describe it
 * (ATmega328P §10.9, and the "Watchdog Timer" sections of the ATmega88,
 * ATmega2560 and ATtiny85; the older WDTCR of the ATmega8/16/32/128), in
 * place of simavr 1.6's.
 *
 * simavr 1.6 clears WDIE after every watchdog interrupt, so interrupt
 * mode gives one interrupt and stops (an RTOS ticked by the watchdog gets
 * 1 tick a second instead of 62).  It also ignores a 1 written to WDIF,
 * rounds each period down and counts the next from there (the error
 * accumulates), lets the ATmega16's reserved bit 6 turn the reset off,
 * turns the older parts' watchdog back on after a watchdog reset, and
 * clears MCUSR's other flags then.  So its watchdog is cut out — its
 * WDTCSR write callback, cycle timers, WDR handler (the port's ioctl),
 * reset hook and interrupt notification — and this model runs from
 * simavr's description of it (avr_watchdog_t: registers, bits, vector).
 *
 * The model.  Two kinds of part:
 *  - the 128 kHz parts (WDTCSR, or the ATtinys' WDTCR, with WDIF/WDIE):
 *    a timeout is 2048 << WDP oscillator cycles, WDP 0..9; WDIE = 1,
 *    WDE = 0 interrupts at every timeout; WDE = 1, WDIE = 0 resets;
 *    both: the first timeout interrupts, and entering the vector clears
 *    WDIE (the next timeout resets, as does one that finds WDIF still
 *    set).  WDRF in MCUSR forces WDE on, so after a watchdog reset the
 *    watchdog runs at WDP 0 (16 ms) until the program clears WDRF and
 *    then WDE.  Clearing WDE and changing WDP take the timed sequence.
 *  - the older parts (ATmega8/16/32/128's WDTCR): a 1 MHz oscillator,
 *    16K << WDP cycles, WDP 0..7, reset mode only, no WDRF override (the
 *    register resets to 0, so a watchdog reset leaves it stopped).  The
 *    timed sequence clears WDE; on the ATmega16/32 (WDTOE) WDP is free,
 *    on the ATmega8/128 (WDCE, safety level 1) it takes the sequence too.
 *
 * The counter runs from its restart (WDR, the start of the watchdog, a
 * reset) and times out at every multiple of the period; a WDP change
 * while it runs moves the next timeout to the next multiple of the new
 * period (the prescaler's taps are one counter).
 */
#include "sim/periph.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <avr_watchdog.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

/* The timed sequence's window: a write whose instruction starts at most
 * this many cycles after the one that set WDCE (WDTOE) and WDE.  simavr
 * stores at the start of an instruction and the chip at its end; the two
 * agree when both writes are the same instruction (OUT/OUT, STS/STS). */
enum { WINDOW = 4 };

/* What check() has said (its `warned` bits). */
enum { W_WDTON = 1, W_RESERVED = 2, W_M103C = 4 };

typedef struct wdt {
	/* Our own I/O module in simavr's list: the WDR opcode reaches it by
	 * avr_ioctl, and avr_reset calls its reset (see on_chip_reset). */
	avr_io_t io;
	avr_t *avr;
	avr_watchdog_t *sw;      /* simavr's description of this watchdog */
	const char *mcu;
	const mcu_names *names;
	uint16_t reg, mcusr;     /* WDTCSR (WDTCR) and MCUSR (MCUCSR): data addresses */
	uint8_t wde, wdce, wdie, wdif, wdrf, wdp_mask, mask; /* bit masks */
	uint8_t wdp_bit[4];
	unsigned nwdp;
	int modern;              /* the 128 kHz kind (see the header note) */
	int wdp_free;            /* WDP writable without the sequence (WDTOE) */
	int wdton;               /* the part has a WDTON fuse */
	int m103c_part;          /* the ATmega128, with its M103C fuse */
	uint32_t osc_hz;         /* the watchdog oscillator */
	uint32_t base;           /* its cycles to a timeout at WDP 0 */
	/* the counter */
	int running;
	uint64_t start;          /* the cycle it restarted at */
	uint64_t period;         /* oscillator cycles a timeout */
	uint64_t k;              /* the timeout scheduled is the k-th multiple */
	/* the timed sequence */
	int window;
	uint64_t window_from;    /* the cycle of the write that opened it */
	int window_ran;          /* the watchdog ran before that write */
	/* a reset under way (see begin_reset) */
	int reset_due;
	uint8_t mcusr_before;
	avr_run_t run_before;
	/* for check(): what the program did that the model takes one way */
	unsigned reserved_wdp;   /* a reserved WDP selected, + 1 (0: none) */
	const char *wdton_use;   /* a use only an unprogrammed WDTON allows */
	int m103c;               /* ATmega128: a WDP change refused (safety level 1) */
} wdt;

static wdt *of_io(avr_io_t *io)
{
	return (wdt *)(void *)((char *)io - offsetof(wdt, io));
}

/* ---- time ----------------------------------------------------------- */

/* The CPU cycle, counted from the restart, at which the counter has
 * counted n oscillator cycles: the oscillator's n-th edge falls at
 * n * F / f_osc cycles, and the CPU sees it at the first whole cycle at or
 * after it (rounded up).  Each timeout is placed from the restart, not
 * from the one before, so the rounding never accumulates: at 16 MHz a
 * 128 kHz cycle is 125 CPU cycles exactly; at 14.7456 MHz the k-th 16 ms
 * timeout is ceil(k * 235929.6). */
static uint64_t osc_to_cycles(const wdt *w, uint64_t n)
{
	uint64_t f = w->osc_hz, cpu = w->avr->frequency;
	return n / f * cpu + ((n % f) * cpu + f - 1) / f;
}

/* Oscillator cycles counted by CPU cycle c (c >= start): the inverse,
 * rounded down. */
static uint64_t cycles_to_osc(const wdt *w, uint64_t c)
{
	uint64_t d = c - w->start, f = w->osc_hz, cpu = w->avr->frequency;
	return d / cpu * f + (d % cpu) * f / cpu;
}

static unsigned wdp_of(const wdt *w, uint8_t r)
{
	unsigned wdp = 0;
	for (unsigned i = 0; i < w->nwdp; i++)
		wdp |= (unsigned)(r >> w->wdp_bit[i] & 1) << i;
	return wdp;
}

/* Oscillator cycles to a timeout at the WDP in r, for a running
 * watchdog.  WDP 10..15 are reserved on the 128 kHz parts: timed as the
 * longest defined, 9 (8 s), and check() says so. */
static uint64_t period_of(wdt *w, uint8_t r)
{
	unsigned wdp = wdp_of(w, r);
	if (w->modern && wdp > 9) {
		if (!w->reserved_wdp)
			w->reserved_wdp = wdp + 1;
		wdp = 9;
	}
	return (uint64_t)w->base << wdp;
}

static avr_cycle_count_t on_timeout(avr_t *avr, avr_cycle_count_t when, void *param);

/* The cycle of the k-th timeout from the restart. */
static uint64_t timeout_cycle(const wdt *w)
{
	return w->start + osc_to_cycles(w, w->k * w->period);
}

static void schedule(wdt *w)
{
	avr_t *avr = w->avr;
	uint64_t when = timeout_cycle(w);
	avr_cycle_timer_register(avr, when > avr->cycle ? when - avr->cycle : 1, on_timeout, w);
}

/* The counter restarts at the current cycle. */
static void restart(wdt *w)
{
	w->start = w->avr->cycle;
	w->k = 1;
	schedule(w);
}

/* Brings the counter in line with WDTCSR after it changed: starts it
 * (from zero) when the watchdog was stopped, stops it, or moves the next
 * timeout to the new period's next multiple. */
static void update(wdt *w)
{
	avr_t *avr = w->avr;
	uint8_t r = avr->data[w->reg];
	if (!(r & (w->wde | w->wdie))) {
		if (w->running)
			avr_cycle_timer_cancel(avr, on_timeout, w);
		w->running = 0;
		return;
	}
	uint64_t period = period_of(w, r);
	if (w->wdton && !w->wdton_use && (r & w->wdie))
		w->wdton_use = "puts the watchdog in interrupt mode";
	if (!w->running) {
		w->running = 1;
		w->period = period;
		restart(w);
	} else if (period != w->period) {
		w->period = period;
		w->k = cycles_to_osc(w, avr->cycle) / period + 1;
		schedule(w);
	}
}

/* ---- reset ---------------------------------------------------------- */

/* simavr's way to reset the chip from a cycle timer: avr->run is swapped
 * for this, and the run loop calls it at the next step (sim.c's step()
 * notices the swap and calls it once; simavr's own avr_run does too).
 * avr_reset calls on_chip_reset, which puts avr->run back. */
static void run_reset(avr_t *avr)
{
	avr_reset(avr);
}

static void begin_reset(wdt *w)
{
	avr_t *avr = w->avr;
	w->reset_due = 1;
	w->mcusr_before = avr->data[w->mcusr];
	if (avr->run != run_reset)
		w->run_before = avr->run;
	avr->run = run_reset;
	w->running = 0;
	/* A reset ends a sleep: the run loop must not skip ahead to its next
	 * cycle timer first. */
	if (avr->state == cpu_Sleeping)
		avr->state = cpu_Running;
}

/* The chip's reset, from avr_reset (after it cleared the I/O registers and
 * every cycle timer): so it also holds where nothing calls the registry's
 * reset (sim_run_plain, simavr's own loop).  A watchdog reset sets WDRF
 * and leaves MCUSR's other flags as they were (the datasheet clears them
 * only at power-on or by a write of 0; simavr's avr_reset zeroes them).
 * WDTCSR resets to 0 but for WDE, which WDRF forces on the 128 kHz parts. */
static void on_chip_reset(avr_io_t *io)
{
	wdt *w = of_io(io);
	avr_t *avr = w->avr;
	if (w->reset_due) {
		w->reset_due = 0;
		avr->run = w->run_before;
		avr->data[w->mcusr] = w->mcusr_before | w->wdrf;
	}
	w->running = 0;
	w->window = 0;
	avr->data[w->reg] = w->modern && (avr->data[w->mcusr] & w->wdrf) ? w->wde : 0;
	update(w);
}

/* ---- timeouts ------------------------------------------------------- */

static avr_cycle_count_t on_timeout(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)when;
	wdt *w = param;
	uint8_t r = avr->data[w->reg];
	/* Interrupt mode, or the first timeout of interrupt-and-reset mode
	 * (WDIF not yet set: the interrupt was taken, or this is the first). */
	if ((r & w->wdie) && !((r & w->wde) && (r & w->wdif))) {
		avr_raise_interrupt(avr, &w->sw->watchdog);  /* sets WDIF */
	} else if (r & w->wde) {
		begin_reset(w);
		return 0;
	}
	w->k++;
	return timeout_cycle(w);
}

/* The WDT vector entered (simavr's entry, or a replay's sim_enter_vector):
 * in interrupt-and-reset mode the hardware clears WDIE, and the watchdog
 * goes to system reset mode.  In interrupt mode WDIE stays set. */
static void on_vector_entry(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	wdt *w = param;
	avr_t *avr = w->avr;
	if (value && (avr->data[w->reg] & w->wde))
		avr->data[w->reg] &= (uint8_t)~w->wdie;
}

/* The WDR instruction (simavr's core calls avr_ioctl for it). */
static int on_ioctl(avr_io_t *io, uint32_t ctl, void *param)
{
	(void)param;
	if (ctl != AVR_IOCTL_WATCHDOG_RESET)
		return -1;
	wdt *w = of_io(io);
	if (w->running)
		restart(w);
	return 0;
}

/* ---- registers ------------------------------------------------------ */

static int window_open(const wdt *w)
{
	return w->window && w->avr->cycle - w->window_from <= WINDOW;
}

/* WDCE (WDTOE) clears itself after the window. */
static avr_cycle_count_t on_window_end(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)when;
	wdt *w = param;
	w->window = 0;
	avr->data[w->reg] &= (uint8_t)~w->wdce;
	return 0;
}

static void wdtcsr_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	(void)addr;
	wdt *w = reghook_ud(h);
	uint8_t old = avr->data[w->reg];
	int open = window_open(w);
	uint8_t r = old & (uint8_t)~(w->wdce | w->wdie);
	r |= v & w->wdie;                    /* WDIE: free */
	if (open)
		r = (uint8_t)((r & ~w->wde) | (v & w->wde));
	else
		r |= v & w->wde;             /* WDE can be set, not cleared */
	if (w->modern && (avr->data[w->mcusr] & w->wdrf))
		r |= w->wde;                 /* WDRF overrides WDE */
	/* (wdt_disable() at start-up sets WDE for the sequence's 2 cycles:
	 * that stops nothing.) */
	if (w->wdton && !w->wdton_use && open && w->window_ran && !(r & (w->wde | w->wdie)))
		w->wdton_use = "stops the watchdog";
	uint8_t opening = (v & w->wdce) && (v & w->wde);
	if (open || w->wdp_free)
		r = (uint8_t)((r & ~w->wdp_mask) | (v & w->wdp_mask));
	else if (!opening && ((v ^ old) & w->wdp_mask) && w->m103c_part)
		w->m103c = 1;
	/* WDCE (WDTOE) and WDE written one together open the window; any
	 * other write closes it (the sequence's second write is one
	 * operation). */
	if (opening) {
		r |= w->wdce;
		w->window = 1;
		w->window_from = avr->cycle;
		w->window_ran = w->running;
		avr_cycle_timer_register(avr, WINDOW + 1, on_window_end, w);
	} else if (w->window) {
		w->window = 0;
		avr_cycle_timer_cancel(avr, on_window_end, w);
	}
	avr->data[w->reg] = r & w->mask;
	/* WDIF: a 1 written clears it (and withdraws the interrupt). */
	if ((v & w->wdif) && (old & w->wdif))
		avr_clear_interrupt(avr, &w->sw->watchdog);
	/* WDIE set while WDIF is: the interrupt is due now (simavr queues a
	 * vector only when its flag rises with the enable set). */
	else if ((r & w->wdie) && !(old & w->wdie) && (old & w->wdif))
		avr_raise_interrupt(avr, &w->sw->watchdog);
	update(w);
}

/* MCUSR written: WDRF, where the program sets it, forces WDE on at once
 * (the 128 kHz parts; a watchdog reset sets both itself). */
static void mcusr_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	wdt *w = reghook_ud(h);
	reghook_next_write(h, avr, addr, v);
	if ((avr->data[w->mcusr] & w->wdrf) && !(avr->data[w->reg] & w->wde)) {
		avr->data[w->reg] |= w->wde;
		update(w);
	}
}

/* ---- set-up --------------------------------------------------------- */

/* Record-time warnings: what the program did that depends on what the
 * model cannot know (the fuses) or the datasheet leaves open. */
static void wdt_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
		      void *ud)
{
	wdt *w = self;
	const char *reg = ioregs_name(w->names, w->reg);
	reg = reg ? reg : "WDTCSR";
	char text[512];
	if (w->wdton_use && periph_first(warned, W_WDTON)) {
		snprintf(text, sizeof text, "watchdog: the program %s, which the %s allows with its "
			 "WDTON fuse unprogrammed, as avrr takes it (it reads no fuses); with WDTON "
			 "programmed the watchdog would stay on in system reset mode", w->wdton_use,
			 w->mcu);
		warn(ud, text);
	}
	if (w->reserved_wdp && periph_first(warned, W_RESERVED)) {
		snprintf(text, sizeof text, "watchdog: %s selects WDP %u, which is reserved on the %s: "
			 "it times out as at WDP 9 (1024K cycles, 8 s)", reg, w->reserved_wdp - 1,
			 w->mcu);
		warn(ud, text);
	}
	if (w->m103c && periph_first(warned, W_M103C)) {
		snprintf(text, sizeof text, "watchdog: a %s write changed WDP without the timed "
			 "sequence and was ignored, as in safety level 1 (M103C and WDTON fuses "
			 "unprogrammed, as avrr takes them); in ATmega103 compatibility (M103C "
			 "programmed) the %s would take it", reg, w->mcu);
		warn(ud, text);
	}
}

/* The chip's reset is done from avr_reset itself (on_chip_reset), before
 * the registry's: nothing is left for periph_ops.reset. */
static const periph_ops WDT_OPS = {
	.name = "watchdog",
	.reset = NULL,
	.check = wdt_check,
};

int wdt_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	/* A core declares one at most. */
	avr_watchdog_t *sw = (avr_watchdog_t *)periph_next_io(avr, NULL, "watchdog");
	if (!sw || !sw->wde.reg || !sw->wdrf.reg)
		return 0;  /* no watchdog on this core */
	wdt *w = calloc(1, sizeof *w);
	if (!w)
		return avrr_errf(err, "out of memory");
	*w = (wdt){ .avr = avr, .sw = sw, .mcu = ctx->mcu, .names = ctx->names,
		    .reg = sw->wde.reg, .mcusr = sw->wdrf.reg };
	if (periphs_add(p, &WDT_OPS, w, err))
		return -1;
	/* The older parts' declaration (AVR_WATCHDOG_DECLARE_128) gives
	 * vector 0: no interrupt, and no bits 5-7. */
	w->modern = sw->watchdog.vector != 0;
	w->wde = periph_bits(sw->wde);
	w->wdce = periph_bits(sw->wdce);
	w->wdrf = periph_bits(sw->wdrf);
	for (unsigned i = 0; i < 4; i++)
		if (sw->wdp[i].reg == w->reg)
			w->wdp_bit[w->nwdp++] = sw->wdp[i].bit;
	for (unsigned i = 0; i < w->nwdp; i++)
		w->wdp_mask |= (uint8_t)(1u << w->wdp_bit[i]);
	if (w->modern) {
		w->wdie = periph_bits(sw->watchdog.enable);
		w->wdif = periph_bits(sw->watchdog.raised);
		w->osc_hz = 128000;  /* 2048 cycles: 16 ms */
		w->base = 2048;
		w->wdton = 1;
	} else {
		w->osc_hz = 1000000; /* 16K cycles: 16.3 ms typical at 5 V */
		w->base = 16384;
		/* WDTOE (ATmega16/32): only WDE = 0 takes the sequence; the
		 * ATmega8/128's WDCE guards WDP too, and they have WDTON. */
		w->wdp_free = !strcasecmp(ctx->mcu, "atmega16") || !strcasecmp(ctx->mcu, "atmega32");
		w->wdton = !w->wdp_free;
		w->m103c_part = !strncasecmp(ctx->mcu, "atmega128", 9);
	}
	w->mask = w->wde | w->wdce | w->wdp_mask | w->wdie | w->wdif;

	/* its WDR handler, reset hook, and the notification that clears WDIE
	 * at every interrupt */
	periph_cut_simavr(avr, sw, sizeof *sw, sw->watchdog.irq, AVR_INT_IRQ_COUNT);
	sw->io.ioctl = NULL;
	sw->io.reset = NULL;
	w->io = (avr_io_t){ .kind = "avrr watchdog", .ioctl = on_ioctl, .reset = on_chip_reset };
	avr_register_io(avr, &w->io);
	if (!reghook_write(ctx->regs, w->reg, 0xff, "the watchdog", wdtcsr_write, w, err))
		return -1;
	if (w->modern) {
		if (!reghook_write(ctx->regs, w->mcusr, 0, "the watchdog", mcusr_write, w, err))
			return -1;
		avr_irq_register_notify(sw->watchdog.irq + AVR_INT_IRQ_RUNNING, on_vector_entry, w);
	}
	/* The state at power-on (simavr reset the chip before we came). */
	on_chip_reset(&w->io);
	return 0;
}

int wdt_resets_armed(const periphs *p)
{
	const wdt *w = periphs_find(p, "watchdog");
	return w && (w->reset_due || (w->running && (w->avr->data[w->reg] & w->wde)));
}
