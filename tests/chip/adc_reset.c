// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_reset.c — the ADC across a reset and when switched off:
 *  1. (power-on) free running at clk/128, then the watchdog in system
 *     reset mode (16 ms): the reset comes while a conversion is under way;
 *  2. (WDRF set) 4000 cycles on, ADCSRA, ADCL and ADCH go out through
 *     GPIOR0 (the reset left them 0, and no conversion ended since); a
 *     conversion is started and ADEN cleared 100 cycles later: 5000 cycles
 *     on, ADCSRA goes out (ADPS only: no ADIF, ADSC cleared).
 * Each boot's MCUSR goes out through GPIOR2.
 */
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/delay_basic.h>

#define PS (_BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0))

int main(void)
{
	uint8_t flags = MCUSR;
	MCUSR = 0;
	wdt_disable();
	GPIOR2 = flags;
	if (!(flags & _BV(WDRF))) {
		ADMUX = _BV(REFS0);
		ADCSRA = _BV(ADEN) | _BV(ADSC) | _BV(ADATE) | PS;
		wdt_enable(WDTO_15MS);
		for (;;)
			;
	}
	_delay_loop_2(1000);
	GPIOR0 = ADCSRA;
	GPIOR0 = ADCL;
	GPIOR0 = ADCH;
	ADCSRA = _BV(ADEN) | _BV(ADSC) | PS;
	_delay_loop_1(33);
	ADCSRA = PS;
	_delay_loop_2(1250);
	GPIOR0 = ADCSRA;
	for (;;)
		;
}
