/*
 * tracer.c — writes the device-side tracer (see tracer.h).
 *
 * The generated code mirrors fingerprint.c and hash.c step by step —
 * gather, hash, narrow, counters, return address — so that the chip stores
 * what the recorder computes; tests/integration/test_tracer.c builds a
 * bundled firmware with it and compares, for every hash function.  It is
 * kept cheap where that is free: the stub saves only the registers the
 * tracer's call may clobber and those the selector names, and fingerprints
 * of up to 32 bits are computed in 32-bit arithmetic.
 */
#include "fingerprint/tracer.h"

#include "fingerprint/instrument.h"
#include "fingerprint/inputs.h"
#include "sim/avr_decode.h"

#include <string.h>

/* Registers a C call may clobber (avr-gcc's ABI): r0, r1, r18-r27, r30, r31. */
#define CLOBBERED 0xcffc0003u

/* The stub's frame: SREG, then the saved registers, the last pushed
 * first, then the return address. */
typedef struct layout {
	uint32_t saved;         /* bit r: register r is pushed */
	unsigned nsaved;
	unsigned slot[32];      /* frame index of each saved register */
} layout;

static layout make_layout(const fp_config *c)
{
	layout l = { .saved = CLOBBERED };
	for (unsigned i = 0; i < c->ncomp; i++)
		for (unsigned a = c->comp[i].addr; c->comp[i].kind == FP_COMP_BYTES &&
		     a < 32u && a < (unsigned)c->comp[i].addr + c->comp[i].len; a++)
			l.saved |= 1u << a;
	for (unsigned r = 0; r < 32; r++)
		l.nsaved += l.saved >> r & 1;
	unsigned pos = 0;
	for (unsigned r = 0; r < 32; r++)
		if (l.saved >> r & 1)
			l.slot[r] = l.nsaved - pos++;
	return l;
}

static void emit_byte(FILE *o, const layout *l, unsigned a)
{
	if (a < 32)
		fprintf(o, "\tg[n++] = frame[%u];  /* r%u */\n", l->slot[a], a);
	else if (a == 0x5f)
		fputs("\tg[n++] = frame[0] | 0x80;  /* SREG, I set at the interrupt point */\n", o);
	else if (a == 0x5d)
		fputs("\tg[n++] = (uint8_t)sp;  /* SPL before the push */\n", o);
	else if (a == 0x5e)
		fputs("\tg[n++] = (uint8_t)(sp >> 8);  /* SPH */\n", o);
	else
		fprintf(o, "\tg[n++] = *(volatile uint8_t *)0x%04x;\n", a);
}

/* The selector's gathering: g[0..n).  Registers, SREG and SP come from the
 * frame; below 0x60 the rest is I/O, read as it is now. */
static void emit_gather(FILE *o, const fp_config *c, const layout *l)
{
	for (unsigned i = 0; i < c->ncomp; i++) {
		const fp_component *p = &c->comp[i];
		if (p->kind == FP_COMP_BYTES) {
			unsigned a = p->addr, end = p->addr + p->len;
			for (; a < end && a < 0x60; a++)
				emit_byte(o, l, a);
			if (a < end)
				fprintf(o, "\tfor (uint16_t a = 0x%04x; a < 0x%04x; a++)\n"
					"\t\tg[n++] = *(volatile uint8_t *)a;\n", a, end);
		} else {   /* stack:N, the bytes above SP that exist */
			fprintf(o, "\tfor (uint16_t a = sp + 1; a <= RAMEND && a < sp + 1u + %u; a++)\n"
				"\t\tg[n++] = *(volatile uint8_t *)a;\n", p->len);
		}
	}
}

/* The four hash functions of fingerprint/hash.h over g[0..n), narrowed to
 * AVRR_TRACE_HASH_BITS (a constant, so masks and shifts fold). */
static const char HASHES[] =
	"#define AVRR_HASH_MASK(v) (AVRR_TRACE_HASH_BITS >= 64 ? (v) : \\\n"
	"\t(v) & (((AVRR_HASH_T)2 << (AVRR_TRACE_HASH_BITS - 1)) - 1))\n\n"
	"__attribute__((noinline, unused)) static AVRR_HASH_T avrr_hash_modular(const uint8_t *x, "
	"uint16_t n)\n"
	"{\n"
	"\tuint32_t s = 0;\n"
	"\tfor (uint16_t i = 0; i < n; i++)\n"
	"\t\ts += x[i];\n"
	"\treturn AVRR_HASH_MASK((AVRR_HASH_T)s);\n"
	"}\n\n"
	"__attribute__((noinline, unused)) static AVRR_HASH_T avrr_hash_twomod(const uint8_t *x, "
	"uint16_t n)\n"
	"{\n"
	"\tuint32_t s = 0, w = 0;\n"
	"\tfor (uint16_t i = 0; i < n; i++) {\n"
	"\t\ts += x[i];\n"
	"\t\tw += (uint32_t)(i + 1) * x[i];\n"
	"\t}\n"
	"\tuint32_t v = (s % 65521u) * 65519u + w % 65519u;  /* < 2^32 */\n"
	"\treturn AVRR_HASH_MASK((AVRR_HASH_T)v);\n"
	"}\n\n"
	"__attribute__((unused)) static uint32_t avrr_oaat(uint32_t h, const uint8_t *x, "
	"uint16_t n)\n"
	"{\n"
	"\tfor (uint16_t i = 0; i < n; i++) {\n"
	"\t\th += x[i];\n"
	"\t\th += h << 10;\n"
	"\t\th ^= h >> 6;\n"
	"\t}\n"
	"\th += h << 3;\n"
	"\th ^= h >> 11;\n"
	"\th += h << 15;\n"
	"\treturn h;\n"
	"}\n\n"
	"__attribute__((noinline, unused)) static AVRR_HASH_T avrr_hash_jenkins(const uint8_t *x, "
	"uint16_t n)\n"
	"{\n"
	"\tAVRR_HASH_T v = avrr_oaat(0, x, n);\n"
	"#if AVRR_TRACE_HASH_BITS > 32  /* the high word: a second pass, seeded */\n"
	"\tv |= (AVRR_HASH_T)avrr_oaat(0x9e3779b9ul, x, n) << 32;\n"
	"#endif\n"
	"\treturn AVRR_HASH_MASK(v);\n"
	"}\n\n"
	"__attribute__((noinline, unused)) static AVRR_HASH_T avrr_hash_knuth(const uint8_t *x, "
	"uint16_t n)\n"
	"{\n"
	"\tuint32_t s = 0;\n"
	"\tfor (uint16_t i = 0; i < n; i++)\n"
	"\t\ts += x[i];\n"
	"\tuint64_t p = s * 0x9E3779B97F4A7C15ull;  /* its top bits */\n"
	"\treturn AVRR_TRACE_HASH_BITS >= 64 ? p : AVRR_TRACE_HASH_BITS ? "
	"(AVRR_HASH_T)(p >> (64 - AVRR_TRACE_HASH_BITS)) : 0;\n"
	"}\n\n";

static const char *hash_fn(fp_hash_kind k)
{
	static const char *const names[FP_HASH_COUNT] = {
		"avrr_hash_modular", "avrr_hash_twomod", "avrr_hash_jenkins", "avrr_hash_knuth",
	};
	return names[k];
}

/* The hash of g(s): the configured function, or round-robin's pick. */
static void emit_hash(FILE *o, const fp_config *c)
{
	if (!c->hash_bits) {
		fputs("\tAVRR_HASH_T h = 0;\n\t(void)g;\n\t(void)n;\n", o);
		return;
	}
	if (!c->round_robin) {
		fprintf(o, "\tAVRR_HASH_T h = %s(g, n);\n", hash_fn(c->hash));
		return;
	}
	/* A pick 0..3 is the round-robin order; 4 + k a region's own function. */
	if (c->marker == FP_MARK_VAR) {
		fprintf(o, "\tuint8_t pick = *(volatile uint8_t *)0x%04x & 3;\n", c->marker_addr);
	} else {
		fputs("\tuint8_t pick = (uint8_t)(ra >> 6) & 3;  /* the 128-byte code block */\n", o);
		for (unsigned i = c->nregions; i-- > 0;)
			fprintf(o, "\tif (ra >= 0x%lxul && ra <= 0x%lxul)\n\t\tpick = %d;\n",
				(unsigned long)c->region[i].lo / 2, (unsigned long)c->region[i].hi / 2,
				4 + (int)c->region[i].hash);
	}
	fputs("\tAVRR_HASH_T h;\n\tswitch (pick) {\n"
	      "\tcase 0: case 4: h = avrr_hash_modular(g, n); break;\n"
	      "\tcase 1: case 5: h = avrr_hash_twomod(g, n); break;\n"
	      "\tcase 2: case 6: h = avrr_hash_jenkins(g, n); break;\n"
	      "\tdefault: h = avrr_hash_knuth(g, n); break;\n\t}\n", o);
}

