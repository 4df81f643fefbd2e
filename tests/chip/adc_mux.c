// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_mux.c — which ADMUX a conversion uses (clk/128, polled; ADC0 and
 * ADC1 carry different voltages):
 *  1. ADC0 selected, ADEN and ADSC written; 200 cycles later (after the
 *     conversion's start, before its sample-and-hold) ADC1 is selected;
 *  2. ADSC written with ADC1 selected, and ADC0 selected by the very next
 *     store, within the first ADC clock after the write;
 *  3. ADSC written with ADC0 selected; ADC1 selected some 140 cycles
 *     later, after the start and before the sample-and-hold.
 * Each result goes out through GPIOR0 (low) and GPIOR1 (high).
 */
#include <avr/io.h>
#include <util/delay_basic.h>

#define PS (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0))

static void report(void)
{
	while (!(ADCSRA & _BV(ADIF)))
		;
	uint16_t v = ADC;
	GPIOR0 = (uint8_t)v;
	GPIOR1 = (uint8_t)(v >> 8);
	ADCSRA = _BV(ADEN) | _BV(ADIF) | PS;
}

int main(void)
{
	ADMUX = _BV(REFS0);
	ADCSRA = _BV(ADEN) | _BV(ADSC) | PS;
	_delay_loop_1(66);                       /* 3 cycles each: 198 */
	ADMUX = _BV(REFS0) | 1;
	report();

	ADCSRA = _BV(ADEN) | _BV(ADSC) | PS;
	ADMUX = _BV(REFS0);
	report();

	ADCSRA = _BV(ADEN) | _BV(ADSC) | PS;
	_delay_loop_1(45);                       /* 135 cycles */
	ADMUX = _BV(REFS0) | 1;
	report();
	for (;;)
		;
}
