// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_tifr.c — the ATmega16's one TIFR for all three timers: with every
 * flag of Timers 0, 1 and 2 set but ICF1 (each run past a wrap at clk/1,
 * then stopped), writing OCF1A clears only OCF1A, writing TOV0 only TOV0.
 * TIFR goes out through PORTC, an unused port, each time.
 */
#include <avr/io.h>

int main(void)
{
	OCR0 = 10;
	OCR1A = 100;
	OCR1B = 200;
	OCR2 = 20;
	TCCR0 = _BV(CS00);
	TCCR2 = _BV(CS20);
	TCCR1B = _BV(CS10);
	while (!(TIFR & _BV(TOV1)))
		;
	TCCR0 = 0;
	TCCR1B = 0;
	TCCR2 = 0;
	PORTC = TIFR;
	TIFR = _BV(OCF1A);
	PORTC = TIFR;
	TIFR = _BV(TOV0);
	PORTC = TIFR;
	for (;;)
		;
}
