// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_forever.c — a sleep nothing can end, on an ATmega328P at 16 MHz.
 *
 * It sets I, enables no interrupt source and sleeps: the chip would stay
 * asleep until a power cycle.  A recording must stop there, with its own
 * stop reason, whatever --instructions asks for.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

int main(void)
{
	DDRB = 0xff;
	PORTB = 1;
	sei();
	set_sleep_mode(SLEEP_MODE_PWR_DOWN);
	for (;;)
		sleep_mode();
}
