// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * uart_hello.c — a known, fixed message on two UARTs: the independent truth
 * for the record console, `avrr export --uart` and the shell's `info uart`
 * (tests/integration/test_console.c holds the same strings).  UART0's has
 * CRLF line ends, a tab, a backslash, an escape sequence, a byte above 0x7f
 * and an unended last line; UART1's is one plain line.  Polled at 38400
 * baud, then it sleeps with interrupts off, which ends the recording.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega2560");

#define UBRR (F_CPU / 16 / 38400 - 1)

static const char msg0[] = "hello from uart0\r\nsecond\tline \\ \033[0m\xff!\r\ntail";
static const char msg1[] = "uart1 says hi\n";

static void put0(char c)
{
	while (!(UCSR0A & _BV(UDRE0)))
		;
	UDR0 = c;
}

static void put1(char c)
{
	while (!(UCSR1A & _BV(UDRE1)))
		;
	UDR1 = c;
}

int main(void)
{
	UBRR0 = UBRR;
	UCSR0B = _BV(TXEN0);
	UBRR1 = UBRR;
	UCSR1B = _BV(TXEN1);
	for (unsigned i = 0; i < sizeof msg0 - 1; i++)
		put0(msg0[i]);
	for (unsigned i = 0; i < sizeof msg1 - 1; i++)
		put1(msg1[i]);
	cli();
	sleep_mode();
	for (;;)
		;
}
