/* members.c — static variables cut into members from DWARF (see members.h). */
#include "dwarf/members.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

#define ELF_DATA_BASE   0x800000u
#define ELF_EEPROM_BASE 0x810000u
#define MAX_DEPTH       16      /* nesting of types followed, at most */
#define MAX_DIMS        8

/* A complete struct, class or union type, by name: a unit that only
 * declares a class (C++'s `extern HardwareSerial Serial` in
 * HardwareSerial0.cpp) leaves its members to the unit that defines it. */
typedef struct named_type {
	const char *name;
	Dwarf_Off off;
} named_type;

typedef struct walk {
	Dwarf *dw;
	growbuf types;          /* named_type, sorted by name */
	growbuf leaves;         /* src_member */
	size_t var_first;       /* the current variable's first leaf */
	int too_many, oom;
} walk;

static void add(walk *w, uint32_t addr, uint32_t size, const char *path)
{
	if (w->leaves.n - w->var_first >= MEMBERS_MAX_PER_VAR) {
		w->too_many = 1;
		return;
	}
	src_member *m = grow(&w->leaves);
	char *p = strdup(path);
	if (!m || !p) {
		free(p);
		if (m)
			w->leaves.n--;
		w->oom = 1;
		return;
	}
	*m = (src_member){ .addr = addr, .size = size, .path = p };
}

static int type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	return dwarf_attr_integrate(die, DW_AT_type, &at) && dwarf_formref_die(&at, out) ? 0 : -1;
}

static uint32_t size_of(Dwarf_Die *type)
{
	Dwarf_Word s;
	return dwarf_aggregate_size(type, &s) == 0 && s <= UINT32_MAX ? (uint32_t)s : 0;
}

/* A member's byte offset in its struct: a constant, or DWARF 2's
 * DW_OP_plus_uconst expression. */
static int member_offset(Dwarf_Die *m, Dwarf_Word *off)
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

static void leaves(walk *w, Dwarf_Die *type, uint32_t addr, char *path, size_t len, int depth);

static void array_dims(walk *w, Dwarf_Die *elem, const Dwarf_Word *count, int ndims,
		       uint32_t stride, uint32_t addr, char *path, size_t len, int depth)
{
	if (!ndims) {
		leaves(w, elem, addr, path, len, depth + 1);
		return;
	}
	uint32_t inner = stride;
	for (int d = 1; d < ndims; d++)
		inner *= (uint32_t)count[d];
	for (Dwarf_Word i = 0; i < count[0] && !w->too_many && !w->oom; i++) {
		int k = snprintf(path + len, 256 - len, "[%llu]", (unsigned long long)i);
		size_t l = k > 0 && (size_t)k < 256 - len ? len + (size_t)k : len;
		array_dims(w, elem, count + 1, ndims - 1, stride, addr + (uint32_t)i * inner, path, l,
			   depth);
		path[len] = 0;
	}
}

static void array(walk *w, Dwarf_Die *t, uint32_t addr, char *path, size_t len, int depth)
{
	Dwarf_Die elem, sub;
	Dwarf_Word count[MAX_DIMS];
	int ndims = 0;
	uint32_t total = size_of(t);
	if (type_of(t, &elem) || dwarf_child(t, &sub) != 0)
		goto whole;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		Dwarf_Attribute at;
		Dwarf_Word v;
		if (ndims == MAX_DIMS)
			goto whole;
		if (dwarf_attr(&sub, DW_AT_count, &at) && dwarf_formudata(&at, &v) == 0)
			count[ndims++] = v;
		else if (dwarf_attr(&sub, DW_AT_upper_bound, &at) && dwarf_formudata(&at, &v) == 0)
			count[ndims++] = v + 1;
		else
			goto whole;  /* a flexible array member: no known length */
	} while (dwarf_siblingof(&sub, &sub) == 0);
	uint32_t esize = size_of(&elem);
	uint64_t n = 1;
	for (int d = 0; d < ndims; d++)
		n *= count[d];
	if (!ndims || !esize || n > MEMBERS_MAX_PER_VAR)
		goto whole;
	array_dims(w, &elem, count, ndims, esize, addr, path, len, depth);
	return;
