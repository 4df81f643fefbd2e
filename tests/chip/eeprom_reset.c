// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * eeprom_reset.c — a watchdog reset in the middle of an EEPROM write on
 * an ATmega328P: "the write operation will be completed".  From power-on
 * the watchdog is set to reset after 16 ms; 15.5 ms on, an erase-only
 * write (EEPM 01, 1.8 ms) of byte 5 (0x5a from the ELF) starts, and the
 * reset comes during it.  After the reset: EECR to GPIOR1 (EEPE and the
 * write's EEPM0 read on: 0x12), then EEARL (reset to 0); the watchdog
 * stopped; EEPE polled, GPIOR0 = 1 at the end; byte 5 read back to
 * GPIOR2 (0xff), then byte 0 (0x11, untouched).
 */
#include <avr/eeprom.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/delay.h>

__attribute__((used)) uint8_t EEMEM cells[6] = { 0x11, 0, 0, 0, 0, 0x5a };

int main(void)
{
	if (!(MCUSR & _BV(WDRF))) {
		wdt_enable(WDTO_15MS);
		_delay_ms(15.5);
		EEARH = 0;
		EEARL = 5;
		EECR = _BV(EEPM0);
		__asm__ __volatile__("sbi %[eecr], %[eempe]\n\t"
				     "sbi %[eecr], %[eepe]"
				     :
				     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [eempe] "I"(EEMPE),
				       [eepe] "I"(EEPE)
				     : "memory");
		for (;;)
			;
	}
	GPIOR1 = EECR;
	GPIOR1 = EEARL;
	MCUSR = 0;
	wdt_disable();
	__asm__ __volatile__("1: sbic %[eecr], %[eepe]\n\t"
			     "rjmp 1b\n\t"
			     "ldi r24, 1\n\t"
			     "out %[gpior0], r24"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)),
			       [eepe] "I"(EEPE)
			     : "r24", "memory");
	EEARL = 5;
	EECR |= _BV(EERE);
	GPIOR2 = EEDR;
	EEARL = 0;
	EECR |= _BV(EERE);
	GPIOR2 = EEDR;
	for (;;)
		;
}
