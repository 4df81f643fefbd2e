// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * ctc_top.c — CTC periods at the smallest TOPs and a middle one, seen on
 * the toggling compare outputs: Timer0 OCR0A = 0 at clk/64 on OC0A (PD6),
 * Timer2 OCR2A = 1 at clk/8 on OC2A (PB3), Timer1 (mode 4) OCR1A = 999 at
 * clk/1 on OC1A (PB1).  No interrupts: only the pins are measured.
 */
#include <avr/io.h>

int main(void)
{
	DDRD = _BV(PD6);
	DDRB = _BV(PB3) | _BV(PB1);
	OCR0A = 0;
	TCCR0A = _BV(COM0A0) | _BV(WGM01);
	OCR2A = 1;
	TCCR2A = _BV(COM2A0) | _BV(WGM21);
	OCR1A = 999;
	TCCR1A = _BV(COM1A0);
	TCCR0B = _BV(CS01) | _BV(CS00);  /* clk/64 */
	TCCR2B = _BV(CS21);              /* clk/8 */
	TCCR1B = _BV(WGM12) | _BV(CS10); /* clk/1 */
	for (;;)
		;
}
