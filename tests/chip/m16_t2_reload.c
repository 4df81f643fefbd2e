// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * m16_t2_reload.c — the ATmega16's Timer2 at clk/64 reloaded to 6 in its
 * overflow handler: the reload leaves the prescaler's phase alone, each
 * period is (256 - 6) * 64 = 16000 cycles, 2 ms at 8 MHz.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(TIMER2_OVF_vect)
{
	TCNT2 = 6;
}

int main(void)
{
	TIMSK = _BV(TOIE2);
	TCCR2 = _BV(CS22);  /* clk/64 */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
