// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * core_m2560_irq.c — the interrupt response on an ATmega2560 (a 3-byte
 * PC: five cycles): Timer0's overflow pending with I clear, then SEI,
 * OUT GPIOR0 = 1, OUT GPIOR0 = 2; the naked handler sets GPIOR0 bit 7.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(TIMER0_OVF_vect, ISR_NAKED)
{
	__asm__ __volatile__("sbi %0, 7\n\treti" : : "I"(_SFR_IO_ADDR(GPIOR0)));
}

int main(void)
{
	cli();
	TCCR0B = _BV(CS00);
	while (!(TIFR0 & _BV(TOV0)))
		;
	TCCR0B = 0;
	TIMSK0 = _BV(TOIE0);
	__asm__ __volatile__("ldi r24, 1\n\t"
			     "ldi r25, 2\n\t"
			     "sei\n\t"
			     "out %0, r24\n\t"
			     "out %0, r25\n\t"
			     :
			     : "I"(_SFR_IO_ADDR(GPIOR0))
			     : "r24", "r25");
	for (;;)
		;
}
