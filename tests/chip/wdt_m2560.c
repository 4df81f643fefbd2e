// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * wdt_m2560.c — the watchdog in interrupt mode on an ATmega2560 at WDP 1
 * (4K cycles, 32 ms); each interrupt writes WDTCSR to PORTB.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(WDT_vect)
{
	PORTB = WDTCSR;
}

int main(void)
{
	MCUSR = 0;
	cli();
	__asm__ __volatile__("wdr");
	WDTCSR = _BV(WDCE) | _BV(WDE);
	WDTCSR = _BV(WDIE) | _BV(WDP0);
	sei();
	for (;;)
		;
}
