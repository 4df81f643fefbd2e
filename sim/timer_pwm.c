#include "chip.h"
void chip_pwm_init(chip *c) { (void)c; }
