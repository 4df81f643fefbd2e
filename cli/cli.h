/*
 * cli.h — the batch front-end: one function per subcommand, and the few
 * helpers they share for parsing options and reporting errors.
 *
 * Exit statuses: 0 success, 1 a run that did not succeed (e.g. a replay that
 * diverged), 2 bad input (usage, files, numbers), 130 interrupted.
 */
#ifndef AVRR_CLI_H
#define AVRR_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "recorder/recorder.h"
#include "trace/uart.h"
#include "replayer/replayer.h"

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
int cmd_stamp(int argc, char **argv);
int cmd_device(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_replay_device(int argc, char **argv);  /* replay of an import */

/* Prints "avrr CMD: message" to stderr and returns EXIT_BAD_INPUT. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a non-negative integer (decimal, 0x hex, or with a k/M/G suffix
 * for 10^3/10^6/10^9) for option `opt`; on failure prints why and returns
 * non-zero. */
int cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t *out);

/* --mcu NAME and --board NAME, for every command that opens a firmware:
 * cli_board_set records a --board (unknown names are refused with the
 * list), cli_board_mcu the MCU to simulate (NULL: the ELF's), refusing a
 * --mcu that contradicts the --board. */
typedef struct cli_board {
	const char *mcu;        /* --mcu */
	const char *board_name; /* --board */
	const char *board_mcu;
	uint32_t board_frequency;
	uint32_t freq;          /* --freq; 0: not given */
} cli_board;
/* The three options, one table and one parser for every command that
 * opens a firmware to run it (record and those that record first, device,
 * import, replay of an import): codes 'm', 'b' and 'f', as record's.
 * cli_board_option applies one (0, or EXIT_BAD_INPUT after saying why);
 * cli_board_frequency is the clock to simulate: --freq, else the board's,
 * else 0 (the ELF's). */
extern const struct option cli_board_options[];
int cli_board_option(const char *cmd, cli_board *t, int c, const char *arg);
uint32_t cli_board_frequency(const cli_board *t);
/* A recording holds the MCU and clock it ran with, and a replay runs
 * those: the board options given to a replay must agree with them.  0,
 * or EXIT_BAD_INPUT after saying which differs. */
int cli_board_agrees(const char *cmd, const cli_board *t, const char *path);
int cli_board_set(const char *cmd, cli_board *t, const char *name);
int cli_board_mcu(const char *cmd, const cli_board *t, const char **mcu);
/* For the commands that read code and vectors only (tracer, instrument):
 * the board's clock, else the ELF's, else a nominal one — the clock changes
 * neither. */
uint32_t cli_board_clock(const firmware *fw, const cli_board *t);
#define CLI_BOARD_HELP \
	"      --board NAME        an Arduino board: its MCU and clock (uno, nano,\n" \
	"                          pro-mini, pro-mini8, mega, leonardo, micro, ...)\n"

/* The option loop of every command, table-driven: opts (ending with a
 * NULL name) and shortopts as getopt_long takes them (with a leading ':').
 *
 *	cli_getopt g;
 *	cli_getopt_begin(&g, "replay", argc, argv, ":h", opts);
 *	while ((c = cli_getopt_next(&g)) > 0)
 *		switch (c) { ...the command's own codes... }
 *	if (c < 0)
 *		return g.rc;
 *
 * cli_getopt_next returns an option's code (optarg its value), 0 where the
 * options end (optind at the first operand), or -1 when the command is to
 * return g.rc: after -h/--help (code 'h', the usage printed: 0), a missing
 * value or an unknown option (said as "avrr CMD: ...": EXIT_BAD_INPUT).
 * With pass_unknown set, an unknown option is returned as '?' instead, for
 * the command to say in its own words. */
typedef struct cli_getopt {
	const char *cmd;
	int argc;
	char **argv;
	const char *shortopts;
	const struct option *opts;
	int pass_unknown;  /* '?' to the caller rather than refused */
	int index;         /* out: opts' index of the long option read, else -1 */
	int at;            /* out: argv's index the option was read from */
	int rc;            /* out, once cli_getopt_next returned -1 */
} cli_getopt;
void cli_getopt_begin(cli_getopt *g, const char *cmd, int argc, char **argv,
		      const char *shortopts, const struct option *opts);
int cli_getopt_next(cli_getopt *g);
/* The tables given (a NULL-ended list) one after the other into out (n
 * entries, the last the NULL one); -1 if they do not fit.  On a name in
 * two, getopt takes the first. */
#define CLI_MAX_OPTIONS 48  /* room in a joined table */
int cli_options_join(struct option *out, size_t n, ...);

/* The replay options, one table and one parser for replay, shell, serve,
 * gdb and analyze: --fp (repeatable, kept in order), --match set|sequence,
 * --window N (1..1024); and for the commands that travel back through
 * checkpoints (shell, serve, gdb) --checkpoint-memory MB
 * (1..TRAVEL_MEMORY_MB_MAX).  Their codes are above the commands' own. */
enum { CLI_OPT_FP = 0x400, CLI_OPT_MATCH, CLI_OPT_WINDOW, CLI_OPT_CHECKPOINT_MEMORY };
extern const struct option cli_replay_options[];  /* --fp, --match, --window */
extern const struct option cli_travel_options[];  /* --checkpoint-memory */
typedef struct cli_record cli_record;
typedef struct cli_replay {
	rp_options ro;                  /* match, window; fp_name once finished */
	int match_given;
	const char *fps[CLI_MAX_FP];    /* --fp, in order */
	unsigned nfp;
	unsigned checkpoint_mb;         /* --checkpoint-memory; 0: the default */
} cli_replay;
/* Applies replay option c (a CLI_OPT_* code) with its argument; 0, or
 * EXIT_BAD_INPUT after saying why. */
