/*
 * fuzz_gdb.c — the gdb remote protocol reader (gdb/rsp.c) fed the input
 * byte by byte, as the server reads its socket, and every packet it
 * completes through the request parser (gdb/request.c); the payloads'
 * hex decoders too.
 * Seeds: tests/fuzz/seeds/gdb (packets avr-gdb sends).
 */
#include "tests/fuzz/fuzz.h"

#include "gdb/request.h"
#include "gdb/rsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static rsp_reader r;
	memset(&r, 0, sizeof r);
	for (size_t i = 0; i < size; i++) {
		if (rsp_feed(&r, data[i]) != RSP_PACKET)
			continue;
		gdb_request rq;
		gdb_parse(r.buf, r.len, &rq);
		uint8_t bytes[RSP_MAX / 2];
		rsp_unhex(r.buf, r.len & ~(size_t)1, bytes);
		uint64_t v;
		const char *end;
		rsp_hexnum(r.buf, ",:;#", &v, &end);
	}
	return 0;
}
