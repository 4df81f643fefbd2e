// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * adc_m16.c — the ATmega16's ADC (AVcc, clk/64), results out through
 * PORTA (low) and PORTC (high):
 *  1. a polled conversion of the 1.22 V bandgap (MUX4:0 = 11110);
 *  2. SBI on ADCSRA (ADIE) with ADIF set: the ATmega16's SBI writes the
 *     whole register back, ADIF as 1, which clears it — ADCSRA goes out
 *     through PORTB, and no ADC interrupt follows;
 *  3. auto trigger from Timer0 overflow, ADTS in SFIOR's bits 7-5 (100),
 *     written together with PSR10, which resets Timer0's prescaler:
 *     Timer0 at clk/64, its empty handler clearing TOV0; the ADC handler
 *     sends each result of ADC0 out.  Idle sleep between.
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
	PORTA = (uint8_t)v;
	PORTC = (uint8_t)(v >> 8);
}

int main(void)
{
	ADMUX = _BV(REFS0) | 0x1e;
	ADCSRA = _BV(ADEN) | _BV(ADSC) | _BV(ADPS2) | _BV(ADPS1);
	while (!(ADCSRA & _BV(ADIF)))
		;
	uint16_t v = ADC;
	PORTA = (uint8_t)v;
	PORTC = (uint8_t)(v >> 8);

	ADCSRA |= _BV(ADIE);
	PORTB = ADCSRA;

	ADMUX = _BV(REFS0);
	TIMSK = _BV(TOIE0);
	TCCR0 = _BV(CS01) | _BV(CS00);
	ADCSRA = _BV(ADEN) | _BV(ADATE) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1);
	SFIOR = _BV(ADTS2) | _BV(PSR10);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
