// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_free.c — free running: ADATE with ADTS = 0, one write of ADSC (with
 * ADEN, clk/128, ADIE); the handler sends each result out through GPIOR0
 * (low) and GPIOR1 (high), and ADCSRA (ADSC still set) through GPIOR2.
 * Idle sleep between.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(ADC_vect)
{
	uint16_t v = ADC;
	GPIOR0 = (uint8_t)v;
	GPIOR1 = (uint8_t)(v >> 8);
	GPIOR2 = ADCSRA;
}

int main(void)
{
	ADMUX = _BV(REFS0);
	ADCSRB = 0;
	ADCSRA = _BV(ADEN) | _BV(ADSC) | _BV(ADATE) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) |
		 _BV(ADPS0);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
