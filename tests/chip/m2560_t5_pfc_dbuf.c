// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_t5_pfc_dbuf.c — OCR5C double-buffered in phase-and-frequency-
 * correct PWM with TOP in OCR5A (mode 9): OCR5A = 255 at clk/8, OC5C
 * (PL5) non-inverting at OCR5C = 40.  The fourth overflow handler, just
 * after BOTTOM, writes OCR5C = 100, taken at the next BOTTOM.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER5_OVF_vect)
{
	static unsigned char n;
	if (++n == 4)
		OCR5C = 100;
}

int main(void)
{
	DDRL = _BV(PL5);
	OCR5A = 255;
	OCR5C = 40;
	TCCR5A = _BV(COM5C1) | _BV(WGM50);
	TIMSK5 = _BV(TOIE5);
	TCCR5B = _BV(WGM53) | _BV(CS51);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
