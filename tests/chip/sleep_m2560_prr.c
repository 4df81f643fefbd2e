// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * sleep_m2560_prr.c — the ATmega2560's PRR0 and PRR1: Timers 1, 3, 4 and 5
 * at clk/1 with their overflow interrupts on; PRR0's PRTIM1 and PRR1's
 * PRTIM3 and PRTIM5 stop those three for a while longer than a period,
 * Timer4 runs throughout (PRR1 = PRTIM4 is never set).  Then the CPU sleeps
 * in idle.  Each handler marks its first instruction: Timer1's GPIOR1,
 * Timer3's GPIOR2, Timer4's and Timer5's OCR0A and OCR0B (spare report
 * registers: Timer0 is off).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay_basic.h>

#define MARK(reg) __asm__ __volatile__("out %[r], r1" : : [r] "I"(_SFR_IO_ADDR(reg)))

ISR(TIMER1_OVF_vect, ISR_NAKED)
{
	MARK(GPIOR1);
	reti();
}

ISR(TIMER3_OVF_vect, ISR_NAKED)
{
	MARK(GPIOR2);
	reti();
}

ISR(TIMER4_OVF_vect, ISR_NAKED)
{
	MARK(OCR0A);
	reti();
}

ISR(TIMER5_OVF_vect, ISR_NAKED)
{
	MARK(OCR0B);
	reti();
}

int main(void)
{
	TIMSK1 = _BV(TOIE1);
	TIMSK3 = _BV(TOIE3);
	TIMSK4 = _BV(TOIE4);
	TIMSK5 = _BV(TOIE5);
	TCCR1B = _BV(CS10);
	TCCR3B = _BV(CS30);
	TCCR4B = _BV(CS40);
	TCCR5B = _BV(CS50);
	sei();
	_delay_loop_2(20000);                     /* ~80,000 cycles: one overflow each */
	PRR0 = _BV(PRTIM1);
	PRR1 = _BV(PRTIM3) | _BV(PRTIM5);
	_delay_loop_2(40000);                     /* ~160,000 held: two overflows */
	PRR1 = 0;
	PRR0 = 0;
	SMCR = _BV(SE);                           /* idle */
	for (;;)
		__asm__ __volatile__("sleep");
}
