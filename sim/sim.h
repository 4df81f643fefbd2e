/*
 * sim.h — the one layer that owns simavr.
 *
 * A sim is one simulated chip running one firmware.  It steps exactly one
 * instruction at a time (simavr's avr_run_one, then its cycle timers, then
 * interrupt servicing, as simavr's own run loop does) and keeps an exact
 * instruction count, `icount`: the number of instructions retired so far.
 * While the CPU sleeps, steps advance time without retiring instructions.
 *
 * Positions are instruction boundaries: "at icount k" is the state after k
 * instructions (and after any interrupt entry taken at that boundary, except
 * in the hooks below, which see the state before it).
 *
 * Two ways to run:
 *  - sim_run() with hooks: every interrupt entry is reported with the state
 *    at the interrupt point — the instruction boundary where the CPU takes
 *    it, before it pushes the return address (SP and SREG as the program left
 *    them, I set; ra = the next instruction) — and chosen I/O registers report
 *    each CPU read and write as it happens.
 *  - sim_run_plain(): simavr's stock run loop, untouched: the speed
 *    baseline.  It keeps simavr 1.6's interrupt timing and sleep (the
 *    rules sim_run adds are in its loop), so its runs are not avrr's.
 *
 * Replay mode (sim_set_replay): the CPU never vectors on its own.  The
 * peripherals still run and raise their flags, and the pending queue is
 * kept as simavr keeps it (an interrupt masked or cleared meanwhile is
 * dropped at the same boundary simavr would drop it), but the entry itself
 * is left to the caller: at every boundary where the CPU could accept an
 * interrupt — running, I set, and past the shadow after an instruction that
 * set I (SIM_INTERRUPT_RULE) — on_boundary is called, and it may enter a
 * vector with sim_enter_vector, exactly as simavr would have.
 *
 * simavr's quirks are handled here and nowhere else: the stock sleep
 * callback (which waits in real time) is replaced by one that does not, and
 * the UARTs' stdout echo and poll-sleeps are switched off.  Where simavr
 * and the datasheet part ways (the timers, the watchdog, PINx writes, the
 * USARTs, TWI status, INTn's level mode), sim/'s own
 * peripheral models put simavr right (periph.h, docs/chip.md).
 */
#ifndef AVRR_SIM_H
#define AVRR_SIM_H

#include <stdint.h>

#include "util/err.h"
#include "sim/firmware.h"
#include "sim/ioregs.h"
#include "sim/stimuli.h"

struct avr_t;

/* The state at an interrupt point (see the header note). */
typedef struct sim_irq_point {
	uint8_t vector;
	uint32_t ra;            /* byte address of the next instruction */
	uint16_t sp;            /* SP before the push */
	uint64_t icount;
	uint64_t cycle;
	uint64_t timer;         /* cycles since the last reset (sim_timer_cycles) */
	uint64_t transfers;     /* counted control transfers so far (sim_transfers) */
	const uint8_t *data;    /* data space 0..ramend, SREG byte current */
	uint32_t data_size;
} sim_irq_point;

/* A data-space access of an instruction (observed runs, sim_set_observed):
 * a byte of SRAM it read (value before) or wrote (value after). */
typedef struct sim_access {
	uint16_t addr;
	uint8_t value;
	uint8_t write;
} sim_access;

