/*
 * log.h — the happens-before log on the simulated machine: which registers
 * it traces and how its events read in words.  The cursor a replay
 * consumes a recorded log with is rerun/cursor.h.
 *
 * Inputs are the registers through which the outside world reaches the CPU
 * (DESIGN.md): PINx, ADC data, UART data and status, SPI and TWI data and
 * status, the analog comparator, and the external interrupt flags; outputs
 * are the ports and the data registers that leave the chip.  Timers, the
 * watchdog and EEPROM are internal and deterministic, so not traced.
 */
#ifndef AVRR_TRACE_LOG_H
#define AVRR_TRACE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"
#include "util/err.h"
#include "trace/event.h"

/* The data addresses of the MCU's input (output) registers.  Returns how
 * many were written to `addrs`. */
unsigned trace_input_registers(const sim *s, uint16_t *addrs, unsigned max);
unsigned trace_output_registers(const sim *s, uint16_t *addrs, unsigned max);
/* Reports CPU reads of every input and writes of every output register
 * through the sim's on_read/on_write hooks. */
int trace_watch_io(sim *s, avrr_err *err);

/* An event in words, with s's register and vector names: "irq vector 1
 * (INT0_vect) ra 0x024c", "read PINB (0x36) = 0x01" (without "= ..." unless
 * with_value). */
void trace_describe(const sim *s, unsigned type, uint32_t addr, uint32_t value,
		    int with_value, char *buf, size_t n);

#endif
