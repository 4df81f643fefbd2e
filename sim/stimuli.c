/*
 * stimuli.c — parses stimuli files (docs/stimuli.md) and plays them into a
 * simavr core.
 *
 * The parser keeps times symbolic (value + unit) because the clock frequency
 * is only known when the script is attached to a core.  The driver uses one
 * cycle timer for all timed events (so a long script cannot exhaust simavr's
 * small timer pool, and events due at the same cycle fire in file order) and
 * one listener on the ADC's conversion trigger.  The i2c and spi devices
 * are parsed here and run in stim_bus.c; an `spi master` line, which
 * clocks the chip as an SPI slave at its times, is a timed directive as a
 * uart line is.  Everything that changes while the simulation runs lives
 * in the runtime's pointer-free state block.
 */
#include "sim/stimuli.h"

#include "sim/periph.h"
#include "sim/stim_bus.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_adc.h>
#include <avr_ioport.h>
#include <avr_spi.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_io.h>
#include <sim_irq.h>

typedef unsigned __int128 u128;

/* Times beyond this many cycles (~7000 years at 20 MHz) are rejected, so
 * that sums of a few times can never overflow 64 bits. */
#define CYCLE_LIMIT ((uint64_t)1 << 62)
#define ADC_CHANNELS 16
#define UARTS 4
#define PORTS 12 /* A..L */
#define MV_MAX 65535 /* simavr stores an ADC input as uint16_t millivolts */
#define TOKEN_SHOWN 60 /* longest token quoted in a message */

enum unit { U_C, U_US, U_MS, U_S };
static const uint64_t unit_us[] = { 0, 1, 1000, 1000000 };
static const char *const unit_name[] = { "", "us", "ms", "s" };

enum kind { K_ADC, K_UART, K_PIN, K_SPIM };
enum src { S_CONST, S_SEQ, S_RANDOM, S_SINE, S_SAW };
enum act { A_BYTES, A_HIGH, A_LOW, A_TOGGLE, A_PULSE, A_RELEASE };

struct stime {
	uint64_t v;
	uint8_t unit;
	size_t col;
};

struct directive {
	uint8_t kind, src, act;
	bool periodic, has_start, has_jitter;
	uint8_t target; /* ADC channel, UART number or pin bit */
	char port; /* a pin's port letter, 'A'..'L' */
	size_t line, tcol; /* its line, and the column of its target token
			      ('master' for an SPI master) */
	uint64_t rate; /* SPI master: SCK in Hz */
	size_t rcol; /* SPI master: the column of its rate */
	uint16_t lo, hi; /* ADC millivolts: const value, or MIN and MAX */
	size_t off, len; /* slice of script->vals (seq) or script->bytes */
	unsigned frame_flags; /* UART: UART_RX_* on each frame ('bad stop', 'bad parity') */
	struct stime when; /* 'at' time; period of 'every', sine or saw */
	struct stime start, jitter, width;
};

struct stim_script {
	char *file;
	uint64_t seed;
	size_t seed_line; /* 0 when there is no seed directive */
	struct directive *d;
	size_t nd, capd;
	uint16_t *vals;
	size_t nvals, capvals;
	uint8_t *bytes;
	size_t nbytes, capbytes;
	bus_dev *dev; /* the i2c and spi devices (stim_bus.h), in file order */
	size_t ndev, capdev;
};

/* ---------------------------------------------------------------- parser */

typedef struct tok {
	const char *p;
	size_t len, col;
} tok;

struct pctx {
	stim_script *s;
	const char *file;
	size_t line;
	avrr_err *err;
	tok *t;
	size_t nt, capt, i;
};

/* Grows *p (of *cap elements of `elem` bytes) to hold at least `need`. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -1;
		n *= 2;
	}
	void *q = realloc(*p, n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int perr(struct pctx *c, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(struct pctx *c, size_t col, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return avrr_errf(c->err, "%s:%zu:%zu: %s", c->file, c->line, col, msg);
}

static int oom(struct pctx *c)
{
	return perr(c, 1, "out of memory");
}

/* Length to print of a token, so one absurd token cannot crowd out the
 * rest of the message. */
static int shown(const tok *t)
{
	return (int)(t->len < TOKEN_SHOWN ? t->len : TOKEN_SHOWN);
}

static bool is(const tok *t, const char *kw)
{
	return t && t->len == strlen(kw) && memcmp(t->p, kw, t->len) == 0;
}

/* Splits one line [b, e) into tokens; strings stay one token, quotes
 * included.  Fails only on an unterminated string. */
static int lex(struct pctx *c, const char *b, const char *e)
{
	c->nt = c->i = 0;
	const char *p = b;
	while (p < e) {
		if (*p == ' ' || *p == '\t' || *p == '\r') {
			p++;
			continue;
		}
		if (*p == '#')
			break;
		const char *start = p;
		if (*p == '"') {
			p++;
			while (p < e && *p != '"')
				p += (*p == '\\' && p + 1 < e) ? 2 : 1;
			if (p >= e)
				return perr(c, (size_t)(start - b) + 1,
					    "unterminated string");
			p++;
		} else {
			while (p < e && *p != ' ' && *p != '\t' && *p != '\r' &&
			       *p != '#')
				p++;
		}
		if (grow((void **)&c->t, &c->capt, c->nt + 1, sizeof *c->t))
			return oom(c);
		c->t[c->nt++] = (tok){ start, (size_t)(p - start),
				       (size_t)(start - b) + 1 };
	}
	return 0;
}

static const tok *next(struct pctx *c)
{
	return c->i < c->nt ? &c->t[c->i++] : NULL;
}

static const tok *peek(struct pctx *c)
{
	return c->i < c->nt ? &c->t[c->i] : NULL;
}

/* Reports a missing argument where it would start: one column past the end
 * of the line's last token. */
