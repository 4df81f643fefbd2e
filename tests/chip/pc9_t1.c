// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pc9_t1.c — Timer1 phase-correct PWM 9-bit (mode 2, TOP 0x1FF) at clk/8:
 * OC1A (PB1) non-inverting at OCR1A = 0x1FF (= TOP) is high for good once
 * set; OC1B (PB2) non-inverting at OCR1B = 100.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER1_OVF_vect);

int main(void)
{
	DDRB = _BV(PB1) | _BV(PB2);
	OCR1A = 0x1ff;
	OCR1B = 100;
	TCCR1A = _BV(COM1A1) | _BV(COM1B1) | _BV(WGM11);
	TIMSK1 = _BV(TOIE1);
	TCCR1B = _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
