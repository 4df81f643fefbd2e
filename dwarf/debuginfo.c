/*
 * debuginfo.c — DWARF types, variables, scopes, locations and call frames
 * (see debuginfo.h).
 *
 * libdw does the reading: CUs and DIEs, location lists at a pc
 * (dwarf_getlocation_addr), scopes (dwarf_getscopes), the CFI
 * (dwarf_cfi_addrframe).  What is ours is the small DWARF expression
 * machine that turns a location into an address or a value on AVR, and
 * gdb's way of naming types.
 */
#include "dwarf/debuginfo.h"

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "util/avrspace.h"

#define SPL_ADDR 0x5d
#define SPH_ADDR 0x5e
#define DW_REG_SP 32
#define DW_REG_RA 36

/* A complete struct, class or union type, by name: a unit that only
 * declares one (C's `extern struct tank tank;` with `struct tank;`, C++'s
 * `extern HardwareSerial Serial` in HardwareSerial0.cpp) leaves its
 * members to the unit that defines it. */
typedef struct named_type {
	const char *name;
	Dwarf_Off off;
} named_type;

struct dwinfo {
	const firmware *fw;
	char *image;            /* the ELF's bytes, ours: libelf may convert them in place */
	Elf *elf;
	Dwarf *dw;
	int has_debug_info;     /* a .debug_info section: dw NULL then means damaged */
	char dw_error[128];     /* libdw's reason when it could not read it */
	named_type *types;      /* complete records by name, for declarations */
	size_t ntypes;
	const uint8_t *frame;   /* .debug_frame, in the firmware's bytes; NULL if none */
	size_t frame_size;
	int has_types;
	unsigned pc_bytes;      /* 2, or 3 on parts with more than 128 KiB flash */
};

/* ---- opening ---------------------------------------------------------------- */

/* Whether a compiled unit describes types: DWARF for the firmware's own code.
 * Debian's avr-gcc writes stabs for a plain -g; the ELF then still carries
 * avr-libc's own unit (producer "avr-libc 2.0.0": the device's I/O
 * registers), which says nothing of the firmware's variables. */
static int any_types(Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		Dwarf_Attribute a;
		const char *producer = NULL;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_attr(&cu, DW_AT_producer, &a))
			producer = dwarf_formstring(&a);
		if (producer && !strncmp(producer, "avr-libc", 8)) {
			off = next;
			continue;
		}
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do
				if (dwarf_tag(&c) == DW_TAG_base_type)
					return 1;
			while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return 0;
}

/* Reads every DIE once.  libdw builds its CU and abbreviation records
 * lazily, on the heap, and a Dwarf_Die points at them; the shell keeps
 * DIEs in state that travels to processes forked from older checkpoints
 * (tl_carry), so every record must exist before the first fork, at the
 * same address in every process. */
static void touch_dies(Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	dwarf_tag(die);
	if (depth < 64 && dwarf_child(die, &c) == 0)
		do
			touch_dies(&c, depth + 1);
		while (dwarf_siblingof(&c, &c) == 0);
}

static void touch_all(Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu))
			touch_dies(&cu, 0);
		off = next;
	}
}

static int is_record(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

static int by_name(const void *pa, const void *pb)
{
	const named_type *a = pa, *b = pb;
	return strcmp(a->name, b->name);
}

/* The complete records of a unit, at its top level and in namespaces;
 * with types NULL, only counts them. */
static size_t collect_types(Dwarf_Die *parent, named_type *types, size_t n, int depth)
{
	Dwarf_Die c;
	if (depth > 16 || dwarf_child(parent, &c) != 0)
		return n;
	do {
		int tag = dwarf_tag(&c);
		const char *name = dwarf_diename(&c);
		if (tag == DW_TAG_namespace) {
			n = collect_types(&c, types, n, depth + 1);
		} else if (is_record(tag) && name && !dwarf_hasattr(&c, DW_AT_declaration)) {
			if (types)
				types[n] = (named_type){ name, dwarf_dieoffset(&c) };
			n++;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

static size_t collect_all(Dwarf *dw, named_type *types)
{
	Dwarf_Off off = 0, next;
	size_t hsize, n = 0;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu))
			n = collect_types(&cu, types, n, 0);
		off = next;
	}
	return n;
}

static int index_types(dwinfo *d)
{
	size_t n = collect_all(d->dw, NULL);
	if (!n)
		return 0;
	d->types = calloc(n, sizeof *d->types);
	if (!d->types)
		return -1;
	d->ntypes = collect_all(d->dw, d->types);
	qsort(d->types, d->ntypes, sizeof *d->types, by_name);
	return 0;
}

int dw_complete_type(const dwinfo *d, Dwarf_Die *t)
{
	const char *name = dwarf_diename(t);
	if (!is_record(dwarf_tag(t)) || !dwarf_hasattr(t, DW_AT_declaration) || !name ||
	    !d->ntypes)
		return 0;
	named_type key = { name, 0 };
	const named_type *hit = bsearch(&key, d->types, d->ntypes, sizeof key, by_name);
	Dwarf_Die def;
	if (!hit || !dwarf_offdie(d->dw, hit->off, &def))
		return -1;
	*t = def;
	return 0;
}

int dwi_open(const firmware *fw, dwinfo **out, avrr_err *err)
{
	dwinfo *d = calloc(1, sizeof *d);
	if (d)
		d->image = malloc(fw->elf_size ? fw->elf_size : 1);
	if (!d || !d->image) {
		free(d);
		return avrr_errf(err, "out of memory");
	}
	memcpy(d->image, fw->elf, fw->elf_size);
	d->fw = fw;
	elf_version(EV_CURRENT);
	d->pc_bytes = fw->flash_size > 0x20000 ? 3 : 2;
	d->elf = elf_memory(d->image, fw->elf_size);
	size_t shstr;
	Elf_Scn *scn = NULL;
	while (d->elf && !elf_getshdrstrndx(d->elf, &shstr) && (scn = elf_nextscn(d->elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(d->elf, shstr, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_info"))
			d->has_debug_info = 1;
		if (!strcmp(name, ".debug_frame") && sh.sh_type != SHT_NOBITS &&
		    sh.sh_offset <= fw->elf_size && sh.sh_size <= fw->elf_size - sh.sh_offset) {
			d->frame = fw->elf + sh.sh_offset;
			d->frame_size = sh.sh_size;
		}
	}
	if (d->has_debug_info) {
		d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
		if (!d->dw)
			snprintf(d->dw_error, sizeof d->dw_error, "%s", dwarf_errmsg(-1));
	}
	if (d->dw) {
		d->has_types = any_types(d->dw);
		touch_all(d->dw);
		if (index_types(d)) {
			dwi_close(d);
			return avrr_errf(err, "out of memory");
		}
	}
	*out = d;
	return 0;
}

void dwi_close(dwinfo *d)
{
	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	free(d->types);
	free(d->image);
	free(d);
}

Dwarf *dwi_dwarf(const dwinfo *d, const char **damaged)
{
	*damaged = d->has_debug_info && !d->dw ? d->dw_error : NULL;
	return d->dw;
}

Elf *dwi_elf(const dwinfo *d)
{
	return d->elf;
}

int dwi_has_types(const dwinfo *d)
{
	return d && d->has_types;
}

/* ---- types ------------------------------------------------------------------ */

const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
}

static int die_ref(Dwarf_Die *die, unsigned at, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, at, &a) && dwarf_formref_die(&a, out) ? 0 : -1;
}

static unsigned die_udata(Dwarf_Die *die, unsigned at, unsigned dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr_integrate(die, at, &a) || dwarf_formudata(&a, &w))
		return dflt;
	return (unsigned)w;
}

dtype dt_int(unsigned size, int is_signed)
{
	dtype t = { .kind = DT_INT, .size = size, .is_signed = is_signed };
	t.builtin = size == 1 ? (is_signed ? "signed char" : "unsigned char")
		  : size == 2 ? (is_signed ? "int" : "unsigned int")
		  : size == 4 ? (is_signed ? "long" : "unsigned long")
		  : (is_signed ? "long long" : "unsigned long long");
	return t;
}

static int is_qualifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type;
}

