// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * pcint_m2560.c — the ATmega2560's pin change interrupts 1 and 2: every
 * pin of PCMSK1 (PCINT8 on PE0, PCINT15:9 on PJ6:0) and of PCMSK2
 * (PCINT23:16 on PK7:0) enabled, PCIE1 and PCIE2 set.  The outside world
 * toggles those sixteen pins, and PJ7 and PE1 (no pin change interrupt
 * there); the program spins between the handlers, which send the
 * port they see through GPIOR0 (PINJ) and GPIOR1 (PINK).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(PCINT1_vect) { GPIOR0 = PINJ; }
ISR(PCINT2_vect) { GPIOR1 = PINK; }

int main(void)
{
	PCMSK1 = 0xff;
	PCMSK2 = 0xff;
	PCICR = _BV(PCIE1) | _BV(PCIE2);
	sei();
	for (;;)
		;
}
