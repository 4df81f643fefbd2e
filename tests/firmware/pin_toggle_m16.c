// build: -mmcu=atmega16 -DF_CPU=8000000UL
/* pin_toggle_m16.c — pin_toggle.c on the ATmega16, whose PINx are read-only. */
#define PIN_TOGGLE_MCU "atmega16"
#include "pin_toggle.c"