/* Whether a DIE's unit is C++ (gdb then names types without `struct`). */
static int in_cplus(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return 0;
	int lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

int dt_from_die(const dwinfo *dwi, Dwarf_Die *die, dtype *t, avrr_err *err)
{
	memset(t, 0, sizeof *t);
	t->has_die = 1;
	t->named = *die;
	t->d = dwi;
	t->cplus = in_cplus(die);
	Dwarf_Die d = *die;
	for (int depth = 0; is_qualifier(dwarf_tag(&d)); depth++) {
		if (depth > 32)
			return avrr_errf(err, "damaged DWARF: a type refers to itself");
		if (die_ref(&d, DW_AT_type, &d)) {
			t->kind = DT_VOID;    /* const void */
			t->die = d;
			return 0;
		}
	}
	if (dwi && dw_complete_type(dwi, &d))
		return avrr_errf(err, "incomplete type");
	t->die = d;
	t->size = die_udata(&d, DW_AT_byte_size, 0);
	switch (dwarf_tag(&d)) {
	case DW_TAG_base_type: {
		unsigned enc = die_udata(&d, DW_AT_encoding, DW_ATE_unsigned);
		t->kind = enc == DW_ATE_float ? DT_FLOAT : enc == DW_ATE_boolean ? DT_BOOL : DT_INT;
		t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
		break;
	}
	case DW_TAG_enumeration_type:
		t->kind = DT_ENUM;
		break;
	case DW_TAG_pointer_type:
		t->kind = DT_PTR;
		if (!t->size)
			t->size = 2;
		break;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = DT_REF;
		if (!t->size)
			t->size = 2;
		break;
	case DW_TAG_class_type:
		t->is_class = 1;
		/* fall through */
	case DW_TAG_structure_type:
		t->kind = DT_STRUCT;
		break;
	case DW_TAG_union_type:
		t->kind = DT_UNION;
		break;
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:
		t->kind = DT_FUNC;
		break;
	case DW_TAG_array_type: {
		t->kind = DT_ARRAY;
		dtype el;
		if (dt_target(t, &el, err))
			return -1;
		t->size = el.size * dt_count(t);
		break;
	}
	default:
		return avrr_errf(err, "unsupported DWARF type (tag 0x%x)", (unsigned)dwarf_tag(&d));
	}
	return 0;
}

int dt_of(const dwinfo *dwi, Dwarf_Die *die, dtype *t, avrr_err *err)
{
	Dwarf_Die ty;
	if (die_ref(die, DW_AT_type, &ty)) {
		memset(t, 0, sizeof *t);
		t->kind = DT_VOID;
		t->builtin = "void";
		return 0;
	}
	return dt_from_die(dwi, &ty, t, err);
}

int dt_pointer_to(const dtype *t, dtype *p, avrr_err *err)
{
	if (!t->has_die)
		return avrr_errf(err, "cannot take a pointer to a %s", t->builtin ? t->builtin : "value");
	memset(p, 0, sizeof *p);
	p->kind = DT_PTR;
	p->size = 2;
	p->ptr_to_named = 1;
	p->d = t->d;
	p->cplus = t->cplus;
	p->named = t->named;
	p->die = t->named;
	p->dim = t->dim;
	return 0;
}

/* The subrange children of an array DIE, the i-th in *sub. */
static int subrange(Dwarf_Die *arr, unsigned i, Dwarf_Die *sub)
{
	if (dwarf_child(arr, sub) != 0)
		return -1;
	unsigned k = 0;
	do
		if (dwarf_tag(sub) == DW_TAG_subrange_type && k++ == i)
			return 0;
	while (dwarf_siblingof(sub, sub) == 0);
	return -1;
}

unsigned dt_count(const dtype *t)
{
	Dwarf_Die sub, arr = t->die;
	if (t->kind != DT_ARRAY || subrange(&arr, t->dim, &sub))
		return 0;
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (dwarf_attr(&sub, DW_AT_count, &a) && !dwarf_formudata(&a, &w))
		return (unsigned)w;
	if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &w))
		return (unsigned)w + 1;
	return 0;
}

