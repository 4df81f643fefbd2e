/*
 * periph_adc.c — the Analog-to-Digital Converter as the datasheets
 * describe it (ATmega328P §24, ATmega2560 §26, the ATmega16's "Analog to
 * Digital Converter"), in place of simavr 1.6's.
 *
 * simavr 1.6 computes a conversion's result when the program reads ADCL,
 * from the ADMUX of that moment (a channel changed right after the
 * conversion ended reads the new channel), scales by 1023 where the chip
 * divides by 1024 (2.5 V of 5 V gives 511, not 512), stores ADCSRA's byte
 * as written (writing 1 to ADIF sets it, where the chip clears it), never
 * starts an auto-triggered conversion but free running, times a
 * conversion by dividing the clock in hertz (rounding), ignores channels
 * 8-15 of the ATmega2560, and lets ADCH be read before ADCL.  So its ADC
 * is cut out — its register callbacks, cycle timers, reset hook and input
 * notifications — and this model runs from simavr's description
 * (avr_adc_t: registers, bits, channel table, reference table, vector).
 *
 * The model.  The ADC clock is the CPU clock divided by the ADPS
 * prescaler (2, 2, 4, ..., 128); the prescaler is reset when ADEN is set
 * and by an auto trigger, and the ADC clock's rising edges fall at N/2 +
 * kN cycles after that reset (k >= 0), so an auto-triggered conversion
 * starts half an ADC clock after its reset: the datasheet's 2 clocks to
 * sample-and-hold and 13.5 to the end, counted from the trigger.
 *  - A conversion started by writing ADSC starts at the first rising edge
 *    after the write; it samples 1.5 ADC clocks after its start (13.5 for
 *    the first after ADEN) and ends 13 clocks after it (25 for the first).
 *  - MUX and REFS are latched at the start (the chip's temporary register
 *    follows ADMUX until then: "continuously updated until a conversion
 *    is started"); the input is taken at the sample-and-hold, where the
 *    model raises simavr's ADC_IRQ_OUT_TRIGGER so that the stimuli answer
 *    with the channel's value (ADC_IRQ_ADC0..15, millivolts) and reads
 *    the value last given to each input.
 *  - At the end, the result goes to ADCL/ADCH (unless ADCL was read and
 *    ADCH not yet: the result is lost), then ADSC clears (single mode) and
 *    ADIF rises with its interrupt.  ADLAR is not latched: the datasheet
 *    says changing it affects the data register at once.
 *  - Single-ended: ADC = Vin · 1024 / Vref, clamped to 1023.  Differential
 *    (the megas, and the ATtinys with BIN = 1): (Vpos − Vneg) · gain · 512
 *    / Vref in two's complement, clamped to −512..511; unipolar (BIN = 0):
 *    · 1024, clamped to 0..1023.
 *  - Auto trigger (ADATE): ADTS selects a source, the interrupt flag of a
 *    peripheral; its rising edge — a flag raised while clear, or ADTS
 *    switched from a clear source to a set one — resets the prescaler and,
 *    after the 3 CPU cycles of synchronisation logic, starts a conversion
 *    unless one is under way.  Free running (ADTS 0, or the ADFR bit of
 *    the ATmega8/128) starts the next conversion as each one ends, ADSC
 *    staying 1.  The analog comparator is not simulated: selecting it is
 *    warned at record time.
 *  - ADIF written 1 clears it (the pending interrupt too), 0 leaves it;
 *    on the newer parts SBI writes only its bit (reghook_flags_written).
 *    ADIE set while ADIF is set is taken at once.
 *
 *  - The clock (periph_ops.clocks): the ADC runs on clk_ADC, which the
 *    sleep modes but idle and ADC Noise Reduction stop, and stops under
 *    PRADC.  Stopped, it freezes: the prescaler's phase and a conversion
 *    under way stand (no cycle timer left) and go on from there when the
 *    clock runs again; an auto trigger meanwhile starts nothing (warned).
 *    Entering ADC Noise Reduction with ADEN set and no conversion under
 *    way starts one as an ADSC write would ("If the ADC is enabled, a
 *    conversion starts automatically when this mode is entered"): at the
 *    next rising ADC clock edge; its ADIF interrupt wakes the CPU.
 *
 * simavr's core writes at the start of the storing instruction; a write
 * at cycle w is before an ADC clock edge at cycle e when w < e.
 */
#include "sim/periph.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <avr_adc.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

/* Trigger sources (the ADTS tables' rows). */
enum src {
	S_NONE, S_FREE, S_AC, S_INT0, S_T0A, S_T0B, S_T0OVF, S_T1B, S_T1OVF, S_T1CAPT, S_PCINT,
	S_PSC, S_COUNT
};

