// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_t0_fpwm.c — the ATmega16's Timer0 in fast PWM: OCR0 = 63 at clk/8,
 * OC0 (PB3) non-inverting, set at each TOV0 (0xFF -> 0) and cleared as
 * the count leaves 63.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	DDRB = _BV(PB3);
	OCR0 = 63;
	TIMSK = _BV(TOIE0);
	TCCR0 = _BV(WGM00) | _BV(WGM01) | _BV(COM01) | _BV(CS01);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
