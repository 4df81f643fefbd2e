/*
 * test_fingerprint.c — unit tests for fingerprint/fingerprint.{h,c}: spec
 * parsing (components, defaults, ranges, stack:N, var:NAME, all, round-robin
 * markers), error messages that quote the bad token, selector extraction
 * from a hand-built ATmega16 context, fp_compute against fp_hash itself,
 * round-robin hash picking, and the property that a wider hash never yields
 * more duplicate fingerprints.
 */
#include "tests/testlib.h"

#include "fingerprint/cost.h"
#include "fingerprint/fingerprint.h"

#define DATA_SIZE 0x460u /* ATmega16 data space */
#define FW_PATH "traces/funcsheap.elf"

/* Variables of traces/funcsheap.elf (avr-nm): g_acc 2 bytes at 0x7d,
 * g_presses 1 byte at 0x76. */
#define G_ACC_ADDR 0x7d
#define G_PRESSES_ADDR 0x76

static const mcu_names *m16(void)
{
	const mcu_names *n = ioregs_lookup("atmega16");
	assert_non_null(n);
	return n;
}

static firmware *load_fw(void)
{
	firmware *fw = NULL;
	avrr_err err = { { 0 } };
	if (fw_load_file(FW_PATH, &fw, &err))
		fail_msg("fw_load_file: %s", err.msg);
	return fw;
}

static int parse(const char *spec, const firmware *fw, fp_config *c, avrr_err *err)
{
	memset(err, 0, sizeof *err);
	return fp_parse(spec, m16(), fw, DATA_SIZE, "dflt", c, err);
}

static void parse_ok(const char *spec, const firmware *fw, fp_config *c)
{
	avrr_err err;
	if (parse(spec, fw, c, &err))
		fail_msg("fp_parse('%s') failed: %s", spec, err.msg);
}

/* A context filled with a pattern, SP = sp. */
static void fill_ctx(uint8_t *data, uint16_t sp)
{
	for (uint32_t i = 0; i < DATA_SIZE; i++)
		data[i] = (uint8_t)(i * 7 + 3);
	data[0x5d] = (uint8_t)sp;
	data[0x5e] = (uint8_t)(sp >> 8);
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* ---- 1. parsing ---------------------------------------------------------- */

static void test_parse_example(void **state)
{
	(void)state;
	fp_config c;
	parse_ok("fast:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=8,width=16", NULL, &c);
	assert_string_equal(c.name, "fast");
	assert_string_equal(c.spec, "sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=8,width=16");
	assert_int_equal(c.ncomp, 6);
	static const uint16_t addr[6] = { 0x5d, 0x5e, 0x5f, 24, 25, 30 };
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(c.comp[i].kind, FP_COMP_BYTES);
		assert_int_equal(c.comp[i].addr, addr[i]);
		assert_int_equal(c.comp[i].len, 1);
	}
	assert_false(c.round_robin);
	assert_int_equal(c.hash, FP_HASH_JENKINS);
	assert_int_equal(c.ra_bits, 8);
	assert_int_equal(c.hash_bits, 8);
	char buf[600];
	fp_format(&c, buf, sizeof buf);
	assert_string_equal(buf, "fast:sel=SPL+SPH+SREG+r24+r25+r30,hash=jenkins,ra=8,width=16");
}

static void test_parse_defaults_and_name(void **state)
{
	(void)state;
	fp_config c;
	parse_ok("sel=PINB+TCNT1L+r0+r31", NULL, &c);
	assert_string_equal(c.name, "dflt");
	assert_int_equal(c.ncomp, 4);
	assert_int_equal(c.comp[0].addr, 0x36);
	assert_int_equal(c.comp[1].addr, 0x4c);
	assert_int_equal(c.comp[2].addr, 0);
	assert_int_equal(c.comp[3].addr, 31);
	assert_false(c.round_robin);
	assert_int_equal(c.hash, FP_HASH_JENKINS);
	assert_int_equal(c.ra_bits, 8);
	assert_int_equal(c.hash_bits, 8);

	/* NULL default name gives "fp"; other params in any order. */
	avrr_err err;
	assert_int_equal(fp_parse("width=32,hash=knuth,ra=0,sel=r1", m16(), NULL, DATA_SIZE, NULL,
				  &c, &err), 0);
	assert_string_equal(c.name, "fp");
	assert_int_equal(c.hash, FP_HASH_KNUTH);
	assert_int_equal(c.ra_bits, 0);
	assert_int_equal(c.hash_bits, 32);

	parse_ok("sel=r1,ra=32,width=64", NULL, &c);
	assert_int_equal(c.ra_bits, 32);
	assert_int_equal(c.hash_bits, 32);
}