static const char *const SRC_NAME[S_COUNT] = {
	[S_NONE] = "a reserved source",
	[S_FREE] = "free running",
	[S_AC] = "the analog comparator",
	[S_INT0] = "external interrupt 0",
	[S_T0A] = "Timer0 compare match A",
	[S_T0B] = "Timer0 compare match B",
	[S_T0OVF] = "Timer0 overflow",
	[S_T1B] = "Timer1 compare match B",
	[S_T1OVF] = "Timer1 overflow",
	[S_T1CAPT] = "Timer1 capture event",
	[S_PCINT] = "the pin change interrupt",
	[S_PSC] = "a PSC synchronisation signal",
};

/* The vectors whose flags are the sources, by avr-libc's names (the
 * ATmega16's single Timer0 compare, the ATtinys' TIMn_...). */
static const char *const *const SRC_VECTORS[S_COUNT] = {
	[S_INT0] = (const char *const[]){ "INT0_vect", "EXT_INT0_vect", NULL },
	[S_T0A] = (const char *const[]){ "TIMER0_COMPA_vect", "TIMER0_COMP_vect",
					 "TIM0_COMPA_vect", NULL },
	[S_T0B] = (const char *const[]){ "TIMER0_COMPB_vect", "TIM0_COMPB_vect", NULL },
	[S_T0OVF] = (const char *const[]){ "TIMER0_OVF_vect", "TIM0_OVF_vect", NULL },
	[S_T1B] = (const char *const[]){ "TIMER1_COMPB_vect", "TIM1_COMPB_vect", NULL },
	[S_T1OVF] = (const char *const[]){ "TIMER1_OVF_vect", "TIM1_OVF_vect", NULL },
	[S_T1CAPT] = (const char *const[]){ "TIMER1_CAPT_vect", "TIM1_CAPT_vect", NULL },
	[S_PCINT] = (const char *const[]){ "PCINT0_vect", NULL },
};

/* The megaAVRs' ADTS table (ATmega328P Table 24-6, ATmega2560 Table
 * 26-6, ATmega16 Table 84 in SFIOR, ATmega164/324/644/1284), for the
 * cores whose description has ADTS bits and no table of them. */
static const uint8_t MEGA_ADTS[8] = { S_FREE, S_AC, S_INT0, S_T0A, S_T0OVF, S_T1B, S_T1OVF,
				      S_T1CAPT };

/* The ATmega16/32's channels (their Table 84-85, MUX4:0): simavr 1.6
 * gives them the ATmega8's four-bit table, in which MUX 14 is the 1.30 V
 * bandgap. */
static const avr_adc_mux_t M16_MUX[64] = {
	[0] = AVR_ADC_SINGLE(0), [1] = AVR_ADC_SINGLE(1), [2] = AVR_ADC_SINGLE(2),
	[3] = AVR_ADC_SINGLE(3), [4] = AVR_ADC_SINGLE(4), [5] = AVR_ADC_SINGLE(5),
	[6] = AVR_ADC_SINGLE(6), [7] = AVR_ADC_SINGLE(7),
	[8] = AVR_ADC_DIFF(0, 0, 10), [9] = AVR_ADC_DIFF(1, 0, 10),
	[10] = AVR_ADC_DIFF(0, 0, 200), [11] = AVR_ADC_DIFF(1, 0, 200),
	[12] = AVR_ADC_DIFF(2, 2, 10), [13] = AVR_ADC_DIFF(3, 2, 10),
	[14] = AVR_ADC_DIFF(2, 2, 200), [15] = AVR_ADC_DIFF(3, 2, 200),
	[16] = AVR_ADC_DIFF(0, 1, 1), [17] = AVR_ADC_DIFF(1, 1, 1), [18] = AVR_ADC_DIFF(2, 1, 1),
	[19] = AVR_ADC_DIFF(3, 1, 1), [20] = AVR_ADC_DIFF(4, 1, 1), [21] = AVR_ADC_DIFF(5, 1, 1),
	[22] = AVR_ADC_DIFF(6, 1, 1), [23] = AVR_ADC_DIFF(7, 1, 1),
	[24] = AVR_ADC_DIFF(0, 2, 1), [25] = AVR_ADC_DIFF(1, 2, 1), [26] = AVR_ADC_DIFF(2, 2, 1),
	[27] = AVR_ADC_DIFF(3, 2, 1), [28] = AVR_ADC_DIFF(4, 2, 1), [29] = AVR_ADC_DIFF(5, 2, 1),
	[30] = AVR_ADC_REF(1220), [31] = AVR_ADC_REF(0),
};

/* The synchronisation logic between a trigger and the prescaler reset. */
enum { SYNC = 3 };

enum { PH_IDLE, PH_START, PH_SAMPLE, PH_DONE };

