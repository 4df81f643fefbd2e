#include "chip.h"
void chip_uart_init(chip *c) { (void)c; }
void chip_uart_reset(chip *c) { (void)c; }
void chip_uart_arrive(struct avr_t *avr, struct avr_uart_t *u, uint8_t byte) { (void)avr; (void)u; (void)byte; }
