// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_eeprom.c — an EEPROM write (0x5a to byte 0) started with EE_READY
 * enabled, then power-down until the watchdog (interrupt mode, WDP 0,
 * 16 ms).  The write ends 3.4 ms in, on the EEPROM's own oscillator, but
 * EE_READY is no wake-up source in power-down: its handler runs after the
 * watchdog's.  Each handler marks its first instruction: the watchdog's
 * GPIOR1, EE_READY's GPIOR2 (and clears EERIE: it is a level).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

ISR(WDT_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g1], r1\n\t"
			     "reti"
			     :
			     : [g1] "I"(_SFR_IO_ADDR(GPIOR1)));
}

ISR(EE_READY_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g2], r1\n\t"
			     "cbi %[eecr], %[eerie]\n\t"
			     "reti"
			     :
			     : [g2] "I"(_SFR_IO_ADDR(GPIOR2)), [eecr] "I"(_SFR_IO_ADDR(EECR)),
			       [eerie] "I"(EERIE));
}

int main(void)
{
	MCUSR = 0;
	wdt_disable();
	cli();
	__asm__ __volatile__("wdr\n\t"
			     "sts %[reg], %[open]\n\t"
			     "sts %[reg], %[mode]"
			     :
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)),
			       [open] "r"((uint8_t)(_BV(WDCE) | _BV(WDE))),
			       [mode] "r"((uint8_t)_BV(WDIE))
			     : "memory");
	EEAR = 0;
	EEDR = 0x5a;
	__asm__ __volatile__("sbi %[eecr], %[eempe]\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "sbi %[eecr], %[eerie]"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [eempe] "I"(EEMPE), [eepe] "I"(EEPE),
			       [eerie] "I"(EERIE));
	SMCR = _BV(SM1) | _BV(SE);        /* power-down */
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
