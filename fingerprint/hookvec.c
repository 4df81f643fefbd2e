/*
 * hookvec.c — the vector route of `avrr instrument` (see hookvec.h): the
 * plan read from the firmware's vector table and crt, and the ELF written
 * with the runtime appended and nothing of the firmware moved.
 *
 * The output keeps every section of the input at its index (so symbols,
 * the debug sections and anything that names a section index stay
 * valid), with .text's vector entries and the crt's stack set-up patched;
 * the runtime comes as two new sections at the end, .avrr_text (its code
 * and constants, in a PT_LOAD segment of its own, which is what loaders
 * and avr-objcopy's hex take) and .avrr_noinit (its variables, NOBITS, so
 * that avrr and avr-gdb can name them), and its symbols are appended to
 * the symbol table.
 */
#include "fingerprint/hookvec.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/inputs.h"
#include "fingerprint/instrument.h"
#include "sim/avr_decode.h"
#include "sim/ioregs.h"
#include "util/le.h"

#define ELF_DATA_BASE 0x800000u
#define OP_JMP 0x940c      /* JMP k: 1001 010k kkkk 110k, then k's low 16 bits */
#define OP_RJMP 0xc000

/* The target of the jump at a, or -1 when it is not one. */
static int64_t jump_target(const uint8_t *code, uint32_t n, uint32_t a, uint32_t flash)
{
	if (a + 2 > n)
		return -1;
	uint16_t w = (uint16_t)le_get(code + a, 2);
	if ((w & 0xfe0e) == OP_JMP) {
		if (a + 4 > n)
			return -1;
		uint32_t k = (uint32_t)((w >> 3 & 0x3e) | (w & 1)) << 16 | (uint16_t)le_get(code + a + 2, 2);
		return (int64_t)k * 2;
	}
	if ((w & 0xf000) == OP_RJMP) {
		int32_t k = w & 0x0fff;
		if (k & 0x800)
			k -= 0x1000;
		int64_t t = (int64_t)a + 2 + 2 * (int64_t)k;
		return flash ? (t % flash + flash) % flash : t;   /* RJMP wraps the flash */
	}
	return -1;
}

static uint16_t ldi(unsigned rd, unsigned k)
{
	return (uint16_t)(0xe000 | (k & 0xf0) << 4 | (rd - 16) << 4 | (k & 0x0f));
}

static uint16_t out(unsigned a, unsigned rr)
{
	return (uint16_t)(0xb800 | (a & 0x30) << 5 | rr << 4 | (a & 0x0f));
}

int fp_hookvec_plan_make(const firmware *fw, uint32_t flash_size, uint32_t vectors_end,
			 uint16_t ramend, fp_hookvec_plan *p, avrr_err *err)
{
	memset(p, 0, sizeof *p);
	p->flash_size = flash_size;
	p->vectors_end = vectors_end;
	p->vec_bytes = flash_size > 8192 ? 4 : 2;
	p->ramend = ramend;
	p->data_end = fw->data_end;
	p->ovf_vector = -1;
	p->image_end = (fw->flash_size + 1) & ~1u;
	p->base = p->image_end;
	const uint8_t *code = fw->flash;
	uint32_t n = fw->code_end < fw->flash_size ? fw->code_end : fw->flash_size;
	if (vectors_end > n)
		return avrr_errf(err, "%s: .text ends at 0x%x, inside the vector table", fw->path,
				 (unsigned)n);
	int64_t reset = jump_target(code, n, 0, flash_size);
	if (reset < 0)
		return avrr_errf(err, "%s: the reset vector at 0x0 is not a jump", fw->path);
	p->hooks.reset_target = (uint32_t)reset;
	/* Unused entries jump to __bad_interrupt; a stripped ELF has no such
	 * symbol, and then they are the entries that share one target. */
	const fw_symbol *bad = fw_find_symbol(fw, "__bad_interrupt");
	int64_t unused = bad && bad->space == FW_SYM_CODE ? (int64_t)bad->addr : -1;
	unsigned nvec = vectors_end / p->vec_bytes;
	if (unused < 0) {
		unsigned best = 0;
		for (unsigned v = 1; v < nvec; v++) {
			int64_t t = jump_target(code, n, v * p->vec_bytes, flash_size);
			unsigned same = 0;
			for (unsigned u = 1; u < nvec; u++)
				same += jump_target(code, n, u * p->vec_bytes, flash_size) == t;
			if (same > best && same > 1)
				best = same, unused = t;
		}
	}
	for (unsigned v = 1; v < nvec; v++) {
		int64_t t = jump_target(code, n, v * p->vec_bytes, flash_size);
		if (t < 0)
			return avrr_errf(err, "%s: vector %u at 0x%x is not a jump: cannot hook it",
					 fw->path, v, v * p->vec_bytes);
		if (t == unused)
			continue;
		p->hooks.hook[p->hooks.nhooks].vector = (uint8_t)v;
		p->hooks.hook[p->hooks.nhooks++].target = (uint32_t)t;
	}
	/* avr-libc's crt: ldi r28, lo8(RAMEND); ldi r29, hi8(RAMEND);
	 * out SPH, r29; out SPL, r28 — near the reset code's start. */
	const uint16_t want[4] = { ldi(28, ramend & 0xff), ldi(29, ramend >> 8), out(0x3e, 29),
				   out(0x3d, 28) };
	for (uint32_t a = (uint32_t)reset; a + 8 <= n && a < reset + 64; a += 2) {
		int same = 1;
		for (int i = 0; i < 4 && same; i++)
			same = (uint16_t)le_get(code + a + 2 * i, 2) == want[i];
		if (same) {
			p->sp_at = a;
			return 0;
		}
	}
	return avrr_errf(err, "%s: no avr-libc stack set-up (ldi r28/r29 with RAMEND 0x%x, out "
			 "SPH/SPL) in the reset code at 0x%x: cannot reserve the tracer's RAM",
			 fw->path, (unsigned)ramend, (unsigned)reset);
}

