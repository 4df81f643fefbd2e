/*
 * periph.h — the peripherals avrr models itself, where simavr 1.6 and the
 * datasheet part ways (private to sim/).
 *
 * Each lives in a file of its own (periph_timer.c, periph_wdt.c,
 * periph_uart.c, periph_twi.c, periph_port.c, periph_extint.c), keeps its
 * state in a struct of its own, finds simavr's peripheral by kind
 * (periph_next_io), takes over its registers through reghook.h, and
 * registers here once, at sim_open, in that order: the models that cut
 * simavr's own code out find its callbacks only in the slot, so they come
 * first, and all of them before the recorder's watches.  The registry
 * resets every peripheral when the chip resets, asks each for the
 * record-time warnings about what it does not model, and frees them.
 * Checkpoints are fork()s, so state outside simavr's structures is kept
 * with the process.
 */
#ifndef AVRR_SIM_PERIPH_H
#define AVRR_SIM_PERIPH_H

#include <stddef.h>
#include <stdint.h>

#include "sim/ioregs.h"
#include "sim/reghook.h"
#include "util/err.h"

struct avr_t;
struct avr_io_t;
struct avr_uart_t;

/* The clock domains a sleep mode stops (the datasheet's "Clock Systems
 * and their Distribution"), as bits of periph_clocks.running. */
enum { CLOCK_IO = 1u, CLOCK_ADC = 2u, CLOCK_ASY = 4u };

/* The sleep modes (SM2:0's values on the parts with SMCR); SLEEP_AWAKE
 * while the CPU runs. */
typedef enum sleep_mode {
	SLEEP_IDLE = 0,
	SLEEP_ADC_NOISE = 1,
	SLEEP_POWER_DOWN = 2,
	SLEEP_POWER_SAVE = 3,
	SLEEP_STANDBY = 6,
	SLEEP_EXT_STANDBY = 7,
	SLEEP_AWAKE = 8,
} sleep_mode;

/* The modules a power reduction register (PRR, PRR0/PRR1) stops, as bit
 * numbers of periph_clocks.stopped. */
enum periph_module {
	PR_TIM0, PR_TIM1, PR_TIM2, PR_TIM3, PR_TIM4, PR_TIM5,
	PR_ADC, PR_SPI, PR_USART0, PR_USART1, PR_USART2, PR_USART3, PR_TWI, PR_USI,
};

/* Which clocks run, as the power model (periph_power.c) sets them: a
 * model's clock runs while its domain is in `running` and its module's
 * bit is clear in `stopped`. */
typedef struct periph_clocks {
	unsigned running;   /* CLOCK_* */
	uint32_t stopped;   /* 1u << PR_* */
	sleep_mode mode;    /* the CPU's sleep, or SLEEP_AWAKE */
} periph_clocks;

/* Whether module's clock in domain runs under c. */
static inline int periph_clocked(const periph_clocks *c, unsigned domain, enum periph_module m)
{
	return (c->running & domain) && !(c->stopped >> m & 1u);
}

/* What the registry asks of a peripheral; any hook may be NULL. */
typedef struct periph_ops {
	const char *name;
	/* After simavr reset the chip (power-on is the state at open). */
	void (*reset)(void *self);
	/* Calls warn(ud, text) once for each configuration now selected
	 * that the model does not simulate, naming the register write and
	 * the effect lost; `warned` is the peripheral's own memory of what
	 * it already said (zero at first). */
	void (*check)(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
		      void *ud);
	/* Frees self; NULL: free(self), for a model that is one block. */
	void (*close)(void *self);
	/* At the cycle the clocks change (a sleep begins or ends, a PRR
	 * write): c is the new state, was the old.  A model whose clock
	 * stops freezes where it is (its counters, prescaler phase and
	 * cycle timers) and goes on from there when it runs again; NULL
	 * for a model no sleep mode or PRR bit stops. */
	void (*clocks)(void *self, const periph_clocks *c, const periph_clocks *was);
} periph_ops;

/* For a check(): true the first time it is asked for `bit`, which it then
 * marks as said in `warned`. */
static inline int periph_first(uint32_t *warned, uint32_t bit)
{
	if (*warned & bit)
		return 0;
	*warned |= bit;
	return 1;
}

/* The bits of a register simavr's description rb names (0: none). */
static inline uint8_t periph_bits(avr_regbit_t rb)
{
	return rb.reg ? (uint8_t)(rb.mask << rb.bit) : 0;
}

