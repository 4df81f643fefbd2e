/*
 * fuzz_recording.c — a recording as a file of arbitrary bytes: libFuzzer
 * mutates a small valid recording's pages (and anything else), and the
 * result is opened, validated and, if it passes, loaded and replayed
 * (recording.h).  SQLite's own checks meet damaged pages; avrr's validation
 * meets everything SQLite accepts.
 * Seeds: a 3,000-instruction recording of funcsheap, made by `make fuzz`.
 */
#include "fuzz.h"

#include <fcntl.h>

#include "recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_scratch_path();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fuzz_require(fd >= 0, path);
	fuzz_require(write(fd, data, size) == (ssize_t)size, "writing the scratch file");
	close(fd);
	fuzz_load_recording(path);
	unlink(path);
	return 0;
}
