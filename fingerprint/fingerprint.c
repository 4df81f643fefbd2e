/*
 * fingerprint.c — parsing fingerprint specs and computing fingerprints
 * (see fingerprint.h for the spec language).
 *
 * fp_compute runs at every interrupt while recording and at every
 * instruction boundary while replaying, so it gathers the selected bytes
 * into a stack buffer and hashes them in one call, without allocating.
 */
#include "fingerprint/fingerprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/digest.h"
#include "fingerprint/freqsel.h"

/* Classic AVRs keep SP at these data-space addresses. */
#define SPL_ADDR 0x5d
#define SPH_ADDR 0x5e

/* Round-robin order: a marker value (or block number) modulo 4 picks. */
static const fp_hash_kind RR_ORDER[4] = {
	FP_HASH_MODULAR, FP_HASH_TWOMOD, FP_HASH_JENKINS, FP_HASH_KNUTH,
};

typedef struct parser {
	const char *spec;   /* the whole spec, for messages */
	avrr_err *err;
} parser;

static int bad(parser *p, const char *token, size_t len, const char *why)
{
	return avrr_errf(p->err, "bad fingerprint spec '%s': '%.*s': %s", p->spec, (int)len, token,
			 why);
}

/* Parses a whole unsigned number (decimal or 0x hex) of len chars. */
static int number(const char *t, size_t len, uint64_t *out)
{
	char buf[32];
	if (len == 0 || len >= sizeof buf || t[0] == '-' || t[0] == '+')
		return -1;
	memcpy(buf, t, len);
	buf[len] = 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 0);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

static int add_bytes(parser *p, fp_config *c, const char *t, size_t len, uint64_t addr,
		     uint64_t n, uint32_t data_size)
{
	if (c->ncomp == FP_MAX_COMPONENTS)
		return bad(p, t, len, "too many components");
	if (n == 0 || addr >= data_size || n > data_size - addr)
		return bad(p, t, len, "outside the data space");
	c->comp[c->ncomp++] = (fp_component){ FP_COMP_BYTES, (uint16_t)addr, (uint16_t)n };
	return 0;
}

static int parse_component(parser *p, fp_config *c, const char *t, size_t len,
			   const mcu_names *names, const firmware *fw, uint32_t data_size)
{
	char tok[128];
	if (len == 0)
		return bad(p, t, len, "empty selector component");
	if (len >= sizeof tok)
		return bad(p, t, len, "too long");
	memcpy(tok, t, len);
	tok[len] = 0;
	uint64_t a, b;
	if (!strcmp(tok, "all")) {
		if (c->ncomp == FP_MAX_COMPONENTS)
			return bad(p, t, len, "too many components");
		c->comp[c->ncomp++] = (fp_component){ FP_COMP_ALL, 0, 0 };
		return 0;
	}
	if (tok[0] == 'r' && len >= 2 && len <= 3 && tok[1] >= '0' && tok[1] <= '9') {
		if (number(tok + 1, len - 1, &a) || a > 31 || (len == 3 && tok[1] == '0'))
			return bad(p, t, len, "no such register (r0..r31)");
		return add_bytes(p, c, t, len, a, 1, data_size);
	}
	if (!strncmp(tok, "stack:", 6)) {
		if (number(tok + 6, len - 6, &a) || a == 0 || a > 256)
			return bad(p, t, len, "stack:N takes N from 1 to 256");
		if (c->ncomp == FP_MAX_COMPONENTS)
			return bad(p, t, len, "too many components");
		c->comp[c->ncomp++] = (fp_component){ FP_COMP_STACK, 0, (uint16_t)a };
		return 0;
	}
	int sic = !strncmp(tok, "sic:", 4), cycles = !strncmp(tok, "cycles:", 7);
	if (sic || cycles) {
		if (number(tok + (sic ? 4 : 7), len - (sic ? 4 : 7), &a) || a == 0 || a > 32)
			return bad(p, t, len, sic ? "sic:K takes K from 1 to 32"
						  : "cycles:K takes K from 1 to 32");
		if (c->ncounters == FP_MAX_COUNTERS)
			return bad(p, t, len, "too many counters");
		c->counter[c->ncounters++] = (fp_counter){ sic ? FP_COUNT_SIC : FP_COUNT_CYCLES,
							   (unsigned)a };
		c->count_bits += (unsigned)a;
		return 0;
	}
	if (!strncmp(tok, "var:", 4)) {
		const fw_symbol *s = fw ? fw_find_symbol(fw, tok + 4) : NULL;
		if (!s || s->space != FW_SYM_DATA)
			return bad(p, t, len, "no such variable in the firmware");
		return add_bytes(p, c, t, len, s->addr, s->size ? s->size : 1, data_size);
	}
	if (tok[0] >= '0' && tok[0] <= '9') {
		char *dash = strchr(tok, '-');
		if (dash) {
			if (number(tok, (size_t)(dash - tok), &a) || number(dash + 1, strlen(dash + 1), &b) ||
			    b < a)
				return bad(p, t, len, "expected an address or a range LO-HI");
			return add_bytes(p, c, t, len, a, b - a + 1, data_size);
		}
		if (number(tok, len, &a))
			return bad(p, t, len, "expected an address or a range LO-HI");
		return add_bytes(p, c, t, len, a, 1, data_size);
	}
	int io = ioregs_addr(names, tok);
	if (io >= 0)
		return add_bytes(p, c, t, len, (uint64_t)io, 1, data_size);
	return bad(p, t, len, names ? "not a register, I/O register, address, stack:N, var:NAME, "
				      "sic:K, cycles:K or all"
				    : "I/O register names are unknown for this MCU");
}

