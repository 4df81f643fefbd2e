/*
 * adcapp.c — a sensor node that reports to a control station.
 *
 * Models the ADCApp of "Tracing Interrupts in Embedded Software" (LCTES'09,
 * §5): the program initialises the ADC, the UART and the EEPROM, then spins
 * in an infinite loop reading analog data, sending each reading over the
 * serial line and keeping a circular log of results in the EEPROM.
 *
 * Interrupt sources (ATmega16, 8 MHz):
 *   TIMER1_COMPA  1 kHz system tick; starts a reading every SAMPLE_MS
 *   ADC           conversion complete; oversamples 4x by restarting itself,
 *                 then queues the averaged reading for main
 *   USART_RXC     command byte from the control station -> rx ring
 *   USART_UDRE    transmit data register empty -> next byte of the tx ring
 *
 * Commands (one byte each):  'r' report status,  's' switch to the next
 * channel (0 -> 1 -> 2 -> 0),  'p' pause/resume streaming and logging.
 *
 * Serial line: 38400 baud, 8N1.
 * EEPROM: header (magic, head index) at 0, then EE_SLOTS records of 4 bytes
 * {seq, channel, mV}; one record every LOG_EVERY readings, written from main
 * one byte at a time whenever the EEPROM is ready.
 */
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/eeprom.h>
#include <stdint.h>
#include "avr/avr_mcu_section.h"

AVR_MCU(F_CPU, "atmega16");
AVR_MCU_VOLTAGES(5000, 5000, 5000);

#define BAUD_UBRR   12          /* 8 MHz / (16 * 38400) - 1 */
#define SAMPLE_MS   10          /* one reading every 10 ms */
#define OVERSAMPLE  4           /* conversions averaged per reading */
#define NCHANNELS   3
#define LOG_EVERY   10          /* EEPROM record every 10th reading */
#define TX_SIZE     128         /* transmit ring, a power of two */

#define EE_MAGIC    0xA5C3
#define EE_HDR_HEAD 2           /* byte address of the head index */
#define EE_BASE     16          /* first record */
#define EE_SLOTS    96          /* 96 * 4 bytes = 384 bytes */

/* ---- shared with the interrupt handlers ---- */
struct sample { uint16_t raw; uint8_t ch; };

static volatile uint16_t ms_ticks;
static volatile uint8_t  cur_channel;            /* written by main only */
static volatile uint8_t  sample_q_head, sample_q_tail, sample_q_lost;
static struct sample     sample_q[8];

static volatile uint8_t  rx_head, rx_tail, rx_lost;
static volatile uint8_t  rx_buf[8];

static volatile uint8_t  tx_head, tx_tail;
static volatile uint8_t  tx_buf[TX_SIZE];

/* ADC accumulator, only touched by the timer and ADC handlers */
static uint16_t adc_acc;
static uint8_t  adc_n, adc_busy, sample_div;

/* ---- main-only state ---- */
static uint8_t  paused;
static uint16_t seq, tx_dropped, vmin = 0xffff, vmax;
static uint16_t last_mv;
static uint8_t  ee_head, ee_rec[5], ee_idx, ee_len;  /* pending: ee_idx < ee_len */

ISR(TIMER1_COMPA_vect)
{
	ms_ticks++;
	if ((ms_ticks & 0xff) == 0)
		PORTB ^= _BV(PB0);                       /* heartbeat LED */
	if (++sample_div >= SAMPLE_MS && !adc_busy) {
		sample_div = 0;
		adc_busy = 1;
		adc_acc = 0;
		adc_n = 0;
		ADMUX = _BV(REFS0) | cur_channel;        /* AVCC reference */
		ADCSRA |= _BV(ADSC);
	}
}

ISR(ADC_vect)
{
	adc_acc += ADC;
	if (++adc_n < OVERSAMPLE) {
		ADCSRA |= _BV(ADSC);                     /* next conversion, same channel */
		return;
	}
	adc_busy = 0;
	uint8_t next = (sample_q_head + 1) & 7;
	if (next == sample_q_tail) {
		sample_q_lost++;
		return;
	}
	sample_q[sample_q_head].raw = adc_acc / OVERSAMPLE;
	sample_q[sample_q_head].ch = ADMUX & 0x07;
	sample_q_head = next;
}

ISR(USART_RXC_vect)
{
	uint8_t c = UDR;
	uint8_t next = (rx_head + 1) & 7;
	if (next == rx_tail) {
		rx_lost++;
		return;
	}
	rx_buf[rx_head] = c;
	rx_head = next;
}

ISR(USART_UDRE_vect)
{
	if (tx_tail == tx_head) {
		UCSRB &= ~_BV(UDRIE);                    /* ring empty: stop */
		return;
	}
	UDR = tx_buf[tx_tail];
	tx_tail = (tx_tail + 1) & (TX_SIZE - 1);
}

/* Queue a line for transmission, all or nothing. */
static void send_line(const char *s, uint8_t len)
{
	uint8_t room = (tx_tail - tx_head - 1) & (TX_SIZE - 1);
	if (len > room) {
		tx_dropped++;
		return;
	}
	while (len--) {
		tx_buf[tx_head] = *s++;
		tx_head = (tx_head + 1) & (TX_SIZE - 1);
	}
	UCSRB |= _BV(UDRIE);
}

