/*
 * test_conformance_uart.c — the USARTs (sim/periph_uart.c) against the
 * datasheets: each firmware of tests/chip/uart_*.c runs on its MCU and
 * clock, a listener on simavr's UART_IRQ_OUTPUT notes each byte as its
 * last stop bit goes out, the stimuli send what the receiver gets, and
 * every number checked is worked out here from the datasheet, never
 * taken from a run.  Sections are the ATmega328P datasheet's (7810D) §20
 * "USART0"; the ATmega2560's (2549Q) §22 and the ATmega16's (2466T)
 * "USART" say the same.
 *
 * The arithmetic.  A bit is (UBRR + 1) · 16 cycles (· 8 with U2X, Table
 * 20-1); a frame is 1 start bit, 5 to 9 data bits, a parity bit if UPM1
 * is set and 1 or 2 stop bits (§20.4).  A byte written to UDR while the
 * shift register is idle moves into it at once ("the Transmitter will
 * load the data into the Transmit Shift Register when the Shift Register
 * is empty", §20.11.1), so UDRE is set again within a bit time of the
 * write; its frame starts at the transmitter's next bit clock tick,
 * within a bit time of the write (the datasheet does not align that clock
 * to anything the program sees: checks allow [t, t + bit)).  A byte that
 * waits in UDR moves in as the last stop bit goes out, its frame back to
 * back with the one before (§20.6.1), so it ends exactly a frame after
 * that one; TXC rises when a frame ends with UDR empty (§20.6.3).  Where
 * the CPU sleeps, a flag's raise lands on its own cycle; where it polls,
 * on the first instruction boundary at or after it (SLACK cycles at
 * most).  A write's cycle is the storing instruction's start.
 */
#include "tests/testlib.h"

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_io.h>
#include <sim_irq.h>

#include "sim/periph.h"
#include "tests/chip/probe.h"
/* sim/'s inside: this test drives simavr's UART IRQ and cycle timers, and sets the clocks. */
#include "sim/sim_impl.h"

#define M328 "atmega328p"
#define M2560 "atmega2560"
#define M16 "atmega16"
#define MHZ16 16000000u
#define MHZ8 8000000u

#define setup test_scratch_setup
#define teardown test_scratch_teardown
typedef test_scratch scratch;

enum { SLACK = 4, WAKE = 8, LINE_MAX = 16 };

typedef unsigned long long ull;

/* Cycles a bit and a frame of `bits` bits at UBRR ubrr (U2X: u2x). */
static uint64_t bit_of(unsigned ubrr, int u2x)
{
	return (uint64_t)(ubrr + 1) * (u2x ? 8 : 16);
}

/* ---- the line: what goes out on TxD ---------------------------------- */

typedef struct line {
	sim *s;
	unsigned n;
	uint64_t cycle[LINE_MAX];
	uint16_t byte[LINE_MAX];
} line;

static void line_on_output(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	line *l = param;
	if (l->n < LINE_MAX) {
		l->cycle[l->n] = sim_cycle(l->s);
		l->byte[l->n++] = (uint16_t)value;
	}
}

static void line_attach(line *l, probe *p, char uart)
{
	*l = (line){ .s = p->s };
	avr_irq_t *out = avr_io_getirq(p->s->avr, AVR_IOCTL_UART_GETIRQ(uart), UART_IRQ_OUTPUT);
	assert_non_null(out);
	avr_irq_register_notify(out, line_on_output, l);
}

/* The bytes out, as "41 42". */
static void ck_line(check *c, probe *p, const line *l, const char *want)
{
	char got[128] = "";
	size_t len = 0;
	for (unsigned i = 0; i < l->n; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, i ? " %02x" : "%02x", l->byte[i]);
	ck(c, !strcmp(got, want), "%s: bytes out \"%s\", want \"%s\"", p->elf, got, want);
}

/* ---- runs ------------------------------------------------------------ */

static probe *open_fw(const char *name, const char *mcu, uint32_t hz)
{
	char path[128];
	snprintf(path, sizeof path, "tests/chip/%s.elf", name);
	return probe_open(path, mcu, hz);
}