static int parse_selector(parser *p, fp_config *c, const char *v, size_t len,
			  const mcu_names *names, const firmware *fw, uint32_t data_size)
{
	const char *end = v + len;
	while (v <= end) {
		const char *plus = memchr(v, '+', (size_t)(end - v));
		const char *stop = plus ? plus : end;
		if (parse_component(p, c, v, (size_t)(stop - v), names, fw, data_size))
			return -1;
		v = stop + 1;
	}
	return 0;
}

static int parse_hash(parser *p, const char *t, size_t len, fp_hash_kind *out)
{
	char tok[32];
	if (len >= sizeof tok || (memcpy(tok, t, len), tok[len] = 0, fp_hash_parse(tok, out)))
		return bad(p, t, len, "unknown hash (modular, twomod, jenkins, knuth or rr)");
	return 0;
}

static int parse_marker(parser *p, fp_config *c, const char *v, size_t len, const firmware *fw)
{
	if (len > 4 && !strncmp(v, "var:", 4)) {
		char sym[128];
		if (len - 4 >= sizeof sym)
			return bad(p, v, len, "too long");
		memcpy(sym, v + 4, len - 4);
		sym[len - 4] = 0;
		const fw_symbol *s = fw ? fw_find_symbol(fw, sym) : NULL;
		if (!s || s->space != FW_SYM_DATA)
			return bad(p, v, len, "no such variable in the firmware");
		c->marker = FP_MARK_VAR;
		c->marker_addr = (uint16_t)s->addr;
		return 0;
	}
	const char *end = v + len;
	c->marker = FP_MARK_REGIONS;
	while (v < end) {
		const char *plus = memchr(v, '+', (size_t)(end - v));
		const char *stop = plus ? plus : end;
		const char *dash = memchr(v, '-', (size_t)(stop - v));
		const char *colon = memchr(v, ':', (size_t)(stop - v));
		uint64_t lo, hi;
		fp_region *r = &c->region[c->nregions];
		if (c->nregions == FP_MAX_REGIONS)
			return bad(p, v, (size_t)(stop - v), "too many regions");
		if (!dash || !colon || colon < dash || number(v, (size_t)(dash - v), &lo) ||
		    number(dash + 1, (size_t)(colon - dash - 1), &hi) || hi < lo || hi > UINT32_MAX)
			return bad(p, v, (size_t)(stop - v), "expected var:NAME or regions LO-HI:HASH+...");
		if (parse_hash(p, colon + 1, (size_t)(stop - colon - 1), &r->hash))
			return -1;
		r->lo = (uint32_t)lo;
		r->hi = (uint32_t)hi;
		c->nregions++;
		v = stop + 1;
	}
	return 0;
}

