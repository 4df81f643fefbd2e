/*
 * fuzz_spec.c — fingerprint specs (fingerprint/fingerprint.c): fp_parse
 * against the ATmega16's register names and funcsheap's symbols, as replay
 * and record parse --fp, and fp_spec_bits, as recording validation does;
 * a spec that parses is then computed on a data space of arbitrary bytes.
 * Seeds: tests/fuzz/seeds/spec.
 */
#include "tests/fuzz/fuzz.h"

#include "fingerprint/fingerprint.h"

#define DATA_SIZE 1120  /* the ATmega16's data space */

static firmware *fw;
static const mcu_names *names;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fw) {
		avrr_err err;
		fuzz_require(!fw_load_file("traces/funcsheap.elf", &fw, &err), err.msg);
		fuzz_require((names = ioregs_lookup("atmega16")) != NULL, "no atmega16 names");
	}
	char *spec = fuzz_text(data, size);
	avrr_err err;
	unsigned ra, state;
	fp_spec_bits(spec, &ra, &state, &err);
	fp_config c;
	if (!fp_parse(spec, names, fw, DATA_SIZE, "fuzz", &c, &err)) {
		static uint8_t space[DATA_SIZE];
		for (size_t i = 0; i < DATA_SIZE; i++)
			space[i] = (uint8_t)(i * 31 + size);
		space[0x5d] = 0x40;  /* SP inside the data space, as on a chip */
		space[0x5e] = 0x04;
		fp_state s = { .data = space, .data_size = DATA_SIZE, .ra = 0x452 };
		fp_compute(&c, &s);
		fp_input_key(&c, &s);
		char text[600];
		fp_format(&c, text, sizeof text);
	}
	free(spec);
	return 0;
}
