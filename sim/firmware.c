/*
 * firmware.c — reading an AVR ELF with libelf (see firmware.h).
 *
 * simavr has its own loader, but it trusts its input (a text file makes it
 * read garbage) and only reads from a path; avrr must reject bad files with
 * a clear message and also load the copy a recording keeps.  So the images
 * come from the program headers here, the way a programmer would flash them.
 */
#include "sim/firmware.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/avrspace.h"
#include "util/digest.h"

#ifndef EM_AVR
#define EM_AVR 83
#endif

#define FLASH_MAX       (4u << 20)  /* no AVR has more than 4 MiB of flash */

/* libstdc++'s demangler (the Itanium C++ ABI that avr-g++ follows); its
 * header is C++ only. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* .mmcu tags (simavr's avr_mcu_section.h) that avrr reads. */
enum { MMCU_NAME = 1, MMCU_FREQUENCY = 2, MMCU_VCC = 3, MMCU_AVCC = 4, MMCU_AREF = 5 };

/* A few machines worth naming when someone hands us the wrong ELF. */
static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386: return " (i386)";
	case EM_ARM: return " (ARM)";
	case EM_X86_64: return " (x86-64)";
	case EM_AARCH64: return " (AArch64)";
	case EM_MIPS: return " (MIPS)";
	case EM_PPC: return " (PowerPC)";
	case EM_PPC64: return " (PowerPC64)";
	case EM_RISCV: return " (RISC-V)";
	case EM_MSP430: return " (MSP430)";
	default: return "";
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void parse_mmcu(firmware *fw, const uint8_t *p, size_t n)
{
	while (n >= 2) {
		uint8_t tag = p[0], len = p[1];
		if ((size_t)len + 2 > n)
			break;
		const uint8_t *v = p + 2;
		switch (tag) {
		case MMCU_NAME: {
			size_t l = strnlen((const char *)v, len);
			if (l >= sizeof fw->mcu)
				l = sizeof fw->mcu - 1;
			memcpy(fw->mcu, v, l);
			fw->mcu[l] = 0;
			break;
		}
		case MMCU_FREQUENCY: if (len >= 4) fw->frequency = le32(v); break;
		case MMCU_VCC:       if (len >= 4) fw->vcc = le32(v); break;
		case MMCU_AVCC:      if (len >= 4) fw->avcc = le32(v); break;
		case MMCU_AREF:      if (len >= 4) fw->aref = le32(v); break;
		default: break;
		}
		p += 2 + len;
		n -= 2 + (size_t)len;
	}
}

/* avr-libc's `.note.gnu.avr.deviceinfo` (crt1/gcrt1.S), owner "AVR", type 1:
 * six 32-bit words (flash start and size, RAM start and size, EEPROM start
 * and size), the string table's offset table length, the device name's
 * offset in the string table, then the string table. */
static void parse_deviceinfo(firmware *fw, const uint8_t *p, size_t n)
{
	while (n >= 12) {
		uint32_t namesz = le32(p), descsz = le32(p + 4), type = le32(p + 8);
		size_t nameal = (namesz + 3) & ~3u, descal = ((size_t)descsz + 3) & ~(size_t)3;
		if (namesz > n - 12 || nameal > n - 12 || descsz > n - 12 - nameal)
			return;
		const uint8_t *name = p + 12, *desc = p + 12 + nameal;
		if (type == 1 && namesz == 4 && !memcmp(name, "AVR", 4) && descsz >= 33) {
			uint32_t off = le32(desc + 28);
			if (off < descsz - 32) {
				const char *dev = (const char *)desc + 32 + off;
				size_t l = strnlen(dev, descsz - 32 - off);
				if (l && l < sizeof fw->mcu && l < descsz - 32 - off) {
					memcpy(fw->mcu, dev, l);
					fw->mcu[l] = 0;
					fw->mcu_from = "deviceinfo note";
				}
			}
			return;
		}
		if (descal > n - 12 - nameal)
			return;
		p += 12 + nameal + descal;
		n -= 12 + nameal + descal;
	}
}

char *fw_demangle(const char *name)
{
	if (strncmp(name, "_Z", 2))
		return NULL;
	int status = -1;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}