/* What check() has said (its `warned` bits): one per source, then these. */
enum { W_DIFF = 1u << S_COUNT, W_PRR_WRITE = 2u << S_COUNT, W_TRIG_FROZEN = 4u << S_COUNT };

struct adc;

/* A trigger source wired to its vector's flag. */
typedef struct trig {
	struct adc *a;
	avr_int_vector_t *v;
	uint8_t src;
	uint8_t level;           /* the flag as last seen */
} trig;

typedef struct adc {
	/* Our own I/O module in simavr's list: avr_reset calls its reset. */
	avr_io_t io;
	avr_t *avr;
	avr_adc_t *sa;           /* simavr's description of this ADC */
	reghooks *regs;
	const mcu_names *names;
	const char *mcu;
	uint16_t adcsra, adcsrb, admux, adcl, adch;   /* data addresses (adcsrb 0: none) */
	uint8_t aden, adsc, adate, adif, adie, adlar; /* bit masks */
	uint16_t adts_reg;       /* where ADTS lives (0: none, ADFR only) */
	uint8_t adts_shift, adts_mask;
	uint8_t src_of[16];      /* ADTS -> source */
	avr_regbit_t mux[6];
	const avr_adc_mux_t *muxmode;
	uint8_t bin, ipr;        /* ADCSRB bits of the ATtinys (0: none) */
	int ckadc2;              /* differential conversions sync to CKADC2 (not modelled) */
	trig trig[S_COUNT];
	/* the converter */
	int on;                  /* ADEN */
	int first;               /* the next conversion is the first since ADEN */
	uint64_t origin;         /* the prescaler's last reset */
	int phase;
	uint64_t t_start, t_sample, t_done;
	unsigned n;              /* the conversion's prescaler */
	uint8_t muxi, refi, bipolar, negate; /* latched at the start */
	uint16_t result;         /* the conversion's, 10 bits */
	uint16_t data;           /* the data register's */
	int locked;              /* ADCL read, ADCH not yet */
	/* its clock */
	int frozen;              /* clk_ADC stopped, or PRADC */
	uint64_t frozen_at;
	/* for check() */
	uint32_t unwired;        /* sources selected that start nothing */
	uint8_t unwired_adts[S_COUNT];
	int diff_seen;
	int prr_written;         /* ADCSRA or ADMUX written under PRADC */
	int trig_frozen;         /* a trigger came while the clock stood */
} adc;

static adc *of_io(avr_io_t *io)
{
	return (adc *)(void *)((char *)io - offsetof(adc, io));
}

/* ---- time ----------------------------------------------------------- */

static unsigned prescaler(const adc *a)
{
	unsigned k = avr_regbit_get_array(a->avr, a->sa->adps, 3);
	return k ? 1u << k : 2;
}

/* The first rising ADC clock edge after cycle w. */
static uint64_t next_edge(const adc *a, uint64_t w, unsigned n)
{
	uint64_t e0 = a->origin + n / 2;
	return w < e0 ? e0 : e0 + ((w - e0) / n + 1) * n;
}

static avr_cycle_count_t on_step(avr_t *avr, avr_cycle_count_t when, void *param);

/* ---- the data register ---------------------------------------------- */

static void present(adc *a)
{
	avr_t *avr = a->avr;
	uint16_t r = a->data & 0x3ff;
	if (avr->data[a->admux] & a->adlar) {
		avr->data[a->adch] = (uint8_t)(r >> 2);
		avr->data[a->adcl] = (uint8_t)((r & 3) << 6);
	} else {
		avr->data[a->adch] = (uint8_t)(r >> 8);
		avr->data[a->adcl] = (uint8_t)r;
	}
}

/* ---- a conversion --------------------------------------------------- */

static uint8_t source(const adc *a)
{
	if (!a->adts_reg)
		return S_FREE;   /* ADFR */
	return a->src_of[(a->avr->data[a->adts_reg] & a->adts_mask) >> a->adts_shift];
}

static int free_running(const adc *a)
{
	return (a->avr->data[a->adcsra] & a->adate) && source(a) == S_FREE;
}

/* The conversion's start: the channel and reference are latched. */
static void latch(adc *a, uint64_t start)
{
	avr_t *avr = a->avr;
	a->muxi = avr_regbit_get_array(avr, a->mux, 6);
	a->refi = avr_regbit_get_array(avr, a->sa->ref, 3);
	a->bipolar = !a->bin || (a->adcsrb && (avr->data[a->adcsrb] & a->bin));
	a->negate = a->ipr && a->adcsrb && (avr->data[a->adcsrb] & a->ipr);
	a->t_start = start;
	a->t_sample = start + (uint64_t)(a->first ? 27 : 3) * a->n / 2;
	a->t_done = start + (uint64_t)(a->first ? 25 : 13) * a->n;
	a->first = 0;
	a->phase = PH_SAMPLE;
	if (a->muxmode[a->muxi].kind == ADC_MUX_DIFF)
		a->diff_seen = 1;
}

