// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * eeprom_m16.c — the ATmega16's EEPROM: EEMWE/EEWE, no EEPM, 512 bytes
 * (EEAR8 the only bit of EEARH), one 8.5 ms time.  EECR and the other
 * reports go to PORTC:
 *  - EEARH written 0xff reads 0x01;
 *  - EEWE alone: nothing (EECR 0x00);
 *  - 0xc3 to byte 0x1ff: EEMWE, EEWE (EECR 0x02), EERIE set, I set, the CPU
 *    sleeps (idle): EE_RDY wakes it at the write's end; the handler clears
 *    EERIE and writes 1 to PORTB; the byte read back (0xc3).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

ISR(EE_RDY_vect)
{
	EECR &= (uint8_t)~_BV(EERIE);
	PORTB = 1;
}

int main(void)
{
	EEARH = 0xff;
	PORTC = EEARH;
	EEARL = 0xff;
	EEDR = 0xc3;
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
	__asm__ __volatile__("sbi %[eecr], %[eewe]\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[portc], r24\n\t"
			     "sbi %[eecr], %[eemwe]\n\t"
			     "sbi %[eecr], %[eewe]\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[portc], r24\n\t"
			     "sbi %[eecr], %[eerie]\n\t"
			     "sei\n\t"
			     "sleep"
			     :
			     : [eecr] "I"(_SFR_IO_ADDR(EECR)), [portc] "I"(_SFR_IO_ADDR(PORTC)),
			       [eemwe] "I"(EEMWE), [eewe] "I"(EEWE), [eerie] "I"(EERIE)
			     : "r24", "memory");
	while (EECR & _BV(EEWE))
		;
	EECR |= _BV(EERE);
	PORTC = EEDR;
	for (;;)
		;
}
