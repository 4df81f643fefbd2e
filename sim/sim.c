/*
 * sim.c — stepping simavr exactly, and the hooks avrr records through
 * (see sim.h for the model).
 *
 * sim_run's loop body is simavr 1.6's avr_callback_run_raw, instruction for
 * instruction, plus three cheap observations: an instruction counter, a
 * compare of the interrupt nesting depth (a RETI pops it), and — only when
 * the CPU vectors — a copy of the data space taken before the entry, so
 * that the entry hook sees the state at the interrupt point rather than
 * after the push.  Where simavr's core and the datasheet part ways, the
 * loop follows the datasheet (docs/chip.md, "The core's interrupt
 * timing"): sim.c services the interrupts itself (one instruction after
 * SEI/RETI, the response time), SLEEP asks the power model (periph_power.c)
 * whether and how deep to sleep, and a skip over ADIW/SBIW is put right.
 */
#include "sim/sim_impl.h"

#include "sim/avr_decode.h"
#include "sim/board.h"
#include "sim/periph.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sim_avr.h>
#include <sim_core.h>
#include <sim_cycle_timers.h>
#include <sim_interrupts.h>
#include <sim_io.h>
#include <avr_eeprom.h>
#include <avr_timer.h>
#include <avr_uart.h>

/* simavr logs through one process-wide function.  avrr's core never
 * prints: what matters (a crash, a stop) is reported through sim_run's
 * result, and simavr's own lines — e.g. a UART overrun per byte once a
 * replay has gone wrong — would only bury the report.  Errors without a
 * core (an unknown MCU) are reported by sim_open itself. */
static void quiet_logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
	(void)avr;
	(void)level;
	(void)fmt;
	(void)ap;
}

/* Each flash word's avr_word_transfer_kind, decoded once from the loaded
 * code; a firmware that rewrites its flash (SPM) is counted by its first
 * image. */
static int build_transfer_kinds(sim *s)
{
	const avr_t *avr = s->avr;
	uint32_t words = 1;
	while (words < (avr->flashend + 1u) / 2)
		words <<= 1;
	if (!(s->transfer_kind = calloc(words, 1)))
		return -1;
	s->transfer_words = words;
	/* Erased flash (0xffff words) after the code: one decode for all of
	 * it, rather than one a word of a flash mostly empty. */
	uint8_t erased[256];  /* compared a block at a time */
	memset(erased, 0xff, sizeof erased);
	uint32_t flash_words = (avr->flashend + 1u) / 2, used = flash_words;
	while (used >= sizeof erased / 2 &&
	       !memcmp(avr->flash + 2 * used - sizeof erased, erased, sizeof erased))
		used -= sizeof erased / 2;
	while (used && avr->flash[2 * used - 2] == 0xff && avr->flash[2 * used - 1] == 0xff)
		used--;
	memset(s->transfer_kind + used, avr_word_transfer_kind(0xffff), flash_words - used);
	for (uint32_t w = 0; w < used; w++)
		s->transfer_kind[w] = avr_word_transfer_kind((uint16_t)(avr->flash[2 * w] |
							       avr->flash[2 * w + 1] << 8));
	return 0;
}

static int is_skip(uint16_t op)
{
	return (op & 0xfc00) == 0x1000 ||          /* CPSE */
	       (op & 0xfc08) == 0xfc00 ||          /* SBRC, SBRS */
	       (op & 0xfd00) == 0x9900;            /* SBIC, SBIS */
}

/* simavr 1.6 tells a 2-word instruction by opcode & 0xfc0f, which takes
 * ADIW/SBIW with K's low four bits 12..15 for JMP/CALL: a skip over one
 * skips a word too far (upstream 4784ea5 masks with 0xfe0f).  The skips
 * followed by such a word are marked once in the transfer kinds (a skip
 * transfers nothing to count, so its kind is otherwise 0): the lookup
 * each counted instruction makes finds them at no cost to the others. */
#define SIM_KIND_SKIP_FIX 0x80

static void find_misdecoded_skips(sim *s)
{
	const avr_t *avr = s->avr;
	uint32_t words = (avr->flashend + 1u) / 2;
	for (uint32_t w = 0; w + 1 < words; w++) {
		uint16_t op = (uint16_t)(avr->flash[2 * w] | avr->flash[2 * w + 1] << 8);
		uint16_t next = (uint16_t)(avr->flash[2 * w + 2] | avr->flash[2 * w + 3] << 8);
		if (is_skip(op) && (next & 0xfe00) == 0x9600 && (next & 0xf) >= 12) {
			s->transfer_kind[w] |= SIM_KIND_SKIP_FIX;
			s->nskip_fix++;
		}
	}
}

/* After the skip at pc: simavr took it over three words where the word
 * it skipped is one; moved back to skip one (a cycle fewer). */
static __attribute__((noinline)) avr_flashaddr_t fix_skip(sim *s, avr_flashaddr_t pc,
							   avr_flashaddr_t new_pc)
{
	if (new_pc != pc + 6)
		return new_pc;
	s->avr->cycle--;
	return pc + 4;
}

/* Each flash word's load or store, for observed runs: a pointer register
 * (26 X, 28 Y, 30 Z; 0 for LDS/STS's direct address), pre-decrement,
 * displacement. */
enum { MEM_NONE, MEM_LOAD, MEM_STORE };
struct sim_memop {
	uint8_t kind, reg, predec, disp;
	uint16_t addr;
};

/* The SRAM access of the instruction at flash word w, as avr_decode reads it. */
static struct sim_memop memop_of(const avr_t *avr, uint32_t w)
{
	avr_insn in;
	uint8_t kind;
	if (avr_decode(avr->flash, avr->flashend + 1, 2 * w, &in))
		return (struct sim_memop){ 0 };
	switch (in.op) {
	case AVR_OP_LD: case AVR_OP_LDD: case AVR_OP_LDS: kind = MEM_LOAD; break;
	case AVR_OP_ST: case AVR_OP_STD: case AVR_OP_STS: kind = MEM_STORE; break;
	default: return (struct sim_memop){ 0 };
	}
	if (in.data >= 0)
		return (struct sim_memop){ kind, 0, 0, 0, (uint16_t)in.data };
	return (struct sim_memop){ kind, in.ptr == 'X' ? 26 : in.ptr == 'Y' ? 28 : 30,
				   in.ptr_mode == AVR_PTR_PREDEC, in.disp, 0 };
}

/* A vector's PENDING irq rises when its flag is raised (and falls when the
 * entry clears it). */
static void on_pending_irq(avr_irq_t *irq, uint32_t value, void *param)
{
	sim *s = param;
	const avr_int_table_t *t = &s->avr->interrupts;
	if (!value || !s->observed || !s->hooks.on_raise)
		return;
	for (int i = 0; i < t->vector_count; i++)
		if (t->vector[i]->irq + AVR_INT_IRQ_PENDING == irq) {
			s->hooks.on_raise(s->hooks.ud, t->vector[i]->vector);
			return;
		}
}