static uint32_t vref_mv(const adc *a)
{
	const avr_t *avr = a->avr;
	uint16_t ref = a->sa->ref_values[a->refi];
	switch (ref) {
	case ADC_VREF_AREF: return avr->aref;
	case ADC_VREF_VCC: return avr->vcc;
	case ADC_VREF_AVCC: return avr->avcc;
	default: return ref;
	}
}

static int64_t input_mv(const adc *a, unsigned ch)
{
	return ch < 16 ? (int64_t)a->sa->io.irq[ADC_IRQ_ADC0 + ch].value : 0;
}

/* x / d rounded down (d > 0). */
static int64_t floor_div(int64_t x, int64_t d)
{
	return x >= 0 ? x / d : -((-x + d - 1) / d);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The sample-and-hold: the stimuli are asked for the inputs (they answer
 * on the ADC's input IRQs), and the result is worked out. */
static void sample(adc *a)
{
	avr_t *avr = a->avr;
	avr_adc_mux_t mux = a->muxmode[a->muxi];
	union {
		avr_adc_mux_t mux;
		uint32_t v;
	} e;
	memset(&e, 0, sizeof e);
	e.mux = mux;
	avr_raise_irq(a->sa->io.irq + ADC_IRQ_OUT_TRIGGER, e.v);
	int64_t vref = vref_mv(a), v = 0;
	if (vref <= 0)
		vref = 1;
	switch (mux.kind) {
	case ADC_MUX_SINGLE: v = input_mv(a, mux.src); break;
	case ADC_MUX_TEMP: v = a->sa->io.irq[ADC_IRQ_TEMP].value; break;
	case ADC_MUX_REF: v = mux.src; break;
	case ADC_MUX_VCC4: v = avr->vcc / 4; break;
	case ADC_MUX_DIFF: {
		int64_t d = (input_mv(a, mux.src) - input_mv(a, mux.diff)) * (mux.gain ? mux.gain : 1);
		if (a->negate)
			d = -d;
		if (a->bipolar)
			a->result = (uint16_t)(clamp(floor_div(d * 512, vref), -512, 511) & 0x3ff);
		else
			a->result = (uint16_t)clamp(floor_div(d * 1024, vref), 0, 1023);
		return;
	}
	default: break;   /* no channel: reads 0 */
	}
	a->result = (uint16_t)clamp(v * 1024 / vref, 0, 1023);
}

/* The end: the data register (unless locked), ADSC, then ADIF.  Returns
 * whether a free-running conversion follows. */
static int done(adc *a)
{
	avr_t *avr = a->avr;
	if (!a->locked) {
		a->data = a->result;
		present(a);
	}
	int again = free_running(a);
	if (!again)
		avr->data[a->adcsra] &= (uint8_t)~a->adsc;
	avr_raise_interrupt(avr, &a->sa->adc);
	return again;
}

static avr_cycle_count_t on_step(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr;
	adc *a = param;
	switch (a->phase) {
	case PH_START:
		latch(a, when);
		return a->t_sample;
	case PH_SAMPLE:
		sample(a);
		a->phase = PH_DONE;
		return a->t_done;
	case PH_DONE:
		if (!done(a)) {
			a->phase = PH_IDLE;
			return 0;
		}
		a->n = prescaler(a);
		latch(a, a->t_done);   /* the next starts as this one ends */
		return a->t_sample;
	default:
		return 0;
	}
}

/* The cycle timer of the phase under way, unless the clock stands. */
static void schedule(adc *a)
{
	avr_t *avr = a->avr;
	uint64_t due = a->phase == PH_START ? a->t_start : a->phase == PH_SAMPLE ? a->t_sample
										 : a->t_done;
	if (a->phase == PH_IDLE || a->frozen)
		return;
	avr_cycle_timer_register(avr, due > avr->cycle ? due - avr->cycle : 0, on_step, a);
}

/* A conversion of prescaler n, starting at cycle `start` (>= now). */
static void begin(adc *a, uint64_t start, unsigned n)
{
	a->n = n;
	a->t_start = start;
	a->phase = PH_START;
	a->avr->data[a->adcsra] |= a->adsc;
	schedule(a);
}

static void stop(adc *a)
{
	if (a->phase != PH_IDLE)
		avr_cycle_timer_cancel(a->avr, on_step, a);
	a->phase = PH_IDLE;
}

/* An edge of the selected trigger at cycle t. */
static void triggered(adc *a, uint64_t t)
{
	avr_t *avr = a->avr;
	if (!a->on || !(avr->data[a->adcsra] & a->adate) || a->phase != PH_IDLE)
		return;
	if (a->frozen) {
		a->trig_frozen = 1;   /* no clock to synchronise it, nor to convert */
		return;
	}
	unsigned n = prescaler(a);
	a->origin = t + SYNC;   /* the prescaler reset */
	begin(a, a->origin + n / 2, n);
}

/* ---- trigger sources ------------------------------------------------ */

/* The selected trigger signal's level: its flag (ADIF in free running). */
static int signal_of(const adc *a, uint8_t src)
{
	avr_t *avr = a->avr;
	if (src == S_FREE)
		return (avr->data[a->adcsra] & a->adif) != 0;
	return a->trig[src].v ? avr_regbit_get(avr, a->trig[src].v->raised) : 0;
}

/* A source's vector raised (1) or cleared (0) its flag. */
static void on_flag(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	trig *t = param;
	adc *a = t->a;
	int was = t->level;
	t->level = value != 0;
	if (value && !was && source(a) == t->src)
		triggered(a, a->avr->cycle);
}

/* A write of a flag register a source lives in: whatever the write did,
 * each source's level is its flag's now. */
static void flags_observed(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	adc *a = ud;
	reghook_next_write(h, avr, addr, v);
	for (unsigned s = 0; s < S_COUNT; s++)
		if (a->trig[s].v && a->trig[s].v->raised.reg == addr)
			a->trig[s].level = (uint8_t)avr_regbit_get(avr, a->trig[s].v->raised);
}

/* Notes, for check(), a selected source that starts nothing. */
static void note_selection(adc *a)
{
	avr_t *avr = a->avr;
	if (!a->on || !(avr->data[a->adcsra] & a->adate) || !a->adts_reg)
		return;
	uint8_t s = source(a);
	if (s != S_FREE && !a->trig[s].v) {
		a->unwired |= 1u << s;
		a->unwired_adts[s] = (uint8_t)((avr->data[a->adts_reg] & a->adts_mask) >>
					       a->adts_shift);
	}
}

/* ---- registers ------------------------------------------------------ */

static void adcsra_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	adc *a = ud;
	uint8_t old = avr->data[addr];
	uint8_t ones = reghook_flags_written(a->regs, avr, addr, v);
	a->prr_written |= a->frozen;  /* awake and frozen: PRADC */
	/* ADSC and ADIF are the hardware's: ADSC only starts, ADIF only
	 * clears (written 1). */
	uint8_t r = (uint8_t)((v & ~(a->adsc | a->adif)) | (old & (a->adsc | a->adif)));
	int clear = (ones & a->adif) && (old & a->adif);
	if (clear)
		r &= (uint8_t)~a->adif;
	avr->data[addr] = r;
	if (clear)
		avr_clear_interrupt(avr, &a->sa->adc);
	int was_on = a->on;
	a->on = (r & a->aden) != 0;
	if (!a->on) {
		stop(a);   /* a conversion under way is terminated */
		avr->data[addr] &= (uint8_t)~a->adsc;
	} else {
		if (!was_on) {
			a->origin = avr->cycle;
			a->first = 1;
		}
		if ((v & a->adsc) && a->phase == PH_IDLE) {
			unsigned n = prescaler(a);
			begin(a, next_edge(a, avr->cycle, n), n);
		}
	}
	/* ADIE set while ADIF is: the interrupt is due now (simavr queues a
	 * vector only when its flag rises with the enable set). */
	if ((r & a->adie) && !(old & a->adie) && (avr->data[addr] & a->adif) &&
	    !a->sa->adc.pending)
		avr_raise_interrupt(avr, &a->sa->adc);
	note_selection(a);
}

/* ADCSRB (ADTS, MUX5, the ATtinys' BIN and IPR), or the ATmega16's SFIOR
 * (ADTS in bits 7-5, the timers' PSR10 and PSR2 in bits 1-0). */
static void adts_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	adc *a = ud;
	uint8_t before = source(a);
	int sig = signal_of(a, before);
	reghook_next_write(h, avr, addr, v);
	uint8_t now = source(a);
	/* Switching from a clear source to a set one is a rising edge. */
	if (now != before && !sig && signal_of(a, now))
		triggered(a, avr->cycle);
	note_selection(a);
}

