// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * oc_port.c — a toggling compare output is not PORTD: Timer0 CTC (OCR0A =
 * 99, clk/8) toggles OC0A on PD6, where PORTD6 was set to 1.  Each compare
 * handler sends PORTD (GPIOR0) and PIND (GPIOR1), which reads the pin,
 * that is OC0A; the sixth disconnects OC0A, and the pin goes back to
 * PORTD6.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER0_COMPA_vect)
{
	static unsigned char n;
	GPIOR0 = PORTD;
	GPIOR1 = PIND;
	if (++n == 6) {
		TCCR0A = _BV(WGM01);
		__asm__ volatile("nop");  /* the pin synchronizer (PINx read-back) */
		GPIOR1 = PIND;
	}
}

int main(void)
{
	PORTD = _BV(PD6);
	DDRD = _BV(PD6);
	OCR0A = 99;
	TCCR0A = _BV(COM0A0) | _BV(WGM01);
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = _BV(CS01);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