/* AVRR_SAVE and AVRR_RESTORE: a stub's pushes of the registers in `saved`
 * (bit r: rN), and its pops in the reverse order, as asm strings. */
static void emit_save_restore(FILE *o, uint32_t saved)
{
	fputs("#define AVRR_SAVE", o);
	for (int r = 0; r < 32; r++)
		if (saved >> r & 1)
			fprintf(o, " \"push r%d\\n\\t\"", r);
	fputs("\n#define AVRR_RESTORE", o);
	for (int r = 31; r >= 0; r--)
		if (saved >> r & 1)
			fprintf(o, " \"pop r%d\\n\\t\"", r);
}

/* ISR() as a naked stub around the handler's body. */
static void emit_stub(FILE *o, const layout *l, int cycles, unsigned sic_bytes, int log)
{
	/* The software instruction counter, if any, into r18-r21:
	 * avrr_trace_record's third argument. */
	char sic[400] = "";
	size_t n = 0;
	for (unsigned i = 0; sic_bytes && i < 4; i++) {
		if (i < sic_bytes)
			n += (size_t)snprintf(sic + n, sizeof sic - n, "\t\t\t\"lds r%u, "
					      FP_SIC_SYMBOL "+%u\\n\\t\" \\\n", 18 + i, i);
		else
			n += (size_t)snprintf(sic + n, sizeof sic - n,
					      "\t\t\t\"clr r%u\\n\\t\" \\\n", 18 + i);
	}
	emit_save_restore(o, l->saved);
	fprintf(o, "\n\n/* ISR(vector) as a naked stub around the handler's body, which runs as\n"
		" * a plain function: the frame avrr_trace_record reads is SREG, then the\n"
		" * %u saved registers (the last pushed first), then the return address\n"
		" * (its high byte first). */\n"
		"#undef ISR\n"
		"#define ISR(vector, ...) \\\n"
		"\tvoid avrr_body_##vector(void); \\\n"
		"\tvoid vector(void) __attribute__((signal, naked, used, externally_visible)); \\\n"
		"\tvoid vector(void) \\\n"
		"\t{ \\\n"
		"\t\t__asm__ volatile(AVRR_SAVE \\\n"
		"\t\t\t\"in r0, __SREG__\\n\\tpush r0\\n\\t\" \\\n"
		"%s%s%s"
		"\t\t\t\"in r24, __SP_L__\\n\\tin r25, __SP_H__\\n\\tadiw r24, 1\\n\\t\" \\\n"
		"\t\t\t\"clr r1\\n\\t\" \\\n"
		"\t\t\tAVRR_CALL \" avrr_trace_record\\n\\t\" \\\n"
		"\t\t\tAVRR_CALL \" avrr_body_\" #vector \"\\n\\t\" \\\n"
		"\t\t\t\"pop r0\\n\\tout __SREG__, r0\\n\\t\" \\\n"
		"\t\t\tAVRR_RESTORE \\\n"
		"\t\t\t\"reti\" :: %s%s); \\\n"
		"\t} \\\n"
		"\tvoid avrr_body_##vector(void)\n\n", l->nsaved,
		cycles ? "\t\t\t\"lds r22, %[tl]\\n\\tlds r23, %[th]\\n\\t\" \\\n"
		       : "\t\t\t\"clr r22\\n\\tclr r23\\n\\t\" \\\n",
		sic,
		log ? "\t\t\t\"ldi r24, %[vn]\\n\\tsts avrr_log_vec, r24\\n\\t\" \\\n" : "",
		cycles ? "[tl] \"n\"(_SFR_MEM_ADDR(AVRR_TCNTL)), [th] \"n\"(_SFR_MEM_ADDR(AVRR_TCNTH))"
		       : "",
		log ? (cycles ? ", [vn] \"M\"(AVRR_VNUM(vector))" : "[vn] \"M\"(AVRR_VNUM(vector))") : "");
}

/* The data address a store writes, or -1: OUT, STS, SBI and CBI, and a
 * store through X, Y or Z whose value the LDIs just before it set (how
 * avr-gcc writes the extended I/O, and how Arduino's init() sets Timer1
 * up).  ptr[r - 26] is r's value when known[r - 26]. */
static int store_addr(const avr_insn *in, const uint8_t *ptr, const uint8_t *known)
{
	if (in->op == AVR_OP_OUT || in->op == AVR_OP_STS || in->op == AVR_OP_SBI ||
	    in->op == AVR_OP_CBI)
		return avr_insn_io(in);
	if ((in->op != AVR_OP_ST && in->op != AVR_OP_STD) || !in->ptr)
		return -1;
	unsigned lo = in->ptr == 'X' ? 0 : in->ptr == 'Y' ? 2 : 4;
	if (!known[lo] || !known[lo + 1])
		return -1;
	int a = ptr[lo] | ptr[lo + 1] << 8;
	return in->ptr_mode == AVR_PTR_PREDEC ? a - 1 : in->ptr_mode == AVR_PTR_DISP ? a + in->disp : a;
}

/* What is known of the pointers X, Y, Z after `in` (ptr[r - 26] is r's
 * value when known[r - 26]): an LDI sets one; an instruction that writes
 * one, or moves it (X+, -Z), forgets it; a call, return or jump forgets
 * them all (a callee may change them; what follows a jump is reached from
 * elsewhere).  A jump here from elsewhere is not seen: a static look. */
static void track_pointers(const avr_insn *in, uint8_t *ptr, uint8_t *known)
{
	switch (in->op) {
	case AVR_OP_RCALL: case AVR_OP_CALL: case AVR_OP_ICALL: case AVR_OP_EICALL:
	case AVR_OP_RET: case AVR_OP_RETI: case AVR_OP_RJMP: case AVR_OP_JMP:
	case AVR_OP_IJMP: case AVR_OP_EIJMP:
		memset(known, 0, 6);
		return;
	case AVR_OP_LDI:
		if (in->rd >= 26) {
			ptr[in->rd - 26] = in->imm;
			known[in->rd - 26] = 1;
		}
		return;
	case AVR_OP_ST: case AVR_OP_STD: case AVR_OP_STS: case AVR_OP_OUT: case AVR_OP_SBI:
	case AVR_OP_CBI: case AVR_OP_PUSH: case AVR_OP_CP: case AVR_OP_CPC: case AVR_OP_CPI:
	case AVR_OP_CPSE: case AVR_OP_SBRC: case AVR_OP_SBRS: case AVR_OP_SBIC: case AVR_OP_SBIS:
	case AVR_OP_BRBS: case AVR_OP_BRBC: case AVR_OP_NOP:
		break;   /* no register written */
	default:
		for (int r = in->rd; r >= 26 && r <= in->rd + 1 && r <= 31; r++)
			if (r == in->rd || in->op == AVR_OP_MOVW || in->op == AVR_OP_ADIW ||
			    in->op == AVR_OP_SBIW)
				known[r - 26] = 0;
		break;
	}
	if (in->ptr && (in->ptr_mode == AVR_PTR_POSTINC || in->ptr_mode == AVR_PTR_PREDEC)) {
		unsigned lo = in->ptr == 'X' ? 0 : in->ptr == 'Y' ? 2 : 4;
		known[lo] = known[lo + 1] = 0;
	}
}

