/*
 * devlog.c — the device log's host side (see devlog.h, docs/device.md).
 */
#include "device/devlog.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/hash.h"
#include "fingerprint/instrument.h"
#include "fingerprint/tracer.h"
#include "util/digest.h"

uint16_t devlog_crc(uint16_t crc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (uint16_t)(crc >> 1 ^ 0x8408) : (uint16_t)(crc >> 1);
	}
	return crc;
}

void devlog_free(devlog *l)
{
	free(l->items);
	l->items = NULL;
	l->nitems = 0;
}

static int parse_header(const uint8_t *d, size_t n, devlog *out, size_t *pos, avrr_err *err)
{
	if (n < 4 || memcmp(d, FP_LOG_MAGIC, 4))
		return avrr_errf(err, "byte 0: not a device log (no " FP_LOG_MAGIC " header)");
	size_t p = 4;
	if (p + 2 > n)
		return avrr_errf(err, "byte %zu: the header is truncated", n);
	out->version = d[p++];
	if (out->version != FP_LOG_VERSION)
		return avrr_errf(err, "byte 4: device log version %u; this avrr reads %u",
				 out->version, FP_LOG_VERSION);
	size_t nm = d[p++];
	if (!nm || nm >= sizeof out->mcu)
		return avrr_errf(err, "byte 5: an MCU name of %zu bytes", nm);
	if (p + nm + 2 > n)
		return avrr_errf(err, "byte %zu: the header is truncated", n);
	memcpy(out->mcu, d + p, nm);
	out->mcu[nm] = 0;
	p += nm;
	size_t ns = d[p] | (size_t)d[p + 1] << 8;
	p += 2;
	if (!ns || ns >= sizeof out->spec)
		return avrr_errf(err, "byte %zu: a fingerprint spec of %zu bytes", p - 2, ns);
	if (p + ns + 3 + 32 + 2 > n)
		return avrr_errf(err, "byte %zu: the header is truncated", n);
	memcpy(out->spec, d + p, ns);
	out->spec[ns] = 0;
	p += ns;
	out->fp_bytes = d[p++];
	if (!out->fp_bytes || out->fp_bytes > 8)
		return avrr_errf(err, "byte %zu: %u bytes per fingerprint", p - 1, out->fp_bytes);
	out->delta_bits = d[p++];
	if (out->delta_bits > 8 * out->fp_bytes)
		return avrr_errf(err, "byte %zu: differences of %u bits for %u-byte fingerprints",
				 p - 1, out->delta_bits, out->fp_bytes);
	out->fold = d[p++];
	if (out->fold > 1)
		return avrr_errf(err, "byte %zu: %u where 0 or 1 says how reads go", p - 1, out->fold);
	memcpy(out->sha256, d + p, 32);
	p += 32;
	uint16_t crc = (uint16_t)(d[p] | d[p + 1] << 8);
	static const uint8_t zero[DEVLOG_TAIL];
	int unstamped = !memcmp(d + p - 32, zero, DEVLOG_TAIL);  /* the importer says so */
	if (!unstamped && devlog_crc(0xffff, d, p) != crc)
		return avrr_errf(err, "byte %zu: the header's CRC does not match: damaged", p);
	for (size_t i = 0; i < nm; i++)
		if (out->mcu[i] < 0x21 || out->mcu[i] > 0x7e)
			return avrr_errf(err, "byte 6: the MCU name is not printable");
	for (size_t i = 0; i < ns; i++)
		if (out->spec[i] < 0x20 || out->spec[i] > 0x7e)
			return avrr_errf(err, "byte %zu: the spec is not printable", p - 37 - ns + i);
	*pos = p + 2;
	return 0;
}

static int add_item(devlog *l, size_t *cap, const devlog_item *it, avrr_err *err)
{
	if (l->nitems == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		devlog_item *m = realloc(l->items, c * sizeof *m);
		if (!m)
			return avrr_errf(err, "out of memory");
		l->items = m;
		*cap = c;
	}
	l->items[l->nitems++] = *it;
	return 0;
}

/* The item at d[q] of block b, which ends at d[end]: appended to l (a
 * run of reads as one item per read), *next past it.  *prev is the last
 * fingerprint, which a difference is added to. */
