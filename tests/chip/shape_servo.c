// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * shape_servo.c — a hobby-servo driver on an ATmega328P at 16 MHz, the
 * usual way: Timer1 fast PWM with TOP in ICR1 (WGM 14) at clk/8, ICR1 =
 * 39999, so a period of (39999 + 1) * 8 = 320,000 cycles = 20 ms; the
 * servo signal on OC1A (PB1), non-inverting (COM1A = 2): high from BOTTOM
 * until the count leaves OCR1A, (OCR1A + 1) * 8 cycles.
 *
 *  - OCR1A = 2999 first: 3000 * 8 = 24,000 cycles = 1.5 ms, the centre.
 *  - The overflow interrupt (TOV1, at TOP -> BOTTOM, where each pulse
 *    rises) counts the periods and at the third writes OCR1A = 3999:
 *    4000 * 8 = 32,000 cycles = 2 ms.  Fast PWM double-buffers OCR1A and
 *    takes it at BOTTOM, so the third pulse (under way) stays 24,000 and
 *    the fourth is the first of 32,000: 24000, 24000, 24000, 32000, ...
 *    From a start at count 0 the pin first rises at the first TOP ->
 *    BOTTOM (40,000 timer clocks after the start), with the first TOV1.
 *  - The compare interrupt (OCF1A, where each pulse falls) and the
 *    overflow interrupt both read PINB — the pin, which follows OC1A —
 *    and write the period count with the level read to PORTC: bit 5 =
 *    PB1 read, bit 4 = this was the compare interrupt.  The first OCF1A
 *    comes in the first (low) period, as the count passes 2999.
 *  - main sleeps in idle mode, so each interrupt enters a fixed number of
 *    cycles after its flag: entry to entry is edge to edge.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

static volatile uint8_t periods;

ISR(TIMER1_OVF_vect)
{
	uint8_t level = PINB & _BV(PB1);
	uint8_t n = periods + 1;
	periods = n;
	if (n == 3)
		OCR1A = 3999;
	PORTC = (uint8_t)((n & 0x0f) | (level ? 0x20 : 0));
}

ISR(TIMER1_COMPA_vect)
{
	uint8_t level = PINB & _BV(PB1);
	PORTC = (uint8_t)((periods & 0x0f) | 0x10 | (level ? 0x20 : 0));
}

int main(void)
{
	DDRB = _BV(PB1);
	DDRC = 0x3f;
	ICR1 = 39999;
	OCR1A = 2999;
	TCCR1A = _BV(COM1A1) | _BV(WGM11);
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1A);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11);
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	sei();
	for (;;)
		sleep_cpu();
}
