// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * twi_absent.c — a TWI master addressing a slave that is not there, on an
 * ATmega328P at 16 MHz: START, SLA+W, repeated START, SLA+R, STOP.  Each
 * step's status (TWSR & 0xF8) is kept in a global and written to PORTB, so
 * a recording shows the sequence; the datasheet's tables give 0x08 (START
 * sent), 0x20 (SLA+W sent, NACK received), 0x10 (repeated START sent),
 * 0x48 (SLA+R sent, NACK received).
 */
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

#define SLAVE 0x50      /* nobody answers at this address */

volatile uint8_t st_start, st_sla_w, st_restart, st_sla_r;

/* Waits for TWINT and returns the status. */
static uint8_t twi_wait(void)
{
	while (!(TWCR & _BV(TWINT)))
		;
	uint8_t st = TWSR & 0xf8;
	PORTB = st;
	return st;
}

int main(void)
{
	DDRB = 0xff;
	TWSR = 0;
	TWBR = 72;                                  /* 100 kHz SCL at 16 MHz */
	TWCR = _BV(TWINT) | _BV(TWSTA) | _BV(TWEN);
	st_start = twi_wait();
	TWDR = SLAVE << 1;                          /* SLA+W */
	TWCR = _BV(TWINT) | _BV(TWEN);
	st_sla_w = twi_wait();
	TWCR = _BV(TWINT) | _BV(TWSTA) | _BV(TWEN);
	st_restart = twi_wait();
	TWDR = SLAVE << 1 | 1;                      /* SLA+R */
	TWCR = _BV(TWINT) | _BV(TWEN);
	st_sla_r = twi_wait();
	TWCR = _BV(TWINT) | _BV(TWSTO) | _BV(TWEN);
	__asm__ volatile("cli\n\tsleep");
	for (;;)
		;
}