static char *put_dec(char *p, uint16_t v)
{
	char tmp[5];
	uint8_t n = 0;
	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_field(char *p, char tag, uint16_t v)
{
	*p++ = ' ';
	*p++ = tag;
	*p++ = '=';
	return put_dec(p, v);
}

static void ee_start_record(uint16_t mv, uint8_t ch)
{
	if (ee_idx < ee_len)
		return;                                  /* previous one still going */
	ee_rec[0] = (uint8_t)seq;
	ee_rec[1] = ch;
	ee_rec[2] = (uint8_t)mv;
	ee_rec[3] = mv >> 8;
	ee_idx = 0;
	ee_len = 4;
}

/*
 * Write at most one EEPROM byte per call and never wait for the EEPROM: the
 * four record bytes, then every 8 records the head index in the header.
 */
static void ee_poll(void)
{
	if (ee_idx >= ee_len || !eeprom_is_ready())
		return;
	uint16_t addr = ee_idx < 4 ? EE_BASE + (uint16_t)ee_head * 4 + ee_idx
	                           : EE_HDR_HEAD;
	eeprom_write_byte((uint8_t *)addr, ee_rec[ee_idx]);
	if (++ee_idx == 4) {
		if (++ee_head == EE_SLOTS)
			ee_head = 0;
		if ((ee_head & 7) == 0) {
			ee_rec[4] = ee_head;
			ee_len = 5;
		}
	}
}

static void report(void)
{
	char line[64], *p = line;
	uint8_t prev = ee_head ? ee_head - 1 : EE_SLOTS - 1;
	uint16_t logged = eeprom_read_word((uint16_t *)(EE_BASE + prev * 4 + 2));

	*p++ = '#';
	p = put_field(p, 'n', seq);
	p = put_field(p, 'c', cur_channel);
	p = put_field(p, 'l', vmin);
	p = put_field(p, 'h', vmax);
	p = put_field(p, 'e', ee_head);
	p = put_field(p, 'm', last_mv);
	p = put_field(p, 'v', logged);
	p = put_field(p, 'd', tx_dropped + sample_q_lost + rx_lost);
	*p++ = paused ? 'P' : ' ';
	*p++ = '\r';
	*p++ = '\n';
	send_line(line, p - line);
}

static void command(uint8_t c)
{
	switch (c) {
	case 'r':
		report();
		break;
	case 's':
		cur_channel = (cur_channel + 1) % NCHANNELS;
		vmin = 0xffff;
		vmax = 0;
		break;
	case 'p':
		paused = !paused;
		if (paused)
			PORTB |= _BV(PB1);               /* sbi/cbi: atomic vs. the tick */
		else
			PORTB &= ~_BV(PB1);
		break;
	default:
		send_line("?\r\n", 3);
	}
}

static void reading(const struct sample *s)
{
	char line[24], *p = line;
	uint16_t mv = (uint32_t)s->raw * 5000 / 1023;

	seq++;
	last_mv = mv;
	if (mv < vmin) vmin = mv;
	if (mv > vmax) vmax = mv;
	if (paused)
		return;
	*p++ = 'D';
	*p++ = ',';
	p = put_dec(p, seq);
	*p++ = ',';
	*p++ = '0' + s->ch;
	*p++ = ',';
	p = put_dec(p, mv);
	*p++ = '\r';
	*p++ = '\n';
	send_line(line, p - line);
	if (seq % LOG_EVERY == 0)
		ee_start_record(mv, s->ch);
}

static void init(void)
{
	DDRB = _BV(PB0) | _BV(PB1);                  /* heartbeat, pause LEDs */

	/* datasheet order: UBRRH and UCSRC share an address (URSEL selects) */
	UBRRH = BAUD_UBRR >> 8;
	UBRRL = BAUD_UBRR & 0xff;
	UCSRB = _BV(RXEN) | _BV(TXEN) | _BV(RXCIE);
	UCSRC = _BV(URSEL) | _BV(UCSZ1) | _BV(UCSZ0); /* 8N1 */

	ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1);  /* 125 kHz */

	/* EEPROM: continue the ring where the last run stopped (a blank
	 * EEPROM costs three 8.5 ms writes here, after the UART is up) */
	if (eeprom_read_word((uint16_t *)0) != EE_MAGIC) {
		eeprom_write_word((uint16_t *)0, EE_MAGIC);
		eeprom_write_byte((uint8_t *)EE_HDR_HEAD, 0);
	}
	ee_head = eeprom_read_byte((uint8_t *)EE_HDR_HEAD);
	if (ee_head >= EE_SLOTS)
		ee_head = 0;

	OCR1A = F_CPU / 8 / 1000 - 1;                /* 1 kHz */
	TCCR1B = _BV(WGM12) | _BV(CS11);             /* CTC, clk/8 */
	TIMSK = _BV(OCIE1A);
}

int main(void)
{
	init();
	sei();
	send_line("adcapp ready\r\n", 14);

	for (;;) {
		if (rx_tail != rx_head) {
			uint8_t c = rx_buf[rx_tail];
			rx_tail = (rx_tail + 1) & 7;
			command(c);
		}
		if (sample_q_tail != sample_q_head) {
			struct sample s;
			cli();
			s = sample_q[sample_q_tail];
			sei();
			sample_q_tail = (sample_q_tail + 1) & 7;
			reading(&s);
		}
		ee_poll();
	}
}

/* The EEPROM image programmed with the flash (the ELF's .eeprom, as a
 * programmer writes it): the header of an empty ring, so a first run goes
 * straight to its loop.  A blank EEPROM (all 0xff) would cost the three
 * 8.5 ms writes of init() first, with interrupts still off. */
struct ee_header { uint16_t magic; uint8_t head; };
__attribute__((used)) struct ee_header EEMEM ee_header = { EE_MAGIC, 0 };
