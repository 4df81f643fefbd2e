/* vcd.c — the replay as a Value Change Dump (see vcd.h; IEEE 1364 §18). */
#include "analyze/vcd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/members.h"
#include "trace/log.h"
#include "util/file.h"

#define MAX_VARS 64
#define PORTS 16

typedef struct signal {
	char id[4];
	unsigned bits;
	uint64_t value;
	int known;
} signal;

/* A traced variable: a data symbol, or one member or element of one. */
typedef struct var_loc {
	char name[128];
	uint32_t addr, size;
} var_loc;

typedef struct vcd {
	an_session *a;
	FILE *f;
	uint64_t last_ns;
	int have_time;
	signal reg[256];            /* per I/O data address below 0x100 */
	uint8_t traced[256];
	signal vec[256];
	uint8_t used_vec[256];
	signal depth;
	unsigned ndepth;
	signal var[MAX_VARS];
	var_loc loc[MAX_VARS];
	unsigned nvars;
	/* Pins: declared only once the chip drives them, so the header is
	 * written last, before the body kept meanwhile in `f` (a temporary
	 * file) and the reset values in `dump`. */
	char port[PORTS];
	unsigned nports;
	signal pin[PORTS][8];
	uint8_t pin_reset[PORTS][8];
	unsigned nids;              /* identifiers given so far */
	char *dump;
	size_t ndump;
	an_vcd_stats *st;
} vcd;

static void make_id(unsigned k, char id[4])
{
	/* Identifiers are printable ASCII 33..126 (base 94). */
	unsigned n = 0;
	do {
		id[n++] = (char)(33 + k % 94);
		k /= 94;
	} while (k && n < 3);
	id[n] = 0;
}

static uint64_t cycle_ns(const vcd *v, uint64_t cycle)
{
	uint64_t f = sim_frequency(v->a->s);
	return cycle / f * 1000000000ull + cycle % f * 1000000000ull / f;
}

static uint64_t now_ns(const vcd *v)
{
	return cycle_ns(v, sim_cycle(v->a->s));
}

/* A value change at time t (ns); one earlier than the last written, which
 * the sim's ordering rules out, is written at the last time rather than
 * make the file go back. */
static void emit_at(vcd *v, signal *sg, uint64_t value, uint64_t t)
{
	if (sg->known && sg->value == value)
		return;
	if (v->have_time && t < v->last_ns)
		t = v->last_ns;
	if (!v->have_time || t != v->last_ns) {
		fprintf(v->f, "#%" PRIu64 "\n", t);
		v->last_ns = t;
		v->have_time = 1;
	}
	if (sg->bits == 1) {  /* 0, 1, or 2: z (a pin not driven) */
		fprintf(v->f, "%c%s\n", "01z"[value < 2 ? value : 2], sg->id);
	} else {
		char bin[65];
		int n = 0;
		for (int b = (int)sg->bits - 1; b >= 0; b--)
			if (n || (value >> b) & 1 || b == 0)
				bin[n++] = (char)('0' + ((value >> b) & 1));
		bin[n] = 0;
		fprintf(v->f, "b%s %s\n", bin, sg->id);
	}
	sg->value = value;
	sg->known = 1;
	v->st->changes++;
}

static void emit(vcd *v, signal *sg, uint64_t value)
{
	emit_at(v, sg, value, now_ns(v));
}

static uint64_t var_value(const vcd *v, unsigned i)
{
	const uint8_t *data = sim_live_data(v->a->s);
	uint64_t x = 0;
	for (uint32_t b = v->loc[i].size; b-- > 0;)
		x = x << 8 | data[v->loc[i].addr + b];
	return x;
}

static void on_io(void *ud, const rp_access *acc)
{
	vcd *v = ud;
	if (acc->addr < 256 && v->traced[acc->addr])
		emit(v, &v->reg[acc->addr], acc->value);
}

