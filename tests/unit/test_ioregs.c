/*
 * test_ioregs.c — the generated I/O register and vector tables
 * (scripts/gen-ioregs.sh) against avr-libc and simavr themselves.
 *
 * Every core libsimavr simulates, by each of its names, has a table; and
 * every `_SFR_IO8`/`_SFR_MEM8` register and `_VECTOR` name that avr-libc
 * defines for the part, parsed here independently of the script (any
 * spacing, either case of 0x), is in it at its data-space address.
 */
#include "tests/testlib.h"

#include <ctype.h>
#include <sim_avr.h>

#include "sim/ioregs.h"

extern avr_kind_t *avr_kind[];

/* The part avr-gcc knows a simavr name by (mirrors the Makefile's list). */
static const char *gcc_name(const char *mcu)
{
	static const char *const alias[][2] = {
		{ "atmega128L", "atmega128" }, { "atmega164", "atmega164p" },
		{ "atmega324", "atmega324p" }, { "atmega8l", "atmega8" },
		{ "attiny2313v", "attiny2313" },
	};
	for (size_t i = 0; i < sizeof alias / sizeof *alias; i++)
		if (!strcmp(mcu, alias[i][0]))
			return alias[i][1];
	return mcu;
}

static void test_every_simavr_core_has_a_table(void **state)
{
	(void)state;
	unsigned n = 0;
	for (int i = 0; avr_kind[i]; i++)
		for (int k = 0; k < 4 && avr_kind[i]->names[k]; k++, n++)
			if (!ioregs_lookup(avr_kind[i]->names[k]))
				fail_msg("no register table for simavr's '%s'", avr_kind[i]->names[k]);
	assert_true(n >= 40);
}

/* Parses "#define NAME MACRO ( 0x.. )" (MACRO one of `macro`'s spellings);
 * returns 1 with name and value, else 0. */
static int parse_define(const char *line, const char *macro, char *name, size_t n,
			unsigned long *value)
{
	if (strncmp(line, "#define ", 8))
		return 0;
	const char *p = line + 8, *e = p;
	while (isalnum((unsigned char)*e) || *e == '_')
		e++;
	if (e == p || (size_t)(e - p) >= n || *e != ' ')
		return 0;
	memcpy(name, p, (size_t)(e - p));
	name[e - p] = 0;
	p = e + 1;
	size_t m = strlen(macro);
	if (strncmp(p, macro, m))
		return 0;
	p += m;
	while (*p == ' ')
		p++;
	if (*p++ != '(')
		return 0;
	char *end;
	*value = strtoul(p, &end, 0);
	while (*end == ' ')
		end++;
	return end != p && end[0] == ')' && (end[1] == '\n' || !end[1]);
}

static void test_tables_hold_every_define(void **state)
{
	(void)state;
	unsigned regs = 0, vectors = 0;
	for (unsigned i = 0; i < ioregs_nmcus; i++) {
		const mcu_names *t = &ioregs_mcus[i];
		char cmd[256], line[512], name[128];
		snprintf(cmd, sizeof cmd, "avr-gcc -mmcu=%s -E -dM -include avr/io.h -x c /dev/null",
			 gcc_name(t->mcu));
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		unsigned missing = 0;
		while (fgets(line, sizeof line, p)) {
			unsigned long v;
			int io = parse_define(line, "_SFR_IO8", name, sizeof name, &v);
			if (io || parse_define(line, "_SFR_MEM8", name, sizeof name, &v)) {
				unsigned long addr = io ? v + 0x20 : v;
				regs++;
				if (ioregs_addr(t, name) != (int)addr) {
					fprintf(stderr, "%s: %s at 0x%lx: table has %d\n", t->mcu, name,
						addr, ioregs_addr(t, name));
					missing++;
				}
			} else if (parse_define(line, "_VECTOR", name, sizeof name, &v) &&
				   strstr(name, "_vect")) {
				vectors++;
				const char *got = ioregs_vector_name(t, (unsigned)v);
				if (!got) {
					fprintf(stderr, "%s: vector %lu (%s) missing\n", t->mcu, v, name);
					missing++;
				}
			}
		}
		assert_int_equal(pclose(p), 0);
		if (missing)
			fail_msg("%s: %u names missing from its table", t->mcu, missing);
	}
	assert_true(regs > 3000 && vectors > 1000);
}

static void test_known_addresses(void **state)
{
	(void)state;
	static const struct { const char *mcu, *name; int addr; } known[] = {
		{ "atmega88", "UDR0", 0xc6 }, { "atmega88", "PINB", 0x23 },
		{ "atmega88", "TCNT1L", 0x84 }, { "atmega2560", "UDR0", 0xc6 },
		{ "atmega2560", "UDR3", 0x136 }, { "attiny85", "PINB", 0x36 },
		{ "atmega644", "SPL", 0x5d }, { "atmega328p", "UCSR0A", 0xc0 },
		{ "atmega128L", "UDR1", 0x9c },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		const mcu_names *t = ioregs_lookup(known[i].mcu);
		assert_non_null(t);
		if (ioregs_addr(t, known[i].name) != known[i].addr)
			fail_msg("%s %s: 0x%x, want 0x%x", known[i].mcu, known[i].name,
				 ioregs_addr(t, known[i].name), known[i].addr);
	}
	assert_string_equal(ioregs_vector_name(ioregs_lookup("atmega328p"), 18), "USART_RX_vect");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_simavr_core_has_a_table),
		cmocka_unit_test(test_tables_hold_every_define),
		cmocka_unit_test(test_known_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
