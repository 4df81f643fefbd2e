// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_flags.c — SPIF and WCOL, polled, in master mode at fosc/128 (1024
 * cycles a byte).  Register reads go out through GPIOR0 (SPSR), GPIOR1
 * (SPDR) and GPIOR2 (SPSR in the handler):
 *  - 0xa5 written, then 0x5a during its transfer: WCOL, 0x5a ignored
 *    (SPSR 40); SPIF at the end (c0); SPDR read: the byte received,
 *    clearing both (00); SPDR read twice more: the same byte;
 *  - 0x3c written, SPIF left set past its end: an SPSR write (SPIF is
 *    read-only) and an SPDR read with no SPSR read first clear nothing
 *    (SPSR 80), an SPDR read after one does (00);
 *  - 0x99 written, SPIF left set, SPIE then set with I: the interrupt is
 *    taken at once, its entry clearing SPIF (GPIOR2 00).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(SPI_STC_vect)
{
	GPIOR2 = SPSR;
}

int main(void)
{
	DDRB = _BV(DDB2) | _BV(DDB3) | _BV(DDB5);   /* SS, MOSI, SCK: outputs */
	SPCR = _BV(SPE) | _BV(MSTR) | _BV(SPR1) | _BV(SPR0);
	SPDR = 0xa5;
	SPDR = 0x5a;
	GPIOR0 = SPSR;
	while (!(SPSR & _BV(SPIF)))
		;
	GPIOR0 = SPSR;
	GPIOR1 = SPDR;
	GPIOR0 = SPSR;
	GPIOR1 = SPDR;
	GPIOR1 = SPDR;

	SPDR = 0x3c;
	__builtin_avr_delay_cycles(2000);
	SPSR = 0;
	GPIOR1 = SPDR;
	GPIOR0 = SPSR;
	GPIOR1 = SPDR;
	GPIOR0 = SPSR;

	SPDR = 0x99;
	__builtin_avr_delay_cycles(2000);
	sei();
	SPCR |= _BV(SPIE);
	for (;;)
		;
}
