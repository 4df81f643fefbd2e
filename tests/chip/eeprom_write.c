// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * eeprom_write.c — one erase-and-write (EEPM 0) of 0x5a to EEPROM byte
 * 0x123 on an ATmega328P, polled.  Reports, each an OUT the test watches:
 *  - GPIOR1: EECR read by the IN right after the SBI that set EEPE (the
 *    CPU halted 2 cycles first: EEPE set, EEMPE gone: 0x02);
 *  - during the write, EEARL and EEDR written (0x00, 0x11) and an EERE
 *    strobed: GPIOR1 gets EEARL (0x23: held) and EEDR (0x11: no read);
 *  - GPIOR0 = 1 once the polling loop sees EEPE clear;
 *  - GPIOR2: the byte read back (EERE, the CPU halted 4 cycles: 0x5a).
 */
#include <avr/io.h>

int main(void)
{
	uint8_t t;
	EEARH = 0x01;
	EEARL = 0x23;
	EEDR = 0x5a;
	__asm__ __volatile__(
		"sbi %[eecr], %[eempe]\n\t"
		"sbi %[eecr], %[eepe]\n\t"
		"in %[t], %[eecr]\n\t"
		"out %[gpior1], %[t]\n\t"
		"out %[eearl], __zero_reg__\n\t"
		"ldi %[t], 0x11\n\t"
		"out %[eedr], %[t]\n\t"
		"sbi %[eecr], %[eere]\n\t"
		"in %[t], %[eearl]\n\t"
		"out %[gpior1], %[t]\n\t"
		"in %[t], %[eedr]\n\t"
		"out %[gpior1], %[t]\n\t"
		"1: sbic %[eecr], %[eepe]\n\t"
		"rjmp 1b\n\t"
		"ldi %[t], 1\n\t"
		"out %[gpior0], %[t]\n\t"
		"sbi %[eecr], %[eere]\n\t"
		"in %[t], %[eedr]\n\t"
		"out %[gpior2], %[t]"
		: [t] "=&d"(t)
		: [eecr] "I"(_SFR_IO_ADDR(EECR)), [eedr] "I"(_SFR_IO_ADDR(EEDR)),
		  [eearl] "I"(_SFR_IO_ADDR(EEARL)), [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)),
		  [gpior1] "I"(_SFR_IO_ADDR(GPIOR1)), [gpior2] "I"(_SFR_IO_ADDR(GPIOR2)),
		  [eempe] "I"(EEMPE), [eepe] "I"(EEPE), [eere] "I"(EERE)
		: "memory");
	for (;;)
		;
}