int dt_target(const dtype *t, dtype *out, avrr_err *err)
{
	Dwarf_Die d = t->die, sub;
	if (t->kind == DT_PTR && t->ptr_to_named) {
		if (dt_from_die(t->d, &d, out, err))
			return -1;
		out->dim = t->dim;
		if (out->kind == DT_ARRAY) {
			dtype el;
			unsigned size = 1;
			if (dt_target(out, &el, err))
				return -1;
			size = el.size * dt_count(out);
			out->size = size;
		}
		return 0;
	}
	if (t->kind == DT_PTR || t->kind == DT_REF) {
		if (die_ref(&d, DW_AT_type, &sub)) {
			memset(out, 0, sizeof *out);
			out->kind = DT_VOID;
			out->builtin = "void";
			return 0;
		}
		return dt_from_die(t->d, &sub, out, err);
	}
	if (t->kind != DT_ARRAY)
		return avrr_errf(err, "not a pointer or array");
	Dwarf_Die next;
	if (!subrange(&d, t->dim + 1, &next)) {
		/* The rest of a multi-dimensional array: the same DIE, one
		 * dimension on. */
		*out = *t;
		out->dim = t->dim + 1;
		dtype el;
		if (dt_target(out, &el, err))
			return -1;
		out->size = el.size * dt_count(out);
		return 0;
	}
	if (die_ref(&d, DW_AT_type, &sub))
		return avrr_errf(err, "damaged DWARF: an array without an element type");
	return dt_from_die(t->d, &sub, out, err);
}

int dw_member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute at;
	if (!dwarf_attr(m, DW_AT_data_member_location, &at))
		return dwarf_tag(m) == DW_TAG_member ? (*off = 0, 0) : -1;  /* a union's */
	if (dwarf_formudata(&at, off) == 0)
		return 0;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_getlocation(&at, &ops, &nops) == 0 && nops == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -1;
}

/* A record's data members and base classes; static members are
 * declarations, variables of their own. */
