// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * eeprom_warn.c — what the EEPROM model cannot simulate, each once, on an
 * ATmega328P with I clear throughout:
 *  1. a write of 0x77 to byte 3 with the reserved EEPM 11, polled;
 *  2. EERIE set, then an SPM page erase (of the empty page at 0x7000):
 *     EE_READY would be held off during it;
 *  3. EERIE cleared and a write of 0x66 to byte 4 started right after the
 *     SPM, which the chip would still be doing;
 *  4. a second SPM page erase while that write runs, which the chip
 *     would block; then EEPE polled, GPIOR0 = 1.
 */
#include <avr/io.h>

int main(void)
{
	EEARH = 0;
	EEARL = 3;
	EEDR = 0x77;
	EECR = _BV(EEPM1) | _BV(EEPM0);
	__asm__ __volatile__("sbi %[eecr], %[eempe]\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "1: sbic %[eecr], %[eepe]\n\t"
			     "rjmp 1b"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [eempe] "I"(EEMPE), [eepe] "I"(EEPE)
			     : "memory");
	EECR = 0;
	EEARL = 4;
	EEDR = 0x66;
	__asm__ __volatile__("sbi %[eecr], %[eerie]\n\t"
			     "ldi r30, 0\n\t"
			     "ldi r31, 0x70\n\t"
			     "ldi r24, %[erase]\n\t"
			     "out %[spmcsr], r24\n\t"
			     "spm\n\t"
			     "cbi %[eecr], %[eerie]\n\t"
			     "sbi %[eecr], %[eempe]\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "out %[spmcsr], r24\n\t"
			     "spm\n\t"
			     "1: sbic %[eecr], %[eepe]\n\t"
			     "rjmp 1b\n\t"
			     "ldi r24, 1\n\t"
			     "out %[gpior0], r24"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [spmcsr] "I"(_SFR_IO_ADDR(SPMCSR)),
			       [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)),
			       [erase] "M"(_BV(PGERS) | _BV(SPMEN)), [eempe] "I"(EEMPE),
			       [eepe] "I"(EEPE), [eerie] "I"(EERIE)
			     : "r24", "r30", "r31", "memory");
	for (;;)
		;
}
