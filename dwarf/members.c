/* members.c — static variables cut into members from DWARF (see members.h). */
#include "dwarf/members.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/avrspace.h"
#include "util/grow.h"

#define MAX_DEPTH       16      /* nesting of types followed, at most */
#define MAX_DIMS        8

typedef struct walk {
	const dwinfo *d;
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
			    dwarf_hasattr(&m, DW_AT_declaration) || dw_member_offset(&m, &off) ||
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

static void leaves(walk *w, Dwarf_Die *type, uint32_t addr, char *path, size_t len, int depth)
{
	Dwarf_Die t;
	if (dwarf_peel_type(type, &t) != 0 || dw_complete_type(w->d, &t))
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

int members_of(const dwinfo *d, const char *path, src_members *out, avrr_err *err)
{
	*out = (src_members){ 0 };
	walk w = { .d = d, .leaves = { .size = sizeof(src_member) } };
	const char *damaged;
	Dwarf *dw = dwi_dwarf(d, &damaged);
	int rc = 0;
	if (damaged)
		rc = avrr_errf(err, "%s: damaged DWARF (%s)", path, damaged);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dw && !rc && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (!dwarf_offdie(dw, off + hsize, &cu))
			rc = avrr_errf(err, "%s: damaged DWARF (%s)", path, dwarf_errmsg(-1));
		else
			scope(&w, &cu, 0);
		off = next;
	}
	if (!rc && w.oom)
		rc = avrr_errf(err, "%s: out of memory", path);
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

int members_load(const firmware *fw, src_members *out, avrr_err *err)
{
	dwinfo *d;
	*out = (src_members){ 0 };
	if (dwi_open(fw, &d, err))
		return -1;
	int rc = members_of(d, fw->path, out, err);
	dwi_close(d);
	return rc;
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
