/*
 * server.c — the gdb remote server (see server.h): requests (request.h)
 * answered from the timeline, and the session's processes.
 */
#define _GNU_SOURCE  /* open_memstream, MSG_NOSIGNAL */
#include "gdb/server.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gdb/request.h"
#include "report/report.h"
#include "timeline/timeline.h"
#include "trace/uart.h"
#include "dwarf/cfi.h"

#define DATA_BASE 0x800000u
#define EEPROM_BASE 0x810000u
#define SPACE_END 0x820000u
#define STOP_MAX 96

/* What a stop is reported as, once a motion that was asked for ends. */
enum { PENDING_NONE, PENDING_STOP, PENDING_MONITOR };

/* The server's state that travels with the timeline (tl_carry). */
typedef struct gdb_carry {
	int noack;                /* QStartNoAckMode: no '+'/'-' from here on */
	int pending;              /* what the motion under way answers */
	char last_stop[STOP_MAX]; /* for '?' */
} gdb_carry;

typedef struct server {
	timeline *tl;
	int fd;
	replay *r;
	sim *s;
	const firmware *fw;
	rsp_reader rd;
	char last[2 * RSP_MAX + 8]; /* the last frame sent, for a '-' */
	size_t nlast;
	gdb_carry c;
} server;

/* ---- sending ------------------------------------------------------------- */