unsigned fp_tracer_timer_writes(const firmware *fw, const mcu_names *names, unsigned timer,
				fp_timer_write *w, unsigned max)
{
	static const char *const regs[] = { "TCCR%uA", "TCCR%uB", "TCNT%uH", "TCNT%uL", "TIMSK%u" };
	enum { NREGS = sizeof regs / sizeof *regs };
	char name[NREGS][16];
	int addr[NREGS];
	for (unsigned i = 0; i < NREGS; i++) {
		snprintf(name[i], sizeof name[i], regs[i], timer);
		addr[i] = ioregs_addr(names, name[i]);
	}
	unsigned n = 0;
	uint8_t ptr[6] = { 0 }, known[6] = { 0 };   /* r26..r31 */
	avr_insn in;
	for (uint32_t a = 0; a + 1 < fw->code_end; a += 2u * in.words) {
		if (avr_decode(fw->flash, fw->flash_size, a, &in))
			break;
		int to = store_addr(&in, ptr, known);
		for (unsigned i = 0; i < NREGS && to >= 0; i++) {
			if (to != addr[i])
				continue;
			const fw_symbol *f = fw_code_symbol_at(fw, a);
			if (f && fp_tracer_own_symbol(f->name))
				break;
			if (n < max)
				w[n] = (fp_timer_write){ a, (uint8_t)in.words,
							 ioregs_name(names, (uint16_t)to),
							 f ? f->name : NULL };
			n++;
			break;
		}
		track_pointers(&in, ptr, known);
	}
	return n;
}

unsigned fp_log_delta_bits(const fp_config *c)
{
	/* one counter is the whole fingerprint: it only grows, so the
	 * difference from the last is small (for cycles:32, the cycles since
	 * the last interrupt: 2 bytes below 16,384) */
	return c->ncounters == 1 && !c->hash_bits && !c->ra_bits ? c->count_bits : 0;
}

unsigned fp_log_fold(const mcu_names *names)
{
	for (unsigned v = FP_LOG_FOLD_VECTORS; v < 128; v++)
		if (ioregs_vector_name(names, v))
			return 0;
	return 1;
}

unsigned fp_log_item_max(const fp_config *c)
{
	unsigned delta = fp_log_delta_bits(c);
	return 1 + (delta ? (delta + 6) / 7 : (c->ra_bits + c->state_bits + 7) / 8);
}

/* SPI's pins on port B: SS, MOSI, SCK, by part (the datasheets' pin
 * tables); a part not here cannot send the log by SPI. */
static const struct spi_pins {
	const char *mcu;
	uint8_t ss, mosi, sck;
} SPI_PINS[] = {
	{ "atmega8", 2, 3, 5 }, { "atmega48", 2, 3, 5 }, { "atmega48p", 2, 3, 5 },
	{ "atmega88", 2, 3, 5 }, { "atmega88p", 2, 3, 5 }, { "atmega168", 2, 3, 5 },
	{ "atmega168p", 2, 3, 5 }, { "atmega328", 2, 3, 5 }, { "atmega328p", 2, 3, 5 },
	{ "atmega64", 0, 2, 1 }, { "atmega128", 0, 2, 1 }, { "atmega1280", 0, 2, 1 },
	{ "atmega1281", 0, 2, 1 }, { "atmega2560", 0, 2, 1 }, { "atmega2561", 0, 2, 1 },
	{ "atmega16", 4, 5, 7 }, { "atmega32", 4, 5, 7 }, { "atmega164p", 4, 5, 7 },
	{ "atmega324p", 4, 5, 7 }, { "atmega644", 4, 5, 7 }, { "atmega644p", 4, 5, 7 },
	{ "atmega1284", 4, 5, 7 }, { "atmega1284p", 4, 5, 7 },
};

static const struct spi_pins *spi_pins(const mcu_names *names)
{
	const char *mcu = names->gcc_mcu ? names->gcc_mcu : names->mcu;
	for (size_t i = 0; i < sizeof SPI_PINS / sizeof *SPI_PINS; i++)
		if (!strcmp(SPI_PINS[i].mcu, mcu))
			return &SPI_PINS[i];
	return NULL;
}

const char *fp_log_sink_check(const fp_tracer_log *log, const mcu_names *names, char *why,
			       size_t n)
{
	char udr[8];
	const char *mcu = names->gcc_mcu ? names->gcc_mcu : names->mcu;
	snprintf(udr, sizeof udr, "UDR%u", log->port);
	if (log->sink == FP_LOG_UART && log->port && ioregs_addr(names, udr) < 0)
		snprintf(why, n, "the %s has no USART%u", mcu, log->port);
	else if (log->sink == FP_LOG_SPI && !spi_pins(names))
		snprintf(why, n, "avrr does not know the %s's SPI pins", mcu);
	else
		return NULL;
	return why;
}

int fp_log_sink_parse(const char *text, int none, fp_tracer_log *log)
{
	log->port = 0;
	if (!strcmp(text, "uart"))
		log->sink = FP_LOG_UART;
	else if (!strncmp(text, "uart", 4) && text[4] >= '1' && text[4] <= '3' && !text[5])
		log->sink = FP_LOG_UART, log->port = (unsigned)(text[4] - '0');
	else if (!strcmp(text, "spi"))
		log->sink = FP_LOG_SPI;
	else if (!strcmp(text, "func"))
		log->sink = FP_LOG_FUNC;
	else if (none && !strcmp(text, "none"))
		log->sink = FP_LOG_NONE;
	else
		return -1;
	return 0;
}

/* The sink: the firmware's own function, or the tracer's for a UART or
 * the SPI, blocking, one byte at a time. */
static void emit_sink(FILE *o, const fp_tracer_log *log, const mcu_names *names, int runtime)
{
	if (log->sink == FP_LOG_FUNC) {
		fputs("/* The firmware's sink: one byte of the stream, in order. */\n"
		      "void avrr_log_sink(uint8_t byte);\n\n", o);
		return;
	}
	if (log->sink == FP_LOG_SPI) {
		const struct spi_pins *p = spi_pins(names);
		fprintf(o, "/* The SPI sink: the tracer is the bus master at clk/2, its SS, MOSI\n"
			" * and SCK outputs (PB%u, PB%u, PB%u). */\n"
			"#define AVRR_SPI_SS %u\n#define AVRR_SPI_MOSI %u\n#define AVRR_SPI_SCK %u\n"
			"#if defined(SPDR)  /* SPDR0 may be a bit's name */\n"
			"#define AVRR_SPDR SPDR\n#define AVRR_SPSR SPSR\n#define AVRR_SPCR SPCR\n"
			"#define AVRR_SPIF SPIF\n#define AVRR_SPI2X SPI2X\n#define AVRR_SPE SPE\n"
			"#define AVRR_MSTR MSTR\n#else\n#define AVRR_SPDR SPDR0\n#define AVRR_SPSR SPSR0\n"
			"#define AVRR_SPCR SPCR0\n#define AVRR_SPIF SPIF0\n#define AVRR_SPI2X SPI2X0\n"
			"#define AVRR_SPE SPE0\n#define AVRR_MSTR MSTR0\n#endif\n"
			"static inline void avrr_log_sink(uint8_t byte)\n{\n"
			"\tAVRR_SPDR = byte;\n\twhile (!(AVRR_SPSR & _BV(AVRR_SPIF)))\n\t\t;\n}\n\n",
			p->ss, p->mosi, p->sck, p->ss, p->mosi, p->sck);
		return;
	}
	if (log->port)
		fprintf(o, "#define AVRR_UDR UDR%u\n#define AVRR_UCSRA UCSR%uA\n"
			"#define AVRR_UDRE UDRE%u\n#define AVRR_UCSRB UCSR%uB\n#define AVRR_TXEN TXEN%u\n"
			"#define AVRR_UBRRL UBRR%uL\n#define AVRR_UBRRH UBRR%uH\n", log->port, log->port,
			log->port, log->port, log->port, log->port, log->port);
	else
		fputs("#if defined(UDR0)\n#define AVRR_UDR UDR0\n#define AVRR_UCSRA UCSR0A\n"
		      "#define AVRR_UDRE UDRE0\n#define AVRR_UCSRB UCSR0B\n#define AVRR_TXEN TXEN0\n"
		      "#define AVRR_UBRRL UBRR0L\n#define AVRR_UBRRH UBRR0H\n#else\n"
		      "#define AVRR_UDR UDR\n#define AVRR_UCSRA UCSRA\n#define AVRR_UDRE UDRE\n"
		      "#define AVRR_UCSRB UCSRB\n#define AVRR_TXEN TXEN\n"
		      "#define AVRR_UBRRL UBRRL\n#define AVRR_UBRRH UBRRH\n#endif\n", o);
	fputs("/* The UART sink: blocking, one byte at a time. */\n"
	      "static inline void avrr_log_sink(uint8_t byte)\n{\n", o);
	/* A firmware traced from its finished ELF may turn the transmitter
	 * off after the runtime set it up (Arduino's init() clears UCSR0B):
	 * with --baud, the runtime's sink turns it on again. */
	if (runtime && log->baud)
		fputs("\tif (!(AVRR_UCSRB & _BV(AVRR_TXEN)))\n\t\tAVRR_UCSRB |= _BV(AVRR_TXEN);\n", o);
	fputs("\twhile (!(AVRR_UCSRA & _BV(AVRR_UDRE)))\n\t\t;\n\tAVRR_UDR = byte;\n}\n\n", o);
}

