/*
 * fuzz_elf.c — the ELF loader (sim/firmware.c, libelf: the .mmcu section,
 * the deviceinfo note, demangling), the DWARF line table reader
 * (dwarf/lines.c, libdw) and the variables' members (dwarf/members.c)
 * on arbitrary bytes, then the
 * symbol lookups a session makes on whatever loaded, and the software
 * instruction counter's rewrite (fingerprint/instrument.c) of it.
 * Seeds: every bundled firmware, and funcsheap built with a sic:K tracer
 * and its relocations (the Makefile's seed rule).
 */
#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <unistd.h>

#include "fingerprint/instrument.h"
#include "sim/firmware.h"
#include "dwarf/lines.h"
#include "dwarf/members.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	firmware *fw = NULL;
	avrr_err err;
	if (fw_load_memory(data, size, "fuzz.elf", &fw, &err))
		return 0;
	fw_find_symbol(fw, "main");
	char where[128];
	for (uint32_t pc = 0; pc < fw->flash_size && pc < 4096; pc += 64) {
		fw_code_symbol_at(fw, pc);
		fw_describe_pc(fw, pc, where, sizeof where);
	}
	fw_data_symbol_at(fw, 0x60);
	src_lines *lines = NULL;
	if (!lines_load(fw, &lines, &err))
		lines_free(lines);
	src_members mem;
	if (!members_load(fw, &mem, &err)) {
		size_t n;
		members_in(&mem, 0x100, 0x800, &n);
		members_free(&mem);
	}
	/* The ATmega16's flash and vectors. */
	const fp_instrument_device dev = { .flash_size = 16384, .vectors_end = 0x54 };
	fp_instrument_stats st;
	int out = open("/dev/null", O_WRONLY);
	if (out >= 0) {
		fp_instrument(data, size, "fuzz.elf", &dev, out, &st, &err);
		close(out);
	}
	fw_free(fw);
	return 0;
}
