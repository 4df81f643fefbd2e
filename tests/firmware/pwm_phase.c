// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pwm_phase.c — Timer 1 in 8-bit phase-correct PWM with its overflow
 * interrupt, on an ATmega328P at 16 MHz: a mode simavr 1.6 does not have
 * for this part, which sim/periph_timer.c simulates: an overflow each
 * 2 * 255 * 1 = 510 cycles.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

static volatile uint16_t overflows;

ISR(TIMER1_OVF_vect)
{
	overflows++;
}

int main(void)
{
	TCCR1A = _BV(WGM10) | _BV(COM1A1);   /* mode 1: PWM, phase correct, 8-bit */
	TCCR1B = _BV(CS10);
	OCR1A = 64;
	TIMSK1 = _BV(TOIE1);
	sei();
	for (;;)
		PORTB = (uint8_t)overflows;
}
