// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * uart_echo_m16.c — a polled UART echo on the ATmega16, whose UCSRA is in
 * the I/O space (0x0b), so both of its waits compile to skips on one bit
 * of the same register: SBIS UCSRA, RXC for a byte from the line, and
 * SBIS UCSRA, UDRE for the transmitter.  Only the first is an input read
 * (docs/device.md, "Input reads"): UDRE the simulation re-creates.  A
 * Timer0 overflow ticks beside it.  8 MHz, 9600 baud (UBRR = 51), 8N1.
 *
 * For the device loop (tests/integration/test_device.c), which logs the
 * RXC polls and the UDR reads and not the UDRE waits, and replays them.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega16");

volatile uint8_t ticks;
volatile uint8_t received, sum;

ISR(TIMER0_OVF_vect)
{
	ticks++;
}

int main(void)
{
	UBRRH = 0;
	UBRRL = 51;
	UCSRC = _BV(URSEL) | _BV(UCSZ1) | _BV(UCSZ0);
	UCSRB = _BV(RXEN) | _BV(TXEN);
	TCCR0 = _BV(CS02) | _BV(CS00);   /* clk/1024: an overflow every 32 ms */
	TIMSK |= _BV(TOIE0);         /* shared with Timer1, which the tracer may own */
	sei();
	for (;;) {
		while (!(UCSRA & _BV(RXC)))
			;
		uint8_t c = UDR;
		received++;
		sum = (uint8_t)(sum + c);
		while (!(UCSRA & _BV(UDRE)))
			;
		UDR = (uint8_t)(c + 1);
	}
}