static int parse_item(const uint8_t *d, size_t q, size_t end, uint32_t b, devlog *l,
		      size_t *cap, uint64_t *prev, size_t *next, avrr_err *err)
{
	uint8_t tag = d[q];
	devlog_item it = { .block = b, .offset = q };
	if (tag < FP_LOG_TAG_READS && (l->fold ? tag % FP_LOG_FOLD_ONE : tag)) {
		it.kind = DEVLOG_ITEM_FP;
		it.vector = l->fold ? tag % FP_LOG_FOLD_ONE : tag;
		size_t nr = l->fold ? (tag & FP_LOG_FOLD_MASK) / FP_LOG_FOLD_ONE : 0;
		size_t k = 0;
		if (!l->delta_bits) {
			if (end - q < 1u + l->fp_bytes)
				return avrr_errf(err, "byte %zu (block %u): interrupt item cut by the "
						 "block's end", q, b);
			for (k = l->fp_bytes; k-- > 0;)
				it.fp = it.fp << 8 | d[q + 1 + k];
			k = l->fp_bytes;
		} else {   /* LEB128: 7 bits a byte, the low first */
			uint64_t v = 0;
			for (uint8_t c = 0x80; c & 0x80; k++) {
				unsigned sh = 7 * (unsigned)k;
				if (q + 1 + k >= end)
					return avrr_errf(err, "byte %zu (block %u): interrupt item cut by "
							 "the block's end", q, b);
				c = d[q + 1 + k];
				uint64_t part = c & 0x7fu;
				if (sh >= l->delta_bits ||
				    (l->delta_bits - sh < 7 && part >> (l->delta_bits - sh)))
					return avrr_errf(err, "byte %zu (block %u): a difference wider "
							 "than %u bits", q, b, l->delta_bits);
				v |= part << sh;
			}
			it.fp = (*prev + v) & fp_hash_mask(l->delta_bits);
			*prev = it.fp;
		}
		l->bytes.interrupts += 1 + k;
		if (add_item(l, cap, &it, err))
			return -1;
		q += 1 + k;
		if (end - q < nr)   /* the folded reads' values */
			return avrr_errf(err, "byte %zu (block %u): %zu reads cut by the block's end",
					 q, b, nr);
		devlog_item rd = { .kind = DEVLOG_ITEM_READ, .block = b };
		for (size_t i = 0; i < nr; i++) {
			rd.value = d[q + i];
			rd.offset = q + i;
			if (add_item(l, cap, &rd, err))
				return -1;
		}
		l->bytes.reads += nr;
		*next = q + nr;
		return 0;
	}
	if (tag >= FP_LOG_TAG_READS && tag < FP_LOG_TAG_READS + FP_LOG_RUN_MAX) {
		size_t nr = tag - FP_LOG_TAG_READS + 1u;
		if (end - q < 1 + nr)
			return avrr_errf(err, "byte %zu (block %u): a run of %zu reads cut by the "
					 "block's end", q, b, nr);
		it.kind = DEVLOG_ITEM_READ;
		for (size_t i = 1; i <= nr; i++) {
			it.value = d[q + i];
			it.offset = q + i;
			if (add_item(l, cap, &it, err))
				return -1;
		}
		l->bytes.reads += 1 + nr;
		*next = q + 1 + nr;
		return 0;
	}
	if (tag == FP_LOG_TAG_LOSS) {
		if (end - q < 3)
			return avrr_errf(err, "byte %zu (block %u): loss item cut by the block's end",
					 q, b);
		it.kind = DEVLOG_ITEM_LOSS;
		it.lost = (uint16_t)(d[q + 1] | d[q + 2] << 8);
		l->bytes.loss += 3;
		*next = q + 3;
		return add_item(l, cap, &it, err);
	}
	return avrr_errf(err, "byte %zu (block %u): unknown item 0x%02x", q, b, tag);
}

int devlog_parse(const uint8_t *d, size_t n, devlog *out, avrr_err *err)
{
	memset(out, 0, sizeof *out);
	size_t p = 0, cap = 0;
	uint64_t prev = 0;   /* the last fingerprint, for differences */
	if (parse_header(d, n, out, &p, err))
		return -1;
	out->bytes.header = p;
	for (uint32_t b = 0; p < n; b++) {
		size_t start = p;
		if (d[p] != FP_LOG_BLOCK_MARK) {
			if (n - p >= 4 && !memcmp(d + p, FP_LOG_MAGIC, 4))
				avrr_errf(err, "byte %zu (block %u): a second header: the device "
					  "reset; import the part before it", p, b);
			else
				avrr_errf(err, "byte %zu (block %u): 0x%02x where a block starts "
					  "(0xa5): damaged", p, b, d[p]);
			goto fail;
		}
		if (n - p < 3) {
			avrr_errf(err, "byte %zu (block %u): truncated in the block's head", n, b);
			goto fail;
		}
		uint8_t seq = d[p + 1], len = d[p + 2];
		if (n - p < 5u + len) {
			avrr_errf(err, "byte %zu (block %u): truncated: the block needs %u more bytes",
				  n, b, (unsigned)(5u + len - (n - p)));
			goto fail;
		}
		uint16_t crc = (uint16_t)(d[p + 3 + len] | d[p + 4 + len] << 8);
		if (devlog_crc(0xffff, d + p + 1, 2u + len) != crc) {
			avrr_errf(err, "byte %zu (block %u): the block's CRC does not match: damaged",
				  start, b);
			goto fail;
		}
		if (seq != (uint8_t)b) {
			avrr_errf(err, "byte %zu (block %u): sequence number %u: %u blocks are "
				  "missing", start, b, seq, (uint8_t)(seq - b));
			goto fail;
		}
		if (!len) {
			avrr_errf(err, "byte %zu (block %u): an empty block", start, b);
			goto fail;
		}
		size_t q = p + 3, end = q + len;
		while (q < end) {
			if (parse_item(d, q, end, b, out, &cap, &prev, &q, err))
				goto fail;
		}
		out->bytes.blocks += 5;
		p = end + 2;
		out->blocks = b + 1;
	}
	return 0;
fail:
	devlog_free(out);
	return -1;
}

