// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * pins_flags_m2560.c — the ATmega2560's PCIFR and EIFR: PCIF0 (PB0),
 * PCIF1 (PCINT8 on PE0), PCIF2 (PCINT16 on PK0), INTF0 (PD0) and INTF7
 * (PE7) rise on falling edges the outside world makes on pulled-up
 * inputs, every interrupt enabled, I clear.  PCIFR written 0 (nothing),
 * PCIF1 written 1, an SBI of PCIF2; EIFR written 0, INTF7 written 1.
 * Each register goes out through GPIOR0 after each write; then I is set:
 * PCINT0 and INT0 are taken, nothing else.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { }
ISR(INT7_vect) { }
ISR(PCINT0_vect) { }
ISR(PCINT1_vect) { }
ISR(PCINT2_vect) { }

int main(void)
{
	PORTB = _BV(PORTB0);
	PORTD = _BV(PORTD0);
	PORTE = _BV(PORTE0) | _BV(PORTE7);
	PORTK = _BV(PORTK0);
	PCMSK0 = _BV(PCINT0);
	PCMSK1 = _BV(PCINT8);
	PCMSK2 = _BV(PCINT16);
	PCICR = _BV(PCIE0) | _BV(PCIE1) | _BV(PCIE2);
	EICRA = _BV(ISC01);
	EICRB = _BV(ISC71);
	EIMSK = _BV(INT0) | _BV(INT7);
	while ((PCIFR & 7) != 7 || (EIFR & 0x81) != 0x81)
		;
	GPIOR0 = PCIFR;
	PCIFR = 0;
	GPIOR0 = PCIFR;
	PCIFR = _BV(PCIF1);
	GPIOR0 = PCIFR;
	__asm__ volatile("sbi %0, %1" : : "I"(_SFR_IO_ADDR(PCIFR)), "I"(PCIF2));
	GPIOR0 = PCIFR;
	GPIOR0 = EIFR;
	EIFR = 0;
	GPIOR0 = EIFR;
	EIFR = _BV(INTF7);
	GPIOR0 = EIFR;
	sei();
	for (;;)
		GPIOR2 = 0xaa;
}
