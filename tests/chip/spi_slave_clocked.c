// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_slave_clocked.c — the SPI as a slave (SPE, SPIE, MSTR clear), MISO
 * an output, clocked by the stimuli's `spi master` (docs/stimuli.md).
 * 0xa5 is preloaded into SPDR before the first byte; each byte received
 * interrupts, and the handler reports SPSR (read first: SPIF as the
 * vector's entry left it) through GPIOR1 and the byte received through
 * GPIOR0, then loads the byte's complement as the next reply.  The CPU
 * sleeps (idle, the SPI's clock runs) in between.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(SPI_STC_vect)
{
	GPIOR1 = SPSR;
	uint8_t got = SPDR;
	GPIOR0 = got;
	SPDR = (uint8_t)~got;
}

int main(void)
{
	DDRB = _BV(DDB4);                 /* MISO; SS, MOSI, SCK are inputs */
	SPCR = _BV(SPIE) | _BV(SPE);
	SPDR = 0xa5;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	for (;;)
		sleep_mode();
}
