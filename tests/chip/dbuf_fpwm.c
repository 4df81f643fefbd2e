// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * dbuf_fpwm.c — OCR1A double-buffered in fast PWM: Timer1 mode 5 at clk/8,
 * OC1A (PB1) non-inverting at OCR1A = 40.  The fourth overflow handler,
 * early in a period (the count far below 40), writes OCR1A = 150: the
 * pulse already under way keeps its width, the next period's is wider.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER1_OVF_vect)
{
	static unsigned char n;
	if (++n == 4)
		OCR1A = 150;
}

int main(void)
{
	DDRB = _BV(PB1);
	OCR1A = 40;
	TCCR1A = _BV(COM1A1) | _BV(WGM10);
	TIMSK1 = _BV(TOIE1);
	TCCR1B = _BV(WGM12) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
