/*
 * main.c — `avrr CMD [ARGS]`: dispatch to a subcommand, git style.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "cli/cli.h"
#include "fingerprint/fingerprint.h"
#include "util/version.h"

const cli_command cli_commands[] = {
	{ "record", cmd_record, "record a firmware run in simulation into a database",
	  "usage: avrr record FIRMWARE.elf -o RUN.db [options]\n"
	  "\n"
	  "Runs FIRMWARE in simavr and records every interrupt (ground truth) and the\n"
	  "happens-before event log into RUN.db, then prints a summary.\n"
	  "\n"
	  "  -o, --output RUN.db     where to write the recording (required)\n"
	  "      --mcu NAME          MCU, e.g. atmega16 (default: from the ELF's .mmcu or\n"
	  "                          its deviceinfo note; one that contradicts them is refused)\n"
	  "      --freq HZ           clock in Hz (default: from the board, or the ELF's .mmcu)\n"
	  CLI_BOARD_HELP
	  "      --stimuli FILE      the outside world (see docs/stimuli.md)\n"
	  "      --seed N            seed for the stimuli's randomness\n"
	  "      --instructions N    stop after exactly N instructions\n"
	  "      --cycles N          stop at the first instruction boundary at or past cycle N\n"
	  "      --interrupts N      stop after the Nth interrupt entry\n"
	  "                          (default: --instructions 10M; N takes k, M, G suffixes;\n"
	  "                          N >= 1)\n"
	  "      --contexts          also store each interrupt's whole context\n"
	  "      --fp SPEC           record fingerprints under this configuration\n"
	  "                          (repeatable; see docs/fingerprints.md; default:\n"
	  "                          " FP_DEFAULT_SPEC ", 16 bits of the\n"
	  "                          cycle count; '--fp none' records none)\n"
	  "      --json              print the summary as JSON\n"
	  "      --console           echo what the firmware sends on its UARTs to stderr,\n"
	  "                          a line at a time as 'uart0: TEXT' (the default when\n"
	  "                          stderr is a terminal)\n"
	  "  -q, --quiet             no UART echo, even on a terminal\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "info", cmd_info, "summarise a recording",
	  "usage: avrr info RUN.db [--json]\n"
	  "\n"
	  "Prints the recording's firmware, SHA-256, MCU, clock, length, interrupts\n"
	  "(total and per vector), events (total and per type), schema version, and\n"
	  "per fingerprint configuration its record-time metrics (docs/fingerprints.md).\n"
	  "\n"
	  "      --json              machine-readable output\n"
	  "  -h, --help              this help\n" },
	{ "select", cmd_select, "rank registers for a fingerprint selector (frequency-based)",
	  "usage: avrr select FIRMWARE.elf [--gp K] [--io K] [--mcu NAME | --board NAME] [--json]\n"
	  "\n"
	  "Decodes the firmware's code and counts how often each general-purpose and\n"
	  "each I/O register is an operand of the instructions Gracioli & Fischmeister,\n"
	  "\"Tracing Interrupts in Embedded Software\" (LCTES 2009) list (their\n"
	  "frequency-based selection), ranks the two kinds separately, and prints\n"
	  "the rankings with their counts and the selector of the top ones.\n"
	  "\n"
	  "      --gp K              GP registers in the selector (default 3)\n"
	  "      --io K              I/O registers in the selector (default 3)\n"
	  "      --mcu NAME          the MCU whose register names to use, when the ELF\n"
	  "                          does not say\n"
	  CLI_BOARD_HELP
	  "      --json              machine-readable output\n"
	  "  -h, --help              this help\n" },
	{ "fingerprint", cmd_fingerprint, "add fingerprint configurations to a recording",
	  "usage: avrr fingerprint RUN.db --fp SPEC [--fp SPEC ...]\n"
	  "\n"
	  "Computes one fingerprint per recorded interrupt under each configuration\n"
	  "and adds them to RUN.db: from the stored contexts when the recording has\n"
	  "them (record --contexts), else by re-running the recording, which must\n"
	  "match it interrupt for interrupt.  RUN.db is unchanged on any error.\n"
	  "\n"
	  "      --fp SPEC           a configuration (repeatable; docs/fingerprints.md)\n"
	  "  -h, --help              this help\n" },
	{ "replay", cmd_replay, "replay a recording from fingerprints, or evaluate configurations",
	  "usage: avrr replay RUN.db [--fp NAME] [--match set|sequence] [--until ICOUNT]\n"
	  "                          [--keep-going] [--json]\n"
	  "       avrr replay RUN.db --oracle [--fp SPEC ...] [--match set|sequence] [--json]\n"
	  "       avrr replay IMPORT.db [--uart-out F] [--log-out F] [--state-out F]\n"
	  "                          [--log-reg NAME] [--instructions N] [--force]\n"
	  "  (each form also takes --mcu NAME, --board NAME, --freq HZ: they must agree\n"
	  "   with the MCU and clock the recording ran with)\n"
	  "\n"
	  "A recording avrr import made from a device log is replayed from the log\n"
	  "alone: each interrupt where the device's next fingerprint matches, each\n"
	  "input read given the device's value; it stops where the device's tracer\n"
	  "sent its last block, or names the first step that disagrees.  --uart-out,\n"
	  "--log-out and --state-out write what avrr device writes, for comparison\n"
	  "(docs/device.md); --log-reg defaults to the one avrr import was given.\n"
	  "\n"
	  "Plays the recording back instruction by instruction.  The CPU never takes an\n"
	  "interrupt on its own: after each instruction where it could, the fingerprint\n"
	  "of its state is looked up among the recorded ones, and a match enters the\n"
	  "recorded vector.  Input reads get the recorded values, and every event is\n"
	  "checked against the recording.  The replay stops at the first wrong step it\n"
	  "can see: an event out of the log's order, and with the ground truth a false\n"
	  "injection or a recorded interrupt passed over.\n"
	  "Exit status: 0 replayed exactly, 1 diverged or went wrong, 2 bad input.\n"
	  "\n"
	  "      --fp NAME           the stored configuration to replay with\n"
	  "                          (default: 'default', else the first)\n"
	  "      --match sequence    only the next expected interrupt in log order\n"
	  "                          (the default of a replay)\n"
	  "      --match set         any recorded fingerprint matches (the paper's way;\n"
	  "                          the default of --oracle)\n"
	  "      --window N          how many to look ahead with sequence (default 1)\n"
	  "      --until ICOUNT      stop after ICOUNT instructions\n"
	  "      --keep-going        count false and missed interrupts to the end instead\n"
	  "                          of stopping at the first (still exit status 1)\n"
	  "      --oracle            follow the ground truth and evaluate every given\n"
	  "                          configuration (--fp NAME or SPEC, repeatable; default\n"
	  "                          all stored) at every instruction, classifying each hit\n"
	  "      --json              machine-readable output\n"
	  "  -h, --help              this help\n" },
	{ "shell", cmd_shell, "debug a recording interactively, forward and backward",
	  "usage: avrr shell RUN.db [--fp NAME] [--match sequence|set] [--checkpoint-memory MB]\n"
	  "                       [-x SCRIPT]\n"
	  "       avrr shell FIRMWARE.elf [avrr record's options] [-o RUN.db] [shell options]\n"
	  "\n"
	  "Replays the recording as `avrr replay` does, under gdb's commands: stepi,\n"
	  "step, next, finish, continue, their reverse-* forms, goto, break, watch,\n"
	  "info registers, x, print, where, errors, ... ('help' lists them).  Going\n"
	  "backward re-executes from a checkpoint, so every position shows exactly the\n"
	  "state a forward run has there.  With -x, or when stdin is not a terminal, it\n"
	  "reads commands from there and prints only their output.\n"
	  "Given an ELF (by its content) rather than a recording, it records it first\n"
	  "with avrr record's options (--stimuli, --mcu, --freq, --seed,\n"
	  "--instructions, ..., --fp SPEC) into a temporary recording removed at the\n"
	  "end, or into -o RUN.db, which stays.\n"
	  "\n"
	  "      --fp NAME           the stored configuration to replay with\n"
	  "      --match set|sequence, --window N   as for avrr replay\n"
	  CLI_CHECKPOINT_MEMORY_HELP
	  "  -x SCRIPT               read commands from SCRIPT\n"
	  "  -h, --help              this help\n" },
	{ "gdb", cmd_gdb, "debug a recording in avr-gdb, forward and backward",
	  "usage: avrr gdb [--fp NAME] [--match sequence|set] RUN.db [AVR-GDB ARGS...]\n"
	  "       avrr gdb FIRMWARE.elf [avrr record's options] [-o RUN.db] [-- AVR-GDB ARGS...]\n"
	  "\n"
	  "Serves the recording on a free loopback port (as avrr serve) and runs\n"
	  "avr-gdb on it with the recording's firmware for symbols; what follows\n"
	  "RUN.db goes to avr-gdb (e.g. -batch -x SCRIPT).  reverse-stepi,\n"
	  "reverse-continue, watch, rwatch and awatch work as in gdb; avrr's own\n"
	  "commands are loaded as gdb commands: goto ICOUNT, goto irq N, when, irqs,\n"
	  "errors, fingerprint, divergence, uart (docs/gdb.md).  The exit status is avr-gdb's.\n"
	  "Given an ELF (by its content), it records it first with avrr record's\n"
	  "options (--stimuli, --mcu, --freq, --seed, --instructions, ..., --fp SPEC)\n"
	  "into a temporary recording removed at the end, or into -o RUN.db, which\n"
	  "stays; avr-gdb's arguments then follow --.\n"
	  "\n"
	  "      --fp NAME           the stored configuration to replay with\n"
	  "      --match set|sequence, --window N   as for avrr replay\n"
	  CLI_CHECKPOINT_MEMORY_HELP
	  "  -h, --help              this help\n" },
	{ "serve", cmd_serve, "serve a recording to one gdb client (an IDE, avr-gdb)",
	  "usage: avrr serve RUN.db [--port N] [--host ADDR] [--fp NAME] [--match ...]\n"
	  "       avrr serve FIRMWARE.elf [avrr record's options] [-o RUN.db] [--port N] ...\n"
	  "\n"
	  "Opens the recording, listens on ADDR:N (default 127.0.0.1:1234; --port 0\n"
	  "picks a free port) and serves the gdb remote protocol to one client, forward\n"
	  "and backward, until it detaches or goes away.  Prints the address on stderr.\n"
	  "Writes to registers or memory are refused: a replay cannot change the past.\n"
	  "Given an ELF, it records it first, as avrr gdb does.  In avr-gdb, `source\n"
	  "gdb/avrr.gdb` (installed in PREFIX/share/avrr) adds goto, when and irqs.\n"
	  "The protocol has no authentication: on an address beyond loopback anyone who\n"
	  "connects reads the recording and its firmware (a warning says so).  From\n"
	  "another machine, tunnel instead: ssh -L 1234:localhost:1234 HOST.\n"
	  "\n"
	  "      --port N            TCP port (default 1234)\n"
	  "      --host ADDR         address to listen on (default 127.0.0.1, loopback)\n"
	  "      --fp NAME           the stored configuration to replay with\n"
	  "      --match set|sequence, --window N   as for avrr replay\n"
	  CLI_CHECKPOINT_MEMORY_HELP
	  "  -h, --help              this help\n" },
	{ "analyze", cmd_analyze, "analyse a recording on its replay: races, profile",
	  "usage: avrr analyze RUN.db races [--json] [--fp NAME] [--match ...]\n"
	  "       avrr analyze RUN.db profile [--json] [--folded OUT] [--fp NAME] [--match ...]\n"
	  "\n"
	  "Replays the recording from its fingerprints (as avrr replay does) and\n"
	  "analyses the run; a replay that goes wrong fails the analysis (exit 1).\n"
	  "\n"
	  "races    variables (ELF data symbols) that main and an ISR, or two ISRs,\n"
	  "         both access, at least one writing, where an access in the\n"
	  "         interruptible context is not atomic: split across instructions\n"
	  "         with I set between, or a read-modify-write with I set, while the\n"
	  "         other ISR's own source is enabled (its bit in TIMSKn, EIMSK,\n"
	  "         PCICR and PCMSKn, UCSRnB, ...; docs/analyze.md).  Each gives\n"
	  "         both places as file:line and witnesses: icounts where an\n"
	  "         interrupt of the other context came between the halves (goto\n"
	  "         ICOUNT in avrr shell).  Races never witnessed are listed apart.\n"
	  "profile  cycles per function and per ISR (self and total), per vector\n"
	  "         the count, latency (flag raised to entry) and duration (entry to\n"
	  "         RETI), and the stack's high-water mark with its backtrace.\n"
	  "\n"
	  "      --fp NAME           the stored configuration to replay with\n"
	  "      --match set|sequence, --window N   as for avrr replay\n"
	  "      --json              machine-readable output\n"
	  "      --folded OUT        profile: write folded stacks (cycles) for\n"
	  "                          flamegraph.pl or speedscope\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "export", cmd_export, "export a recording's run as waveforms (VCD) or UART output",
	  "usage: avrr export RUN.db --vcd OUT.vcd [--var NAME]... [--json]\n"
	  "       avrr export RUN.db --uart N -o FILE [--json]\n"
	  "\n"
	  "--vcd replays the recording and writes a Value Change Dump that GTKWave\n"
	  "opens: the traced I/O registers (PINx, PORTx, data registers), a wire per\n"
	  "interrupt vector (1 while its ISR runs), the nesting depth, each --var (a\n"
	  "data symbol of up to 8 bytes), and a wire per pin the firmware drives\n"
	  "(pins.portB.PB5: PORTx writes, PINx toggles, timer compare outputs; z\n"
	  "while an input).  Time in ns from the recorded clock.\n"
	  "--uart writes the bytes the firmware wrote to UART N's data register (UDRn,\n"
	  "or UDR), as recorded, raw.\n"
	  "\n"
	  "      --vcd OUT.vcd       where to write the VCD\n"
	  "      --var NAME          a variable to trace (repeatable)\n"
	  "      --uart N            the UART (0..3) whose output to write\n"
	  "  -o, --output FILE       where to write it ('-': standard output)\n"
	  "      --json              print a summary as JSON\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "tracer", cmd_tracer, "write the device-side tracer for a configuration (avr-gcc)",
	  "usage: avrr tracer FIRMWARE.elf [--fp SPEC] [--slots N] [--mcu NAME | --board NAME]\n"
	  "                   [--log SINK [--baud B] [--ring BYTES] [--send-masked]]\n"
	  "                   -o tracer.h\n"
	  "\n"
	  "Writes the C header a firmware includes (avr-gcc -include tracer.h) to record\n"
	  "on the chip the fingerprints avrr record computes in simulation: it wraps\n"
	  "every ISR() in a stub that saves the registers, computes the fingerprint of\n"
	  "the interrupt point and stores it in the ring buffer avrr_trace_ring.\n"
	  "cycles:K uses Timer1; sic:K needs the build rewritten by avrr instrument;\n"
	  "`all` is refused.  See docs/tracer.md.\n"
	  "\n"
	  "      --fp SPEC           the configuration (default: the default one)\n"
	  "      --slots N           ring buffer entries (default 32)\n"
	  "      --log SINK          also send the device log (docs/device.md): uart\n"
	  "                          (UDR0, or UDR), uart1..uart3 (UDR1..UDR3), spi\n"
	  "                          (the tracer the bus master at clk/2), or func\n"
	  "                          (the firmware's avrr_log_sink())\n"
	  "      --baud B            the tracer sets the log's UART up at B baud (8N1)\n"
	  "      --ring BYTES        the log's block in RAM, 8..255 (default 64)\n"
	  "      --send-masked       send every block with interrupts off: no\n"
	  "                          loss from interrupts nesting in the send, but\n"
	  "                          the others wait for it\n"
	  "      --mcu NAME          the MCU, when the ELF does not say\n"
	  CLI_BOARD_HELP
	  "  -o, --output FILE       where to write the header (required)\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "instrument", cmd_instrument, "trace a finished ELF (--log), or rewrite a traced build",
	  "usage: avrr instrument FW.elf --log SINK|none [--fp SPEC] [--baud B]\n"
	  "                       [--ring BYTES] [--send-masked] [--slots N] [--freq HZ]\n"
	  "                       [--mcu NAME | --board NAME] -o OUT.elf\n"
	  "       avrr instrument TRACED.elf [--mcu NAME | --board NAME] [--log-loads]\n"
	  "                       -o OUT.elf\n"
	  "\n"
	  "With --log (or any of the tracer's options): traces a finished ELF with\n"
	  "no source change.  The tracer's runtime, compiled with avr-gcc, goes after\n"
	  "the firmware's flash image; each used vector jumps to its stub, which\n"
	  "records the fingerprint and jumps to the firmware's handler; each IN or\n"
	  "LDS of an input register becomes an RCALL or CALL of a copy that logs the\n"
	  "value; the runtime's RAM is taken from the top of the stack.  Nothing\n"
	  "else moves, so symbols, lines and variables stay as they were.  One line\n"
	  "says what it cost (flash, RAM, cycles per interrupt) or why it refused.\n"
	  "\n"
	  "Without: rewrites a firmware built with the tracer header of a sic:K\n"
	  "configuration (or the device log) and linked with -Wl,--emit-relocs:\n"
	  "before every control transfer sic:K counts\n"
	  "(a taken branch or jump backward, every call, return and indirect jump,\n"
	  "avr-libc's and libgcc's included) it adds an increment of the tracer's\n"
	  "counter avrr_sic, made with interrupts off, and it moves every branch, jump\n"
	  "and code address to match.  Debug information is dropped.  See\n"
	  "docs/tracer.md.\n"
	  "\n"
	  "      --log SINK          uart (UDR0, or UDR), uart1..uart3, spi or func\n"
	  "                          (avrr_log_sink), as avrr tracer; none: the ring\n"
	  "                          buffer only\n"
	  "      --fp SPEC           the configuration (default: as avrr tracer)\n"
	  "      --baud B            the UART sink sets its USART up at reset\n"
	  "      --ring BYTES        the log's block in RAM, 8..255 (default 64)\n"
	  "      --send-masked       send every block with interrupts off\n"
	  "      --slots N           ring buffer entries (default 32)\n"
	  "      --freq HZ           the clock (for --baud; written into the ELF)\n"
	  "      --mcu NAME          the MCU, when the ELF does not say\n"
	  CLI_BOARD_HELP
	  "      --log-loads         with the device log: test every LD/LDD's address at\n"
	  "                          run time and log the inputs it reads\n"
	  "  -o, --output FILE       where to write the new ELF (required)\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "stamp", cmd_stamp, "write a logging firmware's own SHA-256 into its log header",
	  "usage: avrr stamp FW.elf\n"
	  "\n"
	  "The last build step of a firmware built with avrr tracer --log (after avrr\n"
	  "instrument, if any): writes the SHA-256 of the ELF, with the header's hash\n"
	  "and CRC zeroed, into avrr_log_header in place, so the device log names the\n"
	  "firmware that ran.  See docs/device.md.\n"
	  "\n"
	  "  -h, --help              this help\n" },
	{ "device", cmd_device, "run a logging firmware as a stand-in chip, capturing its log",
	  "usage: avrr device FW.elf [--stimuli S] --log-out DUMP [--uart-out FILE]\n"
	  "                   [--state-out FILE] [--log-reg NAME] [--mcu NAME | --board NAME] [--freq HZ]\n"
	  "                   [--instructions N] [--seed N] [--stats]\n"
	  "\n"
	  "Plain simulation with the stimuli: no recorder, no ground truth.  The bytes\n"
	  "the firmware writes to its log's register go to DUMP; its other UART bytes\n"
	  "to --uart-out; --state-out writes the final registers and data space.\n"
	  "See docs/device.md.\n"
	  "\n"
	  "      --stimuli FILE      the inputs (docs/stimuli.md)\n"
	  "      --seed N            the stimuli's seed (default: the file's)\n"
	  "      --log-out FILE      where the log's bytes go (required)\n"
	  "      --uart-out FILE     where the other UART bytes go\n"
	  "      --state-out FILE    the final registers, SP, PC and data space, as text\n"
	  "      --log-reg NAME      the log's register (default: the one the firmware's\n"
	  "                          avrr_log_sink writes, else UDR0, else UDR)\n"
	  "      --mcu NAME          the MCU, when the ELF does not say\n"
	  CLI_BOARD_HELP
	  "      --freq HZ           the clock, when neither the ELF nor a board says\n"
	  "      --instructions N    how long to run (default 2M)\n"
	  "      --stats             count the cycles in the tracer's fingerprint code,\n"
	  "                          its log code and the log's sending, and the\n"
	  "                          interrupts it recorded\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "import", cmd_import, "turn a device log into a recording (no ground truth, no stimuli)",
	  "usage: avrr import DUMP --elf FW.elf -o RUN.db [--allow-gaps] [--log-reg NAME]\n"
	  "                   [--instructions N] [--mcu NAME | --board NAME] [--freq HZ]\n"
	  "\n"
	  "Checks the device log whole (header, SHA-256 against FW.elf, each block's\n"
	  "CRC and sequence) and writes a recording of its fingerprints and input reads,\n"
	  "keeping the log itself.  A damaged, truncated or foreign dump is refused with\n"
	  "one line (exit 2); so is one with lost items, unless --allow-gaps, which\n"
	  "imports up to the first loss.  It replays the log once, as avrr replay does,\n"
	  "to find where each interrupt and read happened, so that avrr shell, gdb,\n"
	  "serve and analyze replay the import as any recording; a log whose replay\n"
	  "stops is written without positions, which only avrr replay replays, and\n"
	  "says where.  See docs/device.md.\n"
	  "\n"
	  "      --elf FW.elf        the firmware that ran (required)\n"
	  "  -o, --output FILE       the recording to write (required)\n"
	  "      --allow-gaps        import up to the first loss\n"
	  "      --log-reg NAME      the register the firmware sent the log to (default:\n"
	  "                          the one its avrr_log_sink writes, else UDR0, else UDR)\n"
	  "      --instructions N    the replay's limit (default 100M)\n"
	  "      --mcu NAME          the MCU (the log's header names it: they must agree)\n"
	  CLI_BOARD_HELP
	  "      --freq HZ           the clock, when neither the ELF nor a board says\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "strip", cmd_strip, "copy a recording without its ground truth",
	  "usage: avrr strip RUN.db -o DEVICE.db\n"
	  "\n"
	  "Writes a copy of RUN.db holding only what a device would have logged: the\n"
	  "event log and the fingerprints, without the ground-truth interrupts and\n"
	  "the selector keys.  A replay of the copy makes the same injections, unscored.\n"
	  "\n"
	  "  -o, --output DEVICE.db  where to write the copy (required)\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ "sweep", cmd_sweep, "evaluate a grid of fingerprint configurations into a CSV",
	  "usage: avrr sweep RUN.db [RUN.db ...] -o RESULTS.csv [options]\n"
	  "       avrr sweep merge PART.csv [PART.csv ...] -o RESULTS.csv [--force]\n"
	  "\n"
	  "Runs the oracle (avrr replay --oracle) over every configuration of a grid —\n"
	  "selectors x widths (or hash bits) x hashes x ra bits, ra <= width — on each\n"
	  "recording, and writes one CSV row per recording, configuration and metric:\n"
	  "recording,config,selector,hash,ra,width,match,metric,value.  Units of up to 64\n"
	  "configurations sharing a selector's bytes (adjacent selectors that differ only\n"
	  "in counters share them) run in parallel processes; the CSV is the same for any\n"
	  "--jobs, and appears only when every unit succeeded.\n"
	  "Exit status: 0 done, 1 a unit failed, 2 bad input, 130 interrupted.\n"
	  "\n"
	  "  -o, --output FILE       where to write the CSV (required)\n"
	  "      --width LIST        fingerprint widths in bits, e.g. 8,12,16 (default 16)\n"
	  "      --hash-bits LIST    instead of --width: hash bits, 1..64; each width is\n"
	  "                          hash bits + ra + the selector's counter bits, e.g.\n"
	  "                          --hash-bits 8 --ra 8 --selector 'S;S+sic:4' gives\n"
	  "                          widths 16 and 20\n"
	  "      --ra LIST           return-address bits (default 0,2,...,16 up to the\n"
	  "                          widest width, or 64 - the fewest hash bits)\n"
	  "      --hash LIST         of modular, twomod, jenkins, knuth, rr (default all five)\n"
	  "      --selector LIST     selectors separated by ';' (repeatable), e.g.\n"
	  "                          'SPL+SPH+SREG+r24;all' (default: SPL+SPH+SREG and the\n"
	  "                          three GP registers 'avrr select' ranks first)\n"
	  "      --match LIST        set, sequence, or set,sequence (default set)\n"
	  "      --jobs N            worker processes (default: the number of cores)\n"
	  "      --shard K/N         only the K-th of N shares of the grid, for a cluster;\n"
	  "                          'avrr sweep merge' joins the N shares' CSVs into the\n"
	  "                          one the whole sweep writes\n"
	  CLI_FORCE_HELP
	  "  -h, --help              this help\n" },
	{ NULL, NULL, NULL, NULL },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: avrr [--version] [--help] COMMAND [ARGS]\n\n"
		   "avrr records interrupt-driven AVR firmware in simulation and replays it,\n"
		   "re-creating each interrupt from a fingerprint of the machine state.\n\n"
		   "commands:\n");
	for (const cli_command *c = cli_commands; c->name; c++)
		fprintf(f, "   %-12s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'avrr COMMAND --help' for a command's options.\n");
	return f == stdout ? 0 : EXIT_BAD_INPUT;
}

/* Output that could not be written is a failure too (a full disk,
 * /dev/full), not a success with nothing said. */
static int flushed(const char *cmd, int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "avrr%s%s: writing the output: %s\n", cmd ? " " : "", cmd ? cmd : "",
			strerror(errno ? errno : EIO));
		return rc ? rc : EXIT_BAD_INPUT;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (sodium_init() < 0) {
		fprintf(stderr, "avrr: libsodium failed to initialise\n");
		return 1;
	}
	if (argc < 2)
		return usage(stderr);
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		if (argc > 2 && strcmp(cmd, "help") == 0)
			return flushed(argv[2], cli_help(argv[2]));
		return flushed(NULL, usage(stdout));
	}
	if (!strcmp(cmd, "--version")) {
		printf("avrr %s\n", AVRR_VERSION);
		return flushed(NULL, 0);
	}
	for (const cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, cmd))
			return flushed(cmd, c->run(argc - 1, argv + 1));
	fprintf(stderr, "avrr: '%s' is not an avrr command; see 'avrr --help'\n", cmd);
	return EXIT_BAD_INPUT;
}
