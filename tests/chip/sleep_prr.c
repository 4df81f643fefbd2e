// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sleep_prr.c — each bit of the ATmega328P's PRR stops its module, which
 * goes on where it stood when the bit is cleared.  GPIOR0, which the test
 * sets before the run, picks the module:
 *   0  Timer0 at clk/64 (PRTIM0), 1  Timer1 at clk/1 (PRTIM1),
 *   2  Timer2 at clk/8, synchronous (PRTIM2),
 *   3  a conversion of the ADC at clk/128 (PRADC),
 *   4  a master byte of the SPI at fosc/128 (PRSPI).
 * The module starts, runs a while, is stopped by its PRR bit for a while
 * longer than its period, and runs again; then the CPU sleeps in idle, so
 * that each interrupt flag rises at its own cycle.  Every handler marks its
 * first instruction in GPIOR1.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay_basic.h>

#define MARK() __asm__ __volatile__("out %[g1], r1" : : [g1] "I"(_SFR_IO_ADDR(GPIOR1)))

ISR(TIMER0_OVF_vect, ISR_NAKED)
{
	MARK();
	reti();
}

ISR(TIMER1_OVF_vect, ISR_NAKED)
{
	MARK();
	reti();
}

ISR(TIMER2_OVF_vect, ISR_NAKED)
{
	MARK();
	reti();
}

ISR(ADC_vect, ISR_NAKED)
{
	MARK();
	reti();
}

ISR(SPI_STC_vect, ISR_NAKED)
{
	MARK();
	reti();
}

/* Runs, with the module's bit set for `hold` loops of 4 cycles. */
static void hold(uint8_t bit, uint16_t before, uint16_t held)
{
	_delay_loop_2(before);
	PRR = bit;
	_delay_loop_2(held);
	PRR = 0;
}

int main(void)
{
	uint8_t which = GPIOR0;
	sei();
	switch (which) {
	case 0:
		TIMSK0 = _BV(TOIE0);
		TCCR0B = _BV(CS01) | _BV(CS00);
		hold(_BV(PRTIM0), 10000, 25000);    /* ~40,000 running, 100,000 held */
		break;
	case 1:
		TIMSK1 = _BV(TOIE1);
		TCCR1B = _BV(CS10);
		hold(_BV(PRTIM1), 20000, 40000);    /* ~80,000, 160,000 */
		break;
	case 2:
		TIMSK2 = _BV(TOIE2);
		TCCR2B = _BV(CS21);
		hold(_BV(PRTIM2), 2000, 25000);     /* ~8,000, 100,000 */
		break;
	case 3:
		ADMUX = _BV(REFS0);
		ADCSRA = _BV(ADEN) | _BV(ADSC) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) |
			 _BV(ADPS0);
		hold(_BV(PRADC), 250, 2500);        /* ~1,000 in, 10,000 held */
		break;
	default:
		DDRB = _BV(DDB2) | _BV(DDB3) | _BV(DDB5);   /* SS an output: no mode fault */
		SPCR = _BV(SPIE) | _BV(SPE) | _BV(MSTR) | _BV(SPR1) | _BV(SPR0);
		SPDR = 0xa5;
		hold(_BV(PRSPI), 50, 1250);         /* ~200 in, 5,000 held */
		break;
	}
	SMCR = _BV(SE);                           /* idle */
	for (;;)
		__asm__ __volatile__("sleep");
}
