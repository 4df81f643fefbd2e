// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pins_pullup.c — an outside driver beats the pull-up, whatever PORTx
 * writes happen.  PB0 an input with its pull-up (PORTB0 1), PCINT0 on it;
 * PB1 an output, low.  The outside world pulls PB0 low and drives PB1
 * high; the program then writes PORTB 1000 times (toggling PB1, keeping
 * PORTB0 1) and reads PB0 after each, counting the reads that are high;
 * the count goes out through GPIOR1 (low byte, then high byte).  PINB
 * goes out through GPIOR0 at the start, after the loop and after the
 * outside world lets go of PB0 (the pull-up holds it high again).  The
 * pin change handler counts its entries in GPIOR2.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

ISR(PCINT0_vect) { GPIOR2++; }

int main(void)
{
	DDRB = _BV(DDB1);
	PORTB = _BV(PORTB0);
	PCMSK0 = _BV(PCINT0);
	PCICR = _BV(PCIE0);
	sei();
	GPIOR0 = PINB;
	while (PINB & _BV(PINB0))
		;
	uint16_t high = 0;
	for (uint16_t i = 0; i < 1000; i++) {
		PORTB ^= _BV(PORTB1);
		if (PINB & _BV(PINB0))
			high++;
	}
	GPIOR1 = (uint8_t)high;
	GPIOR1 = (uint8_t)(high >> 8);
	GPIOR0 = PINB;
	while (!(PINB & _BV(PINB0)))
		;
	GPIOR0 = PINB;
	for (;;)
		;
}
