/*
 * tracer.h — the device-side tracer: avr-gcc code that records, on the
 * chip, the fingerprints `avrr record` computes in simulation.
 *
 * fp_tracer_write writes a header a firmware includes (`avr-gcc -include
 * tracer.h`, no change to its source): it redefines avr-libc's ISR() so
 * that each handler is entered through a naked stub that saves SREG and
 * the registers a call may clobber (and those the selector names), reads
 * the counter timer, calls avrr_trace_record()
 * with the saved frame, then runs the handler's body as a plain function
 * and restores everything.  From the frame the tracer sees the state at
 * the interrupt point, as the recorder does: the registers, SREG with I
 * set, SP before the return address was pushed, the return address.
 * The fingerprint goes into a ring buffer, avrr_trace_ring, the newest of
 * avrr_trace_count at slot (count - 1) % AVRR_TRACE_SLOTS, as
 * ra_part << state_bits | hash_part in width bits, little-endian.
 *
 * What the device can and cannot see (docs/tracer.md): GP registers, SREG,
 * SP, SRAM and stack:N exactly; other I/O registers as they read at the
 * stub, after the interrupt flag was cleared (not the interrupt point's);
 * cycles:K from a free-running 16-bit Timer1 started in .init0, corrected
 * by the stub's fixed delay; sic:K from the counter avrr_sic, which the
 * post-link rewrite of instrument.h keeps; `all` would need the whole I/O
 * space as it was, so it is refused.
 */
#ifndef AVRR_TRACER_H
#define AVRR_TRACER_H

#include <stdio.h>

#include "util/err.h"
#include "fingerprint/fingerprint.h"

#define FP_TRACER_SLOTS 32   /* ring buffer entries, by default */

/* Writes the tracer for configuration c (parsed for MCU `names`) to out,
 * with `slots` ring buffer entries.  Returns 0, or -1 (err) for what the
 * device cannot record. */
int fp_tracer_write(const fp_config *c, const mcu_names *names, unsigned slots, FILE *out,
		    avrr_err *err);

/* The device log (docs/device.md): where its bytes go, and its buffer. */
typedef enum { FP_LOG_NONE, FP_LOG_UART, FP_LOG_FUNC, FP_LOG_SPI } fp_log_sink;
#define FP_LOG_RING 64       /* a block's payload bytes, by default */
#define FP_LOG_VERSION 2
#define FP_LOG_MAGIC "AVRL"
#define FP_LOG_HEADER_SYMBOL "avrr_log_header"
/* An item's first byte (docs/device.md): 1..127 an interrupt's vector,
 * its fingerprint following; FP_LOG_TAG_READS + n - 1 a run of n input
 * reads' values (n = 1..FP_LOG_RUN_MAX); FP_LOG_TAG_LOSS a loss count. */
#define FP_LOG_TAG_READS 0x80
#define FP_LOG_RUN_MAX 64
#define FP_LOG_TAG_LOSS 0xc0
#define FP_LOG_BLOCK_MARK 0xa5
/* On an MCU whose vectors are all below FP_LOG_FOLD_VECTORS, up to 3
 * reads that follow an interrupt's item are counted in its first byte
 * (bits 5-6, FP_LOG_FOLD_ONE each), their values after its fingerprint:
 * the vector is the low 5 bits. */
#define FP_LOG_FOLD_VECTORS 32
#define FP_LOG_FOLD_MASK 0x60
#define FP_LOG_FOLD_ONE 0x20
typedef struct fp_tracer_log {
	fp_log_sink sink;
	unsigned port;          /* the UART sink's USART: 0 (UDR0, or UDR), 1..3 */
	uint32_t baud;          /* 0: the firmware sets the UART up itself */
	unsigned ring;          /* payload bytes per block, 8..255 */
	int masked;             /* an interrupt's block is sent with interrupts off */
} fp_tracer_log;

/* Parses --log's argument into log->sink and log->port: uart (USART0),
 * uart1..uart3, spi, func and, where none is 1, none.  0, or -1. */
int fp_log_sink_parse(const char *text, int none, fp_tracer_log *log);

