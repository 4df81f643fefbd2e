// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_adc.c — a firmware that loops sleeping in ADC Noise Reduction with
 * the ADC on (clk/128, ADIE, single conversions): entering the mode starts
 * a conversion, whose interrupt wakes the CPU; the handler marks its first
 * instruction (GPIOR0) and the loop sleeps again, starting the next.
 * Timer0 runs at clk/1024 with its overflow interrupt on: clk_I/O stands
 * while the CPU sleeps, so it does not overflow in 0.1 s (counting on, it
 * would 6 times).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(ADC_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[g0], r1\n\t"
			     "reti"
			     :
			     : [g0] "I"(_SFR_IO_ADDR(GPIOR0)));
}

EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS02) | _BV(CS00);   /* clk/1024 */
	ADMUX = _BV(REFS0);
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	SMCR = _BV(SM0) | _BV(SE);        /* ADC Noise Reduction */
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
