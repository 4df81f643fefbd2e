/*
 * fuzz_stimuli.c — the stimuli parser (sim/stimuli.c) on arbitrary text.
 * Seeds: every bundled stimuli file.
 */
#include "tests/fuzz/fuzz.h"

#include "sim/stimuli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	stim_script *script = NULL;
	avrr_err err;
	if (!stim_parse(text, "fuzz.stim", &script, &err)) {
		stim_default_seed(script);
		stim_free(script);
	}
	free(text);
	return 0;
}