/* Whether the firmware handles vector v: 1 + its index in p's hooks, or 0. */
static int hooked(const fp_hookvec_plan *p, unsigned v)
{
	for (unsigned i = 0; i < p->hooks.nhooks; i++)
		if (p->hooks.hook[i].vector == v)
			return (int)i + 1;
	return 0;
}

int fp_hookvec_counter(const firmware *fw, const mcu_names *names, int need_ovf,
		       fp_hookvec_plan *p, avrr_err *err)
{
	char why[4][120];
	unsigned nwhy = 0;
	int chosen = 0, chosen_ovf = -1;
	for (unsigned t = 1; t <= 5; t++) {
		char name[24];
		snprintf(name, sizeof name, "TCNT%uL", t);
		if (ioregs_addr(names, name) < 0)   /* no such 16-bit timer (Timer2 is 8-bit) */
			continue;
		snprintf(name, sizeof name, "TIMER%u_OVF_vect", t);
		int ovf = -1;
		for (unsigned v = 1; v < 128 && ovf < 0; v++) {
			const char *vn = ioregs_vector_name(names, v);
			if (vn && !strcmp(vn, name))
				ovf = (int)v;
		}
		int h = ovf < 0 ? -1 : hooked(p, (unsigned)ovf);
		if (need_ovf && h) {
			if (h < 0)
				snprintf(why[nwhy++], sizeof why[0], "Timer%u has no overflow "
					 "interrupt", t);
			else
				snprintf(why[nwhy++], sizeof why[0], "the firmware handles TIMER%u_OVF "
					 "(vector %d, at 0x%x)", t, ovf,
					 (unsigned)p->hooks.hook[h - 1].target);
			continue;
		}
		fp_timer_write w[FP_HOOKVEC_NOPS_MAX + 1];
		unsigned n = fp_tracer_timer_writes(fw, names, t, w, FP_HOOKVEC_NOPS_MAX + 1);
		unsigned kept = n < FP_HOOKVEC_NOPS_MAX + 1 ? n : FP_HOOKVEC_NOPS_MAX + 1, other = 0;
		while (other < kept && w[other].func && !strcmp(w[other].func, "init"))
			other++;
		if (other == n && n <= FP_HOOKVEC_NOPS_MAX) {
			/* a timer nothing writes wins over one init() sets up */
			if (!chosen || (!n && p->nnops)) {
				chosen = (int)t;
				chosen_ovf = ovf;
				p->nnops = n;
				memcpy(p->nops, w, n * sizeof *w);
			}
			if (!n)
				break;
			continue;
		}
		const fp_timer_write *x = &w[other < kept ? other : 0];
		snprintf(why[nwhy++], sizeof why[0], "%s writes %s at 0x%05x",
			 x->func ? x->func : "the code", x->reg, (unsigned)x->pc);
	}
	if (!chosen) {
		char list[500] = "";
		for (unsigned i = 0; i < nwhy; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				 i ? "; " : "", why[i]);
		return avrr_errf(err, "%s: no 16-bit timer is free for the cycle counter (%s): "
				 "give --fp a spec without cycles:K (docs/device.md)", fw->path,
				 nwhy ? list : "the part has none");
	}
	p->hooks.counter_timer = (uint8_t)chosen;
	p->ovf_vector = need_ovf ? chosen_ovf : -1;
	return 0;
}

/* A list of n items of `size` bytes at `items`, grown by doubling (at
 * 1, 2, 4, ... items), with room for one more: its new base, or NULL
 * when out of memory (the list as it was). */
static void *room_for_one(void *items, unsigned n, size_t size)
{
	if (items && (n & (n + 1)))
		return items;
	return realloc(items, (2 * (size_t)n + 2) * size);
}

/* Whether `in` is a load through a pointer that --log-loads tests: LD or
 * LDD, into r2..r31 and not into its own pointer (as the header route's
 * rewrite leaves those). */
static int tested_load(const avr_insn *in)
{
	if ((in->op != AVR_OP_LD && in->op != AVR_OP_LDD) || !in->ptr || in->rd < 2)
		return 0;
	unsigned lo = in->ptr == 'X' ? 26 : in->ptr == 'Y' ? 28 : 30;
	return (unsigned)in->rd != lo && (unsigned)in->rd != lo + 1;
}

int fp_hookvec_find_reads(const firmware *fw, const uint8_t *inputs, int loads,
			  fp_hookvec_plan *p, avrr_err *err)
{
	uint32_t n = fw->code_end < fw->flash_size ? fw->code_end : fw->flash_size;
	avr_insn in;
	for (uint32_t a = p->hooks.reset_target; a + 1 < n; a += 2u * in.words) {
		if (avr_decode(fw->flash, n, a, &in)) {
			in.words = 1;
			continue;
		}
		if (loads && tested_load(&in)) {
			struct fp_hookvec_load *m = room_for_one(p->loads, p->nloads, sizeof *m);
			if (!m)
				return avrr_errf(err, "out of memory");
			p->loads = m;
			p->loads[p->nloads++] = (struct fp_hookvec_load){ a, in.raw[0], (uint8_t)in.rd,
									  in.disp, in.ptr_mode,
									  in.ptr };
			continue;
		}
		if (devlog_input_insn(inputs, &in) < 0)
			continue;
		uint8_t skip = 0;
		if (in.op == AVR_OP_SBIS || in.op == AVR_OP_SBIC) {
			/* the copy returns past the next instruction to skip it */
			avr_insn next;
			if (a + 2 >= n || avr_decode(fw->flash, n, a + 2, &next))
				return avrr_errf(err, "%s: %s of an input register at 0x%05x: a skip "
						 "this rewrite cannot follow; build with the tracer "
						 "header (docs/tracer.md)", fw->path, in.mnemonic,
						 (unsigned)a);
			skip = next.words;
			in.rd = 24;
		}
		if (in.rd == 0)
			return avrr_errf(err, "%s: an input read into r0 at 0x%05x, which its "
					 "logging uses", fw->path, (unsigned)a);
		struct fp_hookvec_read *m = room_for_one(p->reads, p->nreads, sizeof *m);
		if (!m)
			return avrr_errf(err, "out of memory");
		p->reads = m;
		p->reads[p->nreads++] = (struct fp_hookvec_read){ a, { in.raw[0], in.raw[1] },
								  in.words, (uint8_t)in.rd, skip,
								  (uint8_t)(in.op == AVR_OP_SBIS), in.bit,
								  (uint8_t)(in.io < 0 ? 0 : in.io) };
	}
	return 0;
}

