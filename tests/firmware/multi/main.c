/*
 * main.c — a pump controller, as a small real project is laid out: the
 * clock, the UART, the buttons and the tank each in a unit of its own,
 * built by a plain Makefile with no simulator section.
 *
 * Commands on the UART: 'f' opens the inlet valve, 'd' closes it, '?'
 * reports.  A report ("L=12 V=1 A=0 P=3\n") also goes out every 100 ms.
 */
#include <avr/interrupt.h>

#include "pump.h"

static void put_num(uint16_t n)
{
	char digits[5];
	uint8_t nd = 0;
	do {
		digits[nd++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	while (nd)
		uart_put(digits[--nd]);
}

static void report(void)
{
	uart_put('L');
	uart_put('=');
	put_num(tank.level);
	uart_put(' ');
	uart_put('V');
	uart_put('=');
	put_num(tank.valve);
	uart_put(' ');
	uart_put('A');
	uart_put('=');
	put_num(tank.alarm);
	uart_put(' ');
	uart_put('P');
	uart_put('=');
	/* Two loads with interrupts on: a press between them would tear the
	 * count (a real race, left in for the analysis to find). */
	put_num(presses);                       /* main: presses */
	uart_put('\n');
}

int main(void)
{
	clock_init();
	uart_init();
	sei();
	buttons_init();
	uint32_t last = 0;
	for (;;) {
		int c = uart_get();
		if (c == 'f')
			tank.valve = 1;                 /* main: open */
		else if (c == 'd')
			tank.valve = 0;
		else if (c == '?')
			report();
		uint32_t now = millis();
		if (now - last >= 100) {
			last = now;
			report();                       /* main: report */
		}
	}
}
