// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * shape_stepper.c — a stepper-pulse generator shaped as stepper libraries
 * (grbl's stepper ISR, the usual "Timer1 CTC" drivers) write one, on an
 * ATmega328P at 16 MHz.
 *
 *  - Timer1 runs in CTC (mode 4) at clk/1, started with OCR1A still 0, so
 *    the first compare match comes at once: OCR1A = 0 at clk/1 matches at
 *    every timer clock.  The first entry of TIMER1_COMPA loads the real
 *    step period, OCR1A = PERIOD - 1 = 1999 (CTC's OCR1A is not buffered),
 *    and clears the stale OCF1A the every-clock matches left.  From the
 *    OCR1A write at cycle wo on the count runs 0..1999: a match every
 *    (1999 + 1) * 1 = 2000 cycles, at wo + 2000 k.
 *  - STEP is OC1A (PB1), COM1A = 3 (set on compare match): the match
 *    itself raises the pin, so step k + 1 rises at wo + 2000 k exactly
 *    (step 1 rose at the first timer clock after the start).  The ISR ends
 *    the pulse with a forced compare: COM1A = 2 (clear), FOC1A, COM1A = 3
 *    again — an output change, no flag, no count cleared.
 *  - The ISR masks its own interrupt (OCIE1A) and does sei() for the
 *    step planner's work (a 32-bit division), so Timer0's overflow — a
 *    millis() at clk/64, 256 * 64 = 16384 cycles (976.5625 Hz) — nests
 *    inside it; then cli(), OCIE1A back on.
 *  - It writes the step count's low six bits to PORTC (a debug output:
 *    one write event a step) and, after NSTEPS = 250 steps, stops Timer1
 *    (TCCR1B = 0): 250 rising edges of PB1 in all, the last at wo + 2000
 *    * 249.
 *  - main sleeps in idle mode between the interrupts.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#define PERIOD 2000u
#define NSTEPS 250u

static volatile uint16_t steps;
static volatile uint32_t millis_ticks;
static volatile uint32_t plan;

ISR(TIMER0_OVF_vect)
{
	millis_ticks++;
}

ISR(TIMER1_COMPA_vect)
{
	if (steps == 0) {
		OCR1A = PERIOD - 1;
		TIFR1 = _BV(OCF1A);
	}
	TIMSK1 &= (uint8_t)~_BV(OCIE1A);
	uint16_t n = steps + 1;
	steps = n;
	PORTC = (uint8_t)(n & 0x3f);
	sei();
	/* The planner: the next interval of an acceleration ramp, kept and
	 * not used (the speed is constant here); ~600 cycles. */
	plan = (uint32_t)F_CPU / (uint32_t)(n + 100u);
	/* The pulse ends: a forced match clears OC1A, then set-on-match
	 * again for the next step. */
	TCCR1A = _BV(COM1A1);
	TCCR1C = _BV(FOC1A);
	TCCR1A = _BV(COM1A1) | _BV(COM1A0);
	cli();
	if (n == NSTEPS)
		TCCR1B = 0;
	else
		TIMSK1 |= _BV(OCIE1A);
}

int main(void)
{
	DDRB = _BV(PB1);
	DDRC = 0x3f;
	/* millis(): Timer0 normal mode, clk/64. */
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS01) | _BV(CS00);
	/* The stepper: CTC, OC1A set on match, OCR1A = 0, clk/1. */
	TCCR1A = _BV(COM1A1) | _BV(COM1A0);
	OCR1A = 0;
	TIMSK1 = _BV(OCIE1A);
	TCCR1B = _BV(WGM12) | _BV(CS10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
