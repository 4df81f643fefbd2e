// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_udre.c — the data register empty interrupt is a level: USART0 at
 * UBRR0 16 (272 cycles a bit), 8N1 (2,720 a frame); UDRIE0 is set while
 * UDRE0 is, and the CPU sleeps (idle).  The handler writes 'a', 'b', 'c'
 * one an entry, then clears UDRIE0: 'a' moves into the shift register at
 * once and UDRE0 stays set (the second entry follows the first's RETI),
 * 'b' fills UDR0, 'c' waits for 'a''s stop bit, the fourth entry comes
 * at 'b''s.  Each entry sends its count through GPIOR0 (00 01 02 03).
 * TXCIE0 is set too: TXC0 rises once, after 'c' (GPIOR1 20: the entry
 * cleared it); then the program spins (a sleep with nothing to come would
 * end the run).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

static uint8_t n;

ISR(USART_UDRE_vect)
{
	GPIOR0 = n;
	if (n < 3)
		UDR0 = (uint8_t)('a' + n);
	else
		UCSR0B &= (uint8_t)~_BV(UDRIE0);
	n++;
}

static volatile uint8_t done;

ISR(USART_TX_vect)
{
	GPIOR1 = UCSR0A;
	done = 1;
}

int main(void)
{
	UBRR0H = 0;
	UBRR0L = 16;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	UCSR0B = _BV(TXEN0) | _BV(TXCIE0) | _BV(UDRIE0);
	cli();
	while (!done) {
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
		cli();
	}
	for (;;)
		;
}