/* Callbacks a front-end installs; any may be NULL. `ud` is passed back. */
typedef struct sim_hooks {
	void *ud;
	void (*on_irq)(void *ud, const sim_irq_point *p);
	/* After a RETI retired; `vector` is the one it returns from. */
	void (*on_reti)(void *ud, uint8_t vector);
	void (*on_sleep)(void *ud);
	void (*on_wake)(void *ud);
	/* The chip reset itself (the watchdog, in reset mode). */
	void (*on_reset)(void *ud);
	/* A CPU read of a watched register: `value` is what the hardware
	 * gives; the return value is what the CPU sees. */
	uint8_t (*on_read)(void *ud, uint16_t addr, uint8_t value);
	void (*on_write)(void *ud, uint16_t addr, uint8_t value);
	/* Replay mode only: a boundary where the CPU could accept an interrupt
	 * (the state is the interrupt point's, see sim_live_data). */
	void (*on_boundary)(void *ud);
	/* After every step of sim_run (an instruction retired, with any
	 * interrupt entry at its boundary; or a cycle asleep): a non-zero
	 * return stops the run there (SIM_STOP_REQUEST).  For debuggers.
	 * Whether it is set, and sim_count_transfers, are read when sim_run
	 * starts: a hook must not change them in the middle of a run. */
	int (*on_step)(void *ud);
	/* Observed runs only (sim_set_observed): after each instruction
	 * retired at byte address pc, before its RETI is reported and before
	 * any interrupt entry at its boundary — the cycles it took and the
	 * SRAM byte it loaded or stored (nacc 0 or 1; the stack's pushes and
	 * pops, and I/O registers, are not SRAM accesses here). */
	void (*on_insn)(void *ud, uint32_t pc, uint32_t cycles, const sim_access *acc,
			unsigned nacc);
	/* Observed runs only: an interrupt flag was raised (simavr's pending
	 * notification: the first raise of a flag not yet pending). */
	void (*on_raise)(void *ud, uint8_t vector);
} sim_hooks;

/* Replay mode: a tap samples the boundaries where the CPU could accept
 * an interrupt (those on_boundary sees) without a call per boundary.  At
 * each one before icount `until` it appends the PC (byte address) to pc[]
 * and the data bytes at addr[0..naddr) (naddr <= 8, SREG current) to
 * word[], packed as sim_tap_pack packs them: each byte in a place of its
 * own, the others zero, so that equal words are equal bytes;
 * sim_tap_unpack gives them in order, the first lowest.  When `count`
 * reaches `cap` it calls full(ud), which must make room (reset count, or
 * point elsewhere).  Boundaries from icount `until` on go to on_boundary
 * instead.  Between steps the owner may change any field but addr and
 * naddr, which sim_tap_plan (or sim_set_tap) reads once. */
typedef struct sim_tap {
	uint64_t until;
	const uint16_t *addr;
	unsigned naddr;
	uint32_t *pc;
	uint64_t *word;
	unsigned count, cap;
	void (*full)(void *ud);
	void *ud;
	/* Private to sim.c: the bytes as runs of consecutive addresses, each
	 * read with one 8-byte load (or, near the end of the data space,
	 * byte by byte), and where SREG goes (it lives apart). */
	struct sim_tap_run { uint64_t mask; uint16_t addr; uint8_t shift; } run[8];
	unsigned nruns;
	int wide;
	unsigned sreg_shift;
	uint64_t sreg_mask;     /* 0: no SREG */
	/* Where byte i of the word in order is (bit 8 * i where in order):
	 * bytes a few addresses apart are read with one load, mask and
	 * rotate, each left where that load puts it (the tap runs at nearly
	 * every instruction; the order is needed only for new states). */
	uint8_t pos[8];
	int in_order;
	int two;                /* wide, and run[0] and run[1] are all */
	/* The way back to the order: the bytes that move by the same
	 * distance, masked and rotated at once. */
	struct sim_tap_back { uint64_t mask; unsigned rot; } back[8];
	unsigned nback;
} sim_tap;

/* Plans how the tap reads its bytes from a data space of data_size bytes
 * (sim_set_tap does this too, with the simulation's). */
void sim_tap_plan(sim_tap *t, uint32_t data_size);

/* A run of the tap, read from data at once and put in its place. */
static inline uint64_t sim_tap_run_word(const struct sim_tap_run *r, const uint8_t *data)
{
	uint64_t v;
	__builtin_memcpy(&v, data + r->addr, sizeof v);
	v &= r->mask;
	return v << r->shift | v >> ((64 - r->shift) & 63);
}

