/*
 * devsite.h — where a device log meets the firmware's code: the register
 * the tracer's sink writes the log to, found in the ELF so that `avrr
 * device`, `avrr import` and a replay agree on it without being told, and
 * a code address as a message names it (PC, function+offset, file:line).
 */
#ifndef AVRR_DEVSITE_H
#define AVRR_DEVSITE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/firmware.h"
#include "sim/sim.h"
#include "util/err.h"

/* The log's register: `name` when given; else the one register the
 * firmware's own sink (`avrr tracer --log func`: its avrr_log_sink)
 * writes; else the data register (UDRn, SPDR) the tracer's own sink
 * writes (in one of its avrr_log_* functions); else a
 * guess, DEVSITE_FROM_GUESS: UDR0, else UDR.  Its data address, with
 * *chosen its name (the MCU's spelling) and *from (may be NULL) how it
 * was found; or -1 with err. */
#define DEVSITE_FROM_GUESS "the tracer's UART sink's"
int devsite_log_reg(sim *s, const char *name, const char **chosen, const char **from,
		    avrr_err *err);

/* Whether code byte address pc is in one of the tracer's own functions
 * (avrr_*, not the firmware's ISR bodies avrr_body_*): their reads (the
 * UART sink polls UCSRnA) are neither logged by `avrr instrument` nor the
 * device's, so a replay does not feed them. */
int devsite_in_tracer(const firmware *fw, uint32_t pc);

/* The vector of the tracer's own overflow handler of its cycle counter's
 * timer (cycles:K past 16 bits): the one whose entry jumps to the vector
 * route's runtime handler, else, on the header route, TIMER1_OVF; -1 if
 * none.  A replay enters it where the simulator would: it logs nothing. */
int devsite_ovf_vector(sim *s);

/* "Timer3" for the vector of TIMER3_OVF; "Timer1" for -1 (the header
 * route's, and the counter's when it has no overflow handler). */
const char *devsite_timer_name(sim *s, int vector);

/* "PC 0x00554 (main+0x24, uart_poll_rx.c:38)": the code byte address pc,
 * its symbol and, where the ELF has a line table, its source line.  The
 * table is read here, once per call: for a message, not a loop. */
void devsite_where(const firmware *fw, uint32_t pc, char *buf, size_t n);

#endif
