// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * race_tick.c — a seeded ISR/main race, for `avrr analyze races`: the
 * timer 0 overflow ISR increments a 16-bit tick, and main reads it without
 * ATOMIC_BLOCK, in two loads an interrupt can come between (a torn read).
 * Built with -DFIXED (race_tick_atomic.c) the read is atomic.
 *
 * spin() is a routine of hand-counted cycles for `avrr analyze profile`:
 * three NOPs and a RET, 3 + 4 = 7 cycles a call on a 16-bit-PC part.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

volatile uint16_t tick;
volatile uint16_t seen;

ISR(TIMER0_OVF_vect)
{
	tick++;
}

static uint16_t read_tick(void)
{
#ifdef FIXED
	uint16_t t;
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		t = tick;
	}
	return t;
#else
	return tick;
#endif
}

__attribute__((noinline)) void spin(void)
{
	__asm__ volatile("nop\n\tnop\n\tnop" ::: "memory");
}

int main(void)
{
	DDRB = 0xff;
	TCCR0B = _BV(CS00);     /* clk/1: an overflow every 256 cycles */
	TIMSK0 = _BV(TOIE0);
	sei();
	for (;;) {
		uint16_t t = read_tick();
		if (t != seen) {
			seen = t;
			PORTB = (uint8_t)t;
		}
		spin();
	}
}