static void fill_gather(fp_config *c, uint32_t total)
{
	if (total > FP_GATHER_MAX)
		return;
	for (unsigned i = 0; i < c->ncomp; i++)
		if (c->comp[i].kind != FP_COMP_BYTES)
			return;
	for (unsigned i = 0; i < c->ncomp; i++)
		for (unsigned k = 0; k < c->comp[i].len; k++)
			c->gather[c->ngather++] = (uint16_t)(c->comp[i].addr + k);
}

/* One KEY=VALUE parameter of a spec's body. */
typedef struct param {
	const char *at, *key, *val;  /* at: the whole "KEY=VALUE" */
	size_t len, klen, vlen;
} param;

/* Splits the next parameter off *t: 1 with it in *out, 0 at the end, -1
 * (with err) when it is malformed. */
static int next_param(parser *p, const char **t, param *out)
{
	if (!**t)
		return 0;
	const char *comma = strchr(*t, ',');
	size_t len = comma ? (size_t)(comma - *t) : strlen(*t);
	const char *e = memchr(*t, '=', len);
	if (!e)
		return bad(p, *t, len, "expected KEY=VALUE (sel, hash, marker, ra, width)");
	*out = (param){ .at = *t, .len = len, .key = *t, .klen = (size_t)(e - *t), .val = e + 1,
			.vlen = len - (size_t)(e - *t) - 1 };
	*t += len;
	if (**t == ',' && !*++*t)
		return avrr_errf(p->err, "bad fingerprint spec '%s': trailing ','", p->spec);
	return 1;
}

static int is_key(const param *a, const char *key)
{
	return a->klen == strlen(key) && !strncmp(a->key, key, a->klen);
}

/* The body of a spec: what follows "NAME:", when it has a name. */
static const char *spec_body(const char *spec)
{
	const char *colon = strchr(spec, ':'), *eq = strchr(spec, '=');
	return colon && (!eq || colon < eq) ? colon + 1 : spec;
}

/* ra= and width=, the only parameters that size a fingerprint. */
static int parse_bits(parser *p, const param *a, unsigned *ra_bits, unsigned *width)
{
	uint64_t n;
	if (is_key(a, "ra")) {
		if (number(a->val, a->vlen, &n) || n > 32)
			return bad(p, a->at, a->len, "ra takes 0 to 32 bits");
		*ra_bits = (unsigned)n;
	} else if (number(a->val, a->vlen, &n) || n < 1 || n > 64) {
		return bad(p, a->at, a->len, "width takes 1 to 64 bits");
	} else {
		*width = (unsigned)n;
	}
	return 0;
}

unsigned fp_counter_bytes(const fp_config *c, fp_counter_kind kind)
{
	unsigned bytes = 0;
	for (unsigned i = 0; i < c->ncounters; i++)
		if (c->counter[i].kind == kind && (c->counter[i].bits + 7) / 8 > bytes)
			bytes = (c->counter[i].bits + 7) / 8;
	return bytes;
}

int fp_spec_bits(const char *spec, unsigned *ra_bits, unsigned *state_bits, avrr_err *err)
{
	parser p = { spec, err };
	unsigned ra = 8, width = 16;
	param a;
	int more;
	for (const char *t = spec_body(spec); (more = next_param(&p, &t, &a)) > 0;)
		if ((is_key(&a, "ra") || is_key(&a, "width")) && parse_bits(&p, &a, &ra, &width))
			return -1;
	if (more < 0)
		return -1;
	if (ra > width)
		return avrr_errf(err, "bad fingerprint spec '%s': ra=%u exceeds width=%u", spec, ra,
				 width);
	*ra_bits = ra;
	*state_bits = width - ra;
	return 0;
}

