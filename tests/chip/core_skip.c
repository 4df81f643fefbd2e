// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * core_skip.c — each skip instruction (CPSE, SBRC, SBRS, SBIC, SBIS),
 * taken, over an ADIW or SBIW whose K ends in 12..15 (simavr 1.6 took
 * those for 2-word instructions); over the 2-word LDS, STS, JMP and
 * CALL; over a plain 1-word LDI; and one not taken (case 12: r24 ends
 * 0x4d, in 1 cycle and the LDI's).  Each case
 * writes a marker to GPIOR1, skips, and writes r24 to GPIOR2: the
 * word after the skipped one runs.  r24 = 0x41 + case; a skip too far
 * would land on the next case's marker write instead.
 */
#include <avr/io.h>

#define MARK(n) "ldi r25, " #n "\n\tout %[mark], r25\n\t"

int main(void)
{
	GPIOR0 = 0x01;  /* bit 0 set, for SBIS; bit 1 clear, for SBIC */
	__asm__ __volatile__(
		"ldi r20, 0x01\n\t"
		MARK(1) "ldi r24, 0x41\n\tcpse r20, r20\n\tadiw r26, 12\n\tout %[out], r24\n\t"
		MARK(2) "ldi r24, 0x42\n\tsbrc r20, 1\n\tadiw r26, 13\n\tout %[out], r24\n\t"
		MARK(3) "ldi r24, 0x43\n\tsbrs r20, 0\n\tsbiw r26, 14\n\tout %[out], r24\n\t"
		MARK(4) "ldi r24, 0x44\n\tsbic %[flags], 1\n\tsbiw r26, 15\n\tout %[out], r24\n\t"
		MARK(5) "ldi r24, 0x45\n\tsbis %[flags], 0\n\tadiw r26, 63\n\tout %[out], r24\n\t"
		MARK(6) "ldi r24, 0x46\n\tsbrs r20, 0\n\tlds r0, 0x100\n\tout %[out], r24\n\t"
		MARK(7) "ldi r24, 0x47\n\tsbrs r20, 0\n\tadiw r26, 11\n\tout %[out], r24\n\t"
		MARK(8) "ldi r24, 0x48\n\tsbrs r20, 0\n\tsts 0x100, r0\n\tout %[out], r24\n\t"
		MARK(9) "ldi r24, 0x49\n\tsbrs r20, 0\n\tjmp 0\n\tout %[out], r24\n\t"
		MARK(10) "ldi r24, 0x4a\n\tsbrs r20, 0\n\tcall 0\n\tout %[out], r24\n\t"
		MARK(11) "ldi r24, 0x4b\n\tsbrs r20, 0\n\tldi r24, 0\n\tout %[out], r24\n\t"
		MARK(12) "ldi r24, 0x4c\n\tsbrs r20, 1\n\tldi r24, 0x4d\n\tout %[out], r24\n\t"
		MARK(13)
		:
		: [mark] "I"(_SFR_IO_ADDR(GPIOR1)), [out] "I"(_SFR_IO_ADDR(GPIOR2)),
		  [flags] "I"(_SFR_IO_ADDR(GPIOR0))
		: "r0", "r20", "r24", "r25", "r26", "r27");
	for (;;)
		;
}
