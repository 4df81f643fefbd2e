// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_psr.c — the ATmega16's prescaler resets in SFIOR: PSR10 resets the
 * prescaler Timer0 (CTC 9, clk/64, OC0 on PB3) and Timer1 (CTC 4,
 * clk/256, OC1A on PD5) share, PSR2 Timer2's (CTC 24, clk/64, OC2 on
 * PD7).  Main writes PSR10, then PSR2, between timer clock edges.
 */
#include <avr/io.h>
#include <util/delay_basic.h>

int main(void)
{
	DDRB = _BV(PB3);
	DDRD = _BV(PD5) | _BV(PD7);
	OCR0 = 9;
	OCR1A = 4;
	TCCR1A = _BV(COM1A0);
	OCR2 = 24;
	TCCR0 = _BV(WGM01) | _BV(COM00) | _BV(CS01) | _BV(CS00); /* clk/64 */
	TCCR1B = _BV(WGM12) | _BV(CS12);                          /* clk/256 */
	TCCR2 = _BV(WGM21) | _BV(COM20) | _BV(CS22);              /* clk/64 */
	_delay_loop_2(1250);
	SFIOR = _BV(PSR10);
	_delay_loop_2(1250);
	SFIOR = _BV(PSR2);
	for (;;)
		;
}
