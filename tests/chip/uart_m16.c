// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * uart_m16.c — the ATmega16's USART, whose UBRRH and UCSRC share an I/O
 * address (URSEL selects on a write; a read returns UBRRH, or UCSRC when
 * the address was read in the cycle before: IN, IN).  PORTC gets, in
 * order: UBRRH and UCSRC as reset left them (00 86), UCSRB (00: TXEN
 * clear); after UBRRH = 0, UBRRL = 12 (38400 baud: 208 cycles a bit) and
 * UCSRC = URSEL | UPM1 | USBS | UCSZ1:0 (8E2, 12 bits: 2,496 a frame)
 * the pair again (00 ae) and a single read (00); then 0x55 and 0xaa go
 * out back to back, and TXC (60); last, the byte the test sends.
 */
#include <avr/io.h>

static void read_pair(void)
{
	uint8_t h, c;
	__asm__ volatile("in %0, %2\n\tin %1, %2" : "=&r"(h), "=r"(c) : "I"(_SFR_IO_ADDR(UCSRC)));
	PORTC = h;
	PORTC = c;
}

int main(void)
{
	read_pair();
	PORTC = UCSRB;
	UBRRH = 0;
	UBRRL = 12;
	UCSRC = _BV(URSEL) | _BV(UPM1) | _BV(USBS) | _BV(UCSZ1) | _BV(UCSZ0);
	read_pair();
	PORTC = UBRRH;
	UCSRB = _BV(TXEN) | _BV(RXEN);
	UDR = 0x55;
	while (!(UCSRA & _BV(UDRE)))
		;
	UDR = 0xaa;
	while (!(UCSRA & _BV(TXC)))
		;
	PORTC = UCSRA;
	while (!(UCSRA & _BV(RXC)))
		;
	PORTC = UDR;
	for (;;)
		;
}
