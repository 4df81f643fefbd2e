// build: -mmcu=atmega328p -DF_CPU=16000000UL
/* pwm_reserved_quiet.c — pwm_reserved.c with OC1A disconnected. */
#define PWM_RESERVED_COM 0
#include "pwm_reserved.c"
