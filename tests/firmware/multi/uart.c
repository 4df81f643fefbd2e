/*
 * uart.c — USART0 at 9600 baud, 8N1: received bytes go into a ring buffer
 * from the RX complete interrupt, main takes them out; sending is polled.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "pump.h"

#ifndef USART_RX_vect
#define USART_RX_vect USART0_RX_vect     /* the ATmega2560's name */
#endif

volatile uint16_t rx_count;
static volatile uint8_t rx_buf[16];
static volatile uint8_t rx_head, rx_tail;

void uart_init(void)
{
	UBRR0 = F_CPU / 16 / 9600 - 1;          /* 103 at 16 MHz */
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART_RX_vect)
{
	uint8_t c = UDR0;
	uint8_t next = (uint8_t)((rx_head + 1) & 15);
	rx_count++;                             /* uart: received */
	if (next != rx_tail) {
		rx_buf[rx_head] = c;
		rx_head = next;
	}
}

/* The next byte received, or -1. */
int uart_get(void)
{
	if (rx_head == rx_tail)
		return -1;
	uint8_t c = rx_buf[rx_tail];
	rx_tail = (uint8_t)((rx_tail + 1) & 15);
	return c;
}

void uart_put(char c)
{
	while (!(UCSR0A & _BV(UDRE0)))
		;
	UDR0 = (uint8_t)c;
}