/* The device log (docs/device.md): the header constant, the block being
 * filled, the sink, the append that interrupt stubs and avrr_log_read
 * share.  Everything runs inside the firmware's own execution, so the
 * simulation of the same ELF re-creates it exactly. */
static void emit_log(FILE *o, const fp_config *c, const mcu_names *names,
		     const fp_tracer_log *log, const char *spec, unsigned fp_bytes, unsigned ovf,
		     int runtime)
{
	const char *mcu = names->gcc_mcu ? names->gcc_mcu : names->mcu;
	size_t nm = strlen(mcu), ns = strlen(spec);
	fputs("#include <avr/pgmspace.h>\n#include <util/crc16.h>\n\n", o);
	fputs("/* The vector number of __vector_N, for ISR(vector). */\n"
	      "#define AVRR_CAT2(a, b) a##b\n#define AVRR_CAT(a, b) AVRR_CAT2(a, b)\n"
	      "#define AVRR_VNUM(v) AVRR_CAT(AVRR_VN, v)\n", o);
	for (unsigned v = 0; v < 128; v++)
		fprintf(o, "#define AVRR_VN__vector_%u %u\n", v, v);
	fprintf(o, "\n#define AVRR_LOG_RING %u\n", log->ring);
	fputs("/* The stream's header (docs/device.md): its SHA-256 and CRC, the last\n"
	      " * 34 bytes, are written into the ELF by `avrr stamp`. */\n"
	      "const uint8_t " FP_LOG_HEADER_SYMBOL "[] __attribute__((used, section(\".progmem.avrr_log\"))) = {", o);
	size_t k = 0;
#define HB(b) fprintf(o, "%s0x%02x,", k++ % 12 ? " " : "\n\t", (unsigned)(uint8_t)(b))
	for (const char *m = FP_LOG_MAGIC; *m; m++)
		HB(*m);
	HB(FP_LOG_VERSION);
	HB(nm);
	for (size_t i = 0; i < nm; i++)
		HB(mcu[i]);
	HB(ns & 0xff);
	HB(ns >> 8);
	for (size_t i = 0; i < ns; i++)
		HB(spec[i]);
	HB(fp_bytes);
	HB(fp_log_delta_bits(c));
	HB(fp_log_fold(names));
	for (int i = 0; i < 34; i++)
		HB(0);
#undef HB
	fputs("\n};\n\n", o);
	unsigned delta = fp_log_delta_bits(c);
	fprintf(o, "#define AVRR_LOG_ITEM_MAX %u  /* an interrupt's item, the largest */\n"
		"#define AVRR_LOG_LOSS 3\n\n", fp_log_item_max(c));
	fputs("volatile uint8_t avrr_log_blk[AVRR_LOG_RING] __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_out[AVRR_LOG_RING] __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_len __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_seq __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_busy __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_vec __attribute__((section(\".noinit\")));\n"
	      "/* 1 + the block position of the run of reads the block ends with; 0: none */\n"
	      "volatile uint8_t avrr_log_run __attribute__((section(\".noinit\")));\n"
	      "volatile uint16_t avrr_log_lost __attribute__((section(\".noinit\")));\n", o);
	if (delta)
		fputs("/* The last fingerprint in the log: the next is sent as the difference. */\n"
		      "volatile AVRR_FP_T avrr_log_last __attribute__((section(\".noinit\")));\n", o);
	fputs("\n", o);
	emit_sink(o, log, names, runtime);
	fprintf(o, "/* At reset: an empty block, nothing lost%s. */\n"
		"__attribute__((naked, used, section(\".init3\"))) void avrr_log_init(void)\n{\n"
		"\tavrr_log_len = 0;\n\tavrr_log_seq = 0;\n\tavrr_log_busy = 0;\n"
		"\tavrr_log_lost = 0;\n\tavrr_log_run = 0;\n%s",
		log->sink == FP_LOG_SPI ? ", the SPI the bus master" :
		log->baud ? ", the UART at its baud" : "", delta ? "\tavrr_log_last = 0;\n" : "");
	if (log->sink == FP_LOG_UART && log->baud)
		fprintf(o, "\tuint16_t ubrr = (uint16_t)((F_CPU + 8ul * %luul) / (16ul * %luul) - 1);\n"
			"\tAVRR_UBRRH = (uint8_t)(ubrr >> 8);\n\tAVRR_UBRRL = (uint8_t)ubrr;\n"
			"\tAVRR_UCSRB |= _BV(AVRR_TXEN);\n", (unsigned long)log->baud,
			(unsigned long)log->baud);
	if (log->sink == FP_LOG_SPI)
		fputs("\tDDRB |= _BV(AVRR_SPI_SS) | _BV(AVRR_SPI_MOSI) | _BV(AVRR_SPI_SCK);\n"
		      "\tAVRR_SPSR = _BV(AVRR_SPI2X);\n"
		      "\tAVRR_SPCR = _BV(AVRR_SPE) | _BV(AVRR_MSTR);\n", o);
	fputs("}\n\n", o);
	fputs("/* One byte to the sink.  A send with interrupts off (from a read, or\n"
	      " * --send-masked) can take longer than the counter's timer takes to overflow\n"
	      " * twice (a 255-byte block at 115,200 baud: 22 ms): the tracer's overflow\n"
	      " * count is kept here meanwhile, as its overflow handler would, so the cycle\n"
	      " * counter stays exact. */\n"
	      "static inline void avrr_log_send(uint8_t byte, uint8_t ien)\n{\n"
	      "\tavrr_log_sink(byte);\n", o);
	if (ovf)
		fprintf(o, "\tif (!ien && (AVRR_TIFR & _BV(AVRR_TOV))) {\n"
			"\t\tAVRR_TIFR = _BV(AVRR_TOV);  /* a 1 clears it */\n"
			"\t\t%s\n\t}\n", ovf > 1 ? "if (++avrr_trace_ovf[0] == 0)\n\t\t\tavrr_trace_ovf[1]++;"
						: "avrr_trace_ovf[0]++;");
	else
		fputs("\t(void)ien;\n", o);
	fputs("}\n\n", o);
	fputs("/* The stream's header, once per reset, before main() (interrupts off):\n"
	      " * sent here rather than ahead of the first block, whose sending the\n"
	      " * firmware's first interrupts would otherwise wait out. */\n"
	      "__attribute__((noinline, used)) void avrr_log_header_out(void)\n{\n"
	      "\tfor (uint16_t i = 0; i < sizeof " FP_LOG_HEADER_SYMBOL "; i++)\n"
	      "\t\tavrr_log_send(pgm_read_byte(&" FP_LOG_HEADER_SYMBOL "[i]), 0);\n}\n\n"
	      "/* In .init5: after .init3's set-up of the log and the tracer, and\n"
	      " * after the variables are initialised (.init4). */\n"
	      "__attribute__((naked, used, section(\".init5\"))) void avrr_log_start(void)\n{\n"
	      "\t__asm__ volatile(AVRR_CALL \" avrr_log_header_out\");\n}\n\n", o);
	fprintf(o, "/* Closes the block and sends it through the sink (with interrupts on\n"
		" * if ien: items that come meanwhile go to the next block).  Called\n"
		" * with interrupts off; returns with them off. */\n"
		"__attribute__((noinline)) static void avrr_log_flush(uint8_t ien)\n{\n"
		"\tuint8_t n = avrr_log_len, seq = avrr_log_seq++;\n"
		"\tfor (uint8_t i = 0; i < n; i++)\n\t\tavrr_log_out[i] = avrr_log_blk[i];\n"
		"\tavrr_log_len = 0;\n\tavrr_log_run = 0;\n\tavrr_log_busy = 1;\n"
		"\tif (ien)\n\t\tsei();\n"

		"\tuint16_t crc = _crc_ccitt_update(0xffff, seq);\n"
		"\tcrc = _crc_ccitt_update(crc, n);\n"
		"\tavrr_log_send(0x%02x, ien);\n\tavrr_log_send(seq, ien);\n\tavrr_log_send(n, ien);\n"
		"\tfor (uint8_t i = 0; i < n; i++) {\n"
		"\t\tuint8_t b = avrr_log_out[i];\n\t\tcrc = _crc_ccitt_update(crc, b);\n"
		"\t\tavrr_log_send(b, ien);\n\t}\n"
		"\tavrr_log_send((uint8_t)crc, ien);\n\tavrr_log_send((uint8_t)(crc >> 8), ien);\n"
		"\tcli();\n\tavrr_log_busy = 0;\n}\n\n", FP_LOG_BLOCK_MARK);
	fprintf(o, "/* Room for an item of `need` bytes (interrupts off): 1, with a loss\n"
		" * item first if items were lost; 0 if it is lost.  While a block is\n"
		" * being sent, the items that come meanwhile (nested in the sending)\n"
		" * leave the last AVRR_LOG_ITEM_MAX + AVRR_LOG_LOSS bytes free: the item\n"
		" * whose append closed the block, or the first after the sending, always\n"
		" * has room, so no item is ever put after one that came later. */\n"
		"static inline uint8_t avrr_log_put_room(uint8_t need)\n{\n"
		"\tuint8_t cap = avrr_log_busy ? AVRR_LOG_RING - AVRR_LOG_ITEM_MAX - AVRR_LOG_LOSS\n"
		"\t\t\t\t    : AVRR_LOG_RING;\n"
		"\tif (avrr_log_len + need + (avrr_log_lost ? AVRR_LOG_LOSS : 0) > cap) {\n"
		"\t\tif (avrr_log_lost != 0xffff)\n\t\t\tavrr_log_lost++;\n"
		"\t\treturn 0;\n\t}\n"
		"\tif (avrr_log_lost) {\n"
		"\t\tavrr_log_blk[avrr_log_len++] = 0x%02x;\n"
		"\t\tavrr_log_blk[avrr_log_len++] = (uint8_t)avrr_log_lost;\n"
		"\t\tavrr_log_blk[avrr_log_len++] = (uint8_t)(avrr_log_lost >> 8);\n"
		"\t\tavrr_log_lost = 0;\n\t\tavrr_log_run = 0;\n\t}\n"
		"\treturn 1;\n}\n\n", FP_LOG_TAG_LOSS);
	fputs("/* After an append: a block with no room left for the largest item and a\n"
	      " * loss item is sent now, so the stream is complete up to this item once\n"
	      " * it is out. */\n"
	      "static inline void avrr_log_put_done(uint8_t ien)\n{\n"
	      "\tif (AVRR_LOG_RING - avrr_log_len < AVRR_LOG_ITEM_MAX + AVRR_LOG_LOSS && !avrr_log_busy)\n"
	      "\t\tavrr_log_flush(ien);\n}\n\n", o);
	fputs("/* An interrupt's item (interrupts off): its vector, then its fingerprint", o);
	unsigned fold = fp_log_fold(names);
	/* with the reads that follow folded into its first byte, an
	 * interrupt's item is where they are counted; else they start a run */
	const char *run = fold ? "\tavrr_log_run = avrr_log_len + 1;  /* reads may follow */\n"
			       : "\tavrr_log_run = 0;\n";
	char mask[40] = "";   /* the difference modulo 2^delta, where AVRR_FP_T is wider */
	if (delta && delta != 32 && delta != 64)
		snprintf(mask, sizeof mask, " & 0x%llxull", (unsigned long long)fp_hash_mask(delta));
	if (delta)
		fprintf(o, "\n * as the difference from the last one in the log, modulo 2^%u, in\n"
			" * LEB128 (7 bits a byte, the low first, 0x80 on all but the last). */\n"
			"__attribute__((noinline)) static void avrr_log_put_fp(AVRR_FP_T f, uint8_t ien)\n"
			"{\n\tif (!avrr_log_put_room(AVRR_LOG_ITEM_MAX))\n\t\treturn;\n"
			"%s\tavrr_log_blk[avrr_log_len++] = avrr_log_vec;\n"
			"\tAVRR_FP_T d = (f - avrr_log_last)%s;\n\tavrr_log_last = f;\n"
			"\twhile (d > 0x7f) {\n\t\tavrr_log_blk[avrr_log_len++] = (uint8_t)d | 0x80;\n"
			"\t\td >>= 7;\n\t}\n\tavrr_log_blk[avrr_log_len++] = (uint8_t)d;\n"
			"\tavrr_log_put_done(ien);\n}\n\n",
			delta, run, mask);
	else
		fprintf(o, ", its\n * bytes as the ring holds them. */\n"
		      "__attribute__((noinline)) static void avrr_log_put_fp(AVRR_FP_T f, uint8_t ien)\n"
		      "{\n\tif (!avrr_log_put_room(AVRR_LOG_ITEM_MAX))\n\t\treturn;\n"
		      "%s\tavrr_log_blk[avrr_log_len++] = avrr_log_vec;\n"
		      "\tfor (uint8_t i = 0; i < AVRR_TRACE_BYTES; i++, f >>= 8)\n"
		      "\t\tavrr_log_blk[avrr_log_len++] = (uint8_t)f;\n"
		      "\tavrr_log_put_done(ien);\n}\n\n", run);
	fprintf(o, "/* An input read's value (interrupts off): one more in the run of reads\n"
		" * the block ends with%s, or a new run. */\n"
		"__attribute__((noinline)) static void avrr_log_put_value(uint8_t value, uint8_t ien)\n"
		"{\n\tif (!avrr_log_put_room(2))\n\t\treturn;\n", fold ?
		" (or in the interrupt item it ends with, up to 3)" : "");
	if (fold)
		fprintf(o, "\tuint8_t t = avrr_log_run ? avrr_log_blk[avrr_log_run - 1] : 0x%02x;\n"
			"\tif (t & 0x80 ? t != 0x%02x : (t & 0x%02x) != 0x%02x) {\n"
			"\t\tavrr_log_blk[avrr_log_run - 1] = t + (t & 0x80 ? 1 : 0x%02x);\n",
			FP_LOG_TAG_READS + FP_LOG_RUN_MAX - 1, FP_LOG_TAG_READS + FP_LOG_RUN_MAX - 1,
			FP_LOG_FOLD_MASK, FP_LOG_FOLD_MASK, FP_LOG_FOLD_ONE);
	else
		fprintf(o, "\tif (avrr_log_run && avrr_log_blk[avrr_log_run - 1] != 0x%02x) {\n"
			"\t\tavrr_log_blk[avrr_log_run - 1]++;\n", FP_LOG_TAG_READS + FP_LOG_RUN_MAX - 1);
	fprintf(o, "\t} else {\n"
		"\t\tavrr_log_blk[avrr_log_len++] = 0x%02x;\n\t\tavrr_log_run = avrr_log_len;\n\t}\n"
		"\tavrr_log_blk[avrr_log_len++] = value;\n"
		"\tavrr_log_put_done(ien);\n}\n\n", FP_LOG_TAG_READS);
	/* The input set as a bit map of the addresses below 0x200, for the
	 * loads through a pointer `avrr instrument --log-loads` tests. */
	uint8_t map[FP_INPUT_SPACE], bits[FP_INPUT_SPACE / 8] = { 0 };
	devlog_inputs(names, map);
	for (unsigned a = 0; a < FP_INPUT_SPACE; a++)
		bits[a / 8] |= (uint8_t)((map[a] != 0) << (a % 8));
	fputs("/* The input set (docs/device.md), a bit per data address below 0x200. */\n"
	      "static const uint8_t avrr_input_map[] PROGMEM = {", o);
	for (unsigned i = 0; i < sizeof bits; i++)
		fprintf(o, "%s0x%02x,", i % 12 ? " " : "\n\t", bits[i]);
	fputs("\n};\n\n", o);
	/* `avrr instrument`'s rewrite calls these with interrupts off and r0
	 * holding SREG as it was before the read (its `in r0, SREG; cli`): a
	 * block the read closes is sent with interrupts as the code had them
	 * (unless --send-masked), so a read in the main loop does not hold
	 * the firmware's interrupts off for a whole block's sending. */
	fprintf(o, "/* A load through X, Y or Z from `addr` (r25:r24) gave `value` (r22):\n"
		" * called by `avrr instrument --log-loads` after each one below 0x200\n"
		" * (interrupts off, r0 the SREG before); an input's value is logged like\n"
		" * any read. */\n"
		"void avrr_log_ld_sreg(uint16_t addr, uint8_t value, uint8_t sreg) __attribute__((used));\n"
		"void avrr_log_ld(void) __attribute__((naked, used));\n"
		"void avrr_log_ld(void)\n{\n"
		"\t__asm__ volatile(\"mov r20, r0\\n\\t\" AVRR_JMP \" avrr_log_ld_sreg\");\n}\n\n"
		"void avrr_log_ld_sreg(uint16_t addr, uint8_t value, uint8_t sreg)\n{\n"
		"\tif (addr >= 0x200 || !(pgm_read_byte(&avrr_input_map[addr >> 3]) >> (addr & 7) & 1))\n"
		"\t\treturn;\n"
		"\tavrr_log_put_value(value, %s);\n}\n\n", log->masked ? "0" : "sreg & 0x80");
	fprintf(o, "/* An input read's value (r24): called by `avrr instrument`'s rewrite\n"
		" * after each read of an input register (interrupts off, r0 the SREG\n"
		" * before). */\n"
		"void avrr_log_read_sreg(uint8_t value, uint8_t sreg) __attribute__((used));\n"
		"void avrr_log_read(void) __attribute__((naked, used));\n"
		"void avrr_log_read(void)\n{\n"
		"\t__asm__ volatile(\"mov r22, r0\\n\\t\" AVRR_JMP \" avrr_log_read_sreg\");\n}\n\n"
		"void avrr_log_read_sreg(uint8_t value, uint8_t sreg)\n{\n"
		"\tuint8_t now = SREG;\n\tcli();\n"
		"\tavrr_log_put_value(value, %s);\n\tSREG = now;\n}\n\n",
		log->masked ? "0" : "sreg & 0x80");
}

