// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pwm_fast.c — timer compare outputs on the pins, for `avrr export --vcd`,
 * on an ATmega328P at 16 MHz (datasheet arithmetic in the comments):
 *  - Timer 0, fast PWM (mode 3, TOP 0xFF), clk/8: period 256 * 8 = 2048
 *    cycles on both outputs;
 *    OC0A (PD6) non-inverting, OCR0A = 63: high (63 + 1) * 8 = 512 cycles;
 *    OC0B (PD5) inverting, OCR0B = 191: low (191 + 1) * 8 = 1536 cycles.
 *  - Timer 1, fast PWM 8-bit (mode 5, TOP 0xFF), clk/64: OC1A (PB1)
 *    non-inverting, OCR1A = 31: period 256 * 64 = 16384 cycles, high
 *    (31 + 1) * 64 = 2048.
 *  - Timer 2, CTC (mode 2, TOP = OCR2A = 99), clk/32, OC2A (PB3) and OC2B
 *    (PD3) toggled on compare match: each every (99 + 1) * 32 = 3200
 *    cycles, a period of 6400; OC2B (OCR2B = 49) matches at TCNT2 = 49,
 *    (99 - 49) * 32 = 1600 cycles before OC2A.
 * main toggles PD7 through PORTD meanwhile: a PORTD write must not move
 * the pins the timers own.
 */
#include <avr/io.h>
#include <util/delay.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

int main(void)
{
	DDRD = _BV(PD7) | _BV(PD6) | _BV(PD5) | _BV(PD3);
	DDRB = _BV(PB3) | _BV(PB1);
	OCR0A = 63;
	OCR0B = 191;
	TCCR0A = _BV(COM0A1) | _BV(COM0B1) | _BV(COM0B0) | _BV(WGM01) | _BV(WGM00);
	TCCR0B = _BV(CS01);
	OCR1A = 31;
	TCCR1A = _BV(COM1A1) | _BV(WGM10);
	TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10);
	OCR2A = 99;
	OCR2B = 49;
	TCCR2A = _BV(COM2A0) | _BV(COM2B0) | _BV(WGM21);
	TCCR2B = _BV(CS21) | _BV(CS20);
	for (;;) {
		PORTD ^= _BV(PD7);
		_delay_us(100);
	}
}