/* Takes simavr's own peripheral, the struct at [dev, dev + size), out of
 * the chip: its callbacks on every I/O slot and in simavr's mux of shared
 * registers (other modules' stay), its cycle timers, and its
 * notifications on the nirq irqs at irq (NULL: none).  A model that
 * replaces it calls this once at attach, before hooking the registers. */
void periph_cut_simavr(struct avr_t *avr, const void *dev, size_t size, avr_irq_t *irq,
		       unsigned nirq);

/* Takes vector v's pending interrupt back: no longer pending and off
 * simavr's queue (an entry left there is dropped when serviced, but a
 * level raised and withdrawn again and again with I clear would fill the
 * queue), its flag as it was.  As avr_service_interrupts does when it
 * drops one, an empty queue leaves nothing to service.  v's PENDING irq
 * falls: a model that listens there to re-raise a level ignores its own
 * withdrawal. */
void periph_withdraw(struct avr_t *avr, avr_int_vector_t *v);

/* The peripherals of one chip, and what they share. */
typedef struct periphs periphs;

typedef struct periph_ctx {
	struct avr_t *avr;
	reghooks *regs;
	const mcu_names *names;
	const char *mcu;
} periph_ctx;

periphs *periphs_open(struct avr_t *avr, const char *mcu, avrr_err *err);
void periphs_close(periphs *p);
const periph_ctx *periphs_ctx(const periphs *p);
/* Adds a peripheral (self is freed by ops->close).  -1 when out of
 * memory (ops->close is called on self then). */
int periphs_add(periphs *p, const periph_ops *ops, void *self, avrr_err *err);
void periphs_reset(periphs *p);
void periphs_check(periphs *p, void (*warn)(void *ud, const char *text), void *ud);
/* The peripheral registered under `name`, or NULL. */
void *periphs_find(const periphs *p, const char *name);
/* The clocks now (all running, nothing stopped, awake at open and after
 * a reset); periphs_set_clocks changes them and tells every model. */
const periph_clocks *periphs_clocks(const periphs *p);
void periphs_set_clocks(periphs *p, const periph_clocks *c);

/* simavr's next peripheral of `kind` ("uart", "timer", "port", ...) after
 * `from` in the core's list (from NULL: its first), or NULL: the one way
 * sim/ finds simavr's peripherals,
 *	for (avr_io_t *io = NULL; (io = periph_next_io(avr, io, "uart"));)  */
struct avr_io_t *periph_next_io(struct avr_t *avr, struct avr_io_t *from, const char *kind);

/* ---- the timers (periph_timer.c) ------------------------------------ */

struct avr_timer_t;
typedef struct timers timers;

/* Takes over every timer of simavr's core that the model covers (see
 * periph_timer.c) and registers itself.  0, or -1 with err. */
int timers_attach(periphs *p, avrr_err *err);

/* Compare output `comp` of simavr's timer t: whether its COMnx bits
 * connect it to its pin in the current mode, and the OCnx level. */
int timers_oc_connected(const timers *ts, const struct avr_timer_t *t, unsigned comp);
int timers_oc_level(const timers *ts, const struct avr_timer_t *t, unsigned comp);
/* fn(ud, cycle) after each change of a compare output's level or
 * connection, at the exact cycle it happened (fn NULL: none). */
void timers_on_oc(timers *ts, void (*fn)(void *ud, uint64_t cycle), void *ud);

/* ---- the watchdog (periph_wdt.c) ------------------------------------ */

/* Takes over simavr's watchdog where the core has one (see
 * periph_wdt.c) and registers itself as "watchdog".  0, or -1 with err. */
int wdt_attach(periphs *p, avrr_err *err);

/* Whether the watchdog runs with its system reset armed (WDE set, or
 * forced by WDRF), or a reset is due: a sleep will end. */
int wdt_resets_armed(const periphs *p);

/* ---- the USARTs (periph_uart.c) ------------------------------------- */

/* Takes over every USART of the core (see periph_uart.c) and registers
 * itself as "uarts"; devices still talk to it through simavr's
 * UART_IRQ_INPUT and UART_IRQ_OUTPUT.  0, or -1 with err. */
int uarts_attach(periphs *p, avrr_err *err);

/* What a frame on RxD carries beside its data bits (0-8): its first stop
 * bit was 0 (simavr's UART_INPUT_FE), its parity bit was wrong. */
enum { UART_RX_BAD_STOP = 0x8000, UART_RX_BAD_PARITY = 0x4000 };

/* A frame whose first stop bit has just arrived on USART u's RxD (the
 * stimuli): its data bits, with UART_RX_* flags. */
void uart_rx_byte(struct avr_t *avr, struct avr_uart_t *u, unsigned frame);

