// build: -mmcu=attiny85 -DF_CPU=8000000UL
/*
 * attiny85.c — a sensor node without a UART, for an ATtiny85 at 8 MHz:
 * a timer tick, the ADC, a pin change and the watchdog in interrupt mode,
 * sleeping (idle) between interrupts.
 *
 * Timer 0 ticks at 1 kHz and starts an ADC conversion every 4 ms; the ADC
 * interrupt keeps the sample; PCINT3 (PB3) counts a button's edges and
 * mirrors them on PB0; the watchdog interrupts every 16 ms.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "attiny85");

static volatile uint16_t ticks, sample, edges, dogs;

ISR(TIMER0_COMPA_vect)
{
	if ((++ticks & 3) == 0)
		ADCSRA |= _BV(ADSC);
}

ISR(ADC_vect)
{
	sample = ADC;
}

ISR(PCINT0_vect)
{
	edges++;
	PORTB = (uint8_t)((PORTB & ~_BV(PB0)) | (edges & 1));
}

ISR(WDT_vect)
{
	dogs++;
	WDTCR |= _BV(WDIE);
}

int main(void)
{
	DDRB = _BV(PB0);
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
	for (;;)
		sleep_mode();
}
