// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pwm_reserved.c — Timer 1 clocked in WGM mode 13, which the datasheet
 * reserves and nothing simulates, with OC1A (PB1) enabled: a recording
 * must say the pin's output is lost.  (pwm_reserved_quiet.c: the same
 * with no output compare pin and no interrupt enabled, which loses
 * nothing and must say nothing.)
 */
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

#ifndef PWM_RESERVED_COM
#define PWM_RESERVED_COM _BV(COM1A1)
#endif

int main(void)
{
	DDRB = _BV(PB1);
	TCCR1A = PWM_RESERVED_COM | _BV(WGM10);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS10);   /* mode 13 */
	for (;;)
		;
}
