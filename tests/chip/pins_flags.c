// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pins_flags.c — PCIFR and EIFR flags clear by writing 1 to them, each
 * alone, with their pending interrupts.  Pull-ups on PB0, PC0, PD2 and
 * PD3; the outside world drives the four low (a stimulus): PCIF0 (PCINT0
 * on PB0), PCIF1 (PCINT8 on PC0), INTF0 and INTF1 (falling edges) rise,
 * every interrupt enabled but I clear, so all four are pending.  Then:
 * PCIFR written 0 (nothing), PCIF0 written 1 (cleared), an SBI of PCIF1
 * (cleared, alone); EIFR written 0 (nothing), an SBI of INTF1 (cleared,
 * alone).  Each register goes out through GPIOR0 after each write.  Then
 * I is set: only INT0, whose flag was never written 1, is taken; its
 * handler sends EIFR (cleared by the entry) through GPIOR1.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { GPIOR1 = EIFR; }
ISR(INT1_vect) { }
ISR(PCINT0_vect) { }
ISR(PCINT1_vect) { }

int main(void)
{
	PORTB = _BV(PORTB0);
	PORTC = _BV(PORTC0);
	PORTD = _BV(PORTD2) | _BV(PORTD3);
	PCMSK0 = _BV(PCINT0);
	PCMSK1 = _BV(PCINT8);
	PCICR = _BV(PCIE0) | _BV(PCIE1);
	EICRA = _BV(ISC01) | _BV(ISC11);
	EIMSK = _BV(INT0) | _BV(INT1);
	while ((PCIFR & 3) != 3 || (EIFR & 3) != 3)
		;
	GPIOR0 = PCIFR;
	PCIFR = 0;
	GPIOR0 = PCIFR;
	PCIFR = _BV(PCIF0);
	GPIOR0 = PCIFR;
	__asm__ volatile("sbi %0, %1" : : "I"(_SFR_IO_ADDR(PCIFR)), "I"(PCIF1));
	GPIOR0 = PCIFR;
	GPIOR0 = EIFR;
	EIFR = 0;
	GPIOR0 = EIFR;
	__asm__ volatile("sbi %0, %1" : : "I"(_SFR_IO_ADDR(EIFR)), "I"(INTF1));
	GPIOR0 = EIFR;
	sei();
	for (;;)
		GPIOR2 = 0xaa;
}
