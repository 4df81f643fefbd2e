// build: -mmcu=atmega328p -DF_CPU=16000000UL -Wl,--defsym=__DATA_REGION_LENGTH__=0xffa0
/*
 * bigdata — static data larger than the ATmega328P's 2 KB of SRAM: 2100
 * bytes of .bss from 0x100 end at 0x934, past RAMEND 0x8ff.  avr-ld lets it
 * through when told the data region is larger (a linker script written for
 * external RAM, or another part's, does that: the first line says so
 * here); avrr must refuse it at open.
 */
#include <avr/io.h>
#include <stdint.h>

#include <avr/avr_mcu_section.h>
AVR_MCU(F_CPU, "atmega328p");

volatile uint8_t big[2100];

int main(void)
{
	for (;;)
		big[PINB] = 1;
}
