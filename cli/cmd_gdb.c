/*
 * cmd_gdb.c — `avrr serve`: a gdb remote server on a recording, for avr-gdb
 * or an IDE; `avrr gdb`: the same on a free loopback port, with avr-gdb
 * started on it and the recording's own firmware for symbols.
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

#include "cli.h"
#include "../gdb/server.h"
#include "../timeline/travel.h"

#define GDB_PROGRAM "avr-gdb"

/* What a signal handler needs to end a session: handlers take no user
 * pointer, hence these statics. */
static volatile sig_atomic_t engine_group, gdb_child, stopped_by;

/* SIGTERM, SIGHUP (and for serve, SIGINT): the engine's process group goes
 * at once, and avr-gdb with it; the session then ends as if by a client
 * leaving, and its directory goes. */
static void on_stop(int sig)
{
	stopped_by = sig;
	if (engine_group > 0)
		kill(-engine_group, SIGKILL);
	if (gdb_child > 0)
		kill(gdb_child, SIGTERM);
}

static void catch_stops(const gdb_session *gs, int with_sigint)
{
	engine_group = gs->pid;
	travel_catch(SIGTERM, on_stop, 0);
	travel_catch(SIGHUP, on_stop, 0);
	if (with_sigint)
		travel_catch(SIGINT, on_stop, 0);
	travel_hold_signals(0);
}

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

/* The options both commands take; returns optind's RUN.db index, or -1
 * (after saying why) — or -2 for --help. */
