// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * dbuf_pfc.c — OCR1B double-buffered in phase-and-frequency-correct PWM,
 * taken at BOTTOM: Timer1 mode 8, ICR1 = 255 at clk/8, OC1B (PB2)
 * non-inverting at OCR1B = 40, high around BOTTOM.  The fourth overflow
 * handler, just after BOTTOM, writes OCR1B = 100: this period still uses
 * 40, so the next pulse is 40 wide before BOTTOM and 100 after it.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER1_OVF_vect)
{
	static unsigned char n;
	if (++n == 4)
		OCR1B = 100;
}

int main(void)
{
	DDRB = _BV(PB2);
	ICR1 = 255;
	OCR1B = 40;
	TCCR1A = _BV(COM1B1);
	TIMSK1 = _BV(TOIE1);
	TCCR1B = _BV(WGM13) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
