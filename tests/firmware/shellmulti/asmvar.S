; asmvar.S — a variable defined in assembly, with no DWARF of its own:
; main.c's `extern` declaration is all the debug info knows of it, and
; its ELF symbol says where it is (as gdb resolves such a declaration).
	.section .data
	.global asm_counter
	.type asm_counter, @object
	.size asm_counter, 2
asm_counter:
	.word 0x1234
