// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * arduino_blink.c — an Arduino-style ATmega328P firmware for the device
 * log's end-to-end test (docs/device.md, tests/integration/test_device.c):
 * millis() from Timer0's overflow as the Arduino core keeps it, a 1 kHz
 * Timer2 compare tick, digitalWrite() through the core's pin tables (a
 * port pointer from a table), and Serial-style output through a ring
 * drained by the UDRE interrupt.  It reads no input, so a replay driven
 * by the device's fingerprints alone must re-create it exactly.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <stdint.h>

#include "avr/avr_mcu_section.h"

AVR_MCU(F_CPU, "atmega328p");

static volatile uint32_t timer0_millis;
static volatile uint8_t timer0_fract;
static volatile uint16_t ticks;

/* The core's tables: a pin's port register and bit. */
static volatile uint8_t *const port_of[] = { &PORTB, &PORTB, &PORTD, &PORTD };
static const uint8_t bit_of[] PROGMEM = { _BV(PB5), _BV(PB0), _BV(PD6), _BV(PD7) };

static void digitalWrite(uint8_t pin, uint8_t on)
{
	volatile uint8_t *port = port_of[pin];
	uint8_t b = pgm_read_byte(&bit_of[pin]), s = SREG;
	cli();
	*port = on ? *port | b : *port & ~b;
	SREG = s;
}

ISR(TIMER0_OVF_vect)  /* as wiring.c: 1.024 ms per overflow at 16 MHz / 64 */
{
	uint32_t m = timer0_millis;
	uint8_t f = timer0_fract + 3;
	m += 1;
	if (f >= 125) {
		f -= 125;
		m += 1;
	}
	timer0_fract = f;
	timer0_millis = m;
}

ISR(TIMER2_COMPA_vect)
{
	ticks++;
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

static void serial_number(uint32_t v)
{
	char d[10];
	uint8_t n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		serial_write((uint8_t)d[--n]);
	serial_write('\n');
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
	DDRB = _BV(PB5) | _BV(PB0);
	DDRD = _BV(PD6) | _BV(PD7);
	TCCR0B = _BV(CS01) | _BV(CS00);          /* clk/64 */
	TIMSK0 = _BV(TOIE0);
	OCR2A = 249;                             /* 1 kHz at clk/64 */
	TCCR2A = _BV(WGM21);
	TCCR2B = _BV(CS22);
	TIMSK2 = _BV(OCIE2A);
	UBRR0 = 16;                              /* 115200 baud, U2X */
	UCSR0A = _BV(U2X0);
	UCSR0B = _BV(TXEN0);
	sei();
	uint32_t last = 0;
	uint8_t led = 0;
	for (;;) {
		uint32_t now = millis();
		if (now - last >= 20) {
			last = now;
			led ^= 1;
			digitalWrite(0, led);
			digitalWrite((uint8_t)(2 + (ticks & 1)), !led);
			serial_number(now);
		}
	}
}
