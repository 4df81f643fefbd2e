/*
 * ui.h — the shell's user side: GNU readline (history in ~/.avrr_history,
 * completion of commands and ELF symbols), or a script, feeding the engine
 * (engine.h) one command at a time in a process of its own.
 */
#ifndef AVRR_UI_H
#define AVRR_UI_H

#include "shell/engine.h"

typedef struct ui_options {
	engine_options engine;
	const char *script;   /* -x FILE, or NULL: stdin (readline on a terminal) */
	int recorded;         /* made just now: its recording said the warnings */
} ui_options;

/* Runs a session; returns the exit status (0, or 2 when the recording or
 * the script cannot be opened, with one line on stderr). */
int ui_run(const ui_options *o);

#endif
