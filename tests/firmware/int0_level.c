// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * int0_level.c — INT0 in its low-level mode (EICRA = 0, the mode at reset):
 * the interrupt is requested for as long as PD2 is low, again and again,
 * and never while it is high (sim/periph_extint.c keeps simavr's level poll, but
 * only in this mode).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

volatile uint16_t lows;
volatile uint8_t spin;

ISR(INT0_vect)
{
	lows++;
}

int main(void)
{
	EIMSK = _BV(INT0);   /* ISC01:0 = 00: low level */
	sei();
	for (;;)
		spin++;
}
