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
#include "tracer.h"

#include "instrument.h"
#include "inputs.h"

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
	fputs("#define AVRR_SAVE", o);
	for (int r = 0; r < 32; r++)
		if (l->saved >> r & 1)
			fprintf(o, " \"push r%d\\n\\t\"", r);
	fputs("\n#define AVRR_RESTORE", o);
	for (int r = 31; r >= 0; r--)
		if (l->saved >> r & 1)
			fprintf(o, " \"pop r%d\\n\\t\"", r);
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
		cycles ? "[tl] \"n\"(_SFR_MEM_ADDR(TCNT1L)), [th] \"n\"(_SFR_MEM_ADDR(TCNT1H))"
		       : "",
		log ? (cycles ? ", [vn] \"M\"(AVRR_VNUM(vector))" : "[vn] \"M\"(AVRR_VNUM(vector))") : "");
}

/* The device log (docs/device.md): the header constant, the block being
 * filled, the sink, the append that interrupt stubs and avrr_log_read
 * share.  Everything runs inside the firmware's own execution, so the
 * simulation of the same ELF re-creates it exactly. */
static void emit_log(FILE *o, const fp_config *c, const mcu_names *names,
		     const fp_tracer_log *log, const char *spec, unsigned fp_bytes)
{
	const char *mcu = names->gcc_mcu ? names->gcc_mcu : names->mcu;
	size_t nm = strlen(mcu), ns = strlen(spec);
	(void)c;
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
	for (int i = 0; i < 34; i++)
		HB(0);
#undef HB
	fputs("\n};\n\n", o);
	fputs("volatile uint8_t avrr_log_blk[AVRR_LOG_RING] __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_out[AVRR_LOG_RING] __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_len __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_seq __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_busy __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_started __attribute__((section(\".noinit\")));\n"
	      "volatile uint8_t avrr_log_vec __attribute__((section(\".noinit\")));\n"
	      "volatile uint16_t avrr_log_lost __attribute__((section(\".noinit\")));\n\n", o);
	if (log->sink == FP_LOG_FUNC)
		fputs("/* The firmware's sink: one byte of the stream, in order. */\n"
		      "void avrr_log_sink(uint8_t byte);\n\n", o);
	else
		fputs("#if defined(UDR0)\n#define AVRR_UDR UDR0\n#define AVRR_UCSRA UCSR0A\n"
		      "#define AVRR_UDRE UDRE0\n#define AVRR_UCSRB UCSR0B\n#define AVRR_TXEN TXEN0\n"
		      "#define AVRR_UBRRL UBRR0L\n#define AVRR_UBRRH UBRR0H\n#else\n"
		      "#define AVRR_UDR UDR\n#define AVRR_UCSRA UCSRA\n#define AVRR_UDRE UDRE\n"
		      "#define AVRR_UCSRB UCSRB\n#define AVRR_TXEN TXEN\n"
		      "#define AVRR_UBRRL UBRRL\n#define AVRR_UBRRH UBRRH\n#endif\n"
		      "/* The UART sink: blocking, one byte at a time. */\n"
		      "static inline void avrr_log_sink(uint8_t byte)\n{\n"
		      "\twhile (!(AVRR_UCSRA & _BV(AVRR_UDRE)))\n\t\t;\n\tAVRR_UDR = byte;\n}\n\n", o);
	fprintf(o, "/* At reset: an empty block, nothing lost, the header not yet sent%s. */\n"
		"__attribute__((naked, used, section(\".init3\"))) void avrr_log_init(void)\n{\n"
		"\tavrr_log_len = 0;\n\tavrr_log_seq = 0;\n\tavrr_log_busy = 0;\n"
		"\tavrr_log_started = 0;\n\tavrr_log_lost = 0;\n", log->baud ? ", the UART at its baud" : "");
	if (log->sink == FP_LOG_UART && log->baud)
		fprintf(o, "\tuint16_t ubrr = (uint16_t)((F_CPU + 8ul * %luul) / (16ul * %luul) - 1);\n"
			"\tAVRR_UBRRH = (uint8_t)(ubrr >> 8);\n\tAVRR_UBRRL = (uint8_t)ubrr;\n"
			"\tAVRR_UCSRB |= _BV(AVRR_TXEN);\n", (unsigned long)log->baud,
			(unsigned long)log->baud);
	fputs("}\n\n", o);
	fputs("/* Closes the block and sends it through the sink (with interrupts on\n"
	      " * if ien: items that come meanwhile go to the next block).  Called\n"
	      " * with interrupts off; returns with them off.  The header goes first,\n"
	      " * once per reset. */\n"
	      "__attribute__((noinline)) static void avrr_log_flush(uint8_t ien)\n{\n"
	      "\tuint8_t n = avrr_log_len, seq = avrr_log_seq++;\n"
	      "\tfor (uint8_t i = 0; i < n; i++)\n\t\tavrr_log_out[i] = avrr_log_blk[i];\n"
	      "\tavrr_log_len = 0;\n\tavrr_log_busy = 1;\n"
	      "\tif (ien)\n\t\tsei();\n"
	      "\tif (!avrr_log_started) {\n"
	      "\t\tavrr_log_started = 1;\n"
	      "\t\tfor (uint16_t i = 0; i < sizeof " FP_LOG_HEADER_SYMBOL "; i++)\n"
	      "\t\t\tavrr_log_sink(pgm_read_byte(&" FP_LOG_HEADER_SYMBOL "[i]));\n\t}\n"
	      "\tuint16_t crc = _crc_ccitt_update(0xffff, seq);\n"
	      "\tcrc = _crc_ccitt_update(crc, n);\n"
	      "\tavrr_log_sink(0xa5);\n\tavrr_log_sink(seq);\n\tavrr_log_sink(n);\n"
	      "\tfor (uint8_t i = 0; i < n; i++) {\n"
	      "\t\tuint8_t b = avrr_log_out[i];\n\t\tcrc = _crc_ccitt_update(crc, b);\n"
	      "\t\tavrr_log_sink(b);\n\t}\n"
	      "\tavrr_log_sink((uint8_t)crc);\n\tavrr_log_sink((uint8_t)(crc >> 8));\n"
	      "\tcli();\n\tavrr_log_busy = 0;\n}\n\n", o);
	fputs("/* Appends one item (interrupts off).  A loss item stands where lost\n"
	      " * items were; an item that finds the block full while the block\n"
	      " * before is being sent is lost. */\n"
	      "__attribute__((noinline)) static void avrr_log_put(const uint8_t *item, uint8_t n,\n"
	      "\t\t\t\t\t\t  uint8_t ien)\n{\n"
	      "\tuint8_t need = n + (avrr_log_lost ? 3 : 0);\n"
	      "\tif (avrr_log_len + need > AVRR_LOG_RING) {\n"
	      "\t\tif (avrr_log_busy) {\n"
	      "\t\t\tif (avrr_log_lost != 0xffff)\n\t\t\t\tavrr_log_lost++;\n"
	      "\t\t\treturn;\n\t\t}\n"
	      "\t\tavrr_log_flush(ien);\n"
	      "\t\tneed = n + (avrr_log_lost ? 3 : 0);\n"
	      "\t\tif (avrr_log_len + need > AVRR_LOG_RING) {  /* filled while sending */\n"
	      "\t\t\tif (avrr_log_lost != 0xffff)\n\t\t\t\tavrr_log_lost++;\n"
	      "\t\t\treturn;\n\t\t}\n\t}\n"
	      "\tif (avrr_log_lost) {\n"
	      "\t\tavrr_log_blk[avrr_log_len++] = 3;\n"
	      "\t\tavrr_log_blk[avrr_log_len++] = (uint8_t)avrr_log_lost;\n"
	      "\t\tavrr_log_blk[avrr_log_len++] = (uint8_t)(avrr_log_lost >> 8);\n"
	      "\t\tavrr_log_lost = 0;\n\t}\n"
	      "\tfor (uint8_t i = 0; i < n; i++)\n\t\tavrr_log_blk[avrr_log_len++] = item[i];\n"
	      "\t/* Full: no room for the largest item and a loss item.  Sent now, so\n"
	      "\t * the stream is complete up to this item once it is out. */\n"
	      "\tif (AVRR_LOG_RING - avrr_log_len < 2 + AVRR_TRACE_BYTES + 3 && !avrr_log_busy)\n"
	      "\t\tavrr_log_flush(ien);\n}\n\n", o);
	/* The input set as a bit map of the addresses below 0x200, for the
	 * loads through a pointer `avrr instrument --log-loads` tests. */
	uint8_t map[FP_INPUT_SPACE], bits[FP_INPUT_SPACE / 8] = { 0 };
	devlog_inputs(names, map);
	for (unsigned a = 0; a < FP_INPUT_SPACE; a++)
		bits[a / 8] |= (uint8_t)(map[a] << (a % 8));
	fputs("/* The input set (docs/device.md), a bit per data address below 0x200. */\n"
	      "static const uint8_t avrr_input_map[] PROGMEM = {", o);
	for (unsigned i = 0; i < sizeof bits; i++)
		fprintf(o, "%s0x%02x,", i % 12 ? " " : "\n\t", bits[i]);
	fputs("\n};\n\n", o);
	fputs("/* A load through X, Y or Z from `addr` gave `value`: called by\n"
	      " * `avrr instrument --log-loads` after each one below 0x200 (interrupts\n"
	      " * off); an input's value is logged like any read. */\n"
	      "void avrr_log_ld(uint16_t addr, uint8_t value) __attribute__((used));\n"
	      "void avrr_log_ld(uint16_t addr, uint8_t value)\n{\n"
	      "\tif (addr >= 0x200 || !(pgm_read_byte(&avrr_input_map[addr >> 3]) >> (addr & 7) & 1))\n"
	      "\t\treturn;\n"
	      "\tuint8_t item[2] = { 2, value };\n\tavrr_log_put(item, 2, 0);\n}\n\n", o);
	fputs("/* An input read's value: called by `avrr instrument`'s rewrite after\n"
	      " * each read of an input register. */\n"
	      "void avrr_log_read(uint8_t value) __attribute__((used));\n"
	      "void avrr_log_read(uint8_t value)\n{\n"
	      "\tuint8_t sreg = SREG, item[2] = { 2, value };\n\tcli();\n"
	      "\tavrr_log_put(item, 2, sreg & 0x80);\n\tSREG = sreg;\n}\n\n", o);
}