/* The word the tap would append for data space `data` (SREG live in it,
 * as sim_live_data gives it); sim_tap_plan first. */
static inline uint64_t sim_tap_pack(const sim_tap *t, const uint8_t *data)
{
	uint64_t w = 0;
	if (t->in_order) {
		for (unsigned i = 0; i < t->naddr; i++)
			w |= (uint64_t)data[t->addr[i]] << (8 * i);
		return w;
	}
	for (unsigned r = 0; r < t->nruns; r++)
		w |= sim_tap_run_word(&t->run[r], data);
	return w | ((uint64_t)data[0x5F] << t->sreg_shift & t->sreg_mask);
}

/* The bytes of a packed word in order, the first lowest. */
static inline uint64_t sim_tap_unpack(const sim_tap *t, uint64_t w)
{
	if (t->in_order)
		return w;
	uint64_t g = 0;
	for (unsigned k = 0; k < t->nback; k++) {
		uint64_t v = w & t->back[k].mask;
		g |= v << t->back[k].rot | v >> ((64 - t->back[k].rot) & 63);
	}
	return g;
}

#define SIM_FILTER_DATA_MAX 512   /* data bytes a step filter watches */

/* An instruction step, for a debugger's step filter (sim_filter_steps). */
typedef struct sim_step {
	uint64_t icount;
	uint32_t pc;            /* byte address */
	unsigned depth;         /* interrupt nesting */
} sim_step;

/* A sim is opaque outside sim/ (its inside is sim/sim_impl.h): the
 * functions below are the way to it. */
typedef struct sim sim;

/* What a replay reads at nearly every step, kept as the first member of
 * struct sim so that the accessors below stay loads rather than calls on
 * the replay's hot path.  Read-only outside sim/, and there only through
 * those accessors. */
struct sim_hot {
	uint64_t icount;
	uint64_t transfers;     /* counted control transfers (sim_transfers) */
	uint32_t data_size;     /* ramend + 1 */
};

/* A pointer to a struct is one to its first member (C11 6.7.2.1). */
static inline const struct sim_hot *sim_hot_of(const sim *s)
{
	return (const struct sim_hot *)(const void *)s;
}

/* Creates the chip for `fw`.  The MCU and clock come from `mcu`/`frequency`
 * when given (non-NULL / non-zero), else from the ELF's .mmcu section;
 * having neither is an error, as is an MCU simavr does not know.  The
 * firmware must outlive the sim. */
int sim_open(const firmware *fw, const char *mcu, uint32_t frequency,
	     sim **out, avrr_err *err);
void sim_close(sim *s);

/* What the sim was opened with: the MCU's name (simavr's), its clock, the
 * firmware, and the MCU's register and vector names (NULL when there are
 * no tables for it). */
const char *sim_mcu(const sim *s);
uint32_t sim_frequency(const sim *s);
const firmware *sim_firmware(const sim *s);
const mcu_names *sim_names(const sim *s);

/* Instructions retired so far (see the top). */
static inline uint64_t sim_icount(const sim *s)
{
	return sim_hot_of(s)->icount;
}

/* The data space's size: ramend + 1. */
static inline uint32_t sim_data_size(const sim *s)
{
	return sim_hot_of(s)->data_size;
}

/* Installs the callbacks (a copy of *h; NULL: none).  Between runs only:
 * a run reads some of them once as it starts (sim_hooks' on_step). */
void sim_set_hooks(sim *s, const sim_hooks *h);
/* Changes on_step alone, keeping the other hooks and their ud; between
 * runs only, as sim_set_hooks. */
void sim_set_step_hook(sim *s, int (*on_step)(void *ud));

