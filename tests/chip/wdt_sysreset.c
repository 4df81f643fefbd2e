// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_sysreset.c — the watchdog in system reset mode on an ATmega328P,
 * and WDRF forcing WDE on.  Each boot writes MCUSR to PORTB and WDTCSR
 * to PORTC:
 *  1. (power-on) enables reset mode at 250 ms (WDP 4) and spins;
 *  2. (after the watchdog reset: WDRF set, so WDE on at WDP 0, 16 ms)
 *     runs the timed sequence to clear WDE without clearing WDRF first:
 *     WDE stays set, and 16 ms after the reset the chip resets again;
 *  3. clears WDRF, then WDE with the sequence: the watchdog stops.
 */
#include <avr/io.h>
#include <avr/wdt.h>

static uint8_t boots __attribute__((section(".noinit")));

int main(void)
{
	uint8_t flags = MCUSR;
	if (!(flags & _BV(WDRF)))
		boots = 0;
	boots++;
	PORTB = flags;
	PORTC = WDTCSR;
	if (boots == 1) {
		wdt_enable(WDTO_250MS);
	} else if (boots == 2) {
		WDTCSR = _BV(WDCE) | _BV(WDE);
		WDTCSR = 0;
		PORTC = WDTCSR;
	} else {
		MCUSR = 0;
		wdt_disable();
		PORTC = WDTCSR;
	}
	for (;;)
		;
}