static int missing(struct pctx *c, const char *what)
{
	const tok *last = &c->t[c->nt - 1];
	return perr(c, last->col + last->len + 1, "missing %s", what);
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Reads the longest decimal or 0x-hex integer at the start of p[0..len).
 * Returns 0 with *used digits consumed, 1 if there are no digits, 2 on
 * overflow of 64 bits. */
static int scan_uint(const char *p, size_t len, size_t *used, uint64_t *v)
{
	size_t i = 0;
	unsigned base = 10;
	if (len >= 2 && p[0] == '0' && p[1] == 'x') {
		base = 16;
		i = 2;
	}
	size_t first = i;
	uint64_t acc = 0;
	bool over = false;
	for (; i < len; i++) {
		int d = base == 16 ? hexval(p[i])
				   : (p[i] >= '0' && p[i] <= '9' ? p[i] - '0' : -1);
		if (d < 0)
			break;
		if (acc > (UINT64_MAX - (uint64_t)d) / base)
			over = true;
		else
			acc = acc * base + (uint64_t)d;
	}
	if (i == first)
		return 1;
	*used = i;
	*v = acc;
	return over ? 2 : 0;
}

static int parse_int(struct pctx *c, const tok *t, uint64_t *v)
{
	size_t used = 0;
	int r = scan_uint(t->p, t->len, &used, v);
	if (r == 2)
		return perr(c, t->col, "integer '%.*s' is too large", shown(t),
			    t->p);
	if (r || used != t->len)
		return perr(c, t->col,
			    "bad integer '%.*s' (expected decimal or 0x hexadecimal)",
			    shown(t), t->p);
	return 0;
}

/* Parses a time token: an integer (hex digits are taken greedily, so 0x1c
 * is 28 cycles) and an optional unit. */
static int parse_time(struct pctx *c, const tok *t, struct stime *out)
{
	size_t used = 0;
	uint64_t v = 0;
	int r = scan_uint(t->p, t->len, &used, &v);
	int unit = -1;
	if (r != 1) {
		const char *u = t->p + used;
		size_t ul = t->len - used;
		for (int k = U_C; k <= U_S; k++) {
			const char *name = k == U_C ? "c" : unit_name[k];
			if ((ul == 0 && k == U_C) ||
			    (ul == strlen(name) && memcmp(u, name, ul) == 0))
				unit = k;
		}
	}
	if (unit < 0)
		return perr(c, t->col,
			    "bad time '%.*s' (expected an integer with unit c, us, ms or s)",
			    shown(t), t->p);
	if (r == 2 || (unit != U_C && v > UINT64_MAX / unit_us[unit]))
		return perr(c, t->col, "time '%.*s' is too large", shown(t),
			    t->p);
	*out = (struct stime){ v, (uint8_t)unit, t->col };
	return 0;
}

/* Next token as a time; `what` names it if it is missing. */
static int need_time(struct pctx *c, const char *what, struct stime *out,
		     const tok **where)
{
	const tok *t = next(c);
	if (!t)
		return missing(c, what);
	if (where)
		*where = t;
	return parse_time(c, t, out);
}

static int need_mv(struct pctx *c, const char *what, uint16_t *out,
		   const tok **where)
{
	const tok *t = next(c);
	uint64_t v;
	if (!t)
		return missing(c, what);
	if (parse_int(c, t, &v))
		return -1;
	if (v > MV_MAX)
		return perr(c, t->col,
			    "millivolts %" PRIu64 " out of range (0-%d)", v,
			    MV_MAX);
	*out = (uint16_t)v;
	if (where)
		*where = t;
	return 0;
}

static int push_byte(struct pctx *c, uint8_t b)
{
	stim_script *s = c->s;
	if (grow((void **)&s->bytes, &s->capbytes, s->nbytes + 1, 1))
		return oom(c);
	s->bytes[s->nbytes++] = b;
	return 0;
}

/* Appends the bytes of a quoted string token (quotes included, known to be
 * terminated by the lexer), decoding its escapes. */
static int push_string(struct pctx *c, const tok *t)
{
	const char *p = t->p + 1, *e = t->p + t->len - 1;
	while (p < e) {
		uint8_t b = (uint8_t)*p;
		if (*p == '\\') {
			size_t col = t->col + (size_t)(p - t->p);
			char x = p + 1 < e ? p[1] : '\0';
			size_t adv = 2;
			switch (x) {
			case 'n': b = '\n'; break;
			case 'r': b = '\r'; break;
			case 't': b = '\t'; break;
			case '\\': b = '\\'; break;
			case '"': b = '"'; break;
			case 'x': {
				int h = p + 2 < e ? hexval(p[2]) : -1;
				int l = p + 3 < e ? hexval(p[3]) : -1;
				if (h >= 0 && l >= 0) {
					b = (uint8_t)(h * 16 + l);
					adv = 4;
					break;
				}
			}
				/* fall through */
			default: {
				ptrdiff_t n = x == 'x' ? 4 : 2;
				if (n > e - p)
					n = e - p;
				return perr(c, col,
					    "bad escape '%.*s' in string (expected \\n, \\r, \\t, \\\\, \\\" or \\xNN)",
					    (int)n, p);
			}
			}
			p += adv;
		} else {
			p++;
		}
		if (push_byte(c, b))
			return -1;
	}
	return 0;
}

/* The rest of the line as BYTES: integers 0-255 and strings, at least one. */
static int parse_bytes(struct pctx *c, struct directive *d)
{
	if (!peek(c))
		return missing(c, "bytes (integers 0-255 or strings)");
	d->off = c->s->nbytes;
	const tok *t;
	while ((t = next(c))) {
		if (t->p[0] == '"') {
			if (push_string(c, t))
				return -1;
			continue;
		}
		uint64_t v;
		size_t used = 0;
		int r = scan_uint(t->p, t->len, &used, &v);
		if (r == 1 || used != t->len)
			return perr(c, t->col,
				    "bad byte '%.*s' (expected an integer 0-255 or a string)",
				    shown(t), t->p);
		if (r == 2 || v > 255)
			return perr(c, t->col,
				    "byte '%.*s' out of range (0-255)",
				    shown(t), t->p);
		if (push_byte(c, (uint8_t)v))
			return -1;
	}
	d->len = c->s->nbytes - d->off;
	return 0;
}

/* Time in a common unit (cycles, or microseconds), when comparable. */
static uint64_t common(const struct stime *t)
{
	return t->unit == U_C ? t->v : t->v * unit_us[t->unit];
}

/* `at T` or `every P [start T] [jitter J]` of uart and pin lines. */
static int parse_timing(struct pctx *c, struct directive *d)
{
	const tok *t = next(c);
	if (!t)
		return missing(c, "'at' or 'every'");
	if (is(t, "at"))
		return need_time(c, "time after 'at'", &d->when, NULL);
	if (!is(t, "every"))
		return perr(c, t->col, "expected 'at' or 'every', got '%.*s'",
			    shown(t), t->p);
	d->periodic = true;
	const tok *pt = NULL, *jt = NULL;
	if (need_time(c, "period after 'every'", &d->when, &pt))
		return -1;
	if (d->when.v == 0)
		return perr(c, pt->col, "zero period");
	while ((t = peek(c)) && (is(t, "start") || is(t, "jitter"))) {
		bool st = is(t, "start");
		bool *has = st ? &d->has_start : &d->has_jitter;
		c->i++;
		if (*has)
			return perr(c, t->col, "'%s' given twice",
				    st ? "start" : "jitter");
		*has = true;
		if (need_time(c, st ? "time after 'start'" : "time after 'jitter'",
			      st ? &d->start : &d->jitter, st ? NULL : &jt))
			return -1;
	}
	/* Cycles and real time only compare once the clock is known; stim_attach
	 * checks those mixed cases again in cycles. */
	if (d->has_jitter && (d->jitter.unit == U_C) == (d->when.unit == U_C)) {
		uint64_t j = common(&d->jitter), p = common(&d->when);
		if (j >= p || j >= p - j)
			return perr(c, jt->col,
				    "jitter '%.*s' must be less than half the period '%.*s'",
				    shown(jt), jt->p, shown(pt), pt->p);
	}
	return 0;
}

static int parse_seed(struct pctx *c, const tok *kw)
{
	stim_script *s = c->s;
	if (s->seed_line)
		return perr(c, kw->col, "seed given twice (first on line %zu)",
			    s->seed_line);
	const tok *t = next(c);
	if (!t)
		return missing(c, "seed value");
	if (parse_int(c, t, &s->seed))
		return -1;
	s->seed_line = c->line;
	return 0;
}

static int parse_adc(struct pctx *c, struct directive *d)
{
	static const char *const srcs[] = { "const", "seq", "random", "sine",
					    "saw" };
	const tok *t = next(c);
	uint64_t ch;
	if (!t)
		return missing(c, "ADC channel");
	if (parse_int(c, t, &ch))
		return -1;
	if (ch >= ADC_CHANNELS)
		return perr(c, t->col,
			    "ADC channel %" PRIu64 " out of range (0-15)", ch);
	d->kind = K_ADC;
	d->target = (uint8_t)ch;
	d->tcol = t->col;
	if (!(t = next(c)))
		return missing(c, "ADC source (const, seq, random, sine or saw)");
	int src = -1;
	for (int k = 0; k < 5; k++)
		if (is(t, srcs[k]))
			src = k;
	if (src < 0)
		return perr(c, t->col,
			    "unknown ADC source '%.*s' (expected const, seq, random, sine or saw)",
			    shown(t), t->p);
	d->src = (uint8_t)src;
	switch (src) {
	case S_CONST:
		return need_mv(c, "millivolts", &d->lo, NULL);
	case S_SEQ: {
		stim_script *s = c->s;
		if (!peek(c))
			return missing(c, "millivolts");
		d->off = s->nvals;
		while (peek(c)) {
			uint16_t v;
			if (need_mv(c, "millivolts", &v, NULL))
				return -1;
			if (grow((void **)&s->vals, &s->capvals, s->nvals + 1,
				 sizeof *s->vals))
				return oom(c);
			s->vals[s->nvals++] = v;
		}
		d->len = s->nvals - d->off;
		return 0;
	}
	default:
		break;
	}
	const tok *mt;
	if (need_mv(c, "MIN millivolts", &d->lo, NULL) ||
	    need_mv(c, "MAX millivolts", &d->hi, &mt))
		return -1;
	if (d->hi < d->lo)
		return perr(c, mt->col, "MAX %u is less than MIN %u",
			    (unsigned)d->hi, (unsigned)d->lo);
	if (src == S_RANDOM)
		return 0;
	if (!(t = next(c)))
		return missing(c, "'period'");
	if (!is(t, "period"))
		return perr(c, t->col, "expected 'period', got '%.*s'",
			    shown(t), t->p);
	const tok *pt;
	if (need_time(c, "time after 'period'", &d->when, &pt))
		return -1;
	if (d->when.v == 0)
		return perr(c, pt->col, "zero period");
	return 0;
}

static int parse_uart(struct pctx *c, struct directive *d)
{
	const tok *t = next(c);
	uint64_t n;
	if (!t)
		return missing(c, "UART number");
	if (parse_int(c, t, &n))
		return -1;
	if (n >= UARTS)
		return perr(c, t->col, "UART %" PRIu64 " out of range (0-3)",
			    n);
	d->kind = K_UART;
	d->act = A_BYTES;
	d->target = (uint8_t)n;
	d->tcol = t->col;
	if (parse_timing(c, d))
		return -1;
	/* `bad stop`, `bad parity`: each frame of the line with that error. */
	while ((t = peek(c)) && is(t, "bad")) {
		c->i++;
		const tok *w = next(c);
		unsigned f = !w ? 0 : is(w, "stop") ? UART_RX_BAD_STOP
				  : is(w, "parity") ? UART_RX_BAD_PARITY : 0;
		if (!f)
			return w ? perr(c, w->col, "expected stop or parity after 'bad', got '%.*s'",
					shown(w), w->p)
				 : missing(c, "stop or parity after 'bad'");
		if (d->frame_flags & f)
			return perr(c, w->col, "'bad %.*s' given twice", shown(w), w->p);
		d->frame_flags |= f;
	}
	return parse_bytes(c, d);
}

static int parse_pin(struct pctx *c, struct directive *d)
{
	const tok *t = next(c);
	if (!t)
		return missing(c, "pin (port letter and bit, e.g. D2)");
	char port = t->len == 2 ? t->p[0] : 0;
	if (port >= 'a' && port <= 'l')
		port = (char)(port - 'a' + 'A');
	if (!(port >= 'A' && port <= 'L') || t->p[1] < '0' || t->p[1] > '7')
		return perr(c, t->col,
			    "pin '%.*s' is not a port letter A-L and bit 0-7",
			    shown(t), t->p);
	d->kind = K_PIN;
	d->port = port;
	d->target = (uint8_t)(t->p[1] - '0');
	d->tcol = t->col;
	if (parse_timing(c, d))
		return -1;
	t = next(c);
	if (!d->periodic) {
		if (!t)
			return missing(c, "level (high, low or release)");
		if (!is(t, "high") && !is(t, "low") && !is(t, "release"))
			return perr(c, t->col,
				    "expected high, low or release, got '%.*s'",
				    shown(t), t->p);
		d->act = is(t, "high") ? A_HIGH : is(t, "low") ? A_LOW : A_RELEASE;
		return 0;
	}
	if (!t)
		return missing(c, "action (toggle or pulse)");
	if (is(t, "toggle")) {
		d->act = A_TOGGLE;
		return 0;
	}
	if (!is(t, "pulse"))
		return perr(c, t->col, "expected toggle or pulse, got '%.*s'",
			    shown(t), t->p);
	d->act = A_PULSE;
	const tok *wt;
	if (need_time(c, "pulse width", &d->width, &wt))
		return -1;
	if (d->width.v == 0)
		return perr(c, wt->col, "zero pulse width");
	return 0;
}

/* `reg R BYTES...` clauses to the end of the line: the values of a
 * device's registers from R on, in a map of nregs registers (an SPI
 * device's numbers keep 7 bits: bit 7 is its read/write bit, which a
 * datasheet may name its registers with, as the BMP280's 0xD0). */
static int parse_regs(struct pctx *c, bus_dev *d, unsigned nregs)
{
	stim_script *s = c->s;
	uint8_t given[BUS_I2C_REGS / 8] = { 0 };
	const tok *t;
	while ((t = next(c))) {
		if (!is(t, "reg"))
			return perr(c, t->col, "expected 'reg', got '%.*s'", shown(t), t->p);
		const tok *rt = next(c);
		uint64_t r;
		if (!rt)
			return missing(c, "register number after 'reg'");
		if (parse_int(c, rt, &r))
			return -1;
		if (r > 0xff)
			return perr(c, rt->col, "register '%.*s' out of range (0x00-0xff)",
				    shown(rt), rt->p);
		/* The clause's values are a uart line's BYTES, up to the next
		 * 'reg': parse_bytes sees the line end there. */
		size_t end = c->i, nt = c->nt;
		while (end < nt && !is(&c->t[end], "reg"))
			end++;
		struct directive vals;
		memset(&vals, 0, sizeof vals);
		c->nt = end;
		int bad = parse_bytes(c, &vals);
		c->nt = nt;
		if (bad)
			return -1;
		unsigned at = (unsigned)r & (nregs - 1);
		if (at + vals.len > nregs)
			return perr(c, rt->col,
				    "%zu values from register '%.*s' run past the last register, 0x%02x",
				    vals.len, shown(rt), rt->p, nregs - 1);
		for (size_t k = 0; k < vals.len; k++, at++) {
			if (given[at / 8] >> (at % 8) & 1)
				return perr(c, rt->col, "register 0x%02x given twice%s", at,
					    nregs < BUS_I2C_REGS
						    ? " (bit 7 of a number is the read/write bit)" : "");
			given[at / 8] |= (uint8_t)(1u << (at % 8));
			d->regs[at] = s->bytes[vals.off + k];
		}
		s->nbytes = vals.off;
	}
	return 0;
}

static int parse_i2c(struct pctx *c, bus_dev *d)
{
	const tok *t = next(c);
	uint64_t a;
	if (!t)
		return missing(c, "I2C address (7 bits, 0x08-0x77)");
	if (parse_int(c, t, &a))
		return -1;
	if (a < 0x08 || a > 0x77)
		return perr(c, t->col,
			    "I2C address '%.*s' out of range (0x08-0x77: 7 bits, the others reserved)",
			    shown(t), t->p);
	for (size_t i = 0; i < c->s->ndev; i++)
		if (c->s->dev[i].kind == BUS_I2C && c->s->dev[i].addr == a)
			return perr(c, t->col, "I2C address 0x%02x is already the device's on line %zu",
				    (unsigned)a, c->s->dev[i].line);
	d->kind = BUS_I2C;
	d->addr = (uint8_t)a;
	d->tcol = t->col;
	return parse_regs(c, d, BUS_I2C_REGS);
}

/* The next token, which must be keyword kw. */
static int need_kw(struct pctx *c, const char *kw)
{
	const tok *t = next(c);
	char what[32];
	snprintf(what, sizeof what, "'%s'", kw);
	if (!t)
		return missing(c, what);
	if (!is(t, kw))
		return perr(c, t->col, "expected '%s', got '%.*s'", kw, shown(t), t->p);
	return 0;
}

static int parse_spi(struct pctx *c, bus_dev *d)
{
	const tok *t = next(c);
	if (!t)
		return missing(c, "chip-select pin (port letter and bit, e.g. B2)");
	char port = t->len == 2 ? t->p[0] : 0;
	if (port >= 'a' && port <= 'l')
		port = (char)(port - 'a' + 'A');
	if (!(port >= 'A' && port <= 'L') || t->p[1] < '0' || t->p[1] > '7')
		return perr(c, t->col, "pin '%.*s' is not a port letter A-L and bit 0-7",
			    shown(t), t->p);
	uint8_t bit = (uint8_t)(t->p[1] - '0');
	for (size_t i = 0; i < c->s->ndev; i++)
		if (c->s->dev[i].kind == BUS_SPI && c->s->dev[i].port == port &&
		    c->s->dev[i].bit == bit)
			return perr(c, t->col, "pin %c%u already selects the device on line %zu", port,
				    bit, c->s->dev[i].line);
	d->kind = BUS_SPI;
	d->port = port;
	d->bit = bit;
	d->tcol = t->col;
	if (need_kw(c, "bit7"))
		return -1;
	if (!(t = next(c)))
		return missing(c, "read or write (what bit 7 set in the first byte asks)");
	if (!is(t, "read") && !is(t, "write"))
		return perr(c, t->col, "expected read or write, got '%.*s'", shown(t), t->p);
	d->read_set = is(t, "read");
	if (need_kw(c, "fill"))
		return -1;
	uint64_t f;
	if (!(t = next(c)))
		return missing(c, "fill byte");
	if (parse_int(c, t, &f))
		return -1;
	if (f > 255)
		return perr(c, t->col, "fill byte '%.*s' out of range (0-255)", shown(t), t->p);
	d->fill = (uint8_t)f;
	return parse_regs(c, d, BUS_SPI_REGS);
}

/* `spi master TIMING rate HZ BYTES...`: an outside master that selects
 * the chip (SS low) and clocks the bytes into it at SCK = HZ. */
static int parse_spi_master(struct pctx *c, struct directive *d)
{
	const tok *t = next(c); /* 'master' */
	d->kind = K_SPIM;
	d->act = A_BYTES;
	d->tcol = t->col;
	if (parse_timing(c, d) || need_kw(c, "rate"))
		return -1;
	if (!(t = next(c)))
		return missing(c, "SCK rate in Hz after 'rate'");
	if (parse_int(c, t, &d->rate))
		return -1;
	if (d->rate == 0)
		return perr(c, t->col, "zero SCK rate");
	d->rcol = t->col;
	return parse_bytes(c, d);
}

static int parse_device(struct pctx *c, const tok *kw)
{
	stim_script *s = c->s;
	if (grow((void **)&s->dev, &s->capdev, s->ndev + 1, sizeof *s->dev))
		return oom(c);
	bus_dev *d = &s->dev[s->ndev];
	memset(d, 0, sizeof *d);
	d->line = c->line;
	if (is(kw, "i2c") ? parse_i2c(c, d) : parse_spi(c, d))
		return -1;
	s->ndev++;
	return 0;
}

static int parse_line(struct pctx *c)
{
	const tok *kw = next(c);
	if (!kw)
		return 0;
	if (is(kw, "seed")) {
		if (parse_seed(c, kw))
			return -1;
	} else if (is(kw, "adc") || is(kw, "uart") || is(kw, "pin") ||
		   (is(kw, "spi") && is(peek(c), "master"))) {
		stim_script *s = c->s;
		if (grow((void **)&s->d, &s->capd, s->nd + 1, sizeof *s->d))
			return oom(c);
		struct directive *d = &s->d[s->nd];
		memset(d, 0, sizeof *d);
		d->line = c->line;
		int r = is(kw, "adc")    ? parse_adc(c, d)
			: is(kw, "uart") ? parse_uart(c, d)
			: is(kw, "pin")  ? parse_pin(c, d)
					 : parse_spi_master(c, d);
		if (r)
			return -1;
		s->nd++;
	} else if (is(kw, "i2c") || is(kw, "spi")) {
		if (parse_device(c, kw))
			return -1;
	} else {
		return perr(c, kw->col,
			    "unknown directive '%.*s' (expected seed, adc, uart, pin, i2c or spi)",
			    shown(kw), kw->p);
	}
	const tok *extra = peek(c);
	if (extra)
		return perr(c, extra->col, "unexpected '%.*s' after the directive",
			    shown(extra), extra->p);
	return 0;
}

int stim_parse(const char *text, const char *filename, stim_script **out,
	       avrr_err *err)
{
	*out = NULL;
	stim_script *s = calloc(1, sizeof *s);
	const char *fname = filename ? filename : "<stimuli>";
	struct pctx c = { .s = s, .file = fname, .err = err };
	if (!s || !(s->file = strdup(fname))) {
		free(s);
		return avrr_errf(err, "%s: out of memory", fname);
	}
	const char *p = text ? text : "";
	int r = 0;
	for (;;) {
		const char *e = p + strcspn(p, "\n");
		c.line++;
		if ((r = lex(&c, p, e)) || (r = parse_line(&c)))
			break;
		if (!*e)
			break;
		p = e + 1;
	}
	free(c.t);
	if (r) {
		stim_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void stim_free(stim_script *s)
{
	if (!s)
		return;
	free(s->file);
	free(s->d);
	free(s->vals);
	free(s->bytes);
	free(s->dev);
	free(s);
}

uint64_t stim_default_seed(const stim_script *s)
{
	return s ? s->seed : 0;
}

/* ---------------------------------------------------------------- driver */

/* Per-directive mutable state; lives in the checkpointed block. */
struct dstate {
	uint64_t rng; /* SplitMix64 state of this directive's stream */
	uint64_t base; /* un-jittered time of the next periodic occurrence */
	uint64_t next; /* cycle of the next occurrence, when active */
	uint64_t fall; /* cycle a pulse goes back low, 0 = none pending */
	uint32_t seq; /* next index into an ADC sequence */
	uint32_t active; /* an occurrence is still to come */
	uint64_t byte_at; /* UART, SPI master: cycle the next byte arrives, when owed */
	uint32_t owed; /* UART, SPI master: bytes still to arrive */
	uint32_t sent; /* UART, SPI master: bytes sent so far (the next is sent % len) */
};

/* Per-directive constants fixed at attach: times in cycles, target IRQ. */
struct dconst {
	avr_irq_t *irq; /* UART input or pin IRQ (SPI master: SS's) */
	ports *ports; /* a pin's model (periph_port.c), NULL on a bare core */
	avr_uart_t *uart; /* UART: its frame time and receive buffer */
	avr_spi_t *spi; /* SPI master: the chip's SPI */
	char port; /* SPI master: SS's port letter and bit; a pin's are its directive's */
	uint8_t bit;
	uint64_t when, start, jitter, width; /* SPI master: width = 8 SCK periods, a byte */
	uint32_t pin; /* (port - 'A') * 8 + bit */
};

struct stim_runtime {
	const stim_script *s;
	struct avr_t *avr;
	struct dconst *dc; /* one per directive, never reallocated */
	avr_irq_t *adc; /* ADC IRQ block, or NULL */
	int32_t adc_dir[ADC_CHANNELS]; /* directive driving each channel, or -1 */
	void *state; /* struct dstate[nd], then uint8_t pin levels[PORTS * 8],
			then the bus devices' (stim_bus.h) */
	uint32_t state_size;
	stim_bus *bus; /* the i2c and spi devices, or NULL */
};

/* SplitMix64, fixed here rather than libc's rand() so that a recording
 * replays identically on every platform. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* A uniform draw in [0, n), n >= 1 (multiply-high: bias < n / 2^64). */
static uint64_t draw(uint64_t *rng, uint64_t n)
{
	return (uint64_t)(((u128)splitmix64(rng) * n) >> 64);
}

static struct dstate *dstates(stim_runtime *rt)
{
	return rt->state;
}

static uint8_t *levels(stim_runtime *rt)
{
	return (uint8_t *)rt->state + rt->s->nd * sizeof(struct dstate);
}

/* sin(2*pi*r/p) in Q30, for r < p.  Integer-only (quarter-wave Taylor
 * series) so the wave is bit-identical on every platform. */
static int64_t sin_q30(uint64_t r, uint64_t p)
{
	const uint64_t one = (uint64_t)1 << 30;
	const uint64_t half_pi = 1686629713u; /* pi/2 in Q30 */
	u128 x = (u128)r * 4;
	uint64_t quarter = (uint64_t)(x / p);
	uint64_t f = (uint64_t)(((x % p) << 30) / p); /* in [0, one) */
	if (quarter & 1)
		f = one - f;
	uint64_t th = (f * half_pi) >> 30;
	uint64_t th2 = (th * th) >> 30;
	uint64_t term = th, pos = th, neg = 0;
	for (uint64_t k = 1; k <= 7; k++) {
		term = ((term * th2) >> 30) / ((2 * k) * (2 * k + 1));
		if (k & 1)
			neg += term;
		else
			pos += term;
	}
	int64_t s = pos > neg ? (int64_t)(pos - neg) : 0;
	if (s > (int64_t)one)
		s = (int64_t)one;
	return quarter >= 2 ? -s : s;
}

/* The millivolts directive i gives to a conversion starting now. */
static uint32_t adc_value(stim_runtime *rt, size_t i)
{
	const struct directive *d = &rt->s->d[i];
	struct dstate *st = &dstates(rt)[i];
	uint64_t p = rt->dc[i].when, now = rt->avr->cycle;
	switch (d->src) {
	case S_SEQ: {
		uint16_t v = rt->s->vals[d->off + st->seq];
		st->seq = (uint32_t)((st->seq + 1) % d->len);
		return v;
	}
	case S_RANDOM:
		return d->lo + (uint32_t)draw(&st->rng, (uint64_t)(d->hi - d->lo) + 1);
	case S_SINE: {
		int64_t s = sin_q30(now % p, p);
		int64_t num = (int64_t)(d->lo + d->hi) * ((int64_t)1 << 30) +
			      (int64_t)(d->hi - d->lo) * s + ((int64_t)1 << 30);
		return (uint32_t)(num >> 31);
	}
	case S_SAW:
		return d->lo + (uint32_t)((u128)(d->hi - d->lo) * (now % p) / p);
	default:
		return d->lo;
	}
}

static void adc_feed(stim_runtime *rt, unsigned ch)
{
	if (ch < ADC_CHANNELS && rt->adc_dir[ch] >= 0)
		avr_raise_irq(rt->adc + ADC_IRQ_ADC0 + ch,
			      adc_value(rt, (size_t)rt->adc_dir[ch]));
}

/* simavr announces each conversion start with the mux it will read; we
 * answer before the conversion completes.  A differential conversion reads
 * two channels, so both get a fresh value. */
static void adc_trigger(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	union {
		avr_adc_mux_t mux;
		uint32_t v;
	} e;
	memset(&e, 0, sizeof e);
	e.v = value;
	if (e.mux.kind == ADC_MUX_SINGLE) {
		adc_feed(param, e.mux.src);
	} else if (e.mux.kind == ADC_MUX_DIFF) {
		adc_feed(param, e.mux.src);
		if (e.mux.diff != e.mux.src)
			adc_feed(param, e.mux.diff);
	}
}

/* Occurrence time around `base`, moved by a fresh uniform offset in
 * [-J, +J] and never before cycle 1 (docs/stimuli.md). */
static uint64_t jittered(stim_runtime *rt, size_t i, uint64_t base)
{
	uint64_t j = rt->dc[i].jitter;
	if (!j)
		return base;
	uint64_t t = base + draw(&dstates(rt)[i].rng, 2 * j + 1);
	return t >= j + 1 ? t - j : 1;
}

/* The outside world drives the pin: through the pins' model, where its
 * level beats PORTx and the pull-up (periph_port.c); on a bare core
 * straight onto simavr's pin IRQ. */
static void drive(stim_runtime *rt, size_t i, uint8_t level)
{
	const struct dconst *dc = &rt->dc[i];
	levels(rt)[dc->pin] = level;
	if (dc->ports)
		ports_drive(dc->ports, dc->port, dc->bit, level);
	else
		avr_raise_irq(dc->irq, level);
}

/* The outside world lets go of the pin: the pull-up or nothing holds it. */
static void release(stim_runtime *rt, size_t i)
{
	if (rt->dc[i].ports)
		ports_drive(rt->dc[i].ports, rt->dc[i].port, rt->dc[i].bit, -1);
}

/* Earliest pending event time of directive i, or UINT64_MAX. */
static uint64_t due(const struct dstate *st)
{
	uint64_t t = st->active ? st->next : UINT64_MAX;
	if (st->owed && st->byte_at < t)
		t = st->byte_at;
	return st->fall && st->fall < t ? st->fall : t;
}

/* A byte's stop bit is in: the receiver takes it as the chip would
 * (periph_uart.c: its two-byte FIFO, RXC, DOR, FE, UPE). */
static void uart_arrive(stim_runtime *rt, size_t i, uint8_t byte)
{
	uart_rx_byte(rt->avr, rt->dc[i].uart, byte | rt->s->d[i].frame_flags);
}

/* The next owed byte of UART directive i; the one after follows a frame
 * time later, at the baud rate the firmware has set. */
static void uart_next_byte(stim_runtime *rt, size_t i)
{
	const struct directive *d = &rt->s->d[i];
	struct dstate *st = &dstates(rt)[i];
	uart_arrive(rt, i, rt->s->bytes[d->off + st->sent % d->len]);
	st->sent++;
	st->owed--;
	st->byte_at += rt->dc[i].uart->cycles_per_byte;
}

/* The next owed byte of SPI master i: its last bit is in now, and the
 * chip's SPI, a slave selected by SS, takes it (periph_spi.c: SPIF, and
 * the slave's own byte out).  A chip that is itself a master listens to
 * MISO, not to this master's MOSI: the byte goes nowhere.  After the
 * last byte the master lets SS go high again; the next byte's last bit is
 * 8 SCK periods later. */
static void spim_next_byte(stim_runtime *rt, size_t i)
{
	const struct directive *d = &rt->s->d[i];
	const struct dconst *dc = &rt->dc[i];
	struct dstate *st = &dstates(rt)[i];
	uint8_t byte = rt->s->bytes[d->off + st->sent % d->len];
	st->sent++;
	st->owed--;
	st->byte_at += dc->width;
	if (!(rt->avr->data[dc->spi->r_spcr] & periph_bits(dc->spi->mstr)))
		avr_raise_irq(dc->spi->io.irq + SPI_IRQ_INPUT, byte);
	if (!st->owed)
		drive(rt, i, 1);
}

/* Fires directive i's earliest pending event.  A pulse whose fall is not
 * earlier than the next rise is retriggered: it stays high and falls W after
 * the later rise, so overlapping pulses merge. */
static void fire(stim_runtime *rt, size_t i)
{
	const struct directive *d = &rt->s->d[i];
	const struct dconst *dc = &rt->dc[i];
	struct dstate *st = &dstates(rt)[i];
	if (st->fall && (!st->active || st->fall < st->next)) {
		st->fall = 0;
		drive(rt, i, 0);
		return;
	}
	if (st->owed && (!st->active || st->byte_at <= st->next)) {
		if (d->kind == K_SPIM)
			spim_next_byte(rt, i);
		else
			uart_next_byte(rt, i);
		return;
	}
	switch (d->act) {
	case A_BYTES:
		if (d->kind == K_SPIM) {
			/* SS low: the chip is selected; the first byte's last
			 * bit comes 8 SCK periods on.  attach made sure the
			 * bytes end before the next occurrence. */
			drive(rt, i, 0);
			st->byte_at = st->next + dc->width;
			st->owed = (uint32_t)d->len;
			st->sent = 0;
			break;
		}
		/* One byte per frame, as the line delivers them; an occurrence
		 * that comes while bytes are still owed queues behind them. */
		if (!st->owed)
			st->byte_at = st->next;
		st->owed += (uint32_t)d->len;
		uart_next_byte(rt, i);
		break;
	case A_HIGH:
		drive(rt, i, 1);
		break;
	case A_LOW:
		drive(rt, i, 0);
		break;
	case A_RELEASE:
		release(rt, i);
		break;
	case A_TOGGLE:
		drive(rt, i, !levels(rt)[dc->pin]);
		break;
	case A_PULSE:
		st->fall = st->next + dc->width;
		drive(rt, i, 1);
		break;
	}
	if (!d->periodic) {
		st->active = 0;
		return;
	}
	st->base += dc->when;
	if (st->base > 2 * CYCLE_LIMIT)
		st->active = 0;
	else
		st->next = jittered(rt, i, st->base);
}

/* Earliest pending event over all timed directives; false when none. */
static bool earliest(stim_runtime *rt, size_t *which, uint64_t *when)
{
	bool found = false;
	for (size_t i = 0; i < rt->s->nd; i++) {
		if (rt->s->d[i].kind == K_ADC)
			continue;
		uint64_t t = due(&dstates(rt)[i]);
		if (t != UINT64_MAX && (!found || t < *when)) {
			found = true;
			*which = i;
			*when = t;
		}
	}
	return found;
}

/* The one cycle timer: fires everything due by `when` in time order (file
 * order on ties) and asks to be called again at the next event. */
static avr_cycle_count_t tick(struct avr_t *avr, avr_cycle_count_t when,
			      void *param)
{
	(void)avr;
	stim_runtime *rt = param;
	size_t i;
	uint64_t t;
	while (earliest(rt, &i, &t)) {
		if (t > when)
			return t;
		fire(rt, i);
	}
	return 0;
}

static void stime_text(const struct stime *t, char *buf, size_t n)
{
	snprintf(buf, n, "%" PRIu64 "%s", t->v, unit_name[t->unit]);
}

static int aerr(const stim_runtime *rt, const struct directive *d, size_t col,
		avrr_err *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int aerr(const stim_runtime *rt, const struct directive *d, size_t col,
		avrr_err *err, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return avrr_errf(err, "%s:%zu:%zu: %s", rt->s->file, d->line, col, msg);
}

/* Converts t to cycles at the core's clock, rounding down. */
static int to_cycles(const stim_runtime *rt, const struct directive *d,
		     const struct stime *t, uint64_t *out, avrr_err *err)
{
	u128 c = t->v;
	if (t->unit != U_C)
		c = c * unit_us[t->unit] * rt->avr->frequency / 1000000u;
	if (c > CYCLE_LIMIT) {
		char b[48];
		stime_text(t, b, sizeof b);
		return aerr(rt, d, t->col, err, "time '%s' is too large at %" PRIu32 " Hz",
			    b, rt->avr->frequency);
	}
	*out = (uint64_t)c;
	return 0;
}

/* Like to_cycles, for a period or width that must be at least one cycle. */
static int to_cycles_nonzero(const stim_runtime *rt, const struct directive *d,
			     const struct stime *t, const char *what,
			     uint64_t *out, avrr_err *err)
{
	if (to_cycles(rt, d, t, out, err))
		return -1;
	if (*out == 0) {
		char b[48];
		stime_text(t, b, sizeof b);
		return aerr(rt, d, t->col, err,
			    "%s '%s' is less than one cycle at %" PRIu32 " Hz",
			    what, b, rt->avr->frequency);
	}
	return 0;
}

/* Whether the core's ADC has a single-ended input `ch` in its mux table. */
static bool adc_has_channel(struct avr_t *avr, unsigned ch)
{
	for (avr_io_t *io = avr->io_port; io; io = io->next) {
		if (io->irq_ioctl_get != AVR_IOCTL_ADC_GETIRQ)
			continue;
		const avr_adc_t *adc = (const avr_adc_t *)io;
		for (size_t k = 0; k < sizeof adc->muxmode / sizeof *adc->muxmode; k++)
			if (adc->muxmode[k].kind == ADC_MUX_SINGLE &&
			    adc->muxmode[k].src == ch)
				return true;
	}
	return false;
}

/* An SPI master's SPI, SS pin and byte time (8 SCK periods, SCK's period
 * rounded down to whole cycles as times are).  A slave samples SCK with
 * its own clock: SCK at most fosc/4 (the datasheet's "SPI Timing
 * Characteristics": a slave's SCK period at least 4 tck). */
static int bind_spi_master(stim_runtime *rt, size_t i, avrr_err *err)
{
	const struct directive *d = &rt->s->d[i];
	struct dconst *dc = &rt->dc[i];
	struct avr_t *avr = rt->avr;
	for (avr_io_t *io = NULL; !dc->spi && (io = periph_next_io(avr, io, "spi"));)
		if (((avr_spi_t *)io)->r_spdr)
			dc->spi = (avr_spi_t *)io;
	if (!dc->spi)
		return aerr(rt, d, d->tcol, err, "this MCU has no SPI");
	unsigned ss;
	if (spi_ss_pin(avr, &dc->port, &ss))
		return aerr(rt, d, d->tcol, err,
			    "avrr has no table of this MCU's SPI pins: SS unknown");
	dc->bit = (uint8_t)ss;
	if (d->rate > avr->frequency / 4)
		return aerr(rt, d, d->rcol, err,
			    "SCK rate %" PRIu64 " Hz is faster than a slave takes at %" PRIu32
			    " Hz (at most fosc/4, %" PRIu32 " Hz)",
			    d->rate, avr->frequency, avr->frequency / 4);
	uint64_t byte = 8 * (avr->frequency / d->rate);
	if ((u128)byte * d->len > CYCLE_LIMIT)
		return aerr(rt, d, d->rcol, err, "%zu byte%s at SCK %" PRIu64 " Hz take%s too long",
			    d->len, d->len == 1 ? "" : "s", d->rate, d->len == 1 ? "s" : "");
	dc->width = byte;
	return 0;
}

/* Converts directive i's times and finds its peripheral. */
static int bind(stim_runtime *rt, size_t i, avrr_err *err)
{
	const struct directive *d = &rt->s->d[i];
	struct dconst *dc = &rt->dc[i];
	struct avr_t *avr = rt->avr;
	if (d->kind == K_ADC) {
		if (!rt->adc || !adc_has_channel(avr, d->target))
			return aerr(rt, d, d->tcol, err,
				    "this MCU has no ADC channel %u", d->target);
		rt->adc_dir[d->target] = (int32_t)i; /* the last line wins */
		if (d->src == S_SINE || d->src == S_SAW)
			return to_cycles_nonzero(rt, d, &d->when, "period",
						 &dc->when, err);
		return 0;
	}
	if (d->kind == K_UART) {
		dc->irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0' + d->target),
					UART_IRQ_INPUT);
		for (avr_io_t *io = NULL; dc->irq && (io = periph_next_io(avr, io, "uart"));)
			if (((avr_uart_t *)io)->name == '0' + d->target)
				dc->uart = (avr_uart_t *)io;
		if (!dc->irq || !dc->uart)
			return aerr(rt, d, d->tcol, err, "this MCU has no UART %u",
				    d->target);
	} else if (d->kind == K_SPIM) {
		if (bind_spi_master(rt, i, err))
			return -1;
	} else {
		dc->port = d->port;
		dc->bit = d->target;
	}
	if (d->kind != K_UART) {
		dc->irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(dc->port), dc->bit);
		if (!dc->irq)
			return aerr(rt, d, d->tcol, err, "this MCU has no port %c", dc->port);
		dc->pin = (uint32_t)(dc->port - 'A') * 8 + dc->bit;
		if ((dc->ports = ports_of(avr)))
			ports_wire(dc->ports, dc->port, dc->bit);
	}
	if (!d->periodic)
		return to_cycles(rt, d, &d->when, &dc->when, err);
	if (to_cycles_nonzero(rt, d, &d->when, "period", &dc->when, err))
		return -1;
	dc->start = dc->when;
	if (d->has_start && to_cycles(rt, d, &d->start, &dc->start, err))
		return -1;
	if (d->has_jitter) {
		if (to_cycles(rt, d, &d->jitter, &dc->jitter, err))
			return -1;
		uint64_t j = dc->jitter, p = dc->when;
		if (j && (j >= p || j >= p - j)) {
			char jb[48], pb[48];
			stime_text(&d->jitter, jb, sizeof jb);
			stime_text(&d->when, pb, sizeof pb);
			return aerr(rt, d, d->jitter.col, err,
				    "jitter '%s' must be less than half the period '%s' (%" PRIu64
				    " and %" PRIu64 " cycles at %" PRIu32 " Hz)",
				    jb, pb, dc->jitter, dc->when, avr->frequency);
		}
	}
	if (d->act == A_PULSE)
		return to_cycles_nonzero(rt, d, &d->width, "pulse width",
					 &dc->width, err);
	if (d->kind == K_SPIM) {
		/* An occurrence's bytes end, and SS goes high, before the
		 * earliest next one can begin: the bus has one master at a time. */
		u128 total = (u128)dc->width * d->len;
		if (total + 2 * (u128)dc->jitter >= dc->when) {
			char pb[48];
			stime_text(&d->when, pb, sizeof pb);
			return aerr(rt, d, d->rcol, err,
				    "%zu byte%s at SCK %" PRIu64 " Hz take%s %" PRIu64
				    " cycles: more than the period '%s' leaves (%" PRIu64
				    " cycles at %" PRIu32 " Hz, less twice the jitter)",
				    d->len, d->len == 1 ? "" : "s", d->rate,
				    d->len == 1 ? "s" : "", (uint64_t)total, pb, dc->when,
				    avr->frequency);
		}
	}
	return 0;
}

int stim_attach(const stim_script *s, struct avr_t *avr, uint64_t seed,
		stim_runtime **out, avrr_err *err)
{
	*out = NULL;
	size_t nd = s->nd;
	size_t bus_size = stim_bus_state_size(s->ndev);
	if (nd > (UINT32_MAX - PORTS * 8) / sizeof(struct dstate) ||
	    bus_size > UINT32_MAX - PORTS * 8 - nd * sizeof(struct dstate))
		return avrr_errf(err, "%s: too many directives", s->file);
	stim_runtime *rt = calloc(1, sizeof *rt);
	if (!rt)
		return avrr_errf(err, "%s: out of memory", s->file);
	rt->s = s;
	rt->avr = avr;
	rt->state_size = (uint32_t)(nd * sizeof(struct dstate) + PORTS * 8 + bus_size);
	rt->dc = calloc(nd ? nd : 1, sizeof *rt->dc);
	rt->state = calloc(1, rt->state_size);
	if (!rt->dc || !rt->state) {
		stim_detach(rt);
		return avrr_errf(err, "%s: out of memory", s->file);
	}
	rt->adc = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0);
	for (int ch = 0; ch < ADC_CHANNELS; ch++)
		rt->adc_dir[ch] = -1;
	bool any_adc = false, any_timed = false;
	for (size_t i = 0; i < nd; i++) {
		if (bind(rt, i, err)) {
			stim_detach(rt);
			return -1;
		}
		any_adc |= s->d[i].kind == K_ADC;
		any_timed |= s->d[i].kind != K_ADC;
	}
	if (s->ndev && stim_bus_attach(avr, s->dev, s->ndev, levels(rt) + PORTS * 8, s->file,
				       &rt->bus, err)) {
		stim_detach(rt);
		return -1;
	}

	struct dstate *st = dstates(rt);
	for (size_t i = 0; i < nd; i++) {
		const struct directive *d = &s->d[i];
		uint64_t x = seed ^ ((uint64_t)d->line * 0x9E3779B97F4A7C15u);
		st[i].rng = splitmix64(&x);
		if (d->kind == K_ADC)
			continue;
		st[i].active = 1;
		st[i].base = d->periodic ? rt->dc[i].start : rt->dc[i].when;
		st[i].next = jittered(rt, i, st[i].base);
		/* "Its level starts low" / "at rest low"; an SPI master's SS
		 * high, the bus idle. */
		if (d->act == A_TOGGLE || d->act == A_PULSE)
			drive(rt, i, 0);
		else if (d->kind == K_SPIM)
			drive(rt, i, 1);
	}
	if (any_adc)
		avr_irq_register_notify(rt->adc + ADC_IRQ_OUT_TRIGGER,
					adc_trigger, rt);
	if (any_timed)
		stim_rearm(rt);
	*out = rt;
	return 0;
}

void stim_rearm(stim_runtime *rt)
{
	size_t first;
	uint64_t t;
	struct avr_t *avr = rt->avr;
	stim_bus_reset(rt->bus);
	if (earliest(rt, &first, &t))
		avr_cycle_timer_register(avr, t > avr->cycle ? t - avr->cycle : 0, tick, rt);
}

void stim_detach(stim_runtime *rt)
{
	if (!rt)
		return;
	stim_bus_detach(rt->bus);
	free(rt->dc);
	free(rt->state);
	free(rt);
}

void *stim_state(stim_runtime *rt)
{
	return rt->state;
}

uint32_t stim_state_size(const stim_runtime *rt)
{
	return rt->state_size;
}
