// build: -mmcu=atmega88 -DF_CPU=8000000UL
/*
 * atmega88.c — a UART echo with interrupt-driven transmit, a nested timer
 * tick and the watchdog in interrupt mode, for an ATmega88 at 8 MHz.
 *
 * Timer 1 ticks at 1 kHz in an ISR_NOBLOCK handler, so the UART's
 * interrupts nest inside it.  USART0 (19200 baud) receives into one ring
 * buffer and sends from another through its UDRE interrupt; main moves
 * bytes from the one to the other.  The watchdog interrupts every 16 ms.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <avr/avr_mcu_section.h>

AVR_MCU(F_CPU, "atmega88");

#define BAUD_UBRR (F_CPU / 16 / 19200 - 1)

static volatile uint8_t rx[16], tx[16];
static volatile uint8_t rx_head, rx_tail, tx_head, tx_tail;
static volatile uint16_t ticks, dogs;
static volatile uint32_t busy;

ISR(TIMER1_COMPA_vect, ISR_NOBLOCK)
{
	ticks++;
	for (uint8_t i = 0; i < 20; i++)   /* long enough to be interrupted */
		busy += i;
}

ISR(WDT_vect)
{
	dogs++;
	WDTCSR |= _BV(WDIE);              /* stay in interrupt mode */
}

ISR(USART_RX_vect)
{
	uint8_t c = UDR0, next = (uint8_t)((rx_head + 1) & 15);
	if (next != rx_tail) {
		rx[rx_head] = c;
		rx_head = next;
	}
}

ISR(USART_UDRE_vect)
{
	if (tx_head == tx_tail) {
		UCSR0B &= (uint8_t)~_BV(UDRIE0);
		return;
	}
	UDR0 = tx[tx_tail];
	tx_tail = (uint8_t)((tx_tail + 1) & 15);
}

int main(void)
{
	TCCR1B = _BV(WGM12) | _BV(CS11);         /* CTC, 8 MHz / 8 */
	OCR1A = 999;                             /* 1 kHz */
	TIMSK1 = _BV(OCIE1A);
	UBRR0 = BAUD_UBRR;
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
	wdt_reset();
	WDTCSR = _BV(WDCE) | _BV(WDE);
	WDTCSR = _BV(WDIE);                      /* interrupt mode, 16 ms */
	sei();
	for (;;) {
		if (rx_head != rx_tail) {
			uint8_t c = rx[rx_tail], next = (uint8_t)((tx_head + 1) & 15);
			rx_tail = (uint8_t)((rx_tail + 1) & 15);
			if (next != tx_tail) {
				tx[tx_head] = c;
				tx_head = next;
				UCSR0B |= _BV(UDRIE0);
			}
		}
	}
}
