// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_sequence.c — the timed sequence on an ATmega328P.  With the
 * watchdog in reset mode at 500 ms (WDP 5: WDTCSR 0x0d), each step
 * writes WDTCSR to PORTB afterwards:
 *  - a plain write of 0: ignored (0x0d);
 *  - a plain write changing WDP: ignored (0x0d);
 *  - WDCE and WDE, WDTCSR read 2 cycles later (0x1d: WDCE still set),
 *    and the write of 0 5 cycles after the first: too late, ignored
 *    (0x1d, then 0x0d);
 *  - WDCE and WDE, then 0 4 cycles after: the watchdog stops (0x00).
 * Had any step stopped it early or not at all, the chip would reset.
 */
#include <avr/io.h>
#include <avr/wdt.h>

int main(void)
{
	uint8_t open = _BV(WDCE) | _BV(WDE) | _BV(WDP2) | _BV(WDP0), seen;
	MCUSR = 0;
	wdt_enable(WDTO_500MS);
	PORTB = WDTCSR;
	WDTCSR = 0;
	PORTB = WDTCSR;
	WDTCSR = _BV(WDE) | _BV(WDP0);
	PORTB = WDTCSR;
	/* sts (2 cycles), lds (2), nop (1), sts: 5 cycles apart */
	__asm__ __volatile__("sts %[reg], %[open]\n\t"
			     "lds %[seen], %[reg]\n\t"
			     "nop\n\t"
			     "sts %[reg], __zero_reg__"
			     : [seen] "=&r"(seen)
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)), [open] "r"(open)
			     : "memory");
	PORTB = seen;
	PORTB = WDTCSR;
	/* sts (2 cycles), nop, nop, sts: 4 cycles apart */
	__asm__ __volatile__("sts %[reg], %[open]\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "sts %[reg], __zero_reg__"
			     :
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)), [open] "r"(open)
			     : "memory");
	PORTB = WDTCSR;
	for (;;)
		;
}