/* The loads' copies: each does, with interrupts off from before the load
 * until its value is appended (so no interrupt's item comes between them
 * in the log), the load as it was, then hands avrr_log_ld_common the
 * address it loaded from (r25:r24, the pointer after the load, less its
 * post-increment or plus its displacement) and the value (r22); that
 * saves what the C call may clobber and calls avrr_log_ld_sreg, which
 * logs the value when the address is an input's.  Small copies, one
 * shared tail: the RCALLs reach 2 K words either way. */
static void write_loads(FILE *o, const fp_hookvec_plan *p)
{
	if (!p->nloads)
		return;
	fputs("__attribute__((naked, used, section(\".vectors\"))) void avrr_log_ld_common(void)\n{\n"
	      "\t__asm__ volatile(\"push r18\\n\\tpush r19\\n\\tpush r20\\n\\tpush r21\\n\\t\"\n"
	      "\t\t\"push r23\\n\\tpush r26\\n\\tpush r27\\n\\tpush r30\\n\\tpush r31\\n\\tpush r1\\n\\t\"\n"
	      "\t\t\"mov r20, r0\\n\\tclr r1\\n\\t\" AVRR_CALL \" avrr_log_ld_sreg\\n\\t\"\n"
	      "\t\t\"pop r1\\n\\tpop r31\\n\\tpop r30\\n\\tpop r27\\n\\tpop r26\\n\\tpop r23\\n\\t\"\n"
	      "\t\t\"pop r21\\n\\tpop r20\\n\\tpop r19\\n\\tpop r18\\n\\tpop r22\\n\\t\"\n"
	      "\t\t\"pop r25\\n\\tpop r24\\n\\tpop r0\\n\\tout __SREG__, r0\\n\\tpop r0\\n\\tret\");\n}\n\n",
	      o);
	for (unsigned i = 0; i < p->nloads; i++) {
		const struct fp_hookvec_load *l = &p->loads[i];
		char fix[24] = "";
		if (l->mode == AVR_PTR_POSTINC)
			snprintf(fix, sizeof fix, "sbiw r24, 1\\n\\t");
		else if (l->mode == AVR_PTR_DISP && l->disp)
			snprintf(fix, sizeof fix, "adiw r24, %u\\n\\t", l->disp);
		fprintf(o, "__attribute__((naked, used, section(\".vectors\"))) void "
			FP_HOOKVEC_READ_PREFIX "%05x(void)\n{\n"
			"\t__asm__ volatile(\"push r0\\n\\tin r0, __SREG__\\n\\tcli\\n\\tpush r0\\n\\t\"\n"
			"\t\t\".word 0x%04x  ; the load\\n\\t\"\n"
			"\t\t\"push r24\\n\\tpush r25\\n\\tpush r22\\n\\tmov r22, r%u\\n\\t\"\n"
			"\t\t\"movw r24, r%u\\n\\t%s\" AVRR_JMP \" avrr_log_ld_common\");\n}\n\n",
			(unsigned)l->at, l->raw, l->rd, l->ptr == 'X' ? 26 : l->ptr == 'Y' ? 28 : 30,
			fix);
	}
}

/* SBIS/SBIC A, b of an input: the copy reads A into r24 and logs it as
 * any read, then decides the skip on the logged value: to skip, it adds
 * the next instruction's words to the return address on the stack (16
 * bytes up: the 13 saved registers, SREG, r0, then the address, its high
 * byte first).  With a 3-byte PC (pc3) the address has a third byte,
 * first, which takes the carry (r1 is 0 after the log call). */
static void write_skip(FILE *o, const struct fp_hookvec_read *r, const uint8_t *saved, size_t ns,
		       unsigned pc3)
{
	fprintf(o, "void " FP_HOOKVEC_SKIP_PREFIX "%05x(void) __attribute__((naked, used));\n"
		"void " FP_HOOKVEC_SKIP_PREFIX "%05x(void)\n{\n"
		"\t__asm__ volatile(\"push r0\\n\\tin r0, __SREG__\\n\\tcli\\n\\tpush r0\\n\\t\"\n"
		"\t\t\"", (unsigned)r->at, (unsigned)r->at);
	for (size_t k = 0; k < ns; k++)
		fprintf(o, "push r%u\\n\\t", saved[k]);
	fprintf(o, "\"\n\t\t\"in r24, 0x%02x  ; the read\\n\\tpush r24\\n\\tclr r1\\n\\t\" AVRR_CALL "
		"\" " FP_LOG_READ_SYMBOL "\\n\\t\"\n"
		"\t\t\"pop r24\\n\\t%s r24, %u\\n\\trjmp 1f\\n\\t\"\n"
		"\t\t\"in r30, __SP_L__\\n\\tin r31, __SP_H__\\n\\t\"\n"
		"\t\t\"ldd r25, Z+%u\\n\\tldd r24, Z+%u\\n\\tadiw r24, %u\\n\\t\"\n"
		"\t\t\"std Z+%u, r25\\n\\tstd Z+%u, r24\\n\\t\"\n",
		r->io, r->sbis ? "sbrs" : "sbrc", r->bit, (unsigned)ns + 3 + pc3,
		(unsigned)ns + 4 + pc3, r->skip, (unsigned)ns + 3 + pc3, (unsigned)ns + 4 + pc3);
	if (pc3)
		fprintf(o, "\t\t\"ldd r25, Z+%u\\n\\tadc r25, r1\\n\\tstd Z+%u, r25\\n\\t\"\n",
			(unsigned)ns + 3, (unsigned)ns + 3);
	fputs("\t\t\"1: ", o);
	for (size_t k = ns; k-- > 0;)
		fprintf(o, "pop r%u\\n\\t", saved[k]);
	fputs("\"\n\t\t\"pop r0\\n\\tout __SREG__, r0\\n\\tpop r0\\n\\tret\");\n}\n\n", o);
}

