// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * atmega328p.c — a UART echo with a timer tick, an ADC and a pin change,
 * written as a user would, for an ATmega328P at 16 MHz.
 *
 * Timer 0 ticks at 1 kHz and starts an ADC conversion every 8 ms; the ADC
 * interrupt keeps the last sample.  USART0 (38400 baud) receives into a
 * ring buffer from its RX interrupt, and main's superloop polls the buffer
 * and echoes each byte, polling UDRE.  PCINT0 counts edges on PB0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

#define BAUD_UBRR (F_CPU / 16 / 38400 - 1)

static volatile uint8_t rx_buf[16];
static volatile uint8_t head, tail;
static volatile uint16_t ticks, sample, edges;

ISR(TIMER0_COMPA_vect)
{
	if ((++ticks & 7) == 0)
		ADCSRA |= _BV(ADSC);
}

ISR(ADC_vect)
{
	sample = ADC;
}

ISR(USART_RX_vect)
{
	uint8_t c = UDR0, next = (uint8_t)((head + 1) & 15);
	if (next != tail) {
		rx_buf[head] = c;
		head = next;
	}
}

ISR(PCINT0_vect)
{
	edges++;
}

int main(void)
{
	TCCR0A = _BV(WGM01);
	OCR0A = 249;                             /* 16 MHz / 64 / 250 = 1 kHz */
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = _BV(CS01) | _BV(CS00);
	ADMUX = _BV(REFS0);                      /* AVcc, channel 0 */
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	UBRR0 = BAUD_UBRR;
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
	PCICR = _BV(PCIE0);
	PCMSK0 = _BV(PCINT0);
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