int sim_set_observed(sim *s, int on, avrr_err *err)
{
	avr_t *avr = s->avr;
	if (on && !s->memop) {
		uint32_t words = (avr->flashend + 1u) / 2;
		if (!(s->memop = calloc(s->transfer_words, sizeof *s->memop)))
			return avrr_errf(err, "out of memory");
		for (uint32_t w = 0; w < words; w++)
			s->memop[w] = memop_of(avr, w);
		for (int i = 0; i < avr->interrupts.vector_count; i++)
			avr_irq_register_notify(avr->interrupts.vector[i]->irq + AVR_INT_IRQ_PENDING,
						on_pending_irq, s);
	}
	s->observed = on;
	return 0;
}

/* The SRAM byte the instruction at pc is about to load or store, from the
 * registers now; 0 when none. */
static inline unsigned memop_access(const sim *s, uint32_t pc, sim_access *a)
{
	const avr_t *avr = s->avr;
	const struct sim_memop *m = &s->memop[(pc >> 1) & (s->transfer_words - 1)];
	if (!m->kind)
		return 0;
	uint32_t addr = m->reg ? (uint32_t)(avr->data[m->reg] | avr->data[m->reg + 1] << 8) -
				 m->predec + m->disp
			       : m->addr;
	addr &= 0xffff;
	if (addr <= avr->ioend || addr > avr->ramend)
		return 0;
	*a = (sim_access){ .addr = (uint16_t)addr, .value = avr->data[addr],
			   .write = m->kind == MEM_STORE };
	return 1;
}

/* The stock sleep callback usleep()s to keep pace with real time. */
static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
	(void)avr;
	(void)how_long;
}

/* libsimavr's table of cores (sim_core_decl.h defines it, so it is
 * declared here rather than included). */
extern avr_kind_t *avr_kind[];

/* Every core simavr has, comma-separated, each with its aliases joined by
 * '/': "..., atmega328/atmega328p, ...". */
static void core_names(char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; avr_kind[i]; i++)
		for (int k = 0; k < 4 && avr_kind[i]->names[k] && len < n; k++) {
			int w = snprintf(buf + len, n - len, "%s%s", k ? "/" : i ? ", " : "",
					 avr_kind[i]->names[k]);
			len += w > 0 ? (size_t)w : 0;
		}
}

int sim_open(const firmware *fw, const char *mcu, uint32_t frequency,
	     sim **out, avrr_err *err)
{
	*out = NULL;
	const char *name = mcu && *mcu ? mcu : fw->mcu;
	uint32_t freq = frequency ? frequency : fw->frequency;
	char names[2048];
	if (!*name) {
		core_names(names, sizeof names);
		return avrr_errf(err, "%s: the ELF names no MCU (no .mmcu section, as simavr's "
				 "AVR_MCU macro writes, nor avr-libc's deviceinfo note); pass --board "
				 "NAME or --mcu NAME, one of: %s", fw->path, names);
	}
	avr_global_logger_set(quiet_logger);
	avr_t *avr = avr_make_mcu_by_name(name);
	if (!avr) {
		core_names(names, sizeof names);
		return avrr_errf(err, "unknown MCU '%s': simavr has no core by that name; it has %s",
				 name, names);
	}
	/* Simulating another chip than the one the code was built for runs
	 * the wrong vectors and registers: refuse rather than mislead. */
	if (fw->mcu[0] && strcasecmp(name, fw->mcu)) {
		free(avr);
		return avrr_errf(err, "%s: built for the %s (its %s), not the %s asked for",
				 fw->path, fw->mcu, fw->mcu_from, name);
	}
	if (!freq) {
		free(avr);
		board_names(names, sizeof names);
		return avrr_errf(err, "%s: the ELF names no clock (no .mmcu section; an Arduino "
				 "build never does); pass --freq HZ or --board NAME (%s)", fw->path,
				 names);
	}
	if (avr_init(avr) != 0) {
		free(avr);
		return avrr_errf(err, "simavr could not initialise MCU '%s'", name);
	}
	sim *s = calloc(1, sizeof *s);
	if (!s) {
		avr_terminate(avr);
		free(avr);
		return avrr_errf(err, "out of memory");
	}
	s->avr = avr;
	s->fw = fw;
	snprintf(s->mcu, sizeof s->mcu, "%s", name);
	s->frequency = freq;
	s->names = ioregs_lookup(name);
	s->hot.data_size = (uint32_t)avr->ramend + 1;

	uint32_t flash = (uint32_t)avr->flashend + 1;
	if (fw->flash_size > flash) {
		sim_close(s);  /* frees avr: report from the copy */
		return avrr_errf(err, "%s: %u bytes of code do not fit the %s's %u bytes of flash",
				 fw->path, fw->flash_size, name, flash);
	}
	if (fw->data_end > s->hot.data_size) {
		uint32_t ramend = s->hot.data_size - 1;
		sim_close(s);
		return avrr_errf(err, "%s: its static data (.data, .bss, .noinit) ends at 0x%x, past "
				 "the %s's RAMEND 0x%x", fw->path, fw->data_end, name, ramend);
	}
	avr->frequency = freq;
	/* Without .mmcu voltages the ADC would scale against simavr's
	 * fallback of 3.3 V and warn on every conversion: assume 5 V. */
	avr->vcc = fw->vcc ? fw->vcc : 5000;
	avr->avcc = fw->avcc ? fw->avcc : avr->vcc;
	avr->aref = fw->aref ? fw->aref : avr->vcc;
	avr_loadcode(avr, fw->flash, fw->flash_size, 0);
	avr->codeend = fw->code_end;
	if (fw->eeprom && fw->eeprom_size) {
		avr_eeprom_desc_t d = { .ee = fw->eeprom, .offset = 0, .size = fw->eeprom_size };
		avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
	}
	avr->sleep = no_sleep;
	for (char u = '0'; u <= '3'; u++) {
		uint32_t flags = 0; /* no stdout echo, no usleep while polling */
		avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS(u), &flags);
	}
	s->stock_run = avr->run;
	s->count_transfers = 1;
	/* "The interrupt execution response for all the enabled AVR
	 * interrupts is four clock cycles minimum", five where the PC is
	 * three bytes (the ATmega2560's): pushing it takes a cycle more. */
	s->irq_response = avr->address_size == 3 ? 5 : 4;
	/* avrr's own models: the timers, the watchdog, the SPI, the ADC and
	 * the EEPROM first, since they take simavr's own callbacks off their
	 * registers and find them only in the slot; all of them before any
	 * watch (sim_watch_*), which then sees what the chip does. */
	if (!(s->periphs = periphs_open(avr, s->mcu, err)) || timers_attach(s->periphs, err) ||
	    wdt_attach(s->periphs, err) || spi_attach(s->periphs, err) ||
	    adc_attach(s->periphs, err) || eeprom_attach(s->periphs, err) ||
	    uarts_attach(s->periphs, err) || twi_attach(s->periphs, err) ||
	    ports_attach(s->periphs, err) || extint_attach(s->periphs, err) ||
	    power_attach(s->periphs, err) || unmodelled_attach(s->periphs, err)) {
		sim_close(s);
		return -1;
	}
	s->pre = malloc(s->hot.data_size);
	if (!s->pre || build_transfer_kinds(s)) {
		sim_close(s);
		return avrr_errf(err, "out of memory");
	}
	find_misdecoded_skips(s);
	*out = s;
	return 0;
}

