// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_warn.c — the analog comparator selected as the ADC's auto trigger
 * (ADTS = 1), which avrr does not simulate: no conversion starts, and a
 * record-time warning says so.
 */
#include <avr/io.h>

int main(void)
{
	ADMUX = _BV(REFS0);
	ADCSRB = _BV(ADTS0);
	ADCSRA = _BV(ADEN) | _BV(ADATE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	for (;;)
		;
}
