/*
 * ui.c — the shell's user side (see ui.h).
 *
 * The UI owns the terminal; the session host (session/session.h) owns the
 * engine's process, its pipes and directory, and the signals.  A command is one line
 * down the command pipe, and the UI waits for the engine's "done" before it
 * reads the next, so output stays in order whichever process is the engine
 * by then.  The lifeline pipe is never written: when the UI exits, its
 * closing tells every checkpoint to go.
 */
#include "shell/ui.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "session/session.h"

#define PROMPT "(avrr) "

typedef struct names {
	char **v;
	size_t n, cap;
} names;

/* What completion offers, from the engine's greeting.  readline's
 * completion callbacks take no user pointer, hence this one static. */
static struct {
	names commands, info, symbols;
} completion;

static int push_name(names *l, const char *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **p = realloc(l->v, cap * sizeof *p);
		if (!p)
			return -1;
		l->v = p;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

static void free_names(names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static const names *completing;

static char *generate(const char *text, int state)
{
	static size_t i;
	if (!state)
		i = 0;
	size_t len = strlen(text);
	while (completing && i < completing->n) {
		const char *s = completing->v[i++];
		if (!strncmp(s, text, len))
			return strdup(s);
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	const char *line = rl_line_buffer;
	while (*line == ' ')
		line++;
	if (line - rl_line_buffer >= start)
		completing = &completion.commands;
	else if (!strncmp(line, "info ", 5) || !strncmp(line, "i ", 2))
		completing = &completion.info;
	else
		completing = &completion.symbols;
	rl_attempted_completion_over = 1;  /* never file names */
	return rl_completion_matches(text, generate);
}

/* session_await's other lines: warnings (printed unless *warn is 0) and
 * the names completion offers. */
static void on_line(const char *line, void *ud)
{
	const int *warn = ud;
	const char *rest;
	if ((rest = wire_rest(line, WIRE_WARN))) {
		if (*warn)
			fprintf(stderr, "avrr shell: warning: %s\n", rest);
	} else if ((rest = wire_rest(line, WIRE_SYM)))
		push_name(&completion.symbols, rest);
	else if ((rest = wire_rest(line, WIRE_CMD)))
		push_name(&completion.commands, rest);
	else if ((rest = wire_rest(line, WIRE_INFO)))
		push_name(&completion.info, rest);
}

static int await(session *s, const char *until, char *error, size_t n, int warn)
{
	return session_await(s, until, on_line, &warn, error, n);
}

static int is_quit(const char *line)
{
	while (*line == ' ')
		line++;
	size_t n = strcspn(line, " ");
	return n && n <= 4 && !strncmp(line, "quit", n) && !line[n + strspn(line + n, " ")];
}

/* The session, for readline's hook, which takes no user pointer. */
static session *ui_session;
static int ui_interactive;

/* The signal that ends the session: SIGTERM or SIGHUP (the host has ended
 * the engine's group), or running a script, Ctrl-C (forwarded to the
 * engine, which stops the running command). */
static int ui_stop;

static int stopped(void)
{
	if (!ui_stop && !ui_interactive && session_interrupted())
		ui_stop = SIGINT;
	if (!ui_stop)
		ui_stop = session_stopped_by();
	return ui_stop;
}

/* The next command: a script's or stdin's line, or readline's.  Returns
 * NULL at the end, when a signal ends the session or when the engine
 * died.  *interactive says which; history is kept for those. */
static char *next_line(FILE *script, int interactive, const char *history)
{
	if (!interactive) {
		/* The input is unbuffered, so that waiting on its descriptor
		 * is waiting for it, and for the engine at once. */
		int w;
		while ((w = session_wait_input(ui_session, fileno(script))) == -1 && !stopped())
			;
		char *line = NULL;
		size_t cap = 0;
		if (w || getline(&line, &cap, script) < 0) {
			free(line);
			return NULL;
		}
		line[strcspn(line, "\r\n")] = 0;
		return line;
	}
	char *line = readline(PROMPT);
	if (line && *line && history) {
		add_history(line);
		append_history(1, history);
	}
	return line;
}

/* readline's wait was interrupted: by Ctrl-C at the prompt, which abandons
 * the line, as in gdb; by a signal that ends the session, or by the
 * engine's end (SIGCHLD). */
static int on_signal_event(void)
{
	if (stopped() || session_check(ui_session)) {
		rl_done = 1;
	} else if (session_interrupted()) {
		rl_replace_line("", 0);
		rl_crlf();
		rl_on_new_line();
		rl_redisplay();
	}
	return 0;
}

/* The engine's side of the session. */
static int run_engine(const session_ends *e, void *arg)
{
	const ui_options *o = arg;
	unsigned mb = o->engine.checkpoint_mb ? o->engine.checkpoint_mb : TRAVEL_MEMORY_MB;
	travel t = { .cmd_fd = e->cmd_fd, .reply_fd = e->reply_fd, .life_fd = e->life_fd,
		     .interval = TRAVEL_INTERVAL, .max = TRAVEL_MAX,
		     .mem_cap_kb = (uint64_t)mb * 1024 };
	snprintf(t.dir, sizeof t.dir, "%s", e->dir);
	return engine_main(&o->engine, &t);
}

int ui_run(const ui_options *o)
{
	FILE *script = stdin;
	if (o->script && !(script = fopen(o->script, "r"))) {
		fprintf(stderr, "avrr shell: %s: %s\n", o->script, strerror(errno));
		return 2;
	}
	int interactive = !o->script && isatty(0);
	if (!interactive)
		setvbuf(script, NULL, _IONBF, 0);
	/* A closed standard output is an error the engine reports, not a
	 * signal that kills it with checkpoints still holding the pipes. */
	signal(SIGPIPE, SIG_IGN);
	session s = { .who = "shell", .kind = "shell", .commands = 1,
		      .sigint = SESSION_SIGINT_FORWARD };
	avrr_err err;
	char error[600];
	int status = 0, rc = 0;
	ui_session = &s;
	ui_interactive = interactive;
	ui_stop = 0;
	if (session_start(&s, run_engine, (void *)o, &err)) {
		fprintf(stderr, "avrr shell: %s\n", err.msg);
		if (script != stdin)
			fclose(script);
		return 2;
	}
	if ((rc = await(&s, WIRE_READY, error, sizeof error, !o->recorded))) {
		if (rc == SESSION_DIED)
			status = 1;
		else if (!stopped())
			fprintf(stderr, "avrr shell: %s\n", error);
		status = status ? status : 2;
		goto out;
	}
	char history[1024] = "";
	if (interactive) {
		const char *home = getenv("HOME");
		if (home) {
			snprintf(history, sizeof history, "%s/.avrr_history", home);
			if (read_history(history) && errno == ENOENT)
				write_history(history);
		}
		rl_readline_name = "avrr";
		rl_attempted_completion_function = complete;
		rl_signal_event_hook = on_signal_event;
	}
	char *last = NULL;
	while (!stopped()) {
		if (interactive)
			session_interrupted();  /* a Ctrl-C during the last command was the engine's */
		char *line = next_line(script, interactive, history[0] ? history : NULL);
		if (session_check(&s)) {
			free(line);
			status = 1;
			break;
		}
		if (!line || is_quit(line) || stopped()) {
			free(line);
			break;
		}
		/* Enter repeats the last command at the prompt, as in gdb. */
		if (interactive && !line[strspn(line, " ")] && last) {
			free(line);
			line = strdup(last);
		}
		if (!line || !line[strspn(line, " ")] || line[strspn(line, " ")] == '#') {
			free(line);
			continue;
		}
		if (session_send(&s, line) || (rc = await(&s, WIRE_DONE, error, sizeof error, 1))) {
			/* A reader that left (`| head`) ends us as it would
			 * any program: quietly, as if by SIGPIPE. */
			if (session_check(&s) || rc == SESSION_DIED) {
				status = 1;
			} else if (!stopped() && !strcmp(error, WIRE_CLOSED)) {
				status = 128 + SIGPIPE;
			} else if (!stopped()) {
				fprintf(stderr, "avrr shell: %s\n", error);
				status = 1;
			}
			free(line);
			break;
		}
		free(last);
		last = line;
	}
	free(last);
	if (!stopped() && !status && !session_send(&s, "quit"))
		await(&s, WIRE_BYE, error, sizeof error, 1);
out:
	session_end(&s);
	if (stopped() && !s.died)
		status = 128 + stopped();
	if (script != stdin)
		fclose(script);
	free_names(&completion.commands);
	free_names(&completion.info);
	free_names(&completion.symbols);
	ui_session = NULL;
	return status;
}