/* The tracer's own overflow handler of the counter's timer, for a
 * cycles:K counter wider than its 16 bits: `bytes` of overflow count,
 * incremented with carry.  Naked and short, so its cycles per overflow are
 * those cost.h prices; on the header route a firmware with its own
 * TIMER1_OVF handler fails to link, as it should: the tracer owns Timer1. */
static void emit_overflow(FILE *o, unsigned bytes, int runtime)
{
	/* the runtime's handler is entered from the vector table avrr
	 * instrument patches: a plain naked function, not __vector_N */
	const char *name = runtime ? FP_RT_OVF_SYMBOL : "TIMER1_OVF_vect";  /* header: Timer1 */
	fprintf(o, "/* The counter's timer overflowed: one more in avrr_trace_ovf (SREG and\n"
		" * r24 kept). */\n"
		"void %s(void) __attribute__((%snaked, used, externally_visible));\n"
		"void %s(void)\n{\n"
		"\t__asm__ volatile(\"push r24\\n\\tin r24, __SREG__\\n\\tpush r24\\n\\t\"\n",
		name, runtime ? "" : "signal, ", name);
	for (unsigned i = 0; i < bytes; i++)
		fprintf(o, "\t\t\"lds r24, avrr_trace_ovf+%u\\n\\t%s r24, 0xff\\n\\t"
			"sts avrr_trace_ovf+%u, r24\\n\\t\"\n", i, i ? "sbci" : "subi", i);
	fputs("\t\t\"pop r24\\n\\tout __SREG__, r24\\n\\tpop r24\\n\\treti\");\n}\n\n", o);
}