/* The tracer's own TIMER1_OVF handler, for a cycles:K counter wider than
 * Timer1's 16 bits: `bytes` of overflow count, incremented with carry.
 * Naked and short, so its cycles per overflow are those cost.h prices;
 * a firmware with its own TIMER1_OVF handler fails to link, as it should:
 * the tracer owns Timer1. */
static void emit_overflow(FILE *o, unsigned bytes)
{
	fputs("/* Timer1 overflowed: one more in avrr_trace_ovf (SREG and r24 kept). */\n"
	      "void TIMER1_OVF_vect(void) __attribute__((signal, naked, used, externally_visible));\n"
	      "void TIMER1_OVF_vect(void)\n{\n"
	      "\t__asm__ volatile(\"push r24\\n\\tin r24, __SREG__\\n\\tpush r24\\n\\t\"\n", o);
	for (unsigned i = 0; i < bytes; i++)
		fprintf(o, "\t\t\"lds r24, avrr_trace_ovf+%u\\n\\t%s r24, 0xff\\n\\t"
			"sts avrr_trace_ovf+%u, r24\\n\\t\"\n", i, i ? "sbci" : "subi", i);
	fputs("\t\t\"pop r24\\n\\tout __SREG__, r24\\n\\tpop r24\\n\\treti\");\n}\n\n", o);
}

