// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_flags.c — WDIF on an ATmega328P, in interrupt mode (16 ms) with
 * interrupts off; WDTCSR goes to PORTB after each step:
 *  - the timeout sets WDIF (0xc0), a 1 written to it clears it (0x40);
 *  - the next timeout sets it again (0xc0); WDIE cleared (0x80: WDIF
 *    stays, the watchdog stops); WDIE set again with WDIF still set:
 *    the interrupt is due at once, taken right after sei (PORTD = 1 just
 *    before); the ISR writes WDTCSR to PORTC (0x40).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

ISR(WDT_vect)
{
	PORTC = WDTCSR;
}

int main(void)
{
	MCUSR = 0;
	cli();
	wdt_reset();
	WDTCSR = _BV(WDCE) | _BV(WDE);
	WDTCSR = _BV(WDIE);
	while (!(WDTCSR & _BV(WDIF)))
		;
	PORTB = WDTCSR;
	WDTCSR = _BV(WDIF) | _BV(WDIE);
	PORTB = WDTCSR;
	while (!(WDTCSR & _BV(WDIF)))
		;
	PORTB = WDTCSR;
	WDTCSR = 0;
	PORTB = WDTCSR;
	WDTCSR = _BV(WDIE);
	PORTD = 1;
	sei();
	for (;;)
		;
}
