// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * isr_frames.c — every shape of interrupt handler a debugger must unwind
 * through, for the frame tests (test_frames): each handler's prologue and
 * epilogue as avr-gcc writes them, a handler written by hand, handlers
 * interrupted by handlers, and a call chain under main for them to land in.
 *
 *   TIMER0_COMPA  plain ISR: saves the call-used registers, calls a function
 *                 that saves call-saved ones (r16, r17, r28, r29)
 *   TIMER1_COMPA  ISR_NOBLOCK (sei before the pushes) with locals on the
 *                 stack: rcall .+0 allocation and a frame pointer in Y
 *   TIMER2_COMPA  a frame of 80 bytes (subi/sbci on Y, SP written under
 *                 cli) that enables interrupts in its body with sei()
 *   INT0          ISR_NAKED: its own pushes, in assembly
 *   TIMER2_OVF    EMPTY_INTERRUPT: a bare reti
 *
 * Timer 1 fires every 12000 cycles and runs long, so timer 0 (every 2000)
 * and INT0 (pin edges from isr_frames.stim) land inside it; timer 2's
 * handler re-enables interrupts and is interrupted too.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>
#include <stdint.h>

AVR_MCU(F_CPU, "atmega328p");

volatile uint8_t presses, overflows;
volatile uint16_t ticks, slow_ticks, sum;
volatile uint8_t seed = 7;

__attribute__((noinline)) static uint16_t step(uint16_t a)
{
	return (uint16_t)((a >> 3) + seed);
}

__attribute__((noinline)) static uint16_t mix(uint8_t n)
{
	/* values live across a call: avr-gcc saves call-saved registers */
	uint16_t a = seed, b = 3, c = n;
	for (uint8_t i = 0; i < n; i++) {
		a = (uint16_t)(a * 5 + b);
		b = (uint16_t)(b ^ step(a));
		c = (uint16_t)(c + a + step(b));
	}
	return (uint16_t)(a ^ b ^ c);
}

ISR(TIMER0_COMPA_vect)
{
	ticks++;
	sum = (uint16_t)(sum + mix(3));
}

ISR(TIMER1_COMPA_vect, ISR_NOBLOCK)
{
	volatile uint8_t buf[6];
	for (uint8_t i = 0; i < 6; i++)
		buf[i] = (uint8_t)(seed + i);
	for (uint8_t k = 0; k < 12; k++)    /* long enough to be interrupted */
		sum = (uint16_t)(sum + buf[k % 6]);
	slow_ticks++;
}

ISR(TIMER2_COMPA_vect)
{
	volatile uint8_t big[80];
	for (uint8_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i ^ seed);
	sei();                               /* nested from here on */
	uint16_t s = 0;
	for (uint8_t i = 0; i < sizeof big; i++)
		s = (uint16_t)(s + big[i]);
	sum = (uint16_t)(sum ^ s);
}

ISR(INT0_vect, ISR_NAKED)
{
	__asm__ volatile(
		"push r24\n\t"
		"in r24, __SREG__\n\t"
		"push r24\n\t"
		"lds r24, presses\n\t"
		"subi r24, 0xff\n\t"
		"sts presses, r24\n\t"
		"pop r24\n\t"
		"out __SREG__, r24\n\t"
		"pop r24\n\t"
		"reti\n\t");
}

EMPTY_INTERRUPT(TIMER2_OVF_vect);

__attribute__((noinline)) static void work(uint8_t n)
{
	seed = (uint8_t)(seed + (uint8_t)mix(n));
}

int main(void)
{
	TCCR0A = _BV(WGM01);                  /* CTC, clk/8, every 2000 cycles */
	OCR0A = 249;
	TCCR0B = _BV(CS01);
	TIMSK0 = _BV(OCIE0A);
	TCCR1B = _BV(WGM12) | _BV(CS11);      /* CTC, clk/8, every 12000 cycles */
	OCR1A = 1499;
	TIMSK1 = _BV(OCIE1A);
	TCCR2A = 0;                           /* normal, clk/128: compare and overflow */
	OCR2A = 100;
	TCCR2B = _BV(CS22) | _BV(CS20);
	TIMSK2 = _BV(OCIE2A) | _BV(TOIE2);
	EICRA = _BV(ISC00);                   /* INT0 on any edge */
	EIMSK = _BV(INT0);
	sei();
	for (;;)
		work(4);
}