static int is_data_member(Dwarf_Die *c)
{
	int tag = dwarf_tag(c);
	return (tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
	       !dwarf_hasattr(c, DW_AT_declaration);
}

int dt_member(const dtype *t, unsigned i, const char **name, dtype *mt, unsigned *off,
	      int *is_base, avrr_err *err)
{
	Dwarf_Die d = t->die, c;
	if (dwarf_child(&d, &c) != 0)
		return 1;
	unsigned k = 0;
	do {
		if (!is_data_member(&c) || k++ != i)
			continue;
		*is_base = dwarf_tag(&c) == DW_TAG_inheritance;
		*name = *is_base ? NULL : die_name(&c);
		Dwarf_Word w = 0;
		if (dw_member_offset(&c, &w))
			return avrr_errf(err, "unsupported DWARF member location (a virtual base?)");
		*off = (unsigned)w;
		return dt_of(t->d, &c, mt, err);
	} while (dwarf_siblingof(&c, &c) == 0);
	return 1;
}

static int find_member(const dtype *t, const char *name, dtype *mt, unsigned *off,
		       avrr_err *err, int depth)
{
	if (depth > 16)
		return 1;
	for (unsigned i = 0;; i++) {
		const char *mn;
		dtype m;
		unsigned o;
		int base;
		int r = dt_member(t, i, &mn, &m, &o, &base, err);
		if (r)
			return r;
		if (!base && mn && !strcmp(mn, name)) {
			*mt = m;
			*off = o;
			return 0;
		}
		/* An anonymous struct or union's members are the record's own. */
		if ((base || !mn) && (m.kind == DT_STRUCT || m.kind == DT_UNION)) {
			r = find_member(&m, name, mt, off, err, depth + 1);
			if (r <= 0) {
				if (!r)
					*off += o;
				return r;
			}
		}
	}
}

int dt_find_member(const dtype *t, const char *name, dtype *mt, unsigned *off, avrr_err *err)
{
	return find_member(t, name, mt, off, err, 0);
}

/* C's names for the builtin integers, when the DWARF has no such base type. */
static int builtin_type(const char *name, dtype *t)
{
	static const struct { const char *name; unsigned size; int sign, is_char; } B[] = {
		{ "char", 1, 1, 1 }, { "signed char", 1, 1, 1 }, { "unsigned char", 1, 0, 1 },
		{ "short", 2, 1, 0 }, { "unsigned short", 2, 0, 0 }, { "int", 2, 1, 0 },
		{ "unsigned int", 2, 0, 0 }, { "unsigned", 2, 0, 0 }, { "long", 4, 1, 0 },
		{ "unsigned long", 4, 0, 0 }, { "long long", 8, 1, 0 },
		{ "unsigned long long", 8, 0, 0 },
	};
	for (size_t i = 0; i < sizeof B / sizeof *B; i++)
		if (!strcmp(name, B[i].name)) {
			*t = dt_int(B[i].size, B[i].sign);
			t->is_char = B[i].is_char;
			t->builtin = B[i].name;
			return 0;
		}
	return -1;
}

int dt_lookup(const dwinfo *d, const char *name, dtype *t, avrr_err *err)
{
	int want = DW_TAG_base_type;
	const char *n = name;
	if (!strncmp(name, "struct ", 7))
		want = DW_TAG_structure_type, n = name + 7;
	else if (!strncmp(name, "class ", 6))
		want = DW_TAG_class_type, n = name + 6;
	else if (!strncmp(name, "union ", 6))
		want = DW_TAG_union_type, n = name + 6;
	else if (!strncmp(name, "enum ", 5))
		want = DW_TAG_enumeration_type, n = name + 5;
	/* The firmware's own units first: avr-libc's declares uint8_t and
	 * uint16_t as base types of its own. */
	Dwarf_Die fallback;
	int have_fallback = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (d->dw && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		Dwarf_Attribute a;
		const char *producer = NULL;
		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_attr(&cu, DW_AT_producer, &a))
			producer = dwarf_formstring(&a);
		int libc = producer && !strncmp(producer, "avr-libc", 8);
		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				int tag = dwarf_tag(&c);
				const char *cn = die_name(&c);
				if (!cn || strcmp(cn, n))
					continue;
				/* C++ names a class, struct, union or enum without
				 * its keyword; `struct X` and `class X` are one. */
				int cplus_name = want == DW_TAG_base_type && in_cplus(&c) &&
						 (is_record(tag) || tag == DW_TAG_enumeration_type);
				int keyword = (want == DW_TAG_structure_type || want == DW_TAG_class_type) &&
					      (tag == DW_TAG_structure_type || tag == DW_TAG_class_type);
				if (tag != want && !keyword && !cplus_name &&
				    !(want == DW_TAG_base_type && tag == DW_TAG_typedef))
					continue;
				if (!libc)
					return dt_from_die(d, &c, t, err);
				if (!have_fallback)
					fallback = c, have_fallback = 1;
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	if (have_fallback)
		return dt_from_die(d, &fallback, t, err);
	if (want == DW_TAG_base_type && !builtin_type(name, t))
		return 0;
	return avrr_errf(err, "No symbol \"%s\" in current context.", name);
}

/* C++'s qualification of a name declared inside a class or namespace:
 * "Stream::" for Stream's MultiTarget. */
static void cplus_scope(Dwarf_Die *d, char *buf, size_t n)
{
	Dwarf_Die *sc = NULL;
	int k = dwarf_getscopes_die(d, &sc);
	size_t len = 0;
	buf[0] = 0;
	for (int i = k - 1; i >= 1; i--) {
		int tag = dwarf_tag(&sc[i]);
		const char *nm = dwarf_diename(&sc[i]);
		if (nm && (is_record(tag) || tag == DW_TAG_namespace))
			len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s::", nm);
	}
	free(sc);
}

/* gdb's declarator syntax: the name of DIE d around `inner` (what is
 * already built outside it: "*", "* volatile", "(*)[24]"). */
static void name_die(Dwarf_Die *d, const char *inner, char *buf, size_t n, int depth,
		     int through)
{
	char in2[200];
	Dwarf_Die t;
	int tag = dwarf_tag(d);
	int has_t = !die_ref(d, DW_AT_type, &t);
	const char *nm = die_name(d);
	if (depth > 16) {
		snprintf(buf, n, "?");
		return;
	}
	if (through && tag == DW_TAG_typedef && has_t) {
		name_die(&t, inner, buf, n, depth + 1, through);
		return;
	}
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		snprintf(in2, sizeof in2, "%s%s%s",
			 tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&" : "&&",
			 *inner && *inner != '(' && *inner != '[' ? " " : "", inner);
		if (has_t)
			name_die(&t, in2, buf, n, depth + 1, through);
		else
			snprintf(buf, n, "void %s", in2);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		const char *q = tag == DW_TAG_const_type ? "const" : "volatile";
		int tt = has_t ? dwarf_tag(&t) : 0;
		if (tt == DW_TAG_reference_type || tt == DW_TAG_rvalue_reference_type) {
			/* A reference is const by nature: gdb names no qualifier. */
			name_die(&t, inner, buf, n, depth + 1, through);
			return;
		}
		if (tt == DW_TAG_pointer_type) {
			snprintf(in2, sizeof in2, "%s%s%s", q, *inner ? " " : "", inner);
			name_die(&t, in2, buf, n, depth + 1, through);
		} else {
			char sub[200];
			if (has_t)
				name_die(&t, inner, sub, sizeof sub, depth + 1, through);
			else
				snprintf(sub, sizeof sub, "void%s%s", *inner ? " " : "", inner);
			snprintf(buf, n, "%s %s", q, sub);
		}
		return;
	}
	case DW_TAG_array_type: {
		dtype at = { .kind = DT_ARRAY, .die = *d, .has_die = 1 };
		char dims[64] = "";
		size_t len = 0;
		for (at.dim = 0; !subrange(d, at.dim, &t); at.dim++)
			len += (size_t)snprintf(dims + len, len < sizeof dims ? sizeof dims - len : 0,
						"[%u]", dt_count(&at));
		if (*inner == '*')
			snprintf(in2, sizeof in2, "(%s)%s", inner, dims);
		else
			snprintf(in2, sizeof in2, "%s%s", inner, dims);
		if (!die_ref(d, DW_AT_type, &t))
			name_die(&t, in2, buf, n, depth + 1, through);
		else
			snprintf(buf, n, "? %s", in2);
		return;
	}
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram: {
		char params[160] = "";
		size_t len = 0;
		Dwarf_Die c;
		if (dwarf_child(d, &c) == 0)
			do {
				if (dwarf_tag(&c) != DW_TAG_formal_parameter)
					continue;
				char p[64];
				Dwarf_Die pt;
				if (die_ref(&c, DW_AT_type, &pt))
					continue;
				name_die(&pt, "", p, sizeof p, depth + 1, through);
				len += (size_t)snprintf(params + len,
							len < sizeof params ? sizeof params - len : 0,
							"%s%s", len ? ", " : "", p);
			} while (dwarf_siblingof(&c, &c) == 0);
		if (*inner)
			snprintf(in2, sizeof in2, "(%s)(%s)", inner, len ? params : "void");
		else
			snprintf(in2, sizeof in2, "(%s)", len ? params : "void");
		if (has_t)
			name_die(&t, in2, buf, n, depth + 1, through);
		else
			snprintf(buf, n, "void %s", in2);
		return;
	}
	default: {
		/* gdb's spelling of GCC's base type names. */
		static const char *const CANON[][2] = {
			{ "long unsigned int", "unsigned long" }, { "long int", "long" },
			{ "short unsigned int", "unsigned short" }, { "short int", "short" },
			{ "long long unsigned int", "unsigned long long" },
			{ "long long int", "long long" },
		};
		for (size_t i = 0; nm && tag == DW_TAG_base_type && i < sizeof CANON / sizeof *CANON; i++)
			if (!strcmp(nm, CANON[i][0]))
				nm = CANON[i][1];
		const char *kw = in_cplus(d) ? ""
			       : tag == DW_TAG_structure_type ? "struct "
			       : tag == DW_TAG_class_type ? "class "
			       : tag == DW_TAG_union_type ? "union "
			       : tag == DW_TAG_enumeration_type ? "enum " : "";
		char scope[160] = "";
		if (in_cplus(d))
			cplus_scope(d, scope, sizeof scope);
		snprintf(buf, n, "%s%s%s%s%s", kw, scope, nm ? nm : "{...}", *inner ? " " : "", inner);
		return;
	}
	}
}

