/*
 * lines.c — the source line table from DWARF (libdw) or stabs (see lines.h).
 *
 * Both readers reduce their input to one sorted array of rows {address,
 * file, line, is_stmt, end_sequence}, DWARF's line-program model; stabs
 * functions become sequences that end at the function's end.  Lookups are
 * binary searches or linear scans of that array: firmware is small.
 */
#include "dwarf/lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

/* Stab types used for line numbers (binutils' include/aout/stab.def). */
enum { N_UNDF = 0x00, N_FUN = 0x24, N_SLINE = 0x44, N_SO = 0x64, N_SOL = 0x84 };
#define STAB_SIZE 12

typedef struct line_row {
	uint32_t addr;
	unsigned line;
	unsigned file;     /* index into files */
	unsigned order;    /* position in the input, to keep equal addresses stable */
	uint8_t is_stmt;
	uint8_t end_seq;   /* first address after a sequence; file/line unused */
} line_row;

struct src_lines {
	line_row *rows;
	size_t nrows, cap;
	char **files;
	size_t nfiles;
};

static int add_row(src_lines *t, uint32_t addr, unsigned line, unsigned file,
		   int is_stmt, int end_seq)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		line_row *n = realloc(t->rows, cap * sizeof *n);
		if (!n)
			return -1;
		t->rows = n;
		t->cap = cap;
	}
	t->rows[t->nrows] = (line_row){ addr, line, file, (unsigned)t->nrows,
					(uint8_t)is_stmt, (uint8_t)end_seq };
	t->nrows++;
	return 0;
}

/* The index of file name `name` (joined to `dir` when relative and dir is
 * not NULL), added if new; -1 when out of memory. */
static int intern_file(src_lines *t, const char *dir, const char *name)
{
	size_t dl = dir && name[0] != '/' ? strlen(dir) : 0;
	char *full = malloc(dl + 1 + strlen(name) + 1);
	if (!full)
		return -1;
	full[0] = 0;
	if (dl) {
		memcpy(full, dir, dl);
		full[dl] = 0;
		if (dir[dl - 1] != '/')
			strcat(full, "/");
	}
	strcat(full, name);
	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i], full)) {
			free(full);
			return (int)i;
		}
	char **n = realloc(t->files, (t->nfiles + 1) * sizeof *n);
	if (!n) {
		free(full);
		return -1;
	}
	t->files = n;
	t->files[t->nfiles] = full;
	return (int)t->nfiles++;
}

static Elf_Scn *find_section(Elf *elf, const char *want)
{
	size_t shstr;
	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstr, sh.sh_name)) &&
		    !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static int read_dwarf(src_lines *t, const dwinfo *d, const char *path, avrr_err *err)
{
	const char *damaged;
	Dwarf *dw = dwi_dwarf(d, &damaged);
	if (damaged)
		return avrr_errf(err, "%s: damaged DWARF (%s)", path, damaged);
	if (!dw)
		return 0;
	int rc = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int r = 0;
	while (!rc && (r = dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (!dwarf_offdie(dw, off + hsize, &cu)) {
			rc = avrr_errf(err, "%s: damaged DWARF (%s)", path, dwarf_errmsg(-1));
			break;
		}
		off = next;
		if (!dwarf_hasattr(&cu, DW_AT_stmt_list))
			continue;
		/* libdw joins a file to its directory entry but, before DWARF 5,
		 * not to the compilation directory; stabs names give both. */
		Dwarf_Attribute at;
		const char *comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
		if (dwarf_getsrclines(&cu, &lines, &n) != 0) {
			rc = avrr_errf(err, "%s: damaged DWARF line table (%s)", path,
				       dwarf_errmsg(-1));
			break;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr a;
			int lineno;
			bool stmt, end;
			const char *src;
			if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &lineno) ||
			    dwarf_linebeginstatement(l, &stmt) ||
			    dwarf_lineendsequence(l, &end) ||
			    !(src = dwarf_linesrc(l, NULL, NULL))) {
				rc = avrr_errf(err, "%s: damaged DWARF line table (%s)",
					       path, dwarf_errmsg(-1));
				break;
			}
			int f = intern_file(t, comp_dir, src);
			if (f < 0 || add_row(t, (uint32_t)a, (unsigned)lineno, (unsigned)f, stmt, end))
				rc = avrr_errf(err, "%s: out of memory", path);
		}
	}
	if (!rc && r < 0)
		rc = avrr_errf(err, "%s: damaged DWARF (%s)", path, dwarf_errmsg(-1));
	return rc;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The line entries of .stab: N_SO names the unit (a directory entry ending in
 * '/', then the file), N_SOL switches to an included file, N_FUN "name" opens
 * a function at its address and N_FUN "" closes it (value = size), N_SLINE
 * values are relative to the open function (as in every ELF stabs reader).
 * Each unit's strings start where the previous unit's ended: an N_UNDF
 * header entry gives the size of its string table.
 */