static void ck_report(check *c, probe *p, const char *reg, const char *want)
{
	probe_series *s = probe_writes(p, reg);
	char got[256] = "";
	size_t len = 0;
	for (unsigned i = 0; i < s->n && len + 4 < sizeof got; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, i ? " %02x" : "%02x", s->value[i]);
	ck(c, !strcmp(got, want), "%s: %s read back \"%s\", want \"%s\"", p->elf, reg, got, want);
}

/* t in [lo, lo + width), told as what. */
static void ck_within(check *c, probe *p, const char *what, uint64_t t, uint64_t lo, uint64_t width)
{
	ck(c, t >= lo && t < lo + width, "%s: %s at cycle %llu, want [%llu, %llu)", p->elf, what,
	   (ull)t, (ull)lo, (ull)(lo + width));
}

/* |a - b - d| <= SLACK: two events d apart, each seen where the CPU polls. */
static void ck_apart(check *c, probe *p, const char *what, uint64_t a, uint64_t b, uint64_t d)
{
	long long off = (long long)a - (long long)b - (long long)d;
	ck(c, off >= -SLACK && off <= SLACK, "%s: %s %lld cycles apart, want %llu (± %d)", p->elf,
	   what, (long long)a - (long long)b, (ull)d, SLACK);
}

static uint64_t nth(check *c, probe *p, const probe_series *s, unsigned i, const char *what)
{
	ck(c, i < s->n, "%s: no %s #%u (%u of them)", p->elf, what, i + 1, s->n);
	return i < s->n ? s->cycle[i] : 0;
}

/* ---- the transmitter --------------------------------------------------- */

/* 9600 baud: a bit 1664 cycles, a frame 16,640.  'A' into the idle shift
 * register: UDRE0 back at once (within a bit time); 'B' waits until A's
 * stop bit is out (UDRE0's raise a frame after A started); TXC0 a frame
 * later, back to back; 'C' with the CPU asleep: TXC0 at its frame's end,
 * the handler entered then. */
static void test_transmitter_double_buffered(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t bit = bit_of(103, 0), frame = 10 * bit;
	probe *p = open_fw("uart_tx", M328, MHZ16);
	line l;
	line_attach(&l, p, '0');
	probe_watch(p, "UDR0", "GPIOR0", "GPIOR1", "GPIOR2", NULL);
	probe_run(p, 60000);
	probe_series *w = probe_writes(p, "UDR0");
	assert_int_equal(w->n, 3);
	/* TXEN0 clear at reset; UCSR0A's UDRE0, UCSR0C's 8N1. */
	ck_report(&c, p, "GPIOR0", "20 00 06");
	ck_report(&c, p, "GPIOR1", "20 00 20 60 60 20");
	ck_report(&c, p, "GPIOR2", "20");
	ck_line(&c, p, &l, "41 42 43");
	probe_series *g1 = probe_writes(p, "GPIOR1");
	ck(&c, g1->n && g1->cycle[0] < w->cycle[0] + bit, "%s: the poll saw UDRE0 at %llu, want "
	   "within a bit time of the write at %llu", p->elf, g1->n ? (ull)g1->cycle[0] : 0ull,
	   (ull)w->cycle[0]);
	probe_series *udre = probe_raises(p, "USART_UDRE_vect");
	probe_series *txc = probe_raises(p, "USART_TX_vect");
	ck(&c, udre->n == 3, "%s: %u UDRE0 raises, want 3", p->elf, udre->n);
	ck(&c, txc->n == 2, "%s: %u TXC0 raises, want 2", p->elf, txc->n);
	uint64_t u0 = nth(&c, p, udre, 0, "UDRE0 raise"), u1 = nth(&c, p, udre, 1, "UDRE0 raise");
	uint64_t u2 = nth(&c, p, udre, 2, "UDRE0 raise");
	uint64_t t0 = nth(&c, p, txc, 0, "TXC0 raise"), t1 = nth(&c, p, txc, 1, "TXC0 raise");
	ck_within(&c, p, "UDRE0 after 'A'", u0, w->cycle[0], bit);
	ck_within(&c, p, "UDRE0 after 'B' (A's stop bit out)", u1, w->cycle[0] + frame,
		  bit + SLACK);
	ck_apart(&c, p, "B's TXC0 and its UDRE0", t0, u1, frame);
	ck_within(&c, p, "UDRE0 after 'C'", u2, w->cycle[2], bit);
	ck_within(&c, p, "C's TXC0 (asleep)", t1, w->cycle[2] + frame, bit);
	/* Each byte out as its stop bit ends: A as B moves in, B and C at
	 * their TXC0. */
	uint64_t at[3] = { u1, t0, t1 };
	for (unsigned i = 0; i < 3 && i < l.n; i++)
		ck(&c, l.cycle[i] == at[i], "%s: byte %u out at %llu, want %llu", p->elf, i + 1,
		   (ull)l.cycle[i], (ull)at[i]);
	probe_series *e = probe_entries(p, "USART_TX_vect");
	ck(&c, e->n == 1, "%s: %u TX complete entries, want 1", p->elf, e->n);
	if (e->n)
		ck_within(&c, p, "the TX complete entry", e->cycle[0], t1, WAKE);
	probe_close(p);
	ck_done(&c);
}

