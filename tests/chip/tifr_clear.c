// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * tifr_clear.c — TIFR1 flags clear by writing 1 to them, each alone: with
 * TOV1, OCF1A and OCF1B all set (Timer1 run past a wrap, then stopped),
 * writing OCF1A clears only OCF1A, writing 0 clears nothing, an SBI of
 * TOV1 clears only TOV1 (the ATmega328P's SBI touches one bit), and
 * writing OCF1B clears the last.  TIFR1 goes out through GPIOR0 each time.
 */
#include <avr/io.h>

int main(void)
{
	OCR1A = 100;
	OCR1B = 200;
	TCCR1B = _BV(CS10);
	while (!(TIFR1 & _BV(TOV1)))
		;
	TCCR1B = 0;
	GPIOR0 = TIFR1;
	TIFR1 = _BV(OCF1A);
	GPIOR0 = TIFR1;
	TIFR1 = 0;
	GPIOR0 = TIFR1;
	TIFR1 |= _BV(TOV1);
	GPIOR0 = TIFR1;
	TIFR1 = _BV(OCF1B);
	GPIOR0 = TIFR1;
	for (;;)
		;
}
