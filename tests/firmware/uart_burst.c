// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_burst.c — bytes arriving back to back on USART0, received into a
 * ring buffer by the RX complete interrupt while main polls the buffer,
 * as Arduino's Serial.available() does, and echoes each byte; an
 * ATmega328P at 16 MHz, 9600 baud (UBRR0 = 103), 8N1.
 *
 * The datasheet's numbers: a frame is 1 start + 8 data + 1 stop = 10 bits
 * of (UBRR0 + 1) * 16 = 1664 cycles, 16640 cycles a byte; each byte is one
 * RX interrupt.  rx_irqs counts them.  (uart_burst_8e2.c: 8 data bits,
 * even parity, 2 stop bits: 12 bits, 19968 cycles a byte.)
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

#define UBRR_9600 103
#ifndef UART_FORMAT
#define UART_FORMAT (_BV(UCSZ01) | _BV(UCSZ00))  /* 8N1 */
#endif

static volatile uint8_t ring[64];
static volatile uint8_t head, tail;
volatile uint16_t rx_irqs;

ISR(USART_RX_vect)
{
	uint8_t c = UDR0, next = (uint8_t)((head + 1) & 63);
	rx_irqs++;
	if (next != tail) {
		ring[head] = c;
		head = next;
	}
}

int main(void)
{
	UBRR0H = UBRR_9600 >> 8;
	UBRR0L = UBRR_9600 & 0xff;
	UCSR0C = UART_FORMAT;
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
	sei();
	for (;;) {
		if (head == tail)                        /* Serial.available() */
			continue;
		uint8_t c = ring[tail];
		tail = (uint8_t)((tail + 1) & 63);
		while (!(UCSR0A & _BV(UDRE0)))
			;
		UDR0 = c;
	}
}
