// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * spi_rate.c — a master byte at each of the eight clock rates: SPR1:0 =
 * 0..3 (fosc/4, 16, 64, 128), then again with SPI2X (fosc/2, 8, 32, 64).
 * Each byte is 0x10 + its index, written to SPDR with SPIE set; the CPU
 * sleeps (idle) until the SPI interrupt, so SPIF rises at its own cycle.
 * The handler sends SPSR (the entry has cleared SPIF: 00, or 01 with
 * SPI2X) out through GPIOR0 and SPDR (the byte received) through GPIOR1.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(SPI_STC_vect)
{
	GPIOR0 = SPSR;
	GPIOR1 = SPDR;
}

int main(void)
{
	DDRB = _BV(DDB2) | _BV(DDB3) | _BV(DDB5);   /* SS, MOSI, SCK: outputs */
	set_sleep_mode(SLEEP_MODE_IDLE);
	for (uint8_t i = 0; i < 8; i++) {
		SPCR = _BV(SPIE) | _BV(SPE) | _BV(MSTR) | (i & 3);
		SPSR = i & 4 ? _BV(SPI2X) : 0;
		/* The byte starts, then the CPU sleeps before it ends (16
		 * cycles at the fastest): SEI lets the interrupt in only after
		 * SLEEP. */
		SPDR = (uint8_t)(0x10 + i);
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
		cli();
	}
	sei();
	for (;;)
		sleep_mode();
}