void fp_hookvec_write_reads(const fp_hookvec_plan *p, FILE *o)
{
	static const uint8_t saved[] = { 1, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 30, 31 };
	write_loads(o, p);
	for (unsigned i = 0; i < p->nreads; i++) {
		const struct fp_hookvec_read *r = &p->reads[i];
		/* as instrument.h's rewrite: interrupts off from the read until
		 * its value is appended, r0 the SREG before for avrr_log_read */
		if (r->skip) {
			write_skip(o, r, saved, sizeof saved, p->flash_size > 131072);
			continue;
		}
		fprintf(o, "void " FP_HOOKVEC_READ_PREFIX "%05x(void) __attribute__((naked, used));\n"
			"void " FP_HOOKVEC_READ_PREFIX "%05x(void)\n{\n"
			"\t__asm__ volatile(\"push r0\\n\\tin r0, __SREG__\\n\\tcli\\n\\tpush r0\\n\\t\"\n"
			"\t\t\".word 0x%04x", (unsigned)r->at, (unsigned)r->at, r->raw[0]);
		if (r->words == 2)
			fprintf(o, ", 0x%04x", r->raw[1]);
		fputs("  ; the read\\n\\t\"\n\t\t\"", o);
		for (size_t k = 0; k < sizeof saved; k++)
			fprintf(o, "push r%u\\n\\t", saved[k]);
		fprintf(o, "\"\n\t\t\"mov r24, r%u\\n\\tclr r1\\n\\t\" AVRR_CALL \" "
			FP_LOG_READ_SYMBOL "\\n\\t\"\n\t\t\"", r->rd);
		for (size_t k = sizeof saved; k-- > 0;)
			fprintf(o, "pop r%u\\n\\t", saved[k]);
		fputs("\"\n\t\t\"pop r0\\n\\tout __SREG__, r0\\n\\tpop r0\\n\\tret\");\n}\n\n", o);
	}
}

void fp_hookvec_plan_free(fp_hookvec_plan *p)
{
	free(p->reads);
	p->reads = NULL;
	p->nreads = 0;
	free(p->loads);
	p->loads = NULL;
	p->nloads = 0;
}

int fp_hookvec_ram(fp_hookvec_plan *p, unsigned bytes, avrr_err *err)
{
	/* even: at an odd start avr-ld's script pads .data to a word, and
	 * the padding would be data the firmware's crt never sets up */
	uint32_t base = ((uint32_t)p->ramend + 1 - bytes) & ~1u;
	if (bytes > p->ramend || base < p->data_end)
		return avrr_errf(err, "no room in RAM: the firmware's static data ends at 0x%x, and "
				 "the tracer needs %u bytes from 0x%x", (unsigned)p->data_end, bytes,
				 (unsigned)base);
	p->hooks.ram_base = (uint16_t)base;
	return 0;
}

/* ---- the runtime's ELF ------------------------------------------------------ */

typedef struct rt_sym {
	const char *name;
	uint32_t value, size;
	int func, ram;
	int typed;          /* a function or an object, not a bare label */
} rt_sym;

typedef struct runtime {
	Elf *elf;
	char *copy;
	const uint8_t *code;
	uint32_t code_addr, code_size;
	uint32_t ram_addr, ram_size;
	int has_data;
	rt_sym *syms;
	size_t nsyms;
} runtime;

static void rt_free(runtime *r)
{
	if (r->elf)
		elf_end(r->elf);
	free(r->copy);
	free(r->syms);
}

static int rt_open(const uint8_t *bytes, size_t size, runtime *r, avrr_err *err)
{
	memset(r, 0, sizeof *r);
	elf_version(EV_CURRENT);
	if (!(r->copy = malloc(size ? size : 1)))
		return avrr_errf(err, "out of memory");
	memcpy(r->copy, bytes, size);
	r->elf = elf_memory(r->copy, size);
	size_t shstr;
	if (!r->elf || elf_kind(r->elf) != ELF_K_ELF || elf_getshdrstrndx(r->elf, &shstr))
		return avrr_errf(err, "the tracer's runtime: not an ELF file");
	Elf_Scn *scn = NULL, *symscn = NULL;
	size_t text = 0, noinit = 0;
	while ((scn = elf_nextscn(r->elf, scn))) {
		GElf_Shdr sh;
		const char *nm;
		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(r->elf, shstr, sh.sh_name)))
			continue;
		if (!strcmp(nm, ".text")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			r->code = d ? d->d_buf : NULL;
			r->code_size = d ? (uint32_t)d->d_size : 0;
			r->code_addr = (uint32_t)sh.sh_addr;
			text = elf_ndxscn(scn);
		} else if (!strcmp(nm, ".noinit")) {
			r->ram_addr = (uint32_t)(sh.sh_addr - ELF_DATA_BASE);
			r->ram_size = (uint32_t)sh.sh_size;
			noinit = elf_ndxscn(scn);
		} else if ((!strcmp(nm, ".data") || !strcmp(nm, ".bss")) && sh.sh_size) {
			r->has_data = 1;
		} else if (sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
		}
	}
	if (!r->code || !r->code_size)
		return avrr_errf(err, "the tracer's runtime has no code");
	if (r->has_data)
		return avrr_errf(err, "the tracer's runtime has .data or .bss, which the "
				 "firmware's start-up code would not set up");
	GElf_Shdr sh;
	Elf_Data *d = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		return avrr_errf(err, "the tracer's runtime has no symbols");
	size_t count = d->d_size / sh.sh_entsize;
	if (!(r->syms = calloc(count ? count : 1, sizeof *r->syms)))
		return avrr_errf(err, "out of memory");
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *nm;
		if (!gelf_getsym(d, (int)i, &s) || !s.st_shndx ||
		    (s.st_shndx != text && s.st_shndx != noinit) ||
		    !(nm = elf_strptr(r->elf, sh.sh_link, s.st_name)) || !*nm)
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_OBJECT &&
		    !(type == STT_NOTYPE && GELF_ST_BIND(s.st_info) == STB_GLOBAL))
			continue;
		r->syms[r->nsyms++] = (rt_sym){ nm, (uint32_t)s.st_value, (uint32_t)s.st_size,
						type != STT_OBJECT, s.st_shndx == noinit,
						type != STT_NOTYPE };
	}
	return 0;
}

