/*
 * probe.h — the host side of the timer conformance suite
 * (tests/integration/test_conformance.c): runs one tests/chip firmware on
 * a given MCU and clock and keeps, each with its exact cycle, what a
 * datasheet check looks at — interrupt flags raised (sim_set_observed's
 * on_raise), vector entries, pin level changes (sim_observe_pins) and
 * CPU writes of chosen I/O registers (the firmware's report channel,
 * GPIOR0 or a spare register, and the timer registers whose write cycle
 * a check counts from), and the cycles where the CPU went to sleep and
 * woke (sim_hooks' on_sleep, after SLEEP; on_wake, after the start-up
 * time and the wake-up halt).
 *
 * The firmware has no AVR_MCU section: MCU and clock are given here, as
 * a real build's are given to a programmer.  Everything fails the cmocka
 * test at once on error, so a check reads as its arithmetic.
 *
 * A raise is simavr's pending notification: a flag whose interrupt is
 * enabled is told once, until its entry clears it, so the firmware keeps
 * a handler (an empty one will do) for each flag a check counts, and
 * sleeps between them so that the raise's cycle is its edge's.
 */
#ifndef AVRR_TESTS_CHIP_PROBE_H
#define AVRR_TESTS_CHIP_PROBE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sim.h"
#include "sim/stimuli.h"

enum { PROBE_MAX = 16384 };

/* One observation: a raise or an entry (what = vector), a register write
 * (what = data address, value), a pin change (what = port << 8 | bit,
 * value = SIM_PIN_*). */
typedef struct probe_ev {
	uint64_t cycle;
	uint16_t what;
	uint8_t value;
} probe_ev;

typedef struct probe_list {
	probe_ev *ev;
	unsigned n;
} probe_list;

typedef struct probe {
	char elf[256];          /* the firmware's path, for messages */
	firmware *fw;
	sim *s;
	stim_script *stim;
	probe_list raise, irq, write, pin, sleep, wake;
	int overflow;           /* a list filled up: the firmware ran away */
	char warnings[8192];    /* probe_warnings' last answer */
	struct probe_series *owned[64]; /* the series handed out, freed at close */
	unsigned nowned;
} probe;

/* The cycles (and values) of one kind of event, picked from a list; room
 * for PROBE_MAX.  The arrays live apart from the struct: with them inside
 * (147 KB), gcc 12 at -O1 and up dropped a call that sorted one in place
 * as though it had no effect. */
typedef struct probe_series {
	unsigned n;
	uint64_t *cycle;
	uint8_t *value;
} probe_series;

static inline void probe_add(probe *p, probe_list *l, uint16_t what, uint8_t value)
{
	if (l->n == PROBE_MAX) {
		p->overflow = 1;
		return;
	}
	l->ev[l->n++] = (probe_ev){ sim_cycle(p->s), what, value };
}

static inline void probe_on_raise(void *ud, uint8_t vector)
{
	probe *p = ud;
	probe_add(p, &p->raise, vector, 0);
}

static inline void probe_on_irq(void *ud, const sim_irq_point *pt)
{
	probe *p = ud;
	probe_add(p, &p->irq, pt->vector, 0);
}

static inline void probe_on_write(void *ud, uint16_t addr, uint8_t value)
{
	probe *p = ud;
	probe_add(p, &p->write, addr, value);
}

static inline void probe_on_sleep(void *ud)
{
	probe *p = ud;
	probe_add(p, &p->sleep, 0, 0);
}

static inline void probe_on_wake(void *ud)
{
	probe *p = ud;
	probe_add(p, &p->wake, 0, 0);
}

static inline void probe_on_pin(void *ud, const sim_pin_change *c)
{
	probe *p = ud;
	if (p->pin.n == PROBE_MAX) {
		p->overflow = 1;
		return;
	}
	/* A pin change carries its own exact cycle, which may precede the
	 * instruction boundary it is reported at. */
	p->pin.ev[p->pin.n++] = (probe_ev){ c->cycle, (uint16_t)((c->port - 'A') << 8 | c->bit),
					    c->level };
}

