// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_psr.c — on the ATmega2560 PSRSYNC resets the prescaler Timers 0,
 * 1, 3, 4 and 5 share, not Timer2's: Timer3 (CTC 9, clk/64, OC3A on PE3)
 * and Timer5 (CTC 4, clk/256, OC5A on PL3) move to the write's phase,
 * Timer2 (CTC 24, clk/64, OC2A on PB4) keeps its own.
 */
#include <avr/io.h>
#include <util/delay_basic.h>

int main(void)
{
	DDRE = _BV(PE3);
	DDRL = _BV(PL3);
	DDRB = _BV(PB4);
	OCR3A = 9;
	TCCR3A = _BV(COM3A0);
	OCR5A = 4;
	TCCR5A = _BV(COM5A0);
	OCR2A = 24;
	TCCR2A = _BV(COM2A0) | _BV(WGM21);
	TCCR3B = _BV(WGM32) | _BV(CS31) | _BV(CS30); /* clk/64 */
	TCCR5B = _BV(WGM52) | _BV(CS52);             /* clk/256 */
	TCCR2B = _BV(CS22);                          /* clk/64 */
	_delay_loop_2(2500);
	GTCCR = _BV(PSRSYNC);
	for (;;)
		;
}