static void test_parse_ranges_stack_all(void **state)
{
	(void)state;
	fp_config c;
	parse_ok("sel=0x60-0x6f+0x100+stack:4", NULL, &c);
	assert_int_equal(c.ncomp, 3);
	assert_int_equal(c.comp[0].kind, FP_COMP_BYTES);
	assert_int_equal(c.comp[0].addr, 0x60);
	assert_int_equal(c.comp[0].len, 16);
	assert_int_equal(c.comp[1].kind, FP_COMP_BYTES);
	assert_int_equal(c.comp[1].addr, 0x100);
	assert_int_equal(c.comp[1].len, 1);
	assert_int_equal(c.comp[2].kind, FP_COMP_STACK);
	assert_int_equal(c.comp[2].len, 4);

	parse_ok("sel=0x45f", NULL, &c); /* the last byte is inside */
	assert_int_equal(c.comp[0].addr, 0x45f);

	parse_ok("sel=all", NULL, &c);
	assert_int_equal(c.ncomp, 1);
	assert_int_equal(c.comp[0].kind, FP_COMP_ALL);
}

static void test_parse_var(void **state)
{
	(void)state;
	firmware *fw = load_fw();
	const fw_symbol *s = fw_find_symbol(fw, "g_acc");
	assert_non_null(s);
	assert_int_equal(s->addr, G_ACC_ADDR);
	assert_int_equal(s->size, 2);

	fp_config c;
	parse_ok("sel=var:g_acc+var:g_presses", fw, &c);
	assert_int_equal(c.ncomp, 2);
	assert_int_equal(c.comp[0].kind, FP_COMP_BYTES);
	assert_int_equal(c.comp[0].addr, G_ACC_ADDR);
	assert_int_equal(c.comp[0].len, 2);
	assert_int_equal(c.comp[1].addr, G_PRESSES_ADDR);
	assert_int_equal(c.comp[1].len, 1);
	fw_free(fw);
}

static void test_parse_rr_markers(void **state)
{
	(void)state;
	firmware *fw = load_fw();
	fp_config c;
	parse_ok("sel=SPL,hash=rr", fw, &c);
	assert_true(c.round_robin);
	assert_int_equal(c.marker, FP_MARK_BLOCKS);

	parse_ok("rr1:sel=SPL,hash=rr,marker=var:g_presses", fw, &c);
	assert_string_equal(c.name, "rr1");
	assert_true(c.round_robin);
	assert_int_equal(c.marker, FP_MARK_VAR);
	assert_int_equal(c.marker_addr, G_PRESSES_ADDR);

	/* marker before hash=rr is fine too. */
	parse_ok("sel=SPL,marker=0x100-0x1ff:knuth+0x200-0x2ff:twomod,hash=rr", NULL, &c);
	assert_true(c.round_robin);
	assert_int_equal(c.marker, FP_MARK_REGIONS);
	assert_int_equal(c.nregions, 2);
	assert_int_equal(c.region[0].lo, 0x100);
	assert_int_equal(c.region[0].hi, 0x1ff);
	assert_int_equal(c.region[0].hash, FP_HASH_KNUTH);
	assert_int_equal(c.region[1].lo, 0x200);
	assert_int_equal(c.region[1].hi, 0x2ff);
	assert_int_equal(c.region[1].hash, FP_HASH_TWOMOD);
	fw_free(fw);
}

/* ---- 2. errors ----------------------------------------------------------- */

static void expect_err(const char *spec, const firmware *fw, const char *needle)
{
	fp_config c;
	avrr_err err;
	if (!parse(spec, fw, &c, &err))
		fail_msg("fp_parse('%s') succeeded; expected an error mentioning %s", spec, needle);
	if (!strstr(err.msg, needle))
		fail_msg("fp_parse('%s'): message \"%s\" lacks %s", spec, err.msg, needle);
	char quoted[600];
	snprintf(quoted, sizeof quoted, "'%s'", spec);
	if (!strstr(err.msg, quoted))
		fail_msg("fp_parse('%s'): message \"%s\" does not quote the spec", spec, err.msg);
}

