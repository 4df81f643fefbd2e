/*
 * chip_pins.c — writes to PINx (see chip.h).
 *
 * The datasheets of the newer AVRs ("Toggling the Pin"): writing a logic
 * one to PINxn toggles PORTxn, whatever DDRxn; SBI on a register below
 * 0x20 writes the addressed bit alone, so `sbi PINB, 5` toggles PB5 and
 * nothing else.  simavr 1.6 toggles PORTx itself but behind the PORTx
 * callbacks (so a recorder never sees the output change), and runs SBI/CBI
 * as a read of the whole PINx, OR/AND-NOT the bit, and a write of the
 * result, which toggles every pin that reads high.  Here a PINx write
 * becomes a write of the new value to PORTx, through PORTx's callbacks as
 * an OUT would go; SBI/CBI take the bit from the instruction.  The older
 * parts (ATmega8/16/32/128) have read-only PINx: their writes do nothing.
 */
#include "sim/chip.h"
#include "sim/reghook.h"

#include <string.h>

#include <avr_ioport.h>
#include <sim_avr.h>
#include <sim_io.h>

enum { WRAP_PIN = 1 };

int chip_is_pin(const chip *c, uint16_t addr)
{
	const chip_wrap *w = chip_write_wrap_at(c, addr);
	return w && w->kind == WRAP_PIN;
}

int chip_pin_bit_write(const chip *c, uint16_t addr)
{
	return chip_is_pin(c, addr) && reghook_bit_op(c->avr, addr);
}

static void pin_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	chip_wrap *w = param;
	const avr_ioport_t *p = w->dev;
	if (w->c->pins_read_only)
		return;
	uint16_t op = reghook_bit_op(avr, addr);
	uint8_t toggle = !op ? v : (op & 0x0200) ? (uint8_t)(1u << (op & 7)) : 0;
	chip_store(avr, p->r_port, avr->data[p->r_port] ^ toggle);
}

void chip_pins_init(chip *c, const char *mcu)
{
	c->pins_read_only = reghook_rmw_part(mcu);
	for (avr_io_t *port = c->avr->io_port; port; port = port->next) {
		if (!port->kind || strcmp(port->kind, "port"))
			continue;
		avr_ioport_t *p = (avr_ioport_t *)port;
		if (p->r_pin && p->r_port)
			chip_wrap_write(c, p->r_pin, pin_write, p, WRAP_PIN);
	}
}
