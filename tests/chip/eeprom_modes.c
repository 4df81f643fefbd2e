// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * eeprom_modes.c — the EEPM modes on an ATmega328P, over bytes the ELF's
 * .eeprom section loads (0x5a 0xa5 at 0 and 1).  Each write is polled;
 * GPIOR0 = k once the k-th write's polling loop sees EEPE clear, then the
 * byte is read back (EERE) to GPIOR2:
 *  1. erase only (EEPM 01) byte 0; during it a plain 0 written to EECR
 *     (EEPM writes ignored while EEPE is set): EECR to GPIOR1 (0x12);
 *     read back 0xff;
 *  2. write only (EEPM 10) of 0x3c to byte 0, erased: read back 0x3c;
 *  3. write only of 0x0f to byte 1, which holds 0xa5, not erased: read
 *     back 0x05 (programming only clears bits; the datasheet counts the
 *     byte lost, and the model warns).
 */
#include <avr/eeprom.h>
#include <avr/io.h>

__attribute__((used)) uint8_t EEMEM cells[2] = { 0x5a, 0xa5 };

/* Starts the write set up in EEAR/EEDR with EECR's mode bits `mode`, then
 * polls EEPE; GPIOR0 = tag once it reads clear; the byte read back to
 * GPIOR2. */
#define WRITE_POLLED(mode, tag)                                                    \
	__asm__ __volatile__("ldi r24, %[m]\n\t"                                   \
			     "out %[eecr], r24\n\t"                                \
			     "sbi %[eecr], %[eempe]\n\t"                           \
			     "sbi %[eecr], %[eepe]\n\t"                            \
			     "1: sbic %[eecr], %[eepe]\n\t"                        \
			     "rjmp 1b\n\t"                                         \
			     "ldi r24, %[k]\n\t"                                   \
			     "out %[gpior0], r24\n\t"                              \
			     "sbi %[eecr], %[eere]\n\t"                            \
			     "in r24, %[eedr]\n\t"                                 \
			     "out %[gpior2], r24"                                  \
			     :                                                     \
			     : [m] "M"(mode), [k] "M"(tag),                        \
			       [eecr] "I"(_SFR_IO_ADDR(EECR)),                     \
			       [eedr] "I"(_SFR_IO_ADDR(EEDR)),                     \
			       [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)),                 \
			       [gpior2] "I"(_SFR_IO_ADDR(GPIOR2)),                 \
			       [eempe] "I"(EEMPE), [eepe] "I"(EEPE), [eere] "I"(EERE) \
			     : "r24", "memory")

int main(void)
{
	EEARH = 0;
	EEARL = 0;
	/* 1: erase only, with a plain 0 written to EECR while it runs */
	__asm__ __volatile__("ldi r24, %[m]\n\t"
			     "out %[eecr], r24\n\t"
			     "sbi %[eecr], %[eempe]\n\t"
			     "sbi %[eecr], %[eepe]\n\t"
			     "out %[eecr], __zero_reg__\n\t"
			     "in r24, %[eecr]\n\t"
			     "out %[gpior1], r24\n\t"
			     "1: sbic %[eecr], %[eepe]\n\t"
			     "rjmp 1b\n\t"
			     "ldi r24, 1\n\t"
			     "out %[gpior0], r24\n\t"
			     "sbi %[eecr], %[eere]\n\t"
			     "in r24, %[eedr]\n\t"
			     "out %[gpior2], r24"
			     :
			     : [m] "M"(_BV(EEPM0)), [eecr] "I"(_SFR_IO_ADDR(EECR)),
			       [eedr] "I"(_SFR_IO_ADDR(EEDR)), [gpior0] "I"(_SFR_IO_ADDR(GPIOR0)),
			       [gpior1] "I"(_SFR_IO_ADDR(GPIOR1)),
			       [gpior2] "I"(_SFR_IO_ADDR(GPIOR2)), [eempe] "I"(EEMPE),
			       [eepe] "I"(EEPE), [eere] "I"(EERE)
			     : "r24", "memory");
	/* 2: write only to the erased byte */
	EEDR = 0x3c;
	WRITE_POLLED(_BV(EEPM1), 2);
	/* 3: write only to a byte not erased */
	EEARL = 1;
	EEDR = 0x0f;
	WRITE_POLLED(_BV(EEPM1), 3);
	for (;;)
		;
}
