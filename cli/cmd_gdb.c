/*
 * cmd_gdb.c — `avrr serve`: a gdb remote server on a recording, for avr-gdb
 * or an IDE; `avrr gdb`: the same on a free loopback port, with avr-gdb
 * started on it, the recording's own firmware for symbols and avrr's
 * commands (gdb/avrr.gdb) loaded.  Either takes a FIRMWARE.elf instead of
 * a recording, with `avrr record`'s options, and records it first.
 */
#define _GNU_SOURCE  /* getaddrinfo's flags under -std=c11 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "gdb/server.h"
#include "avrr_gdb.h"  /* AVRR_GDB_SCRIPT, from gdb/avrr.gdb */

#define GDB_PROGRAM "avr-gdb"

/* Whether the socket address is a loopback one: 127.0.0.0/8, ::1, or
 * 127.0.0.0/8 mapped into IPv6.  Decided on the address bound, so that
 * `localhost` and `127.1` count and `0.0.0.0` or `::` do not. */
static int is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return 0;
	const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

/* Listens on host:port (port 0: any free one); returns the socket and the
 * port bound, and whether the address is a loopback one, or -1 after
 * saying why. */
static int listen_on(const char *cmd, const char *host, const char *port, unsigned *bound,
		     int *loopback)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	int rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		cli_fail(cmd, "%s:%s: %s", host, port, gai_strerror(rc));
		return -1;
	}
	int fd = -1, err = 0;
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		int on = 1;
		if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) ||
				bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 1))) {
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		cli_fail(cmd, "cannot listen on %s:%s: %s", host, port, strerror(err ? err : errno));
		return -1;
	}
	struct sockaddr_storage ss = { 0 };
	socklen_t len = sizeof ss;
	getsockname(fd, (struct sockaddr *)&ss, &len);
	*bound = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
					  : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	*loopback = is_loopback(&ss);
	return fd;
}

enum { OPT_PORT = 256, OPT_HOST };

/* What the command line says, for both commands. */
typedef struct gdb_args {
	cli_replay rp;             /* --fp, --match, --window, --checkpoint-memory */
	const char *host, *port;
	cli_record rec;            /* with a FIRMWARE.elf: how to record it */
	char record_opt[64];       /* the first record option given */
	int gdb_at;                /* avrr gdb: where avr-gdb's arguments start */
} gdb_args;

/* One run of getopt over argv from optind; 0, -1 (after saying why) or -2
 * for --help.  elf: the firmware these options follow, if they do. */
static int parse_options(cli_getopt *g, const char *elf, gdb_args *a)
{
	const char *cmd = g->cmd;
	int c, serve = !strcmp(cmd, "serve");
	g->pass_unknown = elf != NULL;
	while ((c = cli_getopt_next(g)) > 0) {
		if (c == '?') {
			/* e.g. avr-gdb's -batch without the -- before it */
			cli_fail(cmd, "unexpected '%s' after %s; avr-gdb's arguments go after --",
				 g->argv[g->at], elf);
			return -1;
		}
		switch (c) {
		case CLI_OPT_FP:
		case CLI_OPT_MATCH:
		case CLI_OPT_WINDOW:
		case CLI_OPT_CHECKPOINT_MEMORY:
			if (cli_replay_option(cmd, &a->rp, c, optarg))
				return -1;
			break;
		case OPT_PORT:
		case OPT_HOST:
			if (!serve) {
				cli_fail(cmd, "%s is for avrr serve; avrr gdb picks a free loopback port",
					 c == OPT_PORT ? "--port" : "--host");
				return -1;
			}
			if (c == OPT_PORT) {
				uint64_t v;
				if (cli_parse_u64(cmd, "--port", optarg, &v))
					return -1;
				if (v > 65535) {
					cli_fail(cmd, "--port %s: not a TCP port (0-65535)", optarg);
					return -1;
				}
				a->port = optarg;
			} else {
				a->host = optarg;
			}
			break;
		default:
			if (!a->record_opt[0])
				snprintf(a->record_opt, sizeof a->record_opt, "%s%s",
					 g->index >= 0 ? "--" : "-",
					 g->index >= 0 ? g->opts[g->index].name : "o");
			if (cli_record_option(cmd, &a->rec, c, optarg))
				return -1;
		}
	}
	return c < 0 ? (g->rc ? -1 : -2) : 0;
}

