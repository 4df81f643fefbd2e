// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * spi_m16.c — the ATmega16's SPI (SS PB4, MOSI PB5, SCK PB7): a master
 * byte at fosc/8 (SPR0 with SPI2X: 64 cycles) and one at fosc/128 (1024),
 * each ending in the interrupt while the CPU sleeps; then one polled with
 * SBIS on SPSR (an I/O address below 0x20 here) and cleared by the SPDR
 * read after it.  Reads go out through PORTC: SPDR in the handler, then
 * SPSR (80), SPDR, SPSR (00) after the polled byte.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(SPI_STC_vect)
{
	PORTC = SPDR;
}

static void byte(uint8_t spcr, uint8_t spsr, uint8_t v)
{
	SPCR = spcr;
	SPSR = spsr;
	SPDR = v;
	sleep_enable();
	sei();
	sleep_cpu();
	sleep_disable();
	cli();
}

int main(void)
{
	DDRB = _BV(DDB4) | _BV(DDB5) | _BV(DDB7);
	set_sleep_mode(SLEEP_MODE_IDLE);
	byte(_BV(SPIE) | _BV(SPE) | _BV(MSTR) | _BV(SPR0), _BV(SPI2X), 0x61);
	byte(_BV(SPIE) | _BV(SPE) | _BV(MSTR) | _BV(SPR1) | _BV(SPR0), 0, 0x62);
	SPCR = _BV(SPE) | _BV(MSTR);
	SPSR = 0;
	SPDR = 0x63;
	while (!(SPSR & _BV(SPIF)))
		;
	PORTC = SPSR;
	PORTC = SPDR;
	PORTC = SPSR;
	for (;;)
		;
}
