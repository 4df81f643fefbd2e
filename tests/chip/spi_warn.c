// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_warn.c — what the SPI model does not simulate, each once: a master
 * with SS (PB2) a floating input, SPDR and SPCR written with PRSPI set
 * (the byte waits for the clock: PRSPI is cleared after), its clock rate
 * changed in mid-byte, no device answering, then the SPI made a slave
 * that no master clocks.
 */
#include <avr/io.h>

int main(void)
{
	DDRB = _BV(DDB3) | _BV(DDB5);      /* MOSI, SCK; SS left floating */
	SPCR = _BV(SPE) | _BV(MSTR);
	PRR = _BV(PRSPI);
	SPDR = 0x01;
	SPCR = _BV(SPE) | _BV(MSTR) | _BV(SPR1);
	PRR = 0;
	while (!(SPSR & _BV(SPIF)))
		;
	SPCR = _BV(SPE);
	for (;;)
		;
}
