// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * pinx_write.c — PB5 toggled through PINB, the datasheet's "Toggling the
 * Pin" idiom, by each instruction that can write PINB: OUT (10 times), SBI
 * (10), STS (10); then CBI (5), which writes a 0 and toggles nothing.
 * PB0 is an input with its pull-up on, so it reads high: an SBI done as a
 * read-modify-write of all of PINB would toggle it too.  The program never
 * reads PINB.  (pinx_write_m16.c builds it for a part whose PINx are
 * read-only.)
 */
#include <avr/io.h>
#include <avr/avr_mcu_section.h>

#ifndef PIN_TOGGLE_MCU
#define PIN_TOGGLE_MCU "atmega328p"
#endif
AVR_MCU(F_CPU, PIN_TOGGLE_MCU);

#define PINB_IO _SFR_IO_ADDR(PINB)

int main(void)
{
	DDRB = _BV(PB5);
	PORTB = _BV(PB0);
	for (uint8_t i = 0; i < 10; i++)
		__asm__ volatile("out %0, %1" ::"I"(PINB_IO), "r"((uint8_t)_BV(PB5)));
	for (uint8_t i = 0; i < 10; i++)
		__asm__ volatile("sbi %0, %1" ::"I"(PINB_IO), "I"(PB5));
	for (uint8_t i = 0; i < 10; i++)
		__asm__ volatile("sts %0, %1" ::"i"(_SFR_MEM_ADDR(PINB)), "r"((uint8_t)_BV(PB5)));
	for (uint8_t i = 0; i < 5; i++)
		__asm__ volatile("cbi %0, %1" ::"I"(PINB_IO), "I"(PB5));
	__asm__ volatile("cli\n\tsleep");
	for (;;)
		;
}