whole:
	if (total)
		add(w, addr, total, path);
}

static void record(walk *w, Dwarf_Die *t, uint32_t addr, char *path, size_t len, int depth)
{
	Dwarf_Die m;
	size_t before = w->leaves.n;
	if (dwarf_child(t, &m) == 0) {
		do {
			int tag = dwarf_tag(&m);
			Dwarf_Word off;
			Dwarf_Die mt;
			if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
			    dwarf_hasattr(&m, DW_AT_declaration) || member_offset(&m, &off) ||
			    type_of(&m, &mt))
				continue;  /* a static member is a variable of its own */
			size_t l = len;
			if (tag == DW_TAG_member) {
				const char *name = dwarf_diename(&m);
				int k = snprintf(path + len, 256 - len, ".%s", name ? name : "?");
				l = k > 0 && (size_t)k < 256 - len ? len + (size_t)k : len;
			}
			/* Bit-fields share their bytes: the first one there names them. */
			if (w->leaves.n > before) {
				const src_member *last = (src_member *)w->leaves.items + w->leaves.n - 1;
				if (addr + off < last->addr + last->size) {
					path[len] = 0;
					continue;
				}
			}
			leaves(w, &mt, addr + (uint32_t)off, path, l, depth + 1);
			path[len] = 0;
		} while (dwarf_siblingof(&m, &m) == 0 && !w->too_many && !w->oom);
	}
	uint32_t size = size_of(t);
	if (w->leaves.n == before && size)
		add(w, addr, size, path);  /* no data members: the whole */
}

static int by_name(const void *pa, const void *pb)
{
	const named_type *a = pa, *b = pb;
	return strcmp(a->name, b->name);
}

static int is_record(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* The complete types of a unit, at its top level and in namespaces. */
static void collect_types(walk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Die d;
	if (depth > MAX_DEPTH || dwarf_child(parent, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		const char *name = dwarf_diename(&d);
		if (tag == DW_TAG_namespace) {
			collect_types(w, &d, depth + 1);
		} else if (is_record(tag) && name && !dwarf_hasattr(&d, DW_AT_declaration)) {
			named_type *t = grow(&w->types);
			if (!t) {
				w->oom = 1;
				return;
			}
			*t = (named_type){ name, dwarf_dieoffset(&d) };
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* A declared-only record's definition from another unit, if any. */
static int complete(walk *w, Dwarf_Die *t)
{
	const char *name = dwarf_diename(t);
	if (!is_record(dwarf_tag(t)) || !dwarf_hasattr(t, DW_AT_declaration) || !name ||
	    !w->types.n)
		return 0;
	named_type key = { name, 0 };
	const named_type *hit = bsearch(&key, w->types.items, w->types.n, sizeof key, by_name);
	return hit && dwarf_offdie(w->dw, hit->off, t) ? 0 : -1;
}

static void leaves(walk *w, Dwarf_Die *type, uint32_t addr, char *path, size_t len, int depth)
{
	Dwarf_Die t;
	if (dwarf_peel_type(type, &t) != 0 || complete(w, &t))
		return;
	int tag = dwarf_tag(&t);
	if (depth > MAX_DEPTH) {
		uint32_t size = size_of(&t);
		if (size)
			add(w, addr, size, path);
	} else if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
		record(w, &t, addr, path, len, depth);
	} else if (tag == DW_TAG_array_type) {
		array(w, &t, addr, path, len, depth);
	} else {
		uint32_t size = size_of(&t);  /* scalars, pointers, enums; a union whole */
		if (size)
			add(w, addr, size, path);
	}
}

/* A variable with a fixed data-space address. */
static void variable(walk *w, Dwarf_Die *v)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die type;
	if (!dwarf_attr(v, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &nops) != 0 ||
	    nops != 1 || ops[0].atom != DW_OP_addr || ops[0].number < ELF_DATA_BASE ||
	    ops[0].number >= ELF_EEPROM_BASE || type_of(v, &type))
		return;
	uint32_t addr = (uint32_t)(ops[0].number - ELF_DATA_BASE);
	char path[256] = "";
	w->var_first = w->leaves.n;
	w->too_many = 0;
	leaves(w, &type, addr, path, 0, 0);
	if (w->too_many) {
		src_member *m = w->leaves.items;
		for (size_t i = w->var_first; i < w->leaves.n; i++)
			free(m[i].path);
		w->leaves.n = w->var_first;
		uint32_t size = size_of(&type);
		if (size)
			add(w, addr, size, "");
	}
}

/* Variables at file scope, in namespaces, and functions' statics. */
static void scope(walk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Die d;
	if (depth > MAX_DEPTH || dwarf_child(parent, &d) != 0)
		return;
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_variable: variable(w, &d); break;
		case DW_TAG_namespace:
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
			scope(w, &d, depth + 1);
			break;
		default: break;
		}
	} while (dwarf_siblingof(&d, &d) == 0 && !w->oom);
}

static int by_addr(const void *pa, const void *pb)
{
	const src_member *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->size > b->size ? -1 : a->size < b->size;
}

static int has_debug_info(Elf *elf)
{
	size_t shstr;
	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstr, sh.sh_name)) &&
		    !strcmp(name, ".debug_info"))
			return 1;
	}
	return 0;
}

