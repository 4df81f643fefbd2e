/*
 * test_vector_enable.c — sim_vector_enable, the table `analyze races`
 * judges a competing ISR by: each vector's own enable bit, as the MCU's
 * description gives it, checked against the datasheets' register
 * summaries (ATmega328P §12.4, §16-§23; ATmega16 "Register Summary";
 * ATmega2560 §15, §17-§22), for every family of source the races docs
 * name: timers (TIMSKn/TIMSK), external and pin-change interrupts
 * (EIMSK/GICR, PCICR — the ATmega2560's PCINT1 and PCINT2 are avrr's own
 * vectors), USARTs, SPI, TWI, ADC, EEPROM, the watchdog and the analog
 * comparator.
 */
#include "tests/testlib.h"

#include "sim/sim.h"

typedef struct want {
	const char *vector, *reg;
	uint8_t mask;
} want;

static const want M328P[] = {
	{ "INT0_vect", "EIMSK", 0x01 },         { "INT1_vect", "EIMSK", 0x02 },
	{ "PCINT0_vect", "PCICR", 0x01 },       { "PCINT1_vect", "PCICR", 0x02 },
	{ "PCINT2_vect", "PCICR", 0x04 },       { "WDT_vect", "WDTCSR", 0x40 },
	{ "TIMER2_COMPA_vect", "TIMSK2", 0x02 }, { "TIMER2_COMPB_vect", "TIMSK2", 0x04 },
	{ "TIMER2_OVF_vect", "TIMSK2", 0x01 },  { "TIMER1_CAPT_vect", "TIMSK1", 0x20 },
	{ "TIMER1_COMPA_vect", "TIMSK1", 0x02 }, { "TIMER1_COMPB_vect", "TIMSK1", 0x04 },
	{ "TIMER1_OVF_vect", "TIMSK1", 0x01 },  { "TIMER0_COMPA_vect", "TIMSK0", 0x02 },
	{ "TIMER0_COMPB_vect", "TIMSK0", 0x04 }, { "TIMER0_OVF_vect", "TIMSK0", 0x01 },
	{ "SPI_STC_vect", "SPCR", 0x80 },       { "USART_RX_vect", "UCSR0B", 0x80 },
	{ "USART_UDRE_vect", "UCSR0B", 0x20 },  { "USART_TX_vect", "UCSR0B", 0x40 },
	{ "ADC_vect", "ADCSRA", 0x08 },         { "EE_READY_vect", "EECR", 0x08 },
	{ "ANALOG_COMP_vect", "ACSR", 0x08 },   { "TWI_vect", "TWCR", 0x01 },
	{ NULL, NULL, 0 },
};

static const want M16[] = {
	{ "INT0_vect", "GICR", 0x40 },          { "INT1_vect", "GICR", 0x80 },
	{ "INT2_vect", "GICR", 0x20 },          { "TIMER2_COMP_vect", "TIMSK", 0x80 },
	{ "TIMER2_OVF_vect", "TIMSK", 0x40 },   { "TIMER1_CAPT_vect", "TIMSK", 0x20 },
	{ "TIMER1_COMPA_vect", "TIMSK", 0x10 }, { "TIMER1_COMPB_vect", "TIMSK", 0x08 },
	{ "TIMER1_OVF_vect", "TIMSK", 0x04 },   { "TIMER0_COMP_vect", "TIMSK", 0x02 },
	{ "TIMER0_OVF_vect", "TIMSK", 0x01 },   { "SPI_STC_vect", "SPCR", 0x80 },
	{ "USART_RXC_vect", "UCSRB", 0x80 },    { "USART_UDRE_vect", "UCSRB", 0x20 },
	{ "USART_TXC_vect", "UCSRB", 0x40 },    { "ADC_vect", "ADCSRA", 0x08 },
	{ "EE_RDY_vect", "EECR", 0x08 },        { "ANA_COMP_vect", "ACSR", 0x08 },
	{ "TWI_vect", "TWCR", 0x01 },
	{ NULL, NULL, 0 },
};

static const want M2560[] = {
	{ "INT7_vect", "EIMSK", 0x80 },         { "PCINT0_vect", "PCICR", 0x01 },
	{ "PCINT1_vect", "PCICR", 0x02 },       { "PCINT2_vect", "PCICR", 0x04 },
	{ "TIMER5_OVF_vect", "TIMSK5", 0x01 },  { "TIMER4_COMPC_vect", "TIMSK4", 0x08 },
	{ "USART1_RX_vect", "UCSR1B", 0x80 },   { "USART3_UDRE_vect", "UCSR3B", 0x20 },
	{ "WDT_vect", "WDTCSR", 0x40 },
	{ NULL, NULL, 0 },
};

static void check(const char *elf, const want *w)
{
	firmware *fw = NULL;
	sim *s = NULL;
	avrr_err err = { "" };
	if (fw_load_file(elf, &fw, &err) || sim_open(fw, NULL, 0, &s, &err))
		fail_msg("%s: %s", elf, err.msg);
	for (; w->vector; w++) {
		int v = 1;
		while (v < 256 && (!sim_vector_name(s, (uint8_t)v) ||
				   strcmp(sim_vector_name(s, (uint8_t)v), w->vector)))
			v++;
		if (v == 256)
			fail_msg("%s: no vector %s", elf, w->vector);
		uint16_t addr = 0;
		uint8_t mask = 0;
		if (sim_vector_enable(s, (uint8_t)v, &addr, &mask))
			fail_msg("%s: %s has no enable bit", elf, w->vector);
		int reg = sim_ioreg_addr(s, w->reg);
		if (reg != addr || mask != w->mask)
			fail_msg("%s: %s is enabled by 0x%02x at 0x%x (%s), not 0x%02x in %s (0x%x)", elf,
				 w->vector, mask, addr, sim_ioreg_name(s, addr) ? sim_ioreg_name(s, addr) : "?",
				 w->mask, w->reg, reg);
	}
	/* Vector 0 is the reset: nothing enables or masks it. */
	uint16_t addr;
	uint8_t mask;
	assert_int_equal(sim_vector_enable(s, 0, &addr, &mask), -1);
	sim_close(s);
	fw_free(fw);
}

static void test_atmega328p(void **state)
{
	(void)state;
	check("tests/firmware/race_tick.elf", M328P);
}

static void test_atmega16(void **state)
{
	(void)state;
	check("traces/adcapp.elf", M16);
}

static void test_atmega2560(void **state)
{
	(void)state;
	check("tests/firmware/atmega2560.elf", M2560);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atmega328p),
		cmocka_unit_test(test_atmega16),
		cmocka_unit_test(test_atmega2560),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
