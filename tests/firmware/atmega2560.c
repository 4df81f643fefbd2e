// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * atmega2560.c — a UART echo with a timer tick and an ADC, for an
 * ATmega2560 at 16 MHz: a part whose PC is 22 bits wide, so every call
 * and interrupt pushes a 3-byte return address.
 *
 * Timer 0 ticks at 1 kHz and starts an ADC conversion every 8 ms; the
 * tick calls a function, so a backtrace from inside it crosses a 3-byte
 * interrupt frame.  USART0 (38400 baud) receives into a ring buffer and
 * main's superloop echoes each byte on USART0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega2560");

#define BAUD_UBRR (F_CPU / 16 / 38400 - 1)

static volatile uint8_t rx_buf[16];
static volatile uint8_t head, tail;
static volatile uint16_t ticks, sample;

__attribute__((noinline)) static void on_tick(void)
{
	if ((++ticks & 7) == 0)
		ADCSRA |= _BV(ADSC);
}

ISR(TIMER0_COMPA_vect)
{
	on_tick();
}

ISR(ADC_vect)
{
	sample = ADC;
}

ISR(USART0_RX_vect)
{
	uint8_t c = UDR0, next = (uint8_t)((head + 1) & 15);
	if (next != tail) {
		rx_buf[head] = c;
		head = next;
	}
}

int main(void)
{
	TCCR0A = _BV(WGM01);
	OCR0A = 249;                             /* 16 MHz / 64 / 250 = 1 kHz */
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = _BV(CS01) | _BV(CS00);
	ADMUX = _BV(REFS0) | 2;                  /* AVcc, channel 2 */
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	UBRR0 = BAUD_UBRR;
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
	sei();
	for (;;) {
		if (head != tail) {
			uint8_t c = rx_buf[tail];
			tail = (uint8_t)((tail + 1) & 15);
			while (!(UCSR0A & _BV(UDRE0)))
				;
			UDR0 = c;
		}
	}
}
