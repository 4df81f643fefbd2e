/*
 * profile.h — `avrr analyze profile`: where the cycles of a recorded run
 * went, measured on its replay.
 *
 * Cycles are the instructions' own (simavr's count per instruction);
 * cycles asleep are the run's rest.  A function's self cycles are those of
 * its own instructions; its total adds those of the functions it called,
 * recursion counted once, but never an ISR's: each ISR is a stack of its
 * own, rooted at its vector.  Calls are CALL/RCALL/ICALL/EICALL and RET;
 * a jump into another symbol (a tail call, avr-libc's prologue helpers)
 * continues the frame as that symbol.
 *
 * Per vector: how many times it ran; its latency, the cycles from the
 * interrupt flag's raise to the vector's entry; its duration, entry to
 * RETI (nested ISRs included).  The stack's high-water mark is the lowest
 * SP of the run, with where it was first reached.
 */
#ifndef AVRR_ANALYZE_PROFILE_H
#define AVRR_ANALYZE_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/session.h"

typedef struct an_func {
	const char *name;
	uint64_t self, total, calls;
} an_func;

typedef struct an_spread {
	uint64_t n, min, median, max;
} an_spread;

typedef struct an_vector {
	uint8_t vector;
	char name[48];
	uint64_t count;
	an_spread latency, duration;  /* cycles */
	uint64_t self, total;         /* cycles in the ISR's own code, and with callees */
} an_vector;

typedef struct an_profile {
	an_func *funcs;               /* by self cycles, most first */
	size_t nfuncs;
	an_vector *vectors;           /* by vector */
	size_t nvectors;
	uint64_t cycles;              /* the run's */
	uint64_t instruction_cycles;  /* spent executing instructions */
	uint16_t stack_lowest_sp;
	uint32_t stack_bytes;         /* RAMEND - lowest SP */
	uint64_t stack_icount;        /* where it was first reached */
	char **backtrace;             /* there, innermost first ("foo", "TIMER0_OVF_vect") */
	size_t nbacktrace;
	void *priv;
} an_profile;

int an_profile_run(an_session *a, void (*progress)(void *ud, uint64_t done, uint64_t total),
		   void *ud, an_profile *out, avrr_err *err);

/* Writes the folded stacks ("main;foo;bar 1234" a line, cycles) that
 * flamegraph.pl and speedscope read.  Returns 0, or -1 on a write error. */
int an_profile_folded(const an_profile *p, FILE *f);

void an_profile_free(an_profile *p);

#endif
