// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * races_enable.c — `analyze races` and the competing vector's own enable
 * bit.  A stepper ISR (Timer 0 overflow) moves a 3-axis position, a tick
 * ISR (Timer 1 compare A) counts milliseconds, and main copies both in
 * plain loads with I set, in two phases of each turn of its loop:
 *
 *   phase A: TOIE0 off, OCIE1A on — the copy of `pos` cannot be torn (its
 *            writer is switched off), the read of `ms` can;
 *   phase B: TOIE0 on, OCIE1A off — the other way round.
 *
 * So of the eight split reads (pos.x, pos.y, pos.z and ms, in each phase)
 * four are true races — pos.x, pos.y, pos.z in phase B and ms in phase A
 * — and four are not, since only the disabled source's ISR writes there.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

struct axes {
	int16_t x, y, z;
};

volatile struct axes pos;       /* the stepper ISR's */
volatile uint16_t ms;           /* the tick ISR's */
volatile struct axes seen_a, seen_b;
volatile uint16_t ms_a, ms_b;

ISR(TIMER0_OVF_vect)
{
	pos.x += 1;
	pos.y += 2;
	pos.z -= 1;
}

ISR(TIMER1_COMPA_vect)
{
	ms++;
}

int main(void)
{
	TCCR0B = _BV(CS00);             /* clk/1: an overflow every 256 cycles */
	OCR1A = 199;
	TCCR1B = _BV(WGM12) | _BV(CS10); /* CTC, a compare every 200 cycles */
	sei();
	for (;;) {
		/* phase A: the stepper stopped, the tick running */
		TIMSK0 = 0;
		TIMSK1 = _BV(OCIE1A);
		seen_a.x = pos.x;
		seen_a.y = pos.y;
		seen_a.z = pos.z;
		ms_a = ms;
		/* phase B: the stepper running, the tick stopped */
		TIMSK1 = 0;
		TIMSK0 = _BV(TOIE0);
		seen_b.x = pos.x;
		seen_b.y = pos.y;
		seen_b.z = pos.z;
		ms_b = ms;
		for (uint8_t i = 0; i < 40; i++)
			__asm__ volatile("nop");
	}
}
