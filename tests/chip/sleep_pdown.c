// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_pdown.c — power-down (or standby: SMCR's SM bits come from GPIOR0,
 * which the test sets before the run) woken by the watchdog in interrupt
 * mode at WDP 0 (16 ms), with Timer0 (clk/64), Timer1 (clk/1) and a
 * synchronous Timer2 (clk/8) running, their overflow interrupts enabled.
 * clk_I/O stops in both modes, so the timers stand while the CPU sleeps
 * and only the watchdog wakes it.  The watchdog's handler marks its first
 * instruction (GPIOR0), then reports TCNT0, TCNT1L, TCNT1H through GPIOR1
 * and TCNT2 through GPIOR2, each read a fixed number of cycles before its
 * report: IN one cycle before, LDS two.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

ISR(WDT_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g0], r1\n\t"   /* the vector's first instruction */
			     "push r24\n\t"
			     "in r24, %[t0]\n\t"
			     "out %[g1], r24\n\t"
			     "lds r24, %[t1l]\n\t"
			     "out %[g1], r24\n\t"
			     "lds r24, %[t1h]\n\t"
			     "out %[g1], r24\n\t"
			     "lds r24, %[t2]\n\t"
			     "out %[g2], r24\n\t"
			     "pop r24\n\t"
			     "reti"
			     :
			     : [g0] "I"(_SFR_IO_ADDR(GPIOR0)), [g1] "I"(_SFR_IO_ADDR(GPIOR1)),
			       [g2] "I"(_SFR_IO_ADDR(GPIOR2)), [t0] "I"(_SFR_IO_ADDR(TCNT0)),
			       [t1l] "n"(_SFR_MEM_ADDR(TCNT1L)), [t1h] "n"(_SFR_MEM_ADDR(TCNT1H)),
			       [t2] "n"(_SFR_MEM_ADDR(TCNT2)));
}

EMPTY_INTERRUPT(TIMER0_OVF_vect);
EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER2_OVF_vect);

int main(void)
{
	uint8_t sm = GPIOR0;
	MCUSR = 0;
	wdt_disable();
	TIMSK0 = _BV(TOIE0);
	TIMSK1 = _BV(TOIE1);
	TIMSK2 = _BV(TOIE2);
	TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64 */
	TCCR1B = _BV(CS10);               /* clk/1 */
	TCCR2B = _BV(CS21);               /* clk/8 */
	cli();
	__asm__ __volatile__("wdr\n\t"
			     "sts %[reg], %[open]\n\t"
			     "sts %[reg], %[mode]"
			     :
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)),
			       [open] "r"((uint8_t)(_BV(WDCE) | _BV(WDE))),
			       [mode] "r"((uint8_t)_BV(WDIE))
			     : "memory");
	SMCR = (uint8_t)((sm & 0x0e) | _BV(SE));
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