/* The options both commands take, and avrr record's with a FIRMWARE.elf;
 * returns argv's index of the RUN.db or FIRMWARE.elf, or -1 (after saying
 * why) — or -2 for --help.
 *
 * avrr gdb RUN.db [AVR-GDB ARGS]: what follows RUN.db is avr-gdb's (as it
 * always was; a leading "--" is dropped).  avrr gdb FIRMWARE.elf [OPTIONS]
 * [-- AVR-GDB ARGS]: options after the firmware are still avrr's. */
static int parse(const char *cmd, int argc, char **argv, gdb_args *a)
{
	static const struct option own[] = {
		{ "port", required_argument, NULL, OPT_PORT },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[CLI_MAX_OPTIONS];
	cli_getopt g;
	int serve = !strcmp(cmd, "serve"), rc;
	/* '+': `avrr gdb` stops at RUN.db; what follows is avr-gdb's. */
	const char *shortopts = serve ? ":ho:" : "+:ho:";
	if (cli_options_join(opts, CLI_MAX_OPTIONS, cli_replay_options, cli_travel_options, own,
			     cli_record_options, NULL)) {
		cli_fail(cmd, "internal: too many options");
		return -1;
	}
	cli_getopt_begin(&g, cmd, argc, argv, shortopts, opts);
	if ((rc = parse_options(&g, NULL, a)))
		return rc;
	if (optind >= argc || (serve && optind != argc - 1)) {
		cli_fail(cmd, "expected one RUN.db or FIRMWARE.elf; see 'avrr %s --help'", cmd);
		return -1;
	}
	int at = optind, elf = cli_is_elf(argv[at]);
	if (!serve && elf) {
		optind = at + 1;
		if ((rc = parse_options(&g, argv[at], a)))
			return rc;
		if (optind < argc && !(optind - 1 > at && !strcmp(argv[optind - 1], "--"))) {
			cli_fail(cmd, "unexpected '%s' after %s; avr-gdb's arguments go after --",
				 argv[optind], argv[at]);
			return -1;
		}
		a->gdb_at = optind;
	} else if (!serve) {
		a->gdb_at = at + 1;
		if (a->gdb_at < argc && !strcmp(argv[a->gdb_at], "--"))
			a->gdb_at++;
	}
	if (cli_replay_finish(cmd, &a->rp, elf ? &a->rec : NULL))
		return -1;
	return at;
}

/* Starts the session on the recording; 0, or the exit status after
 * saying why not (1: the engine died, and the host said so). */
static int start(gdb_session *gs, cli_target *t, const rp_options *ro, int lfd)
{
	avrr_err err;
	signal(SIGPIPE, SIG_IGN);
	int rc = gdb_session_start(gs, t->db, ro, lfd, &err);
	close(lfd);
	if (rc) {
		cli_target_close(t);
		if (session_stopped_by())
			return 128 + session_stopped_by();
		return rc == SESSION_DIED ? 1 : cli_fail(gs->who, "%s", err.msg);
	}
	if (gs->warning[0] && !t->recorded)  /* else the recording said it */
		fprintf(stderr, "avrr %s: warning: %s\n", gs->who, gs->warning);
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	gdb_args a = { .host = "127.0.0.1", .port = "1234" };
	gdb_session gs = { .who = "serve" };
	int at = parse("serve", argc, argv, &a);
	if (at < 0)
		return at == -2 ? 0 : EXIT_BAD_INPUT;
	gs.checkpoint_mb = a.rp.checkpoint_mb;
	unsigned bound;
	int loopback;
	int lfd = listen_on("serve", a.host, a.port, &bound, &loopback);
	if (lfd < 0)
		return EXIT_BAD_INPUT;
	/* The gdb protocol has no authentication: whoever reaches the port
	 * reads the recording — every state of the run, and the firmware's
	 * code from flash.  Loopback plus an ssh tunnel is the safe way. */
	if (!loopback)
		fprintf(stderr, "avrr serve: warning: %s:%u is reachable beyond this machine: anyone "
			"who connects can read the recording and its firmware, with no "
			"authentication; to debug from another machine, serve on 127.0.0.1 and "
			"tunnel: ssh -L %u:localhost:%u THIS-HOST\n", a.host, bound, bound, bound);
	cli_target t;
	int rc = cli_target_open("serve", argv[at], &a.rec, a.record_opt[0] ? a.record_opt : NULL,
				 &t);
	if (rc) {
		close(lfd);
		return rc;
	}
	if ((rc = start(&gs, &t, &a.rp.ro, lfd)))
		return rc;
	fprintf(stderr, "avrr serve: %s on %s:%u; in avr-gdb: target remote %s:%u\n", argv[at],
		a.host, bound, a.host, bound);
	rc = gdb_session_wait(&gs);
	cli_target_close(&t);
	if (rc == SESSION_DIED)
		return 1;
	return session_stopped_by() ? 128 + session_stopped_by() : 0;
}

/* Writes gdb/avrr.gdb, the monitor commands as gdb commands, beside the
 * session's firmware. */
static int write_commands(const char *dir, char *path, size_t n)
{
	snprintf(path, n, "%s/avrr.gdb", dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(AVRR_GDB_SCRIPT, f) == EOF || fclose(f)) {
		int e = errno;
		if (f)
			fclose(f);
		return cli_fail("gdb", "%s: %s", path, strerror(e));
	}
	return 0;
}

int cmd_gdb(int argc, char **argv)
{
	gdb_args a = { .host = "127.0.0.1", .port = "0" };
	gdb_session gs = { .who = "gdb", .write_elf = 1 };
	int at = parse("gdb", argc, argv, &a);
	if (at < 0)
		return at == -2 ? 0 : EXIT_BAD_INPUT;
	gs.checkpoint_mb = a.rp.checkpoint_mb;
	unsigned bound;
	int loopback;  /* always: avrr gdb listens on 127.0.0.1 */
	int lfd = listen_on("gdb", a.host, a.port, &bound, &loopback);
	if (lfd < 0)
		return EXIT_BAD_INPUT;
	cli_target t;
	int rc = cli_target_open("gdb", argv[at], &a.rec, a.record_opt[0] ? a.record_opt : NULL, &t);
	if (rc) {
		close(lfd);
		return rc;
	}
	if ((rc = start(&gs, &t, &a.rp.ro, lfd)))
		return rc;
	/* avr-gdb -x avrr.gdb [ours] [the user's] ELF: -x and -ex run in
	 * order after the ELF is loaded; the commands first, so the user's
	 * may use them. */
	int extra = argc - a.gdb_at;
	char **args = calloc((size_t)extra + 10, sizeof *args);
	char target[96], elf[256], cmds[256];
	snprintf(target, sizeof target, "target remote %s:%u", a.host, bound);
	snprintf(elf, sizeof elf, "%s/firmware.elf", gdb_session_dir(&gs));
	if (!args || write_commands(gdb_session_dir(&gs), cmds, sizeof cmds)) {
		free(args);
		gdb_session_stop(&gs);
		cli_target_close(&t);
		return args ? EXIT_BAD_INPUT : cli_fail("gdb", "out of memory");
	}
	int n = 0;
	args[n++] = GDB_PROGRAM;
	args[n++] = "-q";
	args[n++] = "-x";
	args[n++] = cmds;
	args[n++] = "-ex";
	args[n++] = target;
	for (int i = 0; i < extra; i++)
		args[n++] = argv[a.gdb_at + i];
	args[n++] = elf;
	args[n] = NULL;
	/* Ctrl-C is avr-gdb's to handle: it sends the server its interrupt. */
	int status = 127 << 8;
	rc = session_run(&gs.s, args, &status);
	int e = errno;
	free(args);
	gdb_session_stop(&gs);
	cli_target_close(&t);
	if (rc == SESSION_DIED)
		return 1;
	if (rc < 0) {
		fprintf(stderr, "avrr gdb: cannot run %s: %s (Debian: apt-get install gdb-avr)\n",
			GDB_PROGRAM, strerror(e));
		return 127;
	}
	if (session_stopped_by())
		return 128 + session_stopped_by();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
