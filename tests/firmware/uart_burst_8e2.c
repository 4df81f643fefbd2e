// build: -mmcu=atmega328p -DF_CPU=16000000UL
/* uart_burst_8e2.c — uart_burst.c with frames of 8 data bits, even parity
 * and 2 stop bits: 1 + 8 + 1 + 2 = 12 bits of 1664 cycles, 19968 a byte. */
#include <avr/io.h>
#define UART_FORMAT (_BV(UPM01) | _BV(USBS0) | _BV(UCSZ01) | _BV(UCSZ00))
#include "uart_burst.c"
