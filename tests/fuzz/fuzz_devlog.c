/*
 * fuzz_devlog.c — the device log parser (device/devlog.c), as `avrr
 * import` runs it on a dump: devlog_parse on the bytes, then, the bytes
 * taken as an ELF, the search for the log header and the firmware's hash
 * that import and stamp make.  Seeds: tests/fuzz/corpus/devlog, format
 * version 2: a dump of tests/firmware/arduino_blink.c built with `avrr
 * tracer --log func` (the default spec: fingerprints as differences),
 * funcsheap's with its reads logged (runs of reads, reads folded into
 * interrupt items), and cut at byte 400,
 * the same with sel=cycles:16,ra=8,width=24 (fingerprints as their
 * bytes), and one that lost items (an 18-byte block at 9,600 baud).
 */
#include "tests/fuzz/fuzz.h"

#include "device/devlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	devlog l;
	avrr_err err;
	if (!devlog_parse(data, size, &l, &err)) {
		uint64_t sum = 0;
		for (size_t i = 0; i < l.nitems; i++)
			sum += l.items[i].fp + l.items[i].lost + l.items[i].value;
		(void)sum;
		devlog_free(&l);
	}
	uint8_t sha[32];
	size_t tail;
	devlog_elf_hash(data, size, sha, &tail, &err);
	if (size) {
		uint8_t *copy = malloc(size);
		if (!copy)
			abort();
		memcpy(copy, data, size);
		devlog_stamp(copy, size, &err);
		free(copy);
	}
	return 0;
}
