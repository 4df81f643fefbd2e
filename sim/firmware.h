/*
 * firmware.h — an AVR ELF image, read with libelf, independent of simavr.
 *
 * A firmware is loaded from memory (a file's bytes, or the copy a recording
 * keeps), validated (ELF32, machine AVR, something to run), and reduced to
 * what avrr needs: the flash and EEPROM images from the program headers, the
 * MCU name and clock from simavr's `.mmcu` section when the firmware has one
 * (else the MCU from the `.note.gnu.avr.deviceinfo` note avr-libc's start-up
 * code leaves in every ELF, Arduino's included; that note names no clock),
 * where its static data (.data, .bss, .noinit) ends, and the symbol table
 * (functions and variables, with sizes).
 *
 * C++ names are demangled here, once, as the symbols are read
 * (fw_demangle): every layer above prints `HardwareSerial::available()`,
 * never `_ZN14HardwareSerial9availableEv`.
 *
 * Addresses follow avr-gcc's conventions inside the ELF (data at 0x800000,
 * EEPROM at 0x810000) but are stored here in each space's own terms: code
 * symbols as flash byte addresses, variables as data-space addresses.
 */
#ifndef AVRR_FIRMWARE_H
#define AVRR_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

typedef enum { FW_SYM_CODE, FW_SYM_DATA, FW_SYM_EEPROM } fw_sym_space;

typedef struct fw_symbol {
	char *name;             /* demangled: "HardwareSerial::read()" */
	char *link_name;        /* as in the ELF: "_ZN14HardwareSerial4readEv" */
	uint32_t addr;          /* byte address in its own space */
	uint32_t size;          /* bytes; 0 when the ELF does not say */
	fw_sym_space space;
	int is_func;
} fw_symbol;

typedef struct firmware {
	char *path;             /* where it was loaded from (for messages) */
	uint8_t *elf;           /* the file's bytes, kept for the recording */
	size_t elf_size;
	char sha256[65];        /* hex digest of the file's bytes */

	uint8_t *flash;         /* flash image, flash_size bytes */
	uint32_t flash_size;
	uint32_t code_end;      /* end of .text (the data load image follows) */
	uint8_t *eeprom;        /* may be NULL */
	uint32_t eeprom_size;

	char mcu[64];           /* from .mmcu, else the deviceinfo note; "" when absent */
	const char *mcu_from;   /* ".mmcu section", "deviceinfo note", or "" */
	uint32_t frequency;     /* from .mmcu; 0 when absent */
	uint32_t vcc, avcc, aref; /* millivolts from .mmcu; 0 when absent */

	uint32_t data_end;      /* data-space address past .data/.bss/.noinit; 0 if none */

	fw_symbol *syms;        /* sorted by (space, addr, name) */
	size_t nsyms;

	int has_stabs;          /* a .stab section: avr-gcc 5.4's plain -g */
	int has_dwarf;          /* a DWARF unit that describes code (avr-libc's
				   own unit, in every build, describes none) */

	unsigned holders;       /* holders besides the first (fw_cache): each
				   fw_free but the last only lets go */
} firmware;

/* Reads and validates the file at `path`.  Errors name the path:
 * "x.elf: No such file or directory", "x.elf: not an ELF file",
 * "x.elf: ELF for machine 62 (x86-64), not AVR (83)". */
int fw_load_file(const char *path, firmware **out, avrr_err *err);

/* The same from bytes already in memory (copied); `path` names them. */
int fw_load_memory(const void *bytes, size_t size, const char *path,
		   firmware **out, avrr_err *err);

void fw_free(firmware *fw);

/* The firmware last loaded through it, kept for the next load of the same
 * bytes: a fuzzer replays one recording's ELF thousands of times, and
 * parsing it (its digest, symbols and DWARF) was a tenth of each replay.
 * A firmware is never changed once loaded, so it is shared: each holder
 * fw_free()s it, and the last one frees it. */
typedef struct fw_cache fw_cache;

fw_cache *fw_cache_new(void);  /* NULL when out of memory */
void fw_cache_free(fw_cache *c);

/* fw_load_memory through c (NULL: none): the firmware kept, when it was
 * loaded from these very bytes under this path, else loaded now and kept
 * in its place.  What fails to load is not kept. */
int fw_load_memory_cached(fw_cache *c, const void *bytes, size_t size, const char *path,
			  firmware **out, avrr_err *err);

/* The demangled form of a C++ symbol name (malloc'd), or NULL when `name`
 * is not a mangled C++ name (C symbols, labels). */
char *fw_demangle(const char *name);

/* The symbol named `name` (first in space order), or NULL.  A C++ name
 * matches in its demangled form with or without its parameter list
 * ("HardwareSerial::available" finds "HardwareSerial::available()"), or as
 * linked ("_ZN14HardwareSerial9availableEv"). */
const fw_symbol *fw_find_symbol(const firmware *fw, const char *name);

/* A function named with this prefix (the vector route's copy of a skip on
 * an input, `avrr instrument`) returns either to the instruction after its
 * call or past the one after that: a frame analysis follows both. */
#define FW_SKIP_COPY_PREFIX "avrr_skip_at_"

/* The code symbol that contains byte address `pc` (the nearest function or
 * label at or below it), or NULL.  Used for "symbol+offset". */
const fw_symbol *fw_code_symbol_at(const firmware *fw, uint32_t pc);

/* The data symbol covering data address `addr`, or NULL. */
const fw_symbol *fw_data_symbol_at(const firmware *fw, uint32_t addr);

/* What a debugger will make of the firmware's debug info, when it is not
 * DWARF: "PATH has stabs debug info, which avr-gdb misreads (32-bit
 * variables, ISR backtraces); rebuild with -gdwarf-4", or "PATH has no
 * DWARF debug info ...; rebuild with -gdwarf-4" (buf, n bytes).  NULL when
 * its code has DWARF and no stabs.  record, shell and gdb say it once. */
const char *fw_debug_info_problem(const firmware *fw, char *buf, size_t n);

/* Writes "name+0xoff" (or "name", or "0x1234" with no symbol) into buf. */
void fw_describe_pc(const firmware *fw, uint32_t pc, char *buf, size_t n);

#endif