int fp_parse(const char *spec, const mcu_names *names, const firmware *fw,
	     uint32_t data_size, const char *default_name, fp_config *out, avrr_err *err)
{
	parser p = { spec, err };
	memset(out, 0, sizeof *out);
	out->hash = FP_HASH_JENKINS;
	out->ra_bits = 8;
	unsigned width = 16;
	int have_sel = 0, have_marker = 0;
	const char *body = spec_body(spec);
	if (body != spec) {
		size_t n = (size_t)(body - 1 - spec);
		if (n == 0 || n >= sizeof out->name)
			return bad(&p, spec, n, "a name is 1 to 63 characters");
		for (size_t i = 0; i < n; i++)
			if (!(spec[i] == '_' || spec[i] == '-' || spec[i] == '.' ||
			      (spec[i] >= '0' && spec[i] <= '9') || ((spec[i] | 32) >= 'a' && (spec[i] | 32) <= 'z')))
				return bad(&p, spec, n, "a name uses letters, digits, '_', '-' and '.'");
		memcpy(out->name, spec, n);
	} else {
		snprintf(out->name, sizeof out->name, "%s", default_name ? default_name : "fp");
	}
	if (strlen(body) >= sizeof out->spec)
		return avrr_errf(err, "bad fingerprint spec '%s': too long", spec);
	snprintf(out->spec, sizeof out->spec, "%s", body);
	param a;
	int more;
	for (const char *t = body; (more = next_param(&p, &t, &a)) > 0;) {
		if (is_key(&a, "sel")) {
			if (have_sel++)
				return bad(&p, a.at, a.len, "sel given twice");
			if (parse_selector(&p, out, a.val, a.vlen, names, fw, data_size))
				return -1;
		} else if (is_key(&a, "hash")) {
			if (a.vlen == 2 && !strncmp(a.val, "rr", 2))
				out->round_robin = 1;
			else if (parse_hash(&p, a.val, a.vlen, &out->hash))
				return -1;
		} else if (is_key(&a, "marker")) {
			have_marker = 1;
			if (parse_marker(&p, out, a.val, a.vlen, fw))
				return -1;
		} else if (is_key(&a, "ra") || is_key(&a, "width")) {
			if (parse_bits(&p, &a, &out->ra_bits, &width))
				return -1;
		} else {
			return bad(&p, a.at, a.len, "unknown key (sel, hash, marker, ra, width)");
		}
	}
	if (more < 0)
		return -1;
	if (!have_sel)
		return avrr_errf(err, "bad fingerprint spec '%s': no selector (sel=...)", spec);
	uint32_t total = 0;
	for (unsigned i = 0; i < out->ncomp; i++) {
		if (out->comp[i].kind == FP_COMP_ALL && out->ncomp > 1)
			return avrr_errf(err, "bad fingerprint spec '%s': 'all' already selects everything;"
					      " it stands alone", spec);
		if (out->comp[i].kind != FP_COMP_ALL)
			total += out->comp[i].len;
	}
	if (total > FP_MAX_SELECTED)
		return avrr_errf(err, "bad fingerprint spec '%s': selects %u bytes (at most %u, or 'all')",
				 spec, total, FP_MAX_SELECTED);
	if (have_marker && !out->round_robin)
		return avrr_errf(err, "bad fingerprint spec '%s': marker= needs hash=rr", spec);
	if (out->ra_bits > width)
		return avrr_errf(err, "bad fingerprint spec '%s': ra=%u exceeds width=%u", spec,
				 out->ra_bits, width);
	if (out->ra_bits + out->count_bits > width)
		return avrr_errf(err, "bad fingerprint spec '%s': ra=%u and %u counter bits exceed "
				 "width=%u", spec, out->ra_bits, out->count_bits, width);
	out->state_bits = width - out->ra_bits;
	out->hash_bits = out->state_bits - out->count_bits;
	fill_gather(out, total);
	return 0;
}

fp_hash_kind fp_pick_hash(const fp_config *c, const fp_state *s)
{
	if (!c->round_robin)
		return c->hash;
	if (c->marker == FP_MARK_VAR)
		return RR_ORDER[s->data[c->marker_addr] & 3];
	for (unsigned i = 0; i < c->nregions; i++)
		if (s->ra >= c->region[i].lo && s->ra <= c->region[i].hi)
			return c->region[i].hash;
	return RR_ORDER[(s->ra >> 7) & 3];
}