static void test_parse_errors(void **state)
{
	(void)state;
	firmware *fw = load_fw();
	expect_err("sel=r32", fw, "'r32'");
	expect_err("sel=r07", fw, "'r07'");
	expect_err("sel=FOO", fw, "'FOO'");
	expect_err("sel=SPL,hash=md5", fw, "'md5'");
	expect_err("sel=SPL,ra=40", fw, "'ra=40'");
	expect_err("sel=SPL,width=0", fw, "'width=0'");
	expect_err("sel=SPL,width=65", fw, "'width=65'");
	expect_err("sel=SPL,ra=20,width=16", fw, "ra=20 exceeds width=16");
	expect_err("hash=jenkins", fw, "no selector");
	expect_err("sel=SPL,bogus=1", fw, "'bogus=1'");
	expect_err("sel=SPL,marker=var:g_presses", fw, "needs hash=rr");
	expect_err("sel=all+SPL", fw, "'all'");
	expect_err("sel=0x500", fw, "'0x500'");
	expect_err("sel=0x450-0x460", fw, "'0x450-0x460'");
	expect_err("sel=0x70-0x60", fw, "'0x70-0x60'");
	expect_err("sel=var:nosuch", fw, "'var:nosuch'");
	expect_err("sel=SPL,hash=rr,marker=var:nosuch", fw, "'var:nosuch'");
	expect_err("sel=SPL,hash=rr,marker=0x100-0x1ff:md5", fw, "'md5'");
	expect_err("sel=SPL,", fw, "trailing ','");
	expect_err("sel=SPL+", fw, "''");
	expect_err(":sel=SPL", fw, "''");
	expect_err("sel=stack:0", fw, "'stack:0'");
	expect_err("sel=SPL,sel=SREG", fw, "'sel=SREG'");
	expect_err("sel=SPL,hash", fw, "'hash'");
	/* var: without a firmware, and names without an MCU table */
	expect_err("sel=var:g_acc", NULL, "'var:g_acc'");
	fw_free(fw);

	fp_config c;
	avrr_err err;
	assert_int_not_equal(fp_parse("sel=SPL", NULL, NULL, DATA_SIZE, NULL, &c, &err), 0);
	assert_non_null(strstr(err.msg, "'SPL'"));
}

/* ---- 3. selector extraction ---------------------------------------------- */

static void test_select_components(void **state)
{
	(void)state;
	static uint8_t data[DATA_SIZE];
	fill_ctx(data, 0x450);
	fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = 0x1234 };
	fp_config c;
	parse_ok("sel=SREG+r24+0x60-0x62+stack:3", NULL, &c);
	uint8_t buf[64];
	const uint8_t *direct = (const uint8_t *)1;
	uint32_t n = fp_select(&c, &s, buf, sizeof buf, &direct);
	assert_null(direct);
	const uint8_t want[8] = { data[0x5f], data[24],    data[0x60],  data[0x61],
				  data[0x62], data[0x451], data[0x452], data[0x453] };
	assert_int_equal(n, 8);
	assert_memory_equal(buf, want, 8);

	/* cap truncates */
	assert_int_equal(fp_select(&c, &s, buf, 5, &direct), 5);
	assert_memory_equal(buf, want, 5);
}

static void test_select_stack_end_of_ram(void **state)
{
	(void)state;
	static uint8_t data[DATA_SIZE];
	fp_config c;
	parse_ok("sel=stack:4+r1", NULL, &c);
	uint8_t buf[16];
	const uint8_t *direct;

	fill_ctx(data, 0x45e);
	fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = 0 };
	assert_int_equal(fp_select(&c, &s, buf, sizeof buf, &direct), 2);
	assert_int_equal(buf[0], data[0x45f]);
	assert_int_equal(buf[1], data[1]);

	fill_ctx(data, 0x45f); /* SP at RAMEND: the stack is empty */
	assert_int_equal(fp_select(&c, &s, buf, sizeof buf, &direct), 1);
	assert_int_equal(buf[0], data[1]);
}