static void on_sram(void *ud, const rp_access *acc)
{
	vcd *v = ud;
	if (!acc->write)
		return;
	for (unsigned i = 0; i < v->nvars; i++)
		if (acc->addr >= v->loc[i].addr && acc->addr < v->loc[i].addr + v->loc[i].size)
			emit(v, &v->var[i], var_value(v, i));
}

static void on_irq(void *ud, uint8_t vector, uint32_t ra)
{
	(void)ra;
	vcd *v = ud;
	emit(v, &v->vec[vector], 1);
	v->st->interrupt_edges++;
	emit(v, &v->depth, ++v->ndepth);
}

static void on_reti(void *ud, uint8_t vector)
{
	vcd *v = ud;
	emit(v, &v->vec[vector], 0);
	v->st->interrupt_edges++;
	emit(v, &v->depth, v->ndepth ? --v->ndepth : 0);
}

static void on_pin(void *ud, const sim_pin_change *c)
{
	vcd *v = ud;
	unsigned p = 0;
	while (p < v->nports && v->port[p] != c->port)
		p++;
	if (p == v->nports || c->bit > 7)
		return;
	signal *sg = &v->pin[p][c->bit];
	if (!sg->bits) {  /* first driven: declared from here on */
		sg->bits = 1;
		make_id(v->nids++, sg->id);
		sg->value = v->pin_reset[p][c->bit];
		sg->known = 1;
		v->st->pins++;
	}
	emit_at(v, sg, c->level, cycle_ns(v, c->cycle));
}

/* Gives every signal known before the run its identifier, and writes its
 * value at reset (the registers as the chip holds them, nothing running)
 * to v->dump. */
static int reset_values(vcd *v)
{
	sim *s = v->a->s;
	unsigned k = 0;
	for (unsigned a = 0; a < 256; a++)
		if (v->traced[a]) {
			v->reg[a].bits = 8;
			make_id(k++, v->reg[a].id);
		}
	for (unsigned c = 1; c < 256; c++)
		if (v->used_vec[c]) {
			v->vec[c].bits = 1;
			make_id(k++, v->vec[c].id);
		}
	v->depth.bits = 8;
	make_id(k++, v->depth.id);
	for (unsigned i = 0; i < v->nvars; i++) {
		v->var[i].bits = v->loc[i].size * 8;
		make_id(k++, v->var[i].id);
	}
	v->nids = k;
	v->nports = sim_ports(s, v->port, PORTS);
	for (unsigned p = 0; p < v->nports; p++)
		for (unsigned b = 0; b < 8; b++)
			v->pin_reset[p][b] = (uint8_t)sim_pin_level(s, v->port[p], b);
	if (!(v->f = open_memstream(&v->dump, &v->ndump)))
		return -1;
	v->have_time = 1;  /* #0, written with the header */
	const uint8_t *data = sim_live_data(s);
	for (unsigned a = 0; a < 256; a++)
		if (v->traced[a])
			emit(v, &v->reg[a], a < sim_data_size(s) ? data[a] : 0);
	for (unsigned c = 1; c < 256; c++)
		if (v->used_vec[c])
			emit(v, &v->vec[c], 0);
	emit(v, &v->depth, 0);
	for (unsigned i = 0; i < v->nvars; i++)
		emit(v, &v->var[i], var_value(v, i));
	v->st->changes = 0;
	int rc = fclose(v->f);
	v->f = NULL;
	return rc ? -1 : 0;
}

