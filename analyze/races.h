/*
 * races.h — `avrr analyze races`: variables that the main program and an
 * ISR (or two ISRs) share, where an access in the interruptible context is
 * not atomic with respect to the interrupt.
 *
 * Variables are the firmware's data symbols (globals and statics, with
 * their ELF sizes) cut, where the DWARF gives their types, into members
 * and elements (dwarf/members.h): a race is judged per struct or class
 * member and per array element, so C++'s `Serial`, whose RX ISR writes
 * `_rx_buffer_head` while loop() writes `_rx_buffer_tail`, each byte by
 * one writer in one atomic access, is no race.  The stack and the heap
 * have no symbols, so they are left out.  A context's accesses to one variable, each at most a few of its
 * own instructions after the last and none repeating a byte already read
 * (or written) the same way, form one access: `x = tick` (two loads),
 * `tick++` (loads, then stores).  It is non-atomic when I was set at a
 * boundary between two of its instructions — where an interrupt could
 * come — and it is either split (two or more bytes) or a read-modify-write
 * of one byte.  It races with an ISR that can preempt it (any other
 * vector's: main preempts nobody) and accesses the variable, when one side
 * writes (a split access), or when the ISR writes (a one-byte
 * read-modify-write: a lost update) — and only if that vector's own
 * source (its enable bit in TIMSKn, EIMSK, PCICR and PCMSKn, UCSRnB, ...)
 * was enabled at an interruptible gap of the access, some time it ran.
 *
 * A witness is an interrupt of that other context that the replay actually
 * took between the two halves: its icount is where `goto ICOUNT` in the
 * shell shows the CPU inside the ISR, the return address between the
 * halves.  Races never witnessed in this run are reported apart, as
 * potential.
 */
#ifndef AVRR_ANALYZE_RACES_H
#define AVRR_ANALYZE_RACES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/session.h"

#define AN_MAX_WITNESSES 8
#define AN_RACE_NAME 128

typedef struct an_race {
	char variable[AN_RACE_NAME];    /* "tick", "Serial._rx_buffer_head", "buf[3]" */
	uint16_t addr;
	uint32_t size;
	const char *kind;           /* "split read", "split write", "read-modify-write" */
	unsigned ctx;               /* the interruptible context (0 = main) */
	uint32_t first_pc, second_pc;  /* the accesses either side of the gap */
	uint64_t occurrences;       /* times the non-atomic access ran */
	unsigned other_ctx;         /* the context it races with */
	uint32_t other_pc;          /* that context's first access (a write, if any) */
	int other_writes;
	uint64_t witnesses[AN_MAX_WITNESSES];  /* icounts, the first ones */
	unsigned nwitnesses;
	uint64_t witness_count;     /* all of them */
} an_race;

/* Replays a's recording to the end and finds its races, witnessed first
 * (each ordered by variable address).  *out is malloc'ed. */
int an_races(an_session *a, void (*progress)(void *ud, uint64_t done, uint64_t total),
	     void *ud, an_race **out, size_t *n, avrr_err *err);

#endif
