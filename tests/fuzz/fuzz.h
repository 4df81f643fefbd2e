/*
 * fuzz.h — what the libFuzzer harnesses share (see tests/fuzz/README.md).
 *
 * Each harness is one program, built with clang -fsanitize=fuzzer,address,
 * undefined by `make fuzz`, whose LLVMFuzzerTestOneInput hands one parser
 * the bytes libFuzzer makes.  A harness asserts nothing itself: a crash, a
 * sanitizer report, a leak or a hang is the failure.
 */
#ifndef AVRR_FUZZ_H
#define AVRR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);  /* defined by those that need it */

/* The input as a NUL-terminated string (a NUL inside ends it early, as it
 * would for the parser's real callers); free() it. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* Dies loudly when setup that cannot fail for a good build fails. */
static inline void fuzz_require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz harness setup: %s\n", what);
		abort();
	}
}

#endif
