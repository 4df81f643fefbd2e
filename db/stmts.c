/*
 * stmts.c — statements kept prepared on one connection (stmts.h).
 */
#include "db/stmts.h"

#include <stdlib.h>
#include <string.h>

/* avrr's readers run about thirty queries; one more is prepared anew. */
#define STMTS_MAX 48

typedef struct kept {
	const char *key;    /* the text the caller passed (a literal, mostly) */
	char *sql;          /* its text, ours */
	sqlite3_stmt *st;
	int in_use;
} kept;

struct db_stmts {
	kept k[STMTS_MAX];
	size_t n;
};

db_stmts *stmts_new(void)
{
	return calloc(1, sizeof(db_stmts));
}

void stmts_free(db_stmts *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		sqlite3_finalize(s->k[i].st);
		free(s->k[i].sql);
	}
	free(s);
}

int stmts_prepare(db_stmts *s, sqlite3 *h, const char *sql, sqlite3_stmt **st)
{
	/* By address first: the callers' texts are literals, and a fuzzer's
	 * hooks would take each strcmp of two queries for input to learn. */
	for (int by_text = 0; s && by_text < 2; by_text++)
		for (size_t i = 0; i < s->n; i++)
			if (!s->k[i].in_use &&
			    (by_text ? !strcmp(s->k[i].sql, sql) : s->k[i].key == sql)) {
				s->k[i].in_use = 1;
				*st = s->k[i].st;
				return SQLITE_OK;
			}
	int rc = sqlite3_prepare_v2(h, sql, -1, st, NULL);
	if (rc != SQLITE_OK || !*st || !s || s->n == STMTS_MAX)
		return rc;
	kept *k = &s->k[s->n];
	if ((k->sql = strdup(sql))) {  /* out of memory: not kept, finalized when done */
		k->key = sql;
		k->st = *st;
		k->in_use = 1;
		s->n++;
	}
	return rc;
}

void stmts_finish(db_stmts *s, sqlite3_stmt *st)
{
	for (size_t i = 0; st && s && i < s->n; i++)
		if (s->k[i].st == st) {
			/* As new: no row pending (a statement left mid-result would
			 * hold its read transaction, and the cached pages of an image
			 * no longer there), no value bound. */
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			s->k[i].in_use = 0;
			return;
		}
	sqlite3_finalize(st);
}

int stmts_idle(const db_stmts *s, sqlite3 *h)
{
	for (sqlite3_stmt *st = sqlite3_next_stmt(h, NULL); st; st = sqlite3_next_stmt(h, st)) {
		size_t i = 0;
		while (s && i < s->n && s->k[i].st != st)
			i++;
		if (!s || i == s->n || s->k[i].in_use || sqlite3_stmt_busy(st))
			return 0;
	}
	return 1;
}
