/*
 * fuzz_recording.c — a recording as a file of arbitrary bytes: libFuzzer
 * mutates a small valid recording's pages (and anything else), and the
 * result is opened from memory, validated and, if it passes, loaded and
 * replayed (recording.h).  SQLite's own checks meet damaged pages; avrr's validation
 * meets everything SQLite accepts.
 * Seeds: a 3,000-instruction recording of funcsheap, made by `make fuzz`.
 */
#include "tests/fuzz/fuzz.h"

#include "tests/fuzz/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_load_recording(data, size);
	return 0;
}
