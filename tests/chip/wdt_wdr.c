// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_wdr.c — WDR restarts the watchdog's count, on an ATmega328P: reset
 * mode at WDP 0 (16 ms), a WDR every 10 ms twenty times (each right after
 * writing its number to PORTB), then none: the reset comes 16 ms after
 * the last WDR, not before.  After it the program stops the watchdog.
 */
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/delay.h>

int main(void)
{
	uint8_t flags = MCUSR;
	MCUSR = 0;
	if (flags & _BV(WDRF)) {
		wdt_disable();
		PORTC = 0xff;
		for (;;)
			;
	}
	wdt_enable(WDTO_15MS);
	for (uint8_t i = 1; i <= 20; i++) {
		_delay_ms(10);
		__asm__ __volatile__("out %0, %1\n\t"
				     "wdr"
				     :
				     : "I"(_SFR_IO_ADDR(PORTB)), "r"(i));
	}
	for (;;)
		;
}