/* What the device cannot record: NULL, or why. */
static const char *refusal(const fp_config *c, const mcu_names *names)
{
	for (unsigned i = 0; i < c->ncomp; i++)
		if (c->comp[i].kind == FP_COMP_ALL)
			return "a device cannot gather `all` (the whole data space with its I/O "
			       "registers) at the interrupt point";
	if (fp_counter_bytes(c, FP_COUNT_CYCLES) && ioregs_addr(names, "TCNT1L") < 0)
		return "cycles:K needs a 16-bit Timer1, which this MCU does not have";
	return NULL;
}

int fp_tracer_write(const fp_config *c, const mcu_names *names, unsigned slots, FILE *o,
		    avrr_err *err)
{
	return fp_tracer_write_log(c, names, slots, NULL, o, err);
}

int fp_tracer_write_log(const fp_config *c, const mcu_names *names, unsigned slots,
			const fp_tracer_log *log, FILE *o, avrr_err *err)
{
	int logging = log && log->sink != FP_LOG_NONE;
	char spec[600];
	fp_format(c, spec, sizeof spec);
	const char *why = refusal(c, names);
	if (why)
		return avrr_errf(err, "%s: %s", spec, why);
	if (!slots || slots > 1024)
		return avrr_errf(err, "ring buffer slots must be 1..1024");
	unsigned width = c->ra_bits + c->state_bits, bytes = (width + 7) / 8;
	if (logging && (log->ring < 2 * (bytes + 5) || log->ring > 255))
		return avrr_errf(err, "the log's block must be %u..255 bytes for %u-byte "
				 "fingerprints", 2 * (bytes + 5), bytes);
	size_t gbytes = 0;  /* g[] holds every component at its largest */
	for (unsigned i = 0; i < c->ncomp; i++)
		gbytes += c->comp[i].len;
	layout l = make_layout(c);
	unsigned cycles = fp_counter_bytes(c, FP_COUNT_CYCLES), sic = fp_counter_bytes(c, FP_COUNT_SIC);
	unsigned ovf = cycles > 2 ? cycles - 2 : 0;  /* bytes of Timer1's overflow count */

	fprintf(o, "/*\n * tracer.h — avrr's device-side tracer for\n *   %s\n * on the %s, "
		"generated by `avrr tracer`; do not edit.  Include it before\n"
		" * everything (avr-gcc -include tracer.h): it redefines ISR().  See\n"
		" * docs/tracer.md.\n */\n", spec, names->gcc_mcu ? names->gcc_mcu : names->mcu);
	fputs("#ifndef AVRR_TRACER_GENERATED_H\n#define AVRR_TRACER_GENERATED_H\n\n"
	      "#include <avr/interrupt.h>\n#include <avr/io.h>\n#include <stdint.h>\n\n", o);
	fprintf(o, "#define AVRR_TRACE_SLOTS %u\n#define AVRR_TRACE_BYTES %u   /* %u bits */\n"
		"#define AVRR_TRACE_RA_BITS %u\n#define AVRR_TRACE_STATE_BITS %u\n"
		"#define AVRR_TRACE_HASH_BITS %u\n"
		"typedef %s AVRR_FP_T;\ntypedef %s AVRR_HASH_T;\n\n", slots, bytes, width,
		c->ra_bits, c->state_bits, c->hash_bits, width > 32 ? "uint64_t" : "uint32_t",
		c->hash_bits > 32 ? "uint64_t" : "uint32_t");
	fputs("#ifdef __AVR_3_BYTE_PC__\n#define AVRR_RA_SIZE 3\n#else\n#define AVRR_RA_SIZE 2\n"
	      "#endif\n#if FLASHEND > 0x1fff  /* 4-byte vectors: JMP, and CALL */\n"
	      "#define AVRR_CALL \"call\"\n#else\n#define AVRR_CALL \"rcall\"\n#endif\n\n", o);
	if (cycles)
		fprintf(o, "/* TCNT1 + this = cycles since reset at the interrupt point: the\n"
			" * timer starts 1 cycle after the reset vector's jump (LDI, then STS),\n"
			" * the stub reads it %u cycles after the vector's jump (%u pushes, IN),\n"
			" * as simavr 1.6 times them. */\n#define AVRR_CYCLE_OFFSET ((%s)%d)\n\n",
			2 * (l.nsaved + 1) + 1, l.nsaved + 1, ovf ? "uint32_t" : "uint16_t",
			1 - (int)(2 * (l.nsaved + 1) + 1));
	/* In .noinit, after the firmware's own variables: their addresses,
	 * which var: selectors name, stay those of the untraced build. */
	fputs("volatile uint8_t avrr_trace_ring[AVRR_TRACE_SLOTS][AVRR_TRACE_BYTES]\n"
	      "\t__attribute__((section(\".noinit\")));\n"
	      "volatile uint16_t avrr_trace_count __attribute__((section(\".noinit\")));\n", o);
	if (ovf)
		fprintf(o, "/* Timer1's overflows since reset: the cycle counter's bits above\n"
			" * 16, counted by the tracer's own TIMER1_OVF handler. */\n"
			"volatile uint8_t avrr_trace_ovf[%u] __attribute__((section(\".noinit\")));\n"
			"#ifdef TIMSK1\n#define AVRR_TIMSK TIMSK1\n#define AVRR_TIFR TIFR1\n#else\n"
			"#define AVRR_TIMSK TIMSK\n#define AVRR_TIFR TIFR\n#endif\n", ovf);
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
		      "\t\tavrr_trace_ovf[i] = 0;\n\tAVRR_TIMSK |= _BV(TOIE1);\n" : "");
	if (cycles)
		fputs("/* Timer1 free-running at clk/1 from the first instruction after\n"
		      " * reset (TCCR1A is 0 at reset): the cycle counter. */\n"
		      "__attribute__((naked, used, section(\".init0\"))) void avrr_trace_timer(void)\n"
		      "{\n\t__asm__ volatile(\"ldi r24, %0\\n\\tsts %1, r24\" :: \"M\"(_BV(CS10)),\n"
		      "\t\t\"n\"(_SFR_MEM_ADDR(TCCR1B)));\n}\n\n", o);
	if (ovf)
		emit_overflow(o, ovf);
	if (c->hash_bits)
		fputs(HASHES, o);
	if (logging)
		emit_log(o, c, names, log, spec, bytes);
	fputs("/* Called by the stub: frame is its saved SREG, timer TCNT1 and sic the\n"
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
		fprintf(o, "\t/* The overflows counted, and one more if Timer1 overflowed before\n"
			"\t * the stub read it but its handler has not run yet: TOV1 pending with\n"
			"\t * the timer in its lower half (interrupts are off here, so an overflow\n"
			"\t * flagged after the read finds the timer read in its upper half). */\n"
			"\tuint%u_t ovf = avrr_trace_ovf[0]%s;\n"
			"\tif ((AVRR_TIFR & _BV(TOV1)) && !(timer & 0x8000u))\n\t\tovf++;\n"
			"\tuint32_t cyc = ((uint32_t)ovf << 16 | timer) + AVRR_CYCLE_OFFSET;\n"
			"#ifndef TIMSK1  /* TIMSK is shared: a firmware's TIMSK = ... clears TOIE1 */\n"
			"\tAVRR_TIMSK |= _BV(TOIE1);\n#endif\n",
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
		fprintf(o, "\tuint8_t item[2 + AVRR_TRACE_BYTES] = { 1, avrr_log_vec };\n"
			"\tfor (uint8_t i = 0; i < AVRR_TRACE_BYTES; i++)\n"
			"\t\titem[2 + i] = slot[i];\n"
			"\tavrr_log_put(item, sizeof item, %d);  /* %s */\n", !log->masked,
			log->masked ? "the block goes out with interrupts off"
				    : "other interrupts may come while a block goes out");
	fputs("}\n\n", o);
	emit_stub(o, &l, cycles > 0, sic, logging);
	fputs("#endif\n", o);
	return ferror(o) ? avrr_errf(err, "write error") : 0;
}