/* The runtime's reset entry: the first of its .init sections (compiled
 * with -fno-toplevel-reorder, so this label comes before .init0's code). */
static void emit_rt_entry(FILE *o)
{
	fputs("/* The reset vector comes here: the runtime's .init0-.init9 run, then the\n"
	      " * firmware's own reset code. */\n"
	      "__asm__(\".section .init0,\\\"ax\\\",@progbits\\n\"\n"
	      "\t\".global " FP_RT_RESET_SYMBOL "\\n" FP_RT_RESET_SYMBOL ":\\n\\t.text\");\n\n", o);
}

/* The vector route (avrr instrument of a finished ELF): the runtime's
 * stack until the firmware sets its own, the jump to the firmware's reset
 * code, and one stub per hooked vector.  A stub is the header route's
 * ISR() stub with the handler's call cut off: the same pushes, so the same
 * frame and the same cycles from the vector's jump to the timer's read
 * (AVRR_CYCLE_OFFSET holds), then everything restored and a jump to the
 * firmware's own handler, which sees the machine as the vector left it. */
static void emit_hooks(FILE *o, const layout *l, int cycles, int log, const fp_tracer_hooks *h)
{
	fprintf(o, "/* As avr-libc's crt does in .init2, under the runtime's RAM at 0x%04x. */\n"
		"__attribute__((naked, used, section(\".init2\"))) void avrr_rt_stack(void)\n{\n"
		"\t__asm__ volatile(\"clr r1\\n\\tout __SREG__, r1\\n\\t\"\n"
		"\t\t\"ldi r28, 0x%02x\\n\\tldi r29, 0x%02x\\n\\t\"\n"
		"\t\t\"out __SP_H__, r29\\n\\tout __SP_L__, r28\");\n}\n\n"
		"/* The firmware's reset code, at 0x%lx: the symbol is the link's\n"
		" * (--defsym), as an RJMP to a number would be taken as relative. */\n"
		"__attribute__((naked, used, section(\".init9\"))) void avrr_rt_start(void)\n{\n"
		"\t__asm__ volatile(AVRR_JMP \" " FP_RT_FW_RESET "\");\n}\n\n",
		h->ram_base, (h->ram_base - 1) & 0xff, (h->ram_base - 1) >> 8,
		(unsigned long)h->reset_target);
	emit_save_restore(o, l->saved);
	fputs("\n\n", o);
	for (unsigned i = 0; i < h->nhooks; i++) {
		char ops[160];
		snprintf(ops, sizeof ops, "%s%s", cycles ? "[tl] \"n\"(_SFR_MEM_ADDR(AVRR_TCNTL)), "
			 "[th] \"n\"(_SFR_MEM_ADDR(AVRR_TCNTH))" : "", cycles && log ? ", " : "");
		if (log)
			snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "[vn] \"M\"(%u)",
				 h->hook[i].vector);
		fprintf(o, "/* vector %u, the firmware's handler at 0x%lx */\n"
			"void " FP_RT_HOOK_PREFIX "%u(void) __attribute__((naked, used));\n"
			"void " FP_RT_HOOK_PREFIX "%u(void)\n{\n"
			"\t__asm__ volatile(AVRR_SAVE\n"
			"\t\t\"in r0, __SREG__\\n\\tpush r0\\n\\t\"\n%s%s"
			"\t\t\"in r24, __SP_L__\\n\\tin r25, __SP_H__\\n\\tadiw r24, 1\\n\\t\"\n"
			"\t\t\"clr r1\\n\\t\"\n"
			"\t\tAVRR_CALL \" avrr_trace_record\\n\\t\"\n"
			"\t\t\"pop r0\\n\\tout __SREG__, r0\\n\\t\"\n"
			"\t\tAVRR_RESTORE\n"
			"\t\tAVRR_JMP \" " FP_RT_FW_VECTOR_PREFIX "%u\" :: %s);\n}\n\n",
			h->hook[i].vector, (unsigned long)h->hook[i].target, h->hook[i].vector,
			h->hook[i].vector,
			cycles ? "\t\t\"lds r22, %[tl]\\n\\tlds r23, %[th]\\n\\t\"\n"
			       : "\t\t\"clr r22\\n\\tclr r23\\n\\t\"\n",
			log ? "\t\t\"ldi r24, %[vn]\\n\\tsts avrr_log_vec, r24\\n\\t\"\n" : "",
			h->hook[i].vector, ops);
	}
}

