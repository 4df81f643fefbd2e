// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_intreset.c — the watchdog in interrupt-and-system-reset mode on an
 * ATmega328P at WDP 0 (16 ms), sleeping.  The first timeout interrupts
 * (the ISR writes WDTCSR to PORTB: the entry cleared WDIE and WDIF), the
 * ISR does not set WDIE again, so the next timeout resets.  Each boot
 * writes MCUSR to PORTC; after the watchdog reset the program clears
 * WDRF and stops the watchdog.
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
	uint8_t flags = MCUSR;
	PORTC = flags;
	if (flags & _BV(WDRF)) {
		MCUSR = 0;
		wdt_disable();
		for (;;)
			;
	}
	cli();
	wdt_reset();
	WDTCSR = _BV(WDCE) | _BV(WDE);
	WDTCSR = _BV(WDE) | _BV(WDIE);
	sei();
	for (;;)
		sleep_mode();
}
