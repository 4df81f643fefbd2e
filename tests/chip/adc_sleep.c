// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_sleep.c — conversion timing: the ADC is switched on (clk/128, ADIE)
 * and each of four conversions is started by a write of ADSC a little
 * later each time (so at another phase of the ADC clock), the CPU
 * sleeping (idle) until the ADC interrupt; the handler sends the result
 * out through GPIOR0 (low) and GPIOR1 (high).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <util/delay_basic.h>

#define PS (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0))

static volatile uint8_t ready;

ISR(ADC_vect)
{
	uint16_t v = ADC;
	GPIOR0 = (uint8_t)v;
	GPIOR1 = (uint8_t)(v >> 8);
	ready = 1;
}

int main(void)
{
	ADMUX = _BV(REFS0);
	ADCSRA = _BV(ADEN) | _BV(ADIE) | PS;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (uint8_t i = 0; i < 4; i++) {
		_delay_loop_1((uint8_t)(5 + 23 * i));
		ready = 0;
		ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADSC) | PS;
		while (!ready)
			sleep_cpu();
	}
	for (;;)
		sleep_cpu();
}
