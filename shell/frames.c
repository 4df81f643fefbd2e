/*
 * frames.c — unwinding by the code's call frame rows (see frames.h).
 */
#include "shell/frames.h"

#include <string.h>

#include "shell/expr.h"

static unsigned byte_at(const mview *m, uint32_t a)
{
	return a < m->data_size ? m->data[a] : 0;
}

/* The caller of f by its row; 1 when no row covers f's pc. */
static int unwind_row(const cfi_table *t, const mview *m, dw_frame *f, dw_frame *caller,
		      avrr_err *err)
{
	/* A caller's pc is a return address: its row is the call's. */
	const cfi_row *r = cfi_at(t, f->outer ? f->pc - 1 : f->pc);
	if (!r)
		return 1;
	uint32_t base = r->base == CFI_SP ? f->sp : (uint32_t)(f->r[28] | f->r[29] << 8);
	uint32_t cfa = (base + (uint32_t)(int32_t)r->off) & 0xffff;
	unsigned pc_bytes = cfi_pc_bytes(t);
	uint32_t ra = (cfa - (pc_bytes - 1)) & 0xffff, word = 0;
	if (ra + pc_bytes > m->data_size)
		return avrr_errf(err, "the return address of the frame at 0x%x is outside the data space",
				 f->pc);
	f->cfa = cfa;
	f->has_cfa = 1;
	memset(f->saved_at, 0, sizeof f->saved_at);
	*caller = *f;
	caller->has_cfa = 0;
	caller->sp = cfa;
	for (unsigned k = 0; k < 32; k++)
		if (r->saved[k]) {
			uint32_t a = (cfa - r->saved[k]) & 0xffff;
			caller->r[k] = (uint8_t)byte_at(m, a);
			f->saved_at[k] = a + 1;
		}
	for (unsigned k = 0; k < pc_bytes; k++)
		word = word << 8 | byte_at(m, ra + k);
	caller->pc = word * 2;
	f->saved_at[32] = ra + 1;
	/* A handler returns to the instruction it interrupted: that pc is
	 * the caller's own, not one past a call. */
	caller->outer = !r->interrupt;
	memset(caller->saved_at, 0, sizeof caller->saved_at);
	return 0;
}

int frames_get(const cfi_table *t, const dwinfo *d, const mview *m, unsigned n, dw_frame *f,
	       avrr_err *err)
{
	dw_mem mem = expr_mem(m);
	dw_frame0(d, &mem, m->pc, f);
	for (unsigned i = 0;; i++) {
		dw_frame caller;
		int rc = unwind_row(t, m, f, &caller, err);
		if (rc == 1)
			rc = dw_unwind(d, &mem, f, &caller, err);
		if (i == n)
			return 0;   /* this frame's CFA is known where it could be */
		if (rc)
			return -1;
		*f = caller;
	}
}
