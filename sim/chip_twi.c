#include "chip.h"
void chip_twi_init(chip *c) { (void)c; }