static void test_select_all(void **state)
{
	(void)state;
	static uint8_t data[DATA_SIZE];
	fill_ctx(data, 0x450);
	fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = 0 };
	fp_config c;
	parse_ok("sel=all,width=32,ra=0", NULL, &c);
	uint8_t buf[4];
	const uint8_t *direct = NULL;
	assert_int_equal(fp_select(&c, &s, buf, sizeof buf, &direct), DATA_SIZE);
	assert_ptr_equal(direct, data);
	fp_value v = fp_compute(&c, &s);
	assert_int_equal(v.ra_part, 0);
	assert_int_equal(v.hash_part, fp_hash(FP_HASH_JENKINS, data, DATA_SIZE, 32));
}

/* ---- 4. fp_compute ------------------------------------------------------- */

static void test_compute(void **state)
{
	(void)state;
	static uint8_t data[DATA_SIZE];
	fill_ctx(data, 0x450);
	static const char *const specs[] = {
		"sel=SREG+r24+0x60-0x62+stack:3,hash=modular,ra=8,width=16",
		"sel=SREG+r24+0x60-0x62+stack:3,hash=twomod,ra=5,width=21",
		"sel=SREG+r24+0x60-0x62+stack:3,hash=jenkins,ra=12,width=44",
		"sel=SREG+r24+0x60-0x62+stack:3,hash=knuth,ra=0,width=64",
		"sel=SREG+r24+0x60-0x62+stack:3,hash=knuth,ra=3,width=3",
	};
	const uint8_t sel[8] = { data[0x5f], data[24],    data[0x60],  data[0x61],
				 data[0x62], data[0x451], data[0x452], data[0x453] };
	static const uint32_t ras[] = { 0, 0x2, 0x1234, 0x3fff, 0x1fffe };
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
		fp_config c;
		parse_ok(specs[i], NULL, &c);
		for (size_t j = 0; j < sizeof ras / sizeof *ras; j++) {
			fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = ras[j] };
			fp_value v = fp_compute(&c, &s);
			assert_int_equal(v.ra_part, (ras[j] >> 1) & fp_hash_mask(c.ra_bits));
			assert_int_equal(v.hash_part, fp_hash(c.hash, sel, 8, c.hash_bits));
		}
	}
	/* a hand-checked RA: byte 0x1234 is word 0x91a; 8 bits keep 0x1a */
	fp_config c;
	parse_ok(specs[0], NULL, &c);
	fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = 0x1234 };
	assert_int_equal(fp_compute(&c, &s).ra_part, 0x1a);
	/* modular over the 8 selected bytes is their sum mod 2^8 */
	unsigned sum = 0;
	for (int i = 0; i < 8; i++)
		sum += sel[i];
	assert_int_equal(fp_compute(&c, &s).hash_part, sum & 0xff);
}

/* ---- 5. round-robin ------------------------------------------------------ */

static void test_rr_var_marker(void **state)
{
	(void)state;
	firmware *fw = load_fw();
	static uint8_t data[DATA_SIZE];
	fill_ctx(data, 0x450);
	fp_config c;
	parse_ok("sel=r24+r25+0x60-0x63,hash=rr,marker=var:g_presses,ra=0,width=32", fw, &c);
	static const fp_hash_kind order[4] = { FP_HASH_MODULAR, FP_HASH_TWOMOD, FP_HASH_JENKINS,
					       FP_HASH_KNUTH };
	uint64_t parts[4];
	for (unsigned m = 0; m < 8; m++) {
		data[G_PRESSES_ADDR] = (uint8_t)(m == 7 ? 0xff : m);
		fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = 0x400 };
		fp_hash_kind want = order[(m == 7 ? 0xff : m) & 3];
		assert_int_equal(fp_pick_hash(&c, &s), want);
		const uint8_t sel[6] = { data[24], data[25], data[0x60], data[0x61], data[0x62],
					 data[0x63] };
		fp_value v = fp_compute(&c, &s);
		assert_int_equal(v.hash_part, fp_hash(want, sel, 6, 32));
		if (m < 4)
			parts[m] = v.hash_part;
	}
	/* the pick really changes the fingerprint */
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			assert_int_not_equal(parts[i], parts[j]);
	fw_free(fw);
}

