/*
 * debuginfo.h — the firmware's DWARF debug information, read with libdw
 * once (one handle per firmware) for every layer that reads it: the
 * shell's expressions (shell/expr.h), the line table (lines.h) and the
 * variables cut into members (members.h).  Types, variables by name, the
 * scopes around a pc with their locals and arguments, where each lives at
 * a pc (DW_OP_* expressions and location lists), and the caller's
 * registers (the .debug_frame call frame information).
 *
 * AVR's DWARF numbers r0..r31 as 0..31 and SP as 32; the return address is
 * column 36.  A base register (DW_OP_bregN, a CFA rule) names the 16-bit
 * pair that starts at rN, as avr-gcc means it (r28: the frame pointer Y).
 * DW_OP_addr gives avr-gcc's data addresses, 0x800000 + a.
 *
 * Every DIE (Dwarf_Die) points into the Dwarf handle and its CU and
 * abbreviation records; dwi_open reads them all, and the shell opens it
 * before its first checkpoint, so DIEs stay valid in every process.
 */
#ifndef AVRR_DWARF_DEBUGINFO_H
#define AVRR_DWARF_DEBUGINFO_H

#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/firmware.h"
#include "util/err.h"

typedef struct dwinfo dwinfo;

/* The data space a location or a frame is read from (registers, I/O,
 * SRAM: address 0 is r0); bytes past `size` read as 0. */
typedef struct dw_mem {
	const uint8_t *data;
	uint32_t size;
} dw_mem;

/* Opens fw's DWARF.  An ELF without DWARF types (stabs, or none) is not an
 * error: dwi_has_types says so.  Returns 0, or -1 with err set. */
int dwi_open(const firmware *fw, dwinfo **out, avrr_err *err);
void dwi_close(dwinfo *d);
int dwi_has_types(const dwinfo *d);

/* The libdw handle and the ELF under it, for the line table and the
 * members (lines.c, members.c).  NULL when the ELF has no DWARF; *damaged
 * is libdw's reason when it has a .debug_info libdw could not read, else
 * NULL. */
Dwarf *dwi_dwarf(const dwinfo *d, const char **damaged);
Elf *dwi_elf(const dwinfo *d);

/* A struct, class or union only declared here (DW_AT_declaration), as
 * another unit defines it: *t replaced by the definition.  Returns 0 (t
 * unchanged when it is complete or no unit defines it), -1 when t is a
 * declaration no unit completes. */
int dw_complete_type(const dwinfo *d, Dwarf_Die *t);

/* A data member's or base class's byte offset in its record: DWARF 4's
 * constant, or DWARF 2's DW_OP_plus_uconst expression; a union's members
 * have none (0).  Returns 0, or -1 for a location avr-gcc does not write
 * (a virtual base). */
int dw_member_offset(Dwarf_Die *member, Dwarf_Word *off);

typedef enum {
	DT_VOID, DT_INT, DT_BOOL, DT_FLOAT, DT_ENUM, DT_PTR, DT_ARRAY, DT_STRUCT,
	DT_UNION, DT_FUNC, DT_REF,
} dt_kind;

/* A C type: a DIE, or a type C's rules make (int, a pointer to a DIE's
 * type).  `named` keeps typedefs and qualifiers for the name; `die` has
 * them stripped, and is the definition of a struct or class a unit only
 * declares.  A C++ class is a DT_STRUCT (is_class), a reference a DT_REF
 * (its target read through it, as gdb does). */
typedef struct dtype {
	dt_kind kind;
	unsigned size;
	int is_signed, is_char;
	int has_die;
	Dwarf_Die named, die;
	unsigned dim;            /* arrays: the subrange this type starts at */
	int ptr_to_named;        /* a pointer made here: to `named` */
	const char *builtin;     /* the name when !has_die and !ptr_to_named */
	int is_class;            /* DW_TAG_class_type: C++'s `class` */
	int cplus;               /* declared in a C++ unit: no struct/union/enum keyword in names */
	const dwinfo *d;         /* for completing declared-only records */
} dtype;

/* The builtin integer types (AVR: int is 2 bytes, long 4, long long 8). */
dtype dt_int(unsigned size, int is_signed);

/* A type from its DIE; -1 (err) for a DIE that is no type libdw can read.
 * d (may be NULL) completes a record the DIE's unit only declares. */
int dt_from_die(const dwinfo *d, Dwarf_Die *die, dtype *t, avrr_err *err);

/* The type of a variable's, member's or function's DW_AT_type (void when
 * it has none). */
int dt_of(const dwinfo *d, Dwarf_Die *die, dtype *t, avrr_err *err);

