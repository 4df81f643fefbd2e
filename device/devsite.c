/*
 * devsite.c — the log's register and a code address in words (see
 * devsite.h).
 */
#include "device/devsite.h"

#include <stdio.h>
#include <string.h>

#include "dwarf/lines.h"
#include "fingerprint/instrument.h"
#include "fingerprint/tracer.h"
#include "sim/avr_decode.h"

/* The I/O register a sink writes (OUT, or STS to an address the MCU
 * names), or -1: the first store in f's code; or, with `prefixes`, the
 * first to a register whose name starts with one of them. */
static int sink_store(sim *s, const firmware *fw, const fw_symbol *f, const char *const *prefixes)
{
	uint32_t end = f->size ? f->addr + f->size : f->addr + 64;
	for (uint32_t a = f->addr; a < end && a < fw->flash_size;) {
		avr_insn in;
		if (avr_decode(fw->flash, fw->flash_size, a, &in))
			return -1;
		int addr = in.op == AVR_OP_OUT ? in.io + 0x20 : in.op == AVR_OP_STS ? in.data : -1;
		const char *name = addr >= 0 ? sim_ioreg_name(s, (uint16_t)addr) : NULL;
		if (name && !prefixes)
			return addr;
		for (const char *const *p = prefixes; name && p && *p; p++)
			if (!strncmp(name, *p, strlen(*p)))
				return addr;
		if (!prefixes && (in.op == AVR_OP_RET || in.op == AVR_OP_RETI ||
				  in.op == AVR_OP_JMP || in.op == AVR_OP_RJMP))
			return -1;
		a += 2u * in.words;
	}
	return -1;
}

/* The firmware's own avrr_log_sink's register (a sink that calls
 * elsewhere, or stores through a pointer, has none: -1). */
static int firmware_sink(sim *s, const firmware *fw)
{
	const fw_symbol *f = fw_find_symbol(fw, "avrr_log_sink");
	return f && f->space == FW_SYM_CODE ? sink_store(s, fw, f, NULL) : -1;
}

/* The data register (UDRn, SPDR) the tracer's own sink writes, wherever
 * the compiler put it: in one of the tracer's avrr_log_* functions. */
static int tracer_sink(sim *s, const firmware *fw)
{
	static const char *const data_regs[] = { "UDR", "SPDR", NULL };
	for (size_t i = 0; i < fw->nsyms; i++) {
		const fw_symbol *f = &fw->syms[i];
		int reg;
		if (f->space == FW_SYM_CODE && !strncmp(f->name, "avrr_log_", 9) &&
		    (reg = sink_store(s, fw, f, data_regs)) >= 0)
			return reg;
	}
	return -1;
}

int devsite_log_reg(sim *s, const char *name, const char **chosen, const char **from,
		    avrr_err *err)
{
	int reg;
	const char *how;
	if (name) {
		reg = sim_ioreg_addr(s, name);
		how = "--log-reg";
	} else if ((reg = firmware_sink(s, sim_firmware(s))) >= 0) {
		how = "the register the firmware's avrr_log_sink writes";
	} else if ((reg = tracer_sink(s, sim_firmware(s))) >= 0) {
		how = "the register the tracer's sink writes";
	} else {
		reg = sim_ioreg_addr(s, "UDR0");
		if (reg < 0)
			reg = sim_ioreg_addr(s, "UDR");
		how = DEVSITE_FROM_GUESS;
	}
	if (reg < 0)
		return avrr_errf(err, "no register %s on the %s", name ? name : "UDR0 or UDR",
				 sim_mcu(s));
	*chosen = sim_ioreg_name(s, (uint16_t)reg);
	if (from)
		*from = how;
	return reg;
}

int devsite_ovf_vector(sim *s)
{
	const firmware *fw = sim_firmware(s);
	const fw_symbol *h = fw_find_symbol(fw, FP_RT_OVF_SYMBOL);
	uint32_t flash, vend;
	sim_flash_layout(s, &flash, &vend);
	unsigned bytes = flash > 8192 ? 4 : 2;
	for (unsigned v = 1; v < 128 && (v + 1) * bytes <= vend; v++) {
		const char *vn = sim_vector_name(s, (uint8_t)v);
		avr_insn in;
		if (!h) {   /* the header route's tracer defines Timer1's handler itself */
			if (vn && !strcmp(vn, "TIMER1_OVF_vect"))
				return (int)v;
			continue;
		}
		if (!avr_decode(fw->flash, fw->flash_size, v * bytes, &in) &&
		    (in.op == AVR_OP_JMP || in.op == AVR_OP_RJMP) &&
		    in.target % (flash ? flash : 1u << 22) == h->addr)
			return (int)v;
	}
	return -1;
}

const char *devsite_timer_name(sim *s, int vector)
{
	static const char *const names[] = { "Timer0", "Timer1", "Timer2", "Timer3", "Timer4",
					     "Timer5" };
	const char *vn = vector > 0 ? sim_vector_name(s, (uint8_t)vector) : NULL;
	if (vn && !strncmp(vn, "TIMER", 5) && vn[5] >= '0' && vn[5] <= '5')
		return names[vn[5] - '0'];
	return names[1];
}

int devsite_in_tracer(const firmware *fw, uint32_t pc)
{
	const fw_symbol *f = fw_code_symbol_at(fw, pc);
	return f && fp_tracer_own_symbol(f->name);
}

void devsite_where(const firmware *fw, uint32_t pc, char *buf, size_t n)
{
	const fw_symbol *f = fw_code_symbol_at(fw, pc);
	char sym[160] = "";
	if (f)
		snprintf(sym, sizeof sym, "%s+0x%x", f->name, (unsigned)(pc - f->addr));
	src_lines *t = NULL;
	avrr_err err;
	const char *file = NULL;
	unsigned line = 0;
	if (lines_load(fw, &t, &err) || lines_at(t, pc, &file, &line))
		file = NULL;
	const char *base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	char src[160] = "";
	if (base)
		snprintf(src, sizeof src, "%s%s:%u", f ? ", " : "", base, line);
	if (f || base)
		snprintf(buf, n, "PC 0x%05x (%s%s)", (unsigned)pc, sym, src);
	else
		snprintf(buf, n, "PC 0x%05x", (unsigned)pc);
	lines_free(t);
}