static void test_rr_regions_and_blocks(void **state)
{
	(void)state;
	static uint8_t data[DATA_SIZE];
	fill_ctx(data, 0x450);
	fp_config blocks, regions;
	parse_ok("sel=r24+r25,hash=rr,ra=0,width=32", NULL, &blocks);
	parse_ok("sel=r24+r25,hash=rr,marker=0x100-0x1ff:knuth+0x200-0x2ff:twomod,ra=0,width=32",
		 NULL, &regions);
	const uint8_t sel[2] = { data[24], data[25] };
	static const struct {
		uint32_t ra;
		fp_hash_kind blocks, regions;
	} cases[] = {
		{ 0x000, FP_HASH_MODULAR, FP_HASH_MODULAR },
		{ 0x07e, FP_HASH_MODULAR, FP_HASH_MODULAR },
		{ 0x080, FP_HASH_TWOMOD, FP_HASH_TWOMOD },
		{ 0x0fe, FP_HASH_TWOMOD, FP_HASH_TWOMOD },
		{ 0x100, FP_HASH_JENKINS, FP_HASH_KNUTH },
		{ 0x180, FP_HASH_KNUTH, FP_HASH_KNUTH },
		{ 0x1fe, FP_HASH_KNUTH, FP_HASH_KNUTH },
		{ 0x1ff, FP_HASH_KNUTH, FP_HASH_KNUTH },
		{ 0x200, FP_HASH_MODULAR, FP_HASH_TWOMOD },
		{ 0x280, FP_HASH_TWOMOD, FP_HASH_TWOMOD },
		{ 0x2fe, FP_HASH_TWOMOD, FP_HASH_TWOMOD },
		{ 0x300, FP_HASH_JENKINS, FP_HASH_JENKINS },
		{ 0x380, FP_HASH_KNUTH, FP_HASH_KNUTH },
		{ 0x400, FP_HASH_MODULAR, FP_HASH_MODULAR },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = cases[i].ra };
		assert_int_equal(fp_pick_hash(&blocks, &s), cases[i].blocks);
		assert_int_equal(fp_pick_hash(&regions, &s), cases[i].regions);
		assert_int_equal(fp_compute(&blocks, &s).hash_part,
				 fp_hash(cases[i].blocks, sel, 2, 32));
		assert_int_equal(fp_compute(&regions, &s).hash_part,
				 fp_hash(cases[i].regions, sel, 2, 32));
	}
}

/* ---- 6. property: wider never duplicates more ------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

#define NCTX 2000

static void test_duplicates_nonincreasing_with_width(void **state)
{
	(void)state;
	static const char *const hashes[4] = { "modular", "twomod", "jenkins", "knuth" };
	static uint8_t data[DATA_SIZE];
	static uint8_t vary[NCTX][4];
	uint64_t rng = 0x5eed;
	for (int i = 0; i < NCTX; i++) {
		uint64_t r = splitmix64(&rng);
		memcpy(vary[i], &r, 4);
	}
	fill_ctx(data, 0x450);
	for (int h = 0; h < 4; h++) {
		unsigned prev_dups = NCTX;
		for (unsigned w = 1; w <= 32; w++) {
			char spec[128];
			snprintf(spec, sizeof spec, "sel=SREG+r24+r25+0x60+0x61+stack:2,hash=%s,ra=0,width=%u",
				 hashes[h], w);
			fp_config c;
			parse_ok(spec, NULL, &c);
			assert_int_equal(c.hash_bits, w);
			static uint64_t vals[NCTX];
			for (int i = 0; i < NCTX; i++) {
				data[24] = vary[i][0];
				data[25] = vary[i][1];
				data[0x60] = vary[i][2];
				data[0x451] = vary[i][3];
				fp_state s = { .data = data, .data_size = DATA_SIZE, .ra = (uint32_t)i * 2 };
				fp_value v = fp_compute(&c, &s);
				assert_int_equal(v.ra_part, 0);
				assert_true(v.hash_part <= fp_hash_mask(w));
				vals[i] = v.hash_part;
			}
			qsort(vals, NCTX, sizeof *vals, cmp_u64);
			unsigned dups = 0;
			for (int i = 1; i < NCTX; i++)
				dups += vals[i] == vals[i - 1];
			if (dups > prev_dups)
				fail_msg("%s: %u duplicates at width %u, %u at width %u", hashes[h], dups,
					 w, prev_dups, w - 1);
			/* at width 1 there are at most 2 distinct values */
			if (w == 1)
				assert_true(dups >= NCTX - 2);
			prev_dups = dups;
		}
	}
}

/* ---- counters ------------------------------------------------------------ */

