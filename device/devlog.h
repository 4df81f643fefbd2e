/*
 * devlog.h — the device log's host side (docs/device.md): the stream's
 * parser and checks, the firmware's stamp (its own SHA-256 in the header
 * constant), and the CRC-16 the device computes with avr-libc.
 *
 * The parser reads the whole stream before anyone writes anything from
 * it: a damaged, truncated or foreign stream is one message saying the
 * byte offset and the block.
 */
#ifndef AVRR_DEVLOG_H
#define AVRR_DEVLOG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/ioregs.h"
#include "util/err.h"
#include "fingerprint/inputs.h"

#define DEVLOG_ITEM_FP   1
#define DEVLOG_ITEM_READ 2
#define DEVLOG_ITEM_LOSS 3
#define DEVLOG_TAIL 34   /* the header's SHA-256 and CRC: what `stamp` writes */

typedef struct devlog_item {
	uint8_t kind;            /* DEVLOG_ITEM_* */
	uint8_t vector;          /* FP */
	uint8_t value;           /* READ */
	uint16_t lost;           /* LOSS: items lost here */
	uint64_t fp;             /* FP: the fingerprint, as the tracer's ring holds it */
	uint32_t block;          /* the block it came in (0-based) */
	size_t offset;           /* its byte offset in the stream */
} devlog_item;

typedef struct devlog {
	uint8_t version;
	char mcu[64];
	char spec[1024];
	uint8_t fp_bytes;
	uint8_t delta_bits;      /* 0: fingerprints as their bytes; K: LEB128 differences mod 2^K */
	uint8_t fold;            /* 1: up to 3 reads counted in an interrupt item's first byte */
	uint8_t sha256[32];
	uint32_t blocks;
	devlog_item *items;      /* malloc'ed */
	size_t nitems;
	struct {                 /* the stream's bytes by what they carry */
		size_t header, blocks, interrupts, reads, loss;   /* blocks: heads and CRCs */
	} bytes;
} devlog;

/* CRC-16/CCITT as avr-libc's _crc_ccitt_update: reflected 0x8408. */
uint16_t devlog_crc(uint16_t crc, const uint8_t *p, size_t n);

/* Parses and checks d[0..n).  Returns 0, or -1 with err "byte N (block K):
 * WHAT" (or "header: ..."). */
int devlog_parse(const uint8_t *d, size_t n, devlog *out, avrr_err *err);
void devlog_free(devlog *l);

/* The firmware's own hash: SHA-256 of the ELF with the header constant's
 * last DEVLOG_TAIL bytes zeroed.  *tail (may be NULL) gets their file
 * offset.  -1 (err) when the ELF has no avrr_log_header. */
int devlog_elf_hash(const uint8_t *elf, size_t n, uint8_t sha[32], size_t *tail,
		    avrr_err *err);

/* Writes the hash and the header's CRC into elf[0..n) (in memory). */
int devlog_stamp(uint8_t *elf, size_t n, avrr_err *err);



/* The input set, devlog_inputs: fingerprint/inputs.h. */

/* Reads a whole binary file (malloc'ed into *out); -1 with err "PATH: ...". */
int devlog_read_file(const char *path, uint8_t **out, size_t *n, avrr_err *err);
#endif