/* Replay mode: calls on_boundary only at the boundaries where the PC's
 * word address, masked by pc_mask, equals pc_match (both 0: at every
 * boundary), and the cycles since the last reset (sim_timer_cycles),
 * masked by cycle_mask, equal cycle_match (mask 0: any cycle).  A replay
 * waiting for one interrupt knows the low bits of its return address,
 * and of its cycle counter when its fingerprint counts cycles, and skips
 * the call elsewhere.  Kept until changed. */
void sim_set_boundary(sim *s, uint32_t pc_mask, uint32_t pc_match, uint64_t cycle_mask,
		      uint64_t cycle_match);

/* Reports every CPU read (or write) of the I/O register at data address
 * `addr` to hooks.on_read (on_write).  Call before running. */
int sim_watch_read(sim *s, uint16_t addr, avrr_err *err);
int sim_watch_write(sim *s, uint16_t addr, avrr_err *err);

/* Why sim_run returned. */
typedef enum {
	SIM_STOP_LIMIT,         /* icount or cycle limit reached */
	SIM_STOP_REQUEST,       /* *stop became non-zero */
	SIM_STOP_DONE,          /* the CPU stopped: sleep with interrupts off */
	SIM_STOP_ASLEEP,        /* asleep with no interrupt enabled to wake it, nor
				   a watchdog to reset it */
	SIM_STOP_CRASHED,       /* the CPU crashed (bad opcode, stack, ...) */
} sim_stop;

/* Runs with hooks until icount == icount_limit or cycle >= cycle_limit
 * (0 = no limit), the CPU stops, or *stop (may be NULL) becomes non-zero —
 * a hook or a signal handler may set it; it is checked between steps. */
sim_stop sim_run(sim *s, uint64_t icount_limit, uint64_t cycle_limit,
		 volatile int *stop);

/* A debugger's step filter, for replay mode: with `words` set (a byte per
 * flash word), sim_run tells on_step only of the instruction steps whose
 * instruction's word is non-zero there, or after which the interrupt
 * nesting is not the last instruction step's (an entry, a RETI) — never
 * of a cycle asleep — and runs the rest at the replay's own speed.  `last`
 * is the state after the last instruction step: read when a filter is
 * set, written back when it is taken off (words NULL), so that a debugger
 * that follows every step before and after sees no seam.  The words must
 * outlive the filter. */
void sim_filter_steps(sim *s, const uint8_t *words, uint32_t nwords, sim_step *last);

/* Under a step filter, also tell on_step of the instruction steps after
 * which any of the n data bytes at addr[] (n <= SIM_FILTER_DATA_MAX, else
 * none) differs from its value at the last step told of, or now.  n 0:
 * none.  Kept until changed; read again when a filter is set. */
void sim_filter_data(sim *s, const uint16_t *addr, unsigned n);

/* In on_step under a filter: the step told of, as it started (the icount
 * before it, the pc of its instruction and the nesting before it). */
sim_step sim_told_step(const sim *s);

/* simavr's own run loop, no hooks, until cycle >= cycle_limit or the CPU
 * stops: for speed baselines only (see the top).  icount is not
 * maintained. */
sim_stop sim_run_plain(sim *s, uint64_t cycle_limit);

/* Calls fn(ud, cycle, vector) at every interrupt entry, through simavr's
 * own notification (works with sim_run_plain). */
int sim_observe_vectors(sim *s, void (*fn)(void *ud, uint64_t cycle, uint8_t vector),
			void *ud, avrr_err *err);

/* Drives the chip's inputs from `script` (which must outlive the sim),
 * with randomness from `seed`.  Call before running. */
int sim_attach_stimuli(sim *s, const stim_script *script, uint64_t seed, avrr_err *err);

/* Switches replay mode on (see the header note). */
void sim_set_replay(sim *s, int on);

/* Observed runs (on != 0): on_insn and on_raise are called (see
 * sim_hooks).  A run not observed pays nothing for them: the loop is
 * another copy.  Returns 0, or -1 (err) when out of memory. */
