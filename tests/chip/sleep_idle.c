// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_idle.c — idle woken by Timer0's overflow (clk/64), whose handler
 * marks its first instruction (GPIOR0).  SMCR's SM bits come from GPIOR0,
 * which the test sets before the run: idle (0), or a reserved mode (4, 5),
 * which the chip is not meant to use and avrr sleeps as idle, warning.
 * First, with interrupts off, a SLEEP with SE clear (power-down's SM bits
 * set), between two writes of GPIOR1: it does nothing, so the second write
 * comes the cycle after it.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(TIMER0_OVF_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g0], r1\n\t"
			     "reti"
			     :
			     : [g0] "I"(_SFR_IO_ADDR(GPIOR0)));
}

int main(void)
{
	uint8_t sm = GPIOR0;
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64 */
	SMCR = _BV(SM1);                  /* power-down, SE clear */
	__asm__ __volatile__("out %[g1], r1\n\t"
			     "sleep\n\t"
			     "out %[g1], r1"
			     :
			     : [g1] "I"(_SFR_IO_ADDR(GPIOR1)));
	SMCR = (uint8_t)((sm & 0x0e) | _BV(SE));
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