/* Opens the ELF at path `elf` on mcu at hz, observed, pins watched. */
static inline probe *probe_open(const char *elf, const char *mcu, uint32_t hz)
{
	probe *p = calloc(1, sizeof *p);
	assert_non_null(p);
	avrr_err err = { "" };
	snprintf(p->elf, sizeof p->elf, "%s", elf);
	if (fw_load_file(elf, &p->fw, &err) || sim_open(p->fw, mcu, hz, &p->s, &err) ||
	    sim_set_observed(p->s, 1, &err) || sim_observe_pins(p->s, probe_on_pin, p, &err))
		fail_msg("%s on %s: %s", elf, mcu, err.msg);
	probe_list *l[] = { &p->raise, &p->irq, &p->write, &p->pin, &p->sleep, &p->wake };
	for (unsigned i = 0; i < sizeof l / sizeof *l; i++)
		assert_non_null(l[i]->ev = calloc(PROBE_MAX, sizeof *l[i]->ev));
	sim_set_hooks(p->s, &(sim_hooks){ .ud = p, .on_raise = probe_on_raise,
					  .on_irq = probe_on_irq, .on_write = probe_on_write,
					  .on_sleep = probe_on_sleep, .on_wake = probe_on_wake });
	return p;
}

/* The data address of register `name` on the probe's MCU. */
static inline uint16_t probe_reg(const probe *p, const char *name)
{
	int a = sim_ioreg_addr(p->s, name);
	if (a < 0)
		fail_msg("%s: no register %s on the %s", p->elf, name, sim_mcu(p->s));
	return (uint16_t)a;
}

/* The vector named `name` ("TIMER1_COMPA_vect"). */
static inline uint8_t probe_vector(const probe *p, const char *name)
{
	for (unsigned v = 1; v < 128; v++) {
		const char *n = sim_vector_name(p->s, (uint8_t)v);
		if (n && !strcmp(n, name))
			return (uint8_t)v;
	}
	fail_msg("%s: no vector %s on the %s", p->elf, name, sim_mcu(p->s));
	return 0;
}

/* Reports the CPU's writes of each named register (a NULL-ended list). */
static inline void probe_watch(probe *p, ...)
{
	va_list ap;
	va_start(ap, p);
	avrr_err err = { "" };
	for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
		if (sim_watch_write(p->s, probe_reg(p, n), &err))
			fail_msg("%s: %s", p->elf, err.msg);
	va_end(ap);
}

/* Drives the pins from a stimuli script's text (docs/stimuli.md). */
static inline void probe_stimuli(probe *p, const char *text)
{
	avrr_err err = { "" };
	if (stim_parse(text, "probe.stim", &p->stim, &err) ||
	    sim_attach_stimuli(p->s, p->stim, 0, &err))
		fail_msg("%s: %s", p->elf, err.msg);
}

static inline void probe_on_warn(void *ud, const char *text)
{
	probe *p = ud;
	size_t n = strlen(p->warnings);
	snprintf(p->warnings + n, sizeof p->warnings - n, "%s\n", text);
}

/* The record-time warnings said since the last call, a line each (each
 * is said once a run: a second call after nothing new returns ""). */
static inline const char *probe_warnings(probe *p)
{
	p->warnings[0] = 0;
	sim_check_modes(p->s, probe_on_warn, p);
	return p->warnings;
}

/* Runs until the cycle counter reaches `cycles`, or until the firmware
 * sleeps with nothing left that could wake it (every clock it needs
 * stopped, no timeout, no stimulus to come): nothing would happen after. */
static inline void probe_run(probe *p, uint64_t cycles)
{
	sim_stop why = sim_run(p->s, 0, cycles, NULL);
	if (why != SIM_STOP_LIMIT && why != SIM_STOP_ASLEEP)
		fail_msg("%s: the run stopped (%d) at cycle %llu, pc 0x%x", p->elf, (int)why,
			 (unsigned long long)sim_cycle(p->s), sim_pc(p->s));
	if (p->overflow)
		fail_msg("%s: more than %d events of a kind", p->elf, PROBE_MAX);
}

