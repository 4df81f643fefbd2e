/* score.c — scoring a fingerprint replay, as an observer (see score.h). */
#include "replayer/score.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/sim.h"

struct rp_scorer {
	replay *r;
	size_t n, pos;  /* the (pos+1)-th is the next recorded interrupt not yet decided */
	db_interrupt q; /* it, read from the log (rp_recorded_interrupt) */
	int stops;
	rp_counters *c;
};

/* Reads the next recorded interrupt into sc->q; one that cannot be read
 * (the replay has diverged, saying why) ends the scoring. */
static void load(rp_scorer *sc)
{
	if (sc->pos < sc->n && rp_recorded_interrupt(sc->r, sc->pos + 1, &sc->q))
		sc->n = sc->pos;
}

static void advance(rp_scorer *sc)
{
	sc->pos++;
	load(sc);
}

void score_settle(rp_scorer *sc, uint64_t upto)
{
	while (sc->pos < sc->n && sc->q.icount < upto) {
		sc->c->missed++;
		advance(sc);
	}
}

/* The next recorded interrupt, in words: "interrupt 3 (vector 1
 * (INT0_vect)) at icount 1286". */
static void describe_next(const rp_scorer *sc, char *buf, size_t len)
{
	if (sc->pos >= sc->n) {
		snprintf(buf, len, "no more interrupts");
		return;
	}
	const db_interrupt *q = &sc->q;
	const char *v = sim_vector_name(rp_sim(sc->r), (uint8_t)q->vector);
	snprintf(buf, len, "interrupt %zu (vector %u%s%s%s) at icount %" PRIu64, sc->pos + 1,
		 q->vector, v ? " (" : "", v ? v : "", v ? ")" : "", q->icount);
}

/* An injection about to be made: correct, or false and (unless keeping
 * going) the end of the replay, before the wrong entry. */
static int on_match(void *ud, const rp_hit *hit)
{
	rp_scorer *sc = ud;
	uint64_t icount = rp_icount(sc->r);
	score_settle(sc, icount);
	if (sc->pos < sc->n && sc->q.icount == icount && sc->q.vector == hit->vector) {
		sc->c->correct++;
		advance(sc);
		return 0;
	}
	rp_hit classified = *hit, *h = &classified;
	rp_classify_hit(sc->r, h);
	++*(h->same_ra ? &sc->c->false_loop : &sc->c->false_ra);
	++*(h->same_input ? &sc->c->input_duplicates : &sc->c->hash_collisions);
	if (!sc->stops)
		return 0;
	char want[160], got[200];
	describe_next(sc, want, sizeof want);
	snprintf(got, sizeof got, "a false %s positive (%s): the fingerprint 0x%" PRIx64
		 " of interrupt %" PRIu64 " (vector %u) matched here",
		 h->same_ra ? "loop" : "RA", h->same_input ? "input duplicate" : "hash collision",
		 h->key, h->n, h->vector);
	rp_diverge(sc->r, sim_running_vector(rp_sim(sc->r)), want, got);
	return 1;
}

/* Run slices end at the next recorded interrupt's point, so that on_slice
 * sees it decided there and not later. */
static void due(void *ud, uint64_t *icount, uint64_t *cycle)
{
	const rp_scorer *sc = ud;
	if (sc->stops && sc->pos < sc->n) {
		*icount = sc->q.icount;
		*cycle = sc->q.cycle;
	}
}

/* Whether the replay is past the point of recorded interrupt q, its
 * boundary decided: a later icount, or its icount at its cycle or later
 * and awake.  An interrupt that wakes the CPU comes at the icount of the
 * SLEEP, many cycles on, in the step that wakes it. */
static int passed(const rp_scorer *sc, const db_interrupt *q)
{
	const sim *s = rp_sim(sc->r);
	if (sim_icount(s) != q->icount)
		return sim_icount(s) > q->icount;
	return sim_cycle(s) >= q->cycle && !sim_sleeping(s);
}

/* Stops at a recorded interrupt the replay passed without taking. */
static void on_slice(void *ud)
{
	rp_scorer *sc = ud;
	if (!sc->stops || sc->pos >= sc->n || !passed(sc, &sc->q))
		return;
	char want[160], got[160];
	describe_next(sc, want, sizeof want);
	snprintf(got, sizeof got, "no interrupt: the fingerprint here is 0x%" PRIx64
		 ", the recorded one 0x%" PRIx64, rp_key_here(sc->r),
		 rp_recorded_key(sc->r, sc->pos + 1));
	sc->c->missed++;
	advance(sc);
	rp_diverge(sc->r, sim_running_vector(rp_sim(sc->r)), want, got);
}

rp_scorer *score_attach(replay *r, size_t n, int stops, rp_counters *c, avrr_err *err)
{
	rp_scorer *sc = malloc(sizeof *sc);
	if (!sc) {
		avrr_errf(err, "out of memory");
		return NULL;
	}
	*sc = (rp_scorer){ .r = r, .n = n, .stops = stops, .c = c };
	load(sc);
	if (rp_observe(r, &(rp_observer){ .ud = sc, .on_match = on_match, .due = due,
					  .on_slice = on_slice }, err)) {
		free(sc);
		return NULL;
	}
	return sc;
}

void score_free(rp_scorer *sc)
{
	free(sc);
}