void sim_close(sim *s)
{
	if (!s)
		return;
	if (s->avr) {
		avr_terminate(s->avr);
		free(s->avr);
	}
	stim_detach(s->stim);
	periphs_close(s->periphs);
	free(s->pre);
	free(s->transfer_kind);
	free(s->memop);
	free(s);
}

/* ---- I/O hooks ------------------------------------------------------ */

/* The recorder's and replayer's watches: hooks that only look (they claim
 * no bit), installed after sim_open's fixes, so that they see what the
 * chip does.  on_read is given what the hardware gives and returns what
 * the CPU sees. */
static uint8_t watch_read(avr_t *avr, uint16_t addr, void *h)
{
	sim *s = reghook_ud(h);
	uint8_t v = reghook_next_read(h, avr, addr);
	if (!s->hooks.on_read)
		return v;
	return s->hooks.on_read(s->hooks.ud, addr, v);
}

/* A PINx register: SBI/CBI on it write a bit; their read is simavr's way
 * of doing it, and no input reaches the program (periph_port.c). */
static uint8_t watch_pin_read(avr_t *avr, uint16_t addr, void *h)
{
	sim *s = reghook_ud(h);
	uint8_t v = reghook_next_read(h, avr, addr);
	if (!s->hooks.on_read || reghook_bit_op(avr, addr))
		return v;
	return s->hooks.on_read(s->hooks.ud, addr, v);
}

/* on_write is told before the write goes on. */
static void watch_write(avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	sim *s = reghook_ud(h);
	if (s->hooks.on_write)
		s->hooks.on_write(s->hooks.ud, addr, v);
	reghook_next_write(h, avr, addr, v);
}

static int watchable(const sim *s, uint16_t addr, avrr_err *err)
{
	if (addr < 32 || addr >= 32 + MAX_IOs || addr > s->avr->ioend)
		return avrr_errf(err, "0x%x is not an I/O register address of the %s", addr, s->mcu);
	return 0;
}

int sim_watch_read(sim *s, uint16_t addr, avrr_err *err)
{
	if (watchable(s, addr, err))
		return -1;
	reghooks *regs = periphs_ctx(s->periphs)->regs;
	reghook_read_fn fn = ports_is_pin(s->periphs, addr) ? watch_pin_read : watch_read;
	if (reghook_has_read(regs, addr, fn))
		return 0;
	return reghook_read(regs, addr, 0, "the watches", fn, s, err) ? 0 : -1;
}

int sim_watch_write(sim *s, uint16_t addr, avrr_err *err)
{
	if (watchable(s, addr, err))
		return -1;
	reghooks *regs = periphs_ctx(s->periphs)->regs;
	if (reghook_has_write(regs, addr, watch_write))
		return 0;
	return reghook_write(regs, addr, 0, "the watches", watch_write, s, err) ? 0 : -1;
}

/* ---- stepping ------------------------------------------------------- */

/* SREG as a byte from simavr's one-byte-per-flag sreg[] (each 0 or 1):
 * the multiply moves flag i to bit 56 + i without carries. */
static uint8_t sreg_byte(const avr_t *avr)
{
	uint64_t flags;
	memcpy(&flags, avr->sreg, sizeof flags);
	return (uint8_t)((flags * 0x0102040810204080ull) >> 56);
}

/* simavr 1.6 sets interrupt_state to -2 when an instruction sets I, so
 * two more instructions run before a pending interrupt is entered; the
 * datasheet: "the instruction following SEI will be executed before any
 * pending interrupts", and "when the AVR exits from an interrupt, it will
 * always return to the main program and execute one more instruction"
 * (upstream 4963a90 sets -1).  Called where the interrupts are serviced,
 * before simavr's count-down. */
static inline void one_instruction_shadow(avr_t *avr)
{
	if (avr->interrupt_state == -2)
		avr->interrupt_state = -1;
}

/* simavr keeps its pending-interrupt queue's accessors private to
 * sim_interrupts.c (fifo_declare.h's DEFINE_FIFO); these do the same on
 * the same ring buffer. */
#define PENDING_MASK (avr_int_pending_fifo_size - 1)

static int pending_count(const avr_int_pending_t *f)
{
	return (f->write + avr_int_pending_fifo_size - f->read) & PENDING_MASK;
}

static avr_int_vector_t *pending_at(const avr_int_pending_t *f, int i)
{
	return f->buffer[(f->read + i) & PENDING_MASK];
}

/* Takes entry `i` off the pending queue the way avr_service_interrupts
 * does: the entry at the front moves into its slot. */
static void unqueue(avr_t *avr, int i)
{
	avr_int_table_p t = &avr->interrupts;
	avr_int_pending_t *f = &t->pending;
	f->buffer[(f->read + i) & PENDING_MASK] = f->buffer[f->read];
	f->read = (f->read + 1) & PENDING_MASK;
	avr_raise_irq(t->irq + AVR_INT_IRQ_PENDING, avr_has_pending_interrupts(avr));
}

/* avr_service_interrupts without the entry: counts the shadow down and
 * drops the highest-priority pending interrupt if it was masked or cleared
 * meanwhile, leaving an enabled one pending for the caller to decide. */
static int service_without_entry(avr_t *avr)
{
	if (!avr->sreg[S_I] || !avr->interrupt_state)
		return 0;
	one_instruction_shadow(avr);
	if (avr->interrupt_state < 0) {
		if (++avr->interrupt_state == 0)
			avr->interrupt_state = avr_has_pending_interrupts(avr);
		return 0;
	}
	avr_int_table_p t = &avr->interrupts;
	int cnt = pending_count(&t->pending), min = 0xff, mini = 0;
	if (!cnt) {
		avr->interrupt_state = 0;
		return 0;
	}
	for (int i = 0; i < cnt; i++) {
		avr_int_vector_t *v = pending_at(&t->pending, i);
		if (v->vector < min) {
			min = v->vector;
			mini = i;
		}
	}
	avr_int_vector_t *v = pending_at(&t->pending, mini);
	if (!avr_regbit_get(avr, v->enable) || !v->pending) {
		unqueue(avr, mini);
		v->pending = 0;
		avr->interrupt_state = avr_has_pending_interrupts(avr);
		return 1;  /* simavr enters nothing at this boundary */
	}
	return 0;
}

