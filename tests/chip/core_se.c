// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * core_se.c — SLEEP with SE clear does nothing: GPIOR0 = 1, SLEEP with
 * SMCR = 0 (no interrupt enabled: were it to sleep, nothing would wake
 * it), GPIOR0 = 2.
 */
#include <avr/io.h>

int main(void)
{
	SMCR = 0;
	__asm__ __volatile__("ldi r24, 1\n\t"
			     "ldi r25, 2\n\t"
			     "out %0, r24\n\t"
			     "sleep\n\t"
			     "out %0, r25\n\t"
			     :
			     : "I"(_SFR_IO_ADDR(GPIOR0))
			     : "r24", "r25");
	for (;;)
		;
}