/* TXEN0 cleared and set again while 'A' goes out: 'B' follows it back to
 * back; 'C', written with the transmitter off and idle, waits in UDR0
 * and starts at the TXEN0 write. */
static void test_reenable_sends_both(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t bit = bit_of(103, 0), frame = 10 * bit;
	probe *p = open_fw("uart_reenable", M328, MHZ16);
	line l;
	line_attach(&l, p, '0');
	probe_watch(p, "UDR0", "UCSR0B", "GPIOR0", "GPIOR1", NULL);
	probe_run(p, 90000);
	probe_series *w = probe_writes(p, "UDR0");
	probe_series *b = probe_writes(p, "UCSR0B");
	assert_int_equal(w->n, 3);
	assert_int_equal(b->n, 5);
	ck_line(&c, p, &l, "41 42 43");
	ck_report(&c, p, "GPIOR0", "01 02 03");
	ck_report(&c, p, "GPIOR1", "40 20");
	if (l.n == 3) {
		ck_within(&c, p, "'A' out", l.cycle[0], w->cycle[0] + frame, bit + SLACK);
		ck_apart(&c, p, "'A' and 'B' out", l.cycle[1], l.cycle[0], frame);
		ck_within(&c, p, "'C' out (from TXEN0 set)", l.cycle[2], b->cycle[4] + frame,
			  bit + SLACK);
	}
	probe_close(p);
	ck_done(&c);
}

/* UDRIE0 set while UDRE0 is: entries while UDRE0 stays set, the second
 * before a bit time has passed; then at 'a''s and 'b''s stop bits (CPU
 * asleep: exact); TXC0 once, a frame after 'b''s end. */
static void test_udre_interrupt_is_a_level(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t bit = bit_of(16, 0), frame = 10 * bit;
	probe *p = open_fw("uart_udre", M328, MHZ16);
	line l;
	line_attach(&l, p, '0');
	probe_watch(p, "UDR0", "UCSR0B", "GPIOR0", "GPIOR1", NULL);
	probe_run(p, 20000);
	probe_series *w = probe_writes(p, "UDR0");
	probe_series *b = probe_writes(p, "UCSR0B");
	assert_int_equal(w->n, 3);
	assert_int_equal(b->n, 2);
	ck_report(&c, p, "GPIOR0", "00 01 02 03");
	ck_report(&c, p, "GPIOR1", "20");
	ck_line(&c, p, &l, "61 62 63");
	probe_series *e = probe_entries(p, "USART_UDRE_vect");
	ck(&c, e->n == 4, "%s: %u UDRE entries, want 4", p->elf, e->n);
	uint64_t e0 = nth(&c, p, e, 0, "UDRE entry"), e1 = nth(&c, p, e, 1, "UDRE entry");
	uint64_t e2 = nth(&c, p, e, 2, "UDRE entry"), e3 = nth(&c, p, e, 3, "UDRE entry");
	ck_within(&c, p, "the first UDRE entry (UDRIE0 set)", e0, b->cycle[0] + 1, SLACK);
	ck_within(&c, p, "the second UDRE entry ('a' in the shift register)", e1, w->cycle[0],
		  bit);
	if (l.n == 3) {
		uint64_t a_end = l.cycle[0], b_end = l.cycle[1], c_end = l.cycle[2];
		ck_within(&c, p, "'a' out", a_end, w->cycle[0] + frame, bit);
		ck(&c, b_end == a_end + frame, "%s: 'b' out at %llu, want %llu", p->elf,
		   (ull)b_end, (ull)(a_end + frame));
		ck(&c, c_end == b_end + frame, "%s: 'c' out at %llu, want %llu", p->elf,
		   (ull)c_end, (ull)(b_end + frame));
		ck_within(&c, p, "the third UDRE entry", e2, a_end, WAKE);
		ck_within(&c, p, "the fourth UDRE entry", e3, b_end, WAKE);
		probe_series *txc = probe_raises(p, "USART_TX_vect");
		ck(&c, txc->n == 1 && txc->cycle[0] == c_end, "%s: %u TXC0 raises (first at %llu), "
		   "want 1 at %llu", p->elf, txc->n, txc->n ? (ull)txc->cycle[0] : 0ull, (ull)c_end);
	}
	ck(&c, probe_entries(p, "USART_TX_vect")->n == 1, "%s: %u TX complete entries, want 1",
	   p->elf, probe_entries(p, "USART_TX_vect")->n);
	probe_close(p);
	ck_done(&c);
}