/* ADMUX: MUX and REFS are taken at the next start; ADLAR shows at once. */
static void admux_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	adc *a = ud;
	uint8_t old = avr->data[addr];
	a->prr_written |= a->frozen;
	reghook_next_write(h, avr, addr, v);
	if ((old ^ avr->data[addr]) & a->adlar)
		present(a);
}

/* "When ADCL is read, the ADC Data Register is not updated until ADCH is
 * read." */
static uint8_t adcl_read(avr_t *avr, uint16_t addr, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	adc *a = ud;
	a->locked = 1;
	return avr->data[addr];
}

static uint8_t adch_read(avr_t *avr, uint16_t addr, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	adc *a = ud;
	a->locked = 0;
	return avr->data[addr];
}

/* ADCL and ADCH are read-only. */
static void data_write(avr_t *avr, uint16_t addr, uint8_t v, void *hook)
{
	reghook *h = hook;
	void *ud = reghook_ud(h);
	(void)avr;
	(void)addr;
	(void)v;
	(void)ud;
}

/* ---- reset ---------------------------------------------------------- */

/* The chip's reset, from avr_reset (after it cleared the I/O registers and
 * every cycle timer), so it holds where nothing calls the registry's
 * reset too: the ADC off, the data register 0. */
static void on_chip_reset(avr_io_t *io)
{
	adc *a = of_io(io);
	stop(a);
	a->frozen = 0;   /* a reset leaves every clock running */
	a->on = a->first = a->locked = 0;
	a->origin = a->avr->cycle;
	a->result = a->data = 0;
	for (unsigned s = 0; s < S_COUNT; s++)
		if (a->trig[s].v)
			a->trig[s].level = (uint8_t)avr_regbit_get(a->avr, a->trig[s].v->raised);
}

