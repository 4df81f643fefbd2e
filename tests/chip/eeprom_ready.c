// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * eeprom_ready.c — EE_READY as a level on an ATmega328P.
 *  1. With I set and the EEPROM idle, EERIE is set: the interrupt is due
 *     at once.  The handler writes r25 to GPIOR0 and counts r24 down from
 *     5, clearing EERIE at 0; main's only work is INC r25, so each report
 *     counts the instructions main ran between two entries.  While EERIE
 *     stays set the interrupt comes again after every RETI: 5 entries.
 *  2. r25 = 0xee, r24 = 1: a write of 0x77 to byte 0x10 starts, EERIE is
 *     set while it runs (nothing: EEPE = 1), and the CPU sleeps (idle):
 *     the interrupt wakes it at the write's end, once.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(EE_READY_vect, ISR_NAKED)
{
	__asm__ __volatile__("out %[gpior0], r25\n\t"
			     "dec r24\n\t"
			     "brne 1f\n\t"
			     "cbi %[eecr], %[eerie]\n\t"
			     "1: reti"
			     :
			     : [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)), [eecr] "I"(_SFR_IO_ADDR(EECR)),
			       [eerie] "I"(EERIE));
}

int main(void)
{
	EEARH = 0;
	EEARL = 0x10;
	EEDR = 0x77;
	SMCR = _BV(SE); /* idle */
	__asm__ __volatile__("ldi r24, 5\n\t"
			     "clr r25\n\t"
			     "sei\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "sbi %[eecr], %[eerie]\n\t"
			     ".rept 32\n\t"
			     "inc r25\n\t"
			     ".endr\n\t"
			     "ldi r24, 1\n\t"
			     "ldi r25, 0xee\n\t"
			     "sbi %[eecr], %[eempe]\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "sbi %[eecr], %[eerie]\n\t"
			     "sleep\n\t"
			     "2: rjmp 2b"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [eerie] "I"(EERIE),
			       [eempe] "I"(EEMPE), [eepe] "I"(EEPE)
			     : "r24", "r25", "memory");
	for (;;)
		;
}
