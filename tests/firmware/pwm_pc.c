// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pwm_pc.c — phase-correct PWM, as Arduino's analogWrite and avr-libc's
 * demos use it, on an ATmega328P at 16 MHz; each ISR counts its
 * interrupts.
 *
 * Timer 1, mode 10 (phase-correct, TOP = ICR1 = 1000), clk/8, OC1A
 * non-inverting at OCR1A = 250 (PB1), OCR1B = 750: a period of
 * 2 * 1000 * 8 = 16000 cycles, one TOV1 at BOTTOM, two OCF1A and two
 * OCF1B (up and down), OC1A high 2 * 250 * 8 = 4000 cycles of each.
 * Timer 2, mode 1 (phase-correct, TOP 0xff), clk/64, OC2B non-inverting
 * at OCR2B = 100 (PD3, Arduino's pin 3): 2 * 255 * 64 = 32640 cycles, one
 * TOV2 and two OCF2B each.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

volatile uint16_t tov1, ocf1a, ocf1b, tov2, ocf2b;

ISR(TIMER1_OVF_vect) { tov1++; }
ISR(TIMER1_COMPA_vect) { ocf1a++; }
ISR(TIMER1_COMPB_vect) { ocf1b++; }
ISR(TIMER2_OVF_vect) { tov2++; }
ISR(TIMER2_COMPB_vect) { ocf2b++; }

int main(void)
{
	DDRB = _BV(PB1);
	DDRD = _BV(PD3);
	ICR1 = 1000;
	OCR1A = 250;
	OCR1B = 750;
	TIMSK1 = _BV(TOIE1) | _BV(OCIE1A) | _BV(OCIE1B);
	TCCR1A = _BV(COM1A1) | _BV(WGM11);                 /* mode 10: WGM13, WGM11 */
	TCCR1B = _BV(WGM13) | _BV(CS11);                   /* clk/8 */
	OCR2B = 100;
	TIMSK2 = _BV(TOIE2) | _BV(OCIE2B);
	TCCR2A = _BV(COM2B1) | _BV(WGM20);                 /* mode 1 */
	TCCR2B = _BV(CS22);                                /* clk/64 */
	sei();
	for (;;)
		;
}
