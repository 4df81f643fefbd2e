// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_reset.c — a reset in the middle of a master byte: the watchdog (16
 * ms, 256,000 cycles at 16 MHz) is started, a byte at fosc/128 (1024
 * cycles) is written 255,500 cycles later, and the watchdog resets the
 * chip while it is under way.  After the reset SPCR, SPSR and SPDR read
 * 0 (out through GPIOR0) and the byte never ends: no SPIF.
 */
#include <avr/io.h>
#include <avr/wdt.h>

int main(void)
{
	if (MCUSR & _BV(WDRF)) {
		MCUSR = 0;
		wdt_disable();
		GPIOR0 = SPCR;
		GPIOR0 = SPSR;
		GPIOR0 = SPDR;
		for (;;)
			;
	}
	DDRB = _BV(DDB2) | _BV(DDB3) | _BV(DDB5);
	SPCR = _BV(SPE) | _BV(MSTR) | _BV(SPR1) | _BV(SPR0);
	wdt_enable(WDTO_15MS);
	__builtin_avr_delay_cycles(255500);
	SPDR = 0x42;
	for (;;)
		;
}
