// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * arduino_button.c — an Arduino-style ATmega328P firmware that reads its
 * inputs as the Arduino core's digitalRead() does: the PINx register's
 * address from a table, read through a pointer (LD), so only a run-time
 * test of the load's address can log it (avrr instrument --log-loads,
 * docs/device.md).  Timer0 keeps millis(); the main loop counts the
 * button's edges on PD2 and the jumper on PB0 and prints them through a
 * ring the UDRE interrupt drains.  Stimuli: arduino_button.stim.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#include "avr/avr_mcu_section.h"

AVR_MCU(F_CPU, "atmega328p");

static volatile uint32_t timer0_millis;

/* The core's tables, in RAM: a pin's input register and its bit.  Not
 * static, as in the core (another unit's), so the compiler cannot fold
 * the pointer into an IN. */
volatile uint8_t *pin_reg[] = { &PIND, &PINB };
uint8_t pin_bit[] = { _BV(PD2), _BV(PB0) };

static uint8_t digitalRead(uint8_t pin)
{
	return (*pin_reg[pin] & pin_bit[pin]) != 0;
}

ISR(TIMER0_OVF_vect)
{
	timer0_millis++;
}

static uint8_t tx_buf[32];
static volatile uint8_t tx_head, tx_tail;

ISR(USART_UDRE_vect)
{
	if (tx_head == tx_tail) {
		UCSR0B &= ~_BV(UDRIE0);
		return;
	}
	UDR0 = tx_buf[tx_tail];
	tx_tail = (tx_tail + 1) % sizeof tx_buf;
}

static void serial_write(uint8_t c)
{
	uint8_t next = (tx_head + 1) % sizeof tx_buf;
	while (next == tx_tail)
		;
	tx_buf[tx_head] = c;
	tx_head = next;
	UCSR0B |= _BV(UDRIE0);
}

static void serial_number(uint16_t v)
{
	char d[5];
	uint8_t n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		serial_write((uint8_t)d[--n]);
}

static uint32_t millis(void)
{
	uint8_t s = SREG;
	cli();
	uint32_t m = timer0_millis;
	SREG = s;
	return m;
}

int main(void)
{
	PORTD = _BV(PD2);                        /* pull-up */
	TCCR0B = _BV(CS01) | _BV(CS00);          /* clk/64: 1.024 ms */
	TIMSK0 = _BV(TOIE0);
	UBRR0 = 16;
	UCSR0A = _BV(U2X0);
	UCSR0B = _BV(TXEN0);
	sei();
	uint16_t edges = 0, jumper = 0;
	uint8_t last = 1;
	uint32_t printed = 0;
	for (;;) {
		for (uint8_t pin = 0; pin < 2; pin++) {
			uint8_t v = digitalRead(pin);
			if (pin == 0 && v != last) {
				edges++;
				last = v;
			} else if (pin == 1 && v) {
				jumper++;
			}
		}
		uint32_t now = millis();
		if (now - printed >= 20) {
			printed = now;
			serial_number(edges);
			serial_write(' ');
			serial_number(jumper);
			serial_write('\n');
		}
	}
}
