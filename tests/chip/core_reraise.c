// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * core_reraise.c — a flag raised again after it was cleared while its
 * interrupt was pending (upstream a3c405d/dd79f41): I clear, TOIE0 set,
 * Timer0 at clk/1.  Each TOV0 is polled, reported (GPIOR0 = 1, 2) and
 * cleared by writing 1, which also takes it off the pending interrupts;
 * a third is left set, and SEI enters the vector once (GPIOR1 = 1).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(TIMER0_OVF_vect)
{
	GPIOR1 = 1;
	TIMSK0 = 0;
}

int main(void)
{
	cli();
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS00);
	for (uint8_t i = 1; i <= 2; i++) {
		while (!(TIFR0 & _BV(TOV0)))
			;
		GPIOR0 = i;
		TIFR0 = _BV(TOV0);
	}
	while (!(TIFR0 & _BV(TOV0)))
		;
	sei();
	for (;;)
		;
}