unsigned fp_tracer_hook_cycles(const fp_config *c, int log, uint32_t flash_size)
{
	layout l = make_layout(c);
	unsigned call = flash_size > 131072 ? 5 : flash_size > 8192 ? 4 : 3;
	unsigned jmp = flash_size > 8192 ? 3 : 2;
	/* pushes and pops, IN and PUSH of SREG, the timer's LDS (or CLRs),
	 * the vector's LDI/STS, IN, IN, ADIW, CLR, the call, POP, OUT, the jump */
	return 4 * l.nsaved + 3 + (fp_counter_bytes(c, FP_COUNT_CYCLES) ? 4 : 2) +
	       (log ? 3 : 0) + 5 + call + 3 + jmp;
}

/* What the device cannot record: NULL, or why. */
static const char *refusal(const fp_config *c, const mcu_names *names, unsigned timer)
{
	for (unsigned i = 0; i < c->ncomp; i++)
		if (c->comp[i].kind == FP_COMP_ALL)
			return "a device cannot gather `all` (the whole data space with its I/O "
			       "registers) at the interrupt point";
	/* (the vector route's timer is one fp_hookvec_counter found on the part) */
	if (fp_counter_bytes(c, FP_COUNT_CYCLES) && timer == 1 && ioregs_addr(names, "TCNT1L") < 0)
		return "cycles:K needs a 16-bit Timer1, which this MCU does not have";
	return NULL;
}

int fp_tracer_write(const fp_config *c, const mcu_names *names, unsigned slots, FILE *o,
		    avrr_err *err)
{
	return fp_tracer_write_log(c, names, slots, NULL, o, err);
}

static int write_tracer(const fp_config *c, const mcu_names *names, unsigned slots,
			const fp_tracer_log *log, const fp_tracer_hooks *hooks, FILE *o,
			avrr_err *err);

int fp_tracer_write_log(const fp_config *c, const mcu_names *names, unsigned slots,
			const fp_tracer_log *log, FILE *o, avrr_err *err)
{
	return write_tracer(c, names, slots, log, NULL, o, err);
}

int fp_tracer_write_runtime(const fp_config *c, const mcu_names *names, unsigned slots,
			    const fp_tracer_log *log, const fp_tracer_hooks *hooks, FILE *o,
			    avrr_err *err)
{
	if (fp_counter_bytes(c, FP_COUNT_SIC))
		return avrr_errf(err, "sic:K needs the counter's rewrite of the code, which moves "
				 "it: build with the tracer header instead (docs/tracer.md)");
	return write_tracer(c, names, slots, log, hooks, o, err);
}

