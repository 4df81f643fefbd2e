// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * core_irq.c — the interrupt response on an ATmega328P: two interrupts
 * pending (Timer0's compare A and overflow, both flags set with I clear),
 * then SEI followed by OUTs of 1, 2, 3 to GPIOR0.  Each handler is naked:
 * SBI GPIOR0, 7 and RETI, so GPIOR0's writes tell which main instruction
 * ran before each entry, and their cycles the response.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(TIMER0_COMPA_vect, ISR_NAKED)
{
	__asm__ __volatile__("sbi %0, 7\n\treti" : : "I"(_SFR_IO_ADDR(GPIOR0)));
}

ISR(TIMER0_OVF_vect, ISR_NAKED)
{
	__asm__ __volatile__("sbi %0, 7\n\treti" : : "I"(_SFR_IO_ADDR(GPIOR0)));
}

int main(void)
{
	cli();
	OCR0A = 10;
	TCCR0B = _BV(CS00);
	while (!(TIFR0 & _BV(TOV0)))
		;
	TCCR0B = 0;
	TIMSK0 = _BV(OCIE0A) | _BV(TOIE0);
	__asm__ __volatile__("ldi r24, 1\n\t"
			     "ldi r25, 2\n\t"
			     "ldi r26, 3\n\t"
			     "sei\n\t"
			     "out %0, r24\n\t"
			     "out %0, r25\n\t"
			     "out %0, r26\n\t"
			     :
			     : "I"(_SFR_IO_ADDR(GPIOR0))
			     : "r24", "r25", "r26");
	for (;;)
		;
}
