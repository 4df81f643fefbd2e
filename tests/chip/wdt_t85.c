// build: -mmcu=attiny85 -DF_CPU=8000000UL
/*
 * wdt_t85.c — the watchdog in interrupt mode on an ATtiny85 (WDTCR) at
 * WDP 8 (WDP3, bit 5: 512K cycles, 4 s), asleep between interrupts; each
 * interrupt writes WDTCR to GPIOR1.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(WDT_vect)
{
	GPIOR1 = WDTCR;
}

int main(void)
{
	MCUSR = 0;
	cli();
	__asm__ __volatile__("wdr");
	WDTCR = _BV(WDCE) | _BV(WDE);
	WDTCR = _BV(WDIE) | _BV(WDP3);
	sei();
	for (;;)
		sleep_mode();
}
