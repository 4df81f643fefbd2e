// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_poll.c — six polled conversions of ADC0 (AVcc reference, clk/128),
 * the first started together with ADEN, each next by a write of ADSC.
 * After each: the result goes out through GPIOR0 (low) and GPIOR1
 * (high); ADCSRA is written with ADIF 0 (the flag stays set) and then
 * with ADIF 1 (it clears), and read back after each into GPIOR2.  A
 * short delay before each start moves it around the ADC clock.
 */
#include <avr/io.h>
#include <util/delay_basic.h>

#define PS (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0))

int main(void)
{
	ADMUX = _BV(REFS0);
	for (uint8_t i = 0; i < 6; i++) {
		if (i)
			_delay_loop_1((uint8_t)(11 * i));
		ADCSRA = _BV(ADEN) | _BV(ADSC) | PS;
		while (!(ADCSRA & _BV(ADIF)))
			;
		uint16_t v = ADC;
		GPIOR0 = (uint8_t)v;
		GPIOR1 = (uint8_t)(v >> 8);
		ADCSRA = _BV(ADEN) | PS;
		GPIOR2 = ADCSRA;
		ADCSRA = _BV(ADEN) | _BV(ADIF) | PS;
		GPIOR2 = ADCSRA;
	}
	for (;;)
		;
}