static int write_tracer(const fp_config *c, const mcu_names *names, unsigned slots,
			const fp_tracer_log *log, const fp_tracer_hooks *hooks, FILE *o,
			avrr_err *err)
{
	int logging = log && log->sink != FP_LOG_NONE;
	char spec[600];
	fp_format(c, spec, sizeof spec);
	unsigned timer = hooks && hooks->counter_timer ? hooks->counter_timer : 1;
	const char *why = refusal(c, names, timer);
	char sink_why[120];
	if (!why && logging)
		why = fp_log_sink_check(log, names, sink_why, sizeof sink_why);
	if (why)
		return avrr_errf(err, "%s: %s", spec, why);
	if (!slots || slots > 1024)
		return avrr_errf(err, "ring buffer slots must be 1..1024");
	unsigned width = c->ra_bits + c->state_bits, bytes = (width + 7) / 8;
	/* a block holds the largest item and a loss item while one is sent */
	unsigned least = 2 * (fp_log_item_max(c) + 3);
	if (logging && (log->ring < least || log->ring > 255))
		return avrr_errf(err, "the log's block must be %u..255 bytes for %u-byte "
				 "fingerprints", least, bytes);
	size_t gbytes = 0;  /* g[] holds every component at its largest */
	for (unsigned i = 0; i < c->ncomp; i++)
		gbytes += c->comp[i].len;
	layout l = make_layout(c);
	unsigned cycles = fp_counter_bytes(c, FP_COUNT_CYCLES), sic = fp_counter_bytes(c, FP_COUNT_SIC);
	unsigned ovf = cycles > 2 ? cycles - 2 : 0;  /* bytes of the timer's overflow count */

	fprintf(o, "/*\n * tracer.h — avrr's device-side tracer for\n *   %s\n * on the %s, "
		"generated by `avrr tracer`; do not edit.  Include it before\n"
		" * everything (avr-gcc -include tracer.h): it redefines ISR().  See\n"
		" * docs/tracer.md.\n */\n", spec, names->gcc_mcu ? names->gcc_mcu : names->mcu);
	fputs("#ifndef AVRR_TRACER_GENERATED_H\n#define AVRR_TRACER_GENERATED_H\n\n"
	      "#include <avr/interrupt.h>\n#include <avr/io.h>\n#include <stdint.h>\n\n", o);
	if (hooks)
		emit_rt_entry(o);
	fprintf(o, "#define AVRR_TRACE_SLOTS %u\n#define AVRR_TRACE_BYTES %u   /* %u bits */\n"
		"#define AVRR_TRACE_RA_BITS %u\n#define AVRR_TRACE_STATE_BITS %u\n"
		"#define AVRR_TRACE_HASH_BITS %u\n"
		"typedef %s AVRR_FP_T;\ntypedef %s AVRR_HASH_T;\n\n", slots, bytes, width,
		c->ra_bits, c->state_bits, c->hash_bits, width > 32 ? "uint64_t" : "uint32_t",
		c->hash_bits > 32 ? "uint64_t" : "uint32_t");
	fputs("#ifdef __AVR_3_BYTE_PC__\n#define AVRR_RA_SIZE 3\n#else\n#define AVRR_RA_SIZE 2\n"
	      "#endif\n#if FLASHEND > 0x1fff  /* 4-byte vectors: JMP, and CALL */\n"
	      "#define AVRR_CALL \"call\"\n#define AVRR_JMP \"jmp\"\n#else\n"
	      "#define AVRR_CALL \"rcall\"\n#define AVRR_JMP \"rjmp\"\n#endif\n\n", o);
	if (cycles)
		fprintf(o, "/* The cycle counter: Timer%u. */\n#define AVRR_TCNTL TCNT%uL\n"
			"#define AVRR_TCNTH TCNT%uH\n#define AVRR_TCCRB TCCR%uB\n"
			"#define AVRR_CS CS%u0\n#define AVRR_TOV TOV%u\n#define AVRR_TOIE TOIE%u\n\n",
			timer, timer, timer, timer, timer, timer, timer);
	if (cycles)
		fprintf(o, "/* TCNTn + this = cycles since reset at the interrupt point: the\n"
			" * timer starts 1 cycle after the reset vector's jump (LDI, then STS),\n"
			" * the CPU is at the vector's jump AVRR_RESPONSE cycles after the\n"
			" * interrupt point (the datasheet's interrupt response time), and\n"
			" * the stub reads it %u cycles after the vector's jump (%u pushes, IN). */\n"
			"#define AVRR_RESPONSE (AVRR_RA_SIZE + 2)\n"
			"#define AVRR_CYCLE_OFFSET ((%s)(%d - AVRR_RESPONSE))\n\n",
			2 * (l.nsaved + 1) + 1, l.nsaved + 1, ovf ? "uint32_t" : "uint16_t",
			1 - (int)(2 * (l.nsaved + 1) + 1));
	/* In .noinit, after the firmware's own variables: their addresses,
	 * which var: selectors name, stay those of the untraced build. */
	fputs("volatile uint8_t avrr_trace_ring[AVRR_TRACE_SLOTS][AVRR_TRACE_BYTES]\n"
	      "\t__attribute__((section(\".noinit\")));\n"
	      "volatile uint16_t avrr_trace_count __attribute__((section(\".noinit\")));\n", o);
	if (ovf)
		fprintf(o, "/* The timer's overflows since reset: the cycle counter's bits above\n"
			" * 16, counted by the tracer's own overflow handler. */\n"
			"volatile uint8_t avrr_trace_ovf[%u] __attribute__((section(\".noinit\")));\n"
			"#ifdef TIMSK%u\n#define AVRR_TIMSK TIMSK%u\n#define AVRR_TIFR TIFR%u\n#else\n"
			"#define AVRR_TIMSK TIMSK\n#define AVRR_TIFR TIFR\n"
			"#define AVRR_TIMSK_SHARED 1\n#endif\n", ovf, timer, timer, timer);
	if (sic)
		fprintf(o, "/* The software instruction counter: avrr instrument adds its\n"
			" * increments to the linked firmware (-Wl,--emit-relocs). */\n"
			"volatile uint8_t " FP_SIC_SYMBOL "[%u] __attribute__((section(\".noinit\")));\n",
			sic);
	fprintf(o, "\n/* At reset: an empty ring%s%s. */\n"
		"__attribute__((naked, used, section(\".init3\"))) void avrr_trace_init(void)\n"
		"{\n\tavrr_trace_count = 0;\n%s%s}\n\n", sic ? ", the counter at 0" : "",
		ovf ? ", no overflow yet and its interrupt on" : "",
		sic ? "\tfor (uint8_t i = 0; i < sizeof " FP_SIC_SYMBOL "; i++)\n"
		      "\t\t" FP_SIC_SYMBOL "[i] = 0;\n" : "",
		ovf ? "\tfor (uint8_t i = 0; i < sizeof avrr_trace_ovf; i++)\n"
		      "\t\tavrr_trace_ovf[i] = 0;\n\tAVRR_TIMSK |= _BV(AVRR_TOIE);\n" : "");
	if (cycles)
		fputs("/* The timer free-running at clk/1 from the first instruction after\n"
		      " * reset (TCCRnA is 0 at reset): the cycle counter. */\n"
		      "__attribute__((naked, used, section(\".init0\"))) void avrr_trace_timer(void)\n"
		      "{\n\t__asm__ volatile(\"ldi r24, %0\\n\\tsts %1, r24\" :: \"M\"(_BV(AVRR_CS)),\n"
		      "\t\t\"n\"(_SFR_MEM_ADDR(AVRR_TCCRB)));\n}\n\n", o);
	if (ovf)
		emit_overflow(o, ovf, hooks != NULL);
	if (c->hash_bits)
		fputs(HASHES, o);
	if (logging)
		emit_log(o, c, names, log, spec, bytes, ovf, hooks != NULL);
	fputs("/* Called by the stub: frame is its saved SREG, timer TCNTn and sic the\n"
	      " * software instruction counter as it read them. */\n"
	      "void avrr_trace_record(const uint8_t *frame, uint16_t timer, uint32_t sic)\n"
	      "\t__attribute__((used));\n"
	      "void avrr_trace_record(const uint8_t *frame, uint16_t timer, uint32_t sic)\n{\n", o);
	fprintf(o, "\tconst uint8_t *rap = frame + %u;  /* the return address */\n"
		"\tconst uint16_t sp = (uint16_t)rap + AVRR_RA_SIZE - 1;  /* at the interrupt point */\n"
		"#if AVRR_RA_SIZE == 3\n\tconst uint32_t ra = (uint32_t)rap[0] << 16 | "
		"(uint16_t)rap[1] << 8 | rap[2];  /* a word address */\n#else\n"
		"\tconst uint16_t ra = (uint16_t)rap[0] << 8 | rap[1];  /* a word address */\n#endif\n"
		"\t(void)sp;\n\t(void)timer;\n\t(void)sic;\n\t(void)ra;\n"
		"\tuint8_t g[%zu];\n\tuint16_t n = 0;\n", l.nsaved + 1, gbytes ? gbytes : 1);
	emit_gather(o, c, &l);
	emit_hash(o, c);
	if (ovf)
		fprintf(o, "\t/* The overflows counted, and one more if the timer overflowed before\n"
			"\t * the stub read it but its handler has not run yet: TOVn pending with\n"
			"\t * the timer in its lower half (interrupts are off here, so an overflow\n"
			"\t * flagged after the read finds the timer read in its upper half). */\n"
			"\tuint%u_t ovf = avrr_trace_ovf[0]%s;\n"
			"\tif ((AVRR_TIFR & _BV(AVRR_TOV)) && !(timer & 0x8000u))\n\t\tovf++;\n"
			"\tuint32_t cyc = ((uint32_t)ovf << 16 | timer) + AVRR_CYCLE_OFFSET;\n"
			"#ifdef AVRR_TIMSK_SHARED  /* a firmware's TIMSK = ... clears TOIE1 */\n"
			"\tAVRR_TIMSK |= _BV(AVRR_TOIE);\n#endif\n",
			ovf > 1 ? 16 : 8, ovf > 1 ? " | (uint16_t)avrr_trace_ovf[1] << 8" : "");
	/* Every shift is narrower than AVRR_FP_T (a shift by its width is
	 * undefined): the first counter is assigned, not shifted in, and the
	 * parts that are 0 bits wide are left out. */
	if (c->count_bits)
		fputs("\tAVRR_FP_T part = 0;\n", o);
	for (unsigned i = 0; i < c->ncounters; i++) {
		char shifted[32] = "";
		if (i)
			snprintf(shifted, sizeof shifted, "part << %u | ", c->counter[i].bits);
		fprintf(o, "\tpart = %s(AVRR_FP_T)(%s & 0x%lxul);\n", shifted,
			c->counter[i].kind == FP_COUNT_SIC ? "sic" : ovf ? "cyc"
							   : "(uint16_t)(timer + AVRR_CYCLE_OFFSET)",
			(unsigned long)fp_hash_mask(c->counter[i].bits));
	}
	fputs("\tAVRR_FP_T f = h;\n", o);
	if (c->count_bits)
		fputs(c->hash_bits ? "\tf |= part << AVRR_TRACE_HASH_BITS;\n" : "\tf |= part;\n", o);
	if (c->ra_bits)
		fprintf(o, "\tf |= (AVRR_FP_T)(ra & 0x%lxul) << AVRR_TRACE_STATE_BITS;\n",
			(unsigned long)fp_hash_mask(c->ra_bits > 32 ? 32 : c->ra_bits));
	else
		fputs("\t(void)ra;\n", o);
	if (logging)
		fputs("\tAVRR_FP_T f0 = f;\n", o);
	fputs("\tvolatile uint8_t *slot = avrr_trace_ring[avrr_trace_count % AVRR_TRACE_SLOTS];\n", o);
	if (ovf) {   /* unrolled: byte moves, where the loop shifts f each turn */
		for (unsigned b = 0; b < bytes; b++)
			fprintf(o, "\tslot[%u] = (uint8_t)(f >> %u);\n", b, 8 * b);
	} else {
		fputs("\tfor (uint8_t i = 0; i < AVRR_TRACE_BYTES; i++, f >>= 8)\n"
		      "\t\tslot[i] = (uint8_t)f;\n", o);
	}
	fputs("\tavrr_trace_count++;\n", o);
	if (logging)
		fprintf(o, "\tavrr_log_put_fp(f0, %d);  /* %s */\n", !log->masked,
			log->masked ? "the block goes out with interrupts off"
				    : "other interrupts may come while a block goes out");
	fputs("}\n\n", o);
	if (hooks)
		emit_hooks(o, &l, cycles > 0, logging, hooks);
	else
		emit_stub(o, &l, cycles > 0, sic, logging);
	fputs("#endif\n", o);
	return ferror(o) ? avrr_errf(err, "write error") : 0;
}
