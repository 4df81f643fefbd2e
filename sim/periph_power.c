/*
 * periph_power.c — sleep modes and the power reduction registers as the
 * datasheets have them ("Power Management and Sleep Modes").
 *
 * simavr 1.6 sleeps at every SLEEP, SE set or not, and every mode is its
 * idle: the timers go on counting in power-down, and PRR is a plain byte.
 * Here SLEEP with SE clear does nothing; SLEEP with SE set stops the
 * clock domains its mode stops (the sleep-mode table: idle stops only the
 * CPU's; ADC noise reduction leaves clk_ADC and the asynchronous timer's;
 * power-save and extended standby only the asynchronous timer's;
 * power-down and standby none), and a PRR bit stops its module's clock.
 * The models hear of it through periphs_set_clocks and freeze; what a
 * stopped clock can no longer raise cannot wake the CPU, so the wake-up
 * sources follow from the models (the watchdog, pin changes, a level on
 * INT0/1 and TWI address match keep running).
 *
 * The wake-up: the CPU is halted four cycles in addition to the start-up
 * time, then runs the interrupt routine (whose response is four cycles
 * more, sim.c).  The start-up time from power-down, power-save, standby
 * and extended standby is six clocks with the factory fuses (the
 * calibrated RC oscillator, SUT = 10; standby's oscillator keeps running:
 * six clocks too); from idle and ADC noise reduction it is none.  A board
 * with a crystal's fuses (16K clocks) is not modelled, and said so when
 * such a sleep is taken on one.
 */
#include "sim/periph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>

enum { WAKE_HALT = 4, STARTUP_RC = 6 };

/* Where SE and SM2:0 sit: in SMCR (SE bit 0, SM bits 3:1) on the parts
 * that have it, else in MCUCR at places of each part's own. */
typedef struct sleep_bits {
	const char *mcu;
	int8_t se, sm0, sm1, sm2; /* bit numbers; -1: the part has none */
} sleep_bits;

static const sleep_bits MCUCR_PARTS[] = {
	{ "atmega16", 6, 4, 5, 7 },  { "atmega16a", 6, 4, 5, 7 },
	{ "atmega32", 7, 4, 5, 6 },  { "atmega8", 7, 4, 5, 6 },
	{ "atmega8535", 6, 4, 5, 7 },{ "atmega128", 5, 3, 4, 2 },
	{ "attiny13", 5, 3, 4, -1 }, { "attiny13a", 5, 3, 4, -1 },
	{ "attiny25", 5, 3, 4, -1 }, { "attiny45", 5, 3, 4, -1 },
	{ "attiny85", 5, 3, 4, -1 }, { "attiny24", 5, 3, 4, -1 },
	{ "attiny44", 5, 3, 4, -1 }, { "attiny84", 5, 3, 4, -1 },
};
static const sleep_bits SMCR_BITS = { "", 0, 1, 2, 3 };

/* A power reduction register: the module each bit stops (-1: none
 * avrr models). */
typedef struct prr_reg {
	uint16_t addr;
	int8_t module[8];
} prr_reg;

/* PRR (ATmega48..328P) and PRR0 (ATmega164..1284, 640..2560, 32U4). */
static const int8_t PRR_MEGA[8] = { PR_ADC, PR_USART0, PR_SPI, PR_TIM1, PR_USART1, PR_TIM0,
				    PR_TIM2, PR_TWI };
static const int8_t PRR_TINY[8] = { PR_ADC, PR_USI, PR_TIM0, PR_TIM1, -1, -1, -1, -1 };
static const int8_t PRR1_MEGA[8] = { PR_USART1, PR_USART2, PR_USART3, PR_TIM3, PR_TIM4, PR_TIM5,
				     -1, -1 };

typedef struct power {
	periphs *p;
	struct avr_t *avr;
	const char *mcu;
	uint16_t sleep_reg;        /* 0: the part's sleep bits are unknown */
	sleep_bits bits;
	prr_reg prr[2];
	unsigned nprr;
	uint8_t prr_value[2];
	int reserved;              /* a sleep in a reserved mode was taken */
	int unknown;               /* a sleep on a part whose bits are unknown */
} power;

static uint32_t stopped_modules(const power *w)
{
	uint32_t stopped = 0;
	for (unsigned r = 0; r < w->nprr; r++)
		for (unsigned b = 0; b < 8; b++)
			if (w->prr_value[r] >> b & 1 && w->prr[r].module[b] >= 0)
				stopped |= 1u << w->prr[r].module[b];
	return stopped;
}

/* The clock domains that run in mode (the sleep-mode table). */
static unsigned running_in(sleep_mode mode)
{
	switch (mode) {
	case SLEEP_AWAKE:
	case SLEEP_IDLE: return CLOCK_IO | CLOCK_ADC | CLOCK_ASY;
	case SLEEP_ADC_NOISE: return CLOCK_ADC | CLOCK_ASY;
	case SLEEP_POWER_SAVE:
	case SLEEP_EXT_STANDBY: return CLOCK_ASY;
	case SLEEP_POWER_DOWN:
	case SLEEP_STANDBY: break;
	}
	return 0;
}

