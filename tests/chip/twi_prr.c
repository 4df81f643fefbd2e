// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * twi_prr.c — PRTWI freezes a TWI byte under way: a START, then SLA+W
 * (no device answers: NACK) at TWBR 72 (SCL 160 cycles, 9 of them a
 * byte); PRTWI is set for a while during the byte, then cleared, and
 * TWINT is polled: GPIOR0 = TWSR when it comes.
 */
#include <avr/io.h>

int main(void)
{
	TWBR = 72;
	TWCR = _BV(TWINT) | _BV(TWSTA) | _BV(TWEN);
	while (!(TWCR & _BV(TWINT)))
		;
	TWDR = 0x50 << 1;
	TWCR = _BV(TWINT) | _BV(TWEN);
	PRR = _BV(PRTWI);
	for (volatile uint8_t i = 0; i < 40; i++)
		;
	PRR = 0;
	while (!(TWCR & _BV(TWINT)))
		;
	GPIOR0 = TWSR & 0xf8;
	for (;;)
		;
}