void dt_name(const dtype *t, char *buf, size_t n)
{
	Dwarf_Die d = t->named;
	if (t->ptr_to_named)
		name_die(&d, "*", buf, n, 0, 0);
	else if (t->has_die)
		name_die(&d, "", buf, n, 0, 0);
	else
		snprintf(buf, n, "%s", t->builtin ? t->builtin : "int");
}

void dt_name_resolved(const dtype *t, char *buf, size_t n)
{
	Dwarf_Die d = t->named;
	if (t->ptr_to_named)
		name_die(&d, "*", buf, n, 0, 1);
	else if (t->has_die)
		name_die(&d, "", buf, n, 0, 1);
	else
		dt_name(t, buf, n);
}

void dt_declare(const dtype *t, const char *name, char *buf, size_t n)
{
	Dwarf_Die d = t->named;
	char inner[160];
	if (t->ptr_to_named) {
		snprintf(inner, sizeof inner, "*%s", name);
		name_die(&d, inner, buf, n, 0, 0);
	} else if (t->has_die) {
		name_die(&d, name, buf, n, 0, 0);
	} else {
		snprintf(buf, n, "%s %s", t->builtin ? t->builtin : "int", name);
	}
}

/* ---- frames ----------------------------------------------------------------- */

static unsigned dbyte(const dw_mem *m, uint32_t a)
{
	return a < m->size ? m->data[a] : 0;
}

void dw_frame0(const dwinfo *d, const dw_mem *m, uint32_t pc, dw_frame *f)
{
	(void)d;
	memset(f, 0, sizeof *f);
	f->pc = pc;
	memcpy(f->r, m->data, m->size < 32 ? m->size : 32);
	f->sp = dbyte(m, SPL_ADDR) | dbyte(m, SPH_ADDR) << 8;
}

/* A base register's value: the pair at rN (SP for 32). */
static int base_reg(const dw_frame *f, unsigned reg, uint32_t *v)
{
	if (reg == DW_REG_SP)
		*v = f->sp;
	else if (reg < 31)
		*v = f->r[reg] | (uint32_t)f->r[reg + 1] << 8;
	else if (reg == 31)
		*v = f->r[31];
	else
		return -1;
	return 0;
}

/* What a DWARF expression left: an address, a value, or nothing known. */
typedef struct piece_out {
	uint8_t bytes[16];
	unsigned n;              /* bytes assembled so far (pieces) */
	int in_mem;              /* a single piece-less memory location */
	uint32_t addr;
} piece_out;

/* Evaluates ops[0..nops) for frame f.  Returns 1 for a memory location
 * (*addr), 2 for a value (*val) or a register (*reg >= 0), 0 for
 * optimized out (an entry value, an op not handled), -1 on error. */
typedef struct eval_env {
	const dwinfo *d;
	const dw_mem *m;
	const dw_frame *f;
	Dwarf_Die *fn;           /* for DW_OP_fbreg */
} eval_env;

static int eval_ops(const eval_env *env, const Dwarf_Op *ops, size_t nops, piece_out *po,
		    int depth);

static int frame_base(const eval_env *env, uint64_t *out, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (!env->fn || !dwarf_attr_integrate(env->fn, DW_AT_frame_base, &a))
		return -1;
	uint32_t pc = env->f->outer ? env->f->pc - 1 : env->f->pc;
	if (dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1)
		return -1;
	piece_out po = { 0 };
	int r = eval_ops(env, ops, nops, &po, depth + 1);
	if (r == 1) {
		*out = po.addr;
		return 0;
	}
	if (r == 2 && po.n >= 2) {
		*out = po.bytes[0] | (uint32_t)po.bytes[1] << 8;
		return 0;
	}
	return -1;
}