/* A pointer to t (t must have a DIE). */
int dt_pointer_to(const dtype *t, dtype *p, avrr_err *err);

/* A pointer's pointee, an array's element. */
int dt_target(const dtype *t, dtype *out, avrr_err *err);

/* An array's element count (0 when unknown). */
unsigned dt_count(const dtype *t);

/* The i-th data member of a struct, class or union: name, type, byte
 * offset; a base class comes first, as a member of the base's type whose
 * *name is NULL and *is_base 1 (gdb's `<Base> = {...}`).  Static members
 * (declarations) are not data members.  Returns 0, 1 past the last, or -1
 * (err). */
int dt_member(const dtype *t, unsigned i, const char **name, dtype *mt, unsigned *off,
	      int *is_base, avrr_err *err);

/* The data member `name` of a struct, class or union, searched in its base
 * classes too (C++'s `Serial._rx_buffer_head`): its type and offset from
 * the start of t.  Returns 0, 1 when there is none, -1 (err). */
int dt_find_member(const dtype *t, const char *name, dtype *mt, unsigned *off, avrr_err *err);

/* The type named `name` ("uint16_t", "struct sensor", "unsigned char"). */
int dt_lookup(const dwinfo *d, const char *name, dtype *t, avrr_err *err);

/* gdb's name of a type: "struct sensor * volatile", "char [24]",
 * "volatile uint32_t *", "char (*)[24]". */
void dt_name(const dtype *t, char *buf, size_t n);

/* The same with every typedef looked through, as gdb's ptype names a
 * type: "volatile unsigned long". */
void dt_name_resolved(const dtype *t, char *buf, size_t n);

/* A declaration of `name` with type t, as C writes it: "char digits[5]",
 * "struct sensor *next". */
void dt_declare(const dtype *t, const char *name, char *buf, size_t n);

/* A DIE's name, following DW_AT_abstract_origin; NULL if none. */
const char *die_name(Dwarf_Die *die);

/* ---- frames ---------------------------------------------------------------- */

/* A frame's registers.  Frame 0's are the machine's; an outer frame's are
 * unwound by the CFI (registers the callee saved are read back; the others
 * keep the callee's values, as gdb assumes). */
typedef struct dw_frame {
	uint32_t pc;             /* the frame's pc (a return address in outer frames) */
	int outer;               /* a caller (not an interrupted frame): scopes
				  * are looked up at pc - 1, inside the call */
	uint8_t r[32];
	uint32_t sp;
	uint32_t cfa;            /* data address; valid when has_cfa */
	int has_cfa;
	uint32_t saved_at[33];   /* where this frame saved r0..r31, pc (32): address+1, 0 none */
} dw_frame;

/* Frame 0: the machine's registers in mem, its pc. */
void dw_frame0(const dwinfo *d, const dw_mem *mem, uint32_t pc, dw_frame *f);

/* The caller of f.  Returns 0, or -1 (err) when the CFI cannot say. */
int dw_unwind(const dwinfo *d, const dw_mem *mem, dw_frame *f, dw_frame *caller, avrr_err *err);

/* The innermost function (a DW_TAG_subprogram) around the frame's pc. */
int dw_function(const dwinfo *d, const dw_frame *f, Dwarf_Die *fn);

/* Visits the frame's arguments (args 1) or locals (args 0), innermost
 * block first, as gdb's `info locals` lists them; returns what fn returned
 * if non-zero, else 0. */
int dw_each_var(const dwinfo *d, const dw_frame *f, int args,
		int (*fn)(Dwarf_Die *var, void *ud), void *ud);

/* A variable visible at the frame's pc by name: a local or argument of the
 * innermost scope that has it, else a global. Returns 0, or -1 if none. */
int dw_find_var(const dwinfo *d, const dw_frame *f, const char *name, Dwarf_Die *var);

/* The entry address of the function named `name` (DWARF's name, which a
 * static function keeps when its ELF symbol becomes "name.constprop.0").
 * Returns 0, or -1 if there is none with code. */
int dw_function_addr(const dwinfo *d, const char *name, uint32_t *addr);

/* Where a variable's value is at the frame's pc. */
typedef struct dw_loc {
	enum { LOC_MEM, LOC_VALUE, LOC_OPTIMIZED_OUT } kind;
	uint32_t addr;           /* LOC_MEM: data address */
	uint8_t bytes[16];       /* LOC_VALUE: the value, little-endian */
	unsigned size;
} dw_loc;
int dw_locate(const dwinfo *d, const dw_mem *mem, const dw_frame *f, Dwarf_Die *var,
	      unsigned size, dw_loc *loc, avrr_err *err);

#endif
