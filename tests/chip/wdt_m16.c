// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * wdt_m16.c — the ATmega16's WDTCR: reset mode only, a 1 MHz oscillator
 * (16K << WDP cycles), WDTOE guarding WDE = 0 and nothing else.  Each
 * boot writes MCUCSR to PORTB; WDTCR goes to PORTC after each step:
 *  1. (power-on) a plain write of 0xef: WDE and WDP 7, bits 7-5 reserved
 *     (0x0f); a plain 0: WDE stays, WDP is free (0x08); WDP 1 (0x09);
 *     0xaa to PORTB, WDR: the reset comes 32K oscillator cycles (32.8 ms)
 *     after the WDR;
 *  2. (WDRF set) WDTCR reads 0: a watchdog reset leaves the ATmega16's
 *     watchdog stopped; enabled (0x08) and stopped by WDTOE and WDE then
 *     0 (0x00): no further reset.
 */
#include <avr/io.h>

int main(void)
{
	uint8_t flags = MCUCSR;
	PORTB = flags;
	PORTC = WDTCR;
	if (!(flags & _BV(WDRF))) {
		WDTCR = 0xff & ~_BV(WDTOE);
		PORTC = WDTCR;
		WDTCR = 0;
		PORTC = WDTCR;
		WDTCR = _BV(WDE) | _BV(WDP0);
		PORTC = WDTCR;
		__asm__ __volatile__("out %0, %1\n\t"
				     "wdr"
				     :
				     : "I"(_SFR_IO_ADDR(PORTB)), "r"((uint8_t)0xaa));
		for (;;)
			;
	}
	WDTCR = _BV(WDE);
	PORTC = WDTCR;
	WDTCR = _BV(WDTOE) | _BV(WDE);
	WDTCR = 0;
	PORTC = WDTCR;
	for (;;)
		;
}
