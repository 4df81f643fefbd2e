// build: -mmcu=attiny85 -DF_CPU=8000000UL
/*
 * attiny85.c — a software-UART echo on a part without a UART, with a timer
 * tick, the ADC and the watchdog in interrupt mode, sleeping (idle)
 * between interrupts, for an ATtiny85 at 8 MHz.
 *
 * Timer 0 ticks at 1 kHz and starts an ADC conversion every 4 ms; the ADC
 * interrupt keeps the sample; the watchdog interrupts every 16 ms.  Serial
 * input (9600 baud, 8N1) arrives on PB3: the pin change of a start bit
 * enters PCINT0, which samples the byte's bits there, as a simple firmware
 * does, and queues it; main echoes each byte on PB4, bit by bit.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/delay.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "attiny85");

#define BIT_US 104                       /* 9600 baud */

static volatile uint8_t rx_buf[8];
static volatile uint8_t head, tail;
static volatile uint16_t ticks, sample, dogs;

ISR(TIMER0_COMPA_vect)
{
	if ((++ticks & 3) == 0)
		ADCSRA |= _BV(ADSC);
}

ISR(ADC_vect)
{
	sample = ADC;
}

ISR(WDT_vect)
{
	dogs++;
	WDTCR |= _BV(WDIE);
}

/* A falling edge on PB3 is a start bit: sample the byte at mid-bits. */
ISR(PCINT0_vect)
{
	if (PINB & _BV(PB3))
		return;
	_delay_us(BIT_US / 2);
	if (PINB & _BV(PB3))
		return;
	uint8_t c = 0;
	for (uint8_t i = 0; i < 8; i++) {
		_delay_us(BIT_US);
		c >>= 1;
		if (PINB & _BV(PB3))
			c |= 0x80;
	}
	_delay_us(BIT_US);                   /* the stop bit */
	uint8_t next = (uint8_t)((head + 1) & 7);
	if (next != tail) {
		rx_buf[head] = c;
		head = next;
	}
	GIFR = _BV(PCIF);                    /* the data bits' own edges */
}

static void send(uint8_t c)
{
	PORTB &= (uint8_t)~_BV(PB4);         /* start bit */
	_delay_us(BIT_US);
	for (uint8_t i = 0; i < 8; i++, c >>= 1) {
		if (c & 1)
			PORTB |= _BV(PB4);
		else
			PORTB &= (uint8_t)~_BV(PB4);
		_delay_us(BIT_US);
	}
	PORTB |= _BV(PB4);                   /* stop bit, then idle */
	_delay_us(BIT_US);
}

int main(void)
{
	DDRB = _BV(PB4);
	PORTB = _BV(PB4);
	TCCR0A = _BV(WGM01);
	OCR0A = 124;                             /* 8 MHz / 64 / 125 = 1 kHz */
	TIMSK = _BV(OCIE0A);
	TCCR0B = _BV(CS01) | _BV(CS00);
	ADMUX = 1;                               /* Vcc reference, ADC1 (PB2) */
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1);
	GIMSK = _BV(PCIE);
	PCMSK = _BV(PCINT3);
	wdt_reset();
	WDTCR = _BV(WDCE) | _BV(WDE);
	WDTCR = _BV(WDIE);                       /* interrupt mode, 16 ms */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	for (;;) {
		while (head != tail) {
			uint8_t c = rx_buf[tail];
			tail = (uint8_t)((tail + 1) & 7);
			send(c);
		}
		sleep_mode();
	}
}