static const rt_sym *rt_find(const runtime *r, const char *name)
{
	for (size_t i = 0; i < r->nsyms; i++)
		if (!strcmp(r->syms[i].name, name) && !r->syms[i].ram)
			return &r->syms[i];
	return NULL;
}

int fp_hookvec_runtime_ram(const uint8_t *rt, size_t rt_size, unsigned *bytes, avrr_err *err)
{
	runtime r;
	int rc = rt_open(rt, rt_size, &r, err);
	*bytes = r.ram_size;
	rt_free(&r);
	return rc;
}

/* ---- the output ELF --------------------------------------------------------- */

typedef struct section {
	GElf_Shdr sh;
	const char *name;
	uint8_t *buf;           /* its bytes (owned), NULL for NOBITS */
	size_t size;
	uint32_t out_offset;
} section;

typedef struct writer {
	const char *path;
	avrr_err *err;
	section *sec;
	size_t nsec;            /* the input's, index 0 included */
	size_t text, symtab, shstr;
	GElf_Ehdr eh;
	GElf_Phdr *ph;
	size_t nph;
	size_t added;           /* sections added after the input's */
	int has_mmcu;
} writer;

static int w_read(writer *w, Elf *elf)
{
	if (elf_getshdrnum(elf, &w->nsec) || elf_getshdrstrndx(elf, &w->shstr) || !w->nsec)
		return avrr_errf(w->err, "%s: damaged section headers", w->path);
	/* three more: the runtime's code and RAM, simavr's .mmcu */
	if (!(w->sec = calloc(w->nsec + 3, sizeof *w->sec)))
		return avrr_errf(w->err, "%s: out of memory", w->path);
	for (size_t i = 1; i < w->nsec; i++) {
		section *s = &w->sec[i];
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &s->sh))
			return avrr_errf(w->err, "%s: damaged section header %zu", w->path, i);
		s->name = elf_strptr(elf, w->shstr, s->sh.sh_name);
		if (!s->name)
			s->name = "";
		Elf_Data *d = s->sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		if (d && d->d_size) {
			if (!(s->buf = malloc(d->d_size)))
				return avrr_errf(w->err, "%s: out of memory", w->path);
			memcpy(s->buf, d->d_buf, d->d_size);
			s->size = d->d_size;
		}
		if (!strcmp(s->name, ".text") && !w->text)
			w->text = i;
		else if (s->sh.sh_type == SHT_SYMTAB && !w->symtab)
			w->symtab = i;
		w->has_mmcu |= !strcmp(s->name, ".mmcu");
	}
	if (!gelf_getehdr(elf, &w->eh) || elf_getphdrnum(elf, &w->nph))
		return avrr_errf(w->err, "%s: damaged ELF header", w->path);
	if (!(w->ph = calloc(w->nph + 1, sizeof *w->ph)))
		return avrr_errf(w->err, "%s: out of memory", w->path);
	for (size_t i = 0; i < w->nph; i++)
		if (!gelf_getphdr(elf, (int)i, &w->ph[i]))
			return avrr_errf(w->err, "%s: damaged program header %zu", w->path, i);
	if (!w->text || !w->sec[w->text].buf || w->sec[w->text].sh.sh_addr != 0)
		return avrr_errf(w->err, "%s: no .text at address 0", w->path);
	if (!w->symtab || w->sec[w->symtab].sh.sh_link >= w->nsec ||
	    !w->sec[w->sec[w->symtab].sh.sh_link].buf)
		return avrr_errf(w->err, "%s: no symbol table", w->path);
	if (!w->sec[w->shstr].buf)
		return avrr_errf(w->err, "%s: no section names", w->path);
	return 0;
}

/* Appends bytes to a section's buffer; the offset they start at, or -1. */
static int64_t w_append(writer *w, section *s, const void *bytes, size_t n)
{
	uint8_t *b = realloc(s->buf, s->size + n);
	if (!b)
		return avrr_errf(w->err, "%s: out of memory", w->path);
	memcpy(b + s->size, bytes, n);
	s->buf = b;
	s->size += n;
	return (int64_t)(s->size - n);
}

static int w_add_symbol(writer *w, const char *name, uint32_t value, uint32_t size, int func,
			size_t shndx)
{
	section *str = &w->sec[w->sec[w->symtab].sh.sh_link];
	int64_t at = w_append(w, str, name, strlen(name) + 1);
	if (at < 0)
		return -1;
	Elf32_Sym y = {
		.st_name = (Elf32_Word)at, .st_value = value, .st_size = size,
		.st_info = ELF32_ST_INFO(STB_GLOBAL, func ? STT_FUNC : STT_OBJECT),
		.st_shndx = (Elf32_Half)shndx,
	};
	return w_append(w, &w->sec[w->symtab], &y, sizeof y) < 0 ? -1 : 0;
}

