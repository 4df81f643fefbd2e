// build: -mmcu=atmega16 -DF_CPU=8000000UL
/* pinx_write_m16.c — pinx_write.c on the ATmega16, whose PINx are read-only. */
#define PIN_TOGGLE_MCU "atmega16"
#include "pinx_write.c"