int sim_set_observed(sim *s, int on, avrr_err *err);

/* The stack pointer now. */
uint16_t sim_sp(const sim *s);
/* Whether SREG's I flag is set now. */
int sim_interrupts_enabled(const sim *s);

/* Samples boundaries into `tap` (NULL: none) from now on; see sim_tap. */
void sim_set_tap(sim *s, sim_tap *tap);

/* Enters `vector` now, as simavr enters an interrupt: takes it off the
 * pending queue if there, pushes the PC, clears I, jumps to the vector and
 * clears its flag.  Returns SIM_NO_VECTOR if the MCU has no such vector,
 * SIM_NESTED_FULL if simavr's nesting stack (64 deep) is full. */
enum { SIM_NO_VECTOR = -1, SIM_NESTED_FULL = -2 };
int sim_enter_vector(sim *s, uint8_t vector);

/* In replay mode, at on_boundary: the vector simavr would enter here on its
 * own (the highest-priority pending interrupt, enabled), or -1 if it would
 * enter none at this boundary.  For a replay that lets some interrupts
 * happen as the simulated peripherals raise them (the tracer's own Timer1
 * overflow handler, which the device's log does not record). */
int sim_next_vector(sim *s);

/* The return address the innermost interrupt or call pushed, read from
 * the stack: a byte address (2 bytes pushed, or 3 on parts with a 22-bit
 * PC such as the ATmega2560). */
uint32_t sim_stacked_pc(const sim *s);

/* The data space as the CPU sees it now, with the live SREG: the state a
 * fingerprint is computed from (valid until the next step). */
const uint8_t *sim_live_data(sim *s);

/* The EEPROM's bytes now, *size of them; NULL when the MCU has none. */
const uint8_t *sim_eeprom(sim *s, uint32_t *size);

/* The vector of the innermost running ISR, or 0 in the main program. */
uint8_t sim_running_vector(const sim *s);
/* How many ISRs are running (nested), 0 in the main program. */
unsigned sim_irq_depth(const sim *s);

uint64_t sim_cycle(const sim *s);
int sim_sleeping(const sim *s);
uint32_t sim_pc(const sim *s);
/* The first SRAM address: past the I/O registers (extended I/O included). */
uint16_t sim_sram_start(const sim *s);

/* The flash's size in bytes, and the byte address after the interrupt
 * vector table (0 when the MCU's tables name no vector). */
void sim_flash_layout(const sim *s, uint32_t *flash_size, uint32_t *vectors_end);

/* The software instruction counter (Mellor-Crummey & LeBlanc): control
 * transfers retired since reset that are not forward jumps.  Counted are
 * every taken branch (BRxx) and jump (RJMP, JMP) whose target is at or
 * below its own address, and every call, return and indirect jump
 * (RCALL, CALL, ICALL, EICALL, RET, RETI, IJMP, EIJMP) whatever its
 * direction.  Between two counted transfers the PC only grows, so no
 * instruction runs twice with the same count unless an interrupt came
 * between: (PC, count) names a point of a run between two interrupts.
 * A device gets the same count from an increment the compiler puts on
 * each loop back-edge, function entry and function exit. */
static inline uint64_t sim_transfers(const sim *s)
{
	return sim_hot_of(s)->transfers;
}

/* Counting transfers costs a table lookup per instruction; a run that
 * reads no sim_transfers (no `sic:K` counter) can switch it off.  On by
 * default, and always where the program has a skip simavr misdecodes:
 * the same lookup finds those (sim.c's fix_skip). */
void sim_count_transfers(sim *s, int on);

/* What a free-running clk/1 timer started at reset reads: cycles since the
 * last reset (a watchdog reset restarts it, as it restarts the SIC). */
uint64_t sim_timer_cycles(const sim *s);