static int w_write(writer *w, int fd)
{
	size_t nsec = w->nsec + w->added, nph = w->nph + 1;
	Elf *o = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf32_Ehdr *eh = o ? elf32_newehdr(o) : NULL;
	Elf32_Phdr *ph = eh ? elf32_newphdr(o, nph) : NULL;
	if (!ph) {
		if (o)
			elf_end(o);
		return avrr_errf(w->err, "%s: %s", w->path, elf_errmsg(-1));
	}
	memcpy(eh->e_ident, w->eh.e_ident, EI_NIDENT);
	eh->e_type = w->eh.e_type;
	eh->e_machine = w->eh.e_machine;
	eh->e_version = (Elf32_Word)w->eh.e_version;
	eh->e_entry = (Elf32_Addr)w->eh.e_entry;
	eh->e_flags = (Elf32_Word)w->eh.e_flags;
	eh->e_phoff = sizeof(Elf32_Ehdr);
	eh->e_shstrndx = (Elf32_Half)w->shstr;
	uint32_t off = (uint32_t)(sizeof(Elf32_Ehdr) + nph * sizeof(Elf32_Phdr));
	for (size_t i = 1; i < nsec; i++) {
		section *s = &w->sec[i];
		Elf_Scn *scn = elf_newscn(o);
		Elf32_Shdr *sh = scn ? elf32_getshdr(scn) : NULL;
		Elf_Data *d = scn ? elf_newdata(scn) : NULL;
		if (!sh || !d) {
			elf_end(o);
			return avrr_errf(w->err, "%s: %s", w->path, elf_errmsg(-1));
		}
		*sh = (Elf32_Shdr){
			.sh_name = (Elf32_Word)s->sh.sh_name, .sh_type = (Elf32_Word)s->sh.sh_type,
			.sh_flags = (Elf32_Word)s->sh.sh_flags, .sh_addr = (Elf32_Addr)s->sh.sh_addr,
			.sh_link = (Elf32_Word)s->sh.sh_link, .sh_info = (Elf32_Word)s->sh.sh_info,
			.sh_addralign = (Elf32_Word)s->sh.sh_addralign,
			.sh_entsize = (Elf32_Word)s->sh.sh_entsize,
		};
		uint32_t align = sh->sh_addralign > 1 ? sh->sh_addralign : 1;
		off = (off + align - 1) / align * align;
		sh->sh_offset = off;
		d->d_align = align;
		d->d_type = i == w->symtab ? ELF_T_SYM : ELF_T_BYTE;
		if (sh->sh_type == SHT_NOBITS) {
			sh->sh_size = (Elf32_Word)s->sh.sh_size;
		} else {
			d->d_buf = s->buf;
			d->d_size = s->size;
			sh->sh_size = (Elf32_Word)s->size;
			off += sh->sh_size;
		}
		s->out_offset = sh->sh_offset;
	}
	eh->e_shoff = (off + 3) & ~3u;
	for (size_t p = 0; p < nph; p++) {
		const GElf_Phdr *ip = &w->ph[p];
		ph[p] = (Elf32_Phdr){
			.p_type = (Elf32_Word)ip->p_type, .p_offset = (Elf32_Off)ip->p_offset,
			.p_vaddr = (Elf32_Addr)ip->p_vaddr, .p_paddr = (Elf32_Addr)ip->p_paddr,
			.p_filesz = (Elf32_Word)ip->p_filesz, .p_memsz = (Elf32_Word)ip->p_memsz,
			.p_flags = (Elf32_Word)ip->p_flags, .p_align = (Elf32_Word)ip->p_align,
		};
		/* a segment's file offset follows its first section's */
		for (size_t i = 1; i < nsec; i++) {
			const section *s = &w->sec[i];
			if (!(s->sh.sh_flags & SHF_ALLOC) || s->sh.sh_type == SHT_NOBITS ||
			    s->sh.sh_addr < ip->p_vaddr ||
			    s->sh.sh_addr >= ip->p_vaddr + (ip->p_memsz ? ip->p_memsz : 1))
				continue;
			ph[p].p_offset = (Elf32_Off)(s->out_offset - (s->sh.sh_addr - ip->p_vaddr));
			break;
		}
	}
	elf_flagelf(o, ELF_C_SET, ELF_F_LAYOUT);
	int rc = elf_update(o, ELF_C_WRITE) < 0
		? avrr_errf(w->err, "%s: writing the ELF: %s", w->path, elf_errmsg(-1)) : 0;
	elf_end(o);
	return rc;
}

/* A JMP (4-byte entries) or RJMP at a to `to`; -1 when an RJMP cannot
 * reach. */
static int put_jump(uint8_t *code, uint32_t a, uint32_t to, unsigned bytes, uint32_t flash)
{
	if (bytes == 4) {
		uint32_t k = to / 2;
		le_put(code + a, (uint16_t)(OP_JMP | (k >> 16 & 0x3e) << 3 | (k >> 16 & 1)), 2);
		le_put(code + a + 2, (uint16_t)k, 2);
		return 0;
	}
	int64_t d = ((int64_t)to - a - 2) / 2;
	/* on a part of up to 8 KB the PC wraps, so the shorter way round counts */
	if (flash && flash <= 8192) {
		int64_t words = flash / 2;
		if (d > words / 2)
			d -= words;
		else if (d < -words / 2)
			d += words;
	}
	if (d < -2048 || d > 2047)
		return -1;
	le_put(code + a, (uint16_t)(OP_RJMP | (d & 0x0fff)), 2);
	return 0;
}