/* ---- the receiver ------------------------------------------------------ */

static void test_receiver_buffer_and_errors(void **state)
{
	(void)state;
	check c = { .len = 0 };
	probe *p = open_fw("uart_rx", M328, MHZ16);
	probe_watch(p, "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, "uart 0 at 10000 \"ABCD\"\n"
			 "uart 0 at 40000 \"EFG\"\n"
			 "uart 0 at 70000 bad stop \"H\"\n"
			 "uart 0 at 100000 bad parity \"I\"\n"
			 "uart 0 at 103000 \"J\"\n"
			 "uart 0 at 130000 \"KL\"\n");
	probe_run(p, 160000);
	/* ABCD: C lost, DOR0 with D; EFG: none lost; H: FE0; I: UPE0, J
	 * clean; KL flushed by RXEN0's clear. */
	ck_report(&c, p, "GPIOR0", "a0 a0 a8 20 a0 a0 a0 20 b0 20 a4 a0 20 20 20");
	ck_report(&c, p, "GPIOR1", "41 42 44 45 46 47 48 49 4a 00");
	/* RXC0 rises with each burst's first byte and stays set while bytes
	 * remain: five raises, each where its byte's stop bit came. */
	static const uint64_t at[5] = { 10000, 40000, 70000, 100000, 130000 };
	probe_series *r = probe_raises(p, "USART_RX_vect");
	ck(&c, r->n == 5, "%s: %u RXC0 raises, want 5", p->elf, r->n);
	for (unsigned i = 0; i < 5 && i < r->n; i++)
		ck_within(&c, p, "RXC0", r->cycle[i], at[i], SLACK);
	probe_close(p);
	ck_done(&c);
}

/* ---- clocks ------------------------------------------------------------ */

/* Stops and starts USART0's clock at given cycles, as PRUSART0 does. */
typedef struct clocker {
	sim *s;
	const uint64_t *at;
	unsigned n, next;
} clocker;

static avr_cycle_count_t clocker_fire(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr;
	(void)when;
	clocker *k = param;
	periph_clocks cl = *periphs_clocks(k->s->periphs);
	cl.stopped ^= 1u << PR_USART0;
	periphs_set_clocks(k->s->periphs, &cl);
	k->next++;
	return k->next < k->n ? k->at[k->next] : 0;
}

/* The clock stopped from 3000 to 23,000: 'x''s frame freezes and ends
 * 20,000 cycles late; a frame that arrives meanwhile, and one whose start
 * bit came before the restart, are lost; one after is received. */