static int eval_ops(const eval_env *env, const Dwarf_Op *ops, size_t nops, piece_out *po,
		    int depth)
{
	uint64_t st[16];
	int sp = 0;
	int reg = -1, is_value = 0;
	uint32_t v;
	const dw_frame *f = env->f;
	if (depth > 4)
		return 0;
#define PUSH(x) do { if (sp == 16) return 0; st[sp++] = (x); } while (0)
#define NEED(k) do { if (sp < (k)) return 0; } while (0)
	for (size_t i = 0; i < nops; i++) {
		unsigned op = ops[i].atom;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			PUSH(op - DW_OP_lit0);
		} else if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			reg = (int)(op - DW_OP_reg0);
		} else if (op == DW_OP_regx) {
			reg = (int)ops[i].number;
		} else if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx) {
			unsigned r = op == DW_OP_bregx ? (unsigned)ops[i].number : op - DW_OP_breg0;
			int64_t off = (int64_t)(op == DW_OP_bregx ? ops[i].number2 : ops[i].number);
			if (base_reg(f, r, &v))
				return 0;
			PUSH((uint64_t)((int64_t)v + off));
		} else {
			switch (op) {
			case DW_OP_addr:
			case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
			case DW_OP_const8u: case DW_OP_constu:
			case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
			case DW_OP_const8s: case DW_OP_consts:
				PUSH(ops[i].number);
				break;
			case DW_OP_fbreg: {
				uint64_t fb;
				if (frame_base(env, &fb, depth))
					return 0;
				PUSH(fb + ops[i].number);
				break;
			}
			case DW_OP_call_frame_cfa:
				if (!f->has_cfa)
					return 0;
				PUSH(f->cfa);
				break;
			case DW_OP_plus_uconst: NEED(1); st[sp - 1] += ops[i].number; break;
			case DW_OP_plus: NEED(2); sp--; st[sp - 1] += st[sp]; break;
			case DW_OP_minus: NEED(2); sp--; st[sp - 1] -= st[sp]; break;
			case DW_OP_mul: NEED(2); sp--; st[sp - 1] *= st[sp]; break;
			case DW_OP_and: NEED(2); sp--; st[sp - 1] &= st[sp]; break;
			case DW_OP_or: NEED(2); sp--; st[sp - 1] |= st[sp]; break;
			case DW_OP_xor: NEED(2); sp--; st[sp - 1] ^= st[sp]; break;
			case DW_OP_shl: NEED(2); sp--; st[sp - 1] <<= st[sp] & 63; break;
			case DW_OP_shr: NEED(2); sp--; st[sp - 1] >>= st[sp] & 63; break;
			case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
			case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
			case DW_OP_dup: {
				NEED(1);
				uint64_t top = st[sp - 1];
				PUSH(top);
				break;
			}
			case DW_OP_drop: NEED(1); sp--; break;
			case DW_OP_deref: NEED(1);
				v = (uint32_t)st[sp - 1] & 0xffff;
				st[sp - 1] = dbyte(env->m, v) | dbyte(env->m, v + 1) << 8;
				break;
			case DW_OP_stack_value:
				is_value = 1;
				break;
			case DW_OP_piece: {
				unsigned size = (unsigned)ops[i].number;
				for (unsigned k = 0; k < size && po->n < sizeof po->bytes; k++) {
					unsigned b;
					if (reg >= 0)
						b = reg + k < 32 ? f->r[reg + k] : 0;
					else if (is_value && sp)
						b = (unsigned)(st[sp - 1] >> (8 * k)) & 0xff;
					else if (sp)
						b = dbyte(env->m, ((uint32_t)st[sp - 1] & 0xffff) + k);
					else
						return 0;  /* an empty piece: optimized out */
					po->bytes[po->n++] = (uint8_t)b;
				}
				reg = -1;
				is_value = 0;
				sp = 0;
				break;
			}
			default:
				return 0;  /* DW_OP_entry_value and the rest */
			}
		}
	}
#undef PUSH
#undef NEED
	if (po->n)
		return 2;
	if (reg >= 0) {
		for (unsigned k = 0; k < 8 && reg + k < 32; k++)
			po->bytes[po->n++] = f->r[reg + k];
		return 2;
	}
	if (!sp)
		return 0;
	if (is_value) {
		for (unsigned k = 0; k < 8; k++)
			po->bytes[po->n++] = (uint8_t)(st[sp - 1] >> (8 * k));
		return 2;
	}
	uint64_t a = st[sp - 1];
	po->addr = (uint32_t)(a >= ELF_DATA_BASE && a < 0x810000 ? a - ELF_DATA_BASE : a);
	po->in_mem = 1;
	return 1;
}

/* ---- call frame information --------------------------------------------------
 *
 * libdw (0.188) has no AVR backend, and its dwarf_cfi_addrframe refuses
 * every CIE without one ("unknown error"), so the few CFA instructions
 * avr-gcc writes to .debug_frame are run here. */

#define CFI_REGS 37              /* r0..r31, SP (32), ..., the return address (36) */
#define CFI_STACK 4              /* DW_CFA_remember_state depth */

typedef struct cfi_row {
	unsigned cfa_reg;
	int64_t cfa_off;
	int saved[CFI_REGS];      /* 1: at CFA + off[r] */
	int64_t off[CFI_REGS];
} cfi_row;

typedef struct cfi_reader {
	const uint8_t *p, *end;
	int bad;
} cfi_reader;

static uint64_t rd_u(cfi_reader *r, unsigned n)
{
	uint64_t v = 0;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(cfi_reader *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; r->p < r->end && shift < 64; shift += 7) {
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return v;
}

static int64_t rd_sleb(cfi_reader *r)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0x80;
	while (r->p < r->end && (b & 0x80) && shift < 64) {
		b = *r->p++;
		v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
	}
	if (b & 0x80)
		r->bad = 1;
	else if (shift < 64 && (b & 0x40))
		v |= (int64_t)(~UINT64_C(0) << shift);
	return v;
}

/* Runs CFA instructions [p, end) from location loc until it passes pc.
 * init: the CIE's row, for DW_CFA_restore.  Returns 0, or -1 for an
 * instruction avr-gcc does not write. */
