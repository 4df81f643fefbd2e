// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_clock.c — the USART while its clock is stopped (the test stops it
 * as PRUSART0 or a sleep mode would): USART0 at UBRR0 103 (1664 cycles a
 * bit), 8N1 (16,640 a frame), RXCIE0 and TXCIE0 set, the CPU asleep
 * (idle) between interrupts.  'x' is written at the start; the receive
 * handler sends each byte through GPIOR0, the transmit complete handler
 * a 1 through GPIOR1.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

static volatile uint8_t rx;

ISR(USART_RX_vect)
{
	GPIOR0 = UDR0;
	rx = 1;
}

ISR(USART_TX_vect)
{
	GPIOR1 = 1;
}

int main(void)
{
	UBRR0H = 0;
	UBRR0L = 103;
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0) | _BV(TXCIE0);
	UDR0 = 'x';
	set_sleep_mode(SLEEP_MODE_IDLE);
	while (!rx) {
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
		cli();
	}
	sei();
	for (;;)
		;
}