static int read_stabs(src_lines *t, Elf *elf, const char *path, avrr_err *err)
{
	Elf_Scn *stab_scn = find_section(elf, ".stab");
	Elf_Scn *str_scn = find_section(elf, ".stabstr");
	if (!stab_scn || !str_scn)
		return 0;
	Elf_Data *sd = elf_getdata(stab_scn, NULL), *strd = elf_getdata(str_scn, NULL);
	if (!sd || !strd || (sd->d_size && !sd->d_buf) || sd->d_size % STAB_SIZE)
		return avrr_errf(err, "%s: damaged .stab section", path);
	const uint8_t *p = sd->d_buf;
	const char *strs = strd->d_buf;
	size_t nstr = strs ? strd->d_size : 0;
	uint64_t base = 0, next_base = 0;
	const char *dir = NULL;
	int file = -1;
	uint32_t fun = 0;
	int in_fun = 0;
	for (size_t i = 0; i < sd->d_size / STAB_SIZE; i++, p += STAB_SIZE) {
		uint32_t strx = le32(p), value = le32(p + 8);
		unsigned type = p[4], desc = p[6] | (unsigned)p[7] << 8;
		if (type == N_UNDF) {
			base = next_base;
			next_base += value;
			continue;
		}
		const char *name = "";
		if (strx) {
			if (base + strx >= nstr || !memchr(strs + base + strx, 0, nstr - base - strx))
				return avrr_errf(err, "%s: damaged .stab section "
						 "(string offset %u out of range)", path, strx);
			name = strs + base + strx;
		}
		int f = 0;
		switch (type) {
		case N_SO:
			if (!*name) {             /* end of the unit */
				dir = NULL;
				file = -1;
			} else if (name[strlen(name) - 1] == '/') {
				dir = name;
			} else {
				f = file = intern_file(t, dir, name);
			}
			break;
		case N_SOL:
			f = file = intern_file(t, dir, name);
			break;
		case N_FUN:
			if (*name) {
				fun = value;
				in_fun = 1;
			} else if (in_fun) {
				in_fun = 0;
				f = add_row(t, fun + value, 0, 0, 0, 1);
			}
			break;
		case N_SLINE:
			if (file >= 0)
				f = add_row(t, in_fun ? fun + value : value, desc,
					    (unsigned)file, 1, 0);
			break;
		default:
			break;
		}
		if (f < 0)
			return avrr_errf(err, "%s: out of memory", path);
	}
	return 0;
}

/* By address; at one address a sequence's end sorts before the rows that
 * start the next one, and rows otherwise keep their input order. */
static int row_cmp(const void *a, const void *b)
{
	const line_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end_seq != y->end_seq)
		return x->end_seq ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int lines_of(const dwinfo *d, const char *path, src_lines **out, avrr_err *err)
{
	*out = NULL;
	src_lines *t = calloc(1, sizeof *t);
	if (!t)
		return avrr_errf(err, "%s: out of memory", path);
	Elf *elf = dwi_elf(d);
	int rc;
	if (!elf)
		rc = avrr_errf(err, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
	else
		rc = read_dwarf(t, d, path, err);
	if (!rc && t->nrows == 0)
		rc = read_stabs(t, elf, path, err);
	if (rc) {
		lines_free(t);
		return -1;
	}
	if (t->nrows)
		qsort(t->rows, t->nrows, sizeof *t->rows, row_cmp);
	*out = t;
	return 0;
}

int lines_load(const firmware *fw, src_lines **out, avrr_err *err)
{
	dwinfo *d;
	*out = NULL;
	if (dwi_open(fw, &d, err))
		return -1;
	int rc = lines_of(d, fw->path, out, err);
	dwi_close(d);
	return rc;
}

void lines_free(src_lines *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->rows);
	free(t);
}

int lines_available(const src_lines *t)
{
	return t && t->nrows > 0;
}

/* The number of rows with addr <= pc (so the last of them is one less). */
static size_t rows_upto(const src_lines *t, uint32_t pc)
{
	size_t lo = 0, hi = t->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int lines_at(const src_lines *t, uint32_t pc, const char **file, unsigned *line)
{
	size_t n = t ? rows_upto(t, pc) : 0;
	if (n == 0 || t->rows[n - 1].end_seq)
		return -1;
	const line_row *r = &t->rows[n - 1];
	if (file)
		*file = t->files[r->file];
	if (line)
		*line = r->line;
	return 0;
}

int lines_is_line_start(const src_lines *t, uint32_t pc)
{
	size_t n = t ? rows_upto(t, pc) : 0;
	if (n == 0 || t->rows[n - 1].addr != pc || t->rows[n - 1].end_seq)
		return 0;
	const line_row *r = &t->rows[n - 1];
	if (!r->is_stmt)
		return 0;
	size_t first = n - 1;          /* the first non-end row at pc */
	while (first > 0 && t->rows[first - 1].addr == pc && !t->rows[first - 1].end_seq)
		first--;
	if (first == 0 || t->rows[first - 1].end_seq)
		return 1;
	const line_row *prev = &t->rows[first - 1];
	return prev->line != r->line || prev->file != r->file;
}

/* Whether table name `have` is `want`, or ends in "/" + want. */
static int file_matches(const char *have, const char *want)
{
	size_t lh = strlen(have), lw = strlen(want);
	if (lw > lh || strcmp(have + lh - lw, want))
		return 0;
	return lw == lh || want[0] == '/' || have[lh - lw - 1] == '/';
}

int lines_addr(const src_lines *t, const char *file, unsigned line,
	       uint32_t *addr, avrr_err *err)
{
	int any_file = 0;
	for (size_t i = 0; t && i < t->nfiles; i++)
		any_file |= file_matches(t->files[i], file);
	if (!any_file)
		return avrr_errf(err, "no source file named %s", file);
	/* The exact line if it has code, else the nearest line after it. */
	const line_row *best = NULL;
	for (size_t i = 0; i < t->nrows; i++) {
		const line_row *r = &t->rows[i];
		if (r->end_seq || !r->is_stmt || r->line < line ||
		    !file_matches(t->files[r->file], file))
			continue;
		if (!best || r->line < best->line || (r->line == best->line && r->addr < best->addr))
			best = r;
	}
	if (!best)
		return avrr_errf(err, "no line %u in %s", line, file);
	*addr = best->addr;
	return 0;
}

const char *lines_file(const src_lines *t, size_t i)
{
	return t && i < t->nfiles ? t->files[i] : NULL;
}
