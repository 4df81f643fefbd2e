// build: -mmcu=atmega328p -DF_CPU=16000000UL
/* race_tick_atomic.c — race_tick.c with its read in ATOMIC_BLOCK: no race. */
#define FIXED 1
#include "race_tick.c"
