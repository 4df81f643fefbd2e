/*
 * frames.h — the shell's frames, unwound through the code's own call frame
 * rows (dwarf/cfi.h), so that a frame is right at every instruction of an
 * interrupt handler, prologue and epilogue included, and an interrupted
 * frame's registers are those the handler saved.  Where the code gives no
 * rows (a function not followed) the DWARF CFI is the fallback.
 */
#ifndef AVRR_SHELL_FRAMES_H
#define AVRR_SHELL_FRAMES_H

#include "dwarf/cfi.h"
#include "dwarf/debuginfo.h"
#include "shell/view.h"

/* Frame n (0 innermost): its registers, pc and, where known, its CFA and
 * where it saved its caller's registers.  f->outer is 0 for frame 0 and
 * for a frame an interrupt stopped (its pc is the interrupted
 * instruction), 1 for a caller (its pc is a return address).  Returns 0,
 * or -1 (err) when frame n cannot be reached. */
int frames_get(const cfi_table *t, const dwinfo *d, const mview *m, unsigned n, dw_frame *f,
	       avrr_err *err);

#endif
