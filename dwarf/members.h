/*
 * members.h — a firmware's static variables split into their members, from
 * the DWARF types (libdw).
 *
 * An analysis that judges accesses per variable needs the variable's
 * parts, not its whole: C++'s `Serial` is one 157-byte object whose ring
 * buffer indices the RX interrupt and loop() each write one of, and whose
 * vtable pointer only the constructor writes.  Each variable the DWARF
 * places in the data space (DW_OP_addr) is cut into leaves: a struct's or
 * class's members (its base classes' too, flattened), an array's elements,
 * down to scalars (base types, pointers, enums); a union stays whole, its
 * members overlap.  A leaf's path is what follows the variable's name:
 * "._rx_buffer_head", "._rx_buffer[3]", "[2].count", "" for a scalar.
 *
 * A firmware without DWARF (stabs, or stripped) gives no leaves: not an
 * error, the callers keep whole symbols.  The types are read as the
 * shell's `print` reads them (debuginfo.h): the same member offsets, base
 * classes and completed declarations.
 */
#ifndef AVRR_TIMELINE_MEMBERS_H
#define AVRR_TIMELINE_MEMBERS_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/debuginfo.h"
#include "sim/firmware.h"
#include "util/err.h"

/* At most this many leaves per variable; a larger one is kept whole. */
#define MEMBERS_MAX_PER_VAR 4096

typedef struct src_member {
	uint32_t addr;          /* data-space address */
	uint32_t size;          /* bytes */
	char *path;             /* "._rx_buffer_head", "[3]", "" */
} src_member;

typedef struct src_members {
	src_member *m;          /* sorted by addr; leaves of one variable are adjacent */
	size_t n;
} src_members;

/* Reads the leaves of every data-space variable; damaged DWARF is an
 * error, missing DWARF an empty table.  members_of reads them through a
 * handle already open (path names the firmware in errors); members_load
 * opens one for the call. */
int members_of(const dwinfo *d, const char *path, src_members *out, avrr_err *err);
int members_load(const firmware *fw, src_members *out, avrr_err *err);
void members_free(src_members *t);

/* The leaves in [addr, addr + size), their count in *n (none: NULL). */
const src_member *members_in(const src_members *t, uint32_t addr, uint32_t size, size_t *n);

#endif
