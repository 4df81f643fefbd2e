/* cursor.c — the recorded log, context by context, a chunk at a time (see
 * cursor.h). */
#include "rerun/cursor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The oldest window event still needed: some context's next. */
static uint64_t needed_from(const rerun_cursor *c)
{
	uint64_t lo = c->hi;
	for (unsigned k = 0; k < 256; k++)
		if (c->pos[k] < lo)
			lo = c->pos[k];
	return lo;
}

/* Drops the window's events before the oldest one needed, once they are
 * at least half of it (so the move is paid for by the reads between). */
static void trim(rerun_cursor *c)
{
	uint64_t from = needed_from(c);
	if (from - c->lo < (c->hi - c->lo + 1) / 2 || from == c->lo)
		return;
	size_t drop = (size_t)(from - c->lo), keep = (size_t)(c->hi - from);
	memmove(c->win, c->win + drop, keep * sizeof *c->win);
	memmove(c->nxt, c->nxt + drop, keep * sizeof *c->nxt);
	c->lo = from;
	while (c->nirq_win && c->irq[c->irq_head] < from) {
		c->irq_head = (c->irq_head + 1) % c->irq_cap;
		c->nirq_win--;
		c->irq_lo++;
	}
}

static int fail(rerun_cursor *c, const char *why)
{
	if (!c->failed)
		snprintf(c->err.msg, sizeof c->err.msg, "%s", why);
	c->failed = 1;
	c->done = 1;
	return -1;
}

static int grow_irqs(rerun_cursor *c)
{
	size_t cap = c->irq_cap ? c->irq_cap * 2 : 256;
	uint64_t *p = malloc(cap * sizeof *p);
	if (!p)
		return -1;
	for (size_t k = 0; k < c->nirq_win; k++)
		p[k] = c->irq[(c->irq_head + k) % c->irq_cap];
	free(c->irq);
	c->irq = p;
	c->irq_cap = cap;
	c->irq_head = 0;
	return 0;
}

/* Reads the next chunk into the window: 0, or -1 at the end (done) or on
 * failure (failed). */
static int read_chunk(rerun_cursor *c)
{
	if (c->done)
		return -1;
	trim(c);
	const trace_event *chunk;
	size_t n;
	avrr_err err;
	int rc = db_events_chunk(&c->events, &chunk, &n, &err);
	if (rc < 0)
		return fail(c, err.msg);
	if (rc > 0) {
		c->done = 1;
		return -1;
	}
	if (c->hi - c->lo + n > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		while (cap < c->hi - c->lo + n)
			cap *= 2;
		trace_event *w = realloc(c->win, cap * sizeof *w);
		if (w)
			c->win = w;
		uint64_t *x = w ? realloc(c->nxt, cap * sizeof *x) : NULL;
		if (!x)
			return fail(c, "out of memory");
		c->nxt = x;
		c->cap = cap;
	}
	if (c->nchunks++ % RERUN_SEEK_EVERY == 0) {
		if (c->nseek == c->seek_cap) {
			size_t cap = c->seek_cap ? c->seek_cap * 2 : 64;
			uint64_t (*p)[2] = realloc(c->seek, cap * sizeof *p);
			if (!p)
				return fail(c, "out of memory");
			c->seek = p;
			c->seek_cap = cap;
		}
		c->seek[c->nseek][0] = c->hi;
		c->seek[c->nseek++][1] = c->irq_read;
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t i = c->hi++;
		const trace_event *e = &chunk[k];
		unsigned ctx = e->ctx & 0xff;
		c->win[i - c->lo] = *e;
		c->nxt[i - c->lo] = RERUN_NONE;
		if (c->last[ctx] != RERUN_NONE && c->last[ctx] >= c->lo)
			c->nxt[c->last[ctx] - c->lo] = i;
		if (c->pos[ctx] == RERUN_NONE)
			c->pos[ctx] = i;
		c->last[ctx] = i;
		if (e->type == TRACE_IRQ) {
			if (c->nirq_win == c->irq_cap && grow_irqs(c))
				return fail(c, "out of memory");
			if (!c->nirq_win)
				c->irq_lo = c->irq_read + 1;
			c->irq[(c->irq_head + c->nirq_win++) % c->irq_cap] = i;
			c->irq_read++;
		}
	}
	return 0;
}

