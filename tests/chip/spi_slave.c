// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_slave.c — the SPI as a slave (SPE, MSTR clear), MISO an output,
 * 0x3c preloaded into SPDR.  Each byte the master clocks in interrupts;
 * the handler sends SPDR out through GPIOR1 and again, read a second
 * time, through GPIOR0, and after the first byte only loads 0xc3 as the
 * next reply.  The CPU sleeps in between.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

static uint8_t n;

ISR(SPI_STC_vect)
{
	GPIOR1 = SPDR;
	GPIOR0 = SPDR;
	if (n++ == 0)
		SPDR = 0xc3;
}

int main(void)
{
	DDRB = _BV(DDB4);                 /* MISO; SS, MOSI, SCK are inputs */
	SPCR = _BV(SPIE) | _BV(SPE);
	SPDR = 0x3c;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	for (;;)
		sleep_mode();
}
