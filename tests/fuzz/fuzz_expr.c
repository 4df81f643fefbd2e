/*
 * fuzz_expr.c — the shell's expressions and frames (shell/expr.c,
 * dwarf/debuginfo.c, shell/scope.c) on tests/firmware/sensors.elf: the first
 * input byte picks the pc (outside any function, format_line's entry,
 * report after its call, an interrupt handler) and the format letter, the
 * rest is the expression (printed, taken as x's address, and as whatis and
 * ptype take it); the data space (the stack the frames unwind
 * through, the variables) is the input's bytes.  Each input also prints
 * every frame the CFI finds with its arguments and locals.  Output goes
 * to /dev/null.  Seeds: tests/fuzz/corpus/expr.
 */
#include "tests/fuzz/fuzz.h"

#include "shell/scope.h"

#define DATA_SIZE 0x900   /* ATmega328P */

static firmware *fw;
static dwinfo *dw;
static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fw) {
		avrr_err err;
		fuzz_require(!fw_load_file("tests/firmware/sensors.elf", &fw, &err), err.msg);
		fuzz_require(!dwi_open(fw, &dw, &err), err.msg);
		fuzz_require((sink = fopen("/dev/null", "w")) != NULL, "/dev/null");
	}
	if (!size)
		return 0;
	static const uint32_t PC[] = { 0, 0xa6, 0xc4, 0x154, 0x170, 0x204, 0x2e0, 0x3 };
	static const char FMT[] = { 0, 'x', 'd', 'u', 'o', 't', 'c', 'a', 'z' };
	static uint8_t space[DATA_SIZE];
	for (size_t i = 0; i < DATA_SIZE; i++)
		space[i] = data[i % size];
	mview m = { .data = space, .data_size = DATA_SIZE, .fw = fw,
		    .names = ioregs_lookup("atmega328p"), .pc = PC[data[0] & 7], .icount = 1 };
	char *text = fuzz_text(data + 1, size - 1);
	avrr_err err;
	dw_frame f;
	for (unsigned n = 0; n < 4 && !scope_frame(dw, &m, n, &f, &err); n++) {
		xctx c = { .m = &m, .d = dw, .f = &f };
		scope_frame_line(sink, &c, n, NULL);
		scope_vars(sink, &c, 0);
		scope_info_frame(sink, &c, n, NULL, NULL, NULL);
		if (n == 0) {
			xval v;
			uint32_t a;
			int is_code;
			if (!expr_eval(&c, text, &v, &err)) {
				expr_print(sink, &c, &v, FMT[(data[0] >> 3) % sizeof FMT], 1, &err);
				expr_address(&c, &v, &a, &is_code, &err);
			}
			expr_type(sink, &c, text, data[0] >> 7, &err);
		}
	}
	free(text);
	return 0;
}
