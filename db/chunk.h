/*
 * chunk.h — the compact form of the event log and the ground truth, as
 * stored in event_chunks and interrupt_chunks (docs/schema.md).
 *
 * Private to db/ (and its tests).  An event chunk holds consecutive events
 * as LEB128 varints, each field a delta from the chunk's previous event or
 * left out where the log's rules (trace/event.h) make it derivable: seq from
 * the chunk's first, prev from the context's last event, addr and value of
 * an irq or reti from its context and pc.  A chunk decodes on its own, so
 * the SQL view `events` can decode every chunk independently.  About 7 bytes
 * an event, against 31 as a row of nine integers.
 *
 * An interrupt chunk holds, per interrupt, the stack pointer (2 bytes, LE)
 * and the 8 bytes of the context digest; the rest of an interrupt is its irq
 * event's.
 *
 * A fingerprint chunk holds consecutive fingerprints of one configuration as
 * fixed-width little-endian fields, each as wide as the chunk's widest value
 * of that field needs (so a configuration's bits need not be known here,
 * and a damaged value stays representable for validation to refuse): in
 * `data` ra_part then hash_part; in `keys` (absent once stripped) the first
 * fingerprint's input key as 8 bytes, then each one's input key XOR that
 * first one (a selector without bytes has one key for all, which then
 * takes no bytes per fingerprint).  Fixed widths let the SQL view `fingerprints` pick a fingerprint by
 * offset, and C decode a chunk in one tight loop.  The vector is the n-th
 * irq event's, never stored.
 */
#ifndef AVRR_DB_CHUNK_H
#define AVRR_DB_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define CHUNK_EVENT_MAX 40     /* bytes one event may take, at most */
#define CHUNK_IRQ_SIZE 10      /* bytes per interrupt */
#define CHUNK_FP_FIELD_MAX 8   /* bytes of a fingerprint field, at most */

/* Encodes n consecutive events into out, which has room for
 * n * CHUNK_EVENT_MAX bytes; returns the bytes written, or 0 when an event
 * breaks a rule the encoding relies on (an odd pc; an irq or reti whose addr
 * or value is not derivable). */
size_t chunk_put_events(const trace_event *ev, size_t n, uint8_t *out);

/* Decodes a chunk of `count` events, the first of which is seq `first`,
 * into out.  last_of_ctx carries each context's last seq from chunk to
 * chunk (all zero before the first) and gives each event its prev.  NULL on
 * success, else what is malformed; every value is only as checked as the
 * encoding makes it (the caller checks ranges and rules). */
const char *chunk_get_events(const uint8_t *p, size_t len, uint64_t first, size_t count,
			     uint64_t last_of_ctx[256], trace_event *out);

/* One interrupt's stored part: out must have CHUNK_IRQ_SIZE bytes. */
void chunk_put_irq(uint32_t sp, const uint8_t digest[DB_DIGEST_SIZE], uint8_t *out);
void chunk_get_irq(const uint8_t *p, uint32_t *sp, uint8_t digest[DB_DIGEST_SIZE]);

/* The widths of a fingerprint chunk's fields, in bytes (0 to 8). */
typedef struct chunk_fp_sizes {
	unsigned ra, hash, key;
} chunk_fp_sizes;

/* The narrowest widths that hold n fingerprints' fields. */
chunk_fp_sizes chunk_fp_sizes_of(const db_fingerprint *f, size_t n);
#define CHUNK_FP_KEY_BASE 8    /* bytes of the first key, before the others */

/* Encodes n fingerprints into data (n * (ra + hash) bytes) and, unless
 * keys is NULL, their input keys into keys (CHUNK_FP_KEY_BASE + n * key
 * bytes). */
void chunk_put_fps(const db_fingerprint *f, size_t n, chunk_fp_sizes sz, uint8_t *data,
		   uint8_t *keys);
/* NULL when a chunk of `count` fingerprints with these widths, `data_len`
 * bytes of data and `keys_len` bytes of keys (keys_len < 0: no keys) is
 * well-formed, else what is wrong. */
const char *chunk_fp_check(int64_t count, int64_t ra, int64_t hash, int64_t key,
			   int64_t data_len, int64_t keys_len);
/* Decodes a checked chunk's fields into out[0..n): ra_part, hash_part and,
 * when keys is not NULL, input_key with has_input_key set; the rest of
 * each fingerprint is left as it was. */
void chunk_get_fps(const uint8_t *data, const uint8_t *keys, size_t n, chunk_fp_sizes sz,
		   db_fingerprint *out);

#endif
