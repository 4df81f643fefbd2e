// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * dbuf_pc.c — OCR1A double-buffered in phase-correct PWM, taken at TOP:
 * Timer1 mode 1 (TOP 0xFF) at clk/8, OC1A (PB1) non-inverting at OCR1A =
 * 40, high around BOTTOM.  The fourth overflow handler, just after
 * BOTTOM, writes OCR1A = 100: the pulse under way ends as it began, the
 * next one is 100 wide on both sides.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER1_OVF_vect)
{
	static unsigned char n;
	if (++n == 4)
		OCR1A = 100;
}

int main(void)
{
	DDRB = _BV(PB1);
	OCR1A = 40;
	TCCR1A = _BV(COM1A1) | _BV(WGM10);
	TIMSK1 = _BV(TOIE1);
	TCCR1B = _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
