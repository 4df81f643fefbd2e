// build: -mmcu=atmega2560 -DF_CPU=16000000UL
/*
 * eeprom_m2560.c — the ATmega2560's EEPROM: 4 KB (EEAR11:0), EEPM as the
 * ATmega328P's.  Reports:
 *  - GPIOR1: EEARH written 0xff reads 0x0f;
 *  - 0x96 to byte 0xfff, erase and write, polled: GPIOR0 = 1 at the end,
 *    the byte read back to GPIOR2 (0x96);
 *  - EERIE set while idle (I set): EE_READY at once; the handler clears
 *    EERIE and writes 2 to GPIOR0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

ISR(EE_READY_vect)
{
	EECR &= (uint8_t)~_BV(EERIE);
	GPIOR0 = 2;
}

int main(void)
{
	EEARH = 0xff;
	GPIOR1 = EEARH;
	EEARL = 0xff;
	EEDR = 0x96;
	__asm__ __volatile__("out %[eecr], __zero_reg__\n\t"
			     "sbi %[eecr], %[eempe]\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "1: sbic %[eecr], %[eepe]\n\t"
			     "rjmp 1b\n\t"
			     "ldi r24, 1\n\t"
			     "out %[gpior0], r24\n\t"
			     "sbi %[eecr], %[eere]\n\t"
			     "in r24, %[eedr]\n\t"
			     "out %[gpior2], r24\n\t"
			     "sei\n\t"
			     "nop\n\t"
			     "nop\n\t"
			     "sbi %[eecr], %[eerie]"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [eedr] "I"(_SFR_IO_ADDR(EEDR)),
			       [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)), [gpior2] "I"(_SFR_IO_ADDR(GPIOR2)),
			       [eempe] "I"(EEMPE), [eepe] "I"(EEPE), [eere] "I"(EERE),
			       [eerie] "I"(EERIE)
			     : "r24", "memory");
	for (;;)
		;
}
