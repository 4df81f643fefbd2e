/*
 * cli.h — the batch front-end: one function per subcommand, and the few
 * helpers they share for parsing options and reporting errors.
 *
 * Exit statuses: 0 success, 1 a run that did not succeed (e.g. a replay that
 * diverged), 2 bad input (usage, files, numbers), 130 interrupted.
 */
#ifndef AVRR_CLI_H
#define AVRR_CLI_H

#include <stdint.h>
#include <time.h>

#include "../replayer/replayer.h"

#define EXIT_BAD_INPUT 2
#define EXIT_INTERRUPTED 130
#define CLI_MAX_FP 256  /* --fp options per command */

typedef struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;  /* full --help text */
} cli_command;

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_fingerprint(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_strip(int argc, char **argv);
int cmd_shell(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_gdb(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_tracer(int argc, char **argv);
int cmd_instrument(int argc, char **argv);

/* Prints "avrr CMD: message" to stderr and returns EXIT_BAD_INPUT. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a non-negative integer (decimal, 0x hex, or with a k/M/G suffix
 * for 10^3/10^6/10^9) for option `opt`; on failure prints why and returns
 * non-zero. */
int cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t *out);

/* --mcu NAME and --board NAME, for every command that opens a firmware:
 * cli_target_board records a --board (unknown names are refused with the
 * list), cli_target_mcu the MCU to simulate (NULL: the ELF's), refusing a
 * --mcu that contradicts the --board. */
typedef struct cli_target {
	const char *mcu;        /* --mcu */
	const char *board_name; /* --board */
	const char *board_mcu;
	uint32_t board_frequency;
} cli_target;
int cli_target_board(const char *cmd, cli_target *t, const char *name);
int cli_target_mcu(const char *cmd, const cli_target *t, const char **mcu);
/* For the commands that read code and vectors only (tracer, instrument):
 * the board's clock, else the ELF's, else a nominal one — the clock changes
 * neither. */
uint32_t cli_target_clock(const firmware *fw, const cli_target *t);
#define CLI_BOARD_HELP \
	"      --board NAME        an Arduino board: its MCU and clock (uno, nano,\n" \
	"                          pro-mini, pro-mini8, mega, leonardo, micro, ...)\n"

/* The replay options `replay` and `shell` share: --match set|sequence
 * and --window N (1..1024).  On failure they print why and return non-zero. */
int cli_parse_match(const char *cmd, const char *text, rp_match *out);
int cli_parse_window(const char *cmd, const char *text, unsigned *out);
/* --checkpoint-memory MB (1..TRAVEL_MEMORY_MB_MAX), for shell, serve and gdb. */
int cli_parse_checkpoint_memory(const char *cmd, const char *text, unsigned *out);
/* Its line in the --help of each command that takes it. */
#define CLI_CHECKPOINT_MEMORY_HELP                                                  \
	"      --checkpoint-memory MB   the checkpoints' memory at most (default 256);\n" \
	"                          beyond it the older ones are thinned\n"

/* Progress of a long run on stderr, "WHAT: 42%", only on a terminal and
 * only once the run has taken a second; cli_progress_end clears the line. */
typedef struct cli_progress {
	const char *what;
	int tty, shown;
	time_t start;
} cli_progress;
void cli_progress_start(cli_progress *p, const char *what);
void cli_progress_show(void *ud, uint64_t done, uint64_t total);  /* ud: a cli_progress */
void cli_progress_end(cli_progress *p);

/* Prints the command's usage (for --help) and returns 0. */
int cli_help(const char *cmd);

/* Set by SIGINT/SIGTERM.  The one piece of global state: a signal handler
 * has no other way to speak. */
extern volatile int cli_interrupted;
/* The shell's way: every SIGINT asks the running command to stop. */
void cli_catch_signals(void);
/* A batch command's way: the first SIGINT asks to stop, cleanly; a second,
 * or a SIGTERM, ends the process at once (exit 128 + signal), removing the
 * file `remove` (may be NULL) — a half-written temporary. */
void cli_catch_signals_hard(const char *remove);

/* The registry, for `avrr --help` and dispatch. */
extern const cli_command cli_commands[];

#endif
