// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * sensors.c — the debugging walk-through's firmware: an ATmega328P at 16 MHz
 * a user might write, with the shapes a debugger must show — a 32-bit
 * uptime, an array of structs, a pointer into it, locals and arguments in a
 * real (noinline) call chain, and UART text output.
 *
 * Timer 0 ticks at 1 kHz (uptime, in ms) and starts an ADC conversion every
 * 4 ms; the ADC interrupt files the sample into the current sensor's slot;
 * INT0 (falling edges on PD2, a button to ground) counts presses and moves
 * `current` to the next sensor.  main's superloop reports each new press on
 * the UART (38400 baud) as text, through a report() -> format_line() chain.
 * Built with -gdwarf-4 (the Makefile's rule), so gdb and the shell see types.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/avr_mcu_section.h>
#include <stdint.h>

AVR_MCU(F_CPU, "atmega328p");

#define NSENSORS 3
#define BAUD_UBRR (F_CPU / 16 / 38400 - 1)

struct sensor {
	uint8_t id;
	uint16_t last;      /* latest ADC sample */
	int16_t offset;     /* calibration, added to each sample */
	uint8_t samples;    /* how many conversions it has had */
};

struct sensor sensors[NSENSORS] = {
	{ .id = 10, .offset = -3 },
	{ .id = 20, .offset = 5 },
	{ .id = 30, .offset = 0 },
};
struct sensor *volatile current = &sensors[0];
volatile uint32_t uptime;
volatile uint8_t presses;
uint16_t history[4];
char line[24];

ISR(TIMER0_COMPA_vect)
{
	uptime++;
	if ((uptime & 3) == 0)
		ADCSRA |= _BV(ADSC);
}

ISR(ADC_vect)
{
	struct sensor *s = current;
	s->last = (uint16_t)(ADC + s->offset);
	s->samples++;
}

ISR(INT0_vect)
{
	presses++;
	current = &sensors[presses % NSENSORS];
}

static void uart_put(char c)
{
	while (!(UCSR0A & _BV(UDRE0)))
		;
	UDR0 = c;
}

/* Writes "S<id>=<value>\n" into buf; returns its length. */
__attribute__((noinline)) static uint8_t format_line(char *buf, uint8_t id, uint16_t value)
{
	uint8_t n = 0;
	char digits[5];
	uint8_t nd = 0;
	buf[n++] = 'S';
	buf[n++] = (char)('0' + id / 10);
	buf[n++] = '=';
	do {
		digits[nd++] = (char)('0' + value % 10);
		value /= 10;
	} while (value && nd < sizeof digits);
	while (nd)
		buf[n++] = digits[--nd];
	buf[n++] = '\n';
	return n;
}

__attribute__((noinline)) static void report(const struct sensor *s, uint8_t slot)
{
	uint8_t len = format_line(line, s->id, s->last);
	history[slot & 3] = s->last;
	for (uint8_t i = 0; i < len; i++)
		uart_put(line[i]);
}

int main(void)
{
	uint8_t reported = 0;

	TCCR0A = _BV(WGM01);
	OCR0A = 249;                             /* 16 MHz / 64 / 250 = 1 kHz */
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = _BV(CS01) | _BV(CS00);
	ADMUX = _BV(REFS0);
	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
	UBRR0 = BAUD_UBRR;
	UCSR0B = _BV(TXEN0);
	PORTD = _BV(PD2);                        /* pull-up on the button */
	EICRA = _BV(ISC01);                      /* INT0 on falling edges */
	EIMSK = _BV(INT0);
	sei();
	for (;;) {
		uint8_t p = presses;
		if (p != reported) {
			reported = p;
			report(current, p);
		}
	}
}