/* ---- set-up --------------------------------------------------------- */

/* The core's vector named one of names[] (NULL-ended), or NULL. */
static avr_int_vector_t *vector_named(const adc *a, const char *const *names)
{
	const mcu_names *mn = a->names;
	for (; mn && *names; names++)
		for (unsigned i = 0; i < mn->nvectors; i++) {
			if (strcmp(mn->vectors[i].name, *names))
				continue;
			const avr_int_table_t *t = &a->avr->interrupts;
			for (int k = 0; k < t->vector_count; k++)
				if (t->vector[k]->vector == mn->vectors[i].addr)
					return t->vector[k];
		}
	return NULL;
}

static uint8_t src_of_op(avr_adts_type op)
{
	switch (op) {
	case avr_adts_free_running: return S_FREE;
	case avr_adts_analog_comparator_0: case avr_adts_analog_comparator_1:
	case avr_adts_analog_comparator_2: case avr_adts_analog_comparator_3: return S_AC;
	case avr_adts_external_interrupt_0: return S_INT0;
	case avr_adts_timer_0_compare_match_a: return S_T0A;
	case avr_adts_timer_0_compare_match_b: return S_T0B;
	case avr_adts_timer_0_overflow: return S_T0OVF;
	case avr_adts_timer_1_compare_match_b: return S_T1B;
	case avr_adts_timer_1_overflow: return S_T1OVF;
	case avr_adts_timer_1_capture_event: return S_T1CAPT;
	case avr_adts_pin_change_interrupt: return S_PCINT;
	case avr_adts_psc_module_0_sync_signal: case avr_adts_psc_module_1_sync_signal:
	case avr_adts_psc_module_2_sync_signal: return S_PSC;
	default: return S_NONE;
	}
}

static int is_mcu(const char *mcu, const char *const *names)
{
	for (; *names; names++)
		if (!strcasecmp(mcu, *names))
			return 1;
	return 0;
}

/* Where ADTS lives and what each value selects. */
static void find_adts(adc *a)
{
	avr_adc_t *sa = a->sa;
	if (sa->adts[0].reg) {
		a->adts_reg = sa->adts[0].reg;
		a->adts_shift = sa->adts[0].bit;
		for (unsigned i = 0; i < 4; i++)
			if (sa->adts[i].reg == a->adts_reg)
				a->adts_mask |= periph_bits(sa->adts[i]);
		int any = 0;
		for (unsigned i = 0; i < 16; i++)
			any |= sa->adts_op[i] != avr_adts_none;
		for (unsigned i = 0; i < 16; i++)
			a->src_of[i] = any ? src_of_op(sa->adts_op[i]) : i < 8 ? MEGA_ADTS[i] : S_NONE;
		return;
	}
	/* The ATmega16/32 keep ADTS in SFIOR's bits 7-5, with the megas'
	 * table; the ATmega8/128's bit 5 of ADCSRA is ADFR (free running). */
	int sfior = ioregs_addr(a->names, "SFIOR");
	if (is_mcu(a->mcu, (const char *const[]){ "atmega16", "atmega32", NULL }) && sfior > 0) {
		a->adts_reg = (uint16_t)sfior;
		a->adts_shift = 5;
		a->adts_mask = 0xe0;
		for (unsigned i = 0; i < 8; i++)
			a->src_of[i] = MEGA_ADTS[i];
	}
}

