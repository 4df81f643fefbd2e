// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_data.c — the data register (clk/128, polled, ADC0 then ADC1):
 *  1. a conversion of ADC0, read ADCL then ADCH, sent to GPIOR0/GPIOR1;
 *     then ADLAR set: ADCH and ADCL read again (left adjusted at once);
 *     ADLAR cleared;
 *  2. ADCL read (locking the data register), then a conversion of ADC1
 *     completes: ADCH read (ADC0's), then ADCL and ADCH again (still
 *     ADC0's: ADC1's result was lost);
 *  3. a conversion of ADC1: its result.
 * Every byte read goes out through GPIOR0 (ADCL) or GPIOR1 (ADCH).
 */
#include <avr/io.h>

#define PS (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0))

static void convert(void)
{
	ADCSRA = _BV(ADEN) | _BV(ADIF) | _BV(ADSC) | PS;
	while (!(ADCSRA & _BV(ADIF)))
		;
}

int main(void)
{
	ADMUX = _BV(REFS0);
	convert();
	GPIOR0 = ADCL;
	GPIOR1 = ADCH;
	ADMUX = _BV(REFS0) | _BV(ADLAR);
	GPIOR0 = ADCL;
	GPIOR1 = ADCH;
	ADMUX = _BV(REFS0);

	GPIOR0 = ADCL;                          /* locks */
	ADMUX = _BV(REFS0) | 1;
	convert();
	GPIOR1 = ADCH;                          /* unlocks */
	GPIOR0 = ADCL;
	GPIOR1 = ADCH;

	convert();
	GPIOR0 = ADCL;
	GPIOR1 = ADCH;
	for (;;)
		;
}
