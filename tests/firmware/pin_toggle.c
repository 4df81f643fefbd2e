// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pin_toggle.c — pins toggled through PINB, for `avrr export --vcd`: on an
 * ATmega328P at 16 MHz, Timer 1 in CTC mode (OCR1A = 999, clk/8) interrupts
 * every (999 + 1) * 8 = 8000 cycles, and its ISR toggles PB5 by writing
 * PINB = _BV(PB5) (an OUT) and PB0 by `PINB |= _BV(PB0)` (an SBI, which on
 * the chip toggles PB0 alone).  Each pin's half-period is 8000 cycles, its
 * period 16000 (1 ms).  main only spins, so the ISR's latency is constant.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

ISR(TIMER1_COMPA_vect)
{
	PINB = _BV(PB5);
	PINB |= _BV(PB0);
}

int main(void)
{
	DDRB = _BV(PB5) | _BV(PB0);
	OCR1A = 999;
	TCCR1B = _BV(WGM12) | _BV(CS11);     /* mode 4: CTC, TOP = OCR1A; clk/8 */
	TIMSK1 = _BV(OCIE1A);
	sei();
	for (;;)
		;
}
