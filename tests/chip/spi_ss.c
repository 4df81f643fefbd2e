// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_ss.c — SS as an input in master mode (SS Pin Functionality): SS
 * (PB2) pulled up, a master byte at fosc/16 (128 cycles); then the
 * outside world drives SS low (a stimulus): MSTR is cleared and SPIF set;
 * then the program sets MSTR again while SS is still low: cleared again,
 * SPIF again.  The handler sends SPCR out through GPIOR0 and counts its
 * entries in GPIOR2.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(SPI_STC_vect)
{
	GPIOR0 = SPCR;
	GPIOR2++;
}

int main(void)
{
	DDRB = _BV(DDB3) | _BV(DDB5);      /* MOSI, SCK; SS an input */
	PORTB = _BV(PORTB2);               /* SS's pull-up */
	SPCR = _BV(SPIE) | _BV(SPE) | _BV(MSTR) | _BV(SPR0);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	SPDR = 0x55;
	while (GPIOR2 < 2)
		sleep_mode();
	SPCR |= _BV(MSTR);
	for (;;)
		sleep_mode();
}
