/* freqsel.c — register-use counts and rankings for frequency-based
 * selection of fingerprint input components (see freqsel.h). */
#include "fingerprint/freqsel.h"

#include <string.h>

bool freqsel_counts_insn(const avr_insn *insn)
{
	if (!insn)
		return false;
	switch (insn->op) {
	case AVR_OP_ADD: case AVR_OP_ADC: case AVR_OP_ADIW: case AVR_OP_SUB:
	case AVR_OP_SUBI: case AVR_OP_SBC: case AVR_OP_SBCI: case AVR_OP_SBIW:
	case AVR_OP_AND: case AVR_OP_ANDI: case AVR_OP_OR: case AVR_OP_ORI:
	case AVR_OP_EOR: case AVR_OP_COM: case AVR_OP_NEG: case AVR_OP_INC:
	case AVR_OP_DEC: case AVR_OP_MOV: case AVR_OP_MOVW: case AVR_OP_LDI:
	case AVR_OP_LD: case AVR_OP_LDD: case AVR_OP_LDS: case AVR_OP_LPM:
	case AVR_OP_IN: case AVR_OP_SBI: case AVR_OP_CBI: case AVR_OP_LSR:
	case AVR_OP_ROR: case AVR_OP_ASR: case AVR_OP_SWAP:
		return true;
	default:
		return false;
	}
}

void freqsel_add(freqsel_counts *c, const avr_insn *insn)
{
	if (!c || !freqsel_counts_insn(insn))
		return;
	c->counted++;
	/* For the listed instructions the implicit registers are exactly
	 * plain lpm's r0 and Z, which the rules count. */
	uint32_t regs = avr_insn_all_regs(insn);
	for (int r = 0; r < 32; r++)
		if (regs & (UINT32_C(1) << r))
			c->gp[r]++;
	int io = avr_insn_io(insn);
	if (io >= 0 && io < 256)
		c->io[io]++;
}

int freqsel_count(const uint8_t *code, uint32_t size, freqsel_counts *out)
{
	if (!out || (!code && size > 0))
		return -1;
	memset(out, 0, sizeof *out);
	avr_insn insn;
	for (uint32_t a = 0; a + 1 < size; a += 2u * insn.words) {
		if (avr_decode(code, size, a, &insn) != 0)
			break;
		out->insns++;
		freqsel_add(out, &insn);
	}
	return 0;
}

/* Inserts index i into order[0..n) kept sorted by count descending; equal
 * counts keep insertion (ascending index) order. */
static void insert_ranked(uint16_t *order, int n, uint16_t i,
			  const uint32_t *count)
{
	int j = n;
	while (j > 0 && count[order[j - 1]] < count[i]) {
		order[j] = order[j - 1];
		j--;
	}
	order[j] = i;
}

int freqsel_rank_gp(const freqsel_counts *c, uint8_t *regs, int max)
{
	if (!c || !regs || max <= 0)
		return 0;
	uint16_t order[32] = { 0 };
	int n = 0;
	for (uint16_t r = 0; r < 32; r++)
		if (c->gp[r])
			insert_ranked(order, n++, r, c->gp);
	if (n > max)
		n = max;
	for (int k = 0; k < n; k++)
		regs[k] = (uint8_t)order[k];
	return n;
}

int freqsel_rank_io(const freqsel_counts *c, uint16_t io_end, uint16_t *addrs,
		    int max)
{
	if (!c || !addrs || max <= 0)
		return 0;
	if (io_end > 256)
		io_end = 256;
	uint16_t order[256] = { 0 };
	int n = 0;
	for (uint16_t a = 0x20; a < io_end; a++)
		if (c->io[a])
			insert_ranked(order, n++, a, c->io);
	if (n > max)
		n = max;
	for (int k = 0; k < n; k++)
		addrs[k] = order[k];
	return n;
}
