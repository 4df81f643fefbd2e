/* request.c — gdb remote protocol requests (see request.h). */
#include "gdb/request.h"

#include <string.h>

static int is(const char *p, size_t n, const char *word)
{
	size_t k = strlen(word);
	return n >= k && !memcmp(p, word, k) && (n == k || p[k] == ':' || p[k] == ';' ||
						  p[k] == ',');
}

/* "ADDR,LEN" exactly, hex. */
static int addr_len(const char *p, gdb_request *rq, const char *stops)
{
	const char *end;
	if (rsp_hexnum(p, ",", &rq->addr, &end) || *end != ',' ||
	    rsp_hexnum(end + 1, stops, &rq->len, &end) || (*end && !strchr(stops, *end)))
		return -1;
	return 0;
}

void gdb_parse(const char *p, size_t n, gdb_request *rq)
{
	memset(rq, 0, sizeof *rq);
	rq->kind = RQ_UNSUPPORTED;
	if (!n || strlen(p) != n) {  /* empty, or a NUL inside: none of ours */
		rq->kind = n ? RQ_BAD : RQ_UNSUPPORTED;
		return;
	}
	const char *end;
	switch (p[0]) {
	case '?':
		rq->kind = n == 1 ? RQ_STATUS : RQ_BAD;
		return;
	case 'g':
		rq->kind = n == 1 ? RQ_READ_REGS : RQ_BAD;
		return;
	case 'p': {
		uint64_t r;
		rq->kind = !rsp_hexnum(p + 1, "", &r, &end) && r < 256 ? RQ_READ_REG : RQ_BAD;
		rq->reg = (unsigned)r;
		return;
	}
	case 'G': case 'P': case 'M': case 'X':
		rq->kind = RQ_REFUSED;
		return;
	case 'm':
		rq->kind = addr_len(p + 1, rq, "") ? RQ_BAD : RQ_READ_MEM;
		return;
	case 's': case 'S':
		rq->kind = RQ_STEP;
		return;
	case 'c': case 'C':
		rq->kind = RQ_CONTINUE;
		return;
	case 'b':
		rq->kind = n != 2 ? RQ_BAD : p[1] == 's' ? RQ_REVERSE_STEP
			   : p[1] == 'c' ? RQ_REVERSE_CONTINUE : RQ_BAD;
		return;
	case 'Z': case 'z': {
		uint64_t t;
		if (rsp_hexnum(p + 1, ",", &t, &end) || *end != ',' || t > 4 ||
		    addr_len(end + 1, rq, ";")) {
			rq->kind = RQ_BAD;
			return;
		}
		rq->type = (unsigned)t;
		rq->kind = p[0] == 'Z' ? RQ_INSERT : RQ_REMOVE;
		return;
	}
	case 'H': case 'T':
		rq->kind = RQ_OK;
		return;
	case 'D':
		rq->kind = RQ_DETACH;
		return;
	case 'k':
		rq->kind = RQ_KILL;
		return;
	}
	if (is(p, n, "vCont?"))
		rq->kind = RQ_VCONT_QUERY;
	else if (n >= 7 && !memcmp(p, "vCont;", 6))
		/* One thread: the first action is the one. */
		rq->kind = p[6] == 's' || p[6] == 'S' ? RQ_STEP : p[6] == 'c' || p[6] == 'C'
			   ? RQ_CONTINUE : RQ_BAD;
	else if (is(p, n, "vKill"))
		rq->kind = RQ_KILL;
	else if (is(p, n, "qSupported"))
		rq->kind = RQ_SUPPORTED;
	else if (is(p, n, "QStartNoAckMode"))
		rq->kind = RQ_NOACK;
	else if (is(p, n, "qAttached"))
		rq->kind = RQ_ATTACHED;
	else if (n == 2 && !memcmp(p, "qC", 2))
		rq->kind = RQ_THREAD;
	else if (is(p, n, "qfThreadInfo"))
		rq->kind = RQ_THREADS_FIRST;
	else if (is(p, n, "qsThreadInfo"))
		rq->kind = RQ_THREADS_NEXT;
	else if (is(p, n, "qSymbol"))
		rq->kind = RQ_OK;
	else if (n >= 6 && !memcmp(p, "qRcmd,", 6)) {
		size_t hex = n - 6;
		if (hex % 2 || hex / 2 >= sizeof rq->text ||
		    rsp_unhex(p + 6, hex / 2, (uint8_t *)rq->text) || memchr(rq->text, 0, hex / 2)) {
			rq->kind = RQ_BAD;
			return;
		}
		rq->text[hex / 2] = 0;
		rq->kind = RQ_MONITOR;
	}
}
