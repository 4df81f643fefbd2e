// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_warn.c — what the clock models take one way where the chip's
 * datasheet leaves them unsaid, each warned once: Timer0's TCCR0B written
 * while PRTIM0 shuts it down, the ADC's registers written while PRADC
 * does, and the ADC's auto trigger (Timer0's overflow) rising while PRADC
 * stops its clock.
 */
#include <avr/io.h>
#include <util/delay_basic.h>

int main(void)
{
	PRR = _BV(PRTIM0) | _BV(PRADC);
	TCCR0B = _BV(CS00);                       /* clk/1: an overflow every 256 */
	ADMUX = _BV(REFS0);
	ADCSRB = _BV(ADTS2);                      /* Timer0 overflow */
	ADCSRA = _BV(ADEN) | _BV(ADATE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	PRR = _BV(PRADC);                         /* Timer0 runs, the ADC does not */
	_delay_loop_2(250);                       /* ~1,000 cycles: overflows */
	PRR = 0;
	for (;;)
		;
}
