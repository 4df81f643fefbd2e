/*
 * chunk.c — the compact event log (see chunk.h).
 *
 * Written by hand rather than with a compression library: the encoding must
 * stay decodable by plain SQL (the `events` view in schema.c walks it byte by
 * byte), which rules out deflate and its kin.
 *
 * An event is 4 varints, 6 for a read or write:
 *   head    type | (ctx + 1) << TRACE_TYPE_BITS when ctx differs from the previous
 *           event's in the chunk (always for its first), else type
 *   dicount icount - the previous event's icount
 *   dextra  zigzag of (cycle - icount) - the previous event's (cycle - icount)
 *   pcw     pc / 2 (instructions are word-aligned)
 *   addr, value   for reads and writes only
 *
 * Fingerprints are fixed-width fields instead (chunk.h): their hash parts
 * are uniformly spread, which varints would only lengthen.
 */
#include "db/chunk.h"

#include <string.h>

#include "util/le.h"

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads a varint of at most 64 bits at *p (below end); -1 when truncated or
 * too long. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		if (shift == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

size_t chunk_put_events(const trace_event *ev, size_t n, uint8_t *out)
{
	uint8_t *p = out;
	uint64_t icount = 0, extra = 0;
	int64_t ctx = -1;
	for (size_t i = 0; i < n; i++) {
		const trace_event *e = &ev[i];
		uint32_t addr, value;
		trace_implied(e->type, e->ctx, e->pc, &addr, &value);
		if ((e->pc & 1) || e->ctx > 255 || e->cycle < e->icount ||
		    (!trace_has_operands(e->type) && (e->addr != addr || e->value != value)))
			return 0;
		uint64_t head = e->type;
		if ((int64_t)e->ctx != ctx)
			head |= (uint64_t)(e->ctx + 1) << TRACE_TYPE_BITS;
		p = put_varint(p, head);
		p = put_varint(p, e->icount - icount);
		int64_t d = (int64_t)(e->cycle - e->icount) - (int64_t)extra;
		p = put_varint(p, d < 0 ? ((uint64_t)-(d + 1) << 1) | 1 : (uint64_t)d << 1);
		p = put_varint(p, e->pc >> 1);
		if (trace_has_operands(e->type)) {
			p = put_varint(p, e->addr);
			p = put_varint(p, e->value);
		}
		ctx = e->ctx;
		icount = e->icount;
		extra = e->cycle - e->icount;
	}
	return (size_t)(p - out);
}

const char *chunk_get_events(const uint8_t *p, size_t len, uint64_t first, size_t count,
			     uint64_t last_of_ctx[256], trace_event *out)
{
	const uint8_t *end = p + len;
	uint64_t icount = 0, extra = 0, ctx = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t head, dicount, dextra, pcw, addr = 0, value = 0;
		if (get_varint(&p, end, &head) || get_varint(&p, end, &dicount) ||
		    get_varint(&p, end, &dextra) || get_varint(&p, end, &pcw))
			return "an event is cut short or has an overlong number";
		uint32_t type = (uint32_t)(head & TRACE_TYPE_MAX);
		if (trace_has_operands(type) && (get_varint(&p, end, &addr) || get_varint(&p, end, &value)))
			return "an event is cut short or has an overlong number";
		if (head >> TRACE_TYPE_BITS)
			ctx = (head >> TRACE_TYPE_BITS) - 1;
		else if (!i)
			return "the chunk's first event does not name its context";
		uint64_t d = dextra & 1 ? ~(dextra >> 1) : dextra >> 1;
		if (ctx > 255 || dicount > UINT64_MAX - icount || pcw > UINT32_MAX / 2 ||
		    addr > UINT32_MAX || value > UINT32_MAX)
			return "an event's number is out of range";
		icount += dicount;
		extra += d;  /* modulo 2^64: a wrapped sum fails the cycle checks */
		trace_event *e = &out[i];
		*e = (trace_event){
			.seq = first + i, .prev = last_of_ctx[ctx], .ctx = (uint32_t)ctx, .type = type,
			.icount = icount, .cycle = icount + extra, .pc = (uint32_t)pcw << 1,
			.addr = (uint32_t)addr, .value = (uint32_t)value,
		};
		if (!trace_has_operands(type))
			trace_implied(type, e->ctx, e->pc, &e->addr, &e->value);
		last_of_ctx[ctx] = e->seq;
	}
	return p == end ? NULL : "the chunk has bytes after its last event";
}

