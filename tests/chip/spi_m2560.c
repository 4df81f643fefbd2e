// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * spi_m2560.c — the ATmega2560's SPI (SS PB0, SCK PB1, MOSI PB2): master
 * bytes at fosc/64 (SPR1: 512 cycles) and fosc/2 (SPI2X alone: 16), each
 * ending in the interrupt while the CPU sleeps; SS an input with its
 * pull-up, which a stimulus then drives low: MSTR cleared, SPIF set.  The
 * handler sends SPCR out through GPIOR0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(SPI_STC_vect)
{
	GPIOR0 = SPCR;
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
	DDRB = _BV(DDB1) | _BV(DDB2);      /* SCK, MOSI; SS an input */
	PORTB = _BV(PORTB0);               /* its pull-up */
	set_sleep_mode(SLEEP_MODE_IDLE);
	byte(_BV(SPIE) | _BV(SPE) | _BV(MSTR) | _BV(SPR1), 0, 0x21);
	byte(_BV(SPIE) | _BV(SPE) | _BV(MSTR), _BV(SPI2X), 0x22);
	sei();
	for (;;)
		sleep_mode();
}