static void set_clocks(power *w, sleep_mode mode)
{
	periph_clocks c = { .running = running_in(mode), .stopped = stopped_modules(w), .mode = mode };
	periphs_set_clocks(w->p, &c);
}

static void prr_write(struct avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	power *w = reghook_ud(hook);
	reghook_next_write(hook, avr, addr, v);
	for (unsigned r = 0; r < w->nprr; r++)
		if (w->prr[r].addr == addr)
			w->prr_value[r] = avr->data[addr];
	set_clocks(w, periphs_clocks(w->p)->mode);
}

static int bit_of(uint8_t v, int8_t bit)
{
	return bit >= 0 ? v >> bit & 1 : 0;
}

int power_sleep(periphs *p)
{
	power *w = periphs_find(p, "power");
	if (!w)
		return 1;
	if (!w->sleep_reg) {
		w->unknown = 1;
		set_clocks(w, SLEEP_IDLE);
		return 1;
	}
	uint8_t v = w->avr->data[w->sleep_reg];
	if (!bit_of(v, w->bits.se))
		return 0;
	unsigned sm = (unsigned)(bit_of(v, w->bits.sm2) << 2 | bit_of(v, w->bits.sm1) << 1 |
				 bit_of(v, w->bits.sm0));
	sleep_mode mode = (sleep_mode)sm;
	if (sm == 4 || sm == 5 || (w->bits.sm2 < 0 && sm == 3)) {
		w->reserved = 1;  /* the datasheets reserve them: slept as idle */
		mode = SLEEP_IDLE;
	}
	set_clocks(w, mode);
	return 1;
}

void power_wake(periphs *p)
{
	power *w = periphs_find(p, "power");
	if (!w)
		return;
	sleep_mode mode = periphs_clocks(p)->mode;
	if (mode == SLEEP_AWAKE)
		return;
	if (mode != SLEEP_IDLE && mode != SLEEP_ADC_NOISE)
		w->avr->cycle += STARTUP_RC;  /* clocks still stopped */
	set_clocks(w, SLEEP_AWAKE);
	w->avr->cycle += WAKE_HALT;
}

static void power_reset(void *self)
{
	power *w = self;
	memset(w->prr_value, 0, sizeof w->prr_value);
}

static void power_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
			void *ud)
{
	power *w = self;
	char text[200];
	if (w->reserved && periph_first(warned, 1)) {
		snprintf(text, sizeof text,
			 "%s: SLEEP in a reserved sleep mode (SM bits): slept as idle",
			 w->mcu);
		warn(ud, text);
	}
	if (w->unknown && periph_first(warned, 2)) {
		snprintf(text, sizeof text,
			 "%s: sleep modes not modelled on this part: every SLEEP is idle, "
			 "SE not honoured, no clock stops",
			 w->mcu);
		warn(ud, text);
	}
}

static const periph_ops POWER_OPS = {
	.name = "power", .reset = power_reset, .check = power_check,
};

int power_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	power *w = calloc(1, sizeof *w);
	if (!w)
		return avrr_errf(err, "out of memory");
	w->p = p;
	w->avr = ctx->avr;
	w->mcu = ctx->mcu;
	int smcr = ioregs_addr(ctx->names, "SMCR");
	int mcucr = ioregs_addr(ctx->names, "MCUCR");
	if (smcr >= 0) {
		w->sleep_reg = (uint16_t)smcr;
		w->bits = SMCR_BITS;
	}
	for (size_t i = 0; !w->sleep_reg && mcucr >= 0 && i < sizeof MCUCR_PARTS / sizeof *MCUCR_PARTS;
	     i++)
		if (!strcmp(MCUCR_PARTS[i].mcu, ctx->mcu)) {
			w->sleep_reg = (uint16_t)mcucr;
			w->bits = MCUCR_PARTS[i];
		}
	static const char *const names[] = { "PRR", "PRR0", "PRR1" };
	for (size_t i = 0; i < 3; i++) {
		int a = ioregs_addr(ctx->names, names[i]);
		if (a < 0 || (w->nprr && w->prr[0].addr == a))
			continue;  /* none, or PRR0 another name of PRR */
		prr_reg *r = &w->prr[w->nprr++];
		r->addr = (uint16_t)a;
		memcpy(r->module, i == 2 ? PRR1_MEGA : !strncmp(ctx->mcu, "attiny", 6) ? PRR_TINY
										: PRR_MEGA,
		       sizeof r->module);
	}
	if (periphs_add(p, &POWER_OPS, w, err))
		return -1;
	for (unsigned r = 0; r < w->nprr; r++)
		if (!reghook_write(ctx->regs, w->prr[r].addr, 0xff, "the power reduction register",
				   prr_write, w, err))
			return -1;
	return 0;
}
