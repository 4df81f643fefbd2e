// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_poll_rx.c — a polled UART receiver, as many real firmwares are:
 * main waits on RXC0 in UCSR0A, then reads UDR0, with no RX interrupt; a
 * Timer0 overflow interrupt ticks beside it.  An ATmega328P at 16 MHz,
 * 9600 baud (UBRR0 = 103), 8N1.  It has no simavr AVR_MCU section, as a
 * Makefile or IDE build has none: the tools are told --board uno.
 *
 * For the device loop (tests/integration/test_device.c): the status
 * register it polls must be in the device log's input set, or its replay
 * waits for a byte that never comes.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

volatile uint8_t ticks;
volatile uint8_t got[16];
volatile uint8_t received, sum;

ISR(TIMER0_OVF_vect)
{
	ticks++;
}

int main(void)
{
	UBRR0H = 0;
	UBRR0L = 103;
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
	UCSR0B = _BV(RXEN0);
	TCCR0B = _BV(CS02) | _BV(CS00);   /* clk/1024: an overflow every 16 ms */
	TIMSK0 = _BV(TOIE0);
	sei();
	for (;;) {
		while (!(UCSR0A & _BV(RXC0)))
			;
		uint8_t c = UDR0;
		got[received & 15] = c;
		received++;
		sum = (uint8_t)(sum + c);
	}
}