/* The highest-priority pending interrupt, if it is enabled and still
 * pending (what avr_service_interrupts would enter), else NULL. */
static avr_int_vector_t *next_pending(avr_t *avr)
{
	avr_int_table_p t = &avr->interrupts;
	int cnt = pending_count(&t->pending);
	avr_int_vector_t *min = NULL;
	for (int i = 0; i < cnt; i++) {
		avr_int_vector_t *v = pending_at(&t->pending, i);
		if (!min || v->vector < min->vector)
			min = v;
	}
	return min && min->pending && avr_regbit_get(avr, min->enable) ? min : NULL;
}

/* Enters v's vector as the chip does: off the pending queue, the PC
 * pushed, I cleared, the flag cleared; the caller then spends the
 * response time (s->irq_response). */
static void enter(sim *s, avr_int_vector_t *v)
{
	avr_t *avr = s->avr;
	avr_int_table_p t = &avr->interrupts;
	int cnt = pending_count(&t->pending);
	for (int i = 0; i < cnt; i++)
		if (pending_at(&t->pending, i) == v) {
			unqueue(avr, i);
			break;
		}
	_avr_push_addr(avr, avr->pc);
	avr_sreg_set(avr, S_I, 0);
	avr->pc = v->vector * avr->vector_size;
	avr_raise_irq(v->irq + AVR_INT_IRQ_RUNNING, 1);
	avr_raise_irq(t->irq + AVR_INT_IRQ_RUNNING, v->vector);
	if (t->running_ptr < sizeof t->running / sizeof *t->running)
		t->running[t->running_ptr++] = v;
	avr_clear_interrupt(avr, v);
}

/* avr_service_interrupts, with the queue handled here (simavr 1.6 moves
 * the wrong entry when the one serviced is not at the queue's front:
 * upstream d5de885) and the chip's timing (one_instruction_shadow,
 * enter); an entry is told to on_irq with the state from before the
 * push. */
static void service(sim *s)
{
	avr_t *avr = s->avr;
	if (!avr->sreg[S_I] || !avr->interrupt_state)
		return;
	int shadow = avr->interrupt_state < 0;  /* counted down, no entry */
	if (service_without_entry(avr) || shadow)
		return;
	avr_int_vector_t *v = next_pending(avr);
	if (!v)
		return;
	if (!s->hooks.on_irq) {
		enter(s, v);
		avr->cycle += s->irq_response;
		return;
	}
	memcpy(s->pre, avr->data, s->hot.data_size);
	s->pre[R_SREG] = sreg_byte(avr); /* data[SREG] is stale; sreg[] is live */
	sim_irq_point p = {
		.vector = v->vector,
		.ra = avr->pc,
		.sp = _avr_sp_get(avr),
		.icount = s->hot.icount,
		.cycle = avr->cycle,
		.timer = sim_timer_cycles(s),
		.transfers = s->hot.transfers,
		.data = s->pre,
		.data_size = s->hot.data_size,
	};
	enter(s, v);
	s->hooks.on_irq(s->hooks.ud, &p);
	avr->cycle += s->irq_response;
}

/* The tap's runs with the bytes in order: runs of consecutive addresses
 * (wide), else byte by byte. */
static void plan_in_order(sim_tap *t)
{
	t->nruns = 0;
	t->sreg_shift = 0;
	t->sreg_mask = 0;
	t->in_order = 1;
	for (unsigned i = 0; i < t->naddr && i < 8; i++) {
		uint16_t a = t->addr[i];
		struct sim_tap_run *last = t->nruns ? &t->run[t->nruns - 1] : NULL;
		t->pos[i] = (uint8_t)(8 * i);
		if (a == R_SREG) {
			t->sreg_shift = 8 * i;
			t->sreg_mask = 0xffull << t->sreg_shift;
			continue;
		}
		if (t->wide && last && last->addr + __builtin_popcountll(last->mask) / 8 == a)
			last->mask = last->mask << 8 | 0xff;
		else
			t->run[t->nruns++] = (struct sim_tap_run){ .mask = 0xff, .addr = a,
								   .shift = (uint8_t)(8 * i) };
	}
}

static uint64_t rotl_bytes(uint64_t v, unsigned bytes)
{
	unsigned s = 8 * bytes;
	return v << s | v >> ((64 - s) & 63);
}

/* Whether address j of tap t is still to be read by a load (SREG is not
 * in data, and takes a byte of its own). */
static int loadable(const sim_tap *t, unsigned placed, unsigned j)
{
	return !(placed >> j & 1) && t->addr[j] != R_SREG;
}

/* Fewer runs where bytes lie a few addresses apart: each load, from the
 * lowest address not yet read, takes every byte within 8 addresses of it,
 * masked and rotated to bytes of the word no other run uses; SREG takes a
 * free byte.  Returns 0, or -1 when no rotation fits (the runs in order
 * do then). */
static int plan_packed(sim_tap *t)
{
	uint64_t used = 0;
	unsigned placed = 0, n = t->naddr;
	t->nruns = 0;
	for (;;) {
		unsigned i = n;
		for (unsigned j = 0; j < n; j++)
			if (loadable(t, placed, j) && (i == n || t->addr[j] < t->addr[i]))
				i = j;
		if (i == n)
			break;
		uint16_t base = t->addr[i];
		uint64_t m = 0;
		for (unsigned j = 0; j < n; j++)
			if (loadable(t, placed, j) && (unsigned)(t->addr[j] - base) < 8u)
				m |= 0xffull << 8 * (t->addr[j] - base);
		unsigned rot = 0;
		while (rot < 8 && (rotl_bytes(m, rot) & used))
			rot++;
		if (rot == 8)
			return -1;
		used |= rotl_bytes(m, rot);
		for (unsigned j = 0; j < n; j++)
			if (loadable(t, placed, j) && (unsigned)(t->addr[j] - base) < 8u) {
				placed |= 1u << j;
				t->pos[j] = (uint8_t)(8 * ((t->addr[j] - base + rot) % 8));
			}
		t->run[t->nruns++] = (struct sim_tap_run){ .mask = m, .addr = base,
							   .shift = (uint8_t)(8 * rot) };
	}
	t->sreg_shift = 0;
	t->sreg_mask = 0;
	for (unsigned i = 0; i < n; i++)
		if (t->addr[i] == R_SREG) {
			unsigned b = 0;
			while (!t->sreg_mask && b < 8 && (used >> 8 * b & 0xff))
				b++;
			if (b == 8)
				return -1;
			if (!t->sreg_mask) {
				t->sreg_shift = 8 * b;
				t->sreg_mask = 0xffull << t->sreg_shift;
				used |= t->sreg_mask;
			}
			t->pos[i] = (uint8_t)t->sreg_shift;
		}
	t->nback = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned rot = (8 * i - t->pos[i]) & 63, k = 0;
		while (k < t->nback && t->back[k].rot != rot)
			k++;
		if (k == t->nback)
			t->back[t->nback++] = (struct sim_tap_back){ .mask = 0, .rot = rot };
		t->back[k].mask |= 0xffull << t->pos[i];
	}
	t->in_order = 0;
	return 0;
}

