// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pcint_rest.c — a pin-change interrupt on PB0 (PCINT0) and a busy loop:
 * the stimuli drive the pin to the level it already has as well as to the
 * other one, and only the changes may interrupt (sim/periph_extint.c).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

volatile uint16_t changes;
volatile uint8_t spin;

ISR(PCINT0_vect)
{
	changes++;
}

int main(void)
{
	PCICR = _BV(PCIE0);
	PCMSK0 = _BV(PCINT0);
	sei();
	for (;;)
		spin++;
}
