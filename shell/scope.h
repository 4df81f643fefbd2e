/*
 * scope.h — the shell's frames and source, in gdb's shapes: the frame line
 * of `up`, `down` and `frame`, `info frame`, `info locals`, `info args`,
 * and the source text `list` prints.
 *
 *   frame line   "#1  0x00000154 in report (s=0x800108 <sensors+6>, slot=1 '\001') at sensors.c:91"
 *                (frame 0 at the start of a line leaves out the address)
 *   source line  "91\t\tuint8_t len = format_line(line, s->id, s->last);"
 *   info locals  "name = value" per variable, innermost block first;
 *                "<optimized out>" where there is no location at the pc;
 *                "No locals." / "No arguments."
 */
#ifndef AVRR_SHELL_SCOPE_H
#define AVRR_SHELL_SCOPE_H

#include <stdio.h>

#include "shell/expr.h"
#include "dwarf/lines.h"

/* Frame n (0: innermost) unwound by the CFI, with its CFA where the CFI
 * knows it.  Returns 0, or -1 (err). */
int scope_frame(const dwinfo *d, const mview *m, unsigned n, dw_frame *f, avrr_err *err);

/* The frame's function name ("report"; the ELF symbol without DWARF). */
void scope_function_name(const xctx *c, char *buf, size_t n);

/* "#N  ..." and, when there is source, the line itself. */
void scope_frame_line(FILE *out, const xctx *c, unsigned n, const src_lines *lines);

/* `info locals` (args 0) and `info args` (args 1). */
void scope_vars(FILE *out, const xctx *c, int args);

/* `info frame` for frame n (c->f), its caller (NULL for the outermost) and
 * the frame it calls (NULL for frame 0). */
void scope_info_frame(FILE *out, const xctx *c, unsigned n, const dw_frame *caller,
		      const dw_frame *callee, const src_lines *lines);

/* Prints lines [from, to] of `file` as "N\ttext"; returns the number of
 * lines printed, or -1 (err) when the file cannot be read or from is past
 * its end ("Line number 120 out of range; \"sensors.c\" has 119 lines."). */
int scope_list(FILE *out, const char *file, unsigned from, unsigned to, avrr_err *err);

#endif