void sim_tap_plan(sim_tap *t, uint32_t data_size)
{
	t->wide = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	for (unsigned i = 0; i < t->naddr && i < 8; i++)
		t->wide &= t->addr[i] + 8u <= data_size;
	if (!t->wide || t->naddr > 8 || plan_packed(t))
		plan_in_order(t);
	/* At most two runs, the usual case, are read without a branch: a
	 * missing second one reads nothing (mask 0). */
	t->two = t->wide && t->nruns <= 2;
	for (unsigned r = t->nruns; r < 2; r++)
		t->run[r] = (struct sim_tap_run){ .mask = 0, .addr = 0, .shift = 0 };
}

void sim_set_tap(sim *s, sim_tap *t)
{
	s->tap = t;
	if (t)
		sim_tap_plan(t, s->hot.data_size);
}

/* Run r of tap t, in its place in the word. */
static inline uint64_t tap_run(const sim_tap *t, const uint8_t *data, unsigned r)
{
	return sim_tap_run_word(&t->run[r], data);
}

/* A boundary into the tap (see sim.h).  It runs at nearly every
 * instruction, so the usual two runs are read without a loop or a branch. */
static inline __attribute__((always_inline)) void tap_sample(sim *s, sim_tap *t)
{
	const avr_t *avr = s->avr;
	const uint8_t *data = avr->data;
	uint64_t w = ((uint64_t)sreg_byte(avr) << t->sreg_shift) & t->sreg_mask;
	if (t->two) {
		w |= tap_run(t, data, 0) | tap_run(t, data, 1);
	} else if (t->wide) {
		for (unsigned r = 0; r < t->nruns; r++)
			w |= tap_run(t, data, r);
	} else {
		for (unsigned r = 0; r < t->nruns; r++)
			w |= (uint64_t)data[t->run[r].addr] << t->run[r].shift;
	}
	unsigned n = t->count;
#ifdef __SSE2__
	/* Streaming stores: the queue was last read on another processor,
	 * and plain stores would fetch each of its cache lines from there
	 * first (perf: a fifth of the oracle's simulation thread). */
	_mm_stream_si32((int *)&t->pc[n], (int)avr->pc);
	_mm_stream_si64((long long *)&t->word[n], (long long)w);
#else
	t->pc[n] = avr->pc;
	t->word[n] = w;
#endif
	if ((t->count = n + 1) == t->cap) {
#ifdef __SSE2__
		_mm_sfence();  /* the stores are seen before the queue is handed over */
#endif
		t->full(t->ud);
	}
}

/* Calls on_boundary if the PC's and the cycle counter's bits are those
 * awaited (see sim.h).  Where the counter's are not, no boundary can be
 * until the counter next has them: the gate before the call skips them
 * with one comparison (a cycle before boundary_from wraps, and opens it). */
static inline __attribute__((always_inline)) void boundary_check(sim *s, int dropped)
{
	const avr_t *avr = s->avr;
	uint64_t off = (s->boundary_cycle_match - (avr->cycle - s->reset_cycle)) &
		       s->boundary_cycle_mask;  /* cycles to the next that has its bits */
	if (off) {
		s->boundary_from = avr->cycle;
		s->boundary_gap = off;
		return;
	}
	if (s->hooks.on_boundary && ((avr->pc >> 1) & s->boundary_mask) == s->boundary_match) {
		s->dropped = dropped;
		s->hooks.on_boundary(s->hooks.ud);
	}
}

/* The end of a step in replay mode (see sim.h). */
static inline __attribute__((always_inline)) void replay_boundary(sim *s)
{
	avr_t *avr = s->avr;
	if (!avr->sreg[S_I])
		return;  /* nothing to service, nothing to accept */
	int state = avr->state;
	if (state != cpu_Running && state != cpu_Sleeping)
		return;
	int could_accept = state == cpu_Running && avr->interrupt_state >= 0;
	/* Kept in a register: only on_boundary (sim_next_vector) reads it, so
	 * it is stored only on the way there, not at every boundary. */
	int dropped = avr->interrupt_state ? service_without_entry(avr) : 0;
	if (!could_accept)
		return;
	sim_tap *t = s->tap;
	if (t && s->hot.icount < t->until)
		tap_sample(s, t);
	else if (avr->cycle - s->boundary_from >= s->boundary_gap)
		boundary_check(s, dropped);
}

void sim_set_replay(sim *s, int on)
{
	s->replay = on;
}

int sim_enter_vector(sim *s, uint8_t vector)
{
	avr_int_table_p t = &s->avr->interrupts;
	avr_int_vector_t *v = NULL;
	for (int i = 0; i < t->vector_count && !v; i++)
		if (t->vector[i]->vector == vector)
			v = t->vector[i];
	if (!v)
		return SIM_NO_VECTOR;
	if (t->running_ptr == sizeof t->running / sizeof *t->running)
		return SIM_NESTED_FULL;
	enter(s, v);
	s->avr->cycle += s->irq_response;
	return 0;
}

int sim_next_vector(sim *s)
{
	avr_t *avr = s->avr;
	if (s->dropped || !avr->sreg[S_I] || avr->interrupt_state <= 0)
		return -1;
	const avr_int_vector_t *v = next_pending(avr);
	return v ? v->vector : -1;
}

const uint8_t *sim_live_data(sim *s)
{
	s->avr->data[R_SREG] = sreg_byte(s->avr); /* what an IN would read */
	return s->avr->data;
}

const uint8_t *sim_eeprom(sim *s, uint32_t *size)
{
	avr_eeprom_desc_t d = { .ee = NULL, .offset = 0, .size = s->avr->e2end + 1u };
	*size = 0;
	if (!s->avr->e2end || avr_ioctl(s->avr, AVR_IOCTL_EEPROM_GET, &d) || !d.ee)
		return NULL;
	*size = d.size;
	return d.ee;
}

/* Whether anything could end a sleep: an interrupt pending or enabled
 * (the watchdog's, in interrupt mode, among them), or the watchdog's
 * system reset armed. */
static int can_wake(const sim *s)
{
	avr_t *avr = s->avr;
	if (avr_has_pending_interrupts(avr))
		return 1;
	for (int i = 0; i < avr->interrupts.vector_count; i++)
		if (avr_regbit_get(avr, avr->interrupts.vector[i]->enable))
			return 1;
	return wdt_resets_armed(s->periphs);
}