uint32_t fp_select(const fp_config *c, const fp_state *s, uint8_t *buf, uint32_t cap,
		   const uint8_t **direct)
{
	*direct = NULL;
	if (c->ngather && c->ngather <= cap) {
		for (unsigned i = 0; i < c->ngather; i++)
			buf[i] = s->data[c->gather[i]];
		return c->ngather;
	}
	if (c->ncomp == 1 && c->comp[0].kind == FP_COMP_ALL) {
		*direct = s->data;
		return s->data_size;
	}
	uint32_t n = 0;
	uint16_t sp = (uint16_t)(s->data[SPL_ADDR] | s->data[SPH_ADDR] << 8);
	for (unsigned i = 0; i < c->ncomp; i++) {
		const fp_component *k = &c->comp[i];
		const uint8_t *src;
		uint32_t len;
		switch (k->kind) {
		case FP_COMP_BYTES:
			src = s->data + k->addr;
			len = k->len;
			break;
		case FP_COMP_STACK:
			/* The stack grows down: its top bytes sit just above SP.
			 * Past the end of RAM there is nothing to read. */
			if (sp + 1u >= s->data_size)
				continue;
			src = s->data + sp + 1;
			len = s->data_size - sp - 1u;
			if (len > k->len)
				len = k->len;
			break;
		default: /* FP_COMP_ALL stands alone: handled above */
			continue;
		}
		if (len > cap - n)
			len = cap - n;
		memcpy(buf + n, src, len);
		n += len;
	}
	return n;
}

fp_value fp_compute(const fp_config *c, const fp_state *s)
{
	uint8_t buf[FP_MAX_SELECTED]; /* fp_parse bounds every selector but `all` */
	const uint8_t *direct;
	uint32_t n = fp_select(c, s, buf, sizeof buf, &direct);
	fp_value v;
	v.ra_part = fp_reduce_ra(s->ra, c->ra_bits);
	v.hash_part = fp_state_part(c, fp_counter_part(c, s),
				    fp_hash(fp_pick_hash(c, s), direct ? direct : buf, n, c->hash_bits));
	return v;
}

uint64_t fp_counter_part(const fp_config *c, const fp_state *s)
{
	uint64_t part = 0;
	for (unsigned i = 0; i < c->ncounters; i++) {
		uint64_t v = c->counter[i].kind == FP_COUNT_SIC ? s->transfers : s->cycle;
		part = part << c->counter[i].bits | (v & fp_hash_mask(c->counter[i].bits));
	}
	return part;
}

uint64_t fp_input_key(const fp_config *c, const fp_state *s)
{
	uint8_t buf[FP_MAX_SELECTED];
	const uint8_t *direct;
	uint32_t n = fp_select(c, s, buf, sizeof buf, &direct);
	return fp_input_key_of(c, direct ? direct : buf, n);
}

uint64_t fp_input_key_of(const fp_config *c, const uint8_t *g, uint32_t n)
{
	if (!fp_exact_keys(c))
		return digest_key64(g, n);
	uint64_t w = 0;
	for (uint32_t i = 0; i < n; i++)
		w |= (uint64_t)g[i] << (8 * i);
	return w;
}

void fp_format(const fp_config *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%s", c->name, c->spec);
}

/* Appends "+item" (or "item" first) to buf; -1 when it does not fit. */
static int append_component(char *buf, size_t n, size_t *len, const char *item)
{
	int w = snprintf(buf + *len, n - *len, "%s%s", *len ? "+" : "", item);
	if (w < 0 || (size_t)w >= n - *len)
		return -1;
	*len += (size_t)w;
	return 0;
}

int fp_frequency_selector(const firmware *fw, const mcu_names *names, int nio, int ngp,
			  const char *fixed_io, char *buf, size_t n)
{
	freqsel_counts c;
	if (n == 0 || freqsel_count(fw->flash, fw->code_end, &c))
		return -1;
	size_t len = 0;
	buf[0] = 0;
	if (fixed_io) {
		if (append_component(buf, n, &len, fixed_io))
			return -1;
	} else {
		uint16_t io[256];
		int k = freqsel_rank_io(&c, ioregs_io_end(names), io, nio < 256 ? nio : 256);
		for (int i = 0; i < k; i++) {
			char hex[8];
			const char *name = ioregs_name(names, io[i]);
			if (!name) {
				snprintf(hex, sizeof hex, "0x%02x", io[i]);
				name = hex;
			}
			if (append_component(buf, n, &len, name))
				return -1;
		}
	}
	uint8_t gp[32];
	int k = freqsel_rank_gp(&c, gp, ngp < 32 ? ngp : 32);
	for (int i = 0; i < k; i++) {
		char reg[8];
		snprintf(reg, sizeof reg, "r%u", gp[i]);
		if (append_component(buf, n, &len, reg))
			return -1;
	}
	return 0;
}