static int sym_cmp(const void *a, const void *b)
{
	const fw_symbol *x = a, *y = b;
	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer functions and sized objects over bare labels at one address. */
	if (x->is_func != y->is_func)
		return x->is_func ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int read_symbols(firmware *fw, Elf *elf, avrr_err *err)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t count = sh.sh_size / sh.sh_entsize;
		fw->syms = calloc(count ? count : 1, sizeof *fw->syms);
		if (!fw->syms)
			return avrr_errf(err, "%s: out of memory", fw->path);
		for (size_t i = 0; i < count; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			int type = GELF_ST_TYPE(s.st_info);
			int bind = GELF_ST_BIND(s.st_info);
			if (type != STT_FUNC && type != STT_OBJECT &&
			    !(type == STT_NOTYPE && bind == STB_GLOBAL))
				continue;
			if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			fw_symbol *y = &fw->syms[fw->nsyms];
			uint32_t v = (uint32_t)s.st_value;
			if (v >= ELF_EEPROM_BASE && v < ELF_SPACE_END) {
				y->space = FW_SYM_EEPROM;
				y->addr = v - ELF_EEPROM_BASE;
			} else if (v >= ELF_DATA_BASE && v < ELF_EEPROM_BASE) {
				y->space = FW_SYM_DATA;
				y->addr = v - ELF_DATA_BASE;
			} else {
				y->space = FW_SYM_CODE;
				y->addr = v;
			}
			y->size = (uint32_t)s.st_size;
			y->is_func = type == STT_FUNC;
			y->link_name = strdup(name);
			y->name = fw_demangle(name);
			if (!y->name && y->link_name)
				y->name = strdup(name);
			if (!y->name || !y->link_name) {
				free(y->name);
				free(y->link_name);
				return avrr_errf(err, "%s: out of memory", fw->path);
			}
			fw->nsyms++;
		}
		break;
	}
	if (fw->nsyms)
		qsort(fw->syms, fw->nsyms, sizeof *fw->syms, sym_cmp);
	return 0;
}

/* Copies one PT_LOAD segment into the flash or EEPROM image. */
static int load_segment(firmware *fw, const GElf_Phdr *ph, avrr_err *err)
{
	if (!ph->p_filesz)
		return 0;
	if (ph->p_offset > fw->elf_size || ph->p_filesz > fw->elf_size - ph->p_offset)
		return avrr_errf(err, "%s: program header points outside the file", fw->path);
	const uint8_t *src = fw->elf + ph->p_offset;
	uint64_t at = ph->p_paddr;
	uint8_t **img;
	uint32_t *size, base, max;
	if (at >= ELF_EEPROM_BASE && at < ELF_SPACE_END) {
		img = &fw->eeprom, size = &fw->eeprom_size, base = ELF_EEPROM_BASE, max = 64u << 10;
	} else if (at < ELF_DATA_BASE) {
		img = &fw->flash, size = &fw->flash_size, base = 0, max = FLASH_MAX;
	} else {
		return 0; /* fuses, lock bits, signature: not simulated here */
	}
	uint64_t lo = at - base, hi = lo + ph->p_filesz;
	if (hi > max)
		return avrr_errf(err, "%s: segment at 0x%llx does not fit the address space",
				 fw->path, (unsigned long long)at);
	if (hi > *size) {
		uint8_t *n = realloc(*img, hi);
		if (!n)
			return avrr_errf(err, "%s: out of memory", fw->path);
		memset(n + *size, 0xff, hi - *size); /* erased flash reads 0xff */
		*img = n;
		*size = (uint32_t)hi;
	}
	memcpy(*img + lo, src, ph->p_filesz);
	return 0;
}

/* Whether some DWARF compilation unit describes code (has an address or
 * ranges): avr-libc links a unit of its own, with register names and no
 * code, into every build, -g or not.  Damaged DWARF counts as none. */
static int dwarf_describes_code(Elf *elf)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int found = 0;
	while (!found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (dwarf_hasattr(&cu, DW_AT_low_pc) || dwarf_hasattr(&cu, DW_AT_ranges)))
			found = 1;
		off = next;
	}
	dwarf_end(dw);
	return found;
}

