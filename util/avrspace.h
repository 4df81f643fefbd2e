/*
 * avrspace.h — where avr-gcc puts the AVR's separate address spaces in
 * one ELF address range: flash at 0, data (registers, I/O, SRAM) at
 * 0x800000, EEPROM at 0x810000.  Symbols, DWARF locations (DW_OP_addr) and
 * avr-gdb's printed pointers all use these offsets, so every layer that
 * reads them must agree on one definition.
 */
#ifndef AVRR_UTIL_AVRSPACE_H
#define AVRR_UTIL_AVRSPACE_H

#define ELF_DATA_BASE   0x800000u
#define ELF_EEPROM_BASE 0x810000u
#define ELF_SPACE_END   0x820000u  /* past EEPROM: nothing avr-gcc places */

#endif