/* Record-time warnings: a trigger source that is not simulated, timing
 * the model leaves out. */
static void adc_check(void *self, uint32_t *warned, void (*warn)(void *ud, const char *text),
		      void *ud)
{
	adc *a = self;
	char text[512];
	const char *reg = ioregs_name(a->names, a->adts_reg);
	reg = reg ? reg : "ADCSRB";
	for (unsigned s = 0; s < S_COUNT; s++) {
		uint32_t bit = 1u << s;
		if (!(a->unwired & bit) || !periph_first(warned, bit))
			continue;
		if (s == S_AC)
			snprintf(text, sizeof text, "adc: %s selects the analog comparator as the ADC "
				 "trigger (ADTS %u), which is not simulated: no conversion starts", reg,
				 a->unwired_adts[s]);
		else if (s == S_NONE)
			snprintf(text, sizeof text, "adc: %s selects ADTS %u, reserved on the %s, as the "
				 "ADC trigger: no conversion starts", reg, a->unwired_adts[s], a->mcu);
		else
			snprintf(text, sizeof text, "adc: %s selects %s as the ADC trigger (ADTS %u), "
				 "which avrr does not simulate on the %s: no conversion starts", reg,
				 SRC_NAME[s], a->unwired_adts[s], a->mcu);
		warn(ud, text);
	}
	if (a->ckadc2 && a->diff_seen && periph_first(warned, W_DIFF)) {
		snprintf(text, sizeof text, "adc: ADMUX selects a differential channel on the %s: "
			 "avrr times each conversion as 13 ADC clocks, where the chip takes 14 for those "
			 "that start while CKADC2 is high (every free-running one after the first)",
			 a->mcu);
		warn(ud, text);
	}
	if (a->prr_written && periph_first(warned, W_PRR_WRITE)) {
		snprintf(text, sizeof text, "adc: ADCSRA or ADMUX was written while PRADC shut the "
			 "ADC down: the %s's registers of a shut-down module \"can not be read or "
			 "written\", avrr took the writes (a conversion started then waits for the "
			 "clock)", a->mcu);
		warn(ud, text);
	}
	if (a->trig_frozen && periph_first(warned, W_TRIG_FROZEN)) {
		snprintf(text, sizeof text, "adc: the auto trigger (%s) rose while the ADC's clock "
			 "was stopped (a sleep mode or PRADC): avrr started no conversion; the %s's "
			 "synchronisation of a trigger without clk_ADC is not simulated",
			 SRC_NAME[source(a)], a->mcu);
		warn(ud, text);
	}
}

/* clk_ADC stopped or started (a sleep, a wake-up, a PRADC write). */
static void adc_clocks(void *self, const periph_clocks *c, const periph_clocks *was)
{
	adc *a = self;
	avr_t *avr = a->avr;
	int run = periph_clocked(c, CLOCK_ADC, PR_ADC);
	if (!run && !a->frozen) {
		if (a->phase != PH_IDLE)
			avr_cycle_timer_cancel(avr, on_step, a);
		a->frozen = 1;
		a->frozen_at = avr->cycle;
	} else if (run && a->frozen) {
		uint64_t shift = avr->cycle - a->frozen_at;
		a->frozen = 0;
		a->origin += shift;
		if (a->phase != PH_IDLE) {
			a->t_start += shift;
			a->t_sample += shift;
			a->t_done += shift;
		}
		schedule(a);
	}
	if (c->mode == SLEEP_ADC_NOISE && was->mode != SLEEP_ADC_NOISE && a->on &&
	    a->phase == PH_IDLE && !a->frozen) {
		unsigned n = prescaler(a);
		begin(a, next_edge(a, avr->cycle, n), n);
	}
}

/* The chip's reset is done from avr_reset itself (on_chip_reset), before
 * the registry's: nothing is left for periph_ops.reset. */
static const periph_ops ADC_OPS = {
	.name = "adc",
	.reset = NULL,
	.check = adc_check,
	.clocks = adc_clocks,
};

