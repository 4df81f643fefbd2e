// build: -mmcu=atmega328p -DF_CPU=20000000UL
/*
 * int0_slow.c — int0_busy.c at 20 MHz, for button presses 10 s apart: the
 * gaps the default fingerprint configuration must outlast
 * (docs/fingerprints.md, "The default configuration").
 */
#define INT0_BUSY_MCU
#include <avr/avr_mcu_section.h>
AVR_MCU(F_CPU, "atmega328p");
#include "int0_busy.c"