void chunk_put_irq(uint32_t sp, const uint8_t digest[DB_DIGEST_SIZE], uint8_t *out)
{
	out[0] = (uint8_t)sp;
	out[1] = (uint8_t)(sp >> 8);
	memcpy(out + 2, digest, DB_DIGEST_SIZE);
}

void chunk_get_irq(const uint8_t *p, uint32_t *sp, uint8_t digest[DB_DIGEST_SIZE])
{
	*sp = (uint32_t)p[0] | (uint32_t)p[1] << 8;
	memcpy(digest, p + 2, DB_DIGEST_SIZE);
}

/* Bytes that hold v. */
static unsigned width_of(uint64_t v)
{
	unsigned w = 0;
	for (; v; v >>= 8)
		w++;
	return w;
}

chunk_fp_sizes chunk_fp_sizes_of(const db_fingerprint *f, size_t n)
{
	uint64_t ra = 0, hash = 0, key = 0;
	for (size_t i = 0; i < n; i++) {
		ra |= f[i].ra_part;
		hash |= f[i].hash_part;
		key |= f[i].input_key ^ f[0].input_key;
	}
	return (chunk_fp_sizes){ width_of(ra), width_of(hash), width_of(key) };
}

void chunk_put_fps(const db_fingerprint *f, size_t n, chunk_fp_sizes sz, uint8_t *data,
		   uint8_t *keys)
{
	if (keys && n)
		keys = le_put(keys, f[0].input_key, CHUNK_FP_KEY_BASE);
	for (size_t i = 0; i < n; i++) {
		data = le_put(le_put(data, f[i].ra_part, sz.ra), f[i].hash_part, sz.hash);
		if (keys)
			keys = le_put(keys, f[i].input_key ^ f[0].input_key, sz.key);
	}
}

const char *chunk_fp_check(int64_t count, int64_t ra, int64_t hash, int64_t key,
			   int64_t data_len, int64_t keys_len)
{
	if (count < 1 || count > 1 << 16 || ra < 0 || ra > CHUNK_FP_FIELD_MAX || hash < 0 ||
	    hash > CHUNK_FP_FIELD_MAX || key < 0 || key > CHUNK_FP_FIELD_MAX)
		return "a bad count or field size";
	if (data_len != count * (ra + hash))
		return "data of other than ra_size + hash_size bytes per fingerprint";
	if (keys_len >= 0 && keys_len != CHUNK_FP_KEY_BASE + count * key)
		return "keys other than 8 bytes, then key_size bytes per fingerprint";
	return NULL;
}

/* le_get of n <= 8 bytes at p, which end at or before `end`: one 8-byte
 * load where 8 bytes are there (the oracle decodes every configuration's
 * every row, and the byte loop was most of it). */
static inline uint64_t get_field(const uint8_t *p, unsigned n, const uint8_t *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - p >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
	}
#else
	(void)end;
#endif
	return le_get(p, n);
}

void chunk_get_fps(const uint8_t *data, const uint8_t *keys, size_t n, chunk_fp_sizes sz,
		   db_fingerprint *out)
{
	uint64_t base = 0;
	const uint8_t *data_end = data + n * (sz.ra + sz.hash), *keys_end = NULL;
	if (keys) {
		base = le_get(keys, CHUNK_FP_KEY_BASE);
		keys += CHUNK_FP_KEY_BASE;
		keys_end = keys + n * sz.key;
	}
	for (size_t i = 0; i < n; i++, data += sz.ra + sz.hash) {
		out[i].ra_part = get_field(data, sz.ra, data_end);
		out[i].hash_part = get_field(data + sz.ra, sz.hash, data_end);
		if (keys) {
			out[i].input_key = base ^ get_field(keys, sz.key, keys_end);
			out[i].has_input_key = 1;
			keys += sz.key;
		}
	}
}
