// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * int0_wake.c — a low level on INT0 wakes the CPU from power-down.  PD2
 * pulled up; INT0 on the low level (EICRA 0), its flag cleared the usual
 * way (EIFR written 1) and INT0 enabled; then SLEEP in power-down with I
 * set.  The outside world pulls PD2 low: INT0 wakes the CPU, its handler
 * disables it and sends 1 through GPIOR1; the program, awake, sends 1
 * through GPIOR0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(INT0_vect)
{
	EIMSK = 0;
	GPIOR1 = 1;
}

int main(void)
{
	PORTD = _BV(PORTD2);
	EICRA = 0;
	EIFR = _BV(INTF0);
	EIMSK = _BV(INT0);
	set_sleep_mode(SLEEP_MODE_PWR_DOWN);
	sei();
	sleep_mode();
	GPIOR0 = 1;
	for (;;)
		;
}
