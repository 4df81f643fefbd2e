// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * wdt_reset.c — the watchdog in reset mode, on an ATmega328P at 16 MHz.
 *
 * Timer 0 ticks at 1 kHz; main counts the ticks and never resets the
 * watchdog, so every 16 ms it resets the chip.  A counter in .noinit
 * survives the resets and goes out on PORTB, so the log shows each boot.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega328p");

static uint8_t boots __attribute__((section(".noinit")));
static volatile uint16_t ticks;

ISR(TIMER0_COMPA_vect)
{
	ticks++;
}

int main(void)
{
	MCUSR = 0;
	boots++;
	PORTB = boots;
	DDRB = 0xff;
	TCCR0A = _BV(WGM01);              /* CTC */
	OCR0A = 249;                      /* 16 MHz / 64 / 250 = 1 kHz */
	TIMSK0 = _BV(OCIE0A);
	TCCR0B = _BV(CS01) | _BV(CS00);
	wdt_enable(WDTO_15MS);
	sei();
	for (;;) {
		uint16_t t;
		cli();
		t = ticks;
		sei();
		PORTC = (uint8_t)t;
	}
}
