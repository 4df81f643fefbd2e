/*
 * ui.c — the shell's user side (see ui.h).
 *
 * The UI owns the terminal and the session's directory; the engine, and
 * every checkpoint after it, are its descendants.  A command is one line
 * down the command pipe, and the UI waits for the engine's "done" before it
 * reads the next, so output stays in order whichever process is the engine
 * by then.  The lifeline pipe is never written: when the UI exits, its
 * closing tells every checkpoint to go.
 */
#include "ui.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

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

/* Reads the engine's lines until `until` (or an error line).  "closed":
 * the engine's standard output went away (a reader such as `head` left).
 * Its warnings are printed unless `warn` is 0. */
static int await(FILE *from, const char *until, char *error, size_t n, int warn)
{
	char line[600];
	while (fgets(line, sizeof line, from)) {
		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, until) || !strcmp(line, "bye"))
			return 0;
		if (!strncmp(line, "error ", 6) || !strcmp(line, "closed")) {
			snprintf(error, n, "%s", line[0] == 'c' ? line : line + 6);
			return -1;
		}
		if (!strncmp(line, "warn ", 5)) {
			if (warn)
				fprintf(stderr, "avrr shell: warning: %s\n", line + 5);
		} else if (!strncmp(line, "sym ", 4))
			push_name(&completion.symbols, line + 4);
		else if (!strncmp(line, "cmd ", 4))
			push_name(&completion.commands, line + 4);
		else if (!strncmp(line, "info ", 5))
			push_name(&completion.info, line + 5);
	}
	snprintf(error, n, "the engine stopped unexpectedly");
	return -1;
}

static int is_quit(const char *line)
{
	while (*line == ' ')
		line++;
	size_t n = strcspn(line, " ");
	return n && n <= 4 && !strncmp(line, "quit", n) && !line[n + strspn(line + n, " ")];
}

/* The next command: a script's or stdin's line, or readline's.  Returns
 * NULL at the end.  *interactive says which; history is kept for those. */
static char *next_line(FILE *script, int interactive, const char *history)
{
	if (!interactive) {
		char *line = NULL;
		size_t cap = 0;
		if (getline(&line, &cap, script) < 0) {
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

/* Signal state: handlers take no user pointer, hence these statics. */
static volatile sig_atomic_t ui_sigint;   /* Ctrl-C at the prompt */
static volatile sig_atomic_t ui_stop;     /* the signal that ends the session */
static volatile sig_atomic_t engine_group;  /* the engine's and its checkpoints' */
static int ui_interactive;

/* Ctrl-C goes to the engine, which stops the running command; at the
 * prompt it abandons the line, as in gdb.  Running a script, it ends the
 * session. */
static void on_sigint(int sig)
{
	if (engine_group > 0)
		kill(-engine_group, SIGINT);
	if (ui_interactive)
		ui_sigint = 1;
	else
		ui_stop = sig;
}

/* SIGTERM, SIGHUP: the engine and every checkpoint end at once; the UI
 * then sees the reply pipe close and cleans up. */
static void on_stop(int sig)
{
	ui_stop = sig;
	if (engine_group > 0)
		kill(-engine_group, SIGKILL);
}

static int on_signal_event(void)
{
	if (ui_stop) {
		rl_done = 1;
	} else if (ui_sigint) {
		ui_sigint = 0;
		rl_replace_line("", 0);
		rl_crlf();
		rl_on_new_line();
		rl_redisplay();
	}
	return 0;
}

int ui_run(const ui_options *o)
{
	FILE *script = stdin;
	if (o->script && !(script = fopen(o->script, "r"))) {
		fprintf(stderr, "avrr shell: %s: %s\n", o->script, strerror(errno));
		return 2;
	}
	int interactive = !o->script && isatty(0);
	char dir[200];
	int cmd[2], rep[2], life[2];
	if (travel_make_dir(dir, sizeof dir, "shell") || pipe(cmd) || pipe(rep) || pipe(life)) {
		fprintf(stderr, "avrr shell: %s\n", strerror(errno));
		if (script != stdin)
			fclose(script);
		return 2;
	}
	fflush(stdout);
	/* A closed standard output is an error the engine reports, not a
	 * signal that kills it with checkpoints still holding the pipes. */
	signal(SIGPIPE, SIG_IGN);
	travel_hold_signals(1);
	pid_t pid = fork();
	if (pid == 0) {
		/* The engine and its checkpoints form a process group, so
		 * one kill ends them all. */
		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		travel_hold_signals(0);
		close(cmd[1]);
		close(rep[0]);
		close(life[1]);
		unsigned mb = o->engine.checkpoint_mb ? o->engine.checkpoint_mb : TRAVEL_MEMORY_MB;
		travel t = { .cmd_fd = cmd[0], .reply_fd = rep[1], .life_fd = life[0],
			     .interval = TRAVEL_INTERVAL, .max = TRAVEL_MAX,
			     .mem_cap_kb = (uint64_t)mb * 1024 };
		snprintf(t.dir, sizeof t.dir, "%s", dir);
		_exit(engine_main(&o->engine, &t));
	}
	if (pid > 0) {
		setpgid(pid, pid);  /* as the child does: whichever runs first */
		engine_group = pid;
	}
	ui_interactive = interactive;
	travel_catch(SIGTERM, on_stop, 0);
	travel_catch(SIGHUP, on_stop, 0);
	travel_catch(SIGINT, on_sigint, interactive);
	travel_hold_signals(0);
	close(cmd[0]);
	close(rep[1]);
	close(life[0]);
	FILE *from = fdopen(rep[0], "r");
	char error[600];
	int status = 0;
	if (pid < 0 || !from || await(from, "ready", error, sizeof error, !o->recorded)) {
		if (!ui_stop)
			fprintf(stderr, "avrr shell: %s\n", pid < 0 ? strerror(errno) : error);
		status = 2;
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
	while (!ui_stop) {
		ui_sigint = 0;  /* a Ctrl-C during the last command was the engine's */
		char *line = next_line(script, interactive, history[0] ? history : NULL);
		if (!line || is_quit(line) || ui_stop) {
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
		if (dprintf(cmd[1], "%s\n", line) < 0 || await(from, "done", error, sizeof error, 1)) {
			/* A reader that left (`| head`) ends us as it would
			 * any program: quietly, as if by SIGPIPE. */
			if (!ui_stop && !strcmp(error, "closed")) {
				status = 128 + SIGPIPE;
			} else if (!ui_stop) {
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
	if (!ui_stop && !status && dprintf(cmd[1], "quit\n") > 0)
		await(from, "bye", error, sizeof error, 1);
out:
	if (from)
		fclose(from);
	close(cmd[1]);
	close(life[1]);
	/* Whatever is left of the engine's group (an engine that did not say
	 * bye, checkpoints on their way out) goes now, before its directory. */
	if (pid > 0) {
		engine_group = 0;
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	travel_remove_dir(dir);
	if (ui_stop)
		status = 128 + ui_stop;
	if (script != stdin)
		fclose(script);
	free_names(&completion.commands);
	free_names(&completion.info);
	free_names(&completion.symbols);
	return status;
}
