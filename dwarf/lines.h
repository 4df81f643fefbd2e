/*
 * lines.h — the firmware's source line table, for the shell's `list`,
 * `step`, `break FILE:LINE` and source locations in frame lines.
 *
 * The table comes from the DWARF line program (read with libdw).  Debian's
 * avr-gcc 5.4 writes stabs, not DWARF, for plain -g (the bundled traces/NAME.elf
 * carry only avr-libc's empty DWARF unit), so when DWARF gives no rows the
 * `.stab` section's line entries are read instead; both give the same rows.
 *
 * Addresses are flash byte addresses (what avr-objdump prints).  File names
 * are as the debug info names them, joined with the compilation directory
 * where it gives one ("/work/main/traces/adcapp.c"); callers wanting the
 * basename take what follows the last '/'.
 */
#ifndef AVRR_LINES_H
#define AVRR_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/debuginfo.h"
#include "sim/firmware.h"
#include "util/err.h"

typedef struct src_lines src_lines;

/* Reads the line table of fw's ELF.  A firmware without line info gives a
 * table with no rows (lines_available 0), not an error; damaged DWARF or
 * stabs give an error ("x.elf: damaged DWARF line table (...)"). */
int lines_load(const firmware *fw, src_lines **out, avrr_err *err);
/* The same through a handle already open (path names the firmware in
 * errors). */
int lines_of(const dwinfo *d, const char *path, src_lines **out, avrr_err *err);
void lines_free(src_lines *t);

/* Whether the table has any rows. */
int lines_available(const src_lines *t);

/* The source line of code byte address pc: its file and line.  Where several
 * rows share an address the last one wins (as avr-addr2line reports).
 * Returns 0, or -1 when pc is not covered (outside every sequence, e.g. in
 * libgcc or the vector table). */
int lines_at(const src_lines *t, uint32_t pc, const char **file, unsigned *line);

/* Whether pc begins a row that is a statement start (is_stmt) and whose
 * file:line differs from the previous row's (the row before it in address
 * order, within the same sequence), i.e. where gdb's `step` would stop. */
int lines_is_line_start(const src_lines *t, uint32_t pc);

/* The lowest is_stmt address of FILE:LINE; FILE matches a table file by full
 * name, by basename, or as a path suffix at a '/' ("traces/adcapp.c").  If no
 * row has exactly LINE, uses the first line after it that has code (as gdb
 * does for breakpoints).  Returns 0, or -1 with err set ("no line 999 in
 * adcapp.c" / "no source file named foo.c"). */
int lines_addr(const src_lines *t, const char *file, unsigned line,
	       uint32_t *addr, avrr_err *err);

/* File names that have code, for tab completion: the i-th, or NULL past the
 * end.  Full names as described above. */
const char *lines_file(const src_lines *t, size_t i);

#endif