/* The header, with the pins the run drove, and the values at reset. */
static void header(vcd *v, FILE *f, const char *path)
{
	sim *s = v->a->s;
	fprintf(f, "$version avrr $end\n$comment recording %s, %s at %" PRIu32 " Hz $end\n"
		"$timescale 1ns $end\n$scope module avrr $end\n$scope module io $end\n",
		path, sim_mcu(s), sim_frequency(s));
	for (unsigned a = 0; a < 256; a++) {
		if (!v->traced[a])
			continue;
		const char *name = sim_ioreg_name(s, (uint16_t)a);
		if (name)
			fprintf(f, "$var reg 8 %s %s $end\n", v->reg[a].id, name);
		else
			fprintf(f, "$var reg 8 %s io_0x%02x $end\n", v->reg[a].id, a);
	}
	fprintf(f, "$upscope $end\n$scope module interrupts $end\n");
	for (unsigned c = 1; c < 256; c++) {
		if (!v->used_vec[c])
			continue;
		char name[48];
		an_context_name(v->a, c, name, sizeof name);
		for (char *p = name; *p; p++)
			if (*p == ' ')
				*p = '_';
		fprintf(f, "$var wire 1 %s %s $end\n", v->vec[c].id, name);
	}
	fprintf(f, "$var reg 8 %s depth $end\n$upscope $end\n", v->depth.id);
	if (v->nvars)
		fprintf(f, "$scope module variables $end\n");
	for (unsigned i = 0; i < v->nvars; i++) {
		/* A demangled C++ name may hold spaces ("guard variable for x"),
		 * which end a VCD reference, and an element's [N] would read as
		 * a bit select: buf[2] is written buf(2). */
		char name[256];
		snprintf(name, sizeof name, "%s", v->loc[i].name);
		for (char *p = name; *p; p++)
			*p = *p == ' ' ? '_' : *p == '[' ? '(' : *p == ']' ? ')' : *p;
		fprintf(f, "$var reg %u %s %s $end\n", v->var[i].bits, v->var[i].id, name);
	}
	if (v->nvars)
		fprintf(f, "$upscope $end\n");
	if (v->st->pins)
		fprintf(f, "$scope module pins $end\n");
	for (unsigned p = 0; p < v->nports; p++) {
		int any = 0;
		for (unsigned b = 0; b < 8; b++) {
			if (!v->pin[p][b].bits)
				continue;
			if (!any++)
				fprintf(f, "$scope module port%c $end\n", v->port[p]);
			fprintf(f, "$var wire 1 %s P%c%u $end\n", v->pin[p][b].id, v->port[p], b);
		}
		if (any)
			fprintf(f, "$upscope $end\n");
	}
	if (v->st->pins)
		fprintf(f, "$upscope $end\n");
	fprintf(f, "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n");
	fwrite(v->dump, 1, v->ndump, f);
	for (unsigned p = 0; p < v->nports; p++)
		for (unsigned b = 0; b < 8; b++)
			if (v->pin[p][b].bits)
				fprintf(f, "%c%s\n", "01z"[v->pin_reset[p][b] < 2 ? v->pin_reset[p][b] : 2],
					v->pin[p][b].id);
	fprintf(f, "$end\n");
	v->st->signals = v->nids;
}

