/*
 * periph_unmodelled.c — the features no model in sim/ simulates (nor
 * simavr 1.6), said at record time when the firmware selects one.
 *
 * The first write that turns one of them on is noted by a hook that
 * claims no bit (it only looks); check() then warns once per feature,
 * naming that write and the effect the run lacks.  A feature is on when the
 * bits in `mask` are not all clear (for CLKPR: when CLKPS selects a
 * division, CLKPCE's own write being the unlock).
 */
#include "sim/periph.h"

#include <stdio.h>
#include <stdlib.h>

#include <sim_avr.h>

typedef struct feature {
	const char *reg;
	uint8_t mask;
	const char *lost;       /* what the run lacks, after "which " */
} feature;

static const feature FEATURES[] = {
	{ "CLKPR", 0x0f, "divides the system clock, which is not simulated: the run keeps "
			 "the clock it was given (--freq), so every time is off by the division" },
	{ "ACSR", 0x0c, "enables the analog comparator's interrupt or input capture, which "
			"is not simulated: neither ever fires" },
	{ "USICR", 0x30, "selects a wire mode of the USI, which is not simulated: no bit is "
			 "shifted, no USI flag set" },
	{ "TWAR", 0xfe, "gives the TWI a slave address; the TWI slave is not simulated: no "
			"master on the bus addresses it" },
	{ "USBCON", 0x80, "enables the USB controller, which is not simulated" },
};
enum { NFEATURES = sizeof FEATURES / sizeof *FEATURES };

/* A feature, and the first write that turned it on (0: none yet). */
typedef struct selection {
	const feature *f;
	uint8_t value;
} selection;

typedef struct unmodelled {
	const char *mcu;
	selection sel[NFEATURES];
} unmodelled;

static void feature_write(struct avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook_next_write(hook, avr, addr, v);
	selection *s = reghook_ud(hook);
	if (!s->value && (v & s->f->mask))
		s->value = v;
}

static void unmodelled_check(void *self, uint32_t *warned,
			     void (*warn)(void *ud, const char *text), void *ud)
{
	unmodelled *u = self;
	char text[300];
	for (unsigned i = 0; i < NFEATURES; i++) {
		if (!u->sel[i].value || !periph_first(warned, 1u << i))
			continue;
		snprintf(text, sizeof text, "%s: %s = 0x%02x %s", u->mcu, FEATURES[i].reg,
			 u->sel[i].value, FEATURES[i].lost);
		warn(ud, text);
	}
}

static const periph_ops UNMODELLED_OPS = { .name = "unmodelled", .check = unmodelled_check };

int unmodelled_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	unmodelled *u = calloc(1, sizeof *u);
	if (!u)
		return avrr_errf(err, "out of memory");
	u->mcu = ctx->mcu;
	if (periphs_add(p, &UNMODELLED_OPS, u, err))
		return -1;
	for (unsigned i = 0; i < NFEATURES; i++) {
		int a = ioregs_addr(ctx->names, FEATURES[i].reg);
		u->sel[i].f = &FEATURES[i];
		if (a >= 0 && !reghook_write(ctx->regs, (uint16_t)a, 0, FEATURES[i].reg,
					     feature_write, &u->sel[i], err))
			return -1;
	}
	return 0;
}