static int parse(const char *cmd, int argc, char **argv, rp_options *ro, const char **host,
		 const char **port, unsigned *checkpoint_mb)
{
	static const struct option opts[] = {
		{ "fp", required_argument, NULL, 'F' },
		{ "match", required_argument, NULL, 'm' },
		{ "window", required_argument, NULL, 'w' },
		{ "checkpoint-memory", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, serve = !strcmp(cmd, "serve");
	opterr = 0;
	optind = 1;
	/* '+': `avrr gdb` stops at RUN.db; what follows is avr-gdb's. */
	while ((c = getopt_long(argc, argv, serve ? ":h" : "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			ro->fp_name = optarg;
			break;
		case 'm':
			if (cli_parse_match(cmd, optarg, &ro->match))
				return -1;
			break;
		case 'w':
			if (cli_parse_window(cmd, optarg, &ro->window))
				return -1;
			break;
		case 'C':
			if (cli_parse_checkpoint_memory(cmd, optarg, checkpoint_mb))
				return -1;
			break;
		case 'p':
		case 'H':
			if (!serve) {
				cli_fail(cmd, "%s is for avrr serve; avrr gdb picks a free loopback port",
					 c == 'p' ? "--port" : "--host");
				return -1;
			}
			if (c == 'p') {
				uint64_t v;
				if (cli_parse_u64(cmd, "--port", optarg, &v))
					return -1;
				if (v > 65535) {
					cli_fail(cmd, "--port %s: not a TCP port (0-65535)", optarg);
					return -1;
				}
				*port = optarg;
			} else {
				*host = optarg;
			}
			break;
		case 'h':
			cli_help(cmd);
			return -2;
		case ':':
			cli_fail(cmd, "%s needs a value", argv[optind - 1]);
			return -1;
		default:
			cli_fail(cmd, "unknown option '%s'; see 'avrr %s --help'", argv[optind - 1], cmd);
			return -1;
		}
	}
	if (optind >= argc || (serve && optind != argc - 1)) {
		cli_fail(cmd, "expected one RUN.db; see 'avrr %s --help'", cmd);
		return -1;
	}
	return optind;
}

int cmd_serve(int argc, char **argv)
{
	rp_options ro = { .match = RP_MATCH_SEQUENCE };
	const char *host = "127.0.0.1", *port = "1234";
	gdb_session gs = { 0 };
	int at = parse("serve", argc, argv, &ro, &host, &port, &gs.checkpoint_mb);
	if (at < 0)
		return at == -2 ? 0 : EXIT_BAD_INPUT;
	unsigned bound;
	int loopback;
	int lfd = listen_on("serve", host, port, &bound, &loopback);
	if (lfd < 0)
		return EXIT_BAD_INPUT;
	/* The gdb protocol has no authentication: whoever reaches the port
	 * reads the recording — every state of the run, and the firmware's
	 * code from flash.  Loopback plus an ssh tunnel is the safe way. */
	if (!loopback)
		fprintf(stderr, "avrr serve: warning: %s:%u is reachable beyond this machine: anyone "
			"who connects can read the recording and its firmware, with no "
			"authentication; to debug from another machine, serve on 127.0.0.1 and "
			"tunnel: ssh -L %u:localhost:%u THIS-HOST\n", host, bound, bound, bound);
	avrr_err err;
	signal(SIGPIPE, SIG_IGN);
	travel_hold_signals(1);
	if (gdb_session_start(&gs, argv[at], &ro, lfd, &err)) {
		close(lfd);
		return cli_fail("serve", "%s", err.msg);
	}
	close(lfd);
	if (gs.warning[0])
		fprintf(stderr, "avrr serve: warning: %s\n", gs.warning);
	catch_stops(&gs, 1);
	fprintf(stderr, "avrr serve: %s on %s:%u; in avr-gdb: target remote %s:%u\n", argv[at],
		host, bound, host, bound);
	gdb_session_wait(&gs);
	return stopped_by ? 128 + stopped_by : 0;
}

int cmd_gdb(int argc, char **argv)
{
	rp_options ro = { .match = RP_MATCH_SEQUENCE };
	const char *host = "127.0.0.1", *port = "0";
	gdb_session gs = { .write_elf = 1 };
	int at = parse("gdb", argc, argv, &ro, &host, &port, &gs.checkpoint_mb);
	if (at < 0)
		return at == -2 ? 0 : EXIT_BAD_INPUT;
	unsigned bound;
	int loopback;  /* always: avrr gdb listens on 127.0.0.1 */
	int lfd = listen_on("gdb", host, port, &bound, &loopback);
	if (lfd < 0)
		return EXIT_BAD_INPUT;
	avrr_err err;
	signal(SIGPIPE, SIG_IGN);
	travel_hold_signals(1);
	if (gdb_session_start(&gs, argv[at], &ro, lfd, &err)) {
		close(lfd);
		return cli_fail("gdb", "%s", err.msg);
	}
	close(lfd);
	if (gs.warning[0])
		fprintf(stderr, "avrr gdb: warning: %s\n", gs.warning);
	/* avr-gdb [ours] [the user's] ELF: its -ex run in order after the ELF
	 * is loaded, ours first. */
	int extra = argc - at - 1;
	char **args = calloc((size_t)extra + 8, sizeof *args);
	char target[96], elf[256];
	snprintf(target, sizeof target, "target remote %s:%u", host, bound);
	snprintf(elf, sizeof elf, "%s/firmware.elf", gdb_session_dir(&gs));
	if (!args) {
		gdb_session_stop(&gs);
		return cli_fail("gdb", "out of memory");
	}
	int n = 0;
	args[n++] = GDB_PROGRAM;
	args[n++] = "-q";
	args[n++] = "-ex";
	args[n++] = target;
	for (int i = 0; i < extra; i++)
		args[n++] = argv[at + 1 + i];
	args[n++] = elf;
	args[n] = NULL;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		travel_hold_signals(0);
		execvp(GDB_PROGRAM, args);
		fprintf(stderr, "avrr gdb: cannot run %s: %s (Debian: apt-get install gdb-avr)\n",
			GDB_PROGRAM, strerror(errno));
		_exit(127);
	}
	/* Ctrl-C is avr-gdb's to handle: it sends the server its interrupt. */
	signal(SIGINT, SIG_IGN);
	gdb_child = pid;
	catch_stops(&gs, 0);
	int status = 127;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(args);
	gdb_session_stop(&gs);
	if (pid < 0)
		return cli_fail("gdb", "%s", strerror(errno));
	if (stopped_by)
		return 128 + stopped_by;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
