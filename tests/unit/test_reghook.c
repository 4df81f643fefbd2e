/*
 * test_reghook.c — the one way sim/ takes over a register (sim/reghook.h):
 * two fixes on one register both act, a second claim on a bit is refused
 * with both owners named.  The register is the ATmega16's SFIOR, which
 * holds the timers' prescaler resets (PSR10, PSR2: bits 0-1, claimed by
 * the timer model) and the ADC's trigger source (ADTS2:0, bits 7-5,
 * claimed by the ADC model).
 */
#include "tests/testlib.h"

#include <sim_avr.h>
#include <sim_io.h>

#include "sim/periph.h"
/* sim/'s inside: this test drives reghook.c through the sim's own avr_t and peripherals. */
#include "sim/sim_impl.h"

enum { SFIOR = 0x50, TCCR0 = 0x53, TCNT0 = 0x52, ADCSRA = 0x26, TIFR = 0x58 };

typedef struct fixture {
	firmware *fw;
	sim *s;
	reghooks *regs;
} fixture;

static int setup(void **state)
{
	static fixture f;
	avrr_err err = { "" };
	if (fw_load_file("traces/adcapp.elf", &f.fw, &err) || sim_open(f.fw, NULL, 0, &f.s, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	f.regs = periphs_ctx(f.s->periphs)->regs;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	sim_close(f->s);
	fw_free(f->fw);
	return 0;
}

/* What an observer after both fixes saw written. */
static uint8_t adts_seen;
static int adts_calls;

static void adts_write(struct avr_t *avr, uint16_t addr, uint8_t v, void *h)
{
	adts_seen = v;
	adts_calls++;
	reghook_next_write(h, avr, addr, v);
}

/* A read of addr through its whole chain, as an IN would make it. */
static uint8_t load(struct avr_t *avr, uint16_t addr)
{
	avr_io_addr_t io = AVR_DATA_TO_IO(addr);
	return avr->io[io].r.c ? avr->io[io].r.c(avr, addr, avr->io[io].r.param) : avr->data[addr];
}

static void test_two_fixes_share_a_register(void **state)
{
	fixture *f = *state;
	struct avr_t *avr = f->s->avr;
	avrr_err err = { "" };
	assert_non_null(reghook_write(f->regs, SFIOR, 0, "an observer", adts_write, NULL, &err));
	/* Timer0 at clk/64 from cycle 1000: without a prescaler reset its
	 * edges fall on multiples of 64 from reset, 7 of them in (1000,
	 * 1419]; PSR10 written at 1100, after the edges at 1024 and 1088,
	 * restarts them there: 2 + 4 by 1419, the 7th at 1420.  The ADC is
	 * on in auto-trigger mode (ADEN, ADATE) with TOV0 set; the same
	 * write selects Timer0 overflow as its trigger (ADTS 100): from free
	 * running (ADIF clear) to a set flag, a rising edge, which starts a
	 * conversion (ATmega16 "Analog to Digital Converter", Auto
	 * Triggering): ADSC reads 1. */
	avr->cycle = 1000;
	reghook_store(avr, TCCR0, 0x03);
	reghook_store(avr, ADCSRA, 0xa0);
	avr->data[TIFR] |= 0x01;
	avr->cycle = 1100;
	reghook_store(avr, SFIOR, 0x81);
	assert_int_equal(adts_calls, 1);
	assert_int_equal(adts_seen, 0x81);
	/* The timers' part: PSR10 reads 0 once done (ATmega16 §15.4). */
	assert_int_equal(avr->data[SFIOR], 0x80);
	/* The ADC's part. */
	assert_int_equal(avr->data[ADCSRA], 0xe0);
	avr->cycle = 1100 + 5 * 64 - 1;
	assert_int_equal(load(avr, TCNT0), 6);
	avr->cycle = 1100 + 5 * 64;
	assert_int_equal(load(avr, TCNT0), 7);
}

static void test_a_bit_has_one_owner(void **state)
{
	fixture *f = *state;
	avrr_err err = { "" };
	assert_null(reghook_write(f->regs, SFIOR, 0x01, "a second prescaler fix", adts_write, NULL,
				  &err));
	assert_string_equal(err.msg, "sim: SFIOR bit 0 is claimed by the timers and by a second "
			    "prescaler fix");
	assert_null(reghook_write(f->regs, SFIOR, 0x20, "a second trigger fix", adts_write, NULL,
				  &err));
	assert_string_equal(err.msg, "sim: SFIOR bit 5 is claimed by the ADC and by a second "
			    "trigger fix");
	/* Reads and writes are separate chains; a hook that only looks
	 * claims nothing and always chains. */
	assert_non_null(reghook_write(f->regs, SFIOR, 0, "an observer", adts_write, NULL, &err));
	assert_null(reghook_write(f->regs, 0x1000, 0, "nobody", adts_write, NULL, &err));
	assert_string_equal(err.msg, "sim: nobody: 0x1000 is not an I/O register address");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_fixes_share_a_register),
		cmocka_unit_test(test_a_bit_has_one_owner),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
