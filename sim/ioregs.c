/* ioregs.c — lookup in the generated name tables (see ioregs.h). */
#include "ioregs.h"

#include <string.h>

const mcu_names *ioregs_lookup(const char *mcu)
{
	for (unsigned i = 0; i < ioregs_nmcus; i++)
		if (!strcmp(ioregs_mcus[i].mcu, mcu))
			return &ioregs_mcus[i];
	return NULL;
}
