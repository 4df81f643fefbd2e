/* ioregs.c — lookup in the generated name tables (see ioregs.h). */
#include "sim/ioregs.h"

#include <string.h>

const mcu_names *ioregs_lookup(const char *mcu)
{
	for (unsigned i = 0; i < ioregs_nmcus; i++)
		if (!strcmp(ioregs_mcus[i].mcu, mcu))
			return &ioregs_mcus[i];
	return NULL;
}

int ioregs_addr(const mcu_names *names, const char *name)
{
	for (unsigned i = 0; names && i < names->nregs; i++)
		if (!strcmp(names->regs[i].name, name))
			return names->regs[i].addr;
	return -1;
}

const char *ioregs_name(const mcu_names *names, uint16_t addr)
{
	for (unsigned i = 0; names && i < names->nregs; i++)
		if (names->regs[i].addr == addr)
			return names->regs[i].name;
	return NULL;
}

const char *ioregs_vector_name(const mcu_names *names, unsigned vector)
{
	for (unsigned i = 0; names && i < names->nvectors; i++)
		if (names->vectors[i].addr == vector)
			return names->vectors[i].name;
	return NULL;
}

uint16_t ioregs_io_end(const mcu_names *names)
{
	for (unsigned i = 0; names && i < names->nregs; i++)
		if (names->regs[i].addr >= 0x60)
			return 0x100;
	return 0x60;
}