/* The file offset and size of avrr_log_header in the ELF. */
static int find_header(const uint8_t *elf, size_t n, size_t *off, size_t *size, avrr_err *err)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return avrr_errf(err, "libelf: %s", elf_errmsg(-1));
	char *copy = malloc(n ? n : 1);
	if (!copy)
		return avrr_errf(err, "out of memory");
	memcpy(copy, elf, n);
	Elf *e = elf_memory(copy, n);
	int rc = avrr_errf(err, "no " FP_LOG_HEADER_SYMBOL ": not built with `avrr tracer --log`");
	Elf_Scn *scn = NULL;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = data ? data->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!nm || strcmp(nm, FP_LOG_HEADER_SYMBOL))
				continue;
			GElf_Shdr hs;
			Elf_Scn *hscn = elf_getscn(e, sym.st_shndx);
			if (!hscn || !gelf_getshdr(hscn, &hs) || hs.sh_type == SHT_NOBITS ||
			    sym.st_value < hs.sh_addr || sym.st_size < DEVLOG_TAIL + 10 ||
			    sym.st_value - hs.sh_addr + sym.st_size > hs.sh_size ||
			    hs.sh_offset + hs.sh_size > n) {
				rc = avrr_errf(err, FP_LOG_HEADER_SYMBOL " is not in the file's data");
				goto done;
			}
			*off = (size_t)(hs.sh_offset + sym.st_value - hs.sh_addr);
			*size = (size_t)sym.st_size;
			rc = 0;
			goto done;
		}
	}
done:
	if (e)
		elf_end(e);
	else
		rc = avrr_errf(err, "not an ELF file");
	free(copy);
	return rc;
}

/* SHA-256 of elf[0..n) with the header's tail (at off, size bytes) zeroed. */
static int hash_zeroed(const uint8_t *elf, size_t n, size_t off, size_t size, uint8_t sha[32],
		       avrr_err *err)
{
	uint8_t *copy = malloc(n);
	if (!copy)
		return avrr_errf(err, "out of memory");
	memcpy(copy, elf, n);
	memset(copy + off + size - DEVLOG_TAIL, 0, DEVLOG_TAIL);
	digest_sha256(copy, n, sha);
	free(copy);
	return 0;
}

int devlog_elf_hash(const uint8_t *elf, size_t n, uint8_t sha[32], size_t *tail, avrr_err *err)
{
	size_t off, size;
	if (find_header(elf, n, &off, &size, err) || hash_zeroed(elf, n, off, size, sha, err))
		return -1;
	if (tail)
		*tail = off + size - DEVLOG_TAIL;
	return 0;
}

int devlog_stamp(uint8_t *elf, size_t n, avrr_err *err)
{
	size_t off, size;
	uint8_t sha[32];
	if (find_header(elf, n, &off, &size, err) || hash_zeroed(elf, n, off, size, sha, err))
		return -1;
	uint8_t *tail = elf + off + size - DEVLOG_TAIL;
	memcpy(tail, sha, 32);
	uint16_t crc = devlog_crc(0xffff, elf + off, size - 2);
	tail[32] = (uint8_t)crc;
	tail[33] = (uint8_t)(crc >> 8);
	return 0;
}

int devlog_read_file(const char *path, uint8_t **out, size_t *n, avrr_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return avrr_errf(err, "%s: %s", path, strerror(errno));
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
		if (len == cap) {
			uint8_t *m = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap * 2);
			if (!m) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = m;
			cap *= 2;
		}
	}
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		const char *why = buf ? "read error (is it a directory?)" : "too large or out of memory";
		free(buf);
		return avrr_errf(err, "%s: %s", path, why);
	}
	*out = buf;
	*n = len;
	return 0;
}
