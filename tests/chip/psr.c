// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * psr.c — the prescaler resets: Timer0 (CTC 9, clk/64, OC0A on PD6) and
 * Timer1 (CTC 4, clk/256, OC1A on PB1) share the prescaler PSRSYNC
 * resets; Timer2 (CTC 24, clk/64, OC2A on PB3) has its own, which only
 * PSRASY resets.  Main writes PSRSYNC, then PSRASY, between timer clock
 * edges; the toggling outputs show where each timer's edges fall.
 */
#include <avr/io.h>
#include <util/delay_basic.h>

int main(void)
{
	DDRD = _BV(PD6);
	DDRB = _BV(PB1) | _BV(PB3);
	OCR0A = 9;
	TCCR0A = _BV(COM0A0) | _BV(WGM01);
	OCR1A = 4;
	TCCR1A = _BV(COM1A0);
	OCR2A = 24;
	TCCR2A = _BV(COM2A0) | _BV(WGM21);
	TCCR0B = _BV(CS01) | _BV(CS00);  /* clk/64 */
	TCCR1B = _BV(WGM12) | _BV(CS12); /* clk/256 */
	TCCR2B = _BV(CS22);              /* clk/64 */
	_delay_loop_2(2500);
	GTCCR = _BV(PSRSYNC);
	_delay_loop_2(2500);
	GTCCR = _BV(PSRASY);
	for (;;)
		;
}