static int patch(writer *w, const fp_hookvec_plan *p, const runtime *r, fp_hookvec_stats *st)
{
	section *text = &w->sec[w->text];
	uint8_t *code = text->buf;
	char name[64];
	const rt_sym *reset = rt_find(r, FP_RT_RESET_SYMBOL);
	if (!reset)
		return avrr_errf(w->err, "the tracer's runtime has no " FP_RT_RESET_SYMBOL);
	if (put_jump(code, 0, reset->value, p->vec_bytes, p->flash_size))
		return avrr_errf(w->err, "%s: the tracer's code at 0x%x is out of the reset "
				 "vector's RJMP reach", w->path, (unsigned)reset->value);
	for (unsigned i = 0; i < p->hooks.nhooks; i++) {
		unsigned v = p->hooks.hook[i].vector;
		snprintf(name, sizeof name, FP_RT_HOOK_PREFIX "%u", v);
		const rt_sym *h = rt_find(r, name);
		if (!h)
			return avrr_errf(w->err, "the tracer's runtime has no %s", name);
		if (put_jump(code, v * p->vec_bytes, h->value, p->vec_bytes, p->flash_size))
			return avrr_errf(w->err, "%s: vector %u at 0x%x cannot reach its stub at 0x%x "
					 "with an RJMP (2 KB words either way)", w->path, v,
					 v * p->vec_bytes, (unsigned)h->value);
	}
	if (p->ovf_vector >= 0) {
		const rt_sym *h = rt_find(r, FP_RT_OVF_SYMBOL);
		if (!h || put_jump(code, (unsigned)p->ovf_vector * p->vec_bytes, h->value,
				   p->vec_bytes, p->flash_size))
			return avrr_errf(w->err, "%s: cannot point TIMER%u_OVF at the tracer's "
					 "overflow handler", w->path, p->hooks.counter_timer);
	}
	for (unsigned i = 0; i < p->nnops; i++)   /* Arduino init()'s set-up of the counter's timer */
		for (unsigned k = 0; k < p->nops[i].words; k++)
			le_put(code + p->nops[i].pc + 2 * k, 0x0000, 2);
	for (unsigned i = 0; i < p->nreads; i++) {
		const struct fp_hookvec_read *rd = &p->reads[i];
		snprintf(name, sizeof name, "%s%05x", rd->skip ? FP_HOOKVEC_SKIP_PREFIX
						       : FP_HOOKVEC_READ_PREFIX, (unsigned)rd->at);
		const rt_sym *h = rt_find(r, name);
		if (!h)
			return avrr_errf(w->err, "the tracer's runtime has no %s", name);
		st->reads++;
		if (rd->words == 2 && p->vec_bytes == 4) {   /* LDS -> CALL */
			put_jump(code, rd->at, h->value, 4, p->flash_size);
			le_put(code + rd->at, (uint16_t)le_get(code + rd->at, 2) | 0x0002, 2);
			continue;
		}
		/* IN -> RCALL (and LDS -> RCALL, NOP on a part without CALL) */
		if (put_jump(code, rd->at, h->value, 2, p->flash_size))
			return avrr_errf(w->err, "%s: the input read at 0x%05x cannot reach its logging "
					 "at 0x%05x with an RCALL (2 K words either way)", w->path,
					 (unsigned)rd->at, (unsigned)h->value);
		le_put(code + rd->at, (uint16_t)le_get(code + rd->at, 2) | 0x1000, 2);
		if (rd->words == 2)
			le_put(code + rd->at + 2, 0x0000, 2);
	}
	for (unsigned i = 0; i < p->nloads; i++) {   /* LD/LDD -> RCALL */
		const struct fp_hookvec_load *l = &p->loads[i];
		snprintf(name, sizeof name, FP_HOOKVEC_READ_PREFIX "%05x", (unsigned)l->at);
		const rt_sym *h = rt_find(r, name);
		if (!h)
			return avrr_errf(w->err, "the tracer's runtime has no %s", name);
		if (put_jump(code, l->at, h->value, 2, p->flash_size))
			return avrr_errf(w->err, "%s: the load at 0x%05x cannot reach its logging at "
					 "0x%05x with an RCALL (2 K words either way): too much code "
					 "for --log-loads", w->path, (unsigned)l->at,
					 (unsigned)h->value);
		le_put(code + l->at, (uint16_t)le_get(code + l->at, 2) | 0x1000, 2);
		st->loads++;
	}
	uint16_t top = (uint16_t)(p->hooks.ram_base - 1);
	le_put(code + p->sp_at, ldi(28, top & 0xff), 2);
	le_put(code + p->sp_at + 2, ldi(29, top >> 8), 2);
	return 0;
}