static int cfi_run(const uint8_t *p, const uint8_t *end, uint32_t loc, uint32_t pc,
		   unsigned code_align, int64_t data_align, const cfi_row *init, cfi_row *row)
{
	cfi_reader r = { p, end, 0 };
	cfi_row stack[CFI_STACK];
	unsigned depth = 0;
	while (r.p < r.end && !r.bad) {
		uint8_t op = *r.p++;
		uint64_t reg, delta = 0;
		switch (op >> 6) {
		case 1: delta = op & 0x3f; goto advance;
		case 2:
			reg = op & 0x3f;
			if (reg < CFI_REGS) {
				row->saved[reg] = 1;
				row->off[reg] = (int64_t)rd_uleb(&r) * data_align;
			} else {
				rd_uleb(&r);
			}
			continue;
		case 3:
			reg = op & 0x3f;
			if (reg < CFI_REGS && init) {
				row->saved[reg] = init->saved[reg];
				row->off[reg] = init->off[reg];
			}
			continue;
		}
		switch (op) {
		case DW_CFA_nop: continue;
		case DW_CFA_advance_loc1: delta = rd_u(&r, 1); goto advance;
		case DW_CFA_advance_loc2: delta = rd_u(&r, 2); goto advance;
		case DW_CFA_advance_loc4: delta = rd_u(&r, 4); goto advance;
		case DW_CFA_set_loc:
			loc = (uint32_t)rd_u(&r, 4);
			if (loc > pc)
				return 0;
			continue;
		case DW_CFA_offset_extended:
		case DW_CFA_offset_extended_sf:
			reg = rd_uleb(&r);
			delta = (uint64_t)(op == DW_CFA_offset_extended ? (int64_t)rd_uleb(&r) * data_align
								       : rd_sleb(&r) * data_align);
			if (reg < CFI_REGS) {
				row->saved[reg] = 1;
				row->off[reg] = (int64_t)delta;
			}
			continue;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			reg = rd_uleb(&r);
			if (reg < CFI_REGS) {
				row->saved[reg] = op == DW_CFA_restore_extended && init ? init->saved[reg] : 0;
				row->off[reg] = op == DW_CFA_restore_extended && init ? init->off[reg] : 0;
			}
			continue;
		case DW_CFA_remember_state:
			if (depth == CFI_STACK)
				return -1;
			stack[depth++] = *row;
			continue;
		case DW_CFA_restore_state:
			if (!depth)
				return -1;
			*row = stack[--depth];
			continue;
		case DW_CFA_def_cfa:
			row->cfa_reg = (unsigned)rd_uleb(&r);
			row->cfa_off = (int64_t)rd_uleb(&r);
			continue;
		case DW_CFA_def_cfa_sf:
			row->cfa_reg = (unsigned)rd_uleb(&r);
			row->cfa_off = rd_sleb(&r) * data_align;
			continue;
		case DW_CFA_def_cfa_register:
			row->cfa_reg = (unsigned)rd_uleb(&r);
			continue;
		case DW_CFA_def_cfa_offset:
			row->cfa_off = (int64_t)rd_uleb(&r);
			continue;
		case DW_CFA_def_cfa_offset_sf:
			row->cfa_off = rd_sleb(&r) * data_align;
			continue;
		default:
			return -1;  /* expressions, register-in-register: not avr-gcc's */
		}
	advance:
		loc += (uint32_t)(delta * code_align);
		if (loc > pc)
			return 0;
	}
	return r.bad ? -1 : 0;
}

/* The row of .debug_frame for pc.  Returns 0, or -1 when no FDE covers pc
 * or the section is damaged. */
static int cfi_row_at(const dwinfo *d, uint32_t pc, cfi_row *row)
{
	const uint8_t *sec = d->frame, *end = d->frame + d->frame_size;
	cfi_reader r = { sec, end, 0 };
	while (r.p < r.end && !r.bad) {
		const uint8_t *entry = r.p;
		uint64_t len = rd_u(&r, 4);
		if (len == 0xffffffff || len > (uint64_t)(r.end - r.p))
			return -1;    /* 64-bit DWARF: not avr-gcc's */
		const uint8_t *next = r.p + len;
		uint64_t id = rd_u(&r, 4);
		if (id == 0xffffffff) {  /* a CIE */
			r.p = next;
			continue;
		}
		uint32_t lo = (uint32_t)rd_u(&r, 4), range = (uint32_t)rd_u(&r, 4);
		if (r.bad || pc < lo || pc - lo >= range) {
			r.p = next;
			continue;
		}
		/* The FDE's CIE. */
		if (id >= d->frame_size)
			return -1;
		cfi_reader c = { sec + id, end, 0 };
		uint64_t clen = rd_u(&c, 4);
		if (clen > (uint64_t)(c.end - c.p))
			return -1;
		const uint8_t *cend = c.p + clen;
		rd_u(&c, 4);
		unsigned version = (unsigned)rd_u(&c, 1);
		while (c.p < cend && *c.p)
			c.p++;        /* augmentation: avr-gcc writes "" */
		c.p++;
		if (version >= 4)
			rd_u(&c, 2);  /* address and segment selector sizes */
		unsigned code_align = (unsigned)rd_uleb(&c);
		int64_t data_align = rd_sleb(&c);
		if (version == 1)
			rd_u(&c, 1);
		else
			rd_uleb(&c);
		if (c.bad || c.p > cend)
			return -1;
		memset(row, 0, sizeof *row);
		if (cfi_run(c.p, cend, 0, UINT32_MAX, code_align, data_align, NULL, row))
			return -1;
		cfi_row init = *row;
		(void)entry;
		return cfi_run(r.p, next, lo, pc, code_align, data_align, &init, row);
	}
	return -1;
}

int dw_unwind(const dwinfo *d, const dw_mem *m, dw_frame *f, dw_frame *caller, avrr_err *err)
{
	uint32_t pc = f->outer ? f->pc - 1 : f->pc;
	cfi_row row;
	uint32_t base;
	if (!d->frame)
		return avrr_errf(err, "no call frame information in the firmware (DWARF .debug_frame)");
	if (cfi_row_at(d, pc, &row))
		return avrr_errf(err, "no call frame information at pc 0x%x", pc);
	if (base_reg(f, row.cfa_reg, &base))
		return avrr_errf(err, "cannot compute the frame address at 0x%x", pc);
	f->cfa = (uint32_t)((int64_t)base + row.cfa_off) & 0xffff;
	f->has_cfa = 1;
	memset(f->saved_at, 0, sizeof f->saved_at);
	*caller = *f;
	caller->outer = 1;
	caller->has_cfa = 0;
	caller->sp = f->cfa;
	for (unsigned r = 0; r < 32; r++)
		if (row.saved[r]) {
			uint32_t a = (uint32_t)((int64_t)f->cfa + row.off[r]) & 0xffff;
			caller->r[r] = (uint8_t)dbyte(m, a);
			f->saved_at[r] = a + 1;
		}
	if (!row.saved[DW_REG_RA])
		return avrr_errf(err, "no return address in the call frame information at 0x%x", pc);
	/* The return address: a word address, high byte first. */
	uint32_t a = (uint32_t)((int64_t)f->cfa + row.off[DW_REG_RA]) & 0xffff, word = 0;
	for (unsigned k = 0; k < d->pc_bytes; k++)
		word = word << 8 | dbyte(m, a + k);
	caller->pc = word * 2;
	/* An interrupt handler returns to the instruction it interrupted, not
	 * past a call: that pc is the caller's own (gdb's signal frames). */
	const fw_symbol *sym = fw_code_symbol_at(d->fw, pc);
	caller->outer = !(sym && !strncmp(sym->name, "__vector_", 9));
	f->saved_at[32] = a + 1;
	memset(caller->saved_at, 0, sizeof caller->saved_at);
	return 0;
}

