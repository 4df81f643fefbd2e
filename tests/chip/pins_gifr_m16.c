// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * pins_gifr_m16.c — the ATmega16's GIFR: INTF0, INTF1 (falling edges on
 * PD2, PD3 by MCUCR) and INTF2 (INT2's falling edge on PB2, ISC2 0) rise
 * as the outside world pulls the three pulled-up inputs low, each
 * interrupt enabled in GICR, I clear.  GIFR written 0 (nothing), INTF1
 * written 1 (cleared, alone, with its pending interrupt), each read back
 * through PORTC; then I is set: INT0 and INT2 are taken, INT1 is not.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(INT0_vect) { }
ISR(INT1_vect) { }
ISR(INT2_vect) { }

int main(void)
{
	PORTB = _BV(PB2);
	PORTD = _BV(PD2) | _BV(PD3);
	MCUCR = _BV(ISC01) | _BV(ISC11);
	GICR = _BV(INT0) | _BV(INT1) | _BV(INT2);
	while ((GIFR & 0xe0) != 0xe0)
		;
	PORTC = GIFR;
	GIFR = 0;
	PORTC = GIFR;
	GIFR = _BV(INTF1);
	PORTC = GIFR;
	sei();
	for (;;)
		;
}
