// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_reserved.c — a reserved prescaler on an ATmega328P: interrupt mode
 * with WDP 10 (WDP3 and WDP1), which the datasheet leaves reserved; the
 * model times it as WDP 9 and warns, and warns that interrupt mode is
 * what an unprogrammed WDTON fuse allows.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

EMPTY_INTERRUPT(WDT_vect);

int main(void)
{
	MCUSR = 0;
	cli();
	__asm__ __volatile__("wdr");
	WDTCSR = _BV(WDCE) | _BV(WDE);
	WDTCSR = _BV(WDIE) | _BV(WDP3) | _BV(WDP1);
	sei();
	for (;;)
		;
}