static void test_stopped_clock_freezes(void **state)
{
	(void)state;
	check c = { .len = 0 };
	const uint64_t bit = bit_of(103, 0), frame = 10 * bit, stop = 3000, run = 23000;
	probe *p = open_fw("uart_clock", M328, MHZ16);
	line l;
	line_attach(&l, p, '0');
	probe_watch(p, "UDR0", "GPIOR0", "GPIOR1", NULL);
	/* "2" at 24,000: its start bit 9.5 bits (15,808 cycles) before. */
	probe_stimuli(p, "uart 0 at 10000 \"1\"\nuart 0 at 24000 \"2\"\nuart 0 at 45000 \"3\"\n");
	static const uint64_t at[2] = { 3000, 23000 };
	clocker k = { .s = p->s, .at = at, .n = 2 };
	avr_cycle_timer_register(p->s->avr, at[0], clocker_fire, &k);
	probe_run(p, 70000);
	probe_series *w = probe_writes(p, "UDR0");
	assert_int_equal(w->n, 1);
	assert_true(w->cycle[0] < stop);
	ck_line(&c, p, &l, "78");
	if (l.n)
		ck_within(&c, p, "'x' out", l.cycle[0], w->cycle[0] + frame + (run - stop), bit);
	probe_series *txc = probe_raises(p, "USART_TX_vect");
	ck(&c, txc->n == 1 && l.n && txc->cycle[0] == l.cycle[0], "%s: %u TXC0 raises, want 1 "
	   "with the byte out", p->elf, txc->n);
	ck_report(&c, p, "GPIOR0", "33");
	ck_report(&c, p, "GPIOR1", "01");
	/* RXC0 first rises with "3" (its entry raises the level again). */
	probe_series *r = probe_raises(p, "USART_RX_vect");
	ck(&c, r->n && r->cycle[0] == 45000, "%s: RXC0 first raised at %llu, want 45000", p->elf,
	   r->n ? (ull)r->cycle[0] : 0ull);
	const char *warn = probe_warnings(p);
	ck(&c, !strcmp(warn, "usart0: a frame came on RxD0 while the USART0's clock was stopped "
		       "(a sleep mode that stops clk_I/O, or PRUSART0): lost, as on the chip\n"),
	   "%s: warnings:\n%s", p->elf, warn);
	probe_close(p);
	ck_done(&c);
}

/* ---- the ATmega2560 and the ATmega16 ------------------------------------ */

static void test_atmega2560_usart1_to_3(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* USART1 8N1 at UBRR 16; USART2 7E1 at UBRR 8 with U2X; USART3 8N2
	 * at UBRR 25. */
	const uint64_t bit[3] = { bit_of(16, 0), bit_of(8, 1), bit_of(25, 0) };
	const uint64_t frame[3] = { 10 * bit[0], 10 * bit[1], 11 * bit[2] };
	static const char *const udr[3] = { "UDR1", "UDR2", "UDR3" };
	static const char *const txv[3] = { "USART1_TX_vect", "USART2_TX_vect", "USART3_TX_vect" };
	static const char *const want[3] = { "11 12", "21 22", "31 32" };
	probe *p = open_fw("uart_m2560", M2560, MHZ16);
	line l[3];
	for (unsigned i = 0; i < 3; i++)
		line_attach(&l[i], p, (char)('1' + i));
	probe_watch(p, "UDR1", "UDR2", "UDR3", "GPIOR0", "GPIOR1", NULL);
	probe_stimuli(p, "uart 1 at 20000 0x41\nuart 2 at 20000 0x42\nuart 3 at 20000 0x43\n");
	probe_run(p, 40000);
	for (unsigned i = 0; i < 3; i++) {
		probe_series *w = probe_writes(p, udr[i]);
		ck(&c, w->n == 2, "%s: %u writes of %s, want 2", p->elf, w->n, udr[i]);
		ck_line(&c, p, &l[i], want[i]);
		if (w->n != 2 || l[i].n != 2)
			continue;
		ck_within(&c, p, "the first byte out", l[i].cycle[0], w->cycle[0] + frame[i],
			  bit[i] + SLACK);
		ck_apart(&c, p, "the two bytes out", l[i].cycle[1], l[i].cycle[0], frame[i]);
		probe_series *t = probe_raises(p, txv[i]);
		ck(&c, t->n == 1 && t->cycle[0] == l[i].cycle[1], "%s: %u raises of %s, want 1 "
		   "at the second byte's end", p->elf, t->n, txv[i]);
	}
	ck_report(&c, p, "GPIOR0", "41 42 43");
	ck_report(&c, p, "GPIOR1", "60 62 60");
	probe_close(p);
	ck_done(&c);
}

