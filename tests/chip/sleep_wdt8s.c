// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_wdt8s.c — a battery sleeper as an Arduino sketch has it: Timer0 at
 * clk/64 with its overflow interrupt on (millis()), the CPU in power-down,
 * woken by the watchdog in interrupt mode every 8 s (WDP 9: 1024K cycles
 * of the 128 kHz oscillator, 8.192 s); each wake counts in GPIOR0.  In
 * power-down clk_I/O stands, so Timer0 never overflows and the CPU wakes
 * only for the watchdog.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

ISR(WDT_vect)
{
	GPIOR0++;
}

EMPTY_INTERRUPT(TIMER0_OVF_vect);

int main(void)
{
	MCUSR = 0;
	wdt_disable();
	TIMSK0 = _BV(TOIE0);
	TCCR0A = _BV(WGM01) | _BV(WGM00);
	TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64, fast PWM: Arduino's init() */
	cli();
	__asm__ __volatile__("wdr\n\t"
			     "sts %[reg], %[open]\n\t"
			     "sts %[reg], %[mode]"
			     :
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)),
			       [open] "r"((uint8_t)(_BV(WDCE) | _BV(WDE))),
			       [mode] "r"((uint8_t)(_BV(WDIE) | _BV(WDP3) | _BV(WDP0)))
			     : "memory");
	SMCR = _BV(SM1) | _BV(SE);        /* power-down */
	sei();
	for (;;)
		__asm__ __volatile__("sleep");
}
