// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * eeprom_sequence.c — the timed sequence on an ATmega328P: EEPE starts a
 * write only within 4 cycles of the write that set EEMPE.  EECR goes to
 * GPIOR1 after each step:
 *  a. EEPE alone (byte 6, 0x11): nothing (0x00);
 *  b. EEMPE and EEPE in one OUT (byte 7, 0x22): EEMPE set (0x04), EEPE
 *     nothing; EEMPE gone 6 cycles later (0x00);
 *  c. EEMPE (byte 8, 0x33), read 2 cycles later (0x04), EEPE 5 cycles
 *     after EEMPE: too late, nothing (0x00);
 *  d. EEMPE (byte 9, 0x44), EEPE 4 cycles after: the write (0x02), polled
 *     to its end; GPIOR0 = 1 then.
 */
#include <avr/io.h>

#define SETUP(addr, data)                                                          \
	do {                                                                       \
		EEARL = (addr);                                                    \
		EEDR = (data);                                                     \
	} while (0)

int main(void)
{
	EEARH = 0;
	/* a */
	SETUP(6, 0x11);
	__asm__ __volatile__("sbi %[eecr], %[eepe]\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[gpior1], r24"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [gpior1] "I"(_SFR_IO_ADDR(GPIOR1)),
			       [eepe] "I"(EEPE)
			     : "r24", "memory");
	/* b */
	SETUP(7, 0x22);
	__asm__ __volatile__("ldi r24, %[both]\n\t"
			     "out %[eecr], r24\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[gpior1], r24\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[gpior1], r24"
			     :
			     : [both] "M"(_BV(EEMPE) | _BV(EEPE)), [eecr] "I"(_SFR_IO_ADDR(EECR)),
			       [gpior1] "I"(_SFR_IO_ADDR(GPIOR1))
			     : "r24", "memory");
	/* c: sbi (2 cycles), in (1), nop, nop: EEPE 5 cycles after EEMPE */
	SETUP(8, 0x33);
	__asm__ __volatile__("sbi %[eecr], %[eempe]\n\t"
			     "in r25, %[eecr]\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[gpior1], r25\n\t"
			     "out %[gpior1], r24"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [gpior1] "I"(_SFR_IO_ADDR(GPIOR1)),
			       [eempe] "I"(EEMPE), [eepe] "I"(EEPE)
			     : "r24", "r25", "memory");
	/* d: sbi (2 cycles), nop, nop: EEPE 4 cycles after EEMPE */
	SETUP(9, 0x44);
	__asm__ __volatile__("sbi %[eecr], %[eempe]\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[gpior1], r24\n\t"
			     "1: sbic %[eecr], %[eepe]\n\t"
			     "rjmp 1b\n\t"
			     "ldi r24, 1\n\t"
			     "out %[gpior0], r24"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)),
			       [gpior1] "I"(_SFR_IO_ADDR(GPIOR1)), [eempe] "I"(EEMPE),
			       [eepe] "I"(EEPE)
			     : "r24", "memory");
	for (;;)
		;
}