int adc_attach(periphs *p, avrr_err *err)
{
	const periph_ctx *ctx = periphs_ctx(p);
	avr_t *avr = ctx->avr;
	avr_adc_t *sa = NULL;
	for (avr_io_t *port = avr->io_port; port; port = port->next)
		if (port->kind && !strcmp(port->kind, "adc"))
			sa = (avr_adc_t *)port;
	if (!sa || !sa->r_adcsra || !sa->r_adcl || !sa->r_adch || !sa->aden.reg || !sa->io.irq)
		return 0;  /* no ADC on this core */
	adc *a = calloc(1, sizeof *a);
	if (!a)
		return avrr_errf(err, "out of memory");
	*a = (adc){ .avr = avr, .sa = sa, .regs = ctx->regs, .names = ctx->names, .mcu = ctx->mcu,
		    .adcsra = sa->r_adcsra, .adcsrb = sa->r_adcsrb, .admux = sa->r_admux,
		    .adcl = sa->r_adcl, .adch = sa->r_adch, .muxmode = sa->muxmode };
	if (periphs_add(p, &ADC_OPS, a, err))
		return -1;
	a->aden = periph_bits(sa->aden);
	a->adsc = periph_bits(sa->adsc);
	/* ADATE (ADFR on the ATmega8/128) is bit 5 where simavr has none. */
	a->adate = sa->adate.reg ? periph_bits(sa->adate) : 0x20;
	a->adif = periph_bits(sa->adc.raised);
	a->adie = periph_bits(sa->adc.enable);
	a->adlar = periph_bits(sa->adlar);
	memcpy(a->mux, sa->mux, sizeof a->mux);
	if (is_mcu(ctx->mcu, (const char *const[]){ "atmega16", "atmega32", NULL }) &&
	    !a->mux[4].reg) {
		a->mux[4] = (avr_regbit_t){ .reg = a->admux, .bit = 4, .mask = 1 };
		a->muxmode = M16_MUX;
	}
	a->ckadc2 = is_mcu(ctx->mcu, (const char *const[]){ "atmega16", "atmega32", "atmega128",
							    NULL });
	if (sa->bin.reg && sa->bin.reg == a->adcsrb)
		a->bin = periph_bits(sa->bin);
	/* simavr places the ATtiny x5's IPR in ADCSRA; it is ADCSRB's bit 5. */
	if (sa->ipr.reg && a->adcsrb)
		a->ipr = (uint8_t)(1u << sa->ipr.bit);
	find_adts(a);

	/* its reset would register its input notifications again */
	periph_cut_simavr(avr, sa, sizeof *sa, sa->io.irq, sa->io.irq ? ADC_IRQ_COUNT : 0);
	sa->io.reset = NULL;
	a->io = (avr_io_t){ .kind = "avrr adc", .reset = on_chip_reset };
	avr_register_io(avr, &a->io);

	reghooks *r = ctx->regs;
	if (!reghook_write(r, a->adcsra, 0xff, "the ADC", adcsra_write, a, err) ||
	    !reghook_write(r, a->admux, 0xff, "the ADC", admux_write, a, err) ||
	    !reghook_read(r, a->adcl, 0xff, "the ADC", adcl_read, a, err) ||
	    !reghook_read(r, a->adch, 0xff, "the ADC", adch_read, a, err) ||
	    !reghook_write(r, a->adcl, 0xff, "the ADC", data_write, a, err) ||
	    !reghook_write(r, a->adch, 0xff, "the ADC", data_write, a, err))
		return -1;
	/* ADCSRB holds the analog comparator's ACME too: the ADC claims its
	 * own bits there, as in the ATmega16's SFIOR. */
	uint16_t breg = a->adts_reg ? a->adts_reg : a->adcsrb;
	uint8_t owns = a->adts_mask | a->bin | a->ipr;
	if (a->mux[5].reg && a->mux[5].reg == breg)
		owns |= periph_bits(a->mux[5]);
	if (breg && !reghook_write(r, breg, owns, "the ADC", adts_write, a, err))
		return -1;
	if (a->adcsrb && breg != a->adcsrb &&
	    !reghook_write(r, a->adcsrb, 0, "the ADC", adts_write, a, err))
		return -1;

	/* The trigger sources ADTS can select: their vectors' flags, each
	 * wired once, with a look at every write of their flag registers. */
	uint32_t used = 0;
	for (unsigned i = 0; a->adts_reg && i < 16; i++)
		used |= 1u << a->src_of[i];
	uint16_t seen[S_COUNT];
	unsigned nseen = 0;
	for (unsigned s = 0; s < S_COUNT; s++) {
		if (!(used & (1u << s)) || !SRC_VECTORS[s] ||
		    !(a->trig[s].v = vector_named(a, SRC_VECTORS[s])))
			continue;
		trig *t = &a->trig[s];
		t->a = a;
		t->src = (uint8_t)s;
		avr_irq_register_notify(t->v->irq + AVR_INT_IRQ_PENDING, on_flag, t);
		uint16_t fr = t->v->raised.reg;
		int known = !fr;
		for (unsigned i = 0; i < nseen; i++)
			known |= seen[i] == fr;
		if (known)
			continue;
		seen[nseen++] = fr;
		if (!reghook_write(r, fr, 0, "the ADC's trigger", flags_observed, a, err))
			return -1;
	}
	/* The state at power-on (simavr reset the chip before we came). */
	on_chip_reset(&a->io);
	return 0;
}