/* The counter of kind k with the most bits in c, or NULL. */
static const fp_counter *widest(const fp_config *c, fp_counter_kind k)
{
	const fp_counter *w = NULL;
	for (unsigned i = 0; i < c->ncounters; i++)
		if (c->counter[i].kind == k && (!w || c->counter[i].bits > w->bits))
			w = &c->counter[i];
	return w;
}

/* 2^bits > n: a counter of `bits` bits tells apart counts n apart. */
static int period_exceeds(unsigned bits, uint64_t n)
{
	return bits >= 64 || n >> bits == 0;
}

int fp_covers_gaps(const fp_config *c, const fp_gaps *g)
{
	const fp_counter *cyc = widest(c, FP_COUNT_CYCLES), *sic = widest(c, FP_COUNT_SIC);
	if (!cyc && !sic)
		return 1;
	return (cyc && period_exceeds(cyc->bits, g->cycles)) ||
	       (sic && period_exceeds(sic->bits, g->transfers));
}

/* The bits a counter needs to cover a gap of n counts: 2^bits > n. */
static unsigned bits_for(uint64_t n)
{
	unsigned b = 1;
	while (!period_exceeds(b, n))
		b++;
	return b;
}

/* A spec of kind k ("cycles" or "sic") covering n counts, within 32 bits
 * of fingerprint when it can (8 RA bits, fewer past a 24-bit counter). */
static int covering_spec(const char *k, uint64_t n, char *buf, size_t size)
{
	unsigned b = bits_for(n);
	if (b > 32)
		return -1;
	unsigned ra = b <= 24 ? 8 : 32 - b;
	snprintf(buf, size, "sel=%s:%u,ra=%u,width=%u", k, b, ra, b + ra);
	return 0;
}

int fp_gap_warning(const fp_config *cfg, unsigned n, const fp_gaps *g, uint32_t frequency,
		   char *buf, size_t size)
{
	unsigned first = n, more = 0;
	for (unsigned i = 0; i < n; i++)
		if (!fp_covers_gaps(&cfg[i], g)) {
			if (first == n)
				first = i;
			else
				more++;
		}
	if (first == n)
		return 0;
	const fp_config *c = &cfg[first];
	const fp_counter *cyc = widest(c, FP_COUNT_CYCLES);
	/* A configuration that counts cycles is judged by the longest gap in
	 * cycles, one that counts only transfers by the longest in transfers. */
	int by_cycles = cyc != NULL;
	const fp_counter *k = by_cycles ? cyc : widest(c, FP_COUNT_SIC);
	uint64_t len = by_cycles ? g->cycles : g->transfers;
	char secs[64] = "";
	if (by_cycles && frequency)
		snprintf(secs, sizeof secs, " (%.3f s at %u Hz)", (double)len / frequency, frequency);
	char spec[600], fix[128];
	fp_format(c, spec, sizeof spec);
	if (covering_spec(by_cycles ? "cycles" : "sic", len, fix, sizeof fix) &&
	    covering_spec("sic", g->transfers, fix, sizeof fix))
		snprintf(fix, sizeof fix, "no counter of up to 32 bits");
	char others[64] = "";
	if (more)
		snprintf(others, sizeof others, " (and %u more configuration%s)", more,
			 more == 1 ? "" : "s");
	snprintf(buf, size, "%s%s: the interrupt-free stretch from icount %llu to %llu lasts "
		 "%llu %s%s, longer than %s:%u tells apart (2^%u): a loop in it can replay as "
		 "a false interrupt; %s covers it", spec, others,
		 (unsigned long long)(by_cycles ? g->cycles_from : g->transfers_from),
		 (unsigned long long)(by_cycles ? g->cycles_to : g->transfers_to),
		 (unsigned long long)len, by_cycles ? "cycles" : "counted transfers", secs,
		 by_cycles ? "cycles" : "sic", k->bits, k->bits, fix);
	return 1;
}
