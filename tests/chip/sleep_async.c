// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_async.c — Timer2 on a 32,768 Hz crystal (AS2, clk/1: an overflow
 * every 256 crystal cycles, 7.8125 ms) and Timer0 on clk_I/O (clk/64),
 * both with their overflow interrupts on, the CPU sleeping in the mode
 * whose SM bits the test puts in GPIOR0 before the run.  Each handler
 * marks its first instruction: Timer2's GPIOR1, Timer0's GPIOR2.  PSRASY
 * resets Timer2's prescaler before Timer2 starts, so its crystal edges
 * count from that write.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(TIMER2_OVF_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g1], r1\n\t"
			     "reti"
			     :
			     : [g1] "I"(_SFR_IO_ADDR(GPIOR1)));
}

ISR(TIMER0_OVF_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g2], r1\n\t"
			     "reti"
			     :
			     : [g2] "I"(_SFR_IO_ADDR(GPIOR2)));
}

int main(void)
{
	uint8_t sm = GPIOR0;
	TIMSK0 = _BV(TOIE0);
	TIMSK2 = _BV(TOIE2);
	ASSR = _BV(AS2);
	GTCCR = _BV(PSRASY);
	TCCR2B = _BV(CS20);               /* the crystal, undivided */
	TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64 */
	SMCR = (uint8_t)((sm & 0x0e) | _BV(SE));
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