/* The watchdog (periph_wdt.c) resets the chip as simavr's did: it swaps
 * avr->run for a function that calls avr_reset, and avr_reset puts it
 * back.  Our loop never calls avr->run, so it does so here, once.  The
 * reset cancels every cycle timer, the stimuli's too, which are scheduled
 * again; the counters a device-side tracer keeps (sim_transfers,
 * sim_timer_cycles) restart, and each peripheral model resets what it
 * keeps of the old run (periphs_reset). */
static __attribute__((noinline)) void watchdog_reset(sim *s)
{
	avr_t *avr = s->avr;
	avr->run(avr);
	avr->run = s->stock_run;
	s->hot.transfers = 0;
	s->reset_cycle = avr->cycle;
	s->boundary_gap = 0;  /* the cycle counter restarts */
	s->observe_depth = 0;
	periphs_reset(s->periphs);
	if (s->stim)
		stim_rearm(s->stim);
	if (s->hooks.on_reset)
		s->hooks.on_reset(s->hooks.ud);
}

/* avr_cycle_timer_process, with its common case inline: the first timer
 * not yet due.  Then simavr sets the cycles it may run before it (at most
 * run_cycle_limit, at least 1) and returns how far off it is, as this does;
 * due timers and an empty pool go to simavr.  A call per instruction cost
 * more host instructions than the check (callgrind: 24 a call, most of
 * them the call's own). */
static inline avr_cycle_count_t timers_process(avr_t *avr)
{
	const avr_cycle_timer_slot_t *t = avr->cycle_timers.timer;
	if (__builtin_expect(!t || t->when <= avr->cycle, 0))
		return avr_cycle_timer_process(avr);
	avr_cycle_count_t sleep = t->when - avr->cycle;
	avr_cycle_count_t run = sleep < avr->run_cycle_limit ? sleep : avr->run_cycle_limit;
	avr->run_cycle_count = run ? run : 1;
	return sleep;
}

/* Each flash word's transfer kind and the index mask, as a run's loop
 * keeps them in registers across the calls into simavr (a load each fewer
 * an instruction: the table never changes while a run goes). */
typedef struct transfer_table {
	const uint8_t *kind;
	uint32_t mask;
} transfer_table;

/* The part of a turn where the CPU sleeps, begins to (SLEEP: with SE
 * clear it does nothing) or wakes; `sleep` is the cycles to the next
 * cycle timer.  1 when the CPU sleeps for good: the turn ends there. */
static __attribute__((noinline)) int sleep_turn(sim *s, int was_sleeping,
						avr_cycle_count_t sleep)
{
	avr_t *avr = s->avr;
	if (avr->state == cpu_Sleeping && !was_sleeping) {
		if (!power_sleep(s->periphs)) {
			avr->state = cpu_Running;
			return 0;
		}
		sleep = timers_process(avr);  /* the stopped clocks moved the cycle timers */
	}
	if (avr->state == cpu_Sleeping) {
		/* With I clear no interrupt ends the sleep, but an armed
		 * watchdog still resets the chip. */
		if (avr->sreg[S_I] ? !can_wake(s) : !wdt_resets_armed(s->periphs)) {
			s->asleep_forever = avr->sreg[S_I];
			avr->state = cpu_Done;
			return 1;
		}
		if (!was_sleeping && s->hooks.on_sleep)
			s->hooks.on_sleep(s->hooks.ud);
		/* To the next cycle timer's cycle itself, where simavr's loop
		 * goes one past it: a timer flag raised while the CPU sleeps
		 * is raised at its own edge, as on the chip. */
		avr->cycle += sleep ? sleep : 1;
	} else if (avr->state == cpu_Running) {
		power_wake(s->periphs);
		if (s->hooks.on_wake)
			s->hooks.on_wake(s->hooks.ud);
	}
	return 0;
}

/* One turn of simavr's run loop (avr_callback_run_raw) with observations;
 * `replay` is s->replay and `observed` s->observed, constants where step
 * is inlined; `counting` is COUNTING_ON where s->count_transfers is known
 * set, else COUNTING_ASK (tested at each instruction); `tt` is s's table. */
enum { COUNTING_ASK, COUNTING_ON };
static inline __attribute__((always_inline)) void step(sim *s, int replay, int observed,
						       int counting, transfer_table tt)
{
	avr_t *avr = s->avr;
	if (__builtin_expect(avr->run != s->stock_run, 0)) {
		watchdog_reset(s);
		return;
	}
	int was_sleeping = avr->state == cpu_Sleeping;
	avr_flashaddr_t new_pc = avr->pc;
	if (avr->state == cpu_Running) {
		uint8_t depth = avr->interrupts.running_ptr;
		avr_flashaddr_t pc = avr->pc;
		sim_access acc;
		unsigned nacc = 0;
		avr_cycle_count_t cycle = avr->cycle;
		if (observed)
			nacc = memop_access(s, pc, &acc);
		new_pc = avr_run_one(avr);
		s->hot.icount++;
		if (counting == COUNTING_ON || s->count_transfers) {
			/* Most words transfer nothing: their counter is left alone. */
			uint8_t kind = tt.kind[(pc >> 1) & tt.mask];
			if (kind) {
				if (__builtin_expect(kind & SIM_KIND_SKIP_FIX, 0))
					new_pc = fix_skip(s, pc, new_pc);
				s->hot.transfers += (kind >> (new_pc > pc)) & 1;
			}
		}
		if (observed && s->hooks.on_insn) {
			if (nacc && acc.write)
				acc.value = avr->data[acc.addr];
			s->hooks.on_insn(s->hooks.ud, pc, (uint32_t)(avr->cycle - cycle), &acc, nacc);
		}
		if (avr->interrupts.running_ptr < depth && s->hooks.on_reti)
			s->hooks.on_reti(s->hooks.ud,
					 avr->interrupts.running[avr->interrupts.running_ptr]->vector);
	}
	avr_cycle_count_t sleep = timers_process(avr);
	avr->pc = new_pc;
	if (__builtin_expect(avr->state == cpu_Sleeping || was_sleeping, 0) &&
	    sleep_turn(s, was_sleeping, sleep))
		return;
	if (replay) {
		replay_boundary(s);
		return;
	}
	if (avr->interrupt_state && (avr->state == cpu_Running || avr->state == cpu_Sleeping))
		service(s);
}

static sim_stop stop_reason(const sim *s)
{
	return s->avr->state == cpu_Crashed ? SIM_STOP_CRASHED
	       : s->asleep_forever ? SIM_STOP_ASLEEP : SIM_STOP_DONE;
}

