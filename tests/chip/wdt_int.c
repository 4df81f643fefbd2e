// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_int.c — the watchdog in interrupt mode on an ATmega328P, sleeping
 * between its interrupts.  WDP comes from GPIOR0, which the test sets
 * before the run; each interrupt writes WDTCSR as the ISR finds it to
 * PORTB (WDIE must still be set there, WDIF cleared by the entry).  It
 * starts with the usual wdt_disable(), which stops nothing.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>

ISR(WDT_vect)
{
	PORTB = WDTCSR;
}

int main(void)
{
	uint8_t wdp = GPIOR0;
	uint8_t mode = (uint8_t)(_BV(WDIE) | (wdp & 7) | (wdp & 8 ? _BV(WDP3) : 0));
	MCUSR = 0;
	wdt_disable();
	cli();
	/* The window is 4 cycles: the two writes back to back. */
	__asm__ __volatile__("wdr\n\t"
			     "sts %[reg], %[open]\n\t"
			     "sts %[reg], %[mode]"
			     :
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)),
			       [open] "r"((uint8_t)(_BV(WDCE) | _BV(WDE))), [mode] "r"(mode)
			     : "memory");
	sei();
	for (;;)
		sleep_mode();
}
