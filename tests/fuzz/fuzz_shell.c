/*
 * fuzz_shell.c — the shell's argument parsers (shell/view.c): the first
 * input byte picks `x/FMT EXPR` (the text up to the first space is the
 * format), `print EXPR`, or an address expression as `break` and `watch`
 * read it, on a machine view of funcsheap with a data space of the input's
 * bytes.  Output goes to /dev/null.
 * Seeds: tests/fuzz/seeds/shell.
 */
#include "tests/fuzz/fuzz.h"

#include "shell/view.h"

#define DATA_SIZE 1120

static firmware *fw;
static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fw) {
		avrr_err err;
		fuzz_require(!fw_load_file("traces/funcsheap.elf", &fw, &err), err.msg);
		fuzz_require((sink = fopen("/dev/null", "w")) != NULL, "/dev/null");
	}
	if (!size)
		return 0;
	static uint8_t space[DATA_SIZE];
	for (size_t i = 0; i < DATA_SIZE; i++)
		space[i] = data[i % size];
	mview m = { .data = space, .data_size = DATA_SIZE, .fw = fw,
		    .names = ioregs_lookup("atmega16"), .pc = 0x452, .icount = 1 };
	char *line = fuzz_text(data + 1, size - 1);
	avrr_err err;
	uint32_t addr;
	int is_code;
	switch (data[0] % 3) {
	case 0: {
		char *space_at = strchr(line, ' ');
		const char *expr = "";
		if (space_at) {
			*space_at = 0;
			expr = space_at + 1;
		}
		view_xstate x = { 0 };
		if (!view_examine(sink, &m, line, expr, &x, &err))
			view_examine(sink, &m, "", "", &x, &err);  /* gdb's repeat */
		break;
	}
	case 1:
		view_print(sink, &m, line, &err);
		break;
	default:
		view_address(&m, line, data[0] & 4, &addr, &is_code, &err);
	}
	free(line);
	return 0;
}
