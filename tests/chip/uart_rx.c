// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * uart_rx.c — the receiver's buffer and its error flags, polled: USART0
 * at UBRR0 16 (272 cycles a bit), 8N1 (2,720 a frame).  The test's
 * stimuli send bursts; after the first byte of each the program waits
 * 12,000 cycles (more than four frames), then reads UCSR0A (GPIOR0) and
 * UDR0 (GPIOR1) while RXC0 is set, and UCSR0A once more (20).
 *  - "ABCD": A and B fill the FIFO, C waits in the shift register, D's
 *    start bit finds it there: C is lost, D comes with DOR0 (a0 a0 a8).
 *  - "EFG": G waits in the shift register and moves in as E is read:
 *    nothing lost (a0 a0 a0).
 *  - "H" with a stop bit 0: FE0 (b0).
 *  - even parity (UPM01), 11-bit frames: "I" with a wrong parity bit:
 *    UPE0 (a4), then "J" right (a0).
 *  - "KL", then RXEN0 cleared: the buffer is flushed (GPIOR0 20), and
 *    after RXEN0 is set again, UDR0 reads 00 (GPIOR1).
 */
#include <avr/io.h>

static void wait_and_drain(void)
{
	while (!(UCSR0A & _BV(RXC0)))
		;
	__builtin_avr_delay_cycles(12000);
	while (UCSR0A & _BV(RXC0)) {
		GPIOR0 = UCSR0A;
		GPIOR1 = UDR0;
	}
	GPIOR0 = UCSR0A;
}

int main(void)
{
	UBRR0H = 0;
	UBRR0L = 16;
	UCSR0B = _BV(RXEN0);
	wait_and_drain();                         /* ABCD */
	wait_and_drain();                         /* EFG */
	wait_and_drain();                         /* H, bad stop bit */
	UCSR0C = _BV(UPM01) | _BV(UCSZ01) | _BV(UCSZ00);
	wait_and_drain();                         /* I (bad parity), J */
	while (!(UCSR0A & _BV(RXC0)))             /* KL */
		;
	__builtin_avr_delay_cycles(12000);
	UCSR0B = 0;
	GPIOR0 = UCSR0A;
	UCSR0B = _BV(RXEN0);
	GPIOR0 = UCSR0A;
	GPIOR1 = UDR0;
	for (;;)
		;
}
