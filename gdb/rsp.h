/*
 * rsp.h — the framing of gdb's remote serial protocol: packets in
 * "$payload#cs", acknowledgements, and the interrupt byte, read one byte
 * at a time so that a process taking over the connection finds every byte
 * after the last packet still unread.
 *
 * The reader never trusts its input: a packet longer than RSP_MAX, a bad
 * checksum or a stray byte is reported, never overflowed.
 */
#ifndef AVRR_RSP_H
#define AVRR_RSP_H

#include <stddef.h>
#include <stdint.h>

#define RSP_MAX 4096   /* the PacketSize the server announces */

typedef enum {
	RSP_MORE,      /* the byte was taken; nothing complete yet */
	RSP_PACKET,    /* a whole packet with a good checksum: r->buf, r->len */
	RSP_ACK,       /* '+' */
	RSP_NAK,       /* '-': resend the last reply */
	RSP_BREAK,     /* 0x03: the client asks to stop */
	RSP_BAD,       /* a bad checksum or an oversized packet: answer '-' */
} rsp_event;

typedef struct rsp_reader {
	int state;
	char buf[RSP_MAX + 1];  /* the payload, unescaped, NUL-terminated */
	size_t len;
	uint8_t sum;            /* of the raw payload bytes */
	uint8_t got;            /* the checksum sent */
	int escaped, overflow;
} rsp_reader;

/* Feeds one byte; zero-initialise the reader before the first. */
rsp_event rsp_feed(rsp_reader *r, uint8_t c);

/* Frames payload[0..n) as "$...#cs" into out (escaping '$', '#', '}' and
 * '*'); returns the frame's length, or 0 when it does not fit in cap. */
size_t rsp_frame(const char *payload, size_t n, char *out, size_t cap);

/* Hex: writes 2n digits (lower case) for n bytes, NUL-terminated. */
void rsp_hex(const uint8_t *bytes, size_t n, char *out);
/* Parses exactly 2n hex digits into n bytes; -1 on a bad digit. */
int rsp_unhex(const char *hex, size_t n, uint8_t *bytes);
/* Parses a hex number up to a byte of `stops` (or the end); *end after it.
 * -1 if there is no digit or it overflows 64 bits. */
int rsp_hexnum(const char *s, const char *stops, uint64_t *out, const char **end);

#endif