int cli_replay_option(const char *cmd, cli_replay *p, int c, const char *arg);
/* After the options: --match defaults to sequence; the --fp given name the
 * stored configuration to replay with (one at most) — or, with rec (the
 * target is a firmware, recorded first), the SPECs to record under.  0, or
 * EXIT_BAD_INPUT after saying why. */
int cli_replay_finish(const char *cmd, cli_replay *p, cli_record *rec);
/* Its line in the --help of each command that takes it. */
#define CLI_CHECKPOINT_MEMORY_HELP                                                  \
	"      --checkpoint-memory MB   the checkpoints' memory at most (default 256);\n" \
	"                          beyond it the older ones are thinned\n"

/* What a command writes, for cli_check_output: an existing file of the
 * same kind (one avrr wrote: by its content, or by the mark
 * cli_mark_output left on it) may be replaced; any other needs --force. */
typedef enum cli_output_kind {
	CLI_OUT_RECORDING,  /* an avrr recording (db_is_recording) */
	CLI_OUT_CSV,        /* avrr sweep's CSV, or a shard of one */
	CLI_OUT_VCD,        /* avrr export's value change dump */
	CLI_OUT_HEADER,     /* avrr tracer's tracer.h */
	CLI_OUT_FOLDED,     /* folded stacks: "FRAME;FRAME... COUNT" lines */
	CLI_OUT_ELF,        /* an AVR ELF with the tracer's counter avrr_sic */
	CLI_OUT_DEVLOG,     /* a device log's bytes, from its "AVRL" header (docs/device.md) */
	CLI_OUT_STATE,      /* avrr device's or replay's --state-out: "pc 0x..." text */
	CLI_OUT_RAW,        /* a UART's bytes (export --uart, --uart-out): only the mark says */
} cli_output_kind;

/* Every command that writes a file asks this first, before any work: the
 * output `out` (given with option `opt`, e.g. "-o") must not be any of the
 * n `inputs` (the same file by device and inode, or by real path, so
 * "./fw.elf", a symlink or a hard link count), and an existing non-empty
 * file there must be of `kind` unless `force`.  0 when out may be
 * written; else one line on stderr and EXIT_BAD_INPUT.  A directory is
 * left to the writer, which says so. */
int cli_check_output(const char *cmd, const char *opt, const char *out,
		     const char *const *inputs, int n, cli_output_kind kind, int force);
/* Marks the temporary file f, before it is renamed into place, as an
 * output of `kind` (an extended attribute; see cli_check_output): for the
 * kinds whose content cannot say avrr wrote them.  Fails silently where
 * the file system keeps no such attributes. */
void cli_mark_output(FILE *f, cli_output_kind kind);
/* Whether the file at path carries cli_mark_output's mark of `kind`: a
 * command that rewrites another's output (stamp) keeps it. */
int cli_output_marked(const char *path, cli_output_kind kind);
#define CLI_FORCE_HELP \
	"      --force             replace an existing file that is not what this\n" \
	"                          command writes (by its content, or for raw bytes,\n" \
	"                          logs and ELFs the mark user.avrr.output avrr sets)\n"

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

/* Recording before debugging (cmd_record.c): `avrr gdb FIRMWARE.elf` and
 * `avrr shell FIRMWARE.elf` take the options of `avrr record`, through the
 * same table and parser.  Record options have codes below 256; a command
 * joining them with its own gives its own other codes. */
typedef struct cli_console_uart {  /* what the console's line sink is told */
	cli_record *r;
	unsigned n;
} cli_console_uart;
struct cli_record {
	rec_options o;
	const char *specs[CLI_MAX_FP];  /* --fp SPEC, in order */
	cli_board board;                /* --mcu, --board, --freq */
	int force;                      /* --force: replace a file not ours */
	const char *cmd;                /* for warnings */
	cli_progress prog;
	int console;                    /* echo the firmware's UART output */
	trace_uart_lines lines[TRACE_UARTS];
	cli_console_uart uart[TRACE_UARTS];
};
extern const struct option cli_record_options[];  /* ends with a NULL name */
/* Whether getopt code c is a record option's. */
int cli_record_is_option(int c);
/* Applies record option c with its argument; 0, or EXIT_BAD_INPUT after
 * saying why (as "avrr CMD: ..."). */
int cli_record_option(const char *cmd, cli_record *r, int c, const char *arg);
/* Records firmware into r->o.out_path (without a stop condition, 10M
 * instructions), with progress on a terminal and Ctrl-C as `avrr record`
 * takes it.  0, or an exit status after saying why; nothing is left at
 * out_path on failure. */
int cli_record_run(const char *cmd, cli_record *r, const char *elf);

/* Whether the file at path starts with the ELF magic (else it is taken
 * for a recording, whose opening says what is wrong with it). */
int cli_is_elf(const char *path);

/* The recording a debugging command opens (target.c): path itself, or,
 * when path is an ELF (by content, not name), a recording of it made first
 * with r's options — into r->o.out_path if given (kept), else into a temporary
 * directory that cli_target_close removes.  record_opt names the first
 * record option given (NULL: none), refused with a recording.  0, or an
 * exit status after saying why. */
typedef struct cli_target {
	char db[4096];   /* the recording to open */
	char dir[3800];  /* non-empty: the temporary recording's directory */
	int recorded;    /* made here: the recorder has said its warnings */
} cli_target;
int cli_target_open(const char *cmd, const char *path, cli_record *r, const char *record_opt,
		    cli_target *t);
void cli_target_close(cli_target *t);

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