static int parse_elf(firmware *fw, avrr_err *err)
{
	if (fw->elf_size < 4 || memcmp(fw->elf, ELFMAG, SELFMAG) != 0)
		return avrr_errf(err, "%s: not an ELF file", fw->path);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)fw->elf, fw->elf_size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return avrr_errf(err, "%s: not an ELF file", fw->path);
	}
	int rc = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh)) {
		rc = avrr_errf(err, "%s: damaged ELF header (%s)", fw->path, elf_errmsg(-1));
		goto out;
	}
	if (eh.e_machine != EM_AVR) {
		rc = avrr_errf(err, "%s: ELF for machine %u%s, not AVR (%u)", fw->path,
			       (unsigned)eh.e_machine, machine_name(eh.e_machine), (unsigned)EM_AVR);
		goto out;
	}
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph) != 0)
		nph = 0;
	for (size_t i = 0; i < nph && !rc; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			rc = load_segment(fw, &ph, err);
	}
	if (rc)
		goto out;
	if (!fw->flash_size) {
		rc = avrr_errf(err, "%s: no code to load (no PT_LOAD segment in flash)", fw->path);
		goto out;
	}
	size_t shstr = 0;
	firmware note = { .mcu = "" };
	if (elf_getshdrstrndx(elf, &shstr) == 0) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *name = elf_strptr(elf, shstr, sh.sh_name);
			if (!name)
				continue;
			if (!strcmp(name, ".mmcu")) {
				Elf_Data *d = elf_getdata(scn, NULL);
				if (d && d->d_buf)
					parse_mmcu(fw, d->d_buf, d->d_size);
				if (fw->mcu[0])
					fw->mcu_from = ".mmcu section";
			} else if (!strcmp(name, ".note.gnu.avr.deviceinfo")) {
				Elf_Data *d = elf_getdata(scn, NULL);
				if (d && d->d_buf)
					parse_deviceinfo(&note, d->d_buf, d->d_size);
			} else if ((sh.sh_flags & SHF_ALLOC) && sh.sh_addr >= ELF_DATA_BASE &&
				   sh.sh_addr < ELF_EEPROM_BASE && sh.sh_size) {
				/* .data, .bss, .noinit: what the firmware keeps in SRAM. */
				uint64_t end = sh.sh_addr - ELF_DATA_BASE + sh.sh_size;
				if (end > fw->data_end)
					fw->data_end = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
			} else if (!strcmp(name, ".text") && sh.sh_addr < ELF_DATA_BASE) {
				fw->code_end = (uint32_t)(sh.sh_addr + sh.sh_size);
			} else if (!strcmp(name, ".stab")) {
				fw->has_stabs = 1;
			}
		}
	}
	/* .mmcu, when there is one, is what simavr's users asked for. */
	if (!fw->mcu[0] && note.mcu[0]) {
		memcpy(fw->mcu, note.mcu, sizeof fw->mcu);
		fw->mcu_from = note.mcu_from;
	}
	if (!fw->code_end || fw->code_end > fw->flash_size)
		fw->code_end = fw->flash_size;
	fw->has_dwarf = dwarf_describes_code(elf);
	rc = read_symbols(fw, elf, err);
out:
	elf_end(elf);
	return rc;
}

int fw_load_memory(const void *bytes, size_t size, const char *path,
		   firmware **out, avrr_err *err)
{
	*out = NULL;
	firmware *fw = calloc(1, sizeof *fw);
	if (!fw || !(fw->path = strdup(path)) || !(fw->elf = malloc(size ? size : 1))) {
		fw_free(fw);
		return avrr_errf(err, "%s: out of memory", path);
	}
	memcpy(fw->elf, bytes, size);
	fw->elf_size = size;
	fw->mcu_from = "";
	uint8_t d[DIGEST_SIZE];
	digest_sha256(fw->elf, size, d);
	digest_hex(d, fw->sha256);
	if (parse_elf(fw, err)) {
		fw_free(fw);
		return -1;
	}
	*out = fw;
	return 0;
}

int fw_load_file(const char *path, firmware **out, avrr_err *err)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return avrr_errf(err, "%s: %s", path, strerror(errno));
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			if (cap > (64u << 20)) {
				free(buf);
				fclose(f);
				return avrr_errf(err, "%s: too large for an AVR firmware", path);
			}
			uint8_t *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return avrr_errf(err, "%s: out of memory", path);
			}
			buf = n;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return avrr_errf(err, "%s: read error (is it a directory?)", path);
	}
	int rc = fw_load_memory(buf, len, path, out, err);
	free(buf);
	return rc;
}