static void test_atmega16_shared_ucsrc(void **state)
{
	(void)state;
	check c = { .len = 0 };
	/* 38400 baud at 8 MHz (UBRR 12), 8E2: 12 bits. */
	const uint64_t bit = bit_of(12, 0), frame = 12 * bit;
	probe *p = open_fw("uart_m16", M16, MHZ8);
	line l;
	line_attach(&l, p, '0');
	probe_watch(p, "UDR", "PORTC", NULL);
	probe_stimuli(p, "uart 0 at 40000 0x3c\n");
	probe_run(p, 60000);
	/* UBRRH, UCSRC at reset (URSEL reads 1); UCSRB; the pair after the
	 * writes; UBRRH alone; TXC|UDRE; the byte received. */
	ck_report(&c, p, "PORTC", "00 86 00 00 ae 00 60 3c");
	ck_line(&c, p, &l, "55 aa");
	probe_series *w = probe_writes(p, "UDR");
	assert_int_equal(w->n, 2);
	if (l.n == 2) {
		ck_within(&c, p, "0x55 out", l.cycle[0], w->cycle[0] + frame, bit + SLACK);
		ck_apart(&c, p, "0x55 and 0xaa out", l.cycle[1], l.cycle[0], frame);
		probe_series *t = probe_raises(p, "USART_TXC_vect");
		ck(&c, t->n == 1 && t->cycle[0] == l.cycle[1], "%s: %u TXC raises, want 1 at "
		   "0xaa's end", p->elf, t->n);
	}
	probe_series *r = probe_raises(p, "USART_RXC_vect");
	ck(&c, r->n == 1, "%s: %u RXC raises, want 1", p->elf, r->n);
	if (r->n)
		ck_within(&c, p, "RXC", r->cycle[0], 40000, SLACK);
	probe_close(p);
	ck_done(&c);
}

/* ---- what is not modelled, and replay ----------------------------------- */

static void test_warnings(void **state)
{
	(void)state;
	probe *p = open_fw("uart_warn", M328, MHZ16);
	probe_stimuli(p, "uart 0 at 20000 \"ABCD\"\n");
	probe_run(p, 40000);
	const char *warn = probe_warnings(p);
	assert_string_equal(warn,
			    "usart0: UCSR0C selects synchronous mode (UMSEL0), which is not "
			    "simulated: XCK0 is not driven nor read, and avrr times frames as "
			    "asynchronous ones, a (UBRR+1)·16-cycle bit where the chip's master "
			    "takes 2·(UBRR0+1) cycles\n"
			    "usart0: UCSR0B/UCSR0C select a reserved frame format (UCSZ0 4, UPM0 0): "
			    "a reserved character size is taken as 8 data bits, UPM 01 as no parity\n"
			    "usart0: UCSR0A sets MPCM0 (multi-processor communication mode), which is "
			    "not simulated: the chip's receiver ignores frames that are not "
			    "addresses; avrr receives every frame\n"
			    "usart0: UDR0 written while UDRE0 was clear: the chip ignores the byte, "
			    "as avrr does\n"
			    "usart0: UDR0 written with the transmitter off (TXEN0 0): the byte waits "
			    "in the transmit buffer, UDRE0 clear, until TXEN0 is set (the datasheet "
			    "loads the shift register only while the transmitter is enabled)\n"
			    "usart0: the baud rate or frame format changed during a frame (UBRR0, "
			    "U2X0, UCSR0C, UCSZ02): the frame kept the rate and format it began "
			    "with\n"
			    "usart0: UDR0 was read after a frame's start bit while the frame before "
			    "it waited in the shift register: the chip loses the waiting frame "
			    "(DOR0), avrr received it\n");
	probe_run(p, 50000);
	assert_string_equal(probe_warnings(p), "");  /* each said once */
	probe_close(p);
}

/* uart_udre recorded and replayed: the four UDRE entries and the TX
 * complete one are injected where they were taken, and the replay is
 * exact. */
static void test_replays_exactly(void **state)
{
	scratch *s = *state;
	char path[256];
	test_record(s, path, sizeof path, "uart_udre.db", "tests/chip/uart_udre.elf "
		    "--mcu atmega328p --freq 16000000 --cycles 20000");
	test_assert_replay_exact(s, path, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transmitter_double_buffered),
		cmocka_unit_test(test_reenable_sends_both),
		cmocka_unit_test(test_udre_interrupt_is_a_level),
		cmocka_unit_test(test_receiver_buffer_and_errors),
		cmocka_unit_test(test_stopped_clock_freezes),
		cmocka_unit_test(test_atmega2560_usart1_to_3),
		cmocka_unit_test(test_atmega16_shared_ucsrc),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test_setup_teardown(test_replays_exactly, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