/* The scopes around the frame's pc, innermost first (free *scopes). */
static int scopes_at(const dwinfo *d, const dw_frame *f, Dwarf_Die **scopes)
{
	Dwarf_Die cu;
	uint32_t pc = f->outer ? f->pc - 1 : f->pc;
	if (!d->dw || !dwarf_addrdie(d->dw, pc, &cu))
		return 0;
	int n = dwarf_getscopes(&cu, pc, scopes);
	return n < 0 ? 0 : n;
}

int dw_function(const dwinfo *d, const dw_frame *f, Dwarf_Die *fn)
{
	Dwarf_Die *sc = NULL;
	int n = scopes_at(d, f, &sc), rc = -1;
	for (int i = 0; i < n && rc; i++)
		if (dwarf_tag(&sc[i]) == DW_TAG_subprogram) {
			*fn = sc[i];
			rc = 0;
		}
	free(sc);
	return rc;
}

int dw_each_var(const dwinfo *d, const dw_frame *f, int args,
		int (*fn)(Dwarf_Die *var, void *ud), void *ud)
{
	Dwarf_Die *sc = NULL;
	int n = scopes_at(d, f, &sc), rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		int tag = dwarf_tag(&sc[i]);
		if (tag == DW_TAG_compile_unit)
			break;
		Dwarf_Die c;
		if (dwarf_child(&sc[i], &c) == 0)
			do {
				int ct = dwarf_tag(&c);
				if (ct == (args ? DW_TAG_formal_parameter : DW_TAG_variable))
					rc = fn(&c, ud);
			} while (!rc && dwarf_siblingof(&c, &c) == 0);
		if (tag == DW_TAG_subprogram || (args && tag == DW_TAG_inlined_subroutine))
			break;
	}
	free(sc);
	return rc;
}

static int has_name(Dwarf_Die *die, const char *name)
{
	const char *n = die_name(die);
	return n && !strcmp(n, name);
}

/* A declaration of a variable defined elsewhere: C's `extern`, or the
 * declaration a definition in the same unit refers to (DW_AT_specification). */
static int is_extern(Dwarf_Die *v)
{
	return dwarf_tag(v) == DW_TAG_variable && dwarf_hasattr(v, DW_AT_declaration) &&
	       !dwarf_hasattr(v, DW_AT_location);
}

int dw_find_var(const dwinfo *d, const dw_frame *f, const char *name, Dwarf_Die *var)
{
	Dwarf_Die *sc = NULL;
	int n = scopes_at(d, f, &sc);
	for (int i = 0; i < n; i++) {
		Dwarf_Die c;
		if (dwarf_child(&sc[i], &c) == 0)
			do {
				int t = dwarf_tag(&c);
				if ((t == DW_TAG_variable || t == DW_TAG_formal_parameter) &&
				    has_name(&c, name) && !is_extern(&c)) {
					*var = c;
					free(sc);
					return 0;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(sc);
	/* Globals of every CU: the defining DIE (with a location) first.  A
	 * unit that only declares one `extern` has no location for it, and
	 * another unit's static of the name comes after the current unit's,
	 * which the scopes above found, as in gdb. */
	int found = 0;
	/* gdb's order past the current unit: the globals (DW_AT_external)
	 * of every unit, then the other units' statics. */
	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (d->dw && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die cu, c;
			if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
				do {
					if (dwarf_tag(&c) != DW_TAG_variable || !has_name(&c, name))
						continue;
					if (!found)
						*var = c;
					found = 1;
					if (dwarf_hasattr(&c, DW_AT_location) &&
					    (pass || dwarf_hasattr_integrate(&c, DW_AT_external))) {
						*var = c;
						return 0;
					}
				} while (dwarf_siblingof(&c, &c) == 0);
			off = next;
		}
	}
	return found ? 0 : -1;
}

int dw_function_addr(const dwinfo *d, const char *name, uint32_t *addr)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (d->dw && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		Dwarf_Addr lo;
		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do
				if (dwarf_tag(&c) == DW_TAG_subprogram && has_name(&c, name) &&
				    dwarf_lowpc(&c, &lo) == 0) {
					*addr = (uint32_t)lo;
					return 0;
				}
			while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return -1;
}

int dw_locate(const dwinfo *d, const dw_mem *m, const dw_frame *f, Dwarf_Die *var,
	      unsigned size, dw_loc *loc, avrr_err *err)
{
	(void)err;
	memset(loc, 0, sizeof *loc);
	loc->kind = LOC_OPTIMIZED_OUT;
	loc->size = size;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	uint32_t pc = f->outer ? f->pc - 1 : f->pc;
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		/* A declaration no unit's DWARF defines (assembly, a library
		 * without debug info): its ELF symbol, as gdb resolves it. */
		const char *name = die_name(var);
		const fw_symbol *sym = name && is_extern(var) ? fw_find_symbol(d->fw, name) : NULL;
		if (sym && sym->space == FW_SYM_DATA) {
			loc->kind = LOC_MEM;
			loc->addr = sym->addr;
		}
		return 0;
	}
	if (dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1)
		return 0;
	Dwarf_Die fn;
	eval_env env = { d, m, f, dw_function(d, f, &fn) ? NULL : &fn };
	piece_out po = { 0 };
	int r = eval_ops(&env, ops, nops, &po, 0);
	if (r == 1) {
		loc->kind = LOC_MEM;
		loc->addr = po.addr;
	} else if (r == 2 && (po.n >= size || size > sizeof loc->bytes)) {
		loc->kind = size <= sizeof loc->bytes ? LOC_VALUE : LOC_OPTIMIZED_OUT;
		memcpy(loc->bytes, po.bytes, sizeof loc->bytes);
	} else if (r == 2) {
		/* Fewer pieces than the value has bytes: a part is gone. */
		loc->kind = LOC_OPTIMIZED_OUT;
	}
	return 0;
}