/* Name lookups in the MCU's own terms.  Return -1 when unknown. */
int sim_ioreg_addr(const sim *s, const char *name);
const char *sim_ioreg_name(const sim *s, uint16_t addr);  /* NULL if none */
const char *sim_vector_name(const sim *s, uint8_t vector); /* NULL if none */

/* Where `vector`'s own enable bits are (TOIE0 in TIMSK0, INT0 in EIMSK,
 * PCIE0 in PCICR, ...), as the MCU's description carries them: *addr the
 * register's data address, *mask its bits.  Returns 0, or -1 when the
 * description gives the vector none (then only SREG's I gates it). */
int sim_vector_enable(const sim *s, uint8_t vector, uint16_t *addr, uint8_t *mask);

/* Calls warn(ud, text) once for each configuration found selected that
 * sim/ does not simulate for this MCU (a reserved WGM mode, a timer on
 * its Tn pin's clock, ...: each peripheral model's own check, periph.h),
 * naming the register and the effect lost — and only when something is
 * lost.  A recorder calls it now and then: a recording of such a
 * firmware is not the chip's run. */
void sim_check_modes(sim *s, void (*warn)(void *ud, const char *text), void *ud);

/* ---- pins (periph_port.c) --------------------------------------------
 * A pin's level is what the chip drives it to: an input (DDxn 0) is not
 * driven by the chip (what the outside world gives it is not the chip's,
 * and a replay knows only the values the CPU read); an output follows
 * PORTxn, or the timer compare output OCnx when its COMnx bits connect it
 * (the datasheet's compare output mode tables); OCnx changes at compare
 * matches and BOTTOM only, not when the CPU writes the timer's registers.
 * A write of 1 to PINxn toggles PORTxn, SBI on PINx toggling that one pin,
 * as on the chip; a read of PINx gives an output pin's level, OCnx where
 * the timer owns it. */
enum { SIM_PIN_LOW = 0, SIM_PIN_HIGH = 1, SIM_PIN_UNDRIVEN = 2 };

typedef struct sim_pin_change {
	char port;              /* 'A', 'B', ... */
	uint8_t bit;            /* 0..7 */
	uint8_t level;          /* SIM_PIN_* */
	uint64_t cycle;         /* when: a CPU write's instruction start, a timer
				   output's exact compare or overflow cycle */
} sim_pin_change;

/* Calls fn(ud, change) for each change of a pin's level from now on, in
 * the order of their cycles (fn NULL: no more).  Returns -1 (err) when
 * another observer has them. */
int sim_observe_pins(sim *s, void (*fn)(void *ud, const sim_pin_change *c), void *ud,
		     avrr_err *err);
/* The MCU's port letters, at most max of them, in simavr's order. */
unsigned sim_ports(const sim *s, char *names, unsigned max);
/* A pin's level now (SIM_PIN_*), or -1 when the MCU has no such port. */
int sim_pin_level(const sim *s, char port, unsigned bit);

/* The rules this simulator runs by, stored in each recording's metadata
 * (its interrupt_rule): the version of sim/'s own peripheral models
 * (docs/chip.md: avrr-sim 2 brought the timers, the watchdog, the SPI,
 * the ADC and the EEPROM; avrr-sim 3 sleep, power reduction, the USART,
 * the pins and the core's timing), how interrupts are delayed after an
 * instruction sets I, and the cycles an interrupt's entry takes.  A recording made
 * under other rules would not replay as it ran: sim_rules_check refuses
 * it. */
#define SIM_INTERRUPT_RULE                                                                 \
	"avrr-sim 3 (docs/chip.md); 1 instruction after SEI/RETI/SREG write; "                   \
	"4-cycle interrupt response"

/* 0 when a recording whose interrupt_rule is `rule` can be run again by
 * this simulator (SIM_INTERRUPT_RULE, or `also`, a rule of the caller's
 * own such as an import's); else -1 with err, in one line naming both. */
int sim_rules_check(const char *rule, const char *also, const char *what, avrr_err *err);

#endif