/* sim_run's loop, for replay mode or not, observed or not: a copy each,
 * so that none tests the mode at every instruction.  `stepping` 0 where
 * s->hooks.on_step is known NULL (a recording's run: no test of it at each
 * instruction), else 1; `counting` as step's. */
static inline __attribute__((always_inline)) sim_stop run_loop(sim *s, uint64_t ilim,
							       uint64_t clim,
							       volatile const int *flag, int replay,
							       int observed, int stepping,
							       int counting)
{
	const transfer_table tt = { s->transfer_kind, s->transfer_words - 1 };
	for (;;) {
		/* s->avr afresh at each turn, as step loads it: one copy, not two
		 * kept across the calls (a register fewer, no spill in step). */
		const avr_t *avr = s->avr;
		if (s->hot.icount >= ilim || avr->cycle >= clim)
			return SIM_STOP_LIMIT;
		if (*flag)
			return SIM_STOP_REQUEST;
		if (avr->state != cpu_Running && avr->state != cpu_Sleeping)
			return stop_reason(s);
		step(s, replay, observed, counting, tt);
		if (stepping && s->hooks.on_step && s->hooks.on_step(s->hooks.ud))
			return SIM_STOP_REQUEST;
	}
}

/* sim_run's loop in replay mode under a step filter (sim_filter_steps).
 * The last instruction step is kept in locals, and in s only where the
 * hook or the caller may look.  `watching` is whether data bytes are
 * watched (sim_filter_data): a copy without the loop over them for the
 * runs that watch none (goto, continue without watchpoints), whose every
 * step the filter's own work is a good part of. */
static inline __attribute__((always_inline)) sim_stop run_filtered(sim *s, uint64_t ilim,
								   uint64_t clim,
								   volatile const int *flag,
								   int observed, int watching)
{
	sim_step last = s->step_last;
	const transfer_table tt = { s->transfer_kind, s->transfer_words - 1 };
	const uint8_t *words = s->step_words;
	const uint32_t nwords = s->step_nwords;
	sim_stop why;
	for (;;) {
		const avr_t *avr = s->avr;
		if (s->hot.icount >= ilim || avr->cycle >= clim) {
			why = SIM_STOP_LIMIT;
			break;
		}
		if (*flag) {
			why = SIM_STOP_REQUEST;
			break;
		}
		if (avr->state != cpu_Running && avr->state != cpu_Sleeping) {
			why = stop_reason(s);
			break;
		}
		uint32_t pc = avr->pc, word = pc >> 1;
		uint64_t icount = s->hot.icount;
		step(s, 1, observed, COUNTING_ASK, tt);
		if (s->hot.icount == icount)
			continue;  /* asleep */
		avr = s->avr;
		unsigned depth = avr->interrupts.running_ptr, before = last.depth;
		int changed = 0;
		for (unsigned i = 0; watching && i < s->step_ndata; i++) {
			uint16_t a = s->step_data[i];
			uint8_t v = a == R_SREG ? sreg_byte(avr) : avr->data[a];
			changed |= v != s->step_data_old[i];
			s->step_data_old[i] = v;
		}
		last = (sim_step){ s->hot.icount, avr->pc, depth };
		if (changed || (word < nwords && words[word]) || depth != before) {
			s->step_last = last;
			s->step_told = (sim_step){ icount, pc, before };
			if (s->hooks.on_step(s->hooks.ud)) {
				why = SIM_STOP_REQUEST;
				break;
			}
		}
	}
	s->step_last = last;
	return why;
}

/* The watched bytes' values now. */
static void read_filter_data(sim *s)
{
	for (unsigned i = 0; i < s->step_ndata; i++)
		s->step_data_old[i] = s->step_data[i] == R_SREG ? sreg_byte(s->avr)
							       : s->avr->data[s->step_data[i]];
}

void sim_filter_data(sim *s, const uint16_t *addr, unsigned n)
{
	s->step_ndata = 0;
	for (unsigned i = 0; n <= SIM_FILTER_DATA_MAX && i < n; i++)
		if (addr[i] < s->hot.data_size)
			s->step_data[s->step_ndata++] = addr[i];
	read_filter_data(s);
}

void sim_filter_steps(sim *s, const uint8_t *words, uint32_t nwords, sim_step *last)
{
	if (words) {
		s->step_last = *last;
		read_filter_data(s);
	}
	else if (s->step_words)
		*last = s->step_last;
	s->step_words = words;
	s->step_nwords = words ? nwords : 0;
}

sim_step sim_told_step(const sim *s)
{
	return s->step_told;
}

/* A recording's loop and a replay's, each compiled on its own: inlined
 * into sim_run with the others, each paid for their registers (callgrind:
 * 2 to 3 host instructions an instruction more). */
static __attribute__((noinline)) sim_stop run_recording(sim *s, uint64_t ilim, uint64_t clim,
							volatile const int *flag)
{
	return run_loop(s, ilim, clim, flag, 0, 0, 0, COUNTING_ON);
}

static __attribute__((noinline)) sim_stop run_replaying(sim *s, uint64_t ilim, uint64_t clim,
							volatile const int *flag)
{
	return run_loop(s, ilim, clim, flag, 1, 0, 1, COUNTING_ASK);
}

/* The step filter's four loops, in a function of their own: inlined into
 * sim_run, their size cost the other loops some of their inlining (callgrind:
 * 2 host instructions an instruction more for record and replay). */
static __attribute__((noinline)) sim_stop run_filtered_any(sim *s, uint64_t ilim, uint64_t clim,
							   volatile const int *flag)
{
	if (s->step_ndata)
		return s->observed ? run_filtered(s, ilim, clim, flag, 1, 1)
				   : run_filtered(s, ilim, clim, flag, 0, 1);
	return s->observed ? run_filtered(s, ilim, clim, flag, 1, 0)
			   : run_filtered(s, ilim, clim, flag, 0, 0);
}

sim_stop sim_run(sim *s, uint64_t icount_limit, uint64_t cycle_limit, volatile int *stop)
{
	uint64_t ilim = icount_limit ? icount_limit : UINT64_MAX;
	uint64_t clim = cycle_limit ? cycle_limit : UINT64_MAX;
	static const int never = 0;
	volatile const int *flag = stop ? stop : &never;
	if (s->step_words && s->replay && s->hooks.on_step)
		return run_filtered_any(s, ilim, clim, flag);
	if (s->observed)
		return s->replay ? run_loop(s, ilim, clim, flag, 1, 1, 1, COUNTING_ASK)
				 : run_loop(s, ilim, clim, flag, 0, 1, 1, COUNTING_ASK);
	if (s->replay)
		return run_replaying(s, ilim, clim, flag);
	/* A recording's loop: no step hook, transfers counted (callgrind: 7
	 * host instructions an instruction fewer than the general loop). */
	if (!s->hooks.on_step && s->count_transfers)
		return run_recording(s, ilim, clim, flag);
	return run_loop(s, ilim, clim, flag, 0, 0, 1, COUNTING_ASK);
}

