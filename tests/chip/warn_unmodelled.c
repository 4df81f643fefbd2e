// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * warn_unmodelled.c — selects what sim/ does not simulate, each once:
 * the clock prescaler (CLKPR: /2), the analog comparator's interrupt
 * (ACSR's ACIE), a TWI slave address (TWAR), then sleeps in the
 * reserved sleep mode 4 with only Timer0's overflow to wake it.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);
EMPTY_INTERRUPT(ANALOG_COMP_vect);

int main(void)
{
	CLKPR = _BV(CLKPCE);
	CLKPR = _BV(CLKPS0);
	ACSR = _BV(ACIE);
	TWAR = 0x20 << 1;
	TIMSK0 = _BV(TOIE0);
	TCCR0B = _BV(CS00);
	SMCR = _BV(SM2) | _BV(SE);
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
