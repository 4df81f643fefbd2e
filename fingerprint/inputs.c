/* inputs.c — the input set (see inputs.h). */
#include "fingerprint/inputs.h"

#include <string.h>

/* The one table of what a device log records as input: the registers,
 * or the bits of a status register, that the pins and the far end of a
 * link set.  A register is logged whole (the device reads a byte): the
 * bits say which part of it the simulation cannot re-create without the
 * outside world, and why the register is here at all.  Internal state
 * (timers, EEPROM, SRAM, a transmitter's UDRE and TXC) is re-created by
 * the simulation, but a status register mixing both is logged for its
 * outside bits: a polled receiver waits on RXC.  A skip on one bit
 * (SBIS/SBIC) reads only that bit, so it is logged only for an outside
 * one: a transmitter's SBIS on UDRE is the simulation's, and is not
 * (devlog_input_read). */
const devlog_input devlog_input_table[] = {
	{ "PINA", 0xff, "pin levels" }, { "PINB", 0xff, "pin levels" },
	{ "PINC", 0xff, "pin levels" }, { "PIND", 0xff, "pin levels" },
	{ "PINE", 0xff, "pin levels" }, { "PINF", 0xff, "pin levels" },
	{ "PING", 0xff, "pin levels" }, { "PINH", 0xff, "pin levels" },
	{ "PINJ", 0xff, "pin levels" }, { "PINK", 0xff, "pin levels" },
	{ "PINL", 0xff, "pin levels" },
	{ "ADCL", 0xff, "a conversion of an analog input" },
	{ "ADCH", 0xff, "a conversion of an analog input" },
	{ "UDR", 0xff, "a received byte" }, { "UDR0", 0xff, "a received byte" },
	{ "UDR1", 0xff, "a received byte" }, { "UDR2", 0xff, "a received byte" },
	{ "UDR3", 0xff, "a received byte" },
	/* RXC 7, FE 4, DOR 3, UPE 2: a byte came, and how it came */
	{ "UCSRA", 0x9c, "RXC, FE, DOR, UPE" }, { "UCSR0A", 0x9c, "RXC, FE, DOR, UPE" },
	{ "UCSR1A", 0x9c, "RXC, FE, DOR, UPE" }, { "UCSR2A", 0x9c, "RXC, FE, DOR, UPE" },
	{ "UCSR3A", 0x9c, "RXC, FE, DOR, UPE" },
	{ "SPDR", 0xff, "a byte shifted in" }, { "SPDR0", 0xff, "a byte shifted in" },
	{ "SPDR1", 0xff, "a byte shifted in" },
	/* SPIF 7: the transfer ended (the master's clock, as a slave);
	 * WCOL 6 */
	{ "SPSR", 0xc0, "SPIF, WCOL" }, { "SPSR0", 0xc0, "SPIF, WCOL" },
	{ "SPSR1", 0xc0, "SPIF, WCOL" },
	{ "USIDR", 0xff, "a byte shifted in" }, { "USIBR", 0xff, "a byte shifted in" },
	{ "TWDR", 0xff, "a byte on the bus" },
	{ "TWSR", 0xf8, "the bus's status code" },
	/* TWINT 7: the bus step ended, when the other side answered */
	{ "TWCR", 0x80, "TWINT" },
	/* ACO 5, ACI 4: the comparator's inputs are pins */
	{ "ACSR", 0x30, "ACO, ACI" },
	{ "ICR1L", 0xff, "a captured edge's time" }, { "ICR1H", 0xff, "a captured edge's time" },
	{ "ICR3L", 0xff, "a captured edge's time" }, { "ICR3H", 0xff, "a captured edge's time" },
	{ "ICR4L", 0xff, "a captured edge's time" }, { "ICR4H", 0xff, "a captured edge's time" },
	{ "ICR5L", 0xff, "a captured edge's time" }, { "ICR5H", 0xff, "a captured edge's time" },
	/* INTFn, PCIFn: an edge on a pin */
	{ "GIFR", 0xff, "the external interrupts' flags" },
	{ "EIFR", 0xff, "the external interrupts' flags" },
	{ "PCIFR", 0xff, "the pin changes' flags" },
	{ NULL, 0, NULL },
};

unsigned devlog_inputs(const mcu_names *names, uint8_t *map)
{
	unsigned n = 0;
	memset(map, 0, FP_INPUT_SPACE);
	for (const devlog_input *p = devlog_input_table; p->name; p++) {
		int a = ioregs_addr(names, p->name);
		if (a >= 0 && a < FP_INPUT_SPACE && !map[a]) {
			/* the table's masks are never 0: 0 is "not an input" */
			map[a] = p->outside;
			n++;
		}
	}
	return n;
}

int devlog_input_read(const uint8_t *map, const avr_insn *in, unsigned addr)
{
	if (addr >= FP_INPUT_SPACE || !map[addr])
		return 0;
	switch (in->op) {
	case AVR_OP_SBIS:
	case AVR_OP_SBIC:
		return map[addr] >> in->bit & 1;
	case AVR_OP_SBI:
	case AVR_OP_CBI:
		return 0;
	default:
		return 1;
	}
}

int devlog_input_insn(const uint8_t *map, const avr_insn *in)
{
	int a = in->op == AVR_OP_IN || in->op == AVR_OP_SBIS || in->op == AVR_OP_SBIC
			? in->io + 0x20
		: in->op == AVR_OP_LDS ? in->data : -1;
	return a >= 0 && devlog_input_read(map, in, (unsigned)a) ? a : -1;
}

int devlog_input_read_at(const uint8_t *map, const firmware *fw, uint32_t pc, unsigned addr)
{
	avr_insn in;
	if (avr_decode(fw->flash, fw->flash_size, pc, &in))
		in.op = AVR_OP_WORD;
	return devlog_input_read(map, &in, addr);
}