/* Why the MCU cannot carry log's sink (no such USART, SPI pins not known),
 * written into why[0..n), or NULL. */
const char *fp_log_sink_check(const fp_tracer_log *log, const mcu_names *names, char *why,
			      size_t n);

/* cycles:K counts with a 16-bit timer (Timer1; on the vector route, the
 * one fp_hookvec_counter chose), free-running at clk/1 from reset: a
 * firmware that sets its mode or clock, writes its count or its own
 * interrupt mask breaks the counter.  The writes fw's code (outside the
 * tracer's own avrr_* functions) makes to Timer `timer`'s TCCRnA, TCCRnB,
 * TCNTnH, TCNTnL and TIMSKn, in address order: the first `max` in w, and
 * how many there are.  A static look: a write through a pointer the code
 * does not set just before is not seen. */
typedef struct fp_timer_write {
	uint32_t pc;          /* byte address */
	uint8_t words;
	const char *reg;      /* the register's name */
	const char *func;     /* the function it is in, or NULL */
} fp_timer_write;
unsigned fp_tracer_timer_writes(const firmware *fw, const mcu_names *names, unsigned timer,
				fp_timer_write *w, unsigned max);

/* How the log carries c's fingerprints: 0, as the ring's bytes; else
 * K, as the difference from the previous one modulo 2^K in LEB128 (the
 * fingerprint is one counter, nothing else, so the difference is small). */
unsigned fp_log_delta_bits(const fp_config *c);

/* 1 if the log folds reads into interrupt items on this MCU (its vectors
 * are all below FP_LOG_FOLD_VECTORS), else 0. */
unsigned fp_log_fold(const mcu_names *names);

/* The largest item c's log holds: an interrupt's (without folded reads,
 * which take room as reads). */
unsigned fp_log_item_max(const fp_config *c);

/* fp_tracer_write with the device log (log NULL or FP_LOG_NONE: none). */
int fp_tracer_write_log(const fp_config *c, const mcu_names *names, unsigned slots,
			const fp_tracer_log *log, FILE *out, avrr_err *err);

/* The vector route (avrr instrument of a finished ELF): the same tracer
 * as a runtime linked on its own and appended to the firmware's flash.
 * The reset vector goes to FP_RT_RESET_SYMBOL (the runtime's .init
 * sections, then the firmware's reset code at reset_target); each hooked
 * vector to FP_RT_HOOK_PREFIX<vector>, which records and then jumps to the
 * firmware's handler; a free TIMER1_OVF vector to FP_RT_OVF_SYMBOL when
 * the cycle counter needs it.  The runtime's variables (.noinit) sit at
 * ram_base, the top of RAM, and its stack below them. */
#define FP_RT_RESET_SYMBOL "avrr_rt_reset"
#define FP_RT_HOOK_PREFIX "avrr_hook_vector_"
#define FP_RT_OVF_SYMBOL "avrr_trace_ovf_isr"
/* What the runtime jumps to in the firmware: symbols the link defines
 * (--defsym) at reset_target and each hook's target. */
#define FP_RT_FW_RESET "avrr_fw_reset"
#define FP_RT_FW_VECTOR_PREFIX "avrr_fw_vector_"
typedef struct fp_tracer_hooks {
	uint32_t reset_target;      /* byte address */
	uint8_t counter_timer;      /* cycles:K's timer: 1, 3, 4 or 5 (0: 1) */
	uint16_t ram_base;          /* data address of the runtime's first byte */
	unsigned nhooks;
	struct { uint8_t vector; uint32_t target; } hook[128];
} fp_tracer_hooks;

/* Writes the runtime as C for avr-gcc.  Refuses sic:K (its counter needs
 * a rewrite that moves code). */
int fp_tracer_write_runtime(const fp_config *c, const mcu_names *names, unsigned slots,
			    const fp_tracer_log *log, const fp_tracer_hooks *hooks, FILE *out,
			    avrr_err *err);

/* A vector route stub's own cycles, from the vector's jump to the jump
 * into the firmware's handler, the record function aside. */
unsigned fp_tracer_hook_cycles(const fp_config *c, int log, uint32_t flash_size);

#endif
