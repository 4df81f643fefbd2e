// build: -mmcu=atmega644 -DF_CPU=16000000UL
/*
 * atmega644.c — a UART echo that sleeps between interrupts, with a timer
 * tick and an ADC, for an ATmega644 at 16 MHz.
 *
 * Timer 2 ticks at 1 kHz and starts an ADC conversion every 4 ms.  USART0
 * (38400 baud) receives into a ring buffer; main sleeps (idle mode) until
 * an interrupt, then echoes what arrived.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega644");

#define BAUD_UBRR (F_CPU / 16 / 38400 - 1)

static volatile uint8_t rx_buf[16];
static volatile uint8_t head, tail;
static volatile uint16_t ticks, sample;

ISR(TIMER2_COMPA_vect)
{
	if ((++ticks & 3) == 0)
		ADCSRA |= _BV(ADSC);
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
	TCCR2A = _BV(WGM21);
	OCR2A = 249;                             /* 16 MHz / 64 / 250 = 1 kHz */
	TIMSK2 = _BV(OCIE2A);
	TCCR2B = _BV(CS22);                      /* timer 2: clk / 64 */
	ADMUX = _BV(REFS0) | 1;                  /* AVcc, channel 1 */
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	UBRR0 = BAUD_UBRR;
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	for (;;) {
		sleep_mode();
		while (head != tail) {
			uint8_t c = rx_buf[tail];
			tail = (uint8_t)((tail + 1) & 15);
			while (!(UCSR0A & _BV(UDRE0)))
				;
			UDR0 = c;
		}
	}
}
