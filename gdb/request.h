/*
 * request.h — a gdb remote protocol packet's payload parsed into a request:
 * what the server is asked, with its arguments checked.  Pure, so that it
 * can be fuzzed apart from a recording.
 */
#ifndef AVRR_GDB_REQUEST_H
#define AVRR_GDB_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "gdb/rsp.h"

typedef enum {
	RQ_UNSUPPORTED,   /* answered with an empty packet */
	RQ_BAD,           /* malformed: "E01" */
	RQ_REFUSED,       /* a write to registers or memory: "E01", a replay cannot change the past */
	RQ_SUPPORTED,     /* qSupported */
	RQ_NOACK,         /* QStartNoAckMode */
	RQ_STATUS,        /* ? */
	RQ_READ_REGS,     /* g */
	RQ_READ_REG,      /* p N */
	RQ_READ_MEM,      /* m ADDR,LEN */
	RQ_STEP,          /* s, S, vCont;s */
	RQ_CONTINUE,      /* c, C, vCont;c */
	RQ_REVERSE_STEP,  /* bs */
	RQ_REVERSE_CONTINUE, /* bc */
	RQ_VCONT_QUERY,   /* vCont? */
	RQ_INSERT,        /* Z TYPE,ADDR,KIND */
	RQ_REMOVE,        /* z TYPE,ADDR,KIND */
	RQ_MONITOR,       /* qRcmd,HEX: text */
	RQ_ATTACHED,      /* qAttached */
	RQ_THREAD,        /* qC */
	RQ_THREADS_FIRST, /* qfThreadInfo */
	RQ_THREADS_NEXT,  /* qsThreadInfo */
	RQ_OK,            /* H..., T..., qSymbol: "OK" */
	RQ_DETACH,        /* D */
	RQ_KILL,          /* k, vKill */
} gdb_request_kind;

typedef struct gdb_request {
	gdb_request_kind kind;
	unsigned reg;             /* p */
	unsigned type;            /* Z/z: 0 software, 1 hardware breakpoint,
				     2 write, 3 read, 4 access watchpoint */
	uint64_t addr, len;       /* m, Z/z (len: the kind, or the watched bytes) */
	char text[RSP_MAX / 2 + 1]; /* qRcmd, decoded, NUL-terminated */
} gdb_request;

/* Parses payload p[0..n) (n <= RSP_MAX). */
void gdb_parse(const char *p, size_t n, gdb_request *rq);

#endif
