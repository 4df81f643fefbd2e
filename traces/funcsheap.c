/*
 * funcsheap.c — loops, nested calls and the heap under interrupts.
 *
 * Models the FuncsHeap application of "Tracing Interrupts in Embedded
 * Software" (LCTES'09, §5), written to stress control-flow replay: eight
 * global variables, and a main loop that toggles LEDs, runs a delay loop from
 * 0 to 0xffff (standing in for arbitrary computation) and calls func_a.
 *   func_a  computes with the globals and calls func_b
 *   func_b  calls func_c twice in a loop, passing two ints
 *   func_c  mallocs an array of five ints, calls func_d four times in a loop
 *           passing the array, frees it
 *   func_d  loops from 0 to 8 computing on the globals
 * The func_* are real functions (see FUNC) so that they can be broken on and
 * appear in the call stack, and their loops stay loops.
 *
 * Interrupt sources (ATmega16, 8 MHz):
 *   TIMER2_COMP  1 kHz system tick, heartbeat LED
 *   TIMER0_OVF   sample clock (~488 Hz): starts an ADC conversion
 *   ADC          conversion complete: filters channel 0 into the globals
 *   INT0         push button on PD2 (rising edge): counts presses and
 *                measures the time between them
 * Port B: PB7..PB4 LED pattern, PB3 heartbeat, PB2 button LED,
 *         PB0 mode jumper (input, read by func_a).
 */
#include <avr/io.h>
#include <avr/interrupt.h>
#include <util/atomic.h>
#include <stdint.h>
#include <stdlib.h>
#include "avr/avr_mcu_section.h"

AVR_MCU(F_CPU, "atmega16");
AVR_MCU_VOLTAGES(5000, 5000, 5000);

/* ---- the eight globals ---- */
volatile uint16_t g_ticks;          /* ms since reset (timer 2) */
volatile uint16_t g_adc_last;       /* last conversion (ADC) */
volatile uint16_t g_adc_avg;        /* filtered ADC, 1/8 smoothing (ADC) */
volatile uint8_t  g_presses;        /* button presses (INT0) */
volatile uint16_t g_press_gap;      /* ms between the last two presses */
int16_t  g_scale;                   /* func_a */
int16_t  g_acc;                     /* func_d accumulator */
uint8_t  g_led;                     /* LED pattern (main) */

static uint16_t last_press;          /* INT0 only */
static uint16_t adc_hist[4];         /* ADC only */
static uint8_t  adc_hist_i;
static volatile uint8_t adc_busy;    /* timer 0 and ADC */
static uint8_t  heap_failures;

/*
 * Real functions: noinline/noclone keep them out of line, and
 * no-tree-loop-ivcanon stops -Os from unrolling the short constant-count
 * loops of func_b and func_c into straight-line calls: they stay loops.
 */
#define FUNC __attribute__((noinline, noclone, optimize("no-tree-loop-ivcanon")))
void func_a(void) FUNC;
int  func_b(int x, int y) FUNC;
int  func_c(int p, int q) FUNC;
void func_d(int *v) FUNC;

ISR(TIMER2_COMP_vect)
{
	uint16_t t = g_ticks + 1;
	g_ticks = t;
	if ((t & 0x7f) == 0)
		PORTB ^= _BV(PB3);                       /* heartbeat */
}

ISR(TIMER0_OVF_vect)
{
	if (!adc_busy) {                             /* sample clock */
		adc_busy = 1;                            /* (ADIF is clear: sbi is safe) */
		ADCSRA |= _BV(ADSC);
	}
}

ISR(ADC_vect)
{
	uint16_t v = ADC;
	adc_busy = 0;
	g_adc_last = v;
	adc_hist[adc_hist_i++ & 3] = v;
	uint16_t avg = g_adc_avg;
	g_adc_avg = avg - (avg >> 3) + (v >> 3);
}

ISR(INT0_vect)
{
	uint16_t now = g_ticks;
	g_press_gap = now - last_press;
	last_press = now;
	g_presses++;
	PORTB ^= _BV(PB2);
}

void func_d(int *v)
{
	uint8_t j = 0;                               /* i mod 5 */

	for (uint8_t i = 0; i <= 8; i++) {
		if (g_acc > 20000 || g_acc < -20000)     /* keep clear of overflow */
			g_acc = g_scale;
		g_acc += (v[j] >> 2) ^ i;
		if (++j == 5)
			j = 0;
		v[j] = (v[j] + (g_acc >> 4)) & 0x0fff;
	}
}

int func_c(int p, int q)
{
	int *v = malloc(5 * sizeof(int));
	int sum = 0;

	if (v == NULL) {
		heap_failures++;
		return 0;
	}
	v[0] = p;
	v[1] = q;
	v[2] = p + q;
	v[3] = p - q;
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
		v[4] = g_adc_last;
	for (uint8_t k = 0; k < 4; k++)
		func_d(v);
	for (uint8_t k = 0; k < 5; k++)
		sum += v[k];
	free(v);
	return sum;
}

int func_b(int x, int y)
{
	int r = 0;
	for (uint8_t i = 0; i < 2; i++)
		r += func_c(x + i, y - i) >> 1;
	return r;
}

void func_a(void)
{
	uint16_t avg, gap, old;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		avg = g_adc_avg;
		gap = g_press_gap;
		old = adc_hist[g_led & 3];
	}
	g_scale = (int16_t)(avg >> 2) + g_presses;
	if (PINB & _BV(PB0))                         /* mode jumper */
		g_scale = -g_scale;
	int x = g_scale * 3 - g_led;
	int y = (int)(gap & 0x3ff) + old;
	g_acc ^= func_b(x, y);
}

int main(void)
{
	DDRB = 0xf0 | _BV(PB3) | _BV(PB2);           /* PB0 stays an input */

	OCR2 = F_CPU / 64 / 1000 - 1;                /* 1 kHz */
	TCCR2 = _BV(WGM21) | _BV(CS22);              /* CTC, clk/64 */
	TCCR0 = _BV(CS01) | _BV(CS00);               /* normal, clk/64: 2.048 ms */
	TIMSK = _BV(OCIE2) | _BV(TOIE0);

	ADMUX = _BV(REFS0);                          /* AVCC, channel 0 */
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1);  /* 125 kHz */

	MCUCR = _BV(ISC01) | _BV(ISC00);             /* INT0 on rising edge */
	GICR = _BV(INT0);
	sei();

	for (;;) {
		g_led = (g_led << 1) | !(g_led & 0x08);  /* 4-bit Johnson counter */
		g_led &= 0x0f;
		ATOMIC_BLOCK(ATOMIC_FORCEON)             /* the ISRs toggle PB3/PB2 */
			PORTB = (PORTB & 0x0f) | (g_led << 4);

#ifndef FUNCSHEAP_NOLOOP
		/* delay loop: arbitrary computation */
		for (volatile uint16_t d = 0; d != 0xffff; d++)
			;
#endif

		func_a();
	}
}