static void test_counters_parse(void **state)
{
	(void)state;
	fp_config c;
	parse_ok("sel=SPL+sic:12+r24+cycles:4,ra=8,width=32", NULL, &c);
	assert_int_equal(c.ncomp, 2);   /* the bytes: SPL and r24 */
	assert_int_equal(c.ncounters, 2);
	assert_int_equal(c.counter[0].kind, FP_COUNT_SIC);
	assert_int_equal(c.counter[0].bits, 12);
	assert_int_equal(c.counter[1].kind, FP_COUNT_CYCLES);
	assert_int_equal(c.counter[1].bits, 4);
	assert_int_equal(c.count_bits, 16);
	assert_int_equal(c.state_bits, 24);
	assert_int_equal(c.hash_bits, 8);
	/* Counters alone: no hash bits at all. */
	parse_ok(FP_DEFAULT_SPEC, NULL, &c);
	assert_int_equal(c.ncomp, 0);
	assert_int_equal(c.hash_bits, 0);
	assert_int_equal(c.ra_bits, 0);
	assert_int_equal(c.state_bits, 32);
	static const struct { const char *spec, *needle; } bad[] = {
		{ "sel=sic:0", "'sic:0': sic:K takes K from 1 to 32" },
		{ "sel=sic:33,width=40", "'sic:33': sic:K takes K from 1 to 32" },
		{ "sel=cycles:33,width=40", "'cycles:33': cycles:K takes K from 1 to 32" },
		{ "sel=cycles:x", "'cycles:x'" },
		{ "sel=cycles:16,ra=8,width=16", "ra=8 and 16 counter bits exceed width=16" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		avrr_err err;
		if (!parse(bad[i].spec, NULL, &c, &err))
			fail_msg("'%s' parsed", bad[i].spec);
		if (!strstr(err.msg, bad[i].needle))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].spec, err.msg, bad[i].needle);
	}
}

/* f(s) = <r(ra), c(s), h(g(s))>: the counters' low bits, first highest,
 * stand between the RA bits and the hash. */
static void test_counters_compute(void **state)
{
	(void)state;
	static uint8_t data[DATA_SIZE];
	fill_ctx(data, 0x400);
	fp_config c, plain;
	parse_ok("sel=r24+r25+sic:12+cycles:4,ra=8,width=32", NULL, &c);
	parse_ok("sel=r24+r25,ra=8,width=16", NULL, &plain);
	fp_state st = { .data = data, .data_size = DATA_SIZE, .ra = 0x1234,
			.cycle = 0x123456789abcull, .transfers = 0xfedcba987ull };
	fp_value v = fp_compute(&c, &st), p = fp_compute(&plain, &st);
	assert_int_equal(v.ra_part, 0x1234 >> 1 & 0xff);
	assert_int_equal(fp_counter_part(&c, &st), 0x987c);
	assert_int_equal(v.hash_part, 0x987cull << 8 | p.hash_part);
	/* The input key is g(s), the bytes alone. */
	assert_int_equal(fp_input_key(&c, &st), fp_input_key(&plain, &st));
	/* Another turn of a loop: same bytes, one more transfer. */
	st.transfers++;
	assert_int_equal(fp_compute(&c, &st).hash_part, 0x988cull << 8 | p.hash_part);
	/* A cycle counter up to 32 bits: the cycle count's low K bits. */
	parse_ok("sel=cycles:32,ra=0,width=32", NULL, &c);
	assert_int_equal(c.state_bits, 32);
	assert_int_equal(fp_compute(&c, &st).hash_part, 0x56789abcull);
	parse_ok("sel=cycles:28,ra=4,width=32", NULL, &c);
	v = fp_compute(&c, &st);
	assert_int_equal(v.hash_part, 0x6789abcull);
	assert_int_equal(v.ra_part, 0x1234 >> 1 & 0xf);
}

/* ---- the device cost model ---------------------------------------------- */

