// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_foc.c — FOC3C, the third compare unit's strobe: Timer3 stopped in
 * normal mode, COM3C = 3 (set) then 2 (clear); each strobe sets or clears
 * OC3C (PE5) and no OCF3C, with OCIE3C enabled.  TIFR3 goes out through
 * GPIOR0 at the end.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay_basic.h>

EMPTY_INTERRUPT(TIMER3_COMPC_vect);

int main(void)
{
	DDRE = _BV(PE5);
	OCR3C = 1000;
	TIMSK3 = _BV(OCIE3C);
	sei();
	TCCR3A = _BV(COM3C1) | _BV(COM3C0);
	TCCR3C = _BV(FOC3C);
	_delay_loop_1(100);
	TCCR3A = _BV(COM3C1);
	TCCR3C = _BV(FOC3C);
	_delay_loop_1(100);
	GPIOR0 = TIFR3;
	for (;;)
		;
}