sim_stop sim_run_plain(sim *s, uint64_t cycle_limit)
{
	avr_t *avr = s->avr;
	while (avr->cycle < cycle_limit) {
		int st = avr_run(avr);
		if (st != cpu_Running && st != cpu_Sleeping)
			return stop_reason(s);
	}
	return SIM_STOP_LIMIT;
}

static void on_running_irq(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	sim *s = param;
	/* The global RUNNING irq fires on entry (before simavr pushes the
	 * vector on its nesting stack) and on RETI (after it pops it): a
	 * depth below the last one seen is a return, anything else an entry. */
	uint8_t depth = s->avr->interrupts.running_ptr;
	if (depth < s->observe_depth) {
		s->observe_depth = depth;
		return;
	}
	s->observe_depth = depth + 1;
	s->observe_fn(s->observe_ud, s->avr->cycle, (uint8_t)value);
}

int sim_observe_vectors(sim *s, void (*fn)(void *ud, uint64_t cycle, uint8_t vector),
			void *ud, avrr_err *err)
{
	if (s->observe_fn)
		return avrr_errf(err, "vectors are already observed");
	s->observe_fn = fn;
	s->observe_ud = ud;
	s->observe_depth = s->avr->interrupts.running_ptr;
	avr_irq_register_notify(avr_get_interrupt_irq(s->avr, AVR_INT_ANY) + AVR_INT_IRQ_RUNNING,
				on_running_irq, s);
	return 0;
}

int sim_attach_stimuli(sim *s, const stim_script *script, uint64_t seed, avrr_err *err)
{
	if (s->stim)
		return avrr_errf(err, "stimuli are already attached");
	return stim_attach(script, s->avr, seed, &s->stim, err);
}

unsigned sim_irq_depth(const sim *s)
{
	return s->avr->interrupts.running_ptr;
}

uint8_t sim_running_vector(const sim *s)
{
	const avr_int_table_t *t = &s->avr->interrupts;
	return t->running_ptr ? t->running[t->running_ptr - 1]->vector : 0;
}

int sim_sleeping(const sim *s)
{
	return s->avr->state == cpu_Sleeping;
}

uint64_t sim_cycle(const sim *s)
{
	return s->avr->cycle;
}

const char *sim_mcu(const sim *s)
{
	return s->mcu;
}

uint32_t sim_frequency(const sim *s)
{
	return s->frequency;
}

const firmware *sim_firmware(const sim *s)
{
	return s->fw;
}

const mcu_names *sim_names(const sim *s)
{
	return s->names;
}

void sim_set_hooks(sim *s, const sim_hooks *h)
{
	s->hooks = h ? *h : (sim_hooks){ 0 };
}

void sim_set_step_hook(sim *s, int (*on_step)(void *ud))
{
	s->hooks.on_step = on_step;
}

void sim_set_boundary(sim *s, uint32_t pc_mask, uint32_t pc_match, uint64_t cycle_mask,
		      uint64_t cycle_match)
{
	s->boundary_mask = pc_mask;
	s->boundary_match = pc_match;
	s->boundary_cycle_mask = cycle_mask;
	s->boundary_cycle_match = cycle_match;
	s->boundary_gap = 0;  /* new bits: boundary_check looks afresh */
}

/* A skip simavr misdecodes is found by the same lookup that counts: it
 * stays on for a program that has one. */
void sim_count_transfers(sim *s, int on)
{
	s->count_transfers = on || s->nskip_fix;
}

void sim_check_modes(sim *s, void (*warn)(void *ud, const char *text), void *ud)
{
	periphs_check(s->periphs, warn, ud);
}

int sim_rules_check(const char *rule, const char *also, const char *what, avrr_err *err)
{
	if (rule && (!strcmp(rule, SIM_INTERRUPT_RULE) || (also && !strcmp(rule, also))))
		return 0;
	return avrr_errf(err, "%s: recorded under the simulation rules '%s', and this avrr simulates "
			 "'%s': it would not replay as it ran; record it again",
			 what, rule ? rule : "?", SIM_INTERRUPT_RULE);
}

uint32_t sim_stacked_pc(const sim *s)
{
	const avr_t *avr = s->avr;
	uint32_t sp = (uint32_t)(avr->data[R_SPL] | avr->data[R_SPH] << 8), word = 0;
	/* The push stores the low byte first, at SP, then moves down: the
	 * highest byte ends at SP + 1. */
	for (unsigned i = 1; i <= avr->address_size && sp + i < s->hot.data_size; i++)
		word = word << 8 | avr->data[sp + i];
	return word * 2;
}

uint64_t sim_timer_cycles(const sim *s)
{
	return s->avr->cycle - s->reset_cycle;
}

uint16_t sim_sp(const sim *s)
{
	return _avr_sp_get(s->avr);
}

int sim_interrupts_enabled(const sim *s)
{
	return s->avr->sreg[S_I] != 0;
}

uint32_t sim_pc(const sim *s)
{
	return s->avr->pc;
}

uint16_t sim_sram_start(const sim *s)
{
	/* simavr's ioend is the last I/O address; 1.6's ATtiny13 leaves it 0 */
	unsigned ioend = s->avr->ioend;
	return ioend >= 0x5f && ioend + 1u < s->hot.data_size ? (uint16_t)(ioend + 1u) : 0x60;
}

void sim_flash_layout(const sim *s, uint32_t *flash_size, uint32_t *vectors_end)
{
	unsigned vectors = 0;
	for (unsigned i = 0; s->names && i < s->names->nvectors; i++)
		if (s->names->vectors[i].addr + 1u > vectors)
			vectors = s->names->vectors[i].addr + 1u;
	*flash_size = s->avr->flashend + 1u;
	*vectors_end = vectors * s->avr->vector_size;
}

int sim_ioreg_addr(const sim *s, const char *name)
{
	return ioregs_addr(s->names, name);
}

const char *sim_ioreg_name(const sim *s, uint16_t addr)
{
	return ioregs_name(s->names, addr);
}

const char *sim_vector_name(const sim *s, uint8_t vector)
{
	return ioregs_vector_name(s->names, vector);
}

int sim_vector_enable(const sim *s, uint8_t vector, uint16_t *addr, uint8_t *mask)
{
	const avr_t *avr = s->avr;
	for (int i = 0; i < avr->interrupts.vector_count; i++) {
		const avr_int_vector_t *v = avr->interrupts.vector[i];
		if (v->vector != vector || !v->enable.reg || !v->enable.mask)
			continue;
		*addr = (uint16_t)v->enable.reg;
		*mask = (uint8_t)(v->enable.mask << v->enable.bit);
		return 0;
	}
	return -1;
}
