/*
 * chip.c — the fixes' common part (see chip.h): wrapping simavr's I/O
 * callbacks, and setting the fixes up and down.
 */
#include "sim/chip.h"

#include <stdlib.h>

#include <sim_avr.h>
#include <sim_io.h>

chip *chip_open(struct avr_t *avr, const char *mcu)
{
	chip *c = calloc(1, sizeof *c);
	if (!c || !(c->wraps = calloc(2 * MAX_IOs, sizeof *c->wraps))) {
		free(c);
		return NULL;
	}
	c->avr = avr;
	chip_pins_init(c, mcu);
	return c;
}

void chip_close(chip *c)
{
	if (!c)
		return;
	free(c->wraps);
	free(c);
}

static int io_slot(const chip *c, uint16_t addr)
{
	if (addr < 32 || addr >= 32 + MAX_IOs || addr > c->avr->ioend)
		return -1;
	return AVR_DATA_TO_IO(addr);
}

chip_wrap *chip_read_wrap_at(const chip *c, uint16_t addr)
{
	int io = io_slot(c, addr);
	return io < 0 || !c->wraps[io].c ? NULL : &c->wraps[io];
}

chip_wrap *chip_write_wrap_at(const chip *c, uint16_t addr)
{
	int io = io_slot(c, addr);
	return io < 0 || !c->wraps[MAX_IOs + io].c ? NULL : &c->wraps[MAX_IOs + io];
}

chip_wrap *chip_wrap_read(chip *c, uint16_t addr, avr_io_read_t fn, void *dev, int kind)
{
	int io = io_slot(c, addr);
	if (io < 0 || c->wraps[io].c)
		return NULL;
	chip_wrap *w = &c->wraps[io];
	*w = (chip_wrap){ .c = c, .orig_read = c->avr->io[io].r.c,
			  .orig_param = c->avr->io[io].r.param, .dev = dev, .kind = kind };
	c->avr->io[io].r.c = fn;
	c->avr->io[io].r.param = w;
	return w;
}

chip_wrap *chip_wrap_write(chip *c, uint16_t addr, avr_io_write_t fn, void *dev, int kind)
{
	int io = io_slot(c, addr);
	if (io < 0 || c->wraps[MAX_IOs + io].c)
		return NULL;
	chip_wrap *w = &c->wraps[MAX_IOs + io];
	*w = (chip_wrap){ .c = c, .orig_write = c->avr->io[io].w.c,
			  .orig_param = c->avr->io[io].w.param, .dev = dev, .kind = kind };
	c->avr->io[io].w.c = fn;
	c->avr->io[io].w.param = w;
	return w;
}

uint8_t chip_orig_read(chip_wrap *w, struct avr_t *avr, uint16_t addr)
{
	return w->orig_read ? w->orig_read(avr, addr, w->orig_param) : avr->data[addr];
}

void chip_orig_write(chip_wrap *w, struct avr_t *avr, uint16_t addr, uint8_t v)
{
	if (w->orig_write)
		w->orig_write(avr, addr, v, w->orig_param);
	else
		avr->data[addr] = v;
}

void chip_store(struct avr_t *avr, uint16_t addr, uint8_t v)
{
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	if (avr->io[io].w.c)
		avr->io[io].w.c(avr, addr, v, avr->io[io].w.param);
	else
		avr->data[addr] = v;
}