/* Copies the body after the header; 0, or -1 on a read or write error. */
static int append(FILE *to, FILE *from)
{
	char buf[65536];
	size_t n;
	if (fflush(from) || fseek(from, 0, SEEK_SET))
		return -1;
	while ((n = fread(buf, 1, sizeof buf, from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return -1;
	return ferror(from) ? -1 : 0;
}

/* The variable called `name`: a data symbol, else a member or element of
 * one as the DWARF types name it ("Serial._rx_buffer_head", "buf[2]").
 * -1 when there is none. */
static int find_var(const an_session *a, const char *name, var_loc *out)
{
	const fw_symbol *sym = fw_find_symbol(a->fw, name);
	snprintf(out->name, sizeof out->name, "%s", name);
	if (sym && sym->space == FW_SYM_DATA && sym->size) {
		out->addr = sym->addr;
		out->size = sym->size;
		return 0;
	}
	size_t base = strcspn(name, ".[");
	char b[128];
	if (!name[base] || base >= sizeof b)
		return -1;
	memcpy(b, name, base);
	b[base] = 0;
	sym = fw_find_symbol(a->fw, b);
	src_members mem;
	avrr_err e;
	if (!sym || sym->space != FW_SYM_DATA || !sym->size || members_load(a->fw, &mem, &e))
		return -1;
	size_t n;
	const src_member *m = members_in(&mem, sym->addr, sym->size, &n);
	int rc = -1;
	for (size_t i = 0; i < n && rc; i++)
		if (!strcmp(m[i].path, name + base)) {
			out->addr = m[i].addr;
			out->size = m[i].size;
			rc = 0;
		}
	members_free(&mem);
	return rc;
}

int an_vcd_check_vars(const an_session *a, const char *const *vars, unsigned nvars,
		      avrr_err *err)
{
	if (nvars > MAX_VARS)
		return avrr_errf(err, "at most %d --var", MAX_VARS);
	for (unsigned i = 0; i < nvars; i++) {
		var_loc l;
		if (find_var(a, vars[i], &l) || l.addr + l.size > sim_data_size(a->s))
			return avrr_errf(err, "--var %s: no variable of that name in the firmware",
					 vars[i]);
		if (l.size > 8)
			return avrr_errf(err, "--var %s: %" PRIu32 " bytes; at most 8 make one signal",
					 vars[i], l.size);
	}
	return 0;
}

int an_export_vcd(an_session *a, const char *out, const char *const *vars, unsigned nvars,
		  void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
		  an_vcd_stats *st, avrr_err *err)
{
	memset(st, 0, sizeof *st);
	vcd *v = calloc(1, sizeof *v);
	if (!v)
		return avrr_errf(err, "out of memory");
	v->a = a;
	v->st = st;
	int rc = -1;
	char tmp[4096];
	FILE *f = NULL;
	if (an_vcd_check_vars(a, vars, nvars, err))
		goto out;
	for (unsigned i = 0; i < nvars; i++)
		find_var(a, vars[i], &v->loc[v->nvars++]);
	uint16_t addrs[128];
	unsigned n = trace_input_registers(a->s, addrs, 64);
	n += trace_output_registers(a->s, addrs + n, 64);
	for (unsigned i = 0; i < n; i++)
		if (addrs[i] < 256)
			v->traced[addrs[i]] = 1;
	size_t nev;
	const trace_event *ev = rp_events(a->r, &nev);
	for (size_t i = 0; i < nev; i++)
		if (ev[i].type == TRACE_IRQ)
			v->used_vec[ev[i].ctx & 0xff] = 1;
	if (!(f = util_open_temp(out, tmp, sizeof tmp))) {
		avrr_errf(err, "%s: %s", out, strerror(errno));
		goto out;
	}
	if (reset_values(v) || !(v->f = tmpfile())) {
		avrr_errf(err, "a temporary file for the waveforms: %s", strerror(errno));
		goto close;
	}
	rp_observer o = { .ud = v, .on_io = on_io, .on_irq = on_irq, .on_reti = on_reti,
			  .on_sram = v->nvars ? on_sram : NULL };
	int pins = 0;
	rc = rp_observe(a->r, &o, err) || !(pins = !sim_observe_pins(a->s, on_pin, v, err)) ||
	     an_run(a, progress, ud, err) ? -1 : 0;
	if (pins)
		sim_observe_pins(a->s, NULL, NULL, err);
	rp_unobserve(a->r, v);
	if (!rc && now_ns(v) != v->last_ns)  /* where the run ends */
		fprintf(v->f, "#%" PRIu64 "\n", now_ns(v));
	if (!rc) {
		header(v, f, a->path);
		if (append(f, v->f))
			rc = avrr_errf(err, "%s: %s", out, strerror(errno));
	}
close:
	if (util_close_temp(f, tmp, out, !rc) && !rc)
		rc = avrr_errf(err, "%s: %s", out, strerror(errno));
out:
	if (v->f)
		fclose(v->f);
	free(v->dump);
	free(v);
	return rc;
}
