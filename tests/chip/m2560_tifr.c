// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_tifr.c — TIFR3's flags clear alone: Timer3 runs at clk/1 past a
 * wrap with OCR3A/B/C = 100/200/300, so TOV3 and OCF3A, B and C are set,
 * and stops; writing OCF3C clears only OCF3C, an SBI of OCF3A only OCF3A.
 * TIFR3 goes out through GPIOR0 each time.
 */
#include <avr/io.h>

int main(void)
{
	OCR3A = 100;
	OCR3B = 200;
	OCR3C = 300;
	TCCR3B = _BV(CS30);
	while (!(TIFR3 & _BV(TOV3)))
		;
	TCCR3B = 0;
	GPIOR0 = TIFR3;
	TIFR3 = _BV(OCF3C);
	GPIOR0 = TIFR3;
	TIFR3 |= _BV(OCF3A);
	GPIOR0 = TIFR3;
	for (;;)
		;
}
