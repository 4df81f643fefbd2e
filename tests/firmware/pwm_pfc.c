// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pwm_pfc.c — phase-and-frequency-correct PWM, Timer 1 mode 9 (TOP =
 * OCR1A = 500) at clk/64, on an ATmega328P at 16 MHz: a period of
 * 2 * 500 * 64 = 64000 cycles, TOV1 at BOTTOM, OCF1A at TOP.  OC1B (PB2)
 * non-inverting; the overflow ISR switches OCR1B between 100 and 300.
 * OCR1B is double-buffered and taken at BOTTOM, so the write after one
 * BOTTOM counts from the next: periods run 100, 100, 300, 100, 300, ...,
 * and OC1B is low, centred on TOP, 2 * (500 - OCR1B) * 64 cycles: 51200
 * or 25600.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

volatile uint16_t tov1, ocf1a, ocf1b;

ISR(TIMER1_OVF_vect)
{
	tov1++;
	OCR1B = OCR1B == 100 ? 300 : 100;
}

ISR(TIMER1_COMPA_vect) { ocf1a++; }
ISR(TIMER1_COMPB_vect) { ocf1b++; }

int main(void)
{
	DDRB = _BV(PB2);
	OCR1A = 500;
	OCR1B = 100;
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1A) | _BV(OCIE1B);
	TCCR1A = _BV(COM1B1) | _BV(WGM10);                 /* mode 9: WGM13, WGM10 */
	TCCR1B = _BV(WGM13) | _BV(CS11) | _BV(CS10);       /* clk/64 */
	sei();
	for (;;)
		;
}
