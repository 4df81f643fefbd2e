// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * m2560_t3_ctc.c — the ATmega2560's Timer3 in CTC (mode 4), OCR3A = 999
 * at clk/8: OC3A (PE3) toggles as the count leaves TOP, OC3C (PE5) as it
 * leaves OCR3C = 499, half a period later; OCF3C interrupts each period.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER3_COMPC_vect);

int main(void)
{
	DDRE = _BV(PE3) | _BV(PE5);
	OCR3A = 999;
	OCR3C = 499;
	TCCR3A = _BV(COM3A0) | _BV(COM3C0);
	TIMSK3 = _BV(OCIE3C);
	TCCR3B = _BV(WGM32) | _BV(CS31);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
