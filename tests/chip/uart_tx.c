// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_tx.c — the transmitter's double buffer, polled: USART0 at 9600
 * baud (UBRR0 103: 1664 cycles a bit), 8N1 (16,640 cycles a frame).
 * GPIOR0 gets UCSR0A, UCSR0B, UCSR0C as reset left them (20 00 06: TXEN0
 * clear).  'A' goes into the idle shift register at once: UDRE0 is back
 * at the first poll (GPIOR1 20); 'B' waits in UDR0 (00) until A's stop
 * bit is out (20); TXC0 rises one frame later (60); writing 0 to it
 * leaves it (60), writing 1 clears it (20).  Then 'C' with TXCIE0 set,
 * the CPU asleep (idle): the TX complete handler finds TXC0 cleared by
 * its entry (GPIOR2 20).  The program ends in a busy loop, not asleep: a
 * sleep with nothing left to come would end the run.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

static volatile uint8_t done;

ISR(USART_TX_vect)
{
	GPIOR2 = UCSR0A;
	done = 1;
}

int main(void)
{
	GPIOR0 = UCSR0A;
	GPIOR0 = UCSR0B;
	GPIOR0 = UCSR0C;
	UBRR0H = 0;
	UBRR0L = 103;
	UCSR0B = _BV(TXEN0);
	UDR0 = 'A';
	while (!(UCSR0A & _BV(UDRE0)))
		;
	GPIOR1 = UCSR0A;
	UDR0 = 'B';
	GPIOR1 = UCSR0A;
	while (!(UCSR0A & _BV(UDRE0)))
		;
	GPIOR1 = UCSR0A;
	while (!(UCSR0A & _BV(TXC0)))
		;
	GPIOR1 = UCSR0A;
	UCSR0A = UCSR0A & (uint8_t)~_BV(TXC0);
	GPIOR1 = UCSR0A;
	UCSR0A = UCSR0A | _BV(TXC0);
	GPIOR1 = UCSR0A;
	UCSR0B = _BV(TXEN0) | _BV(TXCIE0);
	UDR0 = 'C';
	set_sleep_mode(SLEEP_MODE_IDLE);
	while (!done) {
		/* SEI lets the interrupt in only after SLEEP. */
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
		cli();
	}
	for (;;)
		;
}