static void test_device_cost(void **state)
{
	(void)state;
	fp_config c;
	/* The old default: 3 I/O registers below 0x60 (IN, 1 each), 3 GP
	 * registers (1 each), jenkins over 6 bytes (its call 73, 107 each +
	 * 161), the stub (81) and the record's own (24), the RA (2 + 3 for its
	 * byte), the store (10 + 2 per byte). */
	parse_ok("sel=SPL+SPH+SREG+r24+r25+r31,ra=8,width=16", NULL, &c);
	cost_device d = cost_of_config(&c, DATA_SIZE, 1000, 0, 1000000);
	assert_int_equal(d.bits, 16);
	assert_int_equal(d.bytes_per_interrupt, 2);
	assert_int_equal(d.cycles_per_interrupt, 81 + 24 + 6 + 73 + 107 * 6 + 161 + 5 + 10 + 4);
	assert_int_equal(d.cycles_per_transfer, 0);
	assert_true(d.overhead_pct > 100.6 - 1e-9 && d.overhead_pct < 100.6 + 1e-9);
	/* The timer's two bytes (LDS, 2 each), no hash: no overflow count. */
	parse_ok("sel=cycles:16,ra=8,width=24", NULL, &c);
	d = cost_of_config(&c, DATA_SIZE, 1000, 0, 1000000);
	assert_int_equal(d.bits, 24);
	assert_int_equal(d.cycles_per_interrupt, 81 + 24 + 4 + 5 + 10 + 6);
	assert_int_equal(d.cycles_per_overflow, 0);
	/* 32 bits of cycles: 4 bytes read (2 each), the overflow count's two
	 * bytes checked and corrected (27 + 1 each), no RA, 4 bytes stored;
	 * Timer1's handler, 21 + 5 per byte, at each of the run's 2^20 / 2^16
	 * = 16 overflows. */
	parse_ok("sel=cycles:32,ra=0,width=32", NULL, &c);
	d = cost_of_config(&c, DATA_SIZE, 100, 0, 1u << 20);
	assert_int_equal(d.cycles_per_interrupt, 81 + 24 + 8 + 27 + 2 + 10 + 8);
	assert_int_equal(d.cycles_per_overflow, 21 + 10);
	double want = 100.0 * (160.0 * 100 + 31.0 * 16) / (1u << 20);
	assert_true(d.overhead_pct > want - 1e-9 && d.overhead_pct < want + 1e-9);
	/* 24 bits: one byte of overflow count. */
	parse_ok("sel=cycles:24,ra=8,width=32", NULL, &c);
	d = cost_of_config(&c, DATA_SIZE, 100, 0, 1u << 20);
	assert_int_equal(d.cycles_per_interrupt, 81 + 24 + 6 + 27 + 1 + 5 + 10 + 8);
	assert_int_equal(d.cycles_per_overflow, 21 + 5);
	/* A 2-byte SIC: read per interrupt (LDS 2 each, CLR of the other two
	 * argument bytes), 16 + 5 per byte per counted transfer; an SRAM byte
	 * (LDS, 2) and stack:2 (2 + 2 each); modular, 10 a byte and 15. */
	parse_ok("sel=0x100+stack:2+sic:16,hash=modular,ra=0,width=24", NULL, &c);
	d = cost_of_config(&c, DATA_SIZE, 10, 5000, 100000);
	assert_int_equal(d.cycles_per_interrupt,
			 81 + 24 + 2 + (2 + 4) + 73 + 10 * 3 + 15 + 4 + 2 + 10 + 6);
	assert_int_equal(d.cycles_per_transfer, 16 + 10);
	assert_true(d.overhead_pct > 132.53 - 1e-9 && d.overhead_pct < 132.53 + 1e-9);
	/* Round-robin pays for its dearest function (twomod over 1 byte). */
	parse_ok("sel=r24,hash=rr,ra=0,width=8", NULL, &c);
	d = cost_of_config(&c, DATA_SIZE, 0, 0, 0);
	assert_int_equal(d.cycles_per_interrupt, 81 + 24 + 1 + 73 + 6 + 100 + 1282 + 10 + 2);
	assert_true(d.overhead_pct == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_example),
		cmocka_unit_test(test_parse_defaults_and_name),
		cmocka_unit_test(test_parse_ranges_stack_all),
		cmocka_unit_test(test_parse_var),
		cmocka_unit_test(test_parse_rr_markers),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_select_components),
		cmocka_unit_test(test_select_stack_end_of_ram),
		cmocka_unit_test(test_select_all),
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_rr_var_marker),
		cmocka_unit_test(test_rr_regions_and_blocks),
		cmocka_unit_test(test_duplicates_nonincreasing_with_width),
		cmocka_unit_test(test_counters_parse),
		cmocka_unit_test(test_counters_compute),
		cmocka_unit_test(test_device_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