void fw_free(firmware *fw)
{
	if (!fw)
		return;
	if (fw->holders) {
		fw->holders--;
		return;
	}
	for (size_t i = 0; i < fw->nsyms; i++) {
		free(fw->syms[i].name);
		free(fw->syms[i].link_name);
	}
	free(fw->syms);
	free(fw->flash);
	free(fw->eeprom);
	free(fw->elf);
	free(fw->path);
	free(fw);
}

/* "A::f(int)" without its parameter list is "A::f": the name up to the
 * '(' that opens the last parameter list. */
static int matches_without_params(const char *full, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(full, name, n) && full[n] == '(' && !strchr(name, '(');
}

const fw_symbol *fw_find_symbol(const firmware *fw, const char *name)
{
	for (size_t i = 0; i < fw->nsyms; i++)
		if (!strcmp(fw->syms[i].name, name) || !strcmp(fw->syms[i].link_name, name))
			return &fw->syms[i];
	for (size_t i = 0; i < fw->nsyms; i++)
		if (matches_without_params(fw->syms[i].name, name))
			return &fw->syms[i];
	return NULL;
}

const fw_symbol *fw_code_symbol_at(const firmware *fw, uint32_t pc)
{
	const fw_symbol *best = NULL;
	for (size_t i = 0; i < fw->nsyms; i++) {
		const fw_symbol *s = &fw->syms[i];
		if (s->space != FW_SYM_CODE)
			continue;
		if (s->addr > pc)
			break;
		/* The last symbol at or below pc wins, but a label inside a
		 * function does not hide the function when both are sized. */
		if (!best || s->addr > best->addr || (s->addr == best->addr && !best->is_func))
			best = s;
	}
	return best;
}

const fw_symbol *fw_data_symbol_at(const firmware *fw, uint32_t addr)
{
	for (size_t i = 0; i < fw->nsyms; i++) {
		const fw_symbol *s = &fw->syms[i];
		if (s->space == FW_SYM_DATA && addr >= s->addr &&
		    addr < s->addr + (s->size ? s->size : 1))
			return s;
	}
	return NULL;
}

const char *fw_debug_info_problem(const firmware *fw, char *buf, size_t n)
{
	if (fw->has_stabs)
		snprintf(buf, n, "%s has stabs debug info, which avr-gdb misreads (32-bit "
			 "variables, ISR backtraces); rebuild with -gdwarf-4", fw->path);
	else if (!fw->has_dwarf)
		snprintf(buf, n, "%s has no DWARF debug info for its code, so debuggers show "
			 "no source lines, types or locals; rebuild with -gdwarf-4", fw->path);
	else
		return NULL;
	return buf;
}

void fw_describe_pc(const firmware *fw, uint32_t pc, char *buf, size_t n)
{
	const fw_symbol *s = fw_code_symbol_at(fw, pc);
	if (!s)
		snprintf(buf, n, "0x%04x", pc);
	else if (s->addr == pc)
		snprintf(buf, n, "%s", s->name);
	else
		snprintf(buf, n, "%s+0x%x", s->name, pc - s->addr);
}

struct fw_cache {
	firmware *kept;  /* the cache's hold on it, or NULL */
};

fw_cache *fw_cache_new(void)
{
	return calloc(1, sizeof(fw_cache));
}

void fw_cache_free(fw_cache *c)
{
	if (!c)
		return;
	fw_free(c->kept);
	free(c);
}

int fw_load_memory_cached(fw_cache *c, const void *bytes, size_t size, const char *path,
			  firmware **out, avrr_err *err)
{
	firmware *k = c ? c->kept : NULL;
	/* Every byte compared, not a digest of them: the cache must hand out
	 * what loading them would make. */
	if (k && k->elf_size == size && !strcmp(k->path, path) && !memcmp(k->elf, bytes, size)) {
		k->holders++;
		*out = k;
		return 0;
	}
	if (fw_load_memory(bytes, size, path, out, err))
		return -1;
	if (c) {
		fw_free(c->kept);
		c->kept = *out;
		c->kept->holders++;
	}
	return 0;
}