const trace_event *rerun_cursor_more(rerun_cursor *c, unsigned ctx)
{
	while (c->pos[ctx] == RERUN_NONE)
		if (read_chunk(c))
			return NULL;
	return &c->win[c->pos[ctx] - c->lo];
}

int rerun_cursor_init(rerun_cursor *c, db *d, avrr_err *err)
{
	uint64_t nev, nirq;
	*c = (rerun_cursor){ .d = d };
	db_events_open(&c->events, d, 1);
	for (unsigned k = 0; k < 256; k++)
		c->pos[k] = c->last[k] = RERUN_NONE;
	if (db_log_counts(d, &nev, &nirq, err))
		return -1;
	c->nirq = (size_t)nirq;
	/* The reset. */
	if (nev && rerun_cursor_next(c, 0))
		rerun_cursor_consume(c, 0);
	if (c->failed) {
		*err = c->err;
		rerun_cursor_free(c);
		return -1;
	}
	return 0;
}

void rerun_cursor_free(rerun_cursor *c)
{
	free(c->win);
	free(c->nxt);
	free(c->irq);
	free(c->seek);
	db_events_close(&c->events);
	*c = (rerun_cursor){ 0 };
}

/* The n-th irq event after it left the window: read again from the last
 * chunk noted before it. */
static const trace_event *irq_again(rerun_cursor *c, uint64_t n)
{
	size_t lo = 0, hi = c->nseek;  /* the last seek point with fewer than n irqs before */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->seek[mid][1] < n)
			lo = mid;
		else
			hi = mid;
	}
	if (!c->nseek)
		return NULL;
	uint64_t seen = c->seek[lo][1];
	db_events it;  /* prev is not asked of an irq event read again */
	db_events_open(&it, c->d, c->seek[lo][0] + 1);
	const trace_event *e, *found = NULL;
	avrr_err err;
	while (!found && db_events_next_irq(&it, &e, &err) == 0)
		if (++seen == n) {
			c->again = *e;
			found = &c->again;
		}
	db_events_close(&it);
	return found;
}

const trace_event *rerun_cursor_irq(rerun_cursor *c, uint64_t n)
{
	if (n < 1 || n > c->nirq)
		return NULL;
	if (c->nirq_win && n < c->irq_lo)
		return irq_again(c, n);
	if (!c->nirq_win && n <= c->irq_read)
		return irq_again(c, n);
	while (n >= c->irq_read + 1)
		if (read_chunk(c))
			return NULL;
	return &c->win[c->irq[(c->irq_head + (n - c->irq_lo)) % c->irq_cap] - c->lo];
}

int rerun_cursor_in_order(rerun_cursor *c, uint64_t n, unsigned running)
{
	const trace_event *p = rerun_cursor_irq(c, n);
	if (!p)
		return 0;
	trace_event e = *p;
	const trace_event *own = rerun_cursor_next(c, e.ctx & 0xff);
	if (!own || own->seq != e.seq)
		return 0;
	if (c->last_seq[running] > e.seq)
		return 0;
	/* >=: an ISR that re-enables interrupts may be entered again inside
	 * itself (a tracer flushing its log from the ISR does), when the
	 * running context's next event is this irq itself. */
	const trace_event *nx = rerun_cursor_next(c, running);
	return !nx || nx->seq >= e.seq;
}

const trace_event *rerun_cursor_first_left(rerun_cursor *c, unsigned *ctx)
{
	/* Every context's next is read first: reading on moves the window. */
	for (unsigned k = 0; k < 256; k++)
		rerun_cursor_next(c, k);
	const trace_event *first = NULL;
	for (unsigned k = 0; k < 256; k++) {
		const trace_event *e = c->pos[k] != RERUN_NONE ? &c->win[c->pos[k] - c->lo] : NULL;
		if (e && (!first || e->seq < first->seq)) {
			first = e;
			*ctx = k;
		}
	}
	return first;
}
