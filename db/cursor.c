/* cursor.c — the log and the fingerprints a chunk at a time (see
 * cursor.h). */
#include "db/cursor.h"

#include <stdlib.h>
#include <string.h>

void db_events_open(db_events *it, db *d, uint64_t first)
{
	*it = (db_events){ .d = d, .next = first };
}

int db_events_chunk(db_events *it, const trace_event **ev, size_t *n, avrr_err *err)
{
	it->at = it->n = 0;
	int rc = db_event_chunk(it->d, it->next, it->last_of_ctx, &it->buf, &it->cap, &it->n, err);
	if (rc)
		return rc;
	it->next += it->n;
	it->at = it->n;  /* handed over whole */
	*ev = it->buf;
	*n = it->n;
	return 0;
}

int db_events_next_irq(db_events *it, const trace_event **e, avrr_err *err)
{
	for (;;) {
		while (it->at < it->n) {
			const trace_event *x = &it->buf[it->at++];
			if (x->type == TRACE_IRQ) {
				*e = x;
				return 0;
			}
		}
		const trace_event *ev;
		size_t n;
		int rc = db_events_chunk(it, &ev, &n, err);
		if (rc)
			return rc;
		it->at = 0;
	}
}

void db_events_close(db_events *it)
{
	free(it->buf);
	*it = (db_events){ 0 };
}

void db_fps_open(db_fps *f, db *d)
{
	*f = (db_fps){ .d = d };
}

const db_fingerprint *db_fps_read(db_fps *f, uint32_t config, uint64_t n, avrr_err *err)
{
	f->config = config;
	/* On failure the count is 0: nothing stale is served after. */
	if (db_fingerprint_chunk(f->d, config, n, &f->buf, &f->cap, &f->first, &f->count, err))
		return NULL;
	return &f->buf[n - f->first];
}

void db_fps_close(db_fps *f)
{
	free(f->buf);
	*f = (db_fps){ 0 };
}
