/*
 * test_rsp.c — gdb remote protocol framing and request parsing:
 *
 *  - frames have gdb's checksums ("$OK#9a", "$#00") and escape '$', '#',
 *    '}' and '*'; the reader takes back what was framed, byte by byte;
 *  - a bad checksum, a non-hex checksum and an oversized packet are
 *    RSP_BAD; '+', '-' and 0x03 outside a packet are their events;
 *  - requests parse with their arguments (m, p, Z/z, qRcmd's hex) and
 *    malformed ones are RQ_BAD;
 *  - 200,000 random byte streams through the reader and parser (under the
 *    sanitizers in `make test`) never overrun a buffer.
 */
#include "tests/testlib.h"

#include "gdb/request.h"
#include "gdb/rsp.h"

static rsp_event feed_all(rsp_reader *r, const char *bytes, size_t n)
{
	rsp_event last = RSP_MORE;
	for (size_t i = 0; i < n; i++)
		last = rsp_feed(r, (uint8_t)bytes[i]);
	return last;
}

static void test_frames_have_gdbs_checksums(void **state)
{
	(void)state;
	char out[64];
	size_t n = rsp_frame("OK", 2, out, sizeof out);
	out[n] = 0;
	assert_string_equal(out, "$OK#9a");
	n = rsp_frame("", 0, out, sizeof out);
	out[n] = 0;
	assert_string_equal(out, "$#00");
	n = rsp_frame("a$b#c}d*", 8, out, sizeof out);
	out[n] = 0;
	assert_string_equal(out, "$a}\x04" "b}\x03" "c}]d}\x0a#ec");
	assert_int_equal(rsp_frame("OK", 2, out, 5), 0);  /* does not fit */

	rsp_reader *r = calloc(1, sizeof *r);
	assert_int_equal(feed_all(r, out, n), RSP_PACKET);
	assert_int_equal(r->len, 8);
	assert_memory_equal(r->buf, "a$b#c}d*", 8);
	free(r);
}

static void test_reader_events(void **state)
{
	(void)state;
	rsp_reader *r = calloc(1, sizeof *r);
	assert_int_equal(rsp_feed(r, '+'), RSP_ACK);
	assert_int_equal(rsp_feed(r, '-'), RSP_NAK);
	assert_int_equal(rsp_feed(r, 0x03), RSP_BREAK);
	assert_int_equal(rsp_feed(r, 'x'), RSP_MORE);
	assert_int_equal(feed_all(r, "$g#67", 5), RSP_PACKET);
	assert_string_equal(r->buf, "g");
	assert_int_equal(feed_all(r, "$g#68", 5), RSP_BAD);
	assert_int_equal(feed_all(r, "$g#6z", 5), RSP_BAD);
	assert_int_equal(feed_all(r, "$g#z7", 4), RSP_BAD);
	/* a '$' inside a packet starts it again */
	assert_int_equal(feed_all(r, "$mm$g#67", 8), RSP_PACKET);
	assert_string_equal(r->buf, "g");
	/* oversized: bad, whatever the checksum */
	assert_int_equal(rsp_feed(r, '$'), RSP_MORE);
	unsigned sum = 0;
	for (int i = 0; i < RSP_MAX + 10; i++) {
		assert_int_equal(rsp_feed(r, 'a'), RSP_MORE);
		sum += 'a';
	}
	char ck[4];
	snprintf(ck, sizeof ck, "#%02x", sum & 0xff);
	assert_int_equal(feed_all(r, ck, 3), RSP_BAD);
	free(r);
}

static void test_requests(void **state)
{
	(void)state;
	gdb_request *q = malloc(sizeof *q);
	gdb_parse("m800075,8", 9, q);
	assert_int_equal(q->kind, RQ_READ_MEM);
	assert_int_equal(q->addr, 0x800075);
	assert_int_equal(q->len, 8);
	gdb_parse("p22", 3, q);
	assert_int_equal(q->kind, RQ_READ_REG);
	assert_int_equal(q->reg, 0x22);
	gdb_parse("Z2,800075,1", 11, q);
	assert_int_equal(q->kind, RQ_INSERT);
	assert_int_equal(q->type, 2);
	assert_int_equal(q->addr, 0x800075);
	assert_int_equal(q->len, 1);
	gdb_parse("z0,1e0,2", 8, q);
	assert_int_equal(q->kind, RQ_REMOVE);
	assert_int_equal(q->addr, 0x1e0);
	gdb_parse("qRcmd,7768656e", 14, q);
	assert_int_equal(q->kind, RQ_MONITOR);
	assert_string_equal(q->text, "when");
	static const struct { const char *p; gdb_request_kind k; } cases[] = {
		{ "bs", RQ_REVERSE_STEP }, { "bc", RQ_REVERSE_CONTINUE }, { "vCont;s:1", RQ_STEP },
		{ "vCont;c", RQ_CONTINUE }, { "vCont?", RQ_VCONT_QUERY }, { "?", RQ_STATUS },
		{ "qSupported:multiprocess+;swbreak+", RQ_SUPPORTED }, { "g", RQ_READ_REGS },
		{ "M800075,1:05", RQ_REFUSED }, { "P18=01", RQ_REFUSED }, { "D", RQ_DETACH },
		{ "vKill;1", RQ_KILL }, { "qTStatus", RQ_UNSUPPORTED }, { "", RQ_UNSUPPORTED },
		{ "m", RQ_BAD }, { "m800075", RQ_BAD }, { "m1,2,3", RQ_BAD }, { "p", RQ_BAD },
		{ "p100", RQ_BAD }, { "Z5,0,2", RQ_BAD }, { "Z0,,2", RQ_BAD }, { "bz", RQ_BAD },
		{ "qRcmd,7", RQ_BAD }, { "qRcmd,zz", RQ_BAD }, { "qRcmd,00", RQ_BAD },
		{ "m11111111111111111,1", RQ_BAD }, { "vCont;x", RQ_BAD },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		gdb_parse(cases[i].p, strlen(cases[i].p), q);
		if (q->kind != cases[i].k)
			fail_msg("'%s' parsed as %d, not %d", cases[i].p, q->kind, cases[i].k);
	}
	free(q);
}

static void test_random_streams(void **state)
{
	(void)state;
	rsp_reader *r = calloc(1, sizeof *r);
	gdb_request *q = malloc(sizeof *q);
	static const char alphabet[] = "$#}*+-\x03 0123456789abcdefABCDEFmMpPgGzZqQvsScCbk,:;=?";
	uint32_t seed = 12345;
	unsigned packets = 0;
	char payload[100], frame[2 * sizeof payload + 8];
	for (int i = 0; i < 200000; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned n = (seed >> 16) % 90;
		for (unsigned k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			payload[k] = (seed >> 24) & 1 ? (char)(seed >> 16)
				     : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		/* mostly well-framed packets of random payloads, else raw bytes */
		size_t len = (seed >> 8) % 4 ? rsp_frame(payload, n, frame, sizeof frame) : 0;
		const char *bytes = len ? frame : payload;
		for (size_t k = 0; k < (len ? len : n); k++)
			if (rsp_feed(r, (uint8_t)bytes[k]) == RSP_PACKET) {
				assert_true(r->len <= RSP_MAX);
				gdb_parse(r->buf, r->len, q);
				packets++;
			}
	}
	assert_true(packets > 100000);  /* the streams did reach the parser */
	free(q);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_have_gdbs_checksums),
		cmocka_unit_test(test_reader_events),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_random_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
