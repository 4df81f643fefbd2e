// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * funcsheap_big.c — funcsheap_noloop grown to about the paper's size.
 *
 * The paper's applications take about 14 KB of an ATmega16's program
 * memory (EPOS under them); the bundled ones take about 2 KB.  This is
 * traces/funcsheap.c without its delay loop (funcsheap_noloop; included
 * whole, its main renamed and left unused) whose main loop, after func_a,
 * also runs 150 generated functions, each a short loop over the globals, so
 * that the code and the interrupts' return addresses spread over ~14 KB.
 * make figures records it beside funcsheap_noloop to test what the
 * size of the firmware changes (results/size.csv).
 */
#define FUNCSHEAP_NOLOOP
#define main funcsheap_main
#include "../../traces/funcsheap.c"
#undef main

/* pad_P(x): a few turns of a shift-xor over x, folded into g_acc; the
 * constants differ per function (__COUNTER__) so none are merged. */
#define PAD(p) \
	static uint16_t pad_##p(uint16_t x) __attribute__((noinline, noclone)); \
	static uint16_t pad_##p(uint16_t x) \
	{ \
		for (uint8_t i = 0; i < (__COUNTER__ % 5) + 2; i++) { \
			x = (x << 1) ^ (x >> 3) ^ (uint16_t)(__COUNTER__ * 40503u); \
			g_acc += (int16_t)(x & 0xff) - (int16_t)g_led; \
		} \
		return x; \
	}
#define CALL(p) x = pad_##p(x);
#define D10(M, p) M(p##_0) M(p##_1) M(p##_2) M(p##_3) M(p##_4) \
	M(p##_5) M(p##_6) M(p##_7) M(p##_8) M(p##_9)
#define D150(M) D10(M, a) D10(M, b) D10(M, c) D10(M, d) D10(M, e) D10(M, f) \
	D10(M, g) D10(M, h) D10(M, i) D10(M, j) D10(M, k) D10(M, l) \
	D10(M, m) D10(M, n) D10(M, o)

D150(PAD)

int main(void)
{
	uint16_t x = 1;

	DDRB = 0xf0 | _BV(PB3) | _BV(PB2);           /* as funcsheap's main */
	OCR2 = F_CPU / 64 / 1000 - 1;
	TCCR2 = _BV(WGM21) | _BV(CS22);
	TCCR0 = _BV(CS01) | _BV(CS00);
	TIMSK = _BV(OCIE2) | _BV(TOIE0);
	ADMUX = _BV(REFS0);
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1);
	MCUCR = _BV(ISC01) | _BV(ISC00);
	GICR = _BV(INT0);
	sei();

	for (;;) {
		g_led = (g_led << 1) | !(g_led & 0x08);
		g_led &= 0x0f;
		ATOMIC_BLOCK(ATOMIC_FORCEON)
			PORTB = (PORTB & 0x0f) | (g_led << 4);
		func_a();
		D150(CALL)
	}
}