static void send_raw(server *sv, const char *buf, size_t n)
{
	while (n) {
		/* MSG_NOSIGNAL: a client gone is a read of EOF later, not SIGPIPE. */
		ssize_t w = send(sv->fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}

static void send_packet(server *sv, const char *payload)
{
	size_t n = rsp_frame(payload, strlen(payload), sv->last, sizeof sv->last);
	if (!n)
		n = rsp_frame("E01", 3, sv->last, sizeof sv->last);
	sv->nlast = n;
	send_raw(sv, sv->last, n);
}

/* Console output ("O" packets), as gdb prints a monitor command's. */
static void send_console(server *sv, const char *text, size_t n)
{
	enum { CHUNK = RSP_MAX / 2 - 1 };
	char pkt[2 * CHUNK + 2];
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t k = n - at < CHUNK ? n - at : CHUNK;
		pkt[0] = 'O';
		rsp_hex((const uint8_t *)text + at, k, pkt + 1);
		send_packet(sv, pkt);
	}
}

static void send_consolef(server *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_consolef(server *sv, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	send_console(sv, text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

/* ---- stops ----------------------------------------------------------------- */

static void location(server *sv, char *buf, size_t n)
{
	char where[128];
	fw_describe_pc(sv->fw, tl_pc(sv->tl), where, sizeof where);
	snprintf(buf, n, "icount=%" PRIu64 " pc=0x%04x %s\n", tl_icount(sv->tl), tl_pc(sv->tl), where);
}

/* The stop reply for st: T05 with the reason gdb knows (watch, rwatch,
 * awatch, replaylog at the ends of the recording), T02 when interrupted;
 * what gdb has no word for goes to the console first. */
static void stop_reply(server *sv, const tl_stop *st)
{
	char *r = sv->c.last_stop;
	const char *watch = st->kind == TL_WATCH ? "watch" : st->kind == TL_RWATCH ? "rwatch"
			    : st->kind == TL_AWATCH ? "awatch" : NULL;
	snprintf(r, STOP_MAX, "T05");
	if (watch)
		snprintf(r, STOP_MAX, "T05%s:%x;", watch, DATA_BASE + st->addr);
	else if (st->kind == TL_START)
		snprintf(r, STOP_MAX, "T05replaylog:begin;");
	else if (st->kind == TL_END || st->kind == TL_CPU_STOPPED)
		snprintf(r, STOP_MAX, "T05replaylog:end;");
	else if (st->kind == TL_INTERRUPTED)
		snprintf(r, STOP_MAX, "T02");
	if (st->kind == TL_DIVERGED) {
		const rp_divergence *d = tl_divergence(sv->tl);
		send_consolef(sv, "The replay diverged at icount %" PRIu64 ": expected %s, got %s "
			      "(monitor divergence).\n", d->icount, d->expected, d->actual);
	} else if (st->kind == TL_CPU_STOPPED) {
		send_consolef(sv, "The CPU stopped before the end of the recording.\n");
	} else if (st->kind == TL_FAILED) {
		send_consolef(sv, "%s\n", st->what);
	} else if (st->kind == TL_IRQ) {
		send_consolef(sv, "interrupt %s entered\n", st->what);
	}
	send_packet(sv, r);
}

static void on_stopped(timeline *tl, const tl_stop *st, void *ud)
{
	server *sv = ud;
	(void)tl;
	int pending = sv->c.pending;
	sv->c.pending = PENDING_NONE;
	if (pending == PENDING_STOP) {
		stop_reply(sv, st);
	} else if (pending == PENDING_MONITOR) {
		char where[200];
		location(sv, where, sizeof where);
		if (st->kind == TL_FAILED || st->kind == TL_DIVERGED)
			send_consolef(sv, "%s\n", st->kind == TL_FAILED ? st->what
				      : "The replay diverged here and cannot go further.");
		send_console(sv, where, strlen(where));
		send_packet(sv, "OK");
	}
}

/* Whether the client sent the interrupt byte while a motion runs. */
static int on_poll(timeline *tl, void *ud)
{
	server *sv = ud;
	(void)tl;
	struct pollfd p = { .fd = sv->fd, .events = POLLIN };
	while (poll(&p, 1, 0) > 0) {
		uint8_t c;
		if (read(sv->fd, &c, 1) != 1)
			return 1;  /* gone: stop, and the next read ends the session */
		if (rsp_feed(&sv->rd, c) == RSP_BREAK)
			return 1;
	}
	return 0;
}

/* ---- requests ---------------------------------------------------------------- */

static void read_registers(server *sv, char *out)
{
	const uint8_t *d = sim_live_data(sv->s);
	uint8_t regs[39];
	uint32_t pc = tl_pc(sv->tl);
	memcpy(regs, d, 32);
	regs[32] = d[0x5f];
	regs[33] = d[0x5d];
	regs[34] = d[0x5e];
	for (int i = 0; i < 4; i++)
		regs[35 + i] = (uint8_t)(pc >> (8 * i));
	rsp_hex(regs, sizeof regs, out);
}

static void read_register(server *sv, unsigned reg, char *out)
{
	char all[79];
	read_registers(sv, all);
	/* r0..r31 and SREG a byte each, SP 2 bytes, PC 4 */
	if (reg <= 32)
		snprintf(out, 3, "%.2s", all + 2 * reg);
	else if (reg == 33)
		snprintf(out, 5, "%.4s", all + 66);
	else if (reg == 34)
		snprintf(out, 9, "%.8s", all + 70);
	else
		snprintf(out, 4, "E01");
}

/* m: as much of [addr, addr+len) as lies in one space; E01 if none. */
static void read_memory(server *sv, uint64_t addr, uint64_t len, char *out)
{
	const uint8_t *base;
	uint32_t size = 0, off;
	if (addr < DATA_BASE) {
		base = sv->fw->flash;
		size = sv->fw->flash_size;
		off = (uint32_t)addr;
	} else if (addr < EEPROM_BASE) {
		base = sim_live_data(sv->s);
		size = sim_data_size(sv->s);
		off = (uint32_t)(addr - DATA_BASE);
	} else if (addr < SPACE_END) {
		base = sim_eeprom(sv->s, &size);
		off = (uint32_t)(addr - EEPROM_BASE);
	} else {
		base = NULL;
		off = 0;
	}
	if (!base || off >= size || !len) {
		strcpy(out, len ? "E01" : "");
		return;
	}
	uint64_t n = size - off < len ? size - off : len;
	if (n > RSP_MAX / 2)
		n = RSP_MAX / 2;
	rsp_hex(base + off, (size_t)n, out);
}

static const tl_break_kind Z_KIND[] = { TL_BK_CODE, TL_BK_CODE, TL_BK_WATCH, TL_BK_RWATCH,
					TL_BK_AWATCH };

/* Z/z: breakpoints at flash addresses, watchpoints of 1..8 data bytes. */
static const char *insert_remove(server *sv, const gdb_request *rq)
{
	tl_break_kind kind = Z_KIND[rq->type];
	uint32_t addr = (uint32_t)rq->addr;
	unsigned size = 0;
	if (kind == TL_BK_CODE) {
		if (rq->addr >= sv->fw->flash_size)
			return "E01";
	} else {
		if (rq->addr < DATA_BASE || rq->addr >= DATA_BASE + sim_data_size(sv->s) || !rq->len ||
		    rq->len > 8)
			return "E01";
		addr -= DATA_BASE;
		size = (unsigned)rq->len;
	}
	unsigned n;
	const tl_break *bs = tl_breaks(sv->tl, &n);
	for (unsigned i = 0; i < n; i++)
		if (bs[i].kind == kind && bs[i].addr == addr && (!size || bs[i].size == size)) {
			if (rq->kind == RQ_REMOVE)
				tl_break_delete(sv->tl, bs[i].id);
			return "OK";  /* inserting twice is inserting once */
		}
	if (rq->kind == RQ_REMOVE)
		return "OK";
	char what[32];
	snprintf(what, sizeof what, "*0x%x", rq->addr >= DATA_BASE ? (unsigned)rq->addr : addr);
	return tl_break_add(sv->tl, kind, addr, size, what) ? "OK" : "E02";
}

static const char MONITOR_HELP[] =
	"monitor when              the position: icount and pc\n"
	"monitor goto ICOUNT       jump there (then: maint flush register-cache)\n"
	"monitor goto irq N        jump to the N-th recorded interrupt\n"
	"monitor irqs [all]        recorded interrupts near here, and their fate\n"
	"monitor errors            the replay's counters up to here\n"
	"monitor fingerprint       the fingerprint here under each configuration\n"
	"monitor divergence        where and how the replay diverged, if it did\n"
	"monitor uart [N]          the text the UARTs (UART N) sent before here\n"
	"monitor frame-rows        each function's frame at each instruction (avrr.gdb's unwinder)\n";

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* The firmware's frame rows (dwarf/cfi.h) for avrr.gdb's unwinder, which
 * avr-gdb needs: it reads no .debug_frame, and its prologue scanner loses
 * its way in interrupt handlers.  A line per change, each holding until the
 * next ("PC -": no row from PC on):
 *   avrr-frame-rows 1 PC_BYTES
 *   PC FUNC sp|y OFF call|irq SREG_IN [R:D ...]   (hex PCs; SREG is R 32)
 *   vector N NAME                                 (the MCU's vector names) */
static void frame_rows(server *sv, FILE *out)
{
	cfi_table *t;
	avrr_err err;
	/* Parts with a 22-bit PC push 3 bytes of return address. */
	unsigned pc_bytes = strncmp(sim_mcu(sv->s), "atmega256", 9) ? 2 : 3;
	if (cfi_build(sv->fw, pc_bytes, &t, &err)) {
		fprintf(out, "%s\n", err.msg);
		return;
	}
	unsigned n;
	const cfi_row *r = cfi_rows(t, &n), *prev = NULL;
	fprintf(out, "avrr-frame-rows 1 %u\n", pc_bytes);
	for (unsigned i = 0; i < n; i++, prev = &r[i - 1]) {
		int gap = prev && prev->pc + prev->len != r[i].pc;
		if (gap)
			fprintf(out, "%x -\n", prev->pc + prev->len);
		if (prev && !gap && prev->func == r[i].func && prev->base == r[i].base &&
		    prev->off == r[i].off && prev->sreg_in == r[i].sreg_in &&
		    !memcmp(prev->saved, r[i].saved, sizeof r[i].saved))
			continue;
		fprintf(out, "%x %x %s %d %s %u", r[i].pc, r[i].func, r[i].base == CFI_SP ? "sp" : "y",
			r[i].off, r[i].interrupt ? "irq" : "call", r[i].sreg_in);
		for (unsigned k = 0; k <= CFI_SREG; k++)
			if (r[i].saved[k])
				fprintf(out, " %u:%u", k, r[i].saved[k]);
		fputc('\n', out);
	}
	if (prev)
		fprintf(out, "%x -\n", prev->pc + prev->len);
	for (unsigned v = 1; v < 256; v++) {
		const char *name = sim_vector_name(sv->s, (uint8_t)v);
		if (name)
			fprintf(out, "vector %u %s\n", v, name);
	}
	cfi_free(t);
}

/* qRcmd: what gdb has no command for.  Output goes to the console; a goto
 * answers once it has arrived. */
static void monitor(server *sv, char *text)
{
	char *cmd = text + strspn(text, " ");
	size_t len = strcspn(cmd, " ");
	char *arg = cmd + len + strspn(cmd + len, " ");
	cmd[len] = 0;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	if (!out) {
		send_packet(sv, "E01");
		return;
	}
	uint64_t v;
	avrr_err err;
	if (!strcmp(cmd, "goto")) {
		uint64_t target = 0;
		if (!tl_parse_position(sv->tl, arg, &target)) {
			fclose(out);
			free(buf);
			sv->c.pending = PENDING_MONITOR;
			tl_goto(sv->tl, target);
			return;
		}
		fprintf(out, "usage: monitor goto ICOUNT | monitor goto irq N (from 1)\n");
	} else if (!strcmp(cmd, "when")) {
		char where[200];
		location(sv, where, sizeof where);
		fputs(where, out);
	} else if (!strcmp(cmd, "irqs")) {
		report_irqs(out, sv->r, !strcmp(arg, "all"));
	} else if (!strcmp(cmd, "errors")) {
		report_errors(out, sv->r);
	} else if (!strcmp(cmd, "fingerprint")) {
		if (report_fingerprint(out, sv->r, &err))
			fprintf(out, "%s\n", err.msg);
	} else if (!strcmp(cmd, "divergence")) {
		report_divergence(out, sv->r);
	} else if (!strcmp(cmd, "uart")) {
		if (*arg && (parse_u64(arg, &v) || v >= TRACE_UARTS))
			fprintf(out, "usage: monitor uart [N], N from 0 to %d\n", TRACE_UARTS - 1);
		else
			report_uart(out, sv->r, *arg ? (int)v : -1);
	} else if (!strcmp(cmd, "frame-rows")) {
		frame_rows(sv, out);
	} else if (!strcmp(cmd, "help") || !*cmd) {
		fputs(MONITOR_HELP, out);
	} else {
		fprintf(out, "unknown monitor command; try: monitor help\n");
	}
	fclose(out);
	send_console(sv, buf, n);
	free(buf);
	send_packet(sv, "OK");
}

/* Answers one request; -1 ends the session. */
static int handle(server *sv, gdb_request *rq)
{
	char out[RSP_MAX + 1];
	switch (rq->kind) {
	case RQ_UNSUPPORTED: send_packet(sv, ""); break;
	case RQ_BAD: case RQ_REFUSED: send_packet(sv, "E01"); break;
	case RQ_SUPPORTED:
		snprintf(out, sizeof out, "PacketSize=%x;QStartNoAckMode+;ReverseStep+;ReverseContinue+",
			 RSP_MAX);
		send_packet(sv, out);
		break;
	case RQ_NOACK:
		send_packet(sv, "OK");
		sv->c.noack = 1;
		break;
	case RQ_STATUS: send_packet(sv, sv->c.last_stop); break;
	case RQ_READ_REGS:
		read_registers(sv, out);
		send_packet(sv, out);
		break;
	case RQ_READ_REG:
		read_register(sv, rq->reg, out);
		send_packet(sv, out);
		break;
	case RQ_READ_MEM:
		read_memory(sv, rq->addr, rq->len, out);
		send_packet(sv, out);
		break;
	case RQ_STEP:
		sv->c.pending = PENDING_STOP;
		tl_stepi(sv->tl, 1);
		break;
	case RQ_CONTINUE:
		sv->c.pending = PENDING_STOP;
		tl_continue(sv->tl);
		break;
	case RQ_REVERSE_STEP:
		sv->c.pending = PENDING_STOP;
		tl_reverse_stepi(sv->tl, 1);
		break;
	case RQ_REVERSE_CONTINUE:
		sv->c.pending = PENDING_STOP;
		tl_reverse_continue(sv->tl, 1);
		break;
	case RQ_VCONT_QUERY: send_packet(sv, "vCont;c;C;s;S"); break;
	case RQ_INSERT: case RQ_REMOVE: send_packet(sv, insert_remove(sv, rq)); break;
	case RQ_MONITOR: monitor(sv, rq->text); break;
	case RQ_ATTACHED: send_packet(sv, "1"); break;
	case RQ_THREAD: send_packet(sv, "QC1"); break;
	case RQ_THREADS_FIRST: send_packet(sv, "m1"); break;
	case RQ_THREADS_NEXT: send_packet(sv, "l"); break;
	case RQ_OK: send_packet(sv, "OK"); break;
	case RQ_DETACH:
		send_packet(sv, "OK");
		return -1;
	case RQ_KILL:
		send_packet(sv, "OK");  /* vKill wants it; after k it is never read */
		return -1;
	}
	return 0;
}

/* tl_frontend.command: reads bytes up to the next whole packet and answers
 * it.  Byte by byte, so that whatever follows stays unread for the process
 * that answers next. */
static int on_command(timeline *tl, void *ud)
{
	server *sv = ud;
	(void)tl;
	gdb_request *rq = malloc(sizeof *rq);
	if (!rq)
		return -1;
	for (;;) {
		uint8_t c;
		ssize_t n = read(sv->fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(rq);
			return -1;  /* the client went away */
		}
		switch (rsp_feed(&sv->rd, c)) {
		case RSP_PACKET: {
			if (!sv->c.noack)
				send_raw(sv, "+", 1);
			gdb_parse(sv->rd.buf, sv->rd.len, rq);
			int rc = handle(sv, rq);
			free(rq);
			return rc;
		}
		case RSP_BAD:
			if (!sv->c.noack)
				send_raw(sv, "-", 1);
			break;
		case RSP_NAK:
			if (!sv->c.noack)
				send_raw(sv, sv->last, sv->nlast);
			break;
		default:
			break;
		}
	}
}

/* ---- the session ---------------------------------------------------------------- */

static void say(int fd, const char *msg)
{
	ssize_t w = write(fd, msg, strlen(msg));
	(void)w;  /* the parent gone is the lifeline's business */
}

/* Writes the recording's firmware beside the checkpoints. */
static int write_elf(const firmware *fw, const char *dir, avrr_err *err)
{
	char path[320];
	snprintf(path, sizeof path, "%s/firmware.elf", dir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(fw->elf, 1, fw->elf_size, f) != fw->elf_size || fclose(f)) {
		if (f)
			fclose(f);
		return avrr_errf(err, "%s: %s", path, strerror(errno));
	}
	return 0;
}

/* The engine: opens the recording, says "ready" (or "error ..."), waits
 * for the client, then serves it. */
static int serve_main(const char *db_path, const rp_options *o, int listen_fd, int elf,
		      travel *t)
{
	server *sv = calloc(1, sizeof *sv);
	avrr_err err;
	char msg[600];
	if (!sv || tl_open(db_path, o, t, &sv->tl, &err) ||
	    (elf && write_elf(tl_firmware(sv->tl), t->dir, &err))) {
		snprintf(msg, sizeof msg, WIRE_ERROR "%s\n", sv ? err.msg : "out of memory");
		say(t->reply_fd, msg);
		free(sv);
		return 2;
	}
	char problem[512];
	if (fw_debug_info_problem(tl_firmware(sv->tl), problem, sizeof problem)) {
		snprintf(msg, sizeof msg, WIRE_WARN "%s\n", problem);
		say(t->reply_fd, msg);
	}
	say(t->reply_fd, WIRE_READY "\n");
	int fd;
	while ((fd = accept(listen_fd, NULL, NULL)) < 0 && errno == EINTR)
		;
	close(listen_fd);
	if (fd < 0)
		return 1;
	sv->fd = t->cmd_fd = fd;
	sv->r = tl_replay(sv->tl);
	sv->s = tl_sim(sv->tl);
	sv->fw = tl_firmware(sv->tl);
	snprintf(sv->c.last_stop, STOP_MAX, "S05");
	tl_carry(sv->tl, &sv->c, sizeof sv->c);
	static const tl_frontend fe = { .command = on_command, .stopped = on_stopped,
					.poll = on_poll };
	tl_main(sv->tl, &fe, sv);
	close(fd);
	say(t->reply_fd, WIRE_BYE "\n");
	_exit(0);
}

typedef struct serve_args {
	const char *db_path;
	const rp_options *o;
	int listen_fd, elf;
	unsigned checkpoint_mb;
} serve_args;

static int run_engine(const session_ends *e, void *arg)
{
	const serve_args *a = arg;
	unsigned mb = a->checkpoint_mb ? a->checkpoint_mb : TRAVEL_MEMORY_MB;
	travel t = { .cmd_fd = -1, .reply_fd = e->reply_fd, .life_fd = e->life_fd,
		     .interval = TRAVEL_INTERVAL, .max = TRAVEL_MAX,
		     .mem_cap_kb = (uint64_t)mb * 1024 };
	snprintf(t.dir, sizeof t.dir, "%s", e->dir);
	return serve_main(a->db_path, a->o, a->listen_fd, a->elf, &t);
}

/* A warning line before WIRE_READY: kept for the front-end to say. */
static void on_line(const char *line, void *ud)
{
	gdb_session *gs = ud;
	const char *warning = wire_rest(line, WIRE_WARN);
	if (warning)
		snprintf(gs->warning, sizeof gs->warning, "%s", warning);
}

int gdb_session_start(gdb_session *gs, const char *db_path, const rp_options *o, int listen_fd,
		      avrr_err *err)
{
	serve_args a = { .db_path = db_path, .o = o, .listen_fd = listen_fd,
			 .elf = gs->write_elf, .checkpoint_mb = gs->checkpoint_mb };
	gs->s = (session){ .who = gs->who, .kind = "gdb",
			   .sigint = strcmp(gs->who, "serve") ? SESSION_SIGINT_IGNORE
							      : SESSION_SIGINT_ENDS };
	if (session_start(&gs->s, run_engine, &a, err))
		return -1;
	char error[600];
	int rc = session_await(&gs->s, WIRE_READY, on_line, gs, error, sizeof error);
	if (!rc)
		return 0;
	if (rc == SESSION_DIED)
		avrr_errf(err, "%s", "");
	else
		avrr_errf(err, "%s", error);
	session_end(&gs->s);
	return rc;
}

int gdb_session_wait(gdb_session *gs)
{
	char error[600];
	int rc = session_await(&gs->s, WIRE_BYE, NULL, NULL, error, sizeof error);
	session_end(&gs->s);
	return rc == SESSION_DIED ? rc : 0;
}

void gdb_session_stop(gdb_session *gs)
{
	session_end(&gs->s);
}
