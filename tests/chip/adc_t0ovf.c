// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_t0ovf.c — auto trigger from Timer0 overflow: Timer0 in normal mode
 * at clk/64 (an overflow every 16384 cycles, its empty handler clearing
 * TOV0), the ADC at clk/128 with ADATE and ADTS = 4; the ADC handler
 * sends each result out through GPIOR0 (low) and GPIOR1 (high).  Idle
 * sleep between.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER0_OVF_vect)
{
}

ISR(ADC_vect)
{
	uint16_t v = ADC;
	GPIOR0 = (uint8_t)v;
	GPIOR1 = (uint8_t)(v >> 8);
}

int main(void)
{
	ADMUX = _BV(REFS0);
	ADCSRB = _BV(ADTS2);
	ADCSRA = _BV(ADEN) | _BV(ADATE) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS01) | _BV(CS00);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