static inline void probe_close(probe *p)
{
	if (!p)
		return;
	sim_close(p->s);
	if (p->stim)
		stim_free(p->stim);
	fw_free(p->fw);
	free(p->raise.ev);
	free(p->irq.ev);
	free(p->write.ev);
	free(p->pin.ev);
	free(p->sleep.ev);
	free(p->wake.ev);
	for (unsigned i = 0; i < p->nowned; i++) {
		free(p->owned[i]->cycle);
		free(p->owned[i]->value);
		free(p->owned[i]);
	}
	free(p);
}

/* A series of the probe's own, freed at probe_close. */
static inline probe_series *probe_series_new(probe *p)
{
	assert_true(p->nowned < sizeof p->owned / sizeof p->owned[0]);
	probe_series *s = malloc(sizeof *s);
	assert_non_null(s);
	s->n = 0;
	assert_non_null(s->cycle = malloc(PROBE_MAX * sizeof *s->cycle));
	assert_non_null(s->value = malloc(PROBE_MAX));
	return p->owned[p->nowned++] = s;
}

static inline probe_series *probe_pick(probe *p, const probe_list *l, uint16_t what)
{
	probe_series *out = probe_series_new(p);
	for (unsigned i = 0; i < l->n; i++)
		if (l->ev[i].what == what) {
			out->cycle[out->n] = l->ev[i].cycle;
			out->value[out->n++] = l->ev[i].value;
		}
	return out;
}

/* The raises (entries) of the vector named `name`, in order. */
static inline probe_series *probe_raises(probe *p, const char *name)
{
	return probe_pick(p, &p->raise, probe_vector(p, name));
}

static inline probe_series *probe_entries(probe *p, const char *name)
{
	return probe_pick(p, &p->irq, probe_vector(p, name));
}

/* The CPU's writes of register `name` (watched), with their values. */
static inline probe_series *probe_writes(probe *p, const char *name)
{
	return probe_pick(p, &p->write, probe_reg(p, name));
}

/* Level changes of pin "B1" (port letter, bit), with their levels. */
static inline probe_series *probe_pin(probe *p, const char *pin)
{
	return probe_pick(p, &p->pin, (uint16_t)((pin[0] - 'A') << 8 | (pin[1] - '0')));
}

/* The cycle of the first write of `name` whose value has all of `bits`
 * set, at or after cycle `from`; fails the test if there is none. */
static inline uint64_t probe_write_cycle(const probe *p, const char *name, uint8_t bits,
					 uint64_t from)
{
	uint16_t a = probe_reg(p, name);
	for (unsigned i = 0; i < p->write.n; i++)
		if (p->write.ev[i].what == a && p->write.ev[i].cycle >= from &&
		    (p->write.ev[i].value & bits) == bits)
			return p->write.ev[i].cycle;
	fail_msg("%s: no write of %s with bits 0x%02x from cycle %llu", p->elf, name, bits,
		 (unsigned long long)from);
	return 0;
}

/* ---- collecting mismatches ------------------------------------------- */

/* A test's mismatches with the datasheet, collected so that one run tells
 * them all (cmocka's own messages are cut at 1 KiB). */
typedef struct check {
	char msg[16384];
	size_t len;
	unsigned bad;
} check;

/* Notes a mismatch unless ok (the first 40 are told). */
static inline void ck(check *c, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void ck(check *c, int ok, const char *fmt, ...)
{
	if (ok || c->bad++ >= 40 || c->len + 256 > sizeof c->msg)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(c->msg + c->len, 255, fmt, ap);
	va_end(ap);
	c->len += n < 0 ? 0 : n > 254 ? 254 : (size_t)n;
	c->msg[c->len++] = '\n';
	c->msg[c->len] = 0;
}

/* Fails the test with every mismatch noted, a line each. */
static inline void ck_done(check *c)
{
	if (!c->bad)
		return;
	for (char *line = c->msg, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = 0;
		print_error("  %s\n", line);
	}
	fail_msg("%u mismatch(es) with the datasheet, above", c->bad);
}

#endif
