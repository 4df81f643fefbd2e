// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * adc_m2560.c — the ATmega2560's channels 8-15 (MUX5 in ADCSRB) and two
 * differential channels: polled conversions (AVcc, clk/128) of ADC8,
 * ADC15, then (MUX5 cleared) ADC0, ADC0 - ADC1 (MUX 10000) and ADC0 -
 * ADC2 (MUX 11000), each result out through GPIOR0 (low) and GPIOR1
 * (high).
 */
#include <avr/io.h>

#define PS (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0))

static void convert(void)
{
	ADCSRA = _BV(ADEN) | _BV(ADIF) | _BV(ADSC) | PS;
	while (!(ADCSRA & _BV(ADIF)))
		;
	uint16_t v = ADC;
	GPIOR0 = (uint8_t)v;
	GPIOR1 = (uint8_t)(v >> 8);
}

int main(void)
{
	ADCSRB = _BV(MUX5);
	ADMUX = _BV(REFS0);
	convert();
	ADMUX = _BV(REFS0) | 7;
	convert();
	ADCSRB = 0;
	ADMUX = _BV(REFS0);
	convert();
	ADMUX = _BV(REFS0) | 0x10;
	convert();
	ADMUX = _BV(REFS0) | 0x18;
	convert();
	for (;;)
		;
}