int fp_hookvec_write(const uint8_t *bytes, size_t size, const char *path,
		     const fp_hookvec_plan *p, const uint8_t *rtb, size_t rt_size, int out_fd,
		     fp_hookvec_stats *st, avrr_err *err)
{
	memset(st, 0, sizeof *st);
	writer w = { .path = path, .err = err };
	runtime r;
	int rc = rt_open(rtb, rt_size, &r, err);
	Elf *elf = NULL;
	char *copy = NULL;
	if (rc)
		goto done;
	rc = -1;
	if (r.code_addr != p->base || r.ram_addr != p->hooks.ram_base ||
	    r.ram_addr + r.ram_size > (uint32_t)p->ramend + 1) {
		avrr_errf(err, "the tracer's runtime is linked at 0x%x (RAM 0x%x), not 0x%x (0x%x)",
			  (unsigned)r.code_addr, (unsigned)r.ram_addr, (unsigned)p->base,
			  (unsigned)p->hooks.ram_base);
		goto done;
	}
	uint32_t end = p->base + r.code_size;
	if (end > p->flash_size) {
		avrr_errf(err, "%s: no room in flash: the firmware's image ends at 0x%x and the "
			  "tracer needs %u bytes more, past the part's %u", path,
			  (unsigned)p->image_end, (unsigned)r.code_size, (unsigned)p->flash_size);
		goto done;
	}
	elf_version(EV_CURRENT);
	if (!(copy = malloc(size ? size : 1))) {
		avrr_errf(err, "%s: out of memory", path);
		goto done;
	}
	memcpy(copy, bytes, size);
	elf = elf_memory(copy, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS32) {
		avrr_errf(err, "%s: not a 32-bit ELF file", path);
		goto done;
	}
	if (w_read(&w, elf) || patch(&w, p, &r, st))
		goto done;
	/* A section the runtime would overlap (an orphan .mmcu the link left
	 * at a flash address) moves past it, its symbols with it. */
	uint32_t past = (end + 1) & ~1u;
	for (size_t i = 1; i < w.nsec; i++) {
		section *s = &w.sec[i];
		if (i == w.text || s->sh.sh_addr >= ELF_DATA_BASE || s->sh.sh_addr + s->sh.sh_size <= p->base ||
		    s->sh.sh_addr >= end || !s->sh.sh_size ||
		    (!(s->sh.sh_flags & SHF_ALLOC) && !s->sh.sh_addr))
			continue;
		uint32_t from = (uint32_t)s->sh.sh_addr, by = past - from;
		s->sh.sh_addr = past;
		past = (uint32_t)((past + s->sh.sh_size + 1) & ~1u);
		Elf32_Sym *y = (Elf32_Sym *)w.sec[w.symtab].buf;
		for (size_t k = 0; k < w.sec[w.symtab].size / sizeof *y; k++)
			if (y[k].st_shndx == i)
				y[k].st_value += by;
		for (size_t q = 0; q < w.nph; q++)
			if (w.ph[q].p_vaddr == from && w.ph[q].p_memsz)
				w.ph[q].p_vaddr += by, w.ph[q].p_paddr += by;
		st->moved++;
	}
	/* the two new sections, named in .shstrtab */
	section *shstr = &w.sec[w.shstr];
	int64_t tn = w_append(&w, shstr, ".avrr_text", sizeof ".avrr_text");
	int64_t rn = tn < 0 ? -1 : w_append(&w, shstr, ".avrr_noinit", sizeof ".avrr_noinit");
	if (rn < 0)
		goto done;
	size_t ti = w.nsec, ri = w.nsec + 1;
	w.sec[ti] = (section){
		.sh = { .sh_name = (GElf_Word)tn, .sh_type = SHT_PROGBITS,
			.sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = p->base,
			.sh_size = r.code_size, .sh_addralign = 2 },
		.name = ".avrr_text",
	};
	if (w_append(&w, &w.sec[ti], r.code, r.code_size) < 0)
		goto done;
	w.sec[ri] = (section){
		.sh = { .sh_name = (GElf_Word)rn, .sh_type = SHT_NOBITS,
			.sh_flags = SHF_ALLOC | SHF_WRITE, .sh_addr = ELF_DATA_BASE + r.ram_addr,
			.sh_size = r.ram_size, .sh_addralign = 1 },
		.name = ".avrr_noinit",
	};
	w.added = 2;
	if (p->mmcu_freq && !w.has_mmcu) {
		/* simavr's AVR_MCU tags: the part and the clock instrument was
		 * given, so that the commands that run the ELF need not be told */
		uint8_t tags[2 + sizeof p->mmcu_name + 6];
		size_t nl = strnlen(p->mmcu_name, sizeof p->mmcu_name - 1) + 1, k = 0;
		tags[k++] = 1;             /* AVR_MMCU_TAG_NAME */
		tags[k++] = (uint8_t)nl;
		memcpy(tags + k, p->mmcu_name, nl);
		k += nl;
		tags[k++] = 2;             /* AVR_MMCU_TAG_FREQUENCY */
		tags[k++] = 4;
		le_put(tags + k, p->mmcu_freq, 4);
		k += 4;
		int64_t mn = w_append(&w, shstr, ".mmcu", sizeof ".mmcu");
		if (mn < 0)
			goto done;
		w.sec[w.nsec + 2] = (section){
			.sh = { .sh_name = (GElf_Word)mn, .sh_type = SHT_PROGBITS,
				.sh_addr = 0x910000, .sh_size = k, .sh_addralign = 1 },
			.name = ".mmcu",
		};
		if (w_append(&w, &w.sec[w.nsec + 2], tags, k) < 0)
			goto done;
		w.added = 3;
	}
	w.ph[w.nph] = (GElf_Phdr){ .p_type = PT_LOAD, .p_vaddr = p->base, .p_paddr = p->base,
				   .p_filesz = r.code_size, .p_memsz = r.code_size,
				   .p_flags = PF_R | PF_X, .p_align = 2 };
	/* The runtime's symbols: its own under their names, the libgcc and
	 * avr-libc routines it brought prefixed, so that the firmware's copies
	 * keep their names. */
	for (size_t i = 0; i < r.nsyms; i++) {
		char name[160];
		const rt_sym *y = &r.syms[i];
		if (!y->typed && strncmp(y->name, "avrr_", 5))
			continue;   /* the linker script's labels (__ctors_end, ...) */
		snprintf(name, sizeof name, "%s%s", strncmp(y->name, "avrr_", 5) ? "avrr_rt." : "",
			 y->name);
		if (w_add_symbol(&w, name, y->value, y->size,
				 y->func, y->ram ? ri : ti))
			goto done;
	}
	st->flash_bytes = r.code_size;
	st->ram_bytes = r.ram_size;
	st->hooked = p->hooks.nhooks;
	rc = w_write(&w, out_fd);
done:
	for (size_t i = 0; w.sec && i < w.nsec + 3; i++)
		free(w.sec[i].buf);
	free(w.sec);
	free(w.ph);
	if (elf)
		elf_end(elf);
	free(copy);
	rt_free(&r);
	return rc;
}
