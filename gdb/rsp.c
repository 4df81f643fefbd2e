/* rsp.c — gdb remote protocol framing (see rsp.h). */
#include "gdb/rsp.h"

#include <string.h>

enum { IDLE, DATA, CK1, CK2 };

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

rsp_event rsp_feed(rsp_reader *r, uint8_t c)
{
	switch (r->state) {
	case IDLE:
		if (c == '$') {
			r->state = DATA;
			r->len = 0;
			r->sum = 0;
			r->escaped = r->overflow = 0;
			return RSP_MORE;
		}
		return c == '+' ? RSP_ACK : c == '-' ? RSP_NAK : c == 0x03 ? RSP_BREAK : RSP_MORE;
	case DATA:
		if (c == '#' && !r->escaped) {
			r->state = CK1;
			return RSP_MORE;
		}
		if (c == '$') {  /* a new packet: the one before was cut off */
			r->len = 0;
			r->sum = 0;
			r->escaped = r->overflow = 0;
			return RSP_MORE;
		}
		r->sum = (uint8_t)(r->sum + c);
		if (c == '}' && !r->escaped) {
			r->escaped = 1;
			return RSP_MORE;
		}
		if (r->len < RSP_MAX)
			r->buf[r->len++] = (char)(r->escaped ? c ^ 0x20 : c);
		else
			r->overflow = 1;
		r->escaped = 0;
		return RSP_MORE;
	case CK1:
		if (hexval(c) < 0) {
			r->state = IDLE;
			return RSP_BAD;
		}
		r->got = (uint8_t)(hexval(c) << 4);
		r->state = CK2;
		return RSP_MORE;
	default:
		r->state = IDLE;
		if (hexval(c) < 0 || (uint8_t)(r->got | hexval(c)) != r->sum || r->overflow)
			return RSP_BAD;
		r->buf[r->len] = 0;
		return RSP_PACKET;
	}
}

size_t rsp_frame(const char *payload, size_t n, char *out, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	size_t k = 0;
	uint8_t sum = 0;
	if (cap < 4)
		return 0;
	out[k++] = '$';
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)payload[i];
		int esc = c == '$' || c == '#' || c == '}' || c == '*';
		if (k + 2 + 3 > cap)
			return 0;
		if (esc) {
			out[k++] = '}';
			sum = (uint8_t)(sum + '}');
			c ^= 0x20;
		}
		out[k++] = (char)c;
		sum = (uint8_t)(sum + c);
	}
	out[k++] = '#';
	out[k++] = digits[sum >> 4];
	out[k++] = digits[sum & 15];
	return k;
}

void rsp_hex(const uint8_t *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = 0;
}

int rsp_unhex(const char *hex, size_t n, uint8_t *bytes)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval((unsigned char)hex[2 * i]);
		int lo = hi < 0 ? -1 : hexval((unsigned char)hex[2 * i + 1]);
		if (lo < 0)
			return -1;
		bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int rsp_hexnum(const char *s, const char *stops, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;
	for (; *p && !strchr(stops, *p); p++) {
		int d = hexval((unsigned char)*p);
		if (d < 0 || v >> 60)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (p == s)
		return -1;
	*out = v;
	*end = p;
	return 0;
}
