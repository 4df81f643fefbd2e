/*
 * inputs.h — the input set: the registers the outside world feeds, which
 * a device log records and the tracer's instrumentation logs
 * (docs/device.md, "Input reads").  It lives below both: the tracer
 * (fingerprint/tracer.c) generates the logging code, the device log's
 * host side (device/) reads what it logged.  The names keep the device
 * log's prefix, the one place that states the set.
 */
#ifndef AVRR_INPUTS_H
#define AVRR_INPUTS_H

#include <stdint.h>

#include "fingerprint/instrument.h"
#include "sim/avr_decode.h"
#include "sim/firmware.h"
#include "sim/ioregs.h"

/* One register of the input set: its name as the datasheets spell it,
 * the bits the outside world drives (the rest the simulation re-creates;
 * the device logs the byte it read, whole), and those bits in words.
 * The table ends with a NULL name. */
typedef struct devlog_input {
	const char *name;
	uint8_t outside;
	const char *bits;
} devlog_input;
extern const devlog_input devlog_input_table[];
/* The input set: map[a] (a < FP_INPUT_SPACE) is the outside bits of the
 * register at data address a, 0 for a register the simulation re-creates
 * whole.  Returns how many registers of the table the MCU has. */
unsigned devlog_inputs(const mcu_names *names, uint8_t *map);

/* The one rule of what an input read is, which the rewriters that log
 * reads and the replays that feed them must both apply, or a replay
 * waits on a value the log never had: instruction `in` reading data
 * address addr (map as devlog_inputs sets it).  A read of the whole byte
 * (IN, LDS, a load through a pointer) of an input register is one; SBIS
 * and SBIC test one bit, and are one only for an outside bit (a
 * transmitter's wait on UDRE is not: the simulation re-creates it); the
 * read SBI and CBI make to write a bit reaches no register of the
 * program's, and is not. */
int devlog_input_read(const uint8_t *map, const avr_insn *in, unsigned addr);

/* For the rewriters: the data address the instruction reads, when its
 * encoding names it (IN, LDS, SBIS, SBIC), and it is an input read;
 * else -1. */
int devlog_input_insn(const uint8_t *map, const avr_insn *in);

/* For the replays, whose read hooks see the address and the PC: the read
 * of addr by the instruction at code byte address pc of fw (the
 * instruction's own address, not the next one's).  Code that does not
 * decode is judged by the register alone. */
int devlog_input_read_at(const uint8_t *map, const firmware *fw, uint32_t pc, unsigned addr);

#endif
