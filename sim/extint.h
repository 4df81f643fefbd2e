/*
 * extint.h — external (INTn) and pin-change (PCINTn) interrupts that fire
 * as the datasheet says.
 *
 * simavr 1.6 polls a pin held low every cycle while INTn is in its
 * low-level mode (ISC = 00, the mode at reset), and keeps polling after
 * the firmware switches to an edge mode: an INT0 set for rising edges
 * (ATmega328P EICRA = ISC01|ISC00) then fires continuously, thousands of
 * times, while the pin is low before its first edge.  Here that poll is
 * switched off (avr_extint_set_strict_lvl_trig) and re-implemented: it
 * runs only while the mode is low level, INTn enabled and the pin low, and
 * it stops at the first cycle one of them changes.  A pin going low, or a
 * write of the sense-control or mask register that makes a low pin
 * request INTn, starts it: the chip's level interrupt is a condition, not
 * an event.  Edge and toggle modes stay simavr's own: one per edge.
 *
 * simavr 1.6 also passes the first drive of each port pin through its
 * change filter even when the level does not change (IRQ_FLAG_INIT): a
 * pin at rest low, driven low, raised a pin-change interrupt (PCINT) with
 * no edge, and an INTn in toggle mode.  sim_pins_filter_first removes that
 * exception, so only changes of level reach them.
 *
 * Part of the sim layer (sim.c calls it); nothing else uses it.
 */
#ifndef AVRR_SIM_EXTINT_H
#define AVRR_SIM_EXTINT_H

struct avr_t;
typedef struct sim_extint sim_extint;

/* Takes over the level polls of the chip's external interrupts; NULL
 * when the MCU has none (or out of memory: *oom is set). */
sim_extint *sim_extint_attach(struct avr_t *avr, int *oom);
/* After a reset of the chip: simavr's reset turns its own poll back on. */
void sim_extint_reset(sim_extint *x);
void sim_extint_free(sim_extint *x);
/* Only level changes of the port pins reach their listeners, the first
 * drive included (see the note above). */
void sim_pins_filter_first(struct avr_t *avr);

#endif