int members_load(const firmware *fw, src_members *out, avrr_err *err)
{
	*out = (src_members){ 0 };
	walk w = { .types = { .size = sizeof(named_type) }, .leaves = { .size = sizeof(src_member) } };
	/* libelf may convert the image in place; fw->elf stays untouched. */
	char *copy = malloc(fw->elf_size ? fw->elf_size : 1);
	if (!copy)
		return avrr_errf(err, "%s: out of memory", fw->path);
	memcpy(copy, fw->elf, fw->elf_size);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(copy, fw->elf_size);
	int rc = 0;
	if (!elf) {
		rc = avrr_errf(err, "%s: not an ELF file (%s)", fw->path, elf_errmsg(-1));
	} else if (has_debug_info(elf)) {
		Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (!dw)
			rc = avrr_errf(err, "%s: damaged DWARF (%s)", fw->path, dwarf_errmsg(-1));
		w.dw = dw;
		/* Two passes: the complete types first, then the variables. */
		for (int pass = 0; pass < 2 && !rc; pass++) {
			Dwarf_Off off = 0, next;
			size_t hsize;
			while (dw && !rc && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
				Dwarf_Die cu;
				if (!dwarf_offdie(dw, off + hsize, &cu))
					rc = avrr_errf(err, "%s: damaged DWARF (%s)", fw->path,
						       dwarf_errmsg(-1));
				else if (pass == 0)
					collect_types(&w, &cu, 0);
				else
					scope(&w, &cu, 0);
				off = next;
			}
			if (pass == 0 && w.types.n)
				qsort(w.types.items, w.types.n, sizeof(named_type), by_name);
		}
		if (dw)
			dwarf_end(dw);
	}
	if (elf)
		elf_end(elf);
	free(copy);
	free(w.types.items);
	if (!rc && w.oom)
		rc = avrr_errf(err, "%s: out of memory", fw->path);
	src_members t = { w.leaves.items, w.leaves.n };
	if (rc) {
		members_free(&t);
		return -1;
	}
	/* One variable may be described in several units (a C++ inline
	 * variable, a static member): the first description of a byte wins. */
	if (t.n)
		qsort(t.m, t.n, sizeof *t.m, by_addr);
	size_t k = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (k && t.m[i].addr < t.m[k - 1].addr + t.m[k - 1].size) {
			free(t.m[i].path);
			continue;
		}
		t.m[k++] = t.m[i];
	}
	t.n = k;
	*out = t;
	return 0;
}

void members_free(src_members *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->m[i].path);
	free(t->m);
	*t = (src_members){ 0 };
}

const src_member *members_in(const src_members *t, uint32_t addr, uint32_t size, size_t *n)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->m[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < t->n && t->m[end].addr + (uint64_t)t->m[end].size <= (uint64_t)addr + size)
		end++;
	*n = end - lo;
	return *n ? &t->m[lo] : NULL;
}