/* ---- the TWI (periph_twi.c) ----------------------------------------- */

/* Takes over TWCR of the core's TWI (see periph_twi.c) and registers
 * itself as "twi".  0, or -1 with err. */
int twi_attach(periphs *p, avrr_err *err);

/* ---- the I/O ports (periph_port.c) ---------------------------------- */

/* Takes over the PORTx, DDRx and PINx writes and the PINx reads of every
 * port: each pin's level from the chip's output, the outside world's
 * driver, the pull-up and PUD, on simavr's pin IRQs; follows what the
 * chip drives for sim_observe_pins (see periph_port.c), and registers
 * itself as "ports"; after the timers.  0, or -1 with err. */
int ports_attach(periphs *p, avrr_err *err);

/* Whether data address addr is a PINx register: SBI/CBI on it write a
 * bit, and their read of it is no input read (reghook_bit_op tells them). */
int ports_is_pin(const periphs *p, uint16_t addr);

/* The pins' model of core avr: the outside world's way to the pins (the
 * stimuli), or NULL on a core without avrr's models. */
typedef struct ports ports;
ports *ports_of(struct avr_t *avr);
/* A stimulus is connected to pin `bit` of port `port` (letter): it is
 * not a floating pin for the warnings, even before it first drives it. */
void ports_wire(ports *ps, char port, unsigned bit);
/* The outside world drives the pin to level 0 or 1, which beats PORTx and
 * the pull-up (not the chip's own output), or lets it go (level -1). */
void ports_drive(ports *ps, char port, unsigned bit, int level);
/* Whether the pin is an input nothing defines: no stimulus wired or
 * driving, no pull-up (PORTxn 0, or PUD set). */
int ports_floating(const ports *ps, char port, unsigned bit);

/* ---- external interrupts (periph_extint.c) -------------------------- */

/* Takes over simavr's external interrupts (INTn: every sense mode, the
 * flags, which edges need clk_IO) and pin change interrupts (PCINTn,
 * with the ATmega2560's groups 1 and 2), on the pin levels the port
 * model raises (see periph_extint.c), and registers itself as "extint";
 * after the ports.  0, or -1 with err. */
int extint_attach(periphs *p, avrr_err *err);

/* ---- the SPI (periph_spi.c) ----------------------------------------- */

/* Takes over each of simavr's SPIs (see periph_spi.c) and registers it as
 * "spi"; devices still talk to it through simavr's SPI_IRQ_INPUT and
 * SPI_IRQ_OUTPUT.  0, or -1 with err. */
int spi_attach(periphs *p, avrr_err *err);

/* The SS pin of core avr's SPI (port letter, bit), as the datasheet's
 * "Alternate Functions of Port B" has it: what an outside master drives
 * to select the chip as a slave (the stimuli's `spi master`).  -1 when
 * avrr has no table of the part's SPI pins. */
int spi_ss_pin(struct avr_t *avr, char *port, unsigned *bit);

/* ---- the ADC (periph_adc.c) ----------------------------------------- */

/* Takes over simavr's ADC where the core has one (see periph_adc.c) and
 * registers itself as "adc".  0, or -1 with err. */
int adc_attach(periphs *p, avrr_err *err);

/* ---- the EEPROM (periph_eeprom.c) ----------------------------------- */

/* Takes over the EEPROM's registers where the core has one (see
 * periph_eeprom.c), over simavr's own bytes, and registers itself as
 * "eeprom".  0, or -1 with err. */
int eeprom_attach(periphs *p, avrr_err *err);

/* ---- what nothing simulates (periph_unmodelled.c) ------------------- */

/* Watches the registers that turn on a feature sim/ does not simulate
 * (the clock prescaler, the analog comparator's interrupt, the USI, a
 * TWI slave address, USB) and registers itself as "unmodelled", whose
 * check warns of each.  0, or -1 with err. */
int unmodelled_attach(periphs *p, avrr_err *err);

/* ---- sleep and power reduction (periph_power.c) --------------------- */

/* Takes over PRR (PRR0/PRR1) and reads the sleep bits (see
 * periph_power.c); registers itself as "power".  0, or -1 with err. */
int power_attach(periphs *p, avrr_err *err);

/* The CPU executed SLEEP: 1 when it sleeps (SE set), the clocks its mode
 * stops stopped; 0 when SE is clear and SLEEP did nothing. */
int power_sleep(periphs *p);

/* The CPU woke from a sleep at avr->cycle: advances the cycle over the
 * start-up time (clocks stopped) and the four cycles the CPU is halted
 * (clocks running again). */
void power_wake(periphs *p);

#endif
