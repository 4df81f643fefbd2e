// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * fpwm8_t1.c — Timer1 fast PWM 8-bit (mode 5, TOP 0xFF) at clk/8: OC1A
 * (PB1) non-inverting at OCR1A = 100, OC1B (PB2) inverting at OCR1B =
 * 200; TOV1 at each TOP -> BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);

int main(void)
{
	DDRB = _BV(PB1) | _BV(PB2);
	OCR1A = 100;
	OCR1B = 200;
	TCCR1A = _BV(COM1A1) | _BV(COM1B1) | _BV(COM1B0) | _BV(WGM10);
	TIMSK1 = _BV(TOIE1);
	TCCR1B = _BV(WGM12) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
