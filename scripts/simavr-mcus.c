/*
 * simavr-mcus.c — prints every MCU the installed libsimavr can simulate,
 * one line per core, its names (simavr's aliases) separated by spaces:
 *
 *     atmega128 atmega128L
 *     atmega1280
 *     ...
 *
 * The list is simavr's own `avr_kind` table, so it follows the library the
 * build links against.  The Makefile builds and runs this at build time and
 * feeds the list to scripts/gen-ioregs.sh.
 */
#include <stdio.h>
#include <sim_avr.h>

extern avr_kind_t *avr_kind[];

int main(void)
{
	int cores = 0;
	for (int i = 0; avr_kind[i]; i++) {
		const char *sep = "";
		for (int k = 0; k < 4 && avr_kind[i]->names[k]; k++) {
			printf("%s%s", sep, avr_kind[i]->names[k]);
			sep = " ";
		}
		if (*sep) {
			putchar('\n');
			cores++;
		}
	}
	if (fflush(stdout) || ferror(stdout) || !cores) {
		fprintf(stderr, "simavr-mcus: %s\n", cores ? "write error" : "libsimavr lists no cores");
		return 1;
	}
	return 0;
}
