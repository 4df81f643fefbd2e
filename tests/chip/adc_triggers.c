// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * adc_triggers.c — the ADC's auto trigger from each source but the
 * analog comparator, the source's ADTS taken from GPIOR2 (the test sets
 * it before the run): 2 INT0 (PD2's falling edges), 3 Timer0 compare A
 * (normal mode, clk/64, OCR0A 100), 5 Timer1 compare B (CTC on OCR1A
 * 19999 at clk/8, OCR1B 5000), 6 Timer1 overflow (normal, clk/1), 7
 * Timer1 capture (PB0's rising edges).  Each source's interrupt is on,
 * with an empty handler clearing its flag so the next event is a rising
 * edge of the trigger; the ADC at clk/128 on ADC0, its handler reporting
 * through GPIOR0/GPIOR1.  Idle sleep between.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(INT0_vect);
EMPTY_INTERRUPT(TIMER0_COMPA_vect);
EMPTY_INTERRUPT(TIMER1_COMPB_vect);
EMPTY_INTERRUPT(TIMER1_OVF_vect);
EMPTY_INTERRUPT(TIMER1_CAPT_vect);

ISR(ADC_vect)
{
	uint16_t v = ADC;
	GPIOR0 = (uint8_t)v;
	GPIOR1 = (uint8_t)(v >> 8);
}

int main(void)
{
	uint8_t adts = GPIOR2;
	ADMUX = _BV(REFS0);
	ADCSRB = adts;
	ADCSRA = _BV(ADEN) | _BV(ADATE) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	switch (adts) {
	case 2:
		EICRA = _BV(ISC01);
		EIMSK = _BV(INT0);
		break;
	case 3:
		OCR0A = 100;
		TIMSK0 = _BV(OCIE0A);
		TCCR0B = _BV(CS01) | _BV(CS00);
		break;
	case 5:
		OCR1A = 19999;
		OCR1B = 5000;
		TIMSK1 = _BV(OCIE1B);
		TCCR1B = _BV(WGM12) | _BV(CS11);
		break;
	case 6:
		TIMSK1 = _BV(TOIE1);
		TCCR1B = _BV(CS10);
		break;
	case 7:
		TIMSK1 = _BV(ICIE1);
		TCCR1B = _BV(ICES1) | _BV(CS10);
		break;
	}
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
